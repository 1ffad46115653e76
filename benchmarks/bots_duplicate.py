"""Duplicate 2-vs-2 matches between bots: mean raw points per hand, with a standard error.

    python benchmarks/bots_duplicate.py [--match A:B ...] [--deals N] [--workers K]
                                        [--budget-ms MS] [--search-option K=V]
                                        [--rules NAME ...] [--seed S] [--json]

Partners sit opposite: seats 0 and 2 against seats 1 and 3.  Each deal is
played twice with the teams swapped, so each side holds every seat's cards.  No
seat shows a card (each takes the legal show with no cards).  A team's
score is the sum of its two seats' raw points (``score().raw``); each
hand gives the difference A − B, and a deal the mean of its two hands.
The standard error is over deals (the two hands of a deal are correlated).

Default matches: heuristic:random, search:random, search:heuristic.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import time
from typing import Any

import gongzhu
from gongzhu.arena import run_arena

SEARCH_OPTIONS: dict[str, Any] = {}
"""Extra options for the search bots (``--search-option NAME=VALUE``)."""


def run(
    rule_names: list[str],
    a: str,
    b: str,
    deals: int,
    seed: int,
    workers: int,
    budget_ms: float | None,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals of ``a`` against ``b`` (:func:`gongzhu.arena.run_arena`)."""
    search = dict(SEARCH_OPTIONS)
    if budget_ms is not None:
        search["budget_ms"] = budget_ms
    start = time.perf_counter()
    result = run_arena(
        gongzhu.load_rules(*rule_names),
        a,
        b,
        deals,
        seed=seed,
        workers=workers,
        options={"search": search},
    )
    return {**result.to_json(), "seconds": time.perf_counter() - start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--match",
        action="append",
        default=None,
        help="A:B, bot A's team against bot B's (repeatable)",
    )
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (2 hands each)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--budget-ms", type=float, default=None, help="search budget (default: its own)"
    )
    parser.add_argument(
        "--search-option",
        action="append",
        default=[],
        help="NAME=VALUE passed to the search bots (a number, or text)",
    )
    parser.add_argument("--rules", nargs="*", default=[])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument(
        "--rst", action="store_true", help="print the results table of docs/bots.rst"
    )
    args = parser.parse_args()
    for item in args.search_option:
        key, _, text = item.partition("=")
        value: Any = text
        for kind in (int, float):
            try:
                value = kind(text)
                break
            except ValueError:
                pass
        SEARCH_OPTIONS[key] = None if text == "none" else value
    matches = args.match or ["heuristic:random", "search:random", "search:heuristic"]
    rules = gongzhu.load_rules(*args.rules)
    if not args.json:
        print(
            f"{datetime.date.today()}  python {platform.python_version()} on "
            f"{platform.machine()}, rules {rules!r}, {args.workers} worker(s)"
        )
    results = []
    for match in matches:
        a, b = match.split(":")
        result = run(args.rules, a, b, args.deals, args.seed, args.workers, args.budget_ms)
        results.append(result)
        if args.json:
            print(json.dumps(result))
        elif not args.rst:
            print(
                f"{a:>10} vs {b:<10} {result['hands']:6d} hands: "
                f"{result['mean']:+8.1f} ± {_maybe(result['stderr'], '5.1f')} raw points per "
                f"hand (z = {_maybe(result['z'], '+.2f')}, {result['seconds']:.0f} s)"
            )
    if args.rst:
        print(rst_table(results))


def _maybe(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def rst_table(results: list[dict[str, Any]]) -> str:
    """The results as the list-table of docs/bots.rst."""
    rows = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 30 14 28 28",
        "",
        "   * - match",
        "     - hands",
        "     - raw points per hand (A − B)",
        "     - standard error",
    ]
    for result in results:
        rows += [
            f"   * - {result['a']} vs {result['b']}",
            f"     - {result['hands']}",
            f"     - {result['mean']:+.1f}",
            f"     - {_maybe(result['stderr'], '.1f')}",
        ]
    return "\n".join(rows)


if __name__ == "__main__":
    main()

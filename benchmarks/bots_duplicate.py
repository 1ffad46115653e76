"""Duplicate 2-vs-2 matches between bots: mean raw points per hand, with a standard error.

    python benchmarks/bots_duplicate.py [--match A:B ...] [--deals N] [--workers K]
                                        [--budget-ms MS | --samples N] [--shows]
                                        [--search-option K=V] [--rules NAME ...]
                                        [--table] [--seed S] [--json] [--rst]
    python benchmarks/bots_duplicate.py --pool RESULTS.jsonl ... [--rst]

Partners sit opposite: seats 0 and 2 against seats 1 and 3, and the bots are
told so (:func:`gongzhu.bots.tell_format`: the search bot then plays for its
team by default).  Each deal is played twice with the teams swapped, so each
side holds every seat's cards.  Without ``--shows`` no seat shows a card (each
takes the legal show with no cards); with it, every bot makes its own shows
(亮牌, 首明, 暗卖).  A team's score is the sum of its two seats' raw points
(``score().raw``); each hand gives the difference A − B, and a deal the mean
of its two hands.  The standard error is over deals (the two hands of a deal
are correlated).

The search bots' budget is ``--budget-ms`` (a time budget: the result then
depends on the machine and its load) or ``--samples`` (sampled deals a
decision, no time limit: the same result on any machine, for a seed).

``--table`` plays rules:random, heuristic:random and search:random under
every shipped base and two-deck (39baobao, huapai, 39baobao with
same-colour-discard, two-deck) and prints one row per ruleset; ``--json`` prints each result as a
JSON line, and ``--pool`` merges such lines (runs of the same match and
ruleset from different seeds) into one result each.

Default matches: heuristic:random, search:random, search:heuristic.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

import gongzhu
from gongzhu.arena import run_arena

TABLE_RULESETS: tuple[tuple[str, ...], ...] = (
    (),
    ("huapai",),
    ("same-colour-discard",),
    ("two-deck",),
)
"""The rulesets of ``--table``: every shipped base, the discard rule and two decks."""

TABLE_MATCHES = ("rules:random", "heuristic:random", "search:random")


def run(
    rule_names: Sequence[str],
    a: str,
    b: str,
    deals: int,
    *,
    seed: int,
    workers: int,
    search: dict[str, Any],
    shows: bool,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals of ``a`` against ``b`` (:func:`gongzhu.arena.run_arena`)."""
    start = time.perf_counter()
    result = run_arena(
        gongzhu.load_rules(*rule_names),
        a,
        b,
        deals,
        seed=seed,
        workers=workers,
        shows=shows,
        options={"search": search},
    )
    return {
        **result.to_json(),
        "rules": list(rule_names) or ["39baobao"],
        "shows": shows,
        "search": {k: v for k, v in search.items()},
        "seed": seed,
        "seconds": time.perf_counter() - start,
    }


def pool(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs of the same match, ruleset, shows and search options merged, in first-seen order.

    The deals of different runs are independent: the pooled mean is the mean
    over all deals, and its standard error comes from the runs' own.
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        key = json.dumps(
            [result["a"], result["b"], result["rules"], result["shows"], result["search"]],
            sort_keys=True,
        )
        groups.setdefault(key, []).append(result)
    out = []
    for runs in groups.values():
        deals = sum(r["deals"] for r in runs)
        mean = sum(r["mean"] * r["deals"] for r in runs) / deals
        if any(r["stderr"] is None for r in runs):
            stderr = None
        else:
            stderr = math.sqrt(sum((r["stderr"] * r["deals"]) ** 2 for r in runs)) / deals
        first = runs[0]
        out.append(
            {
                **first,
                "deals": deals,
                "hands": sum(r["hands"] for r in runs),
                "mean": mean,
                "stderr": stderr,
                "z": mean / stderr if stderr else None,
                "seed": [r["seed"] for r in runs],
                "seconds": sum(r["seconds"] for r in runs),
            }
        )
    return out


def _option(text: str) -> tuple[str, Any]:
    key, _, raw = text.partition("=")
    value: Any = raw
    for kind in (int, float):
        try:
            value = kind(raw)
            break
        except ValueError:
            pass
    return key, None if raw == "none" else value


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--match", action="append", default=None, help="A:B, bot A's team against bot B's"
    )
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (2 hands each)")
    parser.add_argument("--workers", type=int, default=1)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--budget-ms", type=float, default=None, help="search time budget (default: its own)"
    )
    budget.add_argument(
        "--samples",
        type=int,
        default=None,
        help="search budget in sampled deals a decision, no time limit (load-independent)",
    )
    parser.add_argument(
        "--search-option",
        action="append",
        default=[],
        help="NAME=VALUE passed to the search bots (a number, or text; none for None)",
    )
    parser.add_argument("--shows", action="store_true", help="the bots make their own shows")
    parser.add_argument("--rules", nargs="*", default=[])
    parser.add_argument(
        "--table",
        action="store_true",
        help="rules, heuristic and search against random, every ruleset",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument(
        "--rst", action="store_true", help="print the results as a table of docs/bots.rst"
    )
    parser.add_argument(
        "--pool", nargs="+", metavar="FILE", help="merge the JSON lines of earlier runs"
    )
    args = parser.parse_args(argv)
    if args.pool:
        lines = []
        for name in args.pool:
            with open(name, encoding="utf-8") as file:
                lines += [json.loads(line) for line in file if line.strip()]
        _report(pool(lines), args)
        return
    search = dict(_option(item) for item in args.search_option)
    if args.budget_ms is not None:
        search["budget_ms"] = args.budget_ms
    if args.samples is not None:
        search.update(budget_ms=None, samples=args.samples)
    if args.table:
        plan = [(names, match) for names in TABLE_RULESETS for match in TABLE_MATCHES]
    else:
        matches = args.match or ["heuristic:random", "search:random", "search:heuristic"]
        plan = [(tuple(args.rules), match) for match in matches]
    if not args.json:
        print(
            f"{datetime.date.today()}  python {platform.python_version()} on "
            f"{platform.machine()}, {args.workers} worker(s), search {search or 'defaults'}"
            f"{', shows' if args.shows else ''}"
        )
    results = []
    for names, match in plan:
        a, b = match.split(":")
        result = run(
            names,
            a,
            b,
            args.deals,
            seed=args.seed,
            workers=args.workers,
            search=search,
            shows=args.shows,
        )
        results.append(result)
        if args.json:
            print(json.dumps(result), flush=True)
        elif not args.rst:
            print(_line(result), flush=True)
    if args.rst:
        print(rst_table(results) if not args.table else rst_ruleset_table(results))


def _report(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    if args.rst:
        by_rules = len({tuple(r["rules"]) for r in results}) > 1
        print(rst_ruleset_table(results) if by_rules else rst_table(results))
    elif args.json:
        for result in results:
            print(json.dumps(result))
    else:
        for result in results:
            print(_line(result))


def _line(result: dict[str, Any]) -> str:
    rules = " ".join(result["rules"]) + (" shows" if result["shows"] else "")
    return (
        f"{result['a']:>10} vs {result['b']:<10} {rules:<22} {result['hands']:6d} hands: "
        f"{result['mean']:+8.1f} ± {_maybe(result['stderr'], '5.1f')} raw points per "
        f"hand (z = {_maybe(result['z'], '+.2f')}, {result['seconds']:.0f} s)"
    )


def _maybe(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def rst_table(results: list[dict[str, Any]]) -> str:
    """The results as a list-table of docs/bots.rst: one row per match."""
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


def rst_ruleset_table(results: list[dict[str, Any]]) -> str:
    """The results as a list-table of docs/bots.rst: one row per ruleset, one column per match."""
    matches = list(dict.fromkeys(f"{r['a']} − {r['b']}" for r in results))
    rulesets = list(dict.fromkeys(" + ".join(r["rules"]) for r in results))
    cell = {(" + ".join(r["rules"]), f"{r['a']} − {r['b']}"): r for r in results}
    rows = [".. list-table::", "   :header-rows: 1", "", "   * - ruleset"]
    rows += [f"     - {match} (hands)" for match in matches]
    for rules in rulesets:
        rows.append(f"   * - {rules}")
        for match in matches:
            r = cell.get((rules, match))
            rows.append(
                "     -"
                if r is None
                else f"     - {r['mean']:+.1f} ± {_maybe(r['stderr'], '.1f')} ({r['hands']})"
            )
    return "\n".join(rows)


if __name__ == "__main__":
    main(sys.argv[1:])

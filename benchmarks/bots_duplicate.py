"""Duplicate 2-vs-2 matches between bots: mean raw points per hand, with a standard error.

    python benchmarks/bots_duplicate.py [--match A:B ...] [--deals N] [--workers K]
                                        [--budget-ms MS] [--search-option K=V]
                                        [--rules NAME ...] [--seed S] [--json]

Partners sit opposite: seats 0 and 2 against seats 1 and 3.  Each deal is
played twice with the teams swapped, so each side holds every hand.  No
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
import math
import multiprocessing
import platform
import time
from collections.abc import Sequence
from typing import Any

import gongzhu
from gongzhu.actions import Action, Show
from gongzhu.bots import Bot, make_bot
from gongzhu.view import Phase


def _no_show(legal: Sequence[Action]) -> Action:
    """The legal show with the fewest cards (``Show(())`` where showing is free)."""
    shows = [a for a in legal if isinstance(a, Show)]
    return min(shows, key=lambda a: len(a.cards)) if shows else legal[0]


SEARCH_OPTIONS: dict[str, Any] = {}
"""Extra options for the search bots (``--search-option NAME=VALUE``)."""


def _bot(name: str, seed: int, rules: gongzhu.Rules, budget_ms: float | None) -> Bot:
    options: dict[str, Any] = {"rules": rules}
    if name == "search":
        options.update(SEARCH_OPTIONS)
        if budget_ms is not None:
            options["budget_ms"] = budget_ms
    return make_bot(name, seed=seed, **options)


def play_team_hand(
    rules: gongzhu.Rules, deal_seed: int, even: str, odd: str, budget_ms: float | None
) -> tuple[int, int]:
    """Play one hand: bot ``even`` at seats 0 and 2, ``odd`` at 1 and 3; the teams' raw points."""
    hand = rules.new_hand(seed=deal_seed)
    bots = [
        _bot(even if seat % 2 == 0 else odd, deal_seed * 4 + seat, rules, budget_ms)
        for seat in range(4)
    ]
    while not hand.is_over:
        seat = hand.current_seat
        assert seat is not None
        if hand.phase is Phase.FIRST_SHOW or hand.phase is Phase.SHOW:
            hand.apply(_no_show(hand.legal_actions()))
        else:
            hand.apply(bots[seat].choose(hand.view(seat)))
    raw = hand.score().raw
    return raw[0] + raw[2], raw[1] + raw[3]


def duplicate_deal(
    job: tuple[list[str], int, str, str, float | None, dict[str, Any]],
) -> float:
    """One deal played twice, teams swapped: the mean of A − B over its two hands."""
    rule_names, deal_seed, a, b, budget_ms, search_options = job
    SEARCH_OPTIONS.update(search_options)
    rules = gongzhu.load_rules(*rule_names)
    a_even, b_odd = play_team_hand(rules, deal_seed, a, b, budget_ms)
    b_even, a_odd = play_team_hand(rules, deal_seed, b, a, budget_ms)
    return ((a_even - b_odd) + (a_odd - b_even)) / 2


def run(
    rule_names: list[str],
    a: str,
    b: str,
    deals: int,
    seed: int,
    workers: int,
    budget_ms: float | None,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals of ``a`` against ``b``; mean, standard error, time."""
    jobs = [(rule_names, seed + i, a, b, budget_ms, dict(SEARCH_OPTIONS)) for i in range(deals)]
    start = time.perf_counter()
    if workers > 1:
        with multiprocessing.Pool(workers) as pool:
            results = pool.map(duplicate_deal, jobs, chunksize=max(1, deals // (workers * 8)))
    else:
        results = [duplicate_deal(job) for job in jobs]
    seconds = time.perf_counter() - start
    n = len(results)
    mean = sum(results) / n
    var = sum((x - mean) ** 2 for x in results) / (n - 1) if n > 1 else 0.0
    stderr = math.sqrt(var / n)
    return {
        "a": a,
        "b": b,
        "deals": n,
        "hands": 2 * n,
        "mean": mean,
        "stderr": stderr,
        "z": mean / stderr if stderr else math.inf,
        "seconds": seconds,
    }


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
    for match in matches:
        a, b = match.split(":")
        result = run(args.rules, a, b, args.deals, args.seed, args.workers, args.budget_ms)
        if args.json:
            print(json.dumps(result))
        else:
            print(
                f"{a:>10} vs {b:<10} {result['hands']:6d} hands: "
                f"{result['mean']:+8.1f} ± {result['stderr']:5.1f} raw points per hand "
                f"(z = {result['z']:+.2f}, {result['seconds']:.0f} s)"
            )


if __name__ == "__main__":
    main()

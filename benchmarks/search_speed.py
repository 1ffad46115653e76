"""Sampled deals a search decision draws at a time budget: 2-vs-2 against every seat for itself.

    python benchmarks/search_speed.py [--decisions N] [--budget-ms MS] [--rounds R] [--json]

The search bot plays each action of a sampled deal out inside the C engine;
in 2-vs-2 it also finishes the trick under way for the teams (a seat gives
its points to a teammate's winning card).  This measures the samples a
decision draws in both formats, on the same views, at the same budget in
processor time, in alternating rounds, and prints their ratio: 2-vs-2
against solo.  A ratio near 1 says that playing for the teams costs the
playout nothing; when the team finish ran in Python (before 2026-12-06)
the 2-vs-2 search drew about a fifth fewer samples than now.

The views are the decisions with a choice of the first hands of seed 0,
played by the ``rules`` bot in every seat (no shows), so a run is the same
work on any machine; only the samples drawn depend on its speed.
"""

from __future__ import annotations

import argparse
import json
import statistics

from gongzhu import load_rules
from gongzhu.bots import SearchBot, make_bot
from gongzhu.view import Phase, SeatView


def views(count: int) -> list[SeatView]:
    """The first ``count`` play decisions with a choice, from hands the ``rules`` bot plays."""
    rules = load_rules()
    player = make_bot("rules", rules=rules)
    found: list[SeatView] = []
    seed = 0
    while len(found) < count:
        hand = rules.new_hand(seed=seed)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            view = hand.view(seat)
            if view.phase is Phase.PLAY and len(view.legal_actions) > 1:
                found.append(view)
            hand.apply(player.choose(view))
        seed += 1
    return found[:count]


def samples_a_decision(format: str, budget_ms: float, decisions: list[SeatView]) -> float:
    """The mean samples a search at ``budget_ms`` (processor time) draws over ``decisions``."""
    bot = make_bot("search", seed=1, format=format, budget_ms=budget_ms, clock="cpu")
    assert isinstance(bot, SearchBot)
    drawn = []
    for view in decisions:
        bot.choose(view)
        drawn.append(bot.last_stats["samples"])
    return statistics.mean(drawn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=80)
    parser.add_argument("--budget-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    if args.decisions < 1 or args.rounds < 1 or not args.budget_ms > 0:
        parser.error("--decisions and --rounds must be at least 1, --budget-ms positive")
    decisions = views(args.decisions)
    solo: list[float] = []
    teams: list[float] = []
    for _ in range(args.rounds):  # alternating, so that the machine's load falls on both
        solo.append(samples_a_decision("solo", args.budget_ms, decisions))
        teams.append(samples_a_decision("2v2", args.budget_ms, decisions))
    result = {
        "decisions": args.decisions,
        "budget_ms": args.budget_ms,
        "solo": round(statistics.mean(solo)),
        "2v2": round(statistics.mean(teams)),
        "ratio": round(statistics.mean(teams) / statistics.mean(solo), 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.decisions} decisions at {args.budget_ms:g} ms: solo {result['solo']} "
            f"samples a decision, 2v2 {result['2v2']}; 2v2/solo {result['ratio']:.2f}"
        )


if __name__ == "__main__":
    main()

"""What a bot's decision costs: processor and elapsed time around ``choose``, by ruleset.

    python benchmarks/decision_time.py [--hands N] [--rounds R] [--shows] [--json]
                                       [--case NAME:RULES:BOT[:OPTION=VALUE,...]] ...

Each case is a bot (by its registered name, with options) under a ruleset (variant
names joined by ``+``).  It plays ``--hands`` seeded hands (seeds 0, 1, ...) in two
seats told ``"2v2"``, against two ``random`` seats, no shows (every show phase is
passed; ``--shows``: each seat makes its own), as docs/bots.rst times the
heuristic: every play decision of the bot is timed (those with one legal play too,
as there), and the mean of those with a choice is printed besides.  The cases run
in alternating rounds (``--rounds``), so a load on the machine falls on all of
them alike, and each is printed with its ratio to the first case (the reference:
by default the one-deck heuristic, which the budget of 1 ms a decision was set
by).

The default cases are the heuristic under 39baobao, and with two decks checking
where points are at stake (``where=stake``) and every play (``where=all``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence

import attrs

from gongzhu import load_rules
from gongzhu.bots import make_bot, tell_format
from gongzhu.errors import GongzhuError
from gongzhu.view import Phase

DEFAULT_CASES = (
    "heuristic:39baobao:heuristic",
    "two-deck, stake:two-deck:heuristic:where=stake",
    "two-deck, all:two-deck:heuristic:where=all",
)


@attrs.frozen
class Case:
    """One bot under one ruleset, and the options it is made with."""

    name: str
    variants: tuple[str, ...]
    bot: str
    options: dict[str, object]

    @classmethod
    def parse(cls, text: str) -> Case:
        """``NAME:RULES:BOT[:OPTION=VALUE,...]``; a VALUE is read as JSON, else as text."""
        parts = text.split(":")
        if len(parts) not in (3, 4):
            raise argparse.ArgumentTypeError(
                f"a case is NAME:RULES:BOT[:OPTION=VALUE,...], not {text!r}"
            )
        options: dict[str, object] = {}
        for item in filter(None, (parts[3] if len(parts) == 4 else "").split(",")):
            key, _, value = item.partition("=")
            try:
                options[key] = json.loads(value)
            except json.JSONDecodeError:
                options[key] = value
        return cls(parts[0], tuple(parts[1].split("+")), parts[2], options)


@attrs.define
class Times:
    """The decisions timed so far for one case (milliseconds)."""

    cpu: list[float] = attrs.field(factory=list)
    wall: list[float] = attrs.field(factory=list)
    choice: list[bool] = attrs.field(factory=list)
    """Whether the decision had a choice of plays."""


def play(case: Case, seeds: Sequence[int], times: Times, shows: bool = False) -> None:
    """Play the hands of ``seeds`` for ``case``, adding its bot's play decisions to
    ``times``; with ``shows`` every seat makes its own shows (else each passes)."""
    rules = load_rules(*case.variants)
    seats = {
        seat: tell_format(make_bot(case.bot, seed, rules=rules, **case.options), "2v2")
        for seat, seed in ((0, 1), (2, 3))
    }
    others = {seat: make_bot("random", seat, rules=rules) for seat in (1, 3)}
    for seed in seeds:
        hand = rules.new_hand(seed=seed)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            view = hand.view(seat)
            if view.phase is not Phase.PLAY and not shows:
                hand.apply(next(action for action in view.legal_actions if not action.cards))
                continue
            if seat in others or view.phase is not Phase.PLAY:
                hand.apply((others.get(seat) or seats[seat]).choose(view))
                continue
            cpu, wall = time.thread_time(), time.perf_counter()
            action = seats[seat].choose(view)
            cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
            times.cpu.append(cpu * 1000)
            times.wall.append(wall * 1000)
            times.choice.append(len(view.legal_actions) > 1)
            hand.apply(action)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20, help="hands a case plays (all rounds)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds")
    parser.add_argument(
        "--case",
        type=Case.parse,
        action="append",
        help="NAME:RULES:BOT[:OPTION=VALUE,...] (repeatable; the first is the reference)",
    )
    parser.add_argument("--shows", action="store_true", help="the seats make their own shows")
    parser.add_argument("--json", action="store_true", help="print one JSON line a case")
    args = parser.parse_args()
    if args.rounds < 1 or args.hands < args.rounds:
        parser.error("--rounds must be at least 1, and --hands at least --rounds")
    cases: list[Case] = args.case or [Case.parse(text) for text in DEFAULT_CASES]
    for case in cases:  # a bad case is told before any timing
        try:
            make_bot(case.bot, 0, rules=load_rules(*case.variants), **case.options)
        except (GongzhuError, TypeError, ValueError) as exc:
            parser.error(f"case {case.name!r}: {exc}")
    times = {case.name: Times() for case in cases}
    per_round = args.hands // args.rounds
    for round_ in range(args.rounds):
        seeds = range(round_ * per_round, (round_ + 1) * per_round)
        for case in cases:
            play(case, seeds, times[case.name], args.shows)
    reference = statistics.mean(times[cases[0].name].cpu)
    for case in cases:
        timed = times[case.name]
        row = {
            "case": case.name,
            "decisions": len(timed.cpu),
            "cpu_ms": statistics.mean(timed.cpu),
            "choice_cpu_ms": statistics.mean(
                cpu for cpu, choice in zip(timed.cpu, timed.choice, strict=True) if choice
            ),
            "wall_ms": statistics.mean(timed.wall),
            "max_wall_ms": max(timed.wall),
            "ratio": statistics.mean(timed.cpu) / reference,
        }
        if args.json:
            print(json.dumps(row))
        else:
            print(
                f"{case.name:<24} {row['decisions']:>6} decisions  "
                f"{row['cpu_ms']:.3f} ms cpu ({row['choice_cpu_ms']:.3f} with a choice)  "
                f"{row['wall_ms']:.3f} ms elapsed (max {row['max_wall_ms']:.1f})  "
                f"×{row['ratio']:.2f} the first"
            )


if __name__ == "__main__":
    main()

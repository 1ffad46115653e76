"""``gongzhu demo`` and ``gongzhu play``: a hand (or a match) played out on the terminal."""

from __future__ import annotations

import argparse
from typing import IO

from ..bots import Bot, format_of, make_bot, play_hand
from ..errors import HandLimitReached
from ..rules import Rules
from ..runner import HAND_LIMIT, play_match
from ..terminal import Style, colour_wanted, play_in_terminal, plural, print_deal, print_sheet
from .parser import DEMO_MATCH_HANDS, UsageError, ruleset, with_hint

__all__ = ["run_demo", "run_play"]


def _bots(names: tuple[str, ...], seed: int | None, rules: Rules, format: str) -> list[Bot]:
    """One bot per seat, each told the ruleset (bots that search or sample need it) and
    the table's format (``--format``: ``solo`` or ``2v2``)."""
    return [
        make_bot(name, None if seed is None else seed + 1 + seat, rules=rules, format=format)
        for seat, name in enumerate(names)
    ]


def _format_line(format: str, seat: int | None = None) -> str:
    """How the terminal says the table's format (2-vs-2: who plays with whom)."""
    teams = format_of(format)
    if seat is not None:
        partner = teams.partner(seat)
        return f"Format: {teams.name}; your partner is seat {partner}"
    return f"Format: {teams.name}; seats 0 and 2 against 1 and 3"


def run_demo(args: argparse.Namespace, out: IO[str]) -> int:
    """``gongzhu demo``: four bots play a hand, or with ``--match`` a match; print it."""
    rules = ruleset(args)
    bots = _bots(args.bots, args.seed, rules, args.format)
    if args.format != "solo":
        print(_format_line(args.format), file=out)
    if args.match:
        hands = None if args.target else args.hands or DEMO_MATCH_HANDS
        limit = HAND_LIMIT if args.hand_limit is None else args.hand_limit
        if hands is not None and limit < hands:
            raise UsageError(f"--hand-limit {limit} stops a match of {hands} hands before its end")
        match = rules.new_match(args.seed, target=args.target, hands=hands)
        try:
            for number in play_match(match, bots, limit):
                final = match.hands[-1].score().final
                print(f"hand {number}: final {list(final)}  totals {match.totals}", file=out)
        except HandLimitReached as exc:
            raise with_hint(exc) from None
        print(
            f"match over after {plural(len(match.hands), 'hand')}; "
            f"losers (当猪): {list(match.losers)}",
            file=out,
        )
        return 0
    hand = rules.new_hand(args.seed)
    print(f"Rules: {rules.describe()}", file=out)
    print(f"Seed:  {hand.seed}", file=out)
    play_hand(hand, bots)
    print_deal(hand, out)
    for number, trick in enumerate(hand.tricks, 1):
        print(f"trick {number:>2}: {trick}", file=out)
    print(file=out)
    print_sheet(hand.score(), out)
    return 0


def run_play(args: argparse.Namespace, inp: IO[str], out: IO[str], err: IO[str]) -> int:
    """``gongzhu play``: a hand in the terminal against three bots.

    :return: 0 when the hand is played out or the player quits; 1 when the input ends
        first (said on ``err``).
    """
    rules = ruleset(args)
    style = Style(ascii_only=args.ascii, colour=colour_wanted(out))
    hand = rules.new_hand(args.seed)
    bots = _bots(args.bots, args.seed, rules, args.format)
    if args.format != "solo":
        print(_format_line(args.format, args.seat), file=out)
    status = play_in_terminal(hand, args.seat, bots, inp, out, style)
    if status == 1:
        print(
            f"gongzhu: the input ended before the hand was over (seat {hand.to_move} to move; "
            f"seed {hand.seed})",
            file=err,
        )
    return status

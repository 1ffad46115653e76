"""The ``gongzhu`` command line (also ``python -m gongzhu``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .bots import BOTS, make_bot, play_hand
from .cards import Suit, sort_cards
from .errors import GongzhuError
from .hand import HandState
from .rules import load_rules, variant_names

__all__ = ["main"]


def _hand_text(cards: Sequence) -> str:  # type: ignore[type-arg]
    groups = []
    for suit in Suit:
        in_suit = [c for c in sort_cards(cards) if c.suit is suit]
        groups.append(suit.symbol + (" ".join(c.symbol[1:] for c in in_suit) or "-"))
    return "  ".join(groups)


def _print_hand(hand: HandState, out) -> None:  # type: ignore[no-untyped-def]
    print(f"Rules: {hand.rules.describe()}", file=out)
    print(f"Seed:  {hand.seed}", file=out)
    for seat in range(4):
        print(f"  seat {seat}: {_hand_text(hand.dealt(seat))}", file=out)
    print(f"Seat {hand.leader} leads.", file=out)


def _run_demo(args: argparse.Namespace, out) -> int:  # type: ignore[no-untyped-def]
    rules = load_rules(*args.rules)
    bots = [
        make_bot(args.bot, None if args.seed is None else args.seed + 1 + seat) for seat in range(4)
    ]
    if args.match:
        match = rules.new_match(
            args.seed, target=args.target, hands=None if args.target else args.hands
        )
        while not match.is_over:
            hand = match.new_hand()
            play_hand(hand, bots)
            final = match.record_hand(hand)
            print(f"hand {len(match.hands)}: final {list(final)}  totals {match.totals}", file=out)
        print(
            f"match over after {len(match.hands)} hands; losers (当猪): {list(match.losers)}",
            file=out,
        )
        return 0
    hand = rules.new_hand(args.seed)
    _print_hand(hand, out)
    while hand.phase.value != "play":
        seat = hand.current_seat
        assert seat is not None
        hand.apply(bots[seat].choose(hand.view(seat)))
    for seat, cards in hand.shown.items():
        if cards:
            print(f"  seat {seat} shows {' '.join(c.symbol for c in cards)}", file=out)
    number = 0
    while not hand.is_over:
        seat = hand.current_seat
        assert seat is not None
        hand.apply(bots[seat].choose(hand.view(seat)))
        if len(hand.tricks) > number:
            number = len(hand.tricks)
            print(f"trick {number:>2}: {hand.tricks[-1]}", file=out)
    sheet = hand.score()
    print(f"\nScore sheet ({sheet.normalisation})", file=out)
    for seat in range(4):
        how = "; ".join(sheet.lines[seat]) or "no scoring cards"
        print(
            f"  seat {seat}: raw {sheet.raw[seat]:>5}  final {sheet.final[seat]:>6}   {how}",
            file=out,
        )
    return 0


def _run_variants(out) -> int:  # type: ignore[no-untyped-def]
    for name in variant_names():
        try:
            info = load_rules(name).variants
            mine = next(i for i in info if i.name == name)
            kind = "base" if mine.base else "modifier"
            print(f"{name:<22} {mine.title_zh:<20} {kind:<8} {mine.summary}", file=out)
        except GongzhuError as exc:
            print(f"{name:<22} (cannot load: {exc})", file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gongzhu`` command."""
    parser = argparse.ArgumentParser(prog="gongzhu", description="拱猪 (Gong Zhu) rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="four bots play a hand (or a match); print it")
    demo.add_argument("--rules", nargs="*", default=[], metavar="NAME", help="variant names")
    demo.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    demo.add_argument("--bot", default="random", choices=sorted(BOTS), help="the bots' kind")
    demo.add_argument("--match", action="store_true", help="play a match rather than one hand")
    demo.add_argument("--target", type=int, default=None, help="match target (e.g. 1000)")
    demo.add_argument("--hands", type=int, default=4, help="hands in a match without target")
    sub.add_parser("variants", help="list the installed variant plug-ins")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 invalid input, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout
    try:
        if args.command == "demo":
            return _run_demo(args, out)
        return _run_variants(out)
    except GongzhuError as exc:
        print(f"gongzhu: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

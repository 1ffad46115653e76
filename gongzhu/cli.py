"""The ``gongzhu`` command line (also ``python -m gongzhu``).

Exit status: 0 success, 1 invalid input (a bad record, an unknown variant,
an option a ruleset refuses), 2 usage errors, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .actions import Play, Show, ShowKind
from .bots import BOTS, make_bot, play_hand
from .cards import Card, Suit, parse_cards, sort_cards
from .errors import GongzhuError, InvalidRecord
from .hand import HandState
from .match import MATCH_FORMAT
from .record import read_records, replay, replay_match
from .rules import load_rules, variant_names
from .runner import Job, RunSummary, run
from .scoring import ScoreSheet
from .view import Phase

__all__ = ["build_parser", "main"]

RED = "\x1b[31m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"


class Style:
    """How cards are drawn: symbols in colour, or ``--ascii`` letters (``S H D C``, ``T``)."""

    def __init__(self, ascii_only: bool) -> None:
        self.ascii = ascii_only

    def card(self, card: Card, marked: bool = False) -> str:
        if self.ascii:
            text = str(card)
            return f"[{text}]" if marked else text
        text = card.symbol
        if card.suit.is_red:
            text = f"{RED}{text}{RESET}"
        return f"{BOLD}[{text}{BOLD}]{RESET}" if marked else text

    def cards(self, cards: Sequence[Card]) -> str:
        return " ".join(self.card(c) for c in cards) or "-"

    def hand(self, cards: Sequence[Card], legal: set[Card]) -> str:
        """The hand by suit (♠ ♥ ♦ ♣), high to low, legal cards marked with [ ]."""
        groups = []
        for suit in Suit:
            in_suit = [c for c in sort_cards(cards) if c.suit is suit]
            if in_suit:
                groups.append(" ".join(self.card(c, c in legal) for c in in_suit))
        return "   ".join(groups)


def _pad(text: str, width: int) -> str:
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - shown)


def _print_sheet(sheet: ScoreSheet, out: IO[str], *, explain: bool = True) -> None:
    print(f"Score sheet ({sheet.normalisation})", file=out)
    for seat in range(4):
        how = "; ".join(sheet.lines[seat]) or "no scoring cards"
        line = f"  seat {seat}: raw {sheet.raw[seat]:>6}  final {sheet.final[seat]:>7}"
        print(line + (f"   {how}" if explain else ""), file=out)


def _rules(args: argparse.Namespace) -> Any:
    """The ruleset of ``--rules`` and ``--option NAME=VALUE``."""
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise _UsageError(f"--option takes NAME=VALUE, not {item!r}")
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text
    return load_rules(*args.rules, **options)


def _bots(name: str, seed: int | None) -> list[Any]:
    return [make_bot(name, None if seed is None else seed + 1 + seat) for seat in range(4)]


# -- demo, variants --


def _run_demo(args: argparse.Namespace, out: IO[str]) -> int:
    rules = _rules(args)
    bots = _bots(args.bot, args.seed)
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
    style = Style(ascii_only=True)
    hand = rules.new_hand(args.seed)
    print(f"Rules: {rules.describe()}", file=out)
    print(f"Seed:  {hand.seed}", file=out)
    for seat in range(4):
        print(f"  seat {seat}: {style.hand(hand.dealt(seat), set())}", file=out)
    print(f"Seat {hand.leader} leads.", file=out)
    while hand.phase is not Phase.PLAY:
        to_move = hand.current_seat
        assert to_move is not None
        hand.apply(bots[to_move].choose(hand.view(to_move)))
    for record in hand.show_records:
        print(f"  seat {record.seat} shows {record.card} ({record.kind.value})", file=out)
    while not hand.is_over:
        to_move = hand.current_seat
        assert to_move is not None
        hand.apply(bots[to_move].choose(hand.view(to_move)))
        if hand.current_trick == () and hand.tricks:
            print(f"trick {len(hand.tricks):>2}: {hand.tricks[-1]}", file=out)
    print(file=out)
    _print_sheet(hand.score(), out)
    return 0


def _run_variants(out: IO[str]) -> int:
    for name in variant_names():
        try:
            infos = load_rules(name).variants
        except GongzhuError as exc:
            print(f"{name:<22} (cannot load alone: {exc})", file=out)
            continue
        mine = next(i for i in infos if i.name == name)
        kind = "base" if mine.base else "modifier"
        print(f"{name:<22} {_pad(mine.title_zh, 22)} {kind:<9} {mine.summary}", file=out)
    return 0


# -- play --


HELP = (
    "Type a card to play it: QS, 10C, TC, ♠Q, 黑桃Q (two decks: a pair as JD JD).  "
    "In the show phase type the cards to "
    "show (QS AH) or - for none; with secret sales, 'sell QS'.  q quits."
)


def _prompt(hand: HandState, style: Style) -> str:
    legal = hand.legal_actions()
    if hand.phase is Phase.FIRST_SHOW:
        card = hand.view(hand.current_seat).hand[0]  # type: ignore[arg-type]
        return f"首明: first-show {style.card(card)} before seeing your other cards? [y/N] "
    if hand.phase is Phase.SHOW:
        choices = " | ".join(
            str(a).split(" ", 1)[1] if a.kind is ShowKind.OPEN else str(a)  # type: ignore[union-attr]
            for a in legal
        )
        return f"亮牌: show which cards? ({choices}) "
    playable = ", ".join(" ".join(map(str, a.cards)) for a in legal)
    return f"Your play (legal: {playable}): "


def _read_action(text: str, hand: HandState) -> Play | Show:
    text = text.strip()
    verb, _, rest = text.partition(" ")
    if verb.lower() in ("play", "show"):
        text = rest.strip()
    if hand.phase is Phase.FIRST_SHOW:
        card = hand.view(hand.current_seat).hand[0]  # type: ignore[arg-type]
        yes = text.lower() in ("y", "yes", "是")
        return Show((card,) if yes else (), ShowKind.FIRST)
    if hand.phase is Phase.SHOW:
        if text.lower().startswith("sell"):
            rest = text[4:].strip()
            return Show(() if rest in ("", "-") else parse_cards(rest), ShowKind.SECRET)
        return Show(() if text in ("", "-") else parse_cards(text))
    return Play(parse_cards(text))


def _announce(seat: int, action: Play | Show, style: Style, out: IO[str]) -> None:
    if isinstance(action, Play):
        print(f"  seat {seat} plays {style.cards(action.cards)}", file=out)
    elif action.kind is ShowKind.SECRET and action.cards:
        print(f"  seat {seat} sells {len(action.cards)} card(s) secretly (暗卖)", file=out)
    elif action.cards:
        print(f"  seat {seat} shows {style.cards(action.cards)}", file=out)


def _run_play(args: argparse.Namespace, inp: IO[str], out: IO[str]) -> int:
    rules = _rules(args)
    style = Style(ascii_only=args.ascii)
    me = args.seat
    hand = rules.new_hand(args.seed)
    bots = _bots(args.bot, args.seed)
    print(f"Rules: {rules.describe()}.  You are seat {me}.  {HELP}", file=out)
    tricks_seen = 0
    while not hand.is_over:
        seat = hand.current_seat
        assert seat is not None
        if seat != me:
            action = bots[seat].choose(hand.view(seat))
            hand.apply(action)
            _announce(seat, action, style, out)
        else:
            view = hand.view(me)
            legal_cards = {c for a in view.legal_actions if isinstance(a, Play) for c in a.cards}
            print(f"Your hand: {style.hand(view.hand, legal_cards)}", file=out)
            if view.current_trick:
                played = "  ".join(f"{s}:{style.cards(c)}" for s, c in view.current_trick)
                print(f"Trick so far: {played}", file=out)
            while True:
                out.write(_prompt(hand, style))
                out.flush()
                line = inp.readline()
                if not line:
                    print("\nbye", file=out)
                    return 1
                if line.strip().lower() in ("q", "quit", "exit"):
                    print("bye", file=out)
                    return 0
                if line.strip().lower() in ("h", "help", "?"):
                    print(HELP, file=out)
                    continue
                try:
                    hand.apply(_read_action(line, hand))
                except GongzhuError as exc:
                    print(f"  ✗ {exc}", file=out)
                    continue
                break
        if len(hand.tricks) > tricks_seen:
            tricks_seen = len(hand.tricks)
            trick = hand.tricks[-1]
            cards = "  ".join(f"{s}:{style.cards(c)}" for s, c in trick.plays)
            taker = f", seat {trick.taker} takes the points (垫牌)" if trick.penalty else ""
            print(f"trick {tricks_seen:>2}: {cards}  → seat {trick.winner} wins{taker}", file=out)
    print(file=out)
    _print_sheet(hand.score(), out)
    return 0


# -- score, replay --


def _load_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _UsageError(f"cannot read {path}: {exc}") from None


class _UsageError(Exception):
    pass


def _run_check(args: argparse.Namespace, out: IO[str], *, verbose: bool) -> int:
    text = _load_file(args.file)
    checked = 0
    for number, record in enumerate(read_records(text)):
        if isinstance(record, dict) and record.get("format") == MATCH_FORMAT:
            match = replay_match(record)
            print(
                f"match {number}: {len(match.hands)} hands, totals {match.totals}, "
                f"losers {list(match.losers) if match.is_over else '-'}",
                file=out,
            )
            hands = list(match.hands)
        else:
            hands = [replay(record, hand=number)]
        for hand in hands:
            checked += 1
            if verbose:
                print(f"hand {checked - 1}: {hand.rules.describe()}", file=out)
                for index, trick in enumerate(hand.tricks, 1):
                    print(f"  trick {index:>2}: {trick}", file=out)
            if hand.is_over:
                sheet = hand.score()
                if verbose:
                    _print_sheet(sheet, out)
                else:
                    print(
                        f"hand {checked - 1}: raw {list(sheet.raw)}  final {list(sheet.final)}",
                        file=out,
                    )
            else:
                print(f"hand {checked - 1}: unfinished, seat {hand.current_seat} to move", file=out)
    print(f"{checked} hand(s) valid", file=out)
    return 0


# -- simulate --


def _progress_bar(stream: IO[str]) -> Any:
    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // total
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def _print_summary(summary: RunSummary, job: Job, out: IO[str]) -> None:
    unit = "matches" if job.matches else "hands"
    what = "total" if job.matches else "final score"
    print(f"{summary.played} {unit}", file=out)
    for seat in range(4):
        line = (
            f"seat {seat} ({job.bots[seat]}): mean {what} {summary.mean(seat):+.1f} "
            f"± {summary.stderr(seat):.1f}"
        )
        if job.matches:
            line += f", lost {summary.losses[seat]}"
        print(line, file=out)
    print(f"full hearts (满红) in {summary.full_hearts} {unit}", file=out)
    print(f"slams (满贯) in {summary.slams} {unit}", file=out)


def _run_simulate(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    bots = tuple(name.strip() for name in args.bots.split(","))
    if len(bots) == 1:
        bots = bots * 4
    rules = _rules(args)
    job = Job(
        variants=rules.names,
        options=tuple(sorted(rules.options.items())),
        bots=bots,
        seed=args.seed,
        matches=args.matches,
        target=args.target,
    )
    progress = _progress_bar(err) if err.isatty() else None
    sink = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    try:
        summary = run(job, args.hands, workers=args.workers, out=sink, progress=progress)
    except KeyboardInterrupt as exc:
        partial: RunSummary = getattr(exc, "summary", RunSummary())
        print(
            f"\ninterrupted after {partial.played} {'matches' if job.matches else 'hands'}",
            file=err,
        )
        if partial.played:
            _print_summary(partial, job, out)
        return 130
    finally:
        if sink is not None:
            sink.close()
    print(
        f"rules {rules!r}, bots {','.join(bots)}, seed {args.seed}, {args.workers} worker(s)",
        file=out,
    )
    _print_summary(summary, job, out)
    if args.out:
        print(f"records: {args.out}", file=out)
    return 0


# -- the parser --


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gongzhu`` command."""
    parser = argparse.ArgumentParser(prog="gongzhu", description="拱猪 (Gong Zhu) rules engine")
    sub = parser.add_subparsers(dest="command", required=True)

    def rules_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", nargs="*", default=[], metavar="NAME", help="variant names")
        p.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a ruleset option (VALUE read as JSON, else text): --option match_target=800",
        )

    demo = sub.add_parser("demo", help="four bots play a hand (or a match); print it")
    rules_option(demo)
    demo.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    demo.add_argument("--bot", default="random", choices=sorted(BOTS), help="the bots' kind")
    demo.add_argument("--match", action="store_true", help="play a match rather than one hand")
    demo.add_argument("--target", type=int, default=None, help="match target (e.g. 1000)")
    demo.add_argument("--hands", type=int, default=4, help="hands in a match without target")

    sub.add_parser("variants", help="list the installed variant plug-ins")

    play = sub.add_parser("play", help="play a hand in the terminal against three bots")
    rules_option(play)
    play.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat")
    play.add_argument("--bot", default="random", choices=sorted(BOTS), help="the bots' kind")
    play.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    play.add_argument("--ascii", action="store_true", help="no colour: S H D C, T for ten")

    for name, text in (
        ("score", "check and score a record"),
        ("replay", "check and replay a record"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("file", help="a hand or match record (JSON) or hands (JSON Lines)")
        if name == "replay":
            cmd.add_argument("--verbose", action="store_true", help="print every trick")

    sim = sub.add_parser("simulate", help="play many hands between bots")
    rules_option(sim)
    sim.add_argument("--bots", default="random", help="four bot names, A,B,C,D (or one for all)")
    sim.add_argument("--hands", type=int, default=1000, help="how many hands (or matches)")
    sim.add_argument("--matches", action="store_true", help="play whole matches")
    sim.add_argument("--target", type=int, default=None, help="match target")
    sim.add_argument("--workers", type=int, default=1, help="processes")
    sim.add_argument("--seed", type=int, default=0, help="the run's seed")
    sim.add_argument("--out", default=None, help="write every record to FILE.jsonl")
    return parser


def main(argv: Sequence[str] | None = None, *, stdin: IO[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        if args.command == "demo":
            return _run_demo(args, out)
        if args.command == "variants":
            return _run_variants(out)
        if args.command == "play":
            return _run_play(args, stdin or sys.stdin, out)
        if args.command in ("score", "replay"):
            return _run_check(args, out, verbose=args.command == "replay" and args.verbose)
        if args.command == "simulate":
            if args.hands < 1 or args.workers < 1:
                parser.error("--hands and --workers must be at least 1")
            return _run_simulate(args, out, err)
    except _UsageError as exc:
        print(f"gongzhu: {exc}", file=err)
        return 2
    except InvalidRecord as exc:
        print(f"gongzhu: invalid record: {exc}", file=err)
        return 1
    except (GongzhuError, ValueError) as exc:
        print(f"gongzhu: {exc}", file=err)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=err)
        return 130
    parser.error(f"unknown command {args.command}")  # pragma: no cover
    return 2  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

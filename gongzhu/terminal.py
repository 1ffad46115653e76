"""Playing in a terminal: how cards are drawn, the prompts, the play loop of ``gongzhu play``.

The command line (:mod:`gongzhu.cli`) parses arguments and calls
:func:`play_in_terminal`; everything a person sees while playing lives here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import IO, Final

from .actions import Play, Show, ShowKind
from .bots import Bot
from .cards import Card, Suit, parse_cards, sort_cards
from .errors import GongzhuError
from .hand import HandState
from .scoring import ScoreSheet
from .view import Phase

__all__ = [
    "HELP",
    "Style",
    "announce",
    "colour_wanted",
    "play_in_terminal",
    "plural",
    "print_deal",
    "print_sheet",
    "prompt",
    "read_action",
]

RED = "\x1b[31m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"


def plural(count: int, noun: str, plural: str | None = None) -> str:
    """``1 hand``, ``2 hands``."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def colour_wanted(stream: IO[str]) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_LETTERS: Final[dict[str, str | int | None]] = {
    "♠": "S",
    "♥": "H",
    "♦": "D",
    "♣": "C",
    "✗": "x",
    "→": "->",
}
_IN_LETTERS: Final = str.maketrans(_LETTERS)
_SYMBOL_CARD: Final = re.compile(r"([♠♥♦♣])(10|[2-9JQKA])")


class Style:
    """How cards are drawn: symbols (red on a terminal), or ``--ascii`` letters (``S``, ``T``)."""

    def __init__(self, ascii_only: bool, *, colour: bool = True) -> None:
        self.ascii = ascii_only
        self.colour = colour and not ascii_only

    def text(self, text: str) -> str:
        """``text`` as this style shows it: with ``--ascii``, its cards (``♠Q`` → ``QS``,
        ``♣10`` → ``TC``), suits (``♣`` → ``C``) and marks (``✗``, ``→``) in letters."""
        if not self.ascii:
            return text
        text = _SYMBOL_CARD.sub(lambda m: ("T" if m[2] == "10" else m[2]) + m[1], text)
        return text.translate(_IN_LETTERS)

    def card(self, card: Card, marked: bool = False) -> str:
        """One card, in brackets when ``marked``."""
        if self.ascii:
            text = str(card)
            return f"[{text}]" if marked else text
        text = card.symbol
        if not self.colour:
            return f"[{text}]" if marked else text
        if card.suit.is_red:
            text = f"{RED}{text}{RESET}"
        return f"{BOLD}[{text}{BOLD}]{RESET}" if marked else text

    def cards(self, cards: Sequence[Card]) -> str:
        """Cards separated by spaces, ``-`` for none."""
        return " ".join(self.card(c) for c in cards) or "-"

    def holding(self, cards: Sequence[Card], legal: set[Card]) -> str:
        """A seat's holding by suit (♠ ♥ ♦ ♣), high to low, legal cards marked with [ ]."""
        groups = []
        for suit in Suit:
            in_suit = [c for c in sort_cards(cards) if c.suit is suit]
            if in_suit:
                groups.append(" ".join(self.card(c, c in legal) for c in in_suit))
        return "   ".join(groups)


def print_deal(hand: HandState, out: IO[str]) -> None:
    """Print what each seat was dealt, who led, and every show (secret sales and
    automatic shows included), as ``gongzhu demo`` and ``gongzhu replay --verbose`` do."""
    style = Style(ascii_only=True)
    for seat in range(4):
        print(f"  seat {seat}: {style.holding(hand.dealt(seat), set())}", file=out)
    print(f"Seat {hand.leader} leads.", file=out)
    for record in hand.show_records:
        print(f"  seat {record.seat} shows {record.card} ({record.kind.value})", file=out)


def print_sheet(
    sheet: ScoreSheet, out: IO[str], *, explain: bool = True, style: Style | None = None
) -> None:
    """Print a score sheet: each seat's raw and final score, and how it came about (its
    cards drawn in ``style``, symbols by default)."""
    style = style or Style(ascii_only=False)
    print(f"Score sheet ({sheet.normalisation})", file=out)
    for seat in range(4):
        how = "; ".join(sheet.lines[seat]) or "no scoring cards"
        line = f"  seat {seat}: raw {sheet.raw[seat]:>6}  final {sheet.final[seat]:>7}"
        print(style.text(line + (f"   {how}" if explain else "")), file=out)


HELP = (
    "Type a card to play it: QS, 10C, TC, ♠Q, 黑桃Q (two decks: a pair as JD JD).  "
    "In the show phase type the cards to "
    "show (QS AH) or - for none; with secret sales, 'sell QS'.  q quits."
)
"""What ``h`` prints (``--ascii``: without the symbol form ``♠Q``, which is still read)."""


def _help(style: Style) -> str:
    return HELP.replace(" ♠Q,", "") if style.ascii else HELP


def prompt(hand: HandState, style: Style) -> str:
    """The question put to the seat to move: 首明, which cards to show, or which card to play."""
    legal = hand.legal_actions()
    if hand.phase is Phase.FIRST_SHOW:
        card = hand.view(hand.to_move).holding[0]  # type: ignore[arg-type]
        return f"首明: first-show {style.card(card)} before seeing your other cards? [y/N] "
    if hand.phase is Phase.SHOW:
        choices = " | ".join(
            str(a).split(" ", 1)[1] if a.kind is ShowKind.OPEN else str(a)  # type: ignore[union-attr]
            for a in legal
        )
        return f"亮牌: show which cards? ({choices}) "
    playable = ", ".join(" ".join(map(str, a.cards)) for a in legal)
    return f"Your play (legal: {playable}): "


def read_action(text: str, hand: HandState) -> Play | Show:
    """The action a typed line means in the hand's phase (``y`` for 首明, cards, ``sell QS``).

    :raises InvalidCard: the line names no card.
    """
    text = text.strip()
    verb, _, rest = text.partition(" ")
    if verb.lower() in ("play", "show"):
        text = rest.strip()
    if hand.phase is Phase.FIRST_SHOW:
        card = hand.view(hand.to_move).holding[0]  # type: ignore[arg-type]
        yes = text.lower() in ("y", "yes", "是")
        return Show((card,) if yes else (), ShowKind.FIRST)
    if hand.phase is Phase.SHOW:
        if text.lower().startswith("sell"):
            rest = text[4:].strip()
            return Show(() if rest in ("", "-") else parse_cards(rest), ShowKind.SECRET)
        return Show(() if text in ("", "-") else parse_cards(text))
    return Play(parse_cards(text))


def announce(seat: int, action: Play | Show, style: Style, out: IO[str]) -> None:
    """Tell the player what a bot did (a secret sale only by its count)."""
    if isinstance(action, Play):
        print(f"  seat {seat} plays {style.cards(action.cards)}", file=out)
    elif action.kind is ShowKind.SECRET and action.cards:
        print(f"  seat {seat} sells {plural(len(action.cards), 'card')} secretly (暗卖)", file=out)
    elif action.cards:
        print(f"  seat {seat} shows {style.cards(action.cards)}", file=out)


def play_in_terminal(
    hand: HandState, me: int, bots: Sequence[Bot], inp: IO[str], out: IO[str], style: Style
) -> int:
    """Play ``hand`` as seat ``me`` against ``bots`` (the other seats'), reading ``inp``.

    :return: the exit status: 0 when the hand is played out or the player quits,
        1 at the end of input.
    """
    rules = hand.rules
    print(f"Rules: {rules.describe()}.  You are seat {me}.  {_help(style)}", file=out)
    tricks_seen = 0
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        if seat != me:
            action = bots[seat].choose(hand.view(seat))
            hand.apply(action)
            announce(seat, action, style, out)
        else:
            view = hand.view(me)
            legal_cards = {c for a in view.legal_actions if isinstance(a, Play) for c in a.cards}
            print(f"Your holding: {style.holding(view.holding, legal_cards)}", file=out)
            if view.current_trick:
                played = "  ".join(f"{s}:{style.cards(c)}" for s, c in view.current_trick)
                print(f"Trick so far: {played}", file=out)
            while True:
                out.write(prompt(hand, style))
                out.flush()
                line = inp.readline()
                if not line:
                    print(file=out)  # end the prompt's line; the caller says why it stopped
                    return 1
                if line.strip().lower() in ("q", "quit", "exit"):
                    print("bye", file=out)
                    return 0
                if line.strip().lower() in ("h", "help", "?"):
                    print(_help(style), file=out)
                    continue
                try:
                    hand.apply(read_action(line, hand))
                except GongzhuError as exc:
                    print(style.text(f"  ✗ {exc}"), file=out)
                    continue
                break
        if len(hand.tricks) > tricks_seen:
            tricks_seen = len(hand.tricks)
            trick = hand.tricks[-1]
            cards = "  ".join(f"{s}:{style.cards(c)}" for s, c in trick.plays)
            taker = f", seat {trick.taker} takes the points (垫牌)" if trick.penalty else ""
            line = f"trick {tricks_seen:>2}: {cards}  → seat {trick.winner} wins{taker}"
            print(style.text(line), file=out)
    print(file=out)
    print_sheet(hand.score(), out, style=style)
    return 0

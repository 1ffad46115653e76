"""Read-only values describing a hand: tricks, public shows and a seat's view."""

from __future__ import annotations

import enum

import attrs

from .actions import Action, ShowKind
from .cards import Card

__all__ = ["Phase", "PublicShow", "SeatView", "Trick"]


class Phase(enum.Enum):
    """The phases of a hand, in order."""

    FIRST_SHOW = "first-show"
    """首明: seats whose first dealt card is showable decide, seeing only that card."""
    SHOW = "show"
    """亮牌: each seat in turn, from the leader, shows what it wants to."""
    PLAY = "play"
    """Tricks."""
    OVER = "over"
    """Every card played; the hand can be scored."""


@attrs.frozen
class Trick:
    """A completed trick.

    :ivar leader: the seat that led.
    :ivar plays: ``(seat, cards)`` in play order.
    :ivar winner: the seat that won the trick (and leads the next).
    :ivar taker: the seat that took its scoring cards: the winner, unless a
        discard penalty sent them to an offender.
    """

    leader: int
    plays: tuple[tuple[int, tuple[Card, ...]], ...]
    winner: int
    taker: int

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card of the trick, in play order."""
        return tuple(card for _, cards in self.plays for card in cards)

    @property
    def penalty(self) -> bool:
        """Whether the scoring cards went to an offender rather than the winner."""
        return self.taker != self.winner

    def __str__(self) -> str:
        played = "  ".join(
            f"{seat}:{' '.join(c.symbol for c in cards)}" + ("*" if seat == self.winner else "")
            for seat, cards in self.plays
        )
        extra = f"  (penalty: seat {self.taker} takes the scoring cards)" if self.penalty else ""
        return f"{played}{extra}"


@attrs.frozen
class PublicShow:
    """A show as one seat sees it: a secret sale by another seat shows only its size.

    :ivar cards: the cards, or ``None`` when they are hidden from the viewer.
    """

    seat: int
    kind: ShowKind
    count: int
    cards: tuple[Card, ...] | None
    forced: bool = False


@attrs.frozen
class SeatView:
    """What one seat may know of a hand (an information set).

    :ivar seat: the viewer.
    :ivar phase: the hand's phase.
    :ivar holding: the viewer's cards (in the 首明 phase, only its first card).
    :ivar holding_sizes: how many cards each seat holds.
    :ivar shows: the shows made so far, secret ones hidden unless the viewer's.
    :ivar tricks: the completed tricks.
    :ivar current_trick: ``(seat, cards)`` played so far in the trick under way.
    :ivar leader: the seat that leads (led) the trick under way.
    :ivar to_move: the seat whose turn it is, or ``None`` when the hand is over.
    :ivar legal_actions: the viewer's legal actions when it is to move, else empty.
    """

    seat: int
    phase: Phase
    holding: tuple[Card, ...]
    holding_sizes: tuple[int, ...]
    shows: tuple[PublicShow, ...]
    tricks: tuple[Trick, ...]
    current_trick: tuple[tuple[int, tuple[Card, ...]], ...]
    leader: int
    to_move: int | None
    legal_actions: tuple[Action, ...]

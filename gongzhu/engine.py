"""The single-card play engine: follow suit, the shown-card lock, the discard rule.

:class:`PlayCore` holds the play phase of a hand as integers (each seat's
cards as a 52-bit mask, bit :attr:`Card.index <gongzhu.cards.Card.index>`)
and plays it.  :class:`~gongzhu.hand.HandState` owns one and calls it once
per step; everything else about a hand (showing, scoring, views, records)
lives in the hand.

There are two implementations with one interface: :class:`PlayCore` here,
in pure Python (the reference), and ``gongzhu._speedups.PlayCore`` in C,
used when it was built (see :data:`gongzhu.hand.ACCELERATED`).  The tests
require both to play identical hands from identical random draws.

A play engine for other tricks (two-deck pairs) subclasses :class:`PlayCore`
and sets it as the ``core_class`` of its :class:`~gongzhu.hand.HandState`
subclass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from .actions import SINGLE_PLAYS, Play
from .cards import Card

__all__ = [
    "ILLEGAL",
    "OVER",
    "PlayCore",
    "add_copy",
    "cards_of_mask",
    "copies_in",
    "plays_of_mask",
    "remove_copy",
    "subtract_copies",
]

SUIT_MASKS: Final = tuple(0x1FFF << (13 * s) for s in range(4))
FULL_MASK: Final = (1 << 52) - 1
SUIT_OF: Final = tuple(i // 13 for i in range(52))
OVER: Final = -1
"""What :meth:`PlayCore.play` returns once the last card is played."""
ILLEGAL: Final = -2
"""What :meth:`PlayCore.play` returns for an illegal play (nothing changes)."""

_CHUNK_PLAYS: Final[list[list[tuple[Play, ...] | None]]] = [[None] * 8192 for _ in range(4)]
_SPADES, _HEARTS, _DIAMONDS, _CLUBS = _CHUNK_PLAYS


def _suit_plays(suit: int, chunk: int) -> tuple[Play, ...]:
    base = 13 * suit
    plays = tuple(SINGLE_PLAYS[base + r] for r in range(13) if chunk >> r & 1)
    _CHUNK_PLAYS[suit][chunk] = plays
    return plays


LOW: Final = FULL_MASK
"""The first-copy bits of a card mask (two-deck masks keep second copies at bit 52 + index)."""


def add_copy(mask: int, index: int) -> int:
    """``mask`` with one more copy of card ``index`` (a second copy goes to bit 52 + index)."""
    bit = 1 << index
    return mask | (bit << 52 if mask & bit else bit)


def remove_copy(mask: int, index: int) -> int:
    """``mask`` with one copy of card ``index`` fewer (the second copy goes first)."""
    high = 1 << (52 + index)
    return mask ^ high if mask & high else mask ^ (1 << index)


def copies_in(mask: int, index: int) -> int:
    """How many copies of card ``index`` the mask holds (0, 1 or 2)."""
    return (mask >> index & 1) + (mask >> (52 + index) & 1)


def subtract_copies(a: int, b: int) -> int:
    """Per card, the copies in ``a`` less those in ``b`` (never below zero)."""
    low_a, high_a, low_b, high_b = a & LOW, a >> 52, b & LOW, b >> 52
    return ((high_a & ~high_b) | (low_a & ~low_b)) | ((high_a & ~low_b) << 52)


def plays_of_mask(mask: int) -> tuple[Play, ...]:
    """The single-card plays of every card in ``mask``, in card order (memoised per suit)."""
    out: tuple[Play, ...] = ()
    chunk = mask & 0x1FFF
    if chunk:
        out = _SPADES[chunk] or _suit_plays(0, chunk)
    chunk = mask >> 13 & 0x1FFF
    if chunk:
        out += _HEARTS[chunk] or _suit_plays(1, chunk)
    chunk = mask >> 26 & 0x1FFF
    if chunk:
        out += _DIAMONDS[chunk] or _suit_plays(2, chunk)
    chunk = mask >> 39
    if chunk:
        out += _CLUBS[chunk] or _suit_plays(3, chunk)
    return out


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of ``mask``, in card order, a card held twice listed twice."""
    cards = tuple(play.cards[0] for play in plays_of_mask(mask & LOW))
    if mask >> 52:
        cards = tuple(sorted(cards + tuple(p.cards[0] for p in plays_of_mask(mask >> 52))))
    return cards


class PlayCore:
    """The play phase of a single-deck hand.

    :param hands: each seat's cards (masks).
    :param rules: the compiled flags ``(lock_first_trick, lock_discards,
        lock_lifts_for_hand, penalty, penalise_last_offender)`` and the
        preferred-discard masks per led suit (or ``None``), as
        :class:`~gongzhu.rules.Rules` compiles them.
    :param history: the hand's action list; each play appends ``(seat, Play)``.
    :param tricks: the hand's trick list; each trick appends
        ``(leader, (k0, k1, k2, k3), winner, taker)``.
    """

    __slots__ = (
        "first_of_suit",
        "forced",
        "hands",
        "history",
        "last_offender",
        "lift_for_hand",
        "lifted",
        "lock_discards",
        "lock_first",
        "locked",
        "offenders",
        "penalty",
        "preferred",
        "seat",
        "taken",
        "trick",
        "trick_leader",
        "tricks",
        "unled",
    )

    def __init__(
        self,
        hands: Sequence[int],
        flags: tuple[bool, bool, bool, bool, bool],
        preferred: Sequence[int] | None,
        history: list[Any],
        tricks: list[Any],
    ) -> None:
        self.hands = list(hands)
        (
            self.lock_first,
            self.lock_discards,
            self.lift_for_hand,
            self.penalty,
            self.last_offender,
        ) = flags
        self.preferred = None if preferred is None else tuple(preferred)
        self.history = history
        self.tricks = tricks
        self.locked = [0, 0, 0, 0]
        self.lifted = [False, False, False, False]
        self.taken = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.offenders: list[int] = []
        self.unled = FULL_MASK
        self.first_of_suit = False
        self.forced = 0
        self.trick_leader = 0
        self.seat = OVER

    def start(self, leader: int, forced: int, locked: Sequence[int]) -> None:
        """Begin the first trick: ``leader`` leads (``forced``: the card mask it must lead)."""
        self.trick_leader = self.seat = leader
        self.forced = forced
        self.locked = list(locked)

    def copy(self, history: list[Any], tricks: list[Any]) -> PlayCore:
        """An independent copy that appends to ``history`` and ``tricks``."""
        new = object.__new__(type(self))
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands[:]
        new.locked = self.locked[:]
        new.lifted = self.lifted[:]
        new.taken = self.taken[:]
        new.trick = self.trick[:]
        new.offenders = self.offenders[:]
        new.history = history
        new.tricks = tricks
        return new

    # -- legality -------------------------------------------------------------------

    def legal_mask(self) -> int:
        """The cards the seat to move may play."""
        seat = self.seat
        hand = self.hands[seat]
        trick = self.trick
        locked = self.locked[seat] & hand
        if locked and self.lifted[seat]:
            locked = 0
        if not trick:
            forced = self.forced
            if forced:
                return forced & hand or hand
            legal = hand
            if locked:
                legal &= ~self._lead_lock(hand, locked)
        else:
            led = SUIT_OF[trick[0]]
            follow = hand & SUIT_MASKS[led]
            if follow:
                # a shown card may not follow in its suit's first trick, unless it is the only one
                if locked and self.first_of_suit and follow != locked & follow and self.lock_first:
                    return follow & ~locked
                return follow
            legal = hand
            preferred = self.preferred
            if preferred is not None and not self.penalty:
                same_colour = hand & preferred[led]
                if same_colour:
                    legal = same_colour
            if locked and self.lock_discards:
                legal &= ~(locked & self.unled)
        if legal:
            return legal
        # the shown-card lock leaves nothing: it lifts (for this play, or the hand)
        if self.lift_for_hand:
            self.lifted[seat] = True
        if not trick:
            return hand
        preferred = self.preferred
        if preferred is not None and not self.penalty:
            same_colour = hand & preferred[SUIT_OF[trick[0]]]
            if same_colour:
                return same_colour
        return hand

    def _lead_lock(self, hand: int, locked: int) -> int:
        if not self.lock_first:
            return 0
        blocked = 0
        pending = locked & self.unled
        while pending:
            low = pending & -pending
            if hand & SUIT_MASKS[SUIT_OF[low.bit_length() - 1]] != low:
                blocked |= low
            pending ^= low
        return blocked

    def legal(self) -> tuple[Play, ...]:
        """The legal plays of the seat to move, in card order."""
        return plays_of_mask(self.legal_mask())

    # -- playing --------------------------------------------------------------------

    def play(self, key: int) -> int:
        """Play card ``key`` for the seat to move if it is legal.

        :return: the next seat to move, :data:`OVER` after the last card, or
            :data:`ILLEGAL` (nothing changes) when the card may not be played.
        """
        if not 0 <= key < 52 or not self.legal_mask() >> key & 1:
            return ILLEGAL
        self._play(key)
        return self.seat

    def _play(self, key: int) -> None:
        seat = self.seat
        bit = 1 << key
        hands = self.hands
        trick = self.trick
        if not trick:
            suit_mask = SUIT_MASKS[SUIT_OF[key]]
            self.first_of_suit = bool(self.unled & suit_mask)
            self.unled &= ~suit_mask
            self.forced = 0
        elif self.penalty:
            led = SUIT_OF[trick[0]]
            preferred = self.preferred[led]  # type: ignore[index]
            hand = hands[seat]
            if not hand & SUIT_MASKS[led] and hand & preferred and not bit & preferred:
                self.offenders.append(seat)
        hands[seat] ^= bit
        trick.append(key)
        self.history.append((seat, SINGLE_PLAYS[key]))
        if len(trick) == 4:
            self._finish_trick()
        else:
            self.seat = (seat + 1) & 3

    def _finish_trick(self) -> None:
        trick = self.trick
        first = trick[0]
        top = (SUIT_OF[first] + 1) * 13
        best = first
        position = 0
        for i in (1, 2, 3):
            card = trick[i]
            if best < card < top:
                best = card
                position = i
        leader = self.trick_leader
        winner = (leader + position) & 3
        taker = winner
        offenders = self.offenders
        if offenders:
            taker = offenders[-1] if self.last_offender else offenders[0]
            self.offenders = []
        self.taken[taker] |= (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | (1 << trick[3])
        self.tricks.append((leader, tuple(trick), winner, taker))
        self.trick = []
        self.trick_leader = winner
        self.seat = winner if self.hands[winner] else OVER

    def random_playout(self, random: Callable[[], float]) -> None:
        """Play to the end with uniformly random legal cards.

        Each card takes one ``random()`` draw ``r``: the card is the
        ``int(r * n)``-th lowest of the ``n`` legal ones.
        """
        legal_mask = self.legal_mask
        play = self._play
        while self.seat != OVER:
            mask = legal_mask()
            skip = int(random() * mask.bit_count())
            while skip:
                mask &= mask - 1
                skip -= 1
            play((mask & -mask).bit_length() - 1)


_SCALARS: Final = tuple(
    name
    for name in PlayCore.__slots__
    if name not in {"hands", "locked", "lifted", "taken", "trick", "offenders", "history", "tricks"}
)

"""Card masks: a set of cards as an integer, the representation every engine plays on.

A :data:`CardMask` holds bit :attr:`Card.index <gongzhu.cards.Card.index>`
(``suit * 13 + rank - 2``) for a card.  With two decks (拱雙豬) a card can be
held twice: its second copy is bit ``52 + index``, and a mask never holds a
second copy without the first (:func:`add_copy` and :func:`remove_copy` keep
it so).  Plug-ins read and return card masks: a
:class:`~gongzhu.play.PlayRule` refuses the cards of a mask, a
:class:`~gongzhu.play.PlaySituation` gives the seat's holding as one.

>>> from gongzhu.cards import Card
>>> mask = mask_of([Card.parse("QS"), Card.parse("QS"), Card.parse("2C")])
>>> cards_of_mask(mask)
(Card.parse('QS'), Card.parse('QS'), Card.parse('2C'))
>>> copies_in(mask, Card.parse("QS").index)
2
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final, TypeAlias, TypeVar

from .actions import SINGLE_PLAYS, Play
from .cards import Card, Suit

__all__ = [
    "ALL_CARDS",
    "BOTH_COPIES",
    "SECOND_COPY",
    "SUIT_MASKS",
    "CardMask",
    "add_copies",
    "add_copy",
    "both_copies",
    "cards_of_mask",
    "copies_in",
    "indices",
    "mask_of",
    "plays_of_mask",
    "remove_copy",
    "subtract_copies",
    "suits_of",
]

CardMask: TypeAlias = int
"""A set of cards: bit ``index`` for a card, bit ``52 + index`` for its second copy."""

SECOND_COPY: Final = 52
"""How far a second copy's bit lies above the first's: ``1 << (SECOND_COPY + index)``."""

ALL_CARDS: Final[CardMask] = (1 << 52) - 1
"""Every card's first copy: the 52 low bits (a one-deck mask has no others)."""

BOTH_COPIES: Final[CardMask] = (1 << 104) - 1
"""Every copy of every card (two decks)."""

SUIT_MASKS: Final[tuple[CardMask, ...]] = tuple(suit.mask for suit in Suit)
"""Each suit's 13 first-copy bits, by :class:`~gongzhu.cards.Suit` value."""

_BITS: Final = tuple(1 << i for i in range(52))


def both_copies(mask: CardMask) -> CardMask:
    """``mask``'s first-copy bits with the second copy of each of them added."""
    low = mask & ALL_CARDS
    return low | low << SECOND_COPY


def mask_of(cards: Iterable[Card]) -> CardMask:
    """The mask of ``cards``, a card listed twice as two copies.

    :raises ValueError: a card listed three times or more.
    """
    mask = 0
    for card in cards:
        bit = _BITS[card.index]
        if mask & bit:
            if mask >> SECOND_COPY & bit:
                raise ValueError(f"{card} is listed more than twice")
            bit <<= SECOND_COPY
        mask |= bit
    return mask


def add_copy(mask: CardMask, index: int) -> CardMask:
    """``mask`` with one more copy of card ``index`` (a second copy goes to bit 52 + index)."""
    bit = 1 << index
    return mask | (bit << SECOND_COPY if mask & bit else bit)


def remove_copy(mask: CardMask, index: int) -> CardMask:
    """``mask`` with one copy of card ``index`` fewer (the second copy goes first)."""
    high = 1 << (SECOND_COPY + index)
    return mask ^ high if mask & high else mask ^ (1 << index)


def copies_in(mask: CardMask, index: int) -> int:
    """How many copies of card ``index`` the mask holds (0, 1 or 2)."""
    return (mask >> index & 1) + (mask >> (SECOND_COPY + index) & 1)


def subtract_copies(a: CardMask, b: CardMask) -> CardMask:
    """Per card, the copies in ``a`` less those in ``b`` (never below zero)."""
    low_a, high_a, low_b, high_b = a & ALL_CARDS, a >> 52, b & ALL_CARDS, b >> 52
    return ((high_a & ~high_b) | (low_a & ~low_b)) | ((high_a & ~low_b) << SECOND_COPY)


def add_copies(a: CardMask, b: CardMask) -> CardMask:
    """Per card, the copies of ``a`` and ``b`` together (at most two of a card in all).

    As :func:`add_copy` once for each copy in ``b``, in a few operations on the
    whole masks: a card of ``b`` is held once, or twice where the two masks
    hold two or more copies of it between them; every other card as in ``a``.
    """
    b_any = (b | b >> SECOND_COPY) & ALL_CARDS
    b_two = b & b >> SECOND_COPY & ALL_CARDS
    a_any = (a | a >> SECOND_COPY) & ALL_CARDS
    rest = a & ~(b_any | b_any << SECOND_COPY)
    return rest | b_any | (b_two | a_any & b_any) << SECOND_COPY


def indices(mask: CardMask) -> list[int]:
    """The positions of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def suits_of(mask: CardMask) -> frozenset[Suit]:
    """The suits of which ``mask`` holds any card (either copy)."""
    low = mask | mask >> SECOND_COPY
    return frozenset(suit for suit in Suit if low & SUIT_MASKS[suit])


_T = TypeVar("_T")


def _per_suit(
    make: Callable[[int, int], tuple[_T, ...]],
) -> tuple[Callable[[int], tuple[_T, ...]], Callable[[int], tuple[_T, ...] | None]]:
    """``(of_mask, of_one_suit)`` for the items of cards (their plays, or the cards).

    ``of_mask(mask)`` gives the items of every card in a one-copy ``mask``, in
    card order.  ``make(suit, chunk)`` gives the items of one suit's 13-bit
    chunk; they are made once and kept by their one-suit mask, and
    ``of_one_suit`` looks one up (``None`` for a mask not kept: several suits,
    or not seen yet).  This is the per-play path of the Python engines: a legal
    mask is most often one suit's cards (following suit), found with one lookup;
    others are put together from their suits' parts.
    """
    kept: dict[int, tuple[_T, ...]] = {}
    of_one_suit = kept.get

    def make_part(suit: int, part: int) -> tuple[_T, ...]:
        items = kept[part] = make(suit, part >> (13 * suit))
        return items

    def of_mask(mask: int) -> tuple[_T, ...]:
        out = of_one_suit(mask)
        if out is not None:
            return out
        out = ()
        part = mask & 0x1FFF
        if part:
            out = of_one_suit(part) or make_part(0, part)
        part = mask & 0x3FFE000
        if part:
            out += of_one_suit(part) or make_part(1, part)
        part = mask & 0x7FFC000000
        if part:
            out += of_one_suit(part) or make_part(2, part)
        part = mask & 0xFFF8000000000
        if part:
            out += of_one_suit(part) or make_part(3, part)
        return out

    return of_mask, of_one_suit


def _suit_plays(suit: int, chunk: int) -> tuple[Play, ...]:
    base = 13 * suit
    return tuple(SINGLE_PLAYS[base + r] for r in range(13) if chunk >> r & 1)


def _suit_cards(suit: int, chunk: int) -> tuple[Card, ...]:
    return tuple(play.cards[0] for play in _suit_plays(suit, chunk))


plays_of_mask, one_suit_plays = _per_suit(_suit_plays)
plays_of_mask.__doc__ = """The single-card plays of every card in a one-copy ``mask``, in card
order (memoised per suit)."""
_cards_of_low, _ = _per_suit(_suit_cards)


def cards_of_mask(mask: CardMask) -> tuple[Card, ...]:
    """The cards of ``mask``, in card order, a card held twice listed twice."""
    second = mask >> SECOND_COPY
    if not second:
        return _cards_of_low(mask)
    cards = []
    for card in _cards_of_low(mask & ALL_CARDS):  # a second copy goes right after its first
        cards.append(card)
        if second >> card.index & 1:
            cards.append(card)
    return tuple(cards)

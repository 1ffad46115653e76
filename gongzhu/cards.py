"""Suits, ranks, cards, decks and card text.

Cards are immutable values.  Every card of a 52-card deck also has an
:attr:`Card.index` from 0 to 51 (``suit * 13 + rank - 2``) that the engine
uses internally for bitmasks; the 52 :class:`Card` objects are interned, so
``Card.parse("QS") is Card.parse("Q♠")``.

Text forms (read leniently, written canonically as rank then suit letter,
``T`` for ten)::

    QS  Q♠  ♠Q  SQ  qs  10C  TC  10♣  ♣10  黑桃Q  梅花10  草花10  红桃A  方片J
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterable
from typing import Final

import attrs

from .errors import InvalidCard, quoted

__all__ = [
    "HEART_ACE",
    "PIG",
    "SHEEP",
    "TRANSFORMER",
    "Card",
    "Rank",
    "Suit",
    "cards_text",
    "full_deck",
    "parse_cards",
    "sort_cards",
]


class Suit(enum.IntEnum):
    """The four suits, in display order ♠ ♥ ♦ ♣."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        """One-letter form: ``S H D C``."""
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        """The suit symbol: ``♠ ♥ ♦ ♣``."""
        return "♠♥♦♣"[self]

    @property
    def chinese(self) -> str:
        """The Chinese name: 黑桃 红桃 方块 梅花."""
        return ("黑桃", "红桃", "方块", "梅花")[self]

    @property
    def is_red(self) -> bool:
        """True for ♥ and ♦."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def mask(self) -> int:
        """The bits of this suit's 13 cards in a 52-bit card mask."""
        return 0x1FFF << (13 * self)

    def __str__(self) -> str:
        return self.letter


class Rank(enum.IntEnum):
    """Card ranks, 2 lowest to ace highest (the value is the pip count, A = 14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        """One-character form: ``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return "23456789TJQKA"[self - 2]

    def __str__(self) -> str:
        return self.letter


_INTERNED: list[Card] = []


@attrs.frozen(repr=False, eq=False)
class Card:
    """One playing card.  Cards order by suit (♠ ♥ ♦ ♣), then rank.

    Cards compare and hash by value (their :attr:`index`).
    """

    suit: Suit = attrs.field(converter=Suit)
    rank: Rank = attrs.field(converter=Rank)
    index: int = attrs.field(init=False, eq=False, repr=False)
    """Position 0-51 in the canonical deck (``suit * 13 + rank - 2``)."""

    @index.default
    def _index_default(self) -> int:
        return int(self.suit) * 13 + int(self.rank) - 2

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Card):
            return NotImplemented
        return self.index == other.index

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index >= other.index

    @property
    def bit(self) -> int:
        """``1 << index``: this card's bit in a card mask."""
        return 1 << self.index

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Read one card from text (see the module docs for the accepted forms).

        :raises InvalidCard: when ``text`` is not a card.
        """
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidCard(f"expected card text, got {type(text).__name__}: {text!r}")
        found = _CARD_TEXT.get(text)
        if found is not None:
            return found
        m = _card_pattern().match(text.strip().upper())
        if m is None:
            raise InvalidCard(f"not a card: {quoted(text)} (examples: QS, 10C, TC, ♠Q, 10♣, 黑桃Q)")
        suit = m.group("s1") or m.group("s2")
        rank = m.group("r1") or m.group("r2")
        return _INTERNED[_SUIT_TEXT[suit] * 13 + _RANK_TEXT[rank] - 2]

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with :attr:`index` ``index`` (0-51)."""
        if not 0 <= index < 52:
            raise InvalidCard(f"card index out of range 0-51: {index}")
        return _INTERNED[index]

    @property
    def symbol(self) -> str:
        """Suit symbol then rank, ``♠Q``, ``♣10``: the form people read."""
        rank = "10" if self.rank == Rank.TEN else self.rank.letter
        return f"{self.suit.symbol}{rank}"

    def __str__(self) -> str:
        return _CANONICAL[self.index]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_CANONICAL: Final = tuple(f"{r.letter}{s.letter}" for s in Suit for r in Rank)
_INTERNED.extend(Card(s, r) for s in Suit for r in Rank)
_ONE_DECK: Final = tuple(_INTERNED)
_CARD_TEXT: Final = {text: card for text, card in zip(_CANONICAL, _INTERNED, strict=True)}

_SUIT_TEXT: Final = {
    **{s.letter: s for s in Suit},
    **{s.symbol: s for s in Suit},
    "♤": Suit.SPADES,
    "♡": Suit.HEARTS,
    "♢": Suit.DIAMONDS,
    "♧": Suit.CLUBS,
    "黑桃": Suit.SPADES,
    "红桃": Suit.HEARTS,
    "紅桃": Suit.HEARTS,
    "红心": Suit.HEARTS,
    "紅心": Suit.HEARTS,
    "方块": Suit.DIAMONDS,
    "方塊": Suit.DIAMONDS,
    "方片": Suit.DIAMONDS,
    "梅花": Suit.CLUBS,
    "草花": Suit.CLUBS,
}
_RANK_TEXT: Final = {**{r.letter: r for r in Rank}, "10": Rank.TEN}


@functools.cache
def _card_pattern() -> re.Pattern[str]:
    """The pattern of every accepted form of card text, compiled when text other than
    the canonical ``QS`` is first read (not by ``import gongzhu``)."""
    suits = "|".join(sorted(map(re.escape, _SUIT_TEXT), key=len, reverse=True))
    ranks = "10|[2-9TJQKA]"
    return re.compile(rf"^(?:(?P<r1>{ranks})\s*(?P<s1>{suits})|(?P<s2>{suits})\s*(?P<r2>{ranks}))$")


PIG: Final = Card.parse("QS")
"""♠Q, 猪 the pig."""
SHEEP: Final = Card.parse("JD")
"""♦J, 羊 the sheep."""
TRANSFORMER: Final = Card.parse("TC")
"""♣10, 变压器 the transformer."""
HEART_ACE: Final = Card.parse("AH")
"""♥A, the showable heart of most rulesets."""


def full_deck(copies: int = 1) -> tuple[Card, ...]:
    """Every card of ``copies`` standard decks, sorted (``copies`` is 1 or 2)."""
    if copies == 1:
        return _ONE_DECK
    if copies not in (1, 2):
        raise ValueError(f"a gongzhu deck has 1 or 2 copies of each card, not {copies}")
    return tuple(card for card in _INTERNED for _ in range(copies))


def parse_cards(text: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Read several cards: ``"QS JD TC AH"`` (spaces or commas) or an iterable.

    :raises InvalidCard: naming the first entry that is not a card (or for a
        value that is neither text nor an iterable, such as ``None``).
    """
    if isinstance(text, str):
        items: Iterable[str | Card] = text.replace(",", " ").split()
    elif isinstance(text, Iterable):
        items = text
    else:
        raise InvalidCard(
            f"expected card text or an iterable of cards, got {type(text).__name__}: {text!r}"
        )
    return tuple(Card.parse(item) for item in items)


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards grouped by suit (♠ ♥ ♦ ♣), high to low within a suit: as a player holds them."""
    return sorted(cards, key=lambda c: (c.suit, -c.rank))


def cards_text(cards: Iterable[Card]) -> str:
    """Canonical text of several cards, space separated (``-`` for none)."""
    return " ".join(map(str, cards)) or "-"

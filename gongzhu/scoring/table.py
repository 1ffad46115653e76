"""A ruleset's scoring data: the scoring cards and their values, the show factors, the shows.

:class:`ScoreTable` is built once per ruleset by :func:`gongzhu.load_rules`
from the plug-ins' answers; the ``DEFAULT_*`` tables and the value constants
are the core's answers.  :class:`ShowRecord` is one shown card (who showed
it, and how), the unit every scorer reads shows in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import attrs

from ..actions import ShowKind
from ..cards import PIG, SHEEP, TRANSFORMER, Card, Rank, Suit

__all__ = [
    "DEFAULT_CARD_VALUES",
    "DEFAULT_HEART_VALUES",
    "DEFAULT_SHOW_FACTORS",
    "PIG_VALUE",
    "SHEEP_VALUE",
    "TRANSFORMER_ALONE",
    "TRANSFORMER_MULTIPLIER",
    "ScoreTable",
    "ShowRecord",
    "show_record",
]

PIG_VALUE: Final = -100
"""The pig's (♠Q's) base value."""
SHEEP_VALUE: Final = 100
"""The sheep's (♦J's) base value."""
TRANSFORMER_MULTIPLIER: Final = 2
"""What a transformer (♣10) multiplies the other scoring cards by, before its show factor."""
TRANSFORMER_ALONE: Final = 50
"""A transformer's value when it is the only scoring card taken, before its show factor."""

DEFAULT_HEART_VALUES: Final[Mapping[Rank, int]] = {
    Rank.ACE: -50,
    Rank.KING: -40,
    Rank.QUEEN: -30,
    Rank.JACK: -20,
    **{r: -10 for r in (Rank.TEN, Rank.NINE, Rank.EIGHT, Rank.SEVEN, Rank.SIX, Rank.FIVE)},
    **{r: 0 for r in (Rank.FOUR, Rank.THREE, Rank.TWO)},
}
"""The standard heart table (source 000 and source 001 agree)."""

DEFAULT_CARD_VALUES: Final[Mapping[Card, int]] = {PIG: PIG_VALUE, SHEEP: SHEEP_VALUE}
"""The scoring cards besides the hearts and the transformer: the pig and the sheep."""

DEFAULT_SHOW_FACTORS: Final[Mapping[ShowKind, int]] = {
    ShowKind.OPEN: 2,
    ShowKind.FIRST: 4,
    ShowKind.SECRET: 2,
}
"""Show factors: 明 ×2, 首明 ×4, 暗卖 scored as shown ×2."""


@attrs.frozen
class ScoreTable:
    """The compiled scoring data of a ruleset (built once by :func:`gongzhu.load_rules`).

    The scoring cards (分牌) are the table's: every heart (valued by
    :attr:`heart_values`), the transformer, and the cards of
    :attr:`card_values` (by default the pig and the sheep;
    :func:`~gongzhu.hookspecs.gongzhu_card_values` changes them).

    :ivar copies: decks in play (1 or 2).
    :ivar showable: the cards that may be shown.
    :ivar heart_values: each heart's base value, by rank.
    :ivar show_factors: the factor of each kind of show.
    :ivar card_values: the other scoring cards (not the transformer) and
        their base values.
    """

    copies: int
    showable: frozenset[Card]
    heart_values: Mapping[Rank, int]
    show_factors: Mapping[ShowKind, int]
    card_values: Mapping[Card, int] = attrs.field(factory=lambda: dict(DEFAULT_CARD_VALUES))
    _bits: int = attrs.field(init=False, repr=False, eq=False)

    @_bits.default
    def _scoring_bits(self) -> int:
        return Suit.HEARTS.mask | TRANSFORMER.bit | sum(card.bit for card in self.card_values)

    @property
    def is_standard(self) -> bool:
        """Whether the scoring cards and their values are the core's (the pig and the
        sheep at −100 and +100): what the :class:`~gongzhu.scoring.CompiledScorer`
        computes."""
        return dict(self.card_values) == dict(DEFAULT_CARD_VALUES)

    @property
    def showable_heart(self) -> Card | None:
        """The showable heart, whose show multiplies every heart (♥A by default)."""
        return next((c for c in self.showable if c.suit is Suit.HEARTS), None)

    def base_value(self, card: Card) -> int:
        """The value of a scoring card before any factor (the transformer has none: 0)."""
        if card.suit is Suit.HEARTS:
            return self.heart_values[card.rank]
        return self.card_values.get(card, 0)

    def is_scoring(self, card: Card) -> bool:
        """Whether ``card`` is a scoring card (分牌): a heart, the transformer, or a card of
        :attr:`card_values`."""
        return bool(self._bits >> card.index & 1)

    @property
    def scoring_mask(self) -> int:
        """The card mask of every copy of the scoring cards (a second copy at bit 52 + index)."""
        bits = self._bits
        return bits | (bits << 52 if self.copies == 2 else 0)

    @property
    def scoring_count(self) -> int:
        """How many scoring cards the deck holds (by default 16 per copy)."""
        return self._bits.bit_count() * self.copies


@attrs.frozen(cache_hash=True)
class ShowRecord:
    """One shown card: who showed it and how.

    :ivar seat: the seat that showed it.
    :ivar card: the card.
    :ivar kind: how it was shown.
    """

    seat: int
    card: Card
    kind: ShowKind


_RECORDS: dict[tuple[int, int, ShowKind], ShowRecord] = {}


def show_record(seat: int, card: Card, kind: ShowKind) -> ShowRecord:
    """``ShowRecord(seat, card, kind)``, made once and then shared (records are frozen):
    hands list their shows this way at every phase change, at no allocation."""
    key = (seat, card.index, kind)
    record = _RECORDS.get(key)
    if record is None:
        record = _RECORDS[key] = ShowRecord(seat, card, kind)
    return record

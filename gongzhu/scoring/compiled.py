"""The compiled scorer: the core pipeline as card-mask arithmetic, and the mask form of stages.

:class:`CompiledScorer` gives the raw scores of the core pipeline
(:func:`~gongzhu.scoring.core_stages`) straight from each seat's card mask:
:meth:`~CompiledScorer.raw` with one deck, :meth:`~CompiledScorer.raw_copies`
with two.  A stage a plug-in inserts keeps a ruleset on it when the stage has
a card-mask form (:attr:`ScoreStage.on_masks
<gongzhu.scoring.ScoreStage.on_masks>`), a function of a
:class:`MaskScoring`.  The tests hold the compiled scorer equal to the
pipeline, its reference, on random hands of every shipped ruleset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

import attrs

from ..actions import ShowKind
from ..cards import PIG, SHEEP, TRANSFORMER, Card, Rank, Suit
from ..masks import SECOND_COPY, indices
from .copies import CopyFactorMasks, CopyFactors, TakenCopy
from .pipeline import MaskStageFunc, ScoreStage
from .stages import core_stages
from .table import (
    PIG_VALUE,
    SHEEP_VALUE,
    TRANSFORMER_ALONE,
    TRANSFORMER_MULTIPLIER,
    ScoreTable,
    ShowRecord,
    show_record,
)

if TYPE_CHECKING:
    from ..plugin import Options

__all__ = ["CompiledScorer", "MaskScoring", "ScoreData", "score_data"]


def _per_seat() -> list[dict[int, int]]:
    return [{}, {}, {}, {}]


@attrs.define
class MaskScoring:
    """What the card-mask form of a scoring stage reads and changes.

    A stage that only changes some cards' own values (自得 doubles a
    self-captured card) can say so on card masks too
    (:attr:`ScoreStage.on_masks <gongzhu.scoring.ScoreStage.on_masks>`), and
    the ruleset then keeps the fast :class:`CompiledScorer`.  Card masks hold
    bit ``card.index`` (with two decks, a second copy at bit
    ``52 + card.index``).  A stage made by :meth:`ScoreStage.copy_factor
    <gongzhu.scoring.ScoreStage.copy_factor>` has its mask form written for
    it, for one deck and two: prefer it to writing one by hand.

    The per-copy fields :attr:`copy_own` and :attr:`copy_alone` serve both:
    the copies of a card may go to different seats and differ (with two
    decks a shown copy doubles only itself), so stages multiply into them,
    per seat and per copy.  A seat's copies of a card are numbered as the
    compiled scorer counts them: first the shown copies it took, in
    :attr:`shown_taken` order, then its unshown ones; its first copy is at
    bit ``card.index``, a second at bit ``52 + card.index`` (where its taken
    mask has them).  With one deck a card's only copy is copy 0, and a stage
    may write :attr:`own` and :attr:`alone` instead (a card goes to one
    seat); a stage for two decks (:attr:`ScoreStage.two_decks
    <gongzhu.scoring.ScoreStage.two_decks>`) must not.

    :ivar table: the compiled scoring data.
    :ivar options: the ruleset's option values.
    :ivar taken: per seat, the cards it took.
    :ivar dealt: per seat, the cards it was dealt.
    :ivar factors: card bit -> the product of its show factors (read only;
        two decks: of every shown copy).
    :ivar own: one deck: card bit -> a factor on that card's own value: the
        pig's or the sheep's value, one heart's value (before 满红 turns the
        hearts' sign), or the transformer's multiplier and alone-value both.
        Stages multiply into it (:meth:`multiply`).
    :ivar alone: one deck: a factor on the transformer's alone-value only.
    :ivar shows: every shown card (two decks: every shown copy), in the order
        shown (read only).
    :ivar shown_taken: two decks: per seat, the shown copies it took (read
        only; empty with one deck).
    :ivar copy_own: per seat, copy bit -> a factor on that copy's own value,
        as :attr:`own` is for a card.  Stages multiply into it
        (:meth:`multiply_copy`).
    :ivar copy_alone: per seat, transformer copy bit -> a factor on that
        copy's alone-value only.  Stages multiply into it.
    """

    table: ScoreTable
    options: Options
    taken: Sequence[int]
    dealt: Sequence[int]
    factors: Mapping[int, int]
    own: dict[int, int] = attrs.field(factory=dict)
    alone: int = 1
    shows: Sequence[ShowRecord] = ()
    shown_taken: Sequence[Sequence[ShowRecord]] = ()
    copy_own: list[dict[int, int]] = attrs.field(factory=_per_seat)
    copy_alone: list[dict[int, int]] = attrs.field(factory=_per_seat)

    def multiply(self, card: Card, factor: int) -> None:
        """One deck: multiply ``card``'s own value by ``factor`` (see :attr:`own`)."""
        bit = 1 << card.index
        self.own[bit] = self.own.get(bit, 1) * factor

    def multiply_copy(self, seat: int, card: Card, copy: int, factor: int) -> None:
        """Multiply the own value of ``seat``'s copy number ``copy`` (0 or 1, as
        :attr:`copy_own` numbers them) of ``card`` by ``factor``."""
        bit = 1 << (card.index + SECOND_COPY * copy)
        own = self.copy_own[seat]
        own[bit] = own.get(bit, 1) * factor

    def one_deck_factors(self) -> tuple[dict[int, int], int]:
        """One deck: :attr:`own` and :attr:`alone` with what the stages wrote per copy
        multiplied in (a card's only copy, copy 0, is the card): what
        :meth:`CompiledScorer.raw` reads."""
        own, alone = dict(self.own), self.alone
        for seat_own in self.copy_own:
            for bit, factor in seat_own.items():
                own[bit] = own.get(bit, 1) * factor
        for seat_alone in self.copy_alone:
            alone *= seat_alone.get(_TRANSFORMER_BIT, 1)
        return own, alone


_STANDARD_BITS: Final = Suit.HEARTS.mask | PIG.bit | SHEEP.bit | TRANSFORMER.bit
_PIG_BIT: Final = PIG.bit
_SHEEP_BIT: Final = SHEEP.bit
_TRANSFORMER_BIT: Final = TRANSFORMER.bit
_HEARTS_MASK: Final = Suit.HEARTS.mask
_PIG_2: Final = PIG.bit << SECOND_COPY
_SHEEP_2: Final = SHEEP.bit << SECOND_COPY
_TRANSFORMER_2: Final = TRANSFORMER.bit << SECOND_COPY
_PIGS_BOTH: Final = _PIG_BIT | _PIG_2
_SHEEP_BOTH: Final = _SHEEP_BIT | _SHEEP_2
_TRANSFORMERS_BOTH: Final = _TRANSFORMER_BIT | _TRANSFORMER_2
_TRANSFORMER_COPIES: Final = (_TRANSFORMER_BIT, _TRANSFORMER_2)
_HEARTS_BOTH: Final = _HEARTS_MASK | _HEARTS_MASK << SECOND_COPY
_CORE_FUNCS: Final = tuple(s.run for s in core_stages())
_NO_FACTORS: Final[Mapping[int, int]] = {}


class CompiledScorer:
    """The core pipeline compiled to mask arithmetic, for the rulesets it fits.

    Used when a ruleset's pipeline is :func:`~gongzhu.scoring.core_stages`
    with, perhaps, stages that have a mask form (:meth:`fits`); the tests
    check it against the pipeline on random hands.  One deck: :meth:`raw`;
    two decks, where each shown copy scores for its taker: :meth:`raw_copies`.
    """

    __slots__ = (
        "_alone",
        "_factors",
        "_heart_bit",
        "_heart_index",
        "_heart_list",
        "_heart_values",
        "_hi",
        "_lo",
        "_scoring",
        "_scoring_copies",
    )

    def __init__(self, table: ScoreTable) -> None:
        heart = table.showable_heart
        self._heart_index = -1 if heart is None else heart.index
        self._heart_bit = 0 if heart is None else heart.bit
        self._factors = dict(table.show_factors)
        values = [table.heart_values[Rank(r + 2)] for r in range(13)]
        self._heart_list = tuple(values)
        self._heart_values = {1 << (13 + r): values[r] for r in range(13)}
        # the hearts' value of a 13-bit hearts chunk: its low 7 bits and high 6 looked up
        self._lo = [sum(values[r] for r in range(7) if m >> r & 1) for m in range(128)]
        self._hi = [sum(values[7 + r] for r in range(6) if m >> r & 1) for m in range(64)]
        self._scoring = _STANDARD_BITS
        self._scoring_copies = _STANDARD_BITS | _STANDARD_BITS << SECOND_COPY
        self._alone = TRANSFORMER_ALONE

    @staticmethod
    def fits(stages: Sequence[ScoreStage], copies: int = 1) -> bool:
        """Whether ``stages`` is the core pipeline, with only stages that have a mask
        form (:attr:`ScoreStage.on_masks <gongzhu.scoring.ScoreStage.on_masks>`; with
        two decks, one that handles them: :attr:`ScoreStage.two_decks
        <gongzhu.scoring.ScoreStage.two_decks>`) added between ``values`` and
        ``full-hearts``."""
        core = [s for s in stages if s.on_masks is None]
        if tuple(s.run for s in core) != _CORE_FUNCS:
            return False
        added = [i for i, s in enumerate(stages) if s.on_masks is not None]
        if not added:
            return True
        if copies != 1 and not all(stages[i].two_decks for i in added):
            return False
        names = [s.name for s in stages]
        low, high = names.index("values"), names.index("full-hearts")
        return all(low < i < high for i in added)

    @staticmethod
    def mask_stages(stages: Sequence[ScoreStage]) -> tuple[MaskStageFunc, ...]:
        """The mask forms of the stages that have one, in order."""
        return tuple(s.on_masks for s in stages if s.on_masks is not None)

    def full_hearts(self, taken: Sequence[int], copies: int = 1) -> bool:
        """Whether some seat took every heart, every copy (满红)."""
        hearts = _HEARTS_MASK if copies == 1 else _HEARTS_BOTH
        return any(mask & hearts == hearts for mask in taken)

    def slam(self, taken: Sequence[int], copies: int = 1) -> bool:
        """Whether some seat took every scoring card, every copy (满贯)."""
        scoring = self._scoring if copies == 1 else self._scoring_copies
        return any(mask & scoring == scoring for mask in taken)

    def full_hearts_by_seat(self, taken: Sequence[int], copies: int = 1) -> tuple[bool, ...]:
        """Per seat, whether it took every heart, every copy (满红)."""
        hearts = _HEARTS_MASK if copies == 1 else _HEARTS_BOTH
        return tuple([mask & hearts == hearts for mask in taken])

    def slam_by_seat(self, taken: Sequence[int], copies: int = 1) -> tuple[bool, ...]:
        """Per seat, whether it took every scoring card, every copy (满贯)."""
        scoring = self._scoring if copies == 1 else self._scoring_copies
        return tuple([mask & scoring == scoring for mask in taken])

    def raw(
        self,
        taken: Sequence[int],
        factors: Mapping[int, int],
        own: Mapping[int, int] | None = None,
        alone: int = 1,
    ) -> tuple[int, ...]:
        """One deck: raw scores from each seat's taken-card mask and the show factor per
        card bit.

        ``own`` and ``alone`` are what the mask stages left
        (:meth:`MaskScoring.one_deck_factors`).
        """
        hearts_factor = factors.get(self._heart_bit, 1)
        pig_factor = factors.get(_PIG_BIT, 1)
        sheep_factor = factors.get(_SHEEP_BIT, 1)
        transformer_factor = factors.get(_TRANSFORMER_BIT, 1)
        alone_value = self._alone * alone
        heart_own: list[tuple[int, int]] = []
        if own:
            pig_factor *= own.get(_PIG_BIT, 1)
            sheep_factor *= own.get(_SHEEP_BIT, 1)
            transformer_factor *= own.get(_TRANSFORMER_BIT, 1)
            heart_own = [
                (bit, self._heart_values[bit] * hearts_factor * (factor - 1))
                for bit, factor in own.items()
                if bit & _HEARTS_MASK and factor != 1
            ]
        scoring_mask = self._scoring
        lo, hi = self._lo, self._hi
        out = []
        for mask in taken:
            mask &= scoring_mask
            if not mask:
                out.append(0)
                continue
            chunk = mask >> 13 & 0x1FFF
            total = (lo[chunk & 0x7F] + hi[chunk >> 7]) * hearts_factor
            for bit, extra in heart_own:
                if mask & bit:
                    total += extra
            if chunk == 0x1FFF:
                total = -total
            if mask & _PIG_BIT:
                pig = PIG_VALUE * pig_factor
                total += -pig if mask == scoring_mask else pig
            if mask & _SHEEP_BIT:
                total += SHEEP_VALUE * sheep_factor
            if mask & _TRANSFORMER_BIT:
                if mask == _TRANSFORMER_BIT:
                    total = alone_value * transformer_factor
                else:
                    total *= TRANSFORMER_MULTIPLIER * transformer_factor
            out.append(total)
        return tuple(out)

    def raw_copies(
        self,
        taken: Sequence[int],
        shows: Sequence[ShowRecord],
        shown_taken: Sequence[Sequence[ShowRecord]],
        own: Sequence[Mapping[int, int]] | None = None,
        alone: Sequence[Mapping[int, int]] | None = None,
    ) -> tuple[int, ...]:
        """Two decks: raw scores from each seat's taken-card mask (a second copy at bit
        52 + index), every shown copy, and per seat the shown copies it took.

        Each copy of the pig, the sheep and the transformer counts with its own
        factor: its show's, when it is one of the shown copies the seat took
        (numbered as :class:`MaskScoring` says), times what the mask stages left
        for it in ``own`` (:attr:`MaskScoring.copy_own`: per seat, copy bit ->
        factor), and, for a lone transformer's alone-value, in ``alone``
        (:attr:`MaskScoring.copy_alone`).  Every shown copy of the showable heart
        multiplies every heart.
        """
        show_factors = self._factors
        hearts_factor = 1
        heart = self._heart_index
        for record in shows:  # every shown copy of the showable heart multiplies every heart
            if record.card.index == heart:
                hearts_factor *= show_factors[record.kind]
        scoring = self._scoring_copies
        lo, hi = self._lo, self._hi
        out = []
        for seat, mask in enumerate(taken):
            mask &= scoring
            if not mask:
                out.append(0)
                continue
            first = mask >> 13 & 0x1FFF
            second = mask >> 65 & 0x1FFF
            total = (lo[first & 0x7F] + hi[first >> 7] + lo[second & 0x7F] + hi[second >> 7]) * (
                hearts_factor
            )
            records = shown_taken[seat]
            seat_own = own[seat] if own else None
            factor = _NO_FACTORS.get  # copy bit -> the copy's factor (its show's, times its own)
            if records or seat_own:
                factor = self._copy_factors(records, seat_own).get
                if seat_own:
                    total += self._hearts_own(mask, seat_own) * hearts_factor
            if first == second == 0x1FFF:  # 满红
                total = -total
            if mask & _PIGS_BOTH:  # (a second copy only with the first)
                pig = PIG_VALUE * (
                    factor(_PIG_BIT, 1) + (factor(_PIG_2, 1) if mask & _PIG_2 else 0)
                )
                total += -pig if mask == scoring else pig  # 满贯
            if mask & _SHEEP_BOTH:
                total += SHEEP_VALUE * (
                    factor(_SHEEP_BIT, 1) + (factor(_SHEEP_2, 1) if mask & _SHEEP_2 else 0)
                )
            if mask & _TRANSFORMERS_BOTH:
                copies = _TRANSFORMER_COPIES if mask & _TRANSFORMER_2 else _TRANSFORMER_COPIES[:1]
                if mask & ~_TRANSFORMERS_BOTH:  # each copy multiplies the other cards' sum
                    for copy in copies:
                        total *= TRANSFORMER_MULTIPLIER * factor(copy, 1)
                else:  # alone, each copy is worth its alone-value
                    lone = alone[seat] if alone else _NO_FACTORS
                    total = sum(self._alone * factor(c, 1) * lone.get(c, 1) for c in copies)
            out.append(total)
        return tuple(out)

    def _copy_factors(
        self, records: Sequence[ShowRecord], own: Mapping[int, int] | None
    ) -> dict[int, int]:
        """Two decks: one seat's copy bit -> factor: the show factor of each shown copy
        it took (the first of a card at the card's bit, a second at bit 52 + index)
        times what ``own`` (:attr:`MaskScoring.copy_own`) has for the copy."""
        factors: dict[int, int] = {}
        show_factors = self._factors
        for record in records:
            bit = 1 << record.card.index
            if bit in factors:
                bit <<= SECOND_COPY
            factors[bit] = show_factors[record.kind]
        for bit, factor in own.items() if own else ():
            factors[bit] = factors.get(bit, 1) * factor
        return factors

    def _hearts_own(self, mask: int, own: Mapping[int, int]) -> int:
        """Two decks: what the own factors of the heart copies in ``mask`` add to the
        hearts' value (before the hearts' show factor and 满红)."""
        extra = 0
        for bit, factor in own.items():
            if bit & mask & _HEARTS_BOTH:
                extra += self._heart_list[(bit.bit_length() - 1) % 52 - 13] * (factor - 1)
        return extra


ScoreData = tuple[
    int,
    int,
    tuple[int, ...],
    tuple[int | None, ...],
    int,
    int,
    int,
    tuple[int, int, int, int],
    int,
    tuple[tuple[int, int, int, int, int, int], ...],
    int,
]
"""What :func:`score_data` gives: the compiled score data as plain ints and tuples."""

_KINDS: Final = tuple(ShowKind)  # the show kinds by code (gongzhu.showphase.KINDS)
_VALUE_LIMIT: Final = 1 << 24  # larger values or factors: scored in Python (engines/c/score.c)


def score_data(
    table: ScoreTable, options: Options, stages: Sequence[ScoreStage]
) -> ScoreData | None:
    """The data the :class:`CompiledScorer` scores from, as the C scorer reads it
    (``engines/c/score.c``), or ``None`` where scoring is not data alone.

    The data: the decks, the showable heart (its index, or -1), the heart values by rank,
    the show factors by kind code (``None``: a kind the ruleset lacks), the pig's, sheep's and
    transformer's indices, their values (the pig's, the sheep's, the transformer's
    multiplier and alone-value), the cards the per-copy stages concern, and their answers:
    per seat, card, copy state (0 unshown, else ``1 + show seat × kinds + kind code``) and
    whether the copy is the seat's own, the product of the stages' factors on its own value
    and on its alone-value (only those not both 1), and whether there are such stages.

    ``None`` unless the compiled scorer fits (:meth:`CompiledScorer.fits`, the core's
    scoring cards), every added stage is a per-copy stage (:meth:`ScoreStage.copy_factor
    <gongzhu.scoring.ScoreStage.copy_factor>`: its answers depend on its arguments alone,
    so they can be asked once here), and every answer and value is a plain int below
    2**24; a stage whose function raises or answers something else is left to Python,
    whose pipeline reports it.
    """
    if not table.is_standard or not CompiledScorer.fits(stages, table.copies):
        return None
    masks = [stage.on_masks for stage in stages if stage.on_masks is not None]
    copy_stages = [m for m in masks if isinstance(m, CopyFactorMasks)]
    if len(copy_stages) != len(masks):
        return None
    heart = table.showable_heart
    values = tuple(table.heart_values[Rank(r + 2)] for r in range(13))
    factors = tuple(table.show_factors.get(kind) for kind in _KINDS)
    constants = (PIG_VALUE, SHEEP_VALUE, TRANSFORMER_MULTIPLIER, TRANSFORMER_ALONE)
    if not all(_plain(v) for v in (*values, *constants)) or not all(
        f is None or _plain(f) for f in factors
    ):
        return None
    effects: dict[tuple[int, int, int, int], list[int]] = {}
    concerned = 0
    try:
        for stage in copy_stages:
            cards = table.showable if stage.cards is None else stage.cards
            mask = sum(card.bit for card in cards) & table.scoring_mask & ((1 << 52) - 1)
            concerned |= mask
            for index in indices(mask):
                _ask_copies(stage, options, table, Card.from_index(index), effects)
    except Exception:  # the pipeline asks again, and names the plug-in
        return None
    if not all(_plain(f) for pair in effects.values() for f in pair):
        return None
    rows = tuple(
        (*key, own, alone)
        for key, (own, alone) in sorted(effects.items())
        if (own, alone) != (1, 1)
    )
    if _bound(table.copies, values, factors, effects) >= _SCORE_LIMIT:
        return None  # a score could leave 64 bits: Python's ints score the ruleset
    return (
        table.copies,
        -1 if heart is None else heart.index,
        values,
        factors,
        PIG.index,
        SHEEP.index,
        TRANSFORMER.index,
        constants,
        concerned,
        rows,
        1 if copy_stages else 0,
    )


_SCORE_LIMIT: Final = 1 << 62


def _bound(
    copies: int,
    values: Sequence[int],
    factors: Sequence[int | None],
    effects: Mapping[tuple[int, int, int, int], Sequence[int]],
) -> int:
    """More than any value the C scorer works out on the way to a raw score: every card's
    value at the largest factors, the transformers' multipliers at theirs."""
    show = max([1, *(abs(f) for f in factors if f is not None)]) ** copies
    own = max([1, *(abs(pair[0]) for pair in effects.values())])
    alone = max([1, *(abs(pair[1]) for pair in effects.values())])
    hearts = sum(abs(v) for v in values) * copies * (own + 1) * show
    others = (abs(PIG_VALUE) + abs(SHEEP_VALUE)) * copies * show * own
    multiplier = (abs(TRANSFORMER_MULTIPLIER) * show * own) ** copies
    return max((hearts + others) * multiplier, copies * abs(TRANSFORMER_ALONE) * show * own * alone)


def _plain(value: object) -> bool:
    return type(value) is int and -_VALUE_LIMIT <= value <= _VALUE_LIMIT


def _ask_copies(
    stage: CopyFactorMasks,
    options: Options,
    table: ScoreTable,
    card: Card,
    effects: dict[tuple[int, int, int, int], list[int]],
) -> None:
    """Multiply the answers of ``stage`` for every copy of ``card`` a seat can take into
    ``effects``: unshown or shown (by any seat, any of the ruleset's kinds), its own or
    not (a shown copy is its own only for the seat that showed it)."""
    kinds = [(code, kind) for code, kind in enumerate(_KINDS) if kind in table.show_factors]
    for seat in range(4):
        states: list[tuple[int, ShowRecord | None]] = [(0, None)]
        for shower in range(4):
            for code, kind in kinds:
                states.append((1 + shower * len(_KINDS) + code, show_record(shower, card, kind)))
        for state, record in states:
            for own in (0, 1):
                if own and record is not None and record.seat != seat:
                    continue  # (no such copy)
                answer = stage.factor(TakenCopy(seat, card, record, bool(own)), options)
                if answer is None:
                    continue
                if not isinstance(answer, CopyFactors):
                    raise TypeError(answer)
                alone = answer.alone if card == TRANSFORMER else 1
                entry = effects.setdefault((seat, card.index, state, own), [1, 1])
                entry[0] *= answer.own
                entry[1] *= alone

"""Per-copy stages: one definition of a stage that changes single copies of cards.

A stage made by :meth:`ScoreStage.copy_factor
<gongzhu.scoring.ScoreStage.copy_factor>` is a function asked once per copy
of the concerned cards that a seat took: a :class:`TakenCopy` in, the
:class:`CopyFactors` of that copy (or ``None``) out.  This module derives
both forms of the stage from it, for one deck and for two: the pipeline's
(:func:`copy_factor_run`, which writes the score sheet's lines) and the card
masks' (:func:`copy_factor_masks`, for the
:class:`~gongzhu.scoring.CompiledScorer`).  Both see the same copies, told
apart by :func:`copy_owners`, the one place that says which copy of a card
is a seat's own and how the copies a seat took are numbered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

import attrs

from ..cards import TRANSFORMER, Card
from ..masks import SECOND_COPY, add_copy, copies_in, indices
from .sheet import SHOWN_WORDS, signed
from .table import ShowRecord

if TYPE_CHECKING:
    from ..plugin import Options
    from .compiled import MaskScoring
    from .pipeline import Entry, ScoringContext, SeatTally

__all__ = [
    "CopyFactor",
    "CopyFactorMasks",
    "CopyFactors",
    "TakenCopy",
    "copy_factor_masks",
    "copy_factor_run",
    "copy_owners",
    "seat_copies",
]


@attrs.frozen
class TakenCopy:
    """One copy of a card that a seat took, as a per-copy stage is asked about it.

    :ivar seat: the seat that took it.
    :ivar card: the card.
    :ivar shown: this copy's show (who showed it, and how), or ``None`` for an
        unshown copy.  With one deck, the card's show if it was shown.
    :ivar own: whether the copy is the taker's own.  One deck: the seat was
        dealt the card.  Two decks: a shown copy is its own only for the seat
        that showed it; unshown copies are interchangeable, so a seat owns as
        many of the unshown copies of a card it took as it was dealt and did
        not show (the first ones, as :func:`seat_copies` numbers them).
        ``False`` when the deal is unknown.
    """

    seat: int
    card: Card
    shown: ShowRecord | None
    own: bool


@attrs.frozen
class CopyFactors:
    """What a per-copy stage does to one copy: factors on its values.

    :ivar own: the factor on the copy's own value: a pig's or sheep's value,
        a heart's value (before 满红 turns the hearts' sign), or a
        transformer's multiplier and its alone-value both.
    :ivar alone: a transformer only: a further factor on its alone-value
        alone (the value it has when it is the only scoring card taken).
    """

    own: int = 1
    alone: int = 1


CopyFactor = Callable[[TakenCopy, "Options"], CopyFactors | None]
"""A per-copy stage's function: the factors of one taken copy under the ruleset's options
(``None``: the copy is left as it is)."""


def copy_owners(
    seat: int, count: int, shown: Sequence[ShowRecord], dealt: int | None, showed: int
) -> list[tuple[ShowRecord | None, bool]]:
    """Per copy of a card that ``seat`` took, numbered as the compiled scorer numbers
    them (:func:`seat_copies`), its show (``None``: unshown) and whether it is the
    seat's own: the one place that says so (:attr:`TakenCopy.own`).

    :param count: how many copies of the card the seat took.
    :param shown: the shown copies of the card the seat took, in order (one deck:
        the card's show, if it was shown); beyond ``count``, ignored.
    :param dealt: how many copies of the card the seat was dealt, or ``None``
        when the deal is unknown (then no copy is its own).
    :param showed: how many copies of the card the seat showed.
    """
    owners: list[tuple[ShowRecord | None, bool]] = []
    unshown_own = 0 if dealt is None else max(dealt - showed, 0)  # interchangeable copies
    for number in range(count):
        if number < len(shown):  # a shown copy is its own for the seat that showed it
            record = shown[number]
            owners.append((record, dealt is not None and record.seat == seat))
        else:
            owners.append((None, unshown_own > 0))
            unshown_own -= 1
    return owners


def seat_copies(
    seat: int, card: Card, count: int, shown: Sequence[ShowRecord], dealt: int | None, showed: int
) -> list[TakenCopy]:
    """The ``count`` copies of ``card`` that ``seat`` took, in the order the compiled
    scorer numbers them: first the shown copies it took, in ``shown`` order, then its
    unshown ones.  Copy ``n`` is at bit ``card.index + 52 * n`` of the seat's masks
    (:attr:`MaskScoring.copy_own <gongzhu.scoring.MaskScoring.copy_own>`).

    The other parameters are those of :func:`copy_owners`.
    """
    return [
        TakenCopy(seat, card, record, own)
        for record, own in copy_owners(seat, count, shown, dealt, showed)
    ]


def _show_of(shows: Sequence[ShowRecord], card: Card) -> list[ShowRecord]:
    """One deck: the show of ``card``, as a list (empty when it was not shown)."""
    return [record for record in shows if record.card == card][:1]


def _showed(shows: Sequence[ShowRecord], seat: int, card: Card) -> int:
    """How many copies of ``card`` ``seat`` showed."""
    return sum(1 for record in shows if record.seat == seat and record.card == card)


def copy_factor_run(
    factor: CopyFactor, label: str, cards: frozenset[Card] | None
) -> Callable[[ScoringContext], None]:
    """The pipeline form of a per-copy stage: each copy's factors on its
    :class:`~gongzhu.scoring.Entry` (or, for a transformer, on the seat's multiplier
    and the copy's part of its alone-value), with a line for each changed copy.

    :param cards: the concerned cards; ``None``: the ruleset's showable cards.
    """

    def run(ctx: ScoringContext) -> None:
        concerned = ctx.table.showable if cards is None else cards
        for tally in ctx.seats:
            by_card: dict[Card, list[Entry]] = {}
            for entry in tally.entries:
                if entry.card in concerned:
                    by_card.setdefault(entry.card, []).append(entry)
            for card, entries in by_card.items():
                copies = _pipeline_copies(ctx, tally.seat, card, [e.shown for e in entries])
                for entry, copy in zip(entries, copies, strict=True):
                    _entry(ctx, tally, entry, copy, factor(copy, ctx.options), label)
            if tally.transformers and TRANSFORMER in concerned:
                records = tally.transformer_shows or [None] * len(tally.transformers)
                copies = _pipeline_copies(ctx, tally.seat, TRANSFORMER, records)
                for number, copy in enumerate(copies):
                    _transformer(ctx, tally, number, copy, factor(copy, ctx.options), label)

    return run


def _pipeline_copies(
    ctx: ScoringContext, seat: int, card: Card, records: Sequence[ShowRecord | None]
) -> list[TakenCopy]:
    """The copies of ``card`` that ``seat`` took, one per item of ``records``: with two
    decks each copy's show, as the ``values`` stage gave them out (shown copies first)."""
    if ctx.shown_taken is None:
        shown = _show_of(ctx.shows, card)
    else:
        shown = [record for record in records if record is not None]
    dealt = None if ctx.dealt is None else ctx.dealt[seat].count(card)
    return seat_copies(seat, card, len(records), shown, dealt, _showed(ctx.shows, seat, card))


def _entry(
    ctx: ScoringContext,
    tally: SeatTally,
    entry: Entry,
    copy: TakenCopy,
    factors: CopyFactors | None,
    label: str,
) -> None:
    """A copy's factors on its entry's value, and the line that says so."""
    if factors is None or factors.own == 1:
        return
    before = entry.value
    entry.value *= factors.own
    tally.note(
        ctx,
        # the copy's value changes in place: the line says what it is now, not an addend
        f"{_name(ctx, copy, label)}: now {signed(entry.value)} ({signed(before)} ×{factors.own})",
    )


def _transformer(
    ctx: ScoringContext,
    tally: SeatTally,
    number: int,
    copy: TakenCopy,
    factors: CopyFactors | None,
    label: str,
) -> None:
    """A transformer copy's factors: on the seat's multiplier, and on the copy's part
    (number ``number``) of the seat's alone-value; and the line that says so."""
    if factors is None or factors.own == factors.alone == 1:
        return
    tally.multiplier *= factors.own
    part = tally.transformer_alone[number]
    tally.transformer_alone[number] = changed = part * factors.own * factors.alone
    tally.alone += changed - part
    tally.note(
        ctx,
        f"{_name(ctx, copy, label)}: multiplier ×{tally.multiplier}, alone {signed(tally.alone)}",
    )


def _name(ctx: ScoringContext, copy: TakenCopy, label: str) -> str:
    """How a line names the stage and the copy: with two decks, which copy it is."""
    name = f"{label} {copy.card.symbol}"
    if ctx.shown_taken is None:
        return name
    shown = copy.shown
    return f"{name} (unshown copy)" if shown is None else f"{name} ({SHOWN_WORDS[shown.kind]} copy)"


_CARD_MASKS: dict[frozenset[Card], int] = {}


def _mask_of(cards: frozenset[Card]) -> int:
    """The first-copy card mask of ``cards`` (worked out once per set)."""
    mask = _CARD_MASKS.get(cards)
    if mask is None:
        mask = _CARD_MASKS[cards] = sum(card.bit for card in cards)
    return mask


_NO_SHOWS: Final[tuple[int, ...]] = (0, 0, 0, 0)

Effects = tuple[tuple[int, int, int], ...]
"""What a per-copy stage does to the copies of one card a seat took: per changed copy,
its copy bit, its factor on its own value, and its factor on its alone-value."""


class CopyFactorMasks:
    """The card-mask form of a per-copy stage (:func:`copy_factor_masks` makes it): a
    :data:`~gongzhu.scoring.MaskStageFunc` that keeps its :attr:`factor` and :attr:`cards`,
    so that the compiled score data can hold its answers
    (:func:`~gongzhu.scoring.compiled.score_data`).

    Called on a :class:`~gongzhu.scoring.MaskScoring`, it multiplies each copy's factors
    into :attr:`MaskScoring.copy_own <gongzhu.scoring.MaskScoring.copy_own>` and
    :attr:`MaskScoring.copy_alone <gongzhu.scoring.MaskScoring.copy_alone>`, at the copy's
    bit as :func:`copy_owners` numbers it (one deck and two).

    What ``factor`` says of a seat's copies of a card depends only on what
    :func:`copy_owners` reads, so it is asked once for each such case and the
    answer kept, for the options of the last hand scored.

    :ivar factor: the function asked per copy.
    :ivar cards: the concerned cards; ``None``: the ruleset's showable cards.
    """

    __slots__ = ("_known", "_known_for", "cards", "factor")

    def __init__(self, factor: CopyFactor, cards: frozenset[Card] | None) -> None:
        self.factor = factor
        self.cards = cards
        self._known: dict[tuple[object, ...], Effects] = {}
        self._known_for: list[Options] = []  # the options ``_known`` holds answers under

    def _effects(
        self,
        options: Options,
        seat: int,
        index: int,
        counts: tuple[int, int, int],
        shown: Sequence[ShowRecord],
    ) -> Effects:
        """What ``factor`` does to the copies of card ``index`` that ``seat`` took
        (``counts``: how many it took, was dealt and showed; ``shown``: the shown copies
        of it it took)."""
        card = Card.from_index(index)
        out = []
        owners = copy_owners(seat, counts[0], shown, counts[1], counts[2])
        for number, (record, own) in enumerate(owners):
            factors = self.factor(TakenCopy(seat, card, record, own), options)
            if factors is not None and (factors.own != 1 or factors.alone != 1):
                alone = factors.alone if card is TRANSFORMER else 1
                out.append((1 << (index + SECOND_COPY * number), factors.own, alone))
        return tuple(out)

    def __call__(self, hand: MaskScoring) -> None:
        table, options = hand.table, hand.options
        known, known_for = self._known, self._known_for
        if not known_for or known_for[0] is not options:
            known.clear()
            known_for[:] = [options]
        cards = self.cards
        concerned = _mask_of(table.showable if cards is None else cards) & table.scoring_mask
        if table.copies == 1:
            _one_deck(hand, concerned, known, self._effects)
        else:
            _two_decks(hand, concerned, known, self._effects)


def copy_factor_masks(factor: CopyFactor, cards: frozenset[Card] | None) -> CopyFactorMasks:
    """The card-mask form of a per-copy stage (a :class:`CopyFactorMasks`).

    :param cards: the concerned cards; ``None``: the ruleset's showable cards.
    """
    return CopyFactorMasks(factor, cards)


def _apply(changes: Effects, own: dict[int, int], alone: dict[int, int]) -> None:
    """Multiply a card's copies' factors into a seat's ``copy_own`` and ``copy_alone``."""
    for bit, own_factor, alone_factor in changes:
        if own_factor != 1:
            own[bit] = own.get(bit, 1) * own_factor
        if alone_factor != 1:
            alone[bit] = alone.get(bit, 1) * alone_factor


def _one_deck(
    hand: MaskScoring,
    concerned: int,
    known: dict[tuple[object, ...], Effects],
    effects: Callable[..., Effects],
) -> None:
    """The mask form with one deck: a card is one copy, taken by one seat; it is the
    seat's own when the seat was dealt it, and its show is the card's (as
    :func:`copy_owners` reads one deck)."""
    shown: dict[int, tuple[ShowRecord, ...]] = {}  # card index -> its show
    for show in hand.shows:
        shown.setdefault(show.card.index, (show,))
    options = hand.options
    for seat, taken in enumerate(hand.taken):
        present = taken & concerned
        if not present:
            continue
        dealt = hand.dealt[seat]
        for index in indices(present):
            its_show = shown.get(index, ())
            mine = dealt >> index & 1
            # (a shown card was shown by the seat it was dealt to: mine counts it too)
            key = (seat, index, mine, its_show)
            changes = known.get(key)
            if changes is None:
                counts = (1, mine, 1 if its_show and its_show[0].seat == seat else 0)
                changes = known[key] = effects(options, seat, index, counts, its_show)
            if changes:
                _apply(changes, hand.copy_own[seat], hand.copy_alone[seat])


def _two_decks(
    hand: MaskScoring,
    concerned: int,
    known: dict[tuple[object, ...], Effects],
    effects: Callable[..., Effects],
) -> None:
    """The mask form with two decks: a seat's copies of a card, told apart by their
    shows and numbered as :func:`copy_owners` numbers them."""
    options = hand.options
    shows = hand.shows
    showed: Sequence[int] = _showed_masks(shows) if shows else _NO_SHOWS
    for seat, taken in enumerate(hand.taken):
        present = (taken | taken >> SECOND_COPY) & concerned
        if not present:
            continue
        card_shows: dict[int, tuple[ShowRecord, ...]] = {}  # the shown copies it took
        for record in hand.shown_taken[seat] if hand.shown_taken else ():
            index = record.card.index
            card_shows[index] = (*card_shows.get(index, ()), record)
        dealt, seat_showed = hand.dealt[seat], showed[seat]
        for index in indices(present):
            counts = (
                copies_in(taken, index),
                copies_in(dealt, index),
                copies_in(seat_showed, index) if seat_showed else 0,
            )
            shown = card_shows.get(index, ())
            key = (seat, index, counts, shown)
            changes = known.get(key)
            if changes is None:
                changes = known[key] = effects(options, seat, index, counts, shown)
            if changes:
                _apply(changes, hand.copy_own[seat], hand.copy_alone[seat])


def _showed_masks(shows: Sequence[ShowRecord]) -> list[int]:
    """Per seat, the card mask of the copies it showed (a second copy at bit 52 + index)."""
    showed = [0, 0, 0, 0]
    for record in shows:
        showed[record.seat] = add_copy(showed[record.seat], record.card.index)
    return showed

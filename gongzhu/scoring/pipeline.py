"""The scoring pipeline: what its stages read and change, the stages, and running them.

A hand is scored by running a ruleset's stages, in order, over a
:class:`ScoringContext` that holds one :class:`SeatTally` per seat; each
scoring card a seat took is an :class:`Entry` of its tally (a transformer is
counted apart: it multiplies).  :func:`run_pipeline` builds the context and
runs the stages; :class:`StageList` is the pipeline
:func:`~gongzhu.hookspecs.gongzhu_score_stages` edits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

import attrs

from ..actions import ShowKind
from ..cards import TRANSFORMER, Card, Suit
from ..errors import GongzhuError, PluginError
from .copies import CopyFactor, copy_factor_masks, copy_factor_run
from .table import ScoreTable, ShowRecord

if TYPE_CHECKING:
    from ..plugin import Options
    from .compiled import MaskScoring

__all__ = [
    "Entry",
    "MaskStageFunc",
    "ScoreStage",
    "ScoringContext",
    "SeatTally",
    "StageFunc",
    "StageList",
    "run_pipeline",
]


@attrs.define
class Entry:
    """One scoring card a seat took (other than a transformer), with its current value.

    :ivar card: the card.
    :ivar value: its current value.
    :ivar shown: two decks, a showable card: the show of this copy (who showed it,
        and how) when it is a shown copy, else ``None``; set by the ``values``
        stage (always ``None`` with one deck).
    """

    card: Card
    value: int = 0
    shown: ShowRecord | None = None


@attrs.define
class SeatTally:
    """What the pipeline knows and has worked out about one seat.

    :ivar seat: the seat.
    :ivar entries: the scoring cards it took, but the transformers, in card order.
    :ivar transformers: the transformers it took, one per copy.
    :ivar multiplier: what the transformers multiply the seat's sum by.
    :ivar alone: what the transformers are worth when they are the only scoring
        cards it took.
    :ivar total: the seat's raw score (set by ``total``).
    :ivar full_hearts: whether it took every heart (满红).
    :ivar slam: whether it took every scoring card (满贯).
    :ivar lines: the readable steps of its score so far.
    :ivar transformer_shows: two decks: per copy of :attr:`transformers`, in
        order, its show when it is a shown copy, else ``None``; set by the
        ``values`` stage (empty with one deck).
    :ivar transformer_alone: per copy of :attr:`transformers`, in order, its
        own part of :attr:`alone` (its alone-value times its show factor, set
        by ``values``); the stages of :meth:`ScoreStage.copy_factor` change a
        copy's part and :attr:`alone` together.
    """

    seat: int
    entries: list[Entry]
    transformers: list[Card]
    multiplier: int = 1
    alone: int = 0
    total: int = 0
    full_hearts: bool = False
    slam: bool = False
    lines: list[str] = attrs.field(factory=list)
    transformer_shows: list[ShowRecord | None] = attrs.field(factory=list)
    transformer_alone: list[int] = attrs.field(factory=list)

    def hearts(self) -> list[Entry]:
        """The seat's heart entries."""
        return [e for e in self.entries if e.card.suit is Suit.HEARTS]

    def sum_of(self, entries: Sequence[Entry]) -> int:
        """The summed value of ``entries``."""
        return sum(e.value for e in entries)

    def note(self, ctx: ScoringContext, line: str) -> None:
        """Add a line to the seat's explanation (dropped when ``ctx.explain`` is off)."""
        if ctx.explain:
            self.lines.append(line)


@attrs.define
class ScoringContext:
    """Everything a stage may read or change while a hand is scored.

    :ivar table: the ruleset's scoring data.
    :ivar options: the ruleset's option values.
    :ivar seats: one tally per seat.
    :ivar shows: every shown card (with two decks, every shown copy), in the
        order shown.
    :ivar dealt: per seat, the cards it was dealt, or ``None`` when unknown.
    :ivar shown_taken: two decks: per seat, the shown copies it took (the
        ``values`` stage uses them up); ``None`` with one deck.
    :ivar explain: whether stages write readable lines (off when only the
        numbers are wanted).
    """

    table: ScoreTable
    options: Options
    seats: list[SeatTally]
    shows: tuple[ShowRecord, ...]
    dealt: tuple[tuple[Card, ...], ...] | None
    shown_taken: list[list[ShowRecord]] | None = None
    explain: bool = True

    def pop_copy_factor(self, seat: int, card: Card) -> int:
        """The show factor of the next copy of ``card`` that ``seat`` took, using it up.

        With one deck, the card's own factor (nothing is used up).  With two
        decks each shown copy doubles only itself (:doc:`rules`, a
        **(choice)**): the factor of the first shown copy of ``card`` left in
        :attr:`shown_taken` for the seat, which is removed from it, or 1 when
        none is left (an unshown copy).  Call it once per copy taken.
        """
        return self.pop_copy(seat, card)[1]

    def pop_copy(self, seat: int, card: Card) -> tuple[ShowRecord | None, int]:
        """:meth:`pop_copy_record` and :meth:`pop_copy_factor` at once, using the copy up:
        the copy's show (``None`` for an unshown copy, and with one deck) and its show
        factor."""
        if self.shown_taken is None:
            return None, self.show_factor(card)
        record = self.pop_copy_record(seat, card)
        return record, 1 if record is None else self.table.show_factors[record.kind]

    def pop_copy_record(self, seat: int, card: Card) -> ShowRecord | None:
        """Two decks: the show of the next copy of ``card`` that ``seat`` took, using it
        up: the first shown copy of ``card`` left in :attr:`shown_taken` for the seat
        (removed from it), or ``None`` for an unshown copy (and always with one deck).
        :meth:`pop_copy_factor` uses it."""
        if self.shown_taken is None:
            return None
        taken = self.shown_taken[seat]
        for position, record in enumerate(taken):
            if record.card == card:
                del taken[position]
                return record
        return None

    def show_factor(self, card: Card) -> int:
        """The product of the factors of every shown copy of ``card`` (1 if none)."""
        factor = 1
        for show in self.shows:
            if show.card == card:
                factor *= self.table.show_factors[show.kind]
        return factor

    def shown_kind(self, card: Card) -> ShowKind | None:
        """How ``card`` was shown, or ``None`` (the first shown copy, in two-deck play)."""
        return next((s.kind for s in self.shows if s.card == card), None)

    @property
    def hearts_factor(self) -> int:
        """The factor every heart is multiplied by: that of the showable heart."""
        heart = self.table.showable_heart
        return 1 if heart is None else self.show_factor(heart)


StageFunc = Callable[[ScoringContext], None]
"""A stage's step on the :class:`ScoringContext`."""

MaskStageFunc = Callable[["MaskScoring"], None]
"""A stage's step on card masks (:class:`~gongzhu.scoring.MaskScoring`)."""


@attrs.frozen
class ScoreStage:
    """A named step of the scoring pipeline.

    :ivar name: the stage's name (other plug-ins place theirs by it).
    :ivar run: the step, on the :class:`ScoringContext`.
    :ivar on_masks: the same step on card masks
        (:class:`~gongzhu.scoring.MaskScoring`), or ``None``.  Only a stage
        that changes cards' own values can have one, and it must sit between
        ``values`` and ``full-hearts``: a pipeline of the core's stages and
        such stages is scored by the :class:`~gongzhu.scoring.CompiledScorer`,
        which the tests compare with the pipeline.  A stage that changes
        copies of cards one by one is best made by :meth:`copy_factor`, which
        derives both forms from one function.
    :ivar two_decks: whether :attr:`on_masks` handles two decks too (the
        per-copy :attr:`MaskScoring.copy_own
        <gongzhu.scoring.MaskScoring.copy_own>` and :attr:`MaskScoring.copy_alone
        <gongzhu.scoring.MaskScoring.copy_alone>`); without it a two-deck
        ruleset with the stage is scored by the pipeline.
    """

    name: str
    run: StageFunc
    on_masks: MaskStageFunc | None = None
    two_decks: bool = False
    owner: str | None = attrs.field(default=None, kw_only=True, eq=False)
    """The plug-in that put the stage in the pipeline, set as the ruleset is built (a
    plug-in leaves it out): a stage whose code fails is named with it
    (:class:`~gongzhu.errors.PluginError`)."""

    @classmethod
    def copy_factor(
        cls,
        name: str,
        factor: CopyFactor,
        *,
        label: str,
        cards: Iterable[Card] | None = None,
    ) -> ScoreStage:
        """A stage that multiplies the value of single copies of cards, one deck or two.

        ``factor(copy, options)`` is asked once for each copy of the
        concerned cards that a seat took (a :class:`~gongzhu.scoring.TakenCopy`:
        who took it, its show, whether it is the taker's own) and answers
        :class:`~gongzhu.scoring.CopyFactors` (the factor on that copy's own
        value, and for a transformer on its alone-value), or ``None`` to
        leave the copy as it is.  The stage's two forms, the pipeline's
        (which writes a line for each copy it changes) and the compiled
        scorer's (:attr:`on_masks`), are made from it, and which copy is a
        seat's own, with one deck or two, is worked out for it.  It must
        depend on nothing but its arguments: the compiled form keeps its
        answers.  Insert the stage between ``values`` and ``full-hearts``;
        then the ruleset keeps the compiled scorer, one deck or two.

        :param name: the stage's name.
        :param factor: the function asked per copy.
        :param label: how the score sheet's lines name the stage (a changed
            copy gets a line, ``"{label} ♦J: now +300 (+100 ×3)"``).
        :param cards: the cards whose copies are asked about (scoring cards);
            by default the ruleset's showable cards
            (:attr:`ScoreTable.showable <gongzhu.scoring.ScoreTable.showable>`).
        """
        concerned = None if cards is None else frozenset(cards)
        return cls(
            name,
            copy_factor_run(factor, label, concerned),
            copy_factor_masks(factor, concerned),
            two_decks=True,
        )


class StageList(Sequence[ScoreStage]):
    """The ordered scoring pipeline that :func:`gongzhu_score_stages` edits."""

    def __init__(self, stages: Sequence[ScoreStage] = ()) -> None:
        self._stages = list(stages)

    @overload
    def __getitem__(self, index: int) -> ScoreStage: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ScoreStage]: ...

    def __getitem__(self, index: int | slice) -> ScoreStage | Sequence[ScoreStage]:
        return self._stages[index]

    def __len__(self) -> int:
        return len(self._stages)

    def __iter__(self) -> Iterator[ScoreStage]:
        return iter(self._stages)

    @property
    def names(self) -> list[str]:
        """The stage names in order."""
        return [s.name for s in self._stages]

    def index(self, name: str) -> int:  # type: ignore[override]
        """The position of the stage called ``name`` (:class:`KeyError` if absent)."""
        for i, stage in enumerate(self._stages):
            if stage.name == name:
                return i
        raise KeyError(f"no scoring stage named {name!r}; stages: {', '.join(self.names)}")

    def insert_after(self, name: str, stage: ScoreStage) -> None:
        """Insert ``stage`` right after the stage called ``name``."""
        self._stages.insert(self.index(name) + 1, stage)

    def insert_before(self, name: str, stage: ScoreStage) -> None:
        """Insert ``stage`` right before the stage called ``name``."""
        self._stages.insert(self.index(name), stage)

    def replace(self, name: str, stage: ScoreStage) -> None:
        """Put ``stage`` in the place of the stage called ``name``."""
        self._stages[self.index(name)] = stage

    def remove(self, name: str) -> None:
        """Remove the stage called ``name``."""
        del self._stages[self.index(name)]

    def append(self, stage: ScoreStage) -> None:
        """Add ``stage`` at the end."""
        self._stages.append(stage)


def run_pipeline(
    table: ScoreTable,
    options: Options,
    stages: Sequence[ScoreStage],
    captured: Sequence[Sequence[Card]],
    shows: tuple[ShowRecord, ...],
    dealt: tuple[tuple[Card, ...], ...] | None,
    shown_taken: Sequence[Sequence[ShowRecord]] | None = None,
    *,
    explain: bool = True,
) -> ScoringContext:
    """Run ``stages`` over what each seat took; return the finished context.

    :param captured: per seat, the cards it took (only scoring cards count).
    :param shows: every shown card, in the order shown.
    :param dealt: per seat, the cards it was dealt, or ``None`` when unknown.
    :param shown_taken: two decks: per seat, the shown copies it took (``None``
        with one deck).
    :param explain: with ``False`` the stages skip their readable lines.
    """
    tallies = []
    for seat, cards in enumerate(captured):
        scoring = sorted(c for c in cards if table.is_scoring(c))
        tallies.append(
            SeatTally(
                seat,
                [Entry(c) for c in scoring if c != TRANSFORMER],
                [c for c in scoring if c == TRANSFORMER],
            )
        )
    taken_copy = None if shown_taken is None else [list(records) for records in shown_taken]
    ctx = ScoringContext(table, options, tallies, shows, dealt, taken_copy, explain)
    for stage in stages:
        try:
            stage.run(ctx)
        except GongzhuError:
            raise
        except Exception as exc:  # a plug-in's stage that fails is named, not gongzhu
            from .stages import core_stages  # (a core stage's failure is gongzhu's own)

            if any(stage.run is core.run for core in core_stages()):
                raise
            raise PluginError(stage.owner, f"score stage {stage.name!r}", exc) from exc
    return ctx

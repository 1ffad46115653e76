"""A ruleset's scorer: the one place a hand's scores are computed.

:class:`Scorer` is built once per ruleset (:attr:`Rules.scorer
<gongzhu.rules.Rules.scorer>`) from what the plug-ins compiled: the score
table, the pipeline of stages, the normalisation, and, when the pipeline is
the core's, the mask-based :class:`~gongzhu.scoring.CompiledScorer`.
:meth:`Rules.score <gongzhu.rules.Rules.score>` (scores from lists of
cards) and :meth:`HandState.score <gongzhu.hand.HandState.score>` /
:meth:`HandState.outcome <gongzhu.hand.HandState.outcome>` (scores of a
played hand) both come here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from .cards import Card
from .engine import cards_of_mask
from .errors import IncompatibleVariants
from .plugin import Options
from .scoring import (
    CompiledScorer,
    Lines,
    MaskScoring,
    MaskStageFunc,
    ScoreSheet,
    ScoreStage,
    ScoreTable,
    ScoringContext,
    ShowRecord,
    run_pipeline,
)

__all__ = ["Outcome", "Scorer"]


class Outcome(NamedTuple):
    """A finished hand's numbers, without the score sheet's explanation."""

    final: tuple[int, ...]
    """Each seat's result after the ruleset's normalisation."""
    full_hearts: bool
    """Whether some seat took every heart (满红)."""
    slam: bool
    """Whether some seat took every scoring card (满贯)."""


class Scorer:
    """Scores hands under one ruleset.

    :param table: the compiled scoring data.
    :param options: the ruleset's option values (stages read them).
    :param stages: the scoring pipeline, in order.
    :param normalise: raw scores to final ones (the ruleset's
        :func:`~gongzhu.hookspecs.gongzhu_normalise`, already checked input).
    :param normalisation: the sentence score sheets print for ``normalise``.
    """

    def __init__(
        self,
        table: ScoreTable,
        options: Options,
        stages: Sequence[ScoreStage],
        normalise: Callable[[tuple[int, ...]], tuple[int, ...]],
        normalisation: str,
    ) -> None:
        self.table = table
        self.options = options
        self.stages = tuple(stages)
        self.normalise = normalise
        self.normalisation = normalisation
        self.compiled: CompiledScorer | None = (
            CompiledScorer(table)
            if table.is_standard and CompiledScorer.fits(self.stages, table.copies)
            else None
        )
        """The mask-based scorer, when the scoring cards are the core's
        (:attr:`ScoreTable.is_standard <gongzhu.scoring.ScoreTable.is_standard>`) and the
        pipeline is the core's, perhaps with stages that have a mask form (else ``None``)."""
        self.mask_stages: tuple[MaskStageFunc, ...] = CompiledScorer.mask_stages(self.stages)
        """The mask forms of the plug-ins' stages, run before :attr:`compiled` scores."""

    def compiled_raw(
        self, taken: Sequence[int], dealt: Sequence[int], factors: Mapping[int, int]
    ) -> tuple[int, ...]:
        """One deck: raw scores by :attr:`compiled` (which must exist), the mask
        stages run first.

        :param taken: per seat, the card mask it took.
        :param dealt: per seat, the card mask it was dealt.
        :param factors: card bit -> the product of its show factors.
        """
        compiled = self.compiled
        if compiled is None:
            raise ValueError(
                "compiled_raw needs the compiled scorer: the pipeline is not the core's"
            )
        if not self.mask_stages:
            return compiled.raw(taken, factors)
        masks = MaskScoring(self.table, self.options, taken, dealt, factors)
        for stage in self.mask_stages:
            stage(masks)
        return compiled.raw(taken, factors, masks.own, masks.alone)

    def compiled_raw_copies(
        self,
        taken: Sequence[int],
        dealt: Sequence[int],
        shows: Sequence[ShowRecord],
        shown_taken: Sequence[Sequence[ShowRecord]] | None,
    ) -> tuple[int, ...]:
        """Two decks: raw scores by :attr:`compiled` (which must exist), the mask
        stages run first (:class:`~gongzhu.scoring.MaskScoring`, per copy).

        :param taken: per seat, the card mask it took: a card's first copy at bit
            ``index``, a second at bit ``52 + index`` (only with the first, as the
            engines keep them: :func:`~gongzhu.engine.add_copy`).
        :param dealt: per seat, the card mask it was dealt (the same).
        :param shows: every shown copy, in the order shown.
        :param shown_taken: per seat, the shown copies it took, as an engine's
            ``shown_taken()`` gives them (``None``: none).
        :raises IncompatibleVariants: a two-deck mask stage that wrote the one-deck
            :attr:`~gongzhu.scoring.MaskScoring.own` or
            :attr:`~gongzhu.scoring.MaskScoring.alone`, which two decks do not read.
        """
        compiled = self.compiled
        if compiled is None:
            raise ValueError(
                "compiled_raw_copies needs the compiled scorer: the pipeline is not the core's"
            )
        if shown_taken is None:
            shown_taken = [[], [], [], []]
        if not self.mask_stages:
            return compiled.raw_copies(taken, shows, shown_taken)
        factors: dict[int, int] = {}
        show_factors = self.table.show_factors
        for record in shows:
            bit = record.card.bit
            factors[bit] = factors.get(bit, 1) * show_factors[record.kind]
        masks = MaskScoring(
            self.table, self.options, taken, dealt, factors, shows=shows, shown_taken=shown_taken
        )
        for stage in self.mask_stages:
            stage(masks)
        if masks.own or masks.alone != 1:
            raise IncompatibleVariants(
                "a two-deck mask stage wrote MaskScoring.own or .alone (one deck only): "
                "two decks read copy_own and copy_alone"
            )
        return compiled.raw_copies(taken, shows, shown_taken, masks.copy_own, masks.copy_alone)

    def pipeline(
        self,
        taken: Sequence[Sequence[Card]],
        shows: tuple[ShowRecord, ...],
        dealt: tuple[tuple[Card, ...], ...] | None,
        shown_taken: Sequence[Sequence[ShowRecord]] | None = None,
        *,
        explain: bool = True,
    ) -> ScoringContext:
        """Run the stages over what each seat took; the finished context."""
        return run_pipeline(
            self.table,
            self.options,
            self.stages,
            taken,
            shows,
            dealt,
            shown_taken,
            explain=explain,
        )

    def outcome(
        self,
        taken: Sequence[Sequence[Card]],
        shows: tuple[ShowRecord, ...],
        dealt: tuple[tuple[Card, ...], ...] | None,
        shown_taken: Sequence[Sequence[ShowRecord]] | None = None,
    ) -> Outcome:
        """The numbers of :meth:`sheet`, without building its explanation."""
        ctx = self.pipeline(taken, shows, dealt, shown_taken, explain=False)
        seats = ctx.seats
        return Outcome(
            self.normalise(tuple(t.total for t in seats)),
            any(t.full_hearts for t in seats),
            any(t.slam for t in seats),
        )

    def sheet(
        self,
        taken: Sequence[Sequence[Card]],
        shows: tuple[ShowRecord, ...],
        dealt: tuple[tuple[Card, ...], ...] | None,
        shown_taken: Sequence[Sequence[ShowRecord]] | None = None,
        extra_lines: Sequence[Sequence[str]] | None = None,
    ) -> ScoreSheet:
        """The explained score sheet.

        :param taken: per seat, the cards it took (only scoring cards count).
        :param shows: every shown card, in the order shown.
        :param dealt: per seat, the cards it was dealt (for rules that read it), or ``None``.
        :param shown_taken: two decks: per seat, the shown copies it took.
        :param extra_lines: per seat, lines to put before the pipeline's own
            (a discard penalty's note).
        """
        ctx = self.pipeline(taken, shows, dealt, shown_taken)
        raw = tuple(t.total for t in ctx.seats)
        is_scoring = self.table.is_scoring
        return ScoreSheet(
            raw=raw,
            final=self.normalise(raw),
            captured=tuple(tuple(sorted(c for c in cards if is_scoring(c))) for cards in taken),
            shows=shows,
            full_hearts=tuple(t.full_hearts for t in ctx.seats),
            slam=tuple(t.slam for t in ctx.seats),
            lines=tuple(
                tuple((list(extra_lines[t.seat]) if extra_lines else []) + t.lines)
                for t in ctx.seats
            ),
            normalisation=self.normalisation,
        )

    def sheet_from_masks(
        self,
        raw: tuple[int, ...],
        taken: Sequence[int],
        shows: tuple[ShowRecord, ...],
        explain: Callable[[], Lines],
    ) -> ScoreSheet:
        """A score sheet from the :attr:`compiled` scorer's raw scores, explained lazily.

        :param raw: the raw scores, from :attr:`compiled`.
        :param taken: per seat, the card mask it took.
        :param shows: every shown card, in the order shown.
        :param explain: builds the sheet's lines (the pipeline's own), called
            when :attr:`ScoreSheet.lines <gongzhu.scoring.ScoreSheet.lines>`
            is first read.
        """
        compiled = self.compiled
        if compiled is None:
            raise ValueError(
                "sheet_from_masks needs the compiled scorer: the pipeline is not the core's"
            )
        copies = self.table.copies
        scoring = self.table.scoring_mask
        return ScoreSheet(
            raw=raw,
            final=self.normalise(raw),
            captured=tuple([cards_of_mask(mask & scoring) for mask in taken]),
            shows=shows,
            full_hearts=compiled.full_hearts_by_seat(taken, copies),
            slam=compiled.slam_by_seat(taken, copies),
            lines=explain,
            normalisation=self.normalisation,
        )

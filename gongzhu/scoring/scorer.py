"""A ruleset's scorer: the one place a finished hand is scored.

A finished hand gives its facts (:class:`HandFacts`: what each seat took and
was dealt, the shows) to its ruleset's :class:`Scorer` (:attr:`Rules.scorer
<gongzhu.rules.Rules.scorer>`), which scores them with the compiled scorer
when the ruleset has one, else with the pipeline: :meth:`Scorer.raw`,
:meth:`Scorer.final` and :meth:`Scorer.outcome` give numbers,
:meth:`Scorer.sheet` the explained score sheet.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from .._accel import accelerator
from ..cards import Card, Suit, full_deck
from ..errors import IncompatibleVariants
from ..masks import CardMask, cards_of_mask
from .compiled import CompiledScorer, MaskScoring, score_data
from .pipeline import MaskStageFunc, ScoreStage, ScoringContext, run_pipeline
from .sheet import Lines, ScoreSheet
from .table import ScoreTable, ShowRecord

if TYPE_CHECKING:
    from ..plugin import Options

__all__ = ["HandFacts", "Outcome", "Scorer"]


class HandFacts(NamedTuple):
    """What a finished hand tells its scorer (built once per hand: a plain tuple).

    :ivar taken: per seat, the card mask of the cards it took (with two
        decks a card's second copy at bit ``52 + index``; only scoring cards
        count).
    :ivar dealt: per seat, the card mask of the cards it was dealt, or
        ``None`` when unknown (then no card is a seat's own, for 自得).
    :ivar shows: every shown card (two decks: every shown copy), in the order
        shown, forced shows included.
    :ivar shown_taken: two decks: per seat, the shown copies it took, in the
        order it took them (``None``: none, and always with one deck).
    """

    taken: Sequence[CardMask]
    dealt: Sequence[CardMask] | None
    shows: tuple[ShowRecord, ...]
    shown_taken: Sequence[Sequence[ShowRecord]] | None = None


class Outcome(NamedTuple):
    """A finished hand's numbers, without the score sheet's explanation."""

    final: tuple[int, ...]
    """Each seat's result after the ruleset's normalisation."""
    full_hearts: bool
    """Whether some seat took every heart (满红)."""
    slam: bool
    """Whether some seat took every scoring card (满贯)."""


ExtraLines = Sequence[Sequence[str]] | Callable[[], Sequence[Sequence[str]]]
"""Per seat, lines a sheet puts before the pipeline's own, or a function giving them."""


class Scorer:
    """Scores hands under one ruleset.

    Every method that takes :class:`HandFacts` scores with :attr:`compiled`
    when the ruleset has it (and, if the ruleset has mask stages, the deal
    is known), else with the pipeline; the two give the same numbers (the
    tests hold them equal, :meth:`pipeline_sheet` being the reference), so
    the choice is only one of speed.

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
        self.raw_of_masks: Callable[[Sequence[CardMask], Mapping[int, int]], tuple[int, ...]] = (
            self.compiled.raw if self.masks_suffice and self.compiled else _masks_do_not_suffice
        )
        """:meth:`raw` from each seat's taken cards and the shows' :meth:`show_factors`
        alone, ``raw_of_masks(taken, factors)``, where :attr:`masks_suffice`: many hands of
        the same shows are scored with the factors worked out once (a search's playouts).
        Elsewhere it raises :class:`ValueError` (the scoring reads more)."""
        self._native: Any = _UNMADE

    @property
    def native(self) -> Any:
        """The compiled scorer's data as the C scorer reads it
        (:func:`~gongzhu.scoring.compiled.score_data` in a ``gongzhu._speedups.ScoreData``,
        made when first read), for engines that score a hand themselves
        (:attr:`Capability.SCORE <gongzhu.play.Capability.SCORE>`); ``None`` without the
        C accelerator, or when the scoring is not data alone (a plug-in's stage that only
        Python can run)."""
        native = self._native
        if native is _UNMADE:
            data = None
            if self.compiled is not None and _speedups is not None:
                data = score_data(self.table, self.options, self.stages)
            native = self._native = None if data is None else _speedups.ScoreData(data)
        return native

    @property
    def masks_suffice(self) -> bool:
        """Whether :meth:`raw_of_masks` can score this ruleset: one deck, the compiled
        scorer, and no stage that reads the deal (a search scores its playouts so)."""
        return self.compiled is not None and not self.mask_stages and self.table.copies == 1

    def show_factors(self, shows: Iterable[ShowRecord]) -> dict[int, int]:
        """Card bit -> the product of the show factors of the card's shown copies.

        Every factor of a card's shows multiplies it: a card shown twice (two
        decks) counts the product, as the pipeline's
        :meth:`ScoringContext.show_factor <gongzhu.scoring.ScoringContext.show_factor>` does.
        """
        factors: dict[int, int] = {}
        show_factors = self.table.show_factors
        for record in shows:
            bit = record.card.bit
            factors[bit] = factors.get(bit, 1) * show_factors[record.kind]
        return factors

    def card_values(self, shows: Iterable[ShowRecord] = ()) -> tuple[int, ...]:
        """What taking each card adds to its taker's raw score, given ``shows``, by card
        index: the scorer's own values, before the hand-wide rules (满红, 满贯, the
        transformer's multiplier, which count 0 here) and stages that read who was
        dealt what.

        A heart counts its value times the show factors of every shown copy of
        the showable heart; another scoring card its value times the factors of
        its own show.  With two decks the tuple has 104 entries, a card's copies
        numbered as the scorer numbers them (:class:`~gongzhu.scoring.MaskScoring`):
        entry ``index`` is its first shown copy (or an unshown one), entry
        ``52 + index`` its second; each shown copy counts its own show's factor.
        The tests hold every entry equal to :meth:`raw` of a seat that took that
        card alone, on every shipped ruleset.
        """
        table = self.table
        records = tuple(shows)
        copies = table.copies
        factors = self.show_factors(records)
        heart = table.showable_heart
        hearts_factor = 1 if heart is None else factors.get(heart.bit, 1)
        values = [0] * (52 * copies)
        shown: dict[int, list[int]] = {}
        for record in records:
            shown.setdefault(record.card.index, []).append(table.show_factors[record.kind])
        for card in full_deck():
            base = table.base_value(card)
            if not base:
                continue
            index = card.index
            if card.suit is Suit.HEARTS:
                for copy in range(copies):
                    values[index + 52 * copy] = base * hearts_factor
            elif copies == 1:
                values[index] = base * factors.get(card.bit, 1)
            else:
                own = shown.get(index, [])
                for copy in range(2):
                    values[index + 52 * copy] = base * (own[copy] if copy < len(own) else 1)
        return tuple(values)

    def _compiles(self, facts: HandFacts) -> bool:
        """Whether :attr:`compiled` scores ``facts`` (mask stages need the deal)."""
        return self.compiled is not None and (facts.dealt is not None or not self.mask_stages)

    def raw(self, facts: HandFacts) -> tuple[int, ...]:
        """Each seat's raw score (before the ruleset's normalisation)."""
        if self._compiles(facts):
            return self._compiled_raw(facts)
        return tuple(tally.total for tally in self._run(facts, explain=False).seats)

    def final(self, facts: HandFacts) -> tuple[int, ...]:
        """Each seat's result: the raw scores normalised."""
        return self.normalise(self.raw(facts))

    def outcome(self, facts: HandFacts) -> Outcome:
        """The numbers of :meth:`sheet` (:class:`Outcome`), without its explanation."""
        compiled = self.compiled
        if compiled is not None and self._compiles(facts):
            copies = self.table.copies
            return Outcome(
                self.normalise(self._compiled_raw(facts)),
                compiled.full_hearts(facts.taken, copies),
                compiled.slam(facts.taken, copies),
            )
        seats = self._run(facts, explain=False).seats
        return Outcome(
            self.normalise(tuple(t.total for t in seats)),
            any(t.full_hearts for t in seats),
            any(t.slam for t in seats),
        )

    def sheet(self, facts: HandFacts, extra_lines: ExtraLines | None = None) -> ScoreSheet:
        """The explained score sheet of ``facts``.

        With :attr:`compiled` the numbers come from it, and the explanation,
        the pipeline's (:meth:`pipeline_sheet`), is built when
        :attr:`ScoreSheet.lines <gongzhu.scoring.ScoreSheet.lines>` is first
        read: a sheet read only for its numbers costs little.

        :param facts: the hand's facts.
        :param extra_lines: per seat, lines to put before the pipeline's own
            (a discard penalty's note), or a function with no arguments that
            returns them, called when the sheet's lines are first read.
        """
        compiled = self.compiled
        if compiled is None or not self._compiles(facts):
            return self.pipeline_sheet(facts, extra_lines)
        copies = self.table.copies
        scoring = self.table.scoring_mask
        taken = facts.taken

        def explain() -> Lines:
            return self.pipeline_sheet(facts, extra_lines).lines

        raw = self._compiled_raw(facts)
        return ScoreSheet(
            raw=raw,
            final=self.normalise(raw),
            captured=tuple([cards_of_mask(mask & scoring) for mask in taken]),
            shows=facts.shows,
            full_hearts=compiled.full_hearts_by_seat(taken, copies),
            slam=compiled.slam_by_seat(taken, copies),
            lines=explain,
            normalisation=self.normalisation,
        )

    def pipeline_sheet(self, facts: HandFacts, extra_lines: ExtraLines | None = None) -> ScoreSheet:
        """The score sheet of ``facts`` by the pipeline alone, numbers and explanation:
        the reference the compiled scorer is held equal to.

        :param extra_lines: as for :meth:`sheet` (a function is called when the
            lines are first read).
        """
        scoring = self.table.scoring_mask
        captured = [cards_of_mask(mask & scoring) for mask in facts.taken]
        ctx = self._run(facts, explain=True, captured=captured)
        own_lines = tuple(tuple(t.lines) for t in ctx.seats)
        lines: Lines | Callable[[], Lines] = own_lines
        if callable(extra_lines):
            lines = functools.partial(_with_extra_from, extra_lines, own_lines)
        elif extra_lines:
            lines = _with_extra(extra_lines, own_lines)
        raw = tuple(t.total for t in ctx.seats)
        return ScoreSheet(
            raw=raw,
            final=self.normalise(raw),
            captured=tuple(captured),
            shows=facts.shows,
            full_hearts=tuple(t.full_hearts for t in ctx.seats),
            slam=tuple(t.slam for t in ctx.seats),
            lines=lines,
            normalisation=self.normalisation,
        )

    def _run(
        self,
        facts: HandFacts,
        *,
        explain: bool,
        captured: Sequence[Sequence[Card]] | None = None,
    ) -> ScoringContext:
        """The pipeline run over ``facts`` (``captured``: the seats' scoring cards, when
        the caller has them already)."""
        if captured is None:
            scoring = self.table.scoring_mask
            captured = [cards_of_mask(mask & scoring) for mask in facts.taken]
        dealt = facts.dealt
        shown_taken = None
        if self.table.copies == 2:
            shown_taken = facts.shown_taken or _NONE_TAKEN
        return run_pipeline(
            self.table,
            self.options,
            self.stages,
            captured,
            facts.shows,
            None if dealt is None else tuple([cards_of_mask(mask) for mask in dealt]),
            shown_taken,
            explain=explain,
        )

    def _compiled_raw(self, facts: HandFacts) -> tuple[int, ...]:
        """The raw scores by :attr:`compiled` (which must fit ``facts``), the mask stages
        run first (:class:`~gongzhu.scoring.MaskScoring`)."""
        compiled = self.compiled
        assert compiled is not None
        taken, dealt, shows, shown_taken = facts
        two_decks = self.table.copies == 2
        copies_taken = _NONE_TAKEN if shown_taken is None else shown_taken
        if not self.mask_stages:
            if two_decks:
                return compiled.raw_copies(taken, shows, copies_taken)
            return compiled.raw(taken, self.show_factors(shows))
        assert dealt is not None  # (see _compiles)
        masks = MaskScoring(
            self.table,
            self.options,
            taken,
            dealt,
            self.show_factors(shows),
            shows=shows,
            shown_taken=copies_taken if two_decks else (),
        )
        for stage in self.mask_stages:
            stage(masks)
        if not two_decks:
            return compiled.raw(taken, masks.factors, *masks.one_deck_factors())
        if masks.own or masks.alone != 1:
            raise IncompatibleVariants(
                "a two-deck mask stage wrote MaskScoring.own or .alone (one deck only): "
                "two decks read copy_own and copy_alone"
            )
        return compiled.raw_copies(taken, shows, copies_taken, masks.copy_own, masks.copy_alone)


_NONE_TAKEN: Final[tuple[tuple[ShowRecord, ...], ...]] = ((), (), (), ())
_speedups: Any = accelerator("_speedups")
_UNMADE: Final = object()


def _masks_do_not_suffice(_taken: object, _factors: object) -> tuple[int, ...]:
    raise ValueError("this ruleset's scoring reads more than the taken cards and shows")


def _with_extra(extra: Sequence[Sequence[str]], lines: Lines) -> Lines:
    """Per seat, ``extra``'s lines, then ``lines``."""
    return tuple(tuple(extra[seat]) + own for seat, own in enumerate(lines))


def _with_extra_from(make: Callable[[], Sequence[Sequence[str]]], lines: Lines) -> Lines:
    """Per seat, the lines ``make()`` gives, then ``lines``."""
    return _with_extra(make(), lines)

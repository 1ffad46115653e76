"""Whole random hands without a :class:`~gongzhu.hand.HandState`: the bulk API's inner loop.

:func:`gongzhu.simulate` plays thousands of hands and reads only each one's
:class:`~gongzhu.scoring.Outcome`.  A :class:`RandomHands` deals a hand, has
the ruleset's engine play all of it at random (the show phases included,
inside the engine: :meth:`HandEngine.random_playout
<gongzhu.play.HandEngine.random_playout>`) and hands the facts to the
ruleset's :class:`~gongzhu.scoring.Scorer`.  It draws exactly as
:meth:`HandState.play_out <gongzhu.hand.HandState.play_out>` does, because
it is the same engine call; no action objects, history or score sheet are
made.  Python is left with the deal's hash and what plug-ins decide once a
hand (the opening lead, the normalisation, a scoring stage that is not data).
On an engine that scores a hand itself (:attr:`Capability.SCORE
<gongzhu.play.Capability.SCORE>`, the C engines) from the ruleset's compiled
score data (:attr:`Scorer.native <gongzhu.scoring.Scorer.native>`), no facts
are built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from random import Random
from typing import TYPE_CHECKING, Any, Final

from .deal import SEATS, Deal, seed_digest
from .masks import CardMask
from .play import Capability, HandEngine
from .scoring import HandFacts, Outcome
from .showphase import ShowPhase, copy_record

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["RandomHands", "facts_of"]

CHUNK: Final = 1024
"""How many hands :meth:`RandomHands.outcomes` has the engine play at a time."""


def facts_of(engine: HandEngine, dealt: Sequence[CardMask], shows: ShowPhase) -> HandFacts:
    """What scoring reads of a hand ``engine`` finished: taken and dealt cards, the shows,
    and with two decks the shown copies each seat took (see
    :class:`~gongzhu.scoring.HandFacts`).

    :param engine: the engine, its hand over.
    :param dealt: each seat's dealt cards.
    :param shows: the ruleset's show phases (the engine names shows by their ids).
    """
    copies = engine.shown_taken()
    shown_taken = None
    if copies is not None:
        shown_taken = tuple([tuple(map(copy_record, seat)) for seat in copies])
    return HandFacts(
        tuple(engine.taken), tuple(dealt), shows.records_of(engine.show_log), shown_taken
    )


class RandomHands:
    """Plays uniformly random hands of one ruleset to their outcome, as fast as it can.

    :meth:`outcome` gives, for a seed and a ``random()``, what
    ``rules.new_hand(seed)`` then :meth:`~gongzhu.hand.HandState.play_out`
    and :meth:`~gongzhu.hand.HandState.outcome` give, drawing the same
    numbers.

    :param rules: the ruleset.
    :param engine: the name of the engine to play on (one of
        :attr:`Rules.engines <gongzhu.rules.Rules.engines>`); ``None`` uses
        :attr:`Rules.engine_spec <gongzhu.rules.Rules.engine_spec>`, the fastest.
    :raises IncompatibleVariants: an engine that cannot play the ruleset.
    """

    def __init__(self, rules: Rules, *, engine: str | None = None) -> None:
        self.rules = rules
        self._spec = rules.engine_spec if engine is None else rules.engine_named(engine)
        self._copies = rules.table.copies
        self._outcome = rules.scorer.outcome
        self._raw = rules.scorer.raw
        self._opening_lead = rules.opening_lead
        self._make = rules.make_engine
        self._shows = rules.show_phase
        native = rules.scorer.native
        self._native = native if self._spec.offers(Capability.SCORE) else None
        self._normalise = rules.scorer.normalise
        lead = self._lead_rule = rules.compiled.lead_rule
        self._lead: tuple[int, int] | None = None
        batch = self._spec.offers(Capability.RANDOM_HANDS)
        if self._native is not None and lead is not None and batch:
            self._lead = (-1 if lead.card is None else lead.card.index, int(lead.forced))
        self._scratch: Any = None  # the engine random_hands plays on, made when first used

    @property
    def engine_name(self) -> str:
        """The name of the engine the hands are played on."""
        return self._spec.name

    def start(self, seed: int) -> tuple[HandEngine, list[CardMask]]:
        """A fresh engine for the hand dealt from ``seed``, ready for its first decision, and
        each seat's dealt cards: the hand ``rules.new_hand(seed)`` deals (the first card to
        seat 0), with the ruleset's opening lead.

        :param seed: the deal's seed (:meth:`Deal.shuffled <gongzhu.deal.Deal.shuffled>`).
        """
        deal, dealt = Deal.shuffled_with_masks(seed, self._copies)
        order = deal.order
        first = deal.first_seat
        firsts = [order[(seat - first) & 3].index for seat in range(SEATS)]
        rule = self._lead_rule
        if rule is None or self._copies != 1:
            lead = self._opening_lead(deal)
            forced = 0 if lead.card is None else 1 << lead.card.index
            return self._make(self._spec, dealt, lead.seat, forced, first, firsts), dealt
        # the rule as data, one deck: the card's receiver is the seat whose mask holds it
        # (with two decks each holder of one copy has the card's bit: the order decides)
        if rule.card is None:
            return self._make(self._spec, dealt, first, 0, first, firsts), dealt
        bit = 1 << rule.card.index
        seat = next(s for s in range(SEATS) if dealt[s] & bit)
        forced = bit if rule.forced else 0
        return self._make(self._spec, dealt, seat, forced, first, firsts), dealt

    def outcome(self, seed: int, random: Callable[[], float]) -> Outcome:
        """The outcome of the hand dealt from ``seed``, every choice drawn from ``random``.

        :param seed: the deal's seed (:meth:`Deal.shuffled <gongzhu.deal.Deal.shuffled>`).
        :param random: returns floats in [0, 1): one draw per show decision and
            per play, as :meth:`HandState.play_out <gongzhu.hand.HandState.play_out>`
            draws them.
        """
        engine, dealt = self.start(seed)
        engine.random_playout(random)
        scored = self._native_score(engine)
        if scored is not None:
            raw, full_hearts, slam = scored
            return Outcome(self._normalise(raw), full_hearts, slam)
        return self._outcome(facts_of(engine, dealt, self._shows))

    def raw_scores(self, engine: HandEngine, dealt: Sequence[CardMask]) -> tuple[int, ...]:
        """The raw scores of a hand ``engine`` finished (dealt ``dealt``): from the compiled
        score data inside the engine where it can (:attr:`Scorer.native
        <gongzhu.scoring.Scorer.native>`), else from the ruleset's
        :class:`~gongzhu.scoring.Scorer`, as :meth:`outcome` scores.

        :param engine: the engine, its hand over.
        :param dealt: each seat's dealt cards.
        """
        scored = self._native_score(engine)
        if scored is not None:
            return scored[0]
        return self._raw(facts_of(engine, dealt, self._shows))

    def _native_score(self, engine: HandEngine) -> tuple[tuple[int, ...], bool, bool] | None:
        """The engine's own scoring of its finished hand, from the compiled score data:
        raw scores, full hearts, slam; ``None`` where Python must score."""
        native = self._native
        if native is None:
            return None
        try:
            return self._spec.capable(engine, Capability.SCORE).score(native)
        except OverflowError:  # a score beyond 64 bits: Python's ints score it
            return None

    def outcomes(
        self, count: int, seed: Callable[[], int], random: Callable[[], float]
    ) -> Iterator[Outcome]:
        """The outcomes of ``count`` hands, the ``i``-th dealt from the ``i``-th ``seed()``:
        what :meth:`outcome` gives hand after hand, ``outcome(seed(), random)``, drawing
        the same numbers in the same order.

        Where the engine plays whole hands itself (:attr:`Capability.RANDOM_HANDS
        <gongzhu.play.Capability.RANDOM_HANDS>`), the scoring is data
        (:attr:`Scorer.native <gongzhu.scoring.Scorer.native>`) and so is the opening
        lead (:attr:`CompiledRules.lead_rule <gongzhu.compile.CompiledRules.lead_rule>`),
        Python is asked per hand only for its seed's digest and the normalisation, and
        the hands are played :data:`CHUNK` at a time: ``seed`` and ``random`` are called
        ahead of the outcomes given so far.

        :param count: how many hands.
        :param seed: gives each hand's seed, called once a hand before its draws.
        :param random: as for :meth:`outcome`.
        """
        lead = self._lead
        if lead is None:
            for _ in range(count):
                yield self.outcome(seed(), random)
            return
        cards = 52 * self._copies

        def next_digest() -> bytes:
            return seed_digest(seed(), cards)

        yield from self._in_engine(count, next_digest, random, lead)

    def seeded_outcomes(self, seeds: Sequence[int]) -> Iterator[Outcome]:
        """The outcome of the hand dealt from each of ``seeds``, each drawing from its own
        ``random.Random(seed).random``: what :meth:`outcome` gives for each (and
        ``rules.new_hand(seed)`` then :meth:`HandState.play_out
        <gongzhu.hand.HandState.play_out>` with that generator), hand by hand in C where
        :meth:`outcomes` plays in C.

        :param seeds: the deals' seeds.
        """
        lead = self._lead
        if lead is None:
            for seed in seeds:
                yield self.outcome(seed, Random(seed).random)
            return
        cards = 52 * self._copies
        pending = iter(seeds)

        def next_hand() -> tuple[bytes, Callable[[], float]]:
            seed = next(pending)
            return seed_digest(seed, cards), Random(seed).random

        yield from self._in_engine(len(seeds), next_hand, None, lead)

    def _in_engine(
        self,
        count: int,
        next_hand: Callable[[], object],
        random: Callable[[], float] | None,
        lead: tuple[int, int],
    ) -> Iterator[Outcome]:
        """``count`` hands played by the engine itself (``random_hands``), :data:`CHUNK` a
        call, on a scratch engine made once."""
        engine = self._scratch
        if engine is None:
            deal, dealt = Deal.shuffled_with_masks(0, self._copies)
            made = self._make(self._spec, dealt, 0, 0, 0, [card.index for card in deal.order[:4]])
            engine = self._scratch = self._spec.capable(made, Capability.RANDOM_HANDS)
        native, normalise = self._native, self._normalise
        while count > 0:
            chunk = min(count, CHUNK)
            count -= chunk
            for raw, full_hearts, slam in engine.random_hands(
                native, chunk, next_hand, random, lead
            ):
                yield Outcome(normalise(raw), full_hearts, slam)

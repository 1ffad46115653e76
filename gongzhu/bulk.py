"""Whole random hands without a :class:`~gongzhu.hand.HandState`: the bulk API's inner loop.

:func:`gongzhu.simulate` plays thousands of hands and reads only each one's
:class:`~gongzhu.scorer.Outcome`.  A :class:`RandomHands` plays a hand the way
:meth:`HandState.play_out <gongzhu.hand.HandState.play_out>` does, draw for
draw (the tests compare them on every shipped ruleset), but keeps only what
the outcome needs: the seats' card masks, the shows as they are made, and
the play engine, which plays the cards inside itself.  No action objects,
history or score sheet are made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .actions import Show, ShowKind
from .deal import SEATS, Deal
from .engine import add_copy, cards_of_mask, subtract_copies
from .scorer import Outcome
from .scoring import show_record

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["RandomHands"]


class RandomHands:
    """Plays uniformly random hands of one ruleset to their outcome, as fast as it can.

    :meth:`outcome` gives, for a seed and a ``random()``, what
    ``rules.new_hand(seed)`` then :meth:`~gongzhu.hand.HandState.play_out`
    and :meth:`~gongzhu.hand.HandState.outcome` give, drawing the same
    numbers.  Rulesets whose scoring pipeline has no compiled form
    (:attr:`Scorer.compiled <gongzhu.scorer.Scorer.compiled>` is ``None``)
    are played through a :class:`~gongzhu.hand.HandState`, which scores them
    by the pipeline.

    :param rules: the ruleset.
    :param engine: the name of the play engine to play on (one of
        :attr:`Rules.engines <gongzhu.rules.Rules.engines>`); ``None`` uses
        :attr:`Rules.engine <gongzhu.rules.Rules.engine>`, the fastest.
    :raises IncompatibleVariants: an engine that cannot play the ruleset.
    """

    def __init__(self, rules: Rules, *, engine: str | None = None) -> None:
        self.rules = rules
        scorer = rules.scorer
        self._direct = scorer.compiled is not None
        self._copies = rules.table.copies
        spec = rules.engine if engine is None else rules.engine_named(engine)
        self._engine = spec.name
        self._factory = spec.factory
        self._config = rules.play_config
        self._showable = rules.showable_mask
        self._choices_for = rules.show_choices_for_mask
        self._opening_lead = rules.opening_lead
        self._threshold = rules.auto_show_threshold
        lock = rules.shown_card_lock
        self._lock_exempt = None if lock is None else lock.exempt
        self._factors = scorer.table.show_factors
        self._normalise = scorer.normalise

    def outcome(self, seed: int, random: Callable[[], float]) -> Outcome:
        """The outcome of the hand dealt from ``seed``, every choice drawn from ``random``.

        :param seed: the deal's seed (:meth:`Deal.shuffled <gongzhu.deal.Deal.shuffled>`).
        :param random: returns floats in [0, 1): one draw per show decision and
            per card, as :meth:`HandState.play_out <gongzhu.hand.HandState.play_out>`
            draws them.
        """
        rules = self.rules
        if not self._direct:
            state = rules.new_hand(seed, engine=self._engine)
            state.play_out(random)
            return state.outcome()
        deal, dealt = Deal._shuffled(seed, self._copies)
        lead = self._opening_lead(deal)
        leader = lead.seat
        forced = 0 if lead.card is None else 1 << lead.card.index
        shows: list[tuple[int, Show]] = []
        shown = [0, 0, 0, 0]
        showable = self._showable
        if rules.first_shows:
            for k in range(SEATS):  # 首明: in dealing order, a seat whose first card shows
                seat = (deal.first_seat + k) % SEATS
                card = deal.first_card(seat)
                if card.bit & showable:
                    choices = rules.show_choices((card,), ShowKind.FIRST)
                    self._choose(seat, choices[int(random() * len(choices))], shows, shown)
        choices_for = self._choices_for
        two_decks = self._copies == 2
        for k in range(SEATS):
            seat = (leader + k) & 3
            held = dealt[seat] & showable
            held = subtract_copies(held, shown[seat]) if two_decks else held & ~shown[seat]
            choices = choices_for(held)
            show = choices[int(random() * len(choices))]
            if show.cards:
                self._choose(seat, show, shows, shown)
        threshold = self._threshold
        if threshold and sum(bits.bit_count() for bits in shown) >= threshold:
            for seat in range(SEATS):
                rest = subtract_copies(dealt[seat] & showable, shown[seat])
                if rest:
                    shows.append((seat, Show(cards_of_mask(rest))))
                    shown[seat] |= rest
        locked = [0, 0, 0, 0]
        exempt = self._lock_exempt
        if exempt is not None:
            for seat, show in shows:
                if show.kind not in exempt:
                    for card in show.cards:
                        locked[seat] = add_copy(locked[seat], card.index)
        records = tuple(
            show_record(seat, card, show.kind) for seat, show in shows for card in show.cards
        )
        core = self._factory(self._config, dealt, [], [])
        core.start(leader, forced, locked, records)
        core.random_playout(random)
        taken = core.taken
        scorer = rules.scorer
        compiled = scorer.compiled
        assert compiled is not None
        if two_decks:
            raw = compiled.raw_copies(taken, records, core.shown_taken() or [[], [], [], []])
        else:
            factors: dict[int, int] = {}
            table = self._factors
            for _seat, show in shows:
                factor = table[show.kind]
                for card in show.cards:
                    bit = 1 << card.index
                    factors[bit] = factors.get(bit, 1) * factor
            raw = scorer.compiled_raw(taken, dealt, factors)
        copies = self._copies
        return Outcome(
            self._normalise(raw), compiled.full_hearts(taken, copies), compiled.slam(taken, copies)
        )

    @staticmethod
    def _choose(seat: int, show: Show, shows: list[tuple[int, Show]], shown: list[int]) -> None:
        if show.cards:
            shows.append((seat, show))
            for card in show.cards:
                shown[seat] = add_copy(shown[seat], card.index)

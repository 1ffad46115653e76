"""Whole random hands without a :class:`~gongzhu.hand.HandState`: the bulk API's inner loop.

:func:`gongzhu.simulate` plays thousands of hands and reads only each one's
:class:`~gongzhu.scorer.Outcome`.  A :class:`RandomHands` plays a hand the way
:meth:`HandState.play_out <gongzhu.hand.HandState.play_out>` does, draw for
draw (the tests compare them on every shipped ruleset and engine), but keeps
only what the outcome needs: the seats' card masks, the shows as they are
made, and the play engine.  No action objects, history or score sheet are
made.

Engines may offer two optional methods for this path.  ``quiet_playout(random)``
is ``random_playout`` without appending to the history and trick lists (both
C engines).  ``random_hand(table, leader, forced, first_seat, first_cards,
random)``, with a ``show_table(...)`` on the engine's type that turns the
ruleset's show phases into data once, plays the whole hand inside the engine,
the 首明 and show phases included, and returns the taken-card masks and each
shown card's factor (the one-deck C engine; at most eight showable cards).
Only the plug-in hooks (the opening lead, the normalisation, mask stages)
and the deal's hash are then left to Python, once a hand.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from itertools import chain
from typing import TYPE_CHECKING, Any, NamedTuple

from .actions import Show, ShowKind
from .cards import Card
from .deal import SEATS, Deal
from .engine import add_copy, cards_of_mask, subtract_copies
from .scorer import Outcome
from .scoring import ShowRecord, show_record

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["RandomHands"]


class _Choice(NamedTuple):
    """One show a seat may make, with what a hand derives from it worked out once."""

    show: Show
    indices: tuple[int, ...]  # the shown cards' indices, a copy shown twice listed twice
    locked: bool  # whether the shown-card lock holds the cards
    factors: tuple[tuple[int, int], ...]  # one deck: (card bit, factor) per shown card
    records: tuple[tuple[ShowRecord, ...], ...]  # by seat: the show's records
    copies: int  # the shown cards' mask, from none shown (a second copy at bit 52 + index)


class _Choices:
    """A ruleset's shows as :class:`_Choice` values, made once per ruleset (every
    :class:`RandomHands` of the ruleset shares them) and the engines' show tables."""

    def __init__(self) -> None:
        self.held: dict[int, tuple[_Choice, ...]] = {}
        self.first: dict[Card, tuple[_Choice, ...]] = {}
        self.forced: dict[int, _Choice] = {}
        self.tables: dict[type, Any] = {}


_SHARED: weakref.WeakKeyDictionary[Rules, _Choices] = weakref.WeakKeyDictionary()


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
        self._scorer = scorer
        self._compiled = scorer.compiled
        self._copies = rules.table.copies
        spec = rules.engine if engine is None else rules.engine_named(engine)
        self._engine = spec.name
        self._factory = spec.factory
        self._config = rules.play_config
        self._showable = rules.showable_mask
        self._opening_lead = rules.opening_lead
        self._threshold = rules.auto_show_threshold
        lock = rules.shown_card_lock
        self._lock_exempt = None if lock is None else lock.exempt
        self._normalise = scorer.normalise
        self._first_shows = rules.first_shows
        shared = _SHARED.get(rules)
        if shared is None:
            shared = _SHARED[rules] = _Choices()
        self._held_choices = shared.held
        self._first_choices = shared.first
        self._forced_choices = shared.forced
        self._table = None
        if self._compiled is not None:
            probe = self._factory(self._config, Deal._shuffled(0, self._copies)[1], [], [])
            kind = type(probe)
            if kind not in shared.tables:
                shared.tables[kind] = self._show_table(probe)
            self._table = shared.tables[kind]

    def _show_table(self, probe: object) -> Any:
        """The engine's show phases as data, for an engine that plays whole hands
        (``random_hand``: the one-deck C engine), or ``None`` (the show phases are then
        played here): also when a show factor is not an int of at most 62 bits."""
        make = getattr(type(probe), "show_table", None)
        showable = self._showable
        if make is None or not hasattr(probe, "random_hand") or self._copies != 1:
            return None
        cards = cards_of_mask(showable)
        factors = self.rules.table.show_factors
        if len(cards) > 8 or any(
            type(f) is not int or not -(2**62) <= f <= 2**62 for f in factors.values()
        ):
            return None

        def triples(choices: tuple[_Choice, ...]) -> list[tuple[int, int, bool]]:
            return [(c.copies, factors[c.show.kind], c.locked) for c in choices]

        held = []
        for subset in range(1 << len(cards)):
            mask = sum(card.bit for j, card in enumerate(cards) if subset >> j & 1)
            held.append(triples(self._held_choices.get(mask) or self._for_held(mask)))
        first = None
        if self._first_shows:
            first = {card.index: triples(self._for_first(card)) for card in cards}
        exempt = self._lock_exempt
        forced_locks = exempt is not None and ShowKind.OPEN not in exempt  # auto-show: open
        threshold = self._threshold or 0
        return make(showable, held, first, threshold, factors[ShowKind.OPEN], forced_locks)

    def _choice(self, show: Show) -> _Choice:
        indices = tuple(card.index for card in show.cards)
        factor = self.rules.table.show_factors[show.kind]
        exempt = self._lock_exempt
        return _Choice(
            show,
            indices,
            exempt is not None and show.kind not in exempt,
            tuple((1 << index, factor) for index in indices),
            tuple(
                tuple(show_record(seat, card, show.kind) for card in show.cards)
                for seat in range(SEATS)
            ),
            _copies_mask(indices),
        )

    def _for_held(self, held: int) -> tuple[_Choice, ...]:
        choices = self._held_choices[held] = tuple(
            map(self._choice, self.rules.show_choices_for_mask(held))
        )
        return choices

    def _for_first(self, card: Card) -> tuple[_Choice, ...]:
        choices = self._first_choices[card] = tuple(
            map(self._choice, self.rules.show_choices((card,), ShowKind.FIRST))
        )
        return choices

    def _forced(self, rest: int) -> _Choice:
        choice = self._forced_choices.get(rest)
        if choice is None:
            choice = self._forced_choices[rest] = self._choice(Show(cards_of_mask(rest)))
        return choice

    def outcome(self, seed: int, random: Callable[[], float]) -> Outcome:
        """The outcome of the hand dealt from ``seed``, every choice drawn from ``random``.

        :param seed: the deal's seed (:meth:`Deal.shuffled <gongzhu.deal.Deal.shuffled>`).
        :param random: returns floats in [0, 1): one draw per show decision and
            per card, as :meth:`HandState.play_out <gongzhu.hand.HandState.play_out>`
            draws them.
        """
        compiled = self._compiled
        if compiled is None:
            state = self.rules.new_hand(seed, engine=self._engine)
            state.play_out(random)
            return state.outcome()
        copies = self._copies
        deal, dealt = Deal._shuffled(seed, copies)
        lead = self._opening_lead(deal)
        leader = lead.seat
        forced = 0 if lead.card is None else 1 << lead.card.index
        table = self._table
        if table is not None:  # the whole hand inside the engine
            engine: Any = self._factory(self._config, dealt[:], [], [])
            first = deal.order[:SEATS] if self._first_shows else None
            taken, shown = engine.random_hand(table, leader, forced, deal.first_seat, first, random)
            return Outcome(
                self._normalise(self._scorer.compiled_raw(taken, dealt, shown)),
                compiled.full_hearts(taken, copies),
                compiled.slam(taken, copies),
            )
        made: list[tuple[int, _Choice]] = []
        shown = [0, 0, 0, 0]
        showable = self._showable
        if self._first_shows:
            first_choices = self._first_choices
            for k in range(SEATS):  # 首明: in dealing order, a seat whose first card shows
                seat = (deal.first_seat + k) % SEATS
                card = deal.first_card(seat)
                if card.bit & showable:
                    choices = first_choices.get(card) or self._for_first(card)
                    choice = choices[int(random() * len(choices))]
                    if choice.indices:
                        made.append((seat, choice))
                        shown[seat] = _shown_with(shown[seat], choice)
        held_choices = self._held_choices
        for k in range(SEATS):
            seat = (leader + k) & 3
            held = dealt[seat] & showable
            if shown[seat]:
                held = subtract_copies(held, shown[seat])
            choices = held_choices.get(held) or self._for_held(held)
            choice = choices[int(random() * len(choices))]
            if choice.indices:
                made.append((seat, choice))
                shown[seat] = _shown_with(shown[seat], choice)
        threshold = self._threshold
        if threshold and sum(bits.bit_count() for bits in shown) >= threshold:
            for seat in range(SEATS):
                rest = subtract_copies(dealt[seat] & showable, shown[seat])
                if rest:
                    made.append((seat, self._forced(rest)))
        locked = [0, 0, 0, 0]
        if self._lock_exempt is not None:
            for seat, choice in made:
                if choice.locked:
                    locked[seat] = _shown_with(locked[seat], choice)
        records = tuple(chain.from_iterable(choice.records[seat] for seat, choice in made))
        core = self._factory(self._config, dealt[:], [], [])  # the engine may keep its list
        core.start(leader, forced, locked, records)
        getattr(core, "quiet_playout", core.random_playout)(random)
        taken = core.taken
        if copies == 1:
            factors: dict[int, int] = {}
            for _seat, choice in made:
                for bit, factor in choice.factors:
                    factors[bit] = factors.get(bit, 1) * factor
            raw = self._scorer.compiled_raw(taken, dealt, factors)
        else:
            raw = self._scorer.compiled_raw_copies(taken, dealt, records, core.shown_taken())
        return Outcome(
            self._normalise(raw), compiled.full_hearts(taken, copies), compiled.slam(taken, copies)
        )


def _shown_with(shown: int, choice: _Choice) -> int:
    """A seat's mask of shown (or locked) cards with one more copy of each card of
    ``choice`` (a second copy at bit 52 + index)."""
    if not shown:
        return choice.copies
    for index in choice.indices:
        shown = add_copy(shown, index)
    return shown


def _copies_mask(indices: tuple[int, ...]) -> int:
    """The card mask of ``indices``, a card listed twice as two copies."""
    mask = 0
    for index in indices:
        mask = add_copy(mask, index)
    return mask

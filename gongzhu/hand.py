"""The hand state machine: deal → (首明) → show → play → over.

:class:`HandState` is OpenSpiel-shaped: :meth:`~HandState.legal_actions`,
:meth:`~HandState.apply`, :meth:`~HandState.clone`, per-seat
:meth:`~HandState.view`.  It is the facade over the hand's engine (a
:class:`~gongzhu.play.HandEngine` chosen when the ruleset was built, see
:mod:`gongzhu.play`), which plays the whole hand as integers, the show
phases included: the state turns actions into the engine's keys and back,
keeps the deal, makes views, histories and records, and hands the finished
hand's facts to the ruleset's :class:`~gongzhu.scoring.Scorer`.  No plug-in
hook runs for a card play.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final

from .actions import Action, Play, Show, ShowKind, parse_action, play_of_key
from .bulk import facts_of
from .cards import Card
from .deal import SEATS, Deal, dealt_masks, put_first
from .errors import (
    HandNotOver,
    IllegalAction,
    InvalidCard,
    InvalidHoldings,
    InvalidSeat,
    NotAnAction,
    times,
)
from .masks import ALL_CARDS, CardMask, add_copies, cards_of_mask, subtract_copies
from .play import (
    ENGINE_PHASES,
    ILLEGAL,
    OVER_PHASE,
    PLAY_PHASE,
    Capability,
    EngineSpec,
    HandEngine,
    explain_refusal,
    greedy_playout,
)
from .scoring import HandFacts, Outcome, ScoreSheet, ShowRecord
from .view import Phase, PublicShow, SeatView, Trick

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["RECORD_FORMAT", "HandState", "Phase"]

_BITS: Final = tuple(1 << i for i in range(52))
_INDEX: Final = attrgetter("index")

RECORD_FORMAT: Final = "gongzhu-hand/1"
"""The ``format`` field of hand records written by :meth:`HandState.to_record`."""

TrickEntry = tuple[int, tuple[int, ...], int, int]
"""A finished trick as the engine keeps it: ``(leader, play keys, winner, taker)``."""


class HandState:
    """One hand of gongzhu being played.  Create it with :meth:`Rules.new_hand`.

    Seats are 0-3 in playing order.  A rejected action raises
    :class:`~gongzhu.errors.IllegalAction` and leaves the state unchanged.

    ``copy.copy`` and ``copy.deepcopy`` give :meth:`clone`, an independent
    state.  A state pickles (for multiprocessing) as its ruleset's spec, deal,
    seed, leader, engine name and actions, and is replayed on unpickling; a
    ruleset built with :meth:`Rules.from_plugins <gongzhu.rules.Rules.from_plugins>`
    from plug-ins that are not installed cannot be pickled.
    """

    __slots__ = (
        "_deal",
        "_dealt",
        "_engine",
        "_forced_lead",
        "_legal",
        "_redeal_from",
        "_trick_objects",
        "engine_spec",
        "explicit_leader",
        "leader",
        "rules",
        "seed",
    )

    def __init__(
        self,
        rules: Rules,
        deal: Deal,
        *,
        seed: int | None,
        leader: int | None,
        engine: EngineSpec | None = None,
        _holdings: list[int] | None = None,
    ) -> None:
        self.rules = rules
        self._deal: Deal | None = deal
        self._redeal_from: tuple[Deal, tuple[int, ...], int | None] | None = None
        self.seed = seed
        self.explicit_leader = leader
        # the seats' card masks, when the caller has them already (Deal.shuffled_with_masks)
        holdings = self._deal_masks(deal) if _holdings is None else _holdings
        self._dealt = tuple(holdings)
        if leader is None:
            lead = rules.opening_lead(deal)
            leader = lead.seat
            self._forced_lead = 0 if lead.card is None else lead.card.bit
        else:
            self._forced_lead = 0
        self.leader: int = leader
        """The seat that leads the first trick."""
        spec = rules.engine_spec if engine is None else engine
        self.engine_spec: EngineSpec = spec
        """The spec of the engine this hand runs on (one of the ruleset's
        :attr:`~gongzhu.rules.Rules.engines`): its name, features and capabilities."""
        order = deal.order
        first = deal.first_seat
        firsts = [order[(seat - first) & 3].index for seat in range(SEATS)]
        self._engine: HandEngine = rules.make_engine(
            spec, holdings, leader, self._forced_lead, first, firsts
        )
        self._legal: tuple[Action, ...] | None = None
        self._trick_objects: list[Trick] = []

    @staticmethod
    def _deal_masks(deal: Deal) -> list[int]:
        """Each seat's dealt cards as a card mask (a second copy at bit ``52 + index``)."""
        return dealt_masks(list(map(_INDEX, deal.order)), deal.first_seat)

    # -- public state ---------------------------------------------------------------

    @property
    def engine(self) -> HandEngine:
        """The engine playing this hand: a public handle, for code that drives hands
        fast (bulk play, search playouts, the encoders).

        A caller may read it through :class:`~gongzhu.play.HandEngine` and call
        the methods of the capabilities :attr:`engine_spec` declares (through
        :meth:`EngineSpec.capable <gongzhu.play.EngineSpec.capable>`).  It may
        drive a :meth:`~gongzhu.play.HandEngine.copy` as it likes; it must not
        change this engine itself (``play``, ``show``, ``redeal``, a playout),
        which would leave the state's caches and history behind it: act on the
        state (:meth:`apply`) or on a :meth:`clone`.
        """
        return self._engine

    @property
    def dealt_masks(self) -> tuple[CardMask, ...]:
        """Each seat's dealt cards as a card mask, by seat (two decks: a second copy at bit
        ``52 + index``): :meth:`dealt` as integers."""
        return self._dealt

    @property
    def phase(self) -> Phase:
        """The hand's phase."""
        return ENGINE_PHASES[self._engine.phase]

    @property
    def is_over(self) -> bool:
        """Whether every card has been played."""
        return self._engine.phase == OVER_PHASE

    @property
    def deal(self) -> Deal:
        """The cards in the order they were dealt."""
        deal = self._deal
        if deal is None:
            assert self._redeal_from is not None
            base, dealt, first_class = self._redeal_from
            deal = self._deal = _redealt(base, dealt, self._dealt, first_class)
        return deal

    @property
    def to_move(self) -> int | None:
        """The seat to act, or ``None`` once the hand is over."""
        seat = self._engine.seat
        return None if seat < 0 else seat

    def holding(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, in card order.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        return cards_of_mask(self._engine.holdings[_seat(seat)])

    def dealt(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` was dealt, in card order.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        return cards_of_mask(self._dealt[_seat(seat)])

    def taken(self, seat: int) -> tuple[Card, ...]:
        """Every card ``seat`` has taken in tricks (penalties included), in card order.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        return cards_of_mask(self._engine.taken[_seat(seat)])

    @property
    def shows(self) -> tuple[PublicShow, ...]:
        """Every show with cards, in the order made, secret sales and auto-shows included
        (``forced``), each with its cards: the whole truth, which :meth:`view` hides in
        part from each seat."""
        choices = self.rules.show_phase.choices
        out = []
        for seat, choice_id, forced in self._engine.show_log:
            show = choices[choice_id].show
            if show.cards:
                out.append(PublicShow(seat, show.kind, len(show.cards), show.cards, forced))
        return tuple(out)

    @property
    def shown(self) -> Mapping[int, tuple[Card, ...]]:
        """Seat -> every card it has shown so far, of any kind (secret sales included)."""
        out: dict[int, tuple[Card, ...]] = {seat: () for seat in range(SEATS)}
        choices = self.rules.show_phase.choices
        for seat, choice_id, _forced in self._engine.show_log:
            cards = choices[choice_id].show.cards
            if cards:
                out[seat] = tuple(sorted(out[seat] + cards))
        return out

    @property
    def show_records(self) -> tuple[ShowRecord, ...]:
        """Every shown card with its seat and kind, in the order shown."""
        return self.rules.show_phase.records_of(self._engine.show_log)

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order."""
        made = self._trick_objects
        if len(made) < self._engine.trick_count:  # build each Trick once, as tricks complete
            log = self._engine.trick_log
            made.extend(self._make_trick(*entry) for entry in log[len(made) :])
        return tuple(made)

    @property
    def trick_log(self) -> tuple[TrickEntry, ...]:
        """The completed tricks as the engine keeps them: ``(leader, play keys, winner,
        taker)`` each, the cheap form of :attr:`tricks` (records are written from it)."""
        return tuple(self._engine.trick_log)

    @property
    def current_trick(self) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        """``(seat, cards)`` played so far in the trick under way."""
        return self._trick_plays(self.trick_leader, self._engine.trick)

    @property
    def trick_keys(self) -> tuple[int, ...]:
        """The plays of the trick under way as play keys (:attr:`Play.key <gongzhu.Play.key>`).

        The cheap form of :attr:`current_trick` for playout policies: the
        seats follow from :attr:`trick_leader`.
        """
        return tuple(self._engine.trick)

    @property
    def trick_leader(self) -> int:
        """The seat that leads (or led) the trick under way."""
        return self._engine.trick_leader

    @property
    def history(self) -> tuple[tuple[int, Action], ...]:
        """Every action applied, with its seat, in order."""
        engine = self._engine
        choices = self.rules.show_phase.choices
        out: list[tuple[int, Action]] = [
            (seat, choices[choice_id].show)
            for seat, choice_id, forced in engine.show_log
            if not forced
        ]
        for leader, keys, _winner, _taker in engine.trick_log:
            out.extend(((leader + i) & 3, play_of_key(key)) for i, key in enumerate(keys))
        leader = engine.trick_leader
        out.extend(((leader + i) & 3, play_of_key(key)) for i, key in enumerate(engine.trick))
        return tuple(out)

    def __repr__(self) -> str:
        return (
            f"<HandState {self.rules!r} phase={self.phase.value} "
            f"to_move={self.to_move} tricks={self._engine.trick_count}>"
        )

    # -- the step API ---------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to move, in a stable order (empty when over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._engine.legal()
        return legal

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the seat to move.

        Accepts any value equal to a legal action (``Play.parse("QS")``).

        :raises IllegalAction: naming the action and the rule it breaks; the
            state is left unchanged.
        :raises NotAnAction: ``action`` is neither a :class:`~gongzhu.actions.Play`
            nor a :class:`~gongzhu.actions.Show` (text, ``None``...).
        """
        engine = self._engine
        phase = engine.phase
        if phase == PLAY_PHASE:
            if type(action) is not Play:
                if not isinstance(action, Play | Show):
                    raise _not_an_action(action)
                raise IllegalAction(action, engine.seat, "it is the play phase: play a card (Play)")
            seat = engine.play(action.key)
            if seat == ILLEGAL:
                raise self._refused(action)
            self._legal = None
        elif not isinstance(action, Play | Show):
            raise _not_an_action(action)
        elif phase == OVER_PHASE:
            raise IllegalAction(action, None, "the hand is over")
        else:
            self._show(action)

    def _refused(self, play: Play) -> IllegalAction:
        """The error for a play the engine refused, explained by the engine's cascade."""
        engine = self._engine
        seat = engine.seat
        found = engine.refusal(play.key)
        if found is None:
            return IllegalAction(play, seat, "the play engine refused it")
        code, detail = found
        refusal = explain_refusal(self.rules.play_config, code, detail, seat, play.cards)
        return IllegalAction(play, seat, refusal.message, refusal)

    def _show(self, action: Action) -> None:
        engine = self._engine
        choice = _position(self.legal_actions(), action)
        if choice < 0:
            seat = engine.seat
            phase = self.phase
            held = (
                self._first_holding(seat)
                if phase is Phase.FIRST_SHOW
                else self.rules.show_phase.holding(self._dealt[seat], self._shown_mask(seat))
            )
            why = self.rules.show_phase.refusal(phase, seat, held, action)
            raise IllegalAction(action, seat, why)
        engine.show(choice)
        self._legal = None

    def clone(self) -> HandState:
        """An independent copy of this state (for search)."""
        new = _new_state(type(self))
        # immutable values, shared
        new.rules = self.rules
        new._deal = self._deal
        new._redeal_from = self._redeal_from
        new.seed = self.seed
        new.engine_spec = self.engine_spec
        new.explicit_leader = self.explicit_leader
        new.leader = self.leader
        new._legal = self._legal
        new._dealt = self._dealt
        new._forced_lead = self._forced_lead
        new._trick_objects = self._trick_objects[:]
        new._engine = self._engine.copy()
        return new

    def with_holdings(self, holdings: Sequence[Iterable[Card]]) -> HandState:
        """A copy of this state in which each seat holds ``holdings[seat]`` now.

        For determinised search (:class:`gongzhu.implied.Determinizer`
        builds its sampled states this way): the history, the shows and the
        tricks are this state's; only who holds which of the unplayed cards
        changes.  The copy's :attr:`deal` is the deal that gives each seat its
        played cards and its new holding (a card that stays with its seat
        keeps its place in the deal, except that with 首明 a seat's first card
        is showable exactly when it was), its :attr:`seed` is ``None``, and its
        :attr:`explicit_leader` is its :attr:`leader` (the new deal might make
        the opening-lead rule pick another seat), unless a forced opening lead
        is still to be made.

        The history is not replayed: the caller answers for it being legal
        under the new holdings (a seat that discarded on a suit holds none of
        it now), as a sampler that keeps to :func:`gongzhu.implied.voids`
        does.  An engine without the :attr:`~gongzhu.play.Capability.REDEAL`
        capability gets the history replayed on the new deal instead, which
        checks it.

        :param holdings: four collections of cards (or card text), by seat.
        :raises InvalidHoldings: the hand is not in its play phase; the
            holdings are not the cards the seats hold now between them, or
            change a seat's number of cards; a seat would give up a card it
            has shown and not played (or, with two decks, hold another copy of
            a shown card it has played), or the leader the card it must lead
            (or, before the first card, the opening-lead rule would pick
            another seat on the new deal).
            This state is unchanged.
        """
        if self._engine.phase != PLAY_PHASE:
            raise InvalidHoldings(
                f"holdings change in the play phase only, not in the {self.phase.value} phase"
            )
        if isinstance(holdings, Mapping | str):
            raise InvalidHoldings("holdings are four collections of cards, by seat, in a sequence")
        holdings = tuple(holdings)
        if len(holdings) != SEATS:
            raise InvalidHoldings(f"expected four holdings, one per seat, not {len(holdings)}")
        copies = self.rules.table.copies
        masks = [_mask_of(cards, copies, seat) for seat, cards in enumerate(holdings)]
        now = self._engine.holdings
        _check_same_cards(masks, now, copies)
        for seat in range(SEATS):
            # the shown copies a seat holds: min(shown, held), as a seat plays an
            # unshown copy first; the history fixed them, so they may not change
            shown = self._shown_mask(seat)
            if shown & now[seat] != shown & masks[seat]:
                change = (shown & now[seat]) ^ (shown & masks[seat])
                which = ", ".join(map(str, cards_of_mask(change & ALL_CARDS)))
                if copies == 1:
                    raise InvalidHoldings(f"seat {seat} has shown {which} and must keep it")
                raise InvalidHoldings(
                    f"seat {seat} has shown {which}: how many shown copies it holds may not change"
                )
        started = self._engine.trick_count or self._engine.trick
        forced = self._forced_lead if not started else 0
        if forced and not forced & masks[self.leader]:
            card = Card.from_index(forced.bit_length() - 1)
            raise InvalidHoldings(f"seat {self.leader} leads first and must hold {card}")
        # the leader stays the leader: given explicitly, unless a forced lead is still to come
        # (then the opening-lead rule must pick it again from the new deal)
        explicit = self.explicit_leader if forced else self.leader
        if copies == 1:
            dealt = [d & ~h | m for d, h, m in zip(self._dealt, now, masks, strict=True)]
        else:
            dealt = [
                add_copies(subtract_copies(d, h), m)
                for d, h, m in zip(self._dealt, now, masks, strict=True)
            ]
        first_class = self._first_card_classes(dealt)
        deal = None
        if forced and explicit is None:  # before the first card: the rule must pick it again
            deal = _redealt(self.deal, self._dealt, dealt, first_class)
            picked = self.rules.opening_lead(deal).seat
            if picked != self.leader:
                raise InvalidHoldings(
                    f"the opening lead would fall to seat {picked}, not seat {self.leader}"
                )
        spec = self.engine_spec
        if not spec.offers(Capability.REDEAL):
            if deal is None:
                deal = _redealt(self.deal, self._dealt, dealt, first_class)
            return self._replayed(deal, explicit)
        new = self.clone()
        try:
            spec.capable(new._engine, Capability.REDEAL).redeal(masks)
        except ValueError as exc:
            raise InvalidHoldings(str(exc)) from None
        new._deal = deal  # else built when asked for: a search never asks
        new._redeal_from = (self.deal, self._dealt, first_class)
        new._dealt = tuple(dealt)
        new.explicit_leader = explicit
        new.seed = None
        new._legal = None
        return new

    def _first_card_classes(self, dealt: Sequence[int]) -> int | None:
        """With 首明: the showable cards' mask, by which a seat's new first card is chosen.

        Whether a seat was asked about 首明 depends on its first card being
        showable, so a new first card must be showable exactly when the old one
        was; ``None`` without 首明.

        :raises InvalidHoldings: a seat's new cards have no such card.
        """
        if not self.rules.first_shows:
            return None
        showable = self.rules.showable_mask
        for seat in range(SEATS):
            first = self.deal.first_card(seat)
            if dealt[seat] & first.bit:
                continue  # it keeps its first card (and its place)
            if not dealt[seat] & (showable if first.bit & showable else ~showable):
                kind = "a showable" if first.bit & showable else "an unshowable"
                raise InvalidHoldings(
                    f"seat {seat} was dealt {kind} first card and would have none"
                )
        return showable

    def _replayed(self, deal: Deal, leader: int | None) -> HandState:
        """This hand's history replayed on ``deal`` (for an engine without ``redeal``)."""
        new = self.rules.new_hand(deal=deal, leader=leader, engine=self.engine_spec.name)
        for index, (_seat, action) in enumerate(self.history):
            try:
                new.apply(action)
            except IllegalAction as exc:
                raise InvalidHoldings(
                    f"action {index} of the history is illegal under these holdings: {exc}"
                ) from None
        return new

    def __copy__(self) -> HandState:
        """``copy.copy(state)`` is :meth:`clone`: an independent state."""
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> HandState:
        """``copy.deepcopy(state)`` is :meth:`clone` (the immutable ruleset is shared)."""
        new = self.clone()
        memo[id(self)] = new
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the hand as what rebuilds it: the ruleset (by its spec), the deal,
        seed, leader and engine name, and the actions taken, replayed on unpickling.

        :raises GongzhuError: the ruleset was built from plug-in objects
            (:meth:`Rules.from_plugins <gongzhu.rules.Rules.from_plugins>`) that
            :func:`~gongzhu.rules.load_rules` cannot find by name.
        """
        return (
            _rebuild_hand,
            (
                self.rules,  # pickles as its spec (Rules.__reduce__)
                tuple(card.index for card in self.deal.order),
                self.deal.first_seat,
                self.seed,
                self.explicit_leader,
                self.engine_spec.name,
                tuple(str(action) for _seat, action in self.history),
            ),
        )

    # -- the show phases ---------------------------------------------------------------

    def _first_holding(self, seat: int) -> int:
        """What ``seat`` may first-show: its first card's bit when showable, else 0."""
        bit = self.deal.first_card(seat).bit
        return bit & self.rules.showable_mask

    def _shown_mask(self, seat: int) -> int:
        """The cards ``seat`` has shown, of any kind (a second copy at bit 52 + index)."""
        choices = self.rules.show_phase.choices
        shown = 0
        for who, choice_id, _forced in self._engine.show_log:
            if who == seat and choices[choice_id].copies:
                shown = add_copies(shown, choices[choice_id].copies)
        return shown

    # -- records of the past ------------------------------------------------------------------

    def _trick_plays(
        self, leader: int, keys: Sequence[int]
    ) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        return tuple(((leader + i) % SEATS, play_of_key(key).cards) for i, key in enumerate(keys))

    def _make_trick(self, leader: int, keys: tuple[int, ...], winner: int, taker: int) -> Trick:
        return Trick(leader, self._trick_plays(leader, keys), winner, taker)

    # -- views, scores, records ---------------------------------------------------------------

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own cards, public shows, the tricks played.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        seat = _seat(seat)
        holding: tuple[Card, ...]
        sizes: tuple[int, ...]
        phase = self.phase
        if phase is Phase.FIRST_SHOW:
            holding = (self.deal.first_card(seat),)
            sizes = (1, 1, 1, 1)
        else:
            holding = self.holding(seat)
            sizes = tuple(h.bit_count() for h in self._engine.holdings)
        shows = []
        for show in self.shows:
            if show.kind is ShowKind.SECRET and show.seat != seat:
                shows.append(PublicShow(show.seat, show.kind, show.count, None, show.forced))
            else:
                shows.append(show)
        to_move = self.to_move
        return SeatView(
            seat=seat,
            phase=phase,
            holding=holding,
            holding_sizes=sizes,
            shows=tuple(shows),
            tricks=self.tricks,
            current_trick=self.current_trick,
            leader=self.trick_leader,
            to_move=to_move,
            legal_actions=self.legal_actions() if seat == to_move else (),
        )

    def _require_over(self) -> None:
        if self._engine.phase != OVER_PHASE:
            raise HandNotOver(f"the hand is in the {self.phase.value} phase; it is not over")

    def facts(self) -> HandFacts:
        """What scoring reads of the finished hand: each seat's taken and dealt cards, the
        shows, and (two decks) the shown copies each seat took.

        :raises HandNotOver: while cards remain to be played.
        """
        self._require_over()
        return facts_of(self._engine, self._dealt, self.rules.show_phase)

    def returns(self) -> tuple[int, ...]:
        """The final (normalised) scores of the finished hand, without the score sheet.

        Equal to ``score().final``.

        :raises HandNotOver: while cards remain to be played.
        """
        return self.rules.scorer.final(self.facts())

    def outcome(self) -> Outcome:
        """The final scores, and whether some seat made full hearts or a slam.

        The numbers of :meth:`score` without its explanation.

        :raises HandNotOver: while cards remain to be played.
        """
        return self.rules.scorer.outcome(self.facts())

    def raw_scores(self) -> tuple[int, ...]:
        """The raw scores of the finished hand: ``score().raw`` without the sheet.

        :raises HandNotOver: while cards remain to be played.
        """
        return self.rules.scorer.raw(self.facts())

    def score(self) -> ScoreSheet:
        """The score sheet of the finished hand.

        Its numbers come from the ruleset's compiled scorer when it has one;
        its explanation (:attr:`~gongzhu.scoring.ScoreSheet.lines`) is built
        by the scoring pipeline when first read.

        :raises HandNotOver: while cards remain to be played.
        """
        return self.rules.scorer.sheet(self.facts(), self._penalty_lines)

    def _penalty_lines(self) -> list[list[str]]:
        """Per seat, the sheet's lines for the discard penalties it took."""
        notes: list[list[str]] = [[], [], [], []]
        is_scoring = self.rules.table.is_scoring
        for number, (_, keys, winner, taker) in enumerate(self._engine.trick_log, 1):
            if taker != winner:
                cards = [card for key in keys for card in play_of_key(key).cards]
                points = " ".join(c.symbol for c in sorted(cards) if is_scoring(c)) or "none"
                notes[taker].append(
                    f"垫牌 penalty: took trick {number}'s scoring cards ({points}) "
                    f"from seat {winner}"
                )
        return notes

    def play_out(self, random: Callable[[], float]) -> None:
        """Play the hand to its end with uniformly random legal actions (the bulk API).

        ``random`` returns floats in [0, 1): one draw picks each show and each
        card (the ``int(r * n)``-th of the ``n`` legal actions), inside the
        engine: no action objects are made.  Used by :func:`gongzhu.simulate`
        (through :class:`~gongzhu.bulk.RandomHands`); the same draws give the
        same hand on every engine.
        """
        try:
            self._engine.random_playout(random)
        finally:
            self._legal = None

    def greedy_play_out(
        self,
        values: Sequence[int],
        random: Callable[[], float],
        teams: Sequence[int] | None = None,
    ) -> bool:
        """Play the hand to its end inside the engine with the greedy playout policy.

        The policy is :func:`gongzhu.bots.playout.greedy_rollout_policy`,
        choice for choice and draw for draw (the tests compare them); search
        bots use this to play sampled hands out fast.  Engines that declare
        :attr:`~gongzhu.play.Capability.GREEDY_PLAYOUT` offer it (the
        one-deck C engine does).

        :param values: each card's base value, by card index (52 ints).
        :param random: returns floats in [0, 1), drawn as the policy draws them.
        :param teams: each seat's team: the trick under way is finished as the
            policy plays with ``teams=teams`` (a seat gives its points to a
            teammate's winning card), the tricks after it as without.
        :returns: ``True`` once the hand is over; ``False``, having played
            nothing, when the engine has no greedy playout or the hand is not
            in its play phase.
        """
        spec = self.engine_spec
        if self._engine.phase != PLAY_PHASE or not spec.offers(Capability.GREEDY_PLAYOUT):
            return False
        try:
            greedy_playout(
                spec.capable(self._engine, Capability.GREEDY_PLAYOUT), values, random, teams
            )
        finally:
            self._legal = None
        return True

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record of the hand that :func:`gongzhu.replay` rebuilds.

        The same as :func:`gongzhu.record.hand_record(hand) <gongzhu.record.hand_record>`,
        where records are written (imported when called: the record layer sits
        above the hand, since replaying a record builds hands).
        """
        from .record import hand_record

        return hand_record(self)


def _mask_of(given: Iterable[Card | str] | str, copies: int, seat: int) -> int:
    """The card mask of seat ``seat``'s cards (two decks: a second copy at bit ``52 + index``)."""
    items = tuple(given.split() if isinstance(given, str) else given)
    cards: tuple[Card, ...]
    if set(map(type, items)) <= {Card}:
        cards = items  # type: ignore[assignment]
    else:
        try:
            cards = tuple(map(Card.parse, items))
        except InvalidCard as exc:
            raise InvalidHoldings(f"seat {seat}'s holding: {exc}") from None
    if copies == 1:
        mask = sum(map(_BITS.__getitem__, map(_INDEX, cards)))
        if mask.bit_count() == len(cards):
            return mask
    mask = 0
    for card in cards:
        bit = _BITS[card.index]
        if mask & bit:
            if copies == 1 or mask >> 52 & bit:
                times = "twice" if copies == 1 else "three times"
                raise InvalidHoldings(f"seat {seat}'s holding lists {card} {times}")
            bit <<= 52
        mask |= bit
    return mask


def _check_same_cards(masks: Sequence[int], now: Sequence[int], copies: int) -> None:
    """That ``masks`` hold, between them, the cards ``now`` holds, each seat as many.

    :raises InvalidHoldings: naming the seat or the card that differs.
    """
    for seat in range(SEATS):
        have, want = masks[seat].bit_count(), now[seat].bit_count()
        if have != want:
            raise InvalidHoldings(f"seat {seat} holds {want} cards now, not {have}")
    if copies == 1:
        seen = 0
        for seat, mask in enumerate(masks):
            if seen & mask:
                card = cards_of_mask(seen & mask)[0]
                raise InvalidHoldings(f"{card} is in two holdings (seat {seat}'s and another)")
            seen |= mask
        held = now[0] | now[1] | now[2] | now[3]
        if seen != held:
            card = cards_of_mask(seen & ~held)[0]
            raise InvalidHoldings(f"no seat holds {card} now: the holdings must be the same cards")
        return
    given = Counter(c for mask in masks for c in cards_of_mask(mask))
    held_now = Counter(c for mask in now for c in cards_of_mask(mask))
    if given != held_now:
        card = min((given - held_now) + (held_now - given))
        raise InvalidHoldings(
            f"the holdings list {card} {times(given[card])}; the seats hold it "
            f"{times(held_now[card])} now: the holdings must be the same cards"
        )


def _redealt(
    deal: Deal, old: Sequence[int], new: Sequence[int], showable: int | None = None
) -> Deal:
    """``deal`` with each seat dealt the cards of ``new[seat]`` in place of ``old[seat]``.

    A card that stays with its seat keeps its place; the seat's other places
    take its new cards in card order, except that with ``showable`` (the
    showable cards' mask, for 首明) a new first card is showable exactly when
    the old one was.
    """
    first = deal.first_seat
    size = len(deal.order) // SEATS
    columns = []
    for k in range(SEATS):
        seat = (first + k) % SEATS
        was = deal.order[k::SEATS]
        if old[seat] == new[seat]:
            columns.append(was)
            continue
        keep = Counter(cards_of_mask(new[seat]))
        places: list[Card | None] = []
        for card in was:
            if keep[card]:
                keep[card] -= 1
                places.append(card)
            else:
                places.append(None)
        incoming = iter(sorted(keep.elements()))
        column = [card if card is not None else next(incoming) for card in places]
        if showable is not None and places[0] is None:
            # a new first card of the old one's kind (showable or not): 首明 asks the same seats
            put_first(column, showable=showable, showable_first=bool(was[0].bit & showable))
        columns.append(tuple(column))
    order = tuple(columns[k % SEATS][k // SEATS] for k in range(SEATS * size))
    return Deal.unchecked(order, first)


def _not_an_action(value: object) -> NotAnAction:
    hint = " (read text with gongzhu.parse_action)" if isinstance(value, str) else ""
    return NotAnAction(
        f"not an action: {value!r} is a {type(value).__name__}, not a Play or a Show{hint}"
    )


def _position(legal: Sequence[Action], action: object) -> int:
    """Where ``action`` is among ``legal``: found by identity (one of ``legal`` itself, the
    common case), else by equality; -1 when it is not there."""
    for position, allowed in enumerate(legal):
        if allowed is action:
            return position
    for position, allowed in enumerate(legal):
        if allowed == action:
            return position
    return -1


def _seat(seat: object) -> int:
    """``seat`` when it is a seat 0-3 (an ``int``, not a ``bool``), else :class:`InvalidSeat`.

    Checked so that ``-1`` does not read seat 3 from the end of a list.
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < SEATS:
        raise InvalidSeat(f"seat must be 0-3, not {seat!r}")
    return seat


def _rebuild_hand(
    rules: Rules,
    deal: Sequence[int],
    first_seat: int,
    seed: int | None,
    leader: int | None,
    engine: str,
    actions: Sequence[str],
) -> HandState:
    """Unpickle a :class:`HandState`: deal it again and replay its actions.

    The hand runs on the engine it was pickled with when this process has it
    (a pure-Python process unpickling a C engine's hand uses the ruleset's
    own engine: every engine plays the same hands).
    """
    names = {spec.name for spec in rules.engines}
    state = rules.new_hand(
        seed,
        deal=Deal(tuple(map(Card.from_index, deal)), first_seat),
        leader=leader,
        engine=engine if engine in names else None,
    )
    for text in actions:
        state.apply(parse_action(text))
    return state


_new_state: Final = object.__new__

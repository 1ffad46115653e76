"""The hand state machine: deal → (首明) → show → play → over.

:class:`HandState` is OpenSpiel-shaped: :meth:`~HandState.legal_actions`,
:meth:`~HandState.apply`, :meth:`~HandState.clone`, per-seat
:meth:`~HandState.view`.  The show phases and scoring live here; the play
phase is run by the ruleset's play engine (a :class:`~gongzhu.play.PlayEngine`
chosen when the ruleset was built, see :mod:`gongzhu.play`), which holds
each seat's cards as a card mask and applies the compiled
:class:`~gongzhu.play.PlayConfig`.  No plug-in hook runs for a card play.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, cast

from .actions import Action, Play, Show, ShowKind, parse_action, play_of_key
from .cards import Card
from .deal import SEATS, Deal, dealt_masks
from .engine import add_copy, cards_of_mask, subtract_copies
from .engines import ACCELERATED
from .errors import HandNotOver, IllegalAction, InvalidCard, InvalidHoldings, InvalidSeat
from .play import ILLEGAL, EngineSpec
from .scorer import Outcome
from .scoring import ScoreSheet, ShowRecord, show_record
from .view import Phase, PublicShow, SeatView, Trick

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["ACCELERATED", "RECORD_FORMAT", "HandState", "Phase"]

_PLAY: Final = Phase.PLAY
_BITS: Final = tuple(1 << i for i in range(52))
_INDEX: Final = attrgetter("index")
_ROUND_FROM: Final = tuple(tuple((first + k) % 4 for k in range(4)) for first in range(4))
"""The seats in playing order from each seat."""
_AUTO_SHOWS: dict[int, Show] = {}
"""Auto-show's open shows by card mask, made once (at most one per set of showable cards)."""

RECORD_FORMAT: Final = "gongzhu-hand/1"
"""The ``format`` field of hand records written by :meth:`HandState.to_record`."""


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
        "_core",
        "_deal",
        "_dealt",
        "_forced_lead",
        "_history",
        "_legal",
        "_pending",
        "_redeal_from",
        "_shown_bits",
        "_shows",
        "_to_move",
        "_trick_objects",
        "_tricks",
        "engine",
        "explicit_leader",
        "is_over",
        "leader",
        "phase",
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
        # the seats' card masks, when the caller has them already (Deal._shuffled)
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
        self._history: list[tuple[int, Action]] = []
        self._tricks: list[tuple[int, tuple[int, ...], int, int]] = []
        self._trick_objects: list[Trick] = []
        spec = rules.engine if engine is None else engine
        self.engine: EngineSpec = spec
        """The play engine this hand runs on (one of the ruleset's :attr:`~Rules.engines`)."""
        self._core = spec.factory(rules.play_config, holdings, self._history, self._tricks)
        self._shows: list[tuple[int, Show, bool]] = []
        self._shown_bits = [0, 0, 0, 0]
        self._legal: tuple[Action, ...] | None = None
        self.phase: Phase = Phase.SHOW
        """The hand's phase."""
        self.is_over: bool = False
        """Whether every card has been played (read-only)."""
        self._to_move: int | None = leader
        if rules.first_shows:
            in_deal_order = [(deal.first_seat + k) % SEATS for k in range(SEATS)]
            self._pending = [seat for seat in in_deal_order if self._first_holding(seat)]
            if self._pending:
                self.phase = Phase.FIRST_SHOW
                self._to_move = self._pending[0]
                return
        self._start_show_phase()

    @staticmethod
    def _deal_masks(deal: Deal) -> list[int]:
        """Each seat's dealt cards as a card mask (a second copy at bit ``52 + index``)."""
        return dealt_masks(list(map(_INDEX, deal.order)), deal.first_seat)

    # -- public state ---------------------------------------------------------------

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
        return self._to_move

    def holding(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, in card order.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        return cards_of_mask(self._core.hands[_seat(seat)])

    def hand(self, seat: int) -> tuple[Card, ...]:
        """Deprecated alias of :meth:`holding`."""
        warnings.warn(
            "HandState.hand is deprecated; use HandState.holding", DeprecationWarning, stacklevel=2
        )
        return self.holding(seat)

    def dealt(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` was dealt, in card order.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        return cards_of_mask(self._dealt[_seat(seat)])

    def taken(self, seat: int) -> tuple[Card, ...]:
        """Every card ``seat`` has taken in tricks (penalties included), in card order.

        :raises InvalidSeat: ``seat`` is not a seat 0-3.
        """
        return cards_of_mask(self._core.taken[_seat(seat)])

    @property
    def shown(self) -> Mapping[int, tuple[Card, ...]]:
        """Seat -> every card it has shown so far, of any kind (secret sales included)."""
        out: dict[int, tuple[Card, ...]] = {seat: () for seat in range(SEATS)}
        for seat, show, _forced in self._shows:
            out[seat] = tuple(sorted(out[seat] + show.cards))
        return out

    @property
    def show_records(self) -> tuple[ShowRecord, ...]:
        """Every shown card with its seat and kind, in the order shown."""
        return tuple(
            show_record(seat, card, show.kind)
            for seat, show, _ in self._shows
            for card in show.cards
        )

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order."""
        made = self._trick_objects
        if len(made) < len(self._tricks):  # build each Trick once, as tricks complete
            made.extend(self._make_trick(*t) for t in self._tricks[len(made) :])
        return tuple(made)

    @property
    def current_trick(self) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        """``(seat, cards)`` played so far in the trick under way."""
        return self._trick_plays(self.trick_leader, self._core.trick)

    @property
    def trick_keys(self) -> tuple[int, ...]:
        """The plays of the trick under way as play keys (:attr:`Play.key <gongzhu.Play.key>`).

        The cheap form of :attr:`current_trick` for playout policies: the
        seats follow from :attr:`trick_leader`.
        """
        return tuple(self._core.trick)

    @property
    def trick_leader(self) -> int:
        """The seat that leads (or led) the trick under way."""
        playing = self.phase is _PLAY or self.phase is Phase.OVER
        return self._core.trick_leader if playing else self.leader

    @property
    def history(self) -> tuple[tuple[int, Action], ...]:
        """Every action applied, with its seat, in order."""
        return tuple(self._history)

    def __repr__(self) -> str:
        return (
            f"<HandState {self.rules!r} phase={self.phase.value} "
            f"to_move={self._to_move} tricks={len(self._tricks)}>"
        )

    # -- the step API ---------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to move, in a stable order (empty when over)."""
        legal = self._legal
        if legal is None:
            if self.phase is _PLAY:
                legal = self._legal = self._core.legal()
            else:
                legal = self._legal = self._legal_shows()
        return legal

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the seat to move.

        Accepts any value equal to a legal action (``Play.parse("QS")``).

        :raises IllegalAction: naming the action and the rule it breaks; the
            state is left unchanged.
        """
        if self.phase is _PLAY:
            if type(action) is not Play:
                raise IllegalAction(
                    action, self._to_move, "it is the play phase: play a card (Play)"
                )
            seat = self._core.play(action.key)
            if seat < 0:
                if seat == ILLEGAL:
                    refusal = self._core.refusal(action)
                    why = "the play engine refused it" if refusal is None else refusal.message
                    raise IllegalAction(action, self._to_move, why, refusal)
                self._end()
            else:
                self._to_move = seat
            self._legal = None
        elif self.phase is Phase.OVER:
            raise IllegalAction(action, None, "the hand is over")
        else:
            self._show(action)

    def clone(self) -> HandState:
        """An independent copy of this state (for search)."""
        new = _new_state(type(self))
        # immutable values, shared
        new.rules = self.rules
        new._deal = self._deal
        new._redeal_from = self._redeal_from
        new.seed = self.seed
        new.engine = self.engine
        new.explicit_leader = self.explicit_leader
        new.leader = self.leader
        new.phase = phase = self.phase
        new.is_over = self.is_over
        new._to_move = self._to_move
        new._legal = self._legal
        new._dealt = self._dealt
        new._forced_lead = self._forced_lead
        # what play appends to, copied
        new._history = history = self._history[:]
        new._tricks = tricks = self._tricks[:]
        new._trick_objects = self._trick_objects[:]
        new._core = self._core.copy(history, tricks)
        # what only the show phases change: shared once play has begun
        if phase is _PLAY or phase is Phase.OVER:
            new._shows = self._shows
            new._shown_bits = self._shown_bits
            new._pending = self._pending
        else:
            new._shows = self._shows[:]
            new._shown_bits = self._shown_bits[:]
            new._pending = self._pending[:]
        return new

    def with_holdings(self, holdings: Sequence[Iterable[Card]]) -> HandState:
        """A copy of this state in which each seat holds ``holdings[seat]`` now.

        For determinised search (:class:`gongzhu.bots.sampler.Determinizer`
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
        it now), as a sampler that keeps to :func:`gongzhu.bots.sampler.voids`
        does.  An engine without ``redeal`` gets the history replayed on the
        new deal instead, which checks it.

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
        if self.phase is not _PLAY:
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
        now = self._core.hands
        _check_same_cards(masks, now, copies)
        for seat in range(SEATS):
            # the shown copies a seat holds: min(shown, held), as a seat plays an
            # unshown copy first; the history fixed them, so they may not change
            shown = self._shown_bits[seat]
            if shown & now[seat] != shown & masks[seat]:
                change = (shown & now[seat]) ^ (shown & masks[seat])
                which = ", ".join(map(str, cards_of_mask(change & ((1 << 52) - 1))))
                if copies == 1:
                    raise InvalidHoldings(f"seat {seat} has shown {which} and must keep it")
                raise InvalidHoldings(
                    f"seat {seat} has shown {which}: how many shown copies it holds may not change"
                )
        forced = self._forced_lead if not self._tricks and not self._core.trick else 0
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
                _add_copies(subtract_copies(d, h), m)
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
        if not hasattr(self._core, "redeal"):
            if deal is None:
                deal = _redealt(self.deal, self._dealt, dealt, first_class)
            return self._replayed(deal, explicit)
        new = self.clone()
        try:
            cast(Any, new._core).redeal(masks)  # an optional engine method (checked above)
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
        new = self.rules.new_hand(deal=deal, leader=leader, engine=self.engine.name)
        for index, (_seat, action) in enumerate(self._history):
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
                self.engine.name,
                tuple(str(action) for _seat, action in self._history),
            ),
        )

    def _end(self) -> None:
        self._to_move = None
        self.phase = Phase.OVER
        self.is_over = True

    # -- the show phases ---------------------------------------------------------------

    def _first_holding(self, seat: int) -> tuple[Card, ...]:
        card = self.deal.first_card(seat)
        return (card,) if card.bit & self.rules.showable_mask else ()

    def _start_show_phase(self) -> None:
        self.phase = Phase.SHOW
        self._pending = list(_ROUND_FROM[self.leader])
        self._to_move = self.leader

    def _held_showable(self, seat: int) -> tuple[Card, ...]:
        return cards_of_mask(self._held_showable_mask(seat))

    def _held_showable_mask(self, seat: int) -> int:
        # asked before play only, when each seat holds what it was dealt
        held = self._dealt[seat] & self.rules.showable_mask
        if held >> 52:  # a second copy held (two decks)
            return subtract_copies(held, self._shown_bits[seat])
        return held & ~self._shown_bits[seat]

    def _legal_shows(self) -> tuple[Action, ...]:
        seat = self._to_move
        if seat is None:
            return ()
        rules = self.rules
        if self.phase is Phase.FIRST_SHOW:
            return rules.show_choices(self._first_holding(seat), ShowKind.FIRST)
        return rules.show_choices_for_mask(self._held_showable_mask(seat))

    def _show(self, action: Action) -> None:
        seat = self._to_move
        assert seat is not None
        legal_shows = self.legal_actions()
        for legal in legal_shows:
            if legal is action:  # the common case: one of legal_actions() itself
                break
        else:
            for legal in legal_shows:
                if legal == action:
                    action = legal
                    break
            else:
                raise IllegalAction(action, seat, self._why_bad_show(action, seat))
        self._history.append((seat, action))
        assert isinstance(action, Show)
        if action.cards:
            self._shows.append((seat, action, False))
            shown = self._shown_bits[seat]
            for card in action.cards:
                shown = add_copy(shown, card.index)
            self._shown_bits[seat] = shown
        self._pending.pop(0)
        self._legal = None
        if self._pending:
            self._to_move = self._pending[0]
        elif self.phase is Phase.FIRST_SHOW:
            self._start_show_phase()
        else:
            self._start_play_phase()

    def _why_bad_show(self, action: Action, seat: int) -> str:
        rules = self.rules
        if not isinstance(action, Show):
            return f"it is the {self.phase.value} phase: each seat takes one Show"
        if self.phase is Phase.FIRST_SHOW and action.kind is not ShowKind.FIRST:
            return "in the 首明 phase a seat first-shows its first card or not (first-show ...)"
        if self.phase is Phase.SHOW and action.kind is ShowKind.FIRST:
            return "首明 is decided on the first dealt card only, before the rest of the deal"
        if action.kind not in rules.show_kinds:
            return f"{' + '.join(rules.names)} has no {action.kind.value} shows"
        for card in action.cards:
            if not card.bit & rules.showable_mask:
                return f"{card} is not a showable card"
        holding = (
            self._first_holding(seat)
            if self.phase is Phase.FIRST_SHOW
            else self._held_showable(seat)
        )
        for card in action.cards:
            if action.cards.count(card) > holding.count(card):
                return f"seat {seat} does not hold {card} (or has shown it already)"
        return f"{' + '.join(rules.names)} forbids this show for a seat holding " + (
            " ".join(map(str, sorted(holding))) or "no showable card"
        )

    def _start_play_phase(self) -> None:
        rules = self.rules
        bits = self._shown_bits
        threshold = rules.auto_show_threshold
        shown = bits[0].bit_count() + bits[1].bit_count() + bits[2].bit_count()
        if threshold and shown + bits[3].bit_count() >= threshold:
            for seat in range(SEATS):
                rest = self._held_showable_mask(seat)
                if rest:
                    show = _AUTO_SHOWS.get(rest)
                    if show is None:
                        show = _AUTO_SHOWS[rest] = Show(cards_of_mask(rest))
                    self._shows.append((seat, show, True))
                    bits[seat] |= rest
        locked = [0, 0, 0, 0]
        lock = rules.shown_card_lock
        if lock is not None:
            for seat, show, _ in self._shows:
                if show.kind not in lock.exempt:
                    for card in show.cards:
                        locked[seat] = add_copy(locked[seat], card.index)
        self.phase = Phase.PLAY
        self._pending = []
        self._core.start(
            self.leader, self._forced_lead, locked, self.show_records if self._shows else ()
        )
        self._to_move = self.leader
        self._legal = None

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
        if self.phase is Phase.FIRST_SHOW:
            holding = (self.deal.first_card(seat),)
            sizes = (1, 1, 1, 1)
        else:
            holding = self.holding(seat)
            sizes = tuple(h.bit_count() for h in self._core.hands)
        shows = []
        for who, show, forced in self._shows:
            hidden = show.kind is ShowKind.SECRET and who != seat
            shows.append(
                PublicShow(who, show.kind, len(show.cards), None if hidden else show.cards, forced)
            )
        return SeatView(
            seat=seat,
            phase=self.phase,
            holding=holding,
            holding_sizes=sizes,
            shows=tuple(shows),
            tricks=self.tricks,
            current_trick=self.current_trick,
            leader=self.trick_leader,
            to_move=self._to_move,
            legal_actions=self.legal_actions() if seat == self._to_move else (),
        )

    def _require_over(self) -> None:
        if self.phase is not Phase.OVER:
            raise HandNotOver(f"the hand is in the {self.phase.value} phase; it is not over")

    def returns(self) -> tuple[int, ...]:
        """The final (normalised) scores of the finished hand, without the score sheet.

        Equal to ``score().final``; computed straight from the card masks
        when the ruleset's scoring pipeline is the core's.

        :raises HandNotOver: while cards remain to be played.
        """
        self._require_over()
        scorer = self.rules.scorer
        if scorer.compiled is None:
            return self.outcome().final
        return scorer.normalise(self._compiled_raw())

    def outcome(self) -> Outcome:
        """The final scores, and whether some seat made full hearts or a slam.

        The numbers of :meth:`score` without its explanation: from the card
        masks by the ruleset's :class:`~gongzhu.scoring.CompiledScorer` when
        its pipeline is the core's, else through the pipeline.

        :raises HandNotOver: while cards remain to be played.
        """
        self._require_over()
        scorer = self.rules.scorer
        compiled = scorer.compiled
        if compiled is None:
            return scorer.outcome(*self._scoring_inputs())
        taken = self._core.taken
        copies = scorer.table.copies
        return Outcome(
            scorer.normalise(self._compiled_raw()),
            compiled.full_hearts(taken, copies),
            compiled.slam(taken, copies),
        )

    def raw_scores(self) -> tuple[int, ...]:
        """The raw scores of the finished hand: ``score().raw`` without the sheet.

        :raises HandNotOver: while cards remain to be played.
        """
        self._require_over()
        scorer = self.rules.scorer
        if scorer.compiled is not None:
            return self._compiled_raw()
        ctx = scorer.pipeline(*self._scoring_inputs(), explain=False)
        return tuple(tally.total for tally in ctx.seats)

    def _compiled_raw(self) -> tuple[int, ...]:
        """The raw scores by the ruleset's compiled scorer (which it must have)."""
        scorer = self.rules.scorer
        compiled = scorer.compiled
        assert compiled is not None
        taken = self._core.taken
        if scorer.table.copies == 1:
            factors: dict[int, int] = {}
            table = scorer.table.show_factors
            for _seat, show, _forced in self._shows:
                factor = table[show.kind]
                for card in show.cards:
                    bit = 1 << card.index
                    factors[bit] = factors.get(bit, 1) * factor
            return scorer.compiled_raw(taken, self._dealt, factors)
        shown_taken = self._core.shown_taken()
        return scorer.compiled_raw_copies(taken, self._dealt, self.show_records, shown_taken)

    def play_out(self, random: Callable[[], float]) -> None:
        """Play the hand to its end with uniformly random legal actions (the bulk API).

        ``random`` returns floats in [0, 1): one draw picks each show (the
        ``int(r * n)``-th legal one) and each card (the play engine's
        ``random_playout``, inside the engine: no action objects per card).
        Used by :func:`gongzhu.simulate`; the same draws give the same hand
        on every engine.
        """
        while self.phase is not _PLAY and self.phase is not Phase.OVER:
            legal = self.legal_actions()
            self._show(legal[int(random() * len(legal))])
        if self.phase is _PLAY:
            self._core.random_playout(random)
            self._legal = None
            self._end()

    def greedy_play_out(self, values: Sequence[int], random: Callable[[], float]) -> bool:
        """Play the hand to its end inside the play engine with the greedy playout policy.

        The policy is :func:`gongzhu.bots.search.greedy_rollout_policy`,
        choice for choice and draw for draw (the tests compare them); search
        bots use this to play sampled hands out fast.  Engines offer it as
        ``greedy_playout(values, random)`` on their state (the one-deck C
        engine does).

        :param values: each card's base value, by card index (52 ints).
        :param random: returns floats in [0, 1), drawn as the policy draws them.
        :returns: ``True`` once the hand is over; ``False``, having played
            nothing, when the engine has no greedy playout or the hand is not
            in its play phase.
        """
        if self.phase is not _PLAY:
            return False
        playout = getattr(self._core, "greedy_playout", None)
        if playout is None:
            return False
        try:
            playout(values, random)
        finally:
            self._legal = None
            seat = self._core.seat
            if seat < 0:
                self._end()
            else:
                self._to_move = seat
        return True

    def score(self) -> ScoreSheet:
        """The score sheet of the finished hand.

        Its numbers come from the ruleset's compiled scorer when it has one;
        its explanation (:attr:`~gongzhu.scoring.ScoreSheet.lines`) is built
        by the scoring pipeline when first read.

        :raises HandNotOver: while cards remain to be played.
        """
        self._require_over()
        scorer = self.rules.scorer
        if scorer.compiled is None:
            return self._explained_sheet()
        return scorer.sheet_from_masks(
            self._compiled_raw(), self._core.taken, self.show_records, self._explained_lines
        )

    def _explained_lines(self) -> tuple[tuple[str, ...], ...]:
        return self._explained_sheet().lines

    def _explained_sheet(self) -> ScoreSheet:
        """The sheet by the scoring pipeline, explanation and all."""
        notes: list[list[str]] = [[], [], [], []]
        is_scoring = self.rules.table.is_scoring
        for number, (_, keys, winner, taker) in enumerate(self._tricks, 1):
            if taker != winner:
                cards = [card for key in keys for card in play_of_key(key).cards]
                points = " ".join(c.symbol for c in sorted(cards) if is_scoring(c)) or "none"
                notes[taker].append(
                    f"垫牌 penalty: took trick {number}'s scoring cards ({points}) "
                    f"from seat {winner}"
                )
        taken, shows, dealt, shown_taken = self._scoring_inputs()
        return self.rules.scorer.sheet(taken, shows, dealt, shown_taken, notes)

    def _scoring_inputs(
        self,
    ) -> tuple[
        list[tuple[Card, ...]],
        tuple[ShowRecord, ...],
        tuple[tuple[Card, ...], ...],
        list[list[ShowRecord]] | None,
    ]:
        """What the scoring pipeline reads of this hand: captures, shows, deal, shown copies."""
        scoring = self.rules.table.scoring_mask  # the pipeline reads nothing else of captures
        return (
            [cards_of_mask(taken & scoring) for taken in self._core.taken],
            self.show_records,
            tuple(self.dealt(s) for s in range(SEATS)),
            self._core.shown_taken(),
        )

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
            f"the holdings list {card} {given[card]} time(s); the seats hold it "
            f"{held_now[card]} time(s) now: the holdings must be the same cards"
        )


def _add_copies(a: int, b: int) -> int:
    """Per card, the copies of ``a`` and ``b`` together (two-deck masks holding at most two)."""
    for card in cards_of_mask(b):
        a = add_copy(a, card.index)
    return a


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
            wanted = bool(was[0].bit & showable)
            at = next(i for i, c in enumerate(column) if bool(c.bit & showable) == wanted)
            column[0], column[at] = column[at], column[0]
        columns.append(tuple(column))
    order = tuple(columns[k % SEATS][k // SEATS] for k in range(SEATS * size))
    return Deal._trusted(order, first)


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

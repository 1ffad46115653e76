"""The hand state machine: deal → (首明) → show → play → over.

:class:`HandState` is OpenSpiel-shaped: :meth:`~HandState.legal_actions`,
:meth:`~HandState.apply`, :meth:`~HandState.clone`, per-seat
:meth:`~HandState.view`.  Internally a hand is a few integers: each seat's
cards are a 52-bit mask (bit :attr:`Card.index <gongzhu.cards.Card.index>`),
and the legal set is computed with mask arithmetic from data the ruleset
compiled when it was built.  No plug-in hook runs for a card play.

Play-engine plug-ins (two-deck pairs) subclass :class:`HandState` and override
its engine methods: :meth:`~HandState._deal_masks`,
:meth:`~HandState._legal_play_mask`, :meth:`~HandState._plays_from_mask`,
:meth:`~HandState._play_key`, :meth:`~HandState._finish_trick` and
:meth:`~HandState._random_playout`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from .actions import SINGLE_PLAYS, Action, Play, Show, ShowKind
from .cards import Card, Suit
from .errors import HandNotOver, IllegalAction
from .plugin import SEATS, Deal
from .scoring import ScoreSheet, ShowRecord
from .view import Phase, PublicShow, SeatView, Trick

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["HandState", "Phase"]

SUIT_MASKS: Final = tuple(0x1FFF << (13 * s) for s in range(4))
FULL_MASK: Final = (1 << 52) - 1
_SUIT_OF: Final = tuple(i // 13 for i in range(52))
_CHUNK_PLAYS: Final[list[list[tuple[Play, ...] | None]]] = [[None] * 8192 for _ in range(4)]

_PLAY: Final = Phase.PLAY

RECORD_FORMAT: Final = "gongzhu-hand/1"
"""The ``format`` field of hand records written by :meth:`HandState.to_record`."""


def _suit_plays(suit: int, chunk: int) -> tuple[Play, ...]:
    base = 13 * suit
    plays = tuple(SINGLE_PLAYS[base + r] for r in range(13) if chunk >> r & 1)
    _CHUNK_PLAYS[suit][chunk] = plays
    return plays


_SPADES, _HEARTS, _DIAMONDS, _CLUBS = _CHUNK_PLAYS


def plays_of_mask(mask: int) -> tuple[Play, ...]:
    """The single-card plays of every card in ``mask``, in card order (memoised per suit)."""
    out: tuple[Play, ...] = ()
    chunk = mask & 0x1FFF
    if chunk:
        out = _SPADES[chunk] or _suit_plays(0, chunk)
    chunk = mask >> 13 & 0x1FFF
    if chunk:
        out += _HEARTS[chunk] or _suit_plays(1, chunk)
    chunk = mask >> 26 & 0x1FFF
    if chunk:
        out += _DIAMONDS[chunk] or _suit_plays(2, chunk)
    chunk = mask >> 39
    if chunk:
        out += _CLUBS[chunk] or _suit_plays(3, chunk)
    return out


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of ``mask`` (single-deck bits), in card order."""
    return tuple(play.cards[0] for play in plays_of_mask(mask))


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class HandState:
    """One hand of gongzhu being played.  Create it with :meth:`Rules.new_hand`.

    Seats are 0-3 in playing order.  A rejected action raises
    :class:`~gongzhu.errors.IllegalAction` and leaves the state unchanged.
    """

    __slots__ = (
        "_dealt",
        "_discard_penalty",
        "_first_of_suit",
        "_forced_lead",
        "_hands",
        "_history",
        "_legal",
        "_legal_mask",
        "_lifted",
        "_locked",
        "_offenders",
        "_pending",
        "_preferred",
        "_shown_bits",
        "_shows",
        "_taken",
        "_trick",
        "_trick_leader",
        "_tricks",
        "_unled",
        "deal",
        "explicit_leader",
        "leader",
        "phase",
        "rules",
        "seat_to_move",
        "seed",
    )

    def __init__(self, rules: Rules, deal: Deal, *, seed: int | None, leader: int | None) -> None:
        self.rules = rules
        self.deal = deal
        self.seed = seed
        self.explicit_leader = leader
        hands = self._deal_masks(deal)
        self._hands = hands
        self._dealt = tuple(hands)
        if leader is None:
            lead = rules.opening_lead(deal)
            leader = lead.seat
            self._forced_lead = 0 if lead.card is None else lead.card.bit
        else:
            self._forced_lead = 0
        self.leader: int = leader
        """The seat that leads the first trick."""
        self._history: list[tuple[int, Action]] = []
        self._shows: list[tuple[int, Show, bool]] = []
        self._shown_bits = [0, 0, 0, 0]
        self._taken = [0, 0, 0, 0]
        self._tricks: list[tuple[int, tuple[int, ...], int, int]] = []
        self._trick: list[int] = []
        self._trick_leader = leader
        self._unled = FULL_MASK
        self._first_of_suit = False
        self._locked = [0, 0, 0, 0]
        self._lifted = [False, False, False, False]
        self._offenders: list[int] = []
        self._preferred = rules.preferred_discard_masks
        self._discard_penalty = rules.discard_penalty
        self._legal: tuple[Action, ...] | None = None
        self._legal_mask = -1
        self.phase: Phase = Phase.SHOW
        self.seat_to_move: int | None = leader
        if rules.first_shows:
            in_deal_order = [(deal.first_seat + k) % SEATS for k in range(SEATS)]
            self._pending = [seat for seat in in_deal_order if self._first_holding(seat)]
            if self._pending:
                self.phase = Phase.FIRST_SHOW
                self.seat_to_move = self._pending[0]
                return
        self._start_show_phase()

    def _deal_masks(self, deal: Deal) -> list[int]:
        """Each seat's dealt cards as a mask (the single-deck engine: bit ``card.index``)."""
        hands = [0, 0, 0, 0]
        seat = deal.first_seat
        for card in deal.order:
            hands[seat] |= 1 << card.index
            seat = (seat + 1) & 3
        return hands

    # -- public state ---------------------------------------------------------------

    @property
    def current_seat(self) -> int | None:
        """The seat to act, or ``None`` once the hand is over."""
        return self.seat_to_move

    @property
    def is_over(self) -> bool:
        """Whether every card has been played."""
        return self.phase is Phase.OVER

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, in card order."""
        return cards_of_mask(self._hands[seat])

    def dealt(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` was dealt, in card order."""
        return cards_of_mask(self._dealt[seat])

    def captured(self, seat: int) -> tuple[Card, ...]:
        """Every card ``seat`` has taken in tricks (penalties included), in card order."""
        return cards_of_mask(self._taken[seat])

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
            ShowRecord(seat, card, show.kind)
            for seat, show, _ in self._shows
            for card in show.cards
        )

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order."""
        return tuple(self._make_trick(*t) for t in self._tricks)

    @property
    def current_trick(self) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        """``(seat, cards)`` played so far in the trick under way."""
        return self._trick_plays(self._trick_leader, self._trick)

    @property
    def trick_leader(self) -> int:
        """The seat that leads (or led) the trick under way."""
        return self._trick_leader

    @property
    def history(self) -> tuple[tuple[int, Action], ...]:
        """Every action applied, with its seat, in order."""
        return tuple(self._history)

    def __repr__(self) -> str:
        return (
            f"<HandState {self.rules!r} phase={self.phase.value} "
            f"to_move={self.seat_to_move} tricks={len(self._tricks)}>"
        )

    # -- the step API ---------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to move, in a stable order (empty when over)."""
        legal = self._legal
        if legal is None:
            if self.phase is _PLAY:
                mask = self._legal_mask
                if mask < 0:
                    mask = self._legal_mask = self._legal_play_mask()
                legal = self._plays_from_mask(mask)
            else:
                legal = self._legal_shows()
            self._legal = legal
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
                    action, self.seat_to_move, "it is the play phase: play a card (Play)"
                )
            legal = self._legal_mask
            if legal < 0:
                legal = self._legal_mask = self._legal_play_mask()
            key = action.key
            if key < 0 or not legal >> key & 1:
                raise IllegalAction(action, self.seat_to_move, self._why_illegal(action))
            self._play_key(key)
        elif self.phase is Phase.OVER:
            raise IllegalAction(action, None, "the hand is over")
        else:
            self._show(action)

    def clone(self) -> HandState:
        """An independent copy of this state (for search)."""
        new = object.__new__(type(self))
        for name in _SHARED:
            setattr(new, name, getattr(self, name))
        new._hands = self._hands[:]
        new._history = self._history[:]
        new._shows = self._shows[:]
        new._shown_bits = self._shown_bits[:]
        new._taken = self._taken[:]
        new._tricks = self._tricks[:]
        new._trick = self._trick[:]
        new._locked = self._locked[:]
        new._lifted = self._lifted[:]
        new._offenders = self._offenders[:]
        new._pending = self._pending[:]
        return new

    # -- the show phases ---------------------------------------------------------------

    def _first_holding(self, seat: int) -> frozenset[Card]:
        card = self.deal.first_card(seat)
        return frozenset((card,)) if card.bit & self.rules.showable_mask else frozenset()

    def _start_show_phase(self) -> None:
        self.phase = Phase.SHOW
        self._pending = [(self.leader + k) % SEATS for k in range(SEATS)]
        self.seat_to_move = self._pending[0]

    def _held_showable(self, seat: int) -> frozenset[Card]:
        held = self._hands[seat] & self.rules.showable_mask & ~self._shown_bits[seat]
        return frozenset(cards_of_mask(held))

    def _legal_shows(self) -> tuple[Action, ...]:
        seat = self.seat_to_move
        if seat is None:
            return ()
        rules = self.rules
        if self.phase is Phase.FIRST_SHOW:
            return rules.show_choices(self._first_holding(seat), ShowKind.FIRST)
        held = self._hands[seat] & rules.showable_mask & ~self._shown_bits[seat]
        return rules.show_choices_for_mask(held)

    def _show(self, action: Action) -> None:
        seat = self.seat_to_move
        assert seat is not None
        for legal in self.legal_actions():
            if legal is action or legal == action:
                action = legal
                break
        else:
            raise IllegalAction(action, seat, self._why_bad_show(action, seat))
        self._history.append((seat, action))
        assert isinstance(action, Show)
        if action.cards:
            self._shows.append((seat, action, False))
            for card in action.cards:
                self._shown_bits[seat] |= card.bit
        self._pending.pop(0)
        self._legal = None
        if self._pending:
            self.seat_to_move = self._pending[0]
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
            if card not in holding:
                return f"seat {seat} does not hold {card} (or has shown it already)"
        return f"{' + '.join(rules.names)} forbids this show for a seat holding " + (
            " ".join(map(str, sorted(holding))) or "no showable card"
        )

    def _start_play_phase(self) -> None:
        rules = self.rules
        threshold = rules.auto_show_threshold
        if threshold is not None:
            bits = self._shown_bits
            shown_any = bits[0] | bits[1] | bits[2] | bits[3]
            if shown_any.bit_count() >= threshold:
                for seat in range(SEATS):
                    rest = self._hands[seat] & rules.showable_mask & ~shown_any
                    if rest:
                        self._shows.append((seat, Show(cards_of_mask(rest)), True))
                        bits[seat] |= rest
        lock = rules.shown_card_lock
        if lock is not None:
            for seat, show, _ in self._shows:
                if show.kind not in lock.exempt:
                    for card in show.cards:
                        self._locked[seat] |= card.bit
        self.phase = Phase.PLAY
        self._pending = []
        self.seat_to_move = self._trick_leader = self.leader
        self._legal = None
        self._legal_mask = -1

    # -- the play engine (single cards, follow suit) -------------------------------------------

    def _legal_play_mask(self) -> int:
        """The mask of cards the seat to move may play (the single-card engine)."""
        seat = self.seat_to_move
        assert seat is not None
        hand = self._hands[seat]
        trick = self._trick
        locked = self._locked[seat] & hand
        if locked and self._lifted[seat]:
            locked = 0
        if not trick:
            forced = self._forced_lead
            if forced:
                return forced & hand or hand
            legal = hand
            if locked:
                legal &= ~self._lead_lock(hand, locked)
        else:
            suit_mask = SUIT_MASKS[_SUIT_OF[trick[0]]]
            follow = hand & suit_mask
            if follow:
                # a shown card may not follow in its suit's first trick, unless it is the only one
                if locked and self._first_of_suit and follow != locked & follow:
                    return follow & ~locked
                return follow
            legal = hand
            preferred = self._preferred
            if preferred is not None and not self._discard_penalty:
                same_colour = hand & preferred[_SUIT_OF[trick[0]]]
                if same_colour:
                    legal = same_colour
            if locked:
                lock = self.rules.shown_card_lock
                if lock is not None and lock.discard_before_led:
                    legal &= ~(locked & self._unled)
        if legal:
            return legal
        # the shown-card restriction leaves nothing: it lifts (for this play, or the hand)
        lock = self.rules.shown_card_lock
        if lock is not None and lock.stuck == "hand":
            self._lifted[seat] = True
        return hand if not trick else self._legal_ignoring_locks(hand)

    def _lead_lock(self, hand: int, locked: int) -> int:
        lock = self.rules.shown_card_lock
        if lock is None or not lock.first_trick:
            return 0
        blocked = 0
        for index in _bits(locked & self._unled):
            if hand & SUIT_MASKS[_SUIT_OF[index]] != 1 << index:
                blocked |= 1 << index
        return blocked

    def _legal_ignoring_locks(self, hand: int) -> int:
        preferred = self._preferred
        if preferred is not None and not self._discard_penalty:
            same_colour = hand & preferred[_SUIT_OF[self._trick[0]]]
            if same_colour:
                return same_colour
        return hand

    def _plays_from_mask(self, mask: int) -> tuple[Action, ...]:
        """The actions for a legal mask (the single-card engine: one play per card)."""
        return plays_of_mask(mask)

    def _play_key(self, key: int) -> None:
        """Play the (legal) play called ``key`` for the seat to move: the engine's step."""
        seat: int = self.seat_to_move  # type: ignore[assignment]
        bit = 1 << key
        hands = self._hands
        trick = self._trick
        if not trick:
            suit_mask = SUIT_MASKS[_SUIT_OF[key]]
            self._first_of_suit = bool(self._unled & suit_mask)
            self._unled &= ~suit_mask
            self._forced_lead = 0
        elif self._discard_penalty:
            led = _SUIT_OF[trick[0]]
            preferred = self._preferred[led]  # type: ignore[index]
            if (
                not hands[seat] & SUIT_MASKS[led]
                and hands[seat] & preferred
                and not bit & preferred
            ):
                self._offenders.append(seat)
        hands[seat] ^= bit
        trick.append(key)
        self._history.append((seat, SINGLE_PLAYS[key]))
        self._legal = None
        self._legal_mask = -1
        if len(trick) == 4:
            self._finish_trick()
        else:
            self.seat_to_move = (seat + 1) % SEATS

    def _finish_trick(self) -> None:
        trick = self._trick
        first = trick[0]
        top = (_SUIT_OF[first] + 1) * 13
        best = first
        position = 0
        for i in range(1, SEATS):
            card = trick[i]
            if best < card < top:
                best = card
                position = i
        leader = self._trick_leader
        winner = (leader + position) % SEATS
        taker = winner
        offenders = self._offenders
        if offenders:
            discard = self.rules.discard_rule
            taker = (
                offenders[0] if discard is None or discard.offender == "first" else offenders[-1]
            )
            self._offenders = []
        mask = (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | (1 << trick[3])
        self._taken[taker] |= mask
        self._tricks.append((leader, tuple(trick), winner, taker))
        self._trick = []
        self._trick_leader = winner
        if self._hands[winner]:
            self.seat_to_move = winner
        else:
            self.seat_to_move = None
            self.phase = Phase.OVER

    def _why_illegal(self, action: Play) -> str:
        seat: int = self.seat_to_move  # type: ignore[assignment]
        hand = self._hands[seat]
        if len(action.cards) != 1:
            return "a play is one card in single-deck play"
        card = action.cards[0]
        if not hand & card.bit:
            return f"seat {seat} does not hold {card}"
        if not self._trick:
            if self._forced_lead:
                forced = cards_of_mask(self._forced_lead)[0]
                return f"the opening lead must be {forced}"
            return (
                f"{card} was shown and may not be led in the first trick of "
                f"{card.suit.symbol} unless it is the holder's only {card.suit.symbol}"
            )
        led = Suit(_SUIT_OF[self._trick[0]])
        if hand & SUIT_MASKS[led]:
            if card.suit is led:
                return (
                    f"{card} was shown and may not be played in the first trick of "
                    f"{led.symbol} unless it is the holder's only {led.symbol}"
                )
            return f"must follow suit: seat {seat} holds {led.symbol}"
        preferred = self._preferred
        if preferred is not None and hand & preferred[led] and not card.bit & preferred[led]:
            return (
                f"垫牌规则: a seat void in {led.symbol} must discard a card of the same colour "
                f"({'red' if led.is_red else 'black'}) while it holds one"
            )
        return f"{card} was shown and may not be discarded before {card.suit.symbol} has been led"

    # -- records of the past ------------------------------------------------------------------

    def _trick_plays(
        self, leader: int, keys: list[int] | tuple[int, ...]
    ) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        return tuple(((leader + i) % SEATS, SINGLE_PLAYS[key].cards) for i, key in enumerate(keys))

    def _make_trick(self, leader: int, keys: tuple[int, ...], winner: int, taker: int) -> Trick:
        return Trick(leader, self._trick_plays(leader, keys), winner, taker)

    # -- views, scores, records ---------------------------------------------------------------

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own cards, public shows, the tricks played."""
        if seat not in range(SEATS):
            raise ValueError(f"seat must be 0-3, not {seat!r}")
        if self.phase is Phase.FIRST_SHOW:
            hand = (self.deal.first_card(seat),)
            sizes = (1, 1, 1, 1)
        else:
            hand = self.hand(seat)
            sizes = tuple(len(_bits(h)) for h in self._hands)
        shows = []
        for who, show, forced in self._shows:
            hidden = show.kind is ShowKind.SECRET and who != seat
            shows.append(
                PublicShow(who, show.kind, len(show.cards), None if hidden else show.cards, forced)
            )
        return SeatView(
            seat=seat,
            phase=self.phase,
            hand=hand,
            hand_sizes=sizes,
            shows=tuple(shows),
            tricks=self.tricks,
            current_trick=self.current_trick,
            leader=self._trick_leader,
            to_move=self.seat_to_move,
            legal_actions=self.legal_actions() if seat == self.seat_to_move else (),
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
        scorer = self.rules.compiled_scorer
        if scorer is None:
            return self.score().final
        factors: dict[int, int] = {}
        table = self.rules.table.show_factors
        for _seat, show, _forced in self._shows:
            for card in show.cards:
                factors[card.bit] = factors.get(card.bit, 1) * table[show.kind]
        return self.rules.normalize(scorer.raw(self._taken, factors))

    def _random_playout(self, random: Callable[[], float]) -> None:
        """Play the hand to its end with uniformly random legal actions (the bulk API).

        ``random`` returns floats in [0, 1).  Shows go through the show phase
        as usual; plays pick a random set bit of the legal mask.
        """
        while self.phase is not _PLAY and self.phase is not Phase.OVER:
            legal = self.legal_actions()
            self._show(legal[int(random() * len(legal))])
        legal_play_mask = self._legal_play_mask
        play_key = self._play_key
        while self.seat_to_move is not None:
            mask = legal_play_mask()
            skip = int(random() * mask.bit_count())
            while skip:
                mask &= mask - 1
                skip -= 1
            play_key((mask & -mask).bit_length() - 1)

    def score(self) -> ScoreSheet:
        """The score sheet of the finished hand.

        :raises HandNotOver: while cards remain to be played.
        """
        self._require_over()
        notes: list[list[str]] = [[], [], [], []]
        for number, (_, _, winner, taker) in enumerate(self._tricks, 1):
            if taker != winner:
                notes[taker].append(
                    f"垫牌 penalty: took the scoring cards of trick {number} (won by seat {winner})"
                )
        return self.rules._sheet(
            [self.captured(s) for s in range(SEATS)],
            self.show_records,
            tuple(frozenset(self.dealt(s)) for s in range(SEATS)),
            notes,
        )

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record of the hand that :func:`gongzhu.replay` rebuilds."""
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": self.rules.spec(),
            "seed": self.seed,
            "first_seat": self.deal.first_seat,
            "deal": [str(card) for card in self.deal.order],
            "leader": self.explicit_leader,
            "actions": [{"seat": seat, "action": str(action)} for seat, action in self._history],
            "shows": [
                {
                    "seat": seat,
                    "kind": show.kind.value,
                    "cards": [str(c) for c in show.cards],
                    "forced": forced,
                }
                for seat, show, forced in self._shows
            ],
        }
        if self.phase is Phase.OVER:
            sheet = self.score()
            record["result"] = {
                "raw": list(sheet.raw),
                "final": list(sheet.final),
                "captured": [[str(c) for c in cards] for cards in sheet.captured],
            }
        return record


_COPIED_LISTS: Final = frozenset(
    {"_hands", "_history", "_shows", "_shown_bits", "_taken", "_tricks", "_trick"}
    | {"_locked", "_lifted", "_offenders", "_pending"}
)
_SHARED: Final = tuple(name for name in HandState.__slots__ if name not in _COPIED_LISTS)
"""Slots a clone shares with its original: immutable values only."""

"""The show phases of a hand, in pure Python: the part both reference engines share.

:class:`ShowingEngine` plays a hand's 首明 and show phases from the ruleset's
:class:`~gongzhu.showphase.ShowPhase` (the shows of each holding, compiled
once), then auto-show and the shown-card lock, and hands over to the play
phase of its subclass: :class:`~gongzhu.engines.single.SingleEngine` (one
deck) or :class:`~gongzhu.engines.pairs.PairsEngine` (two decks with pairs).
It is the reference that the C engines' show phase (``gongzhu._speedups``)
must agree with, and a base a third party's engine may build on (see
:class:`~gongzhu.play.HandEngine` for the contract).

Everything is integers: card masks, play keys, show choice ids.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Final

from ..actions import ONE_CARD_KEYS, Action, cards_of_key
from ..masks import ALL_CARDS, CardMask, add_copies
from ..play import (
    FIRST_SHOW_PHASE,
    ILLEGAL,
    OVER,
    OVER_PHASE,
    PLAY_PHASE,
    SHOW_PHASE,
    EngineSetup,
    PlayConfig,
)
from ..showphase import ShowPhase

__all__ = [
    "FIRST_SHOW",
    "OVER_PHASE",
    "PLAY",
    "SHOW",
    "ShowingEngine",
    "draw",
    "read_masks",
    "winning_position",
]

FIRST_SHOW: Final = FIRST_SHOW_PHASE
"""The 首明 phase's number (:data:`~gongzhu.play.FIRST_SHOW_PHASE`)."""
SHOW: Final = SHOW_PHASE
"""The show phase's number (:data:`~gongzhu.play.SHOW_PHASE`)."""
PLAY: Final = PLAY_PHASE
"""The play phase's number (:data:`~gongzhu.play.PLAY_PHASE`)."""


def _int_in(value: object, limit: int, message: str) -> int:
    """``value`` as an int (:class:`TypeError` for anything else) in 0 .. limit - 1, else
    :class:`ValueError` (``message``)."""
    number = operator.index(value)  # type: ignore[arg-type]
    if not 0 <= number < limit:
        raise ValueError(message)
    return number


def _seat(value: object, message: str) -> int:
    return _int_in(value, 4, message)


def read_masks(
    holdings: Sequence[CardMask],
    limit: int,
    message: str,
    valid: Callable[[int], bool] | None = None,
) -> list[int]:
    """Four card masks, read one after another as the C engines read them: each an int
    (:class:`TypeError`) in 0 .. limit and, when ``valid`` is given, one it accepts
    (:class:`ValueError`, ``message``), before the next is read."""
    given = tuple(holdings)
    if len(given) != 4:
        raise ValueError(message)
    out = []
    for value in given:
        mask = operator.index(value)
        if not 0 <= mask <= limit or (valid is not None and not valid(mask)):
            raise ValueError(message)
        out.append(mask)
    return out


def winning_position(keys: Sequence[int], pair_beats_unmatched: bool = False) -> int:
    """The position in ``keys`` (a trick's play keys, led first) of the play that wins the
    trick so far: the rule both Python engines finish a trick by, and what
    :func:`gongzhu.implied.trick_winner` answers from.

    Only a play wholly in the led suit can win.  After a single card lead the
    highest card of the led suit wins.  After a pair lead (拱雙豬) the unmatched
    plays outrank the pairs, or with ``pair_beats_unmatched`` the pairs outrank
    the unmatched plays; within a kind the higher top card wins, and of two
    equal plays the earlier.
    """
    first = keys[0]
    if first < ONE_CARD_KEYS:  # a single card led: single cards follow, by key order
        top = (first // 13 + 1) * 13  # the led suit's cards are first <= key < top
        best, position = first, 0
        for n in range(1, len(keys)):
            if best < keys[n] < top:
                best, position = keys[n], n
        return position
    lead = cards_of_key(first)
    pair_lead = len(lead) == 2
    led = lead[0] // 13
    best = -1
    position = 0
    for n, key in enumerate(keys):
        cards = cards_of_key(key)
        if any(card // 13 != led for card in cards):
            continue  # not wholly in the led suit: never wins
        rank = max(cards) % 13
        if pair_lead:  # pairs against unmatched plays: the kind ranks first
            rank += 16 * ((len(cards) == 2 and cards[0] == cards[1]) == pair_beats_unmatched)
        if rank > best:
            best, position = rank, n
    return position


def draw(random: Callable[[], float], n: int) -> int:
    """``int(random() * n)``: one decision among ``n`` choices.

    :raises ValueError: ``random()`` returned anything but a float in [0, 1), or there is
        no choice (``n`` is 0: the seat to move holds no card).
    """
    if n <= 0:
        raise ValueError("the seat to move holds no card")
    r = random()
    if not isinstance(r, float) or not 0.0 <= r < 1.0:
        raise ValueError("random() must return a float in [0, 1)")
    return int(r * n)


class ShowingEngine(ABC):
    """A hand's show phases; subclasses add the play phase.

    :param setup: the ruleset's play configuration and show phase.
    :param holdings: each seat's dealt cards (card masks).
    :param leader: the seat that leads the first trick (and starts the show phase).
    :param forced: the card mask of the card it must lead, or 0.
    :param first_seat: the seat dealt the first card (首明 goes in dealing order).
    :param first_cards: each seat's first dealt card's index, by seat.
    :raises ValueError: a leader or first seat that is not a seat 0-3, a forced
        mask that is not one card, first cards that are not four card indices.

    Subclasses implement ``_start_play()`` (set up the first trick, from
    :attr:`leader`, :attr:`forced` and :attr:`locked`), ``_legal_plays()``,
    ``play(key)``, ``refusal(key)``, ``_random_plays(random)`` and
    ``_copy_play(new)``, and check ``holdings`` in their constructor.
    """

    __slots__ = (
        "_pending",
        "config",
        "dealt",
        "first_cards",
        "first_seat",
        "forced",
        "holdings",
        "leader",
        "locked",
        "phase",
        "seat",
        "show_log",
        "shown",
        "shows",
    )

    def __init__(
        self,
        setup: EngineSetup,
        holdings: Sequence[CardMask],
        leader: int,
        forced: CardMask,
        first_seat: int,
        first_cards: Sequence[int],
    ) -> None:
        # everything is read and checked before anything is kept (a failed __init__ of an
        # engine in use leaves it as it was)
        leader = _seat(leader, "leader must be a seat 0-3")
        first_seat = _seat(first_seat, "first_seat must be a seat 0-3")
        forced = operator.index(forced)
        if not 0 <= forced <= ALL_CARDS or forced & (forced - 1):
            raise ValueError("forced must be 0 or one card's bit")
        given = tuple(first_cards)
        if len(given) != 4:
            raise ValueError("first_cards: expected four card indices 0-51, by seat")
        firsts = [
            _int_in(c, 52, "first_cards: expected four card indices 0-51, by seat") for c in given
        ]
        self.config: PlayConfig = setup.play
        self.shows: ShowPhase = setup.shows
        self.holdings = list(holdings)  # checked by the subclass
        self.dealt = tuple(self.holdings)
        self.leader = leader
        self.forced = forced
        self.first_seat = first_seat
        self.first_cards = tuple(firsts)
        self.shown = [0, 0, 0, 0]
        self.locked = [0, 0, 0, 0]
        self.show_log: list[tuple[int, int, bool]] = []
        self.phase = FIRST_SHOW
        showable = self.shows.showable
        self._pending: list[int] = []
        if self.shows.first_shows:
            self._pending = [
                seat
                for seat in ((first_seat + k) & 3 for k in range(4))
                if 1 << firsts[seat] & showable
            ]
        if self._pending:
            self.seat = self._pending[0]
        else:
            self._start_show_phase()

    # -- the show phases -------------------------------------------------------------------

    def _start_show_phase(self) -> None:
        self.phase = SHOW
        self._pending = [(self.leader + k) & 3 for k in range(4)]
        self.seat = self.leader

    def _choice_ids(self) -> tuple[int, ...]:
        """The choice ids of the seat to act in a show phase."""
        seat = self.seat
        if self.phase == FIRST_SHOW:
            return self.shows.first[self.first_cards[seat]]
        return self.shows.held[self.shows.holding(self.dealt[seat], self.shown[seat])]

    def legal(self) -> tuple[Action, ...]:
        """The legal actions of the seat to act (see :meth:`HandEngine.legal
        <gongzhu.play.HandEngine.legal>`)."""
        phase = self.phase
        if phase == PLAY:
            return self._legal_plays()
        if phase == OVER_PHASE:
            return ()
        shows = self.shows
        seat = self.seat
        if phase == FIRST_SHOW:
            return shows.first_shows_of(self.first_cards[seat])
        return shows.held_shows(shows.holding(self.dealt[seat], self.shown[seat]))

    def legal_mask(self) -> CardMask:
        """The cards of the legal plays (see :meth:`HandEngine.legal_mask
        <gongzhu.play.HandEngine.legal_mask>`), here read off :meth:`_legal_plays`;
        the reference engines work it out faster.

        :raises ValueError: the hand is not in its play phase.
        """
        if self.phase != PLAY:
            raise ValueError("legal_mask: not in the play phase")
        mask = 0
        for play in self._legal_plays():
            for card in play.cards:
                mask |= 1 << card.index
        return mask

    def show(self, choice: int) -> int:
        """Take show number ``choice`` of :meth:`legal`: the next seat, or
        :data:`~gongzhu.play.ILLEGAL` outside a show phase or out of range."""
        if self.phase > SHOW or type(choice) is not int:
            return ILLEGAL
        ids = self._choice_ids()
        if not 0 <= choice < len(ids):
            return ILLEGAL
        self._take_show(ids[choice])
        return self.seat

    def _take_show(self, choice_id: int) -> None:
        seat = self.seat
        self.show_log.append((seat, choice_id, False))
        self._add_show(seat, choice_id)
        pending = self._pending
        pending.pop(0)
        if pending:
            self.seat = pending[0]
        elif self.phase == FIRST_SHOW:
            self._start_show_phase()
        else:
            self._end_show_phase()

    def _add_show(self, seat: int, choice_id: int) -> None:
        choice = self.shows.choices[choice_id]
        if choice.copies:
            self.shown[seat] = add_copies(self.shown[seat], choice.copies)
            if choice.locks:
                self.locked[seat] = add_copies(self.locked[seat], choice.copies)

    def _end_show_phase(self) -> None:
        """Auto-show, then the first trick."""
        shows = self.shows
        threshold = shows.auto_show
        if threshold and sum(mask.bit_count() for mask in self.shown) >= threshold:
            for seat in range(4):
                rest = shows.holding(self.dealt[seat], self.shown[seat])
                if rest:
                    choice_id = shows.forced[rest]
                    self.show_log.append((seat, choice_id, True))
                    self._add_show(seat, choice_id)
        self.phase = PLAY
        self._start_play()

    def random_playout(self, random: Callable[[], float]) -> None:
        """Play to the end from any phase: one draw per decision (see
        :meth:`HandEngine.random_playout <gongzhu.play.HandEngine.random_playout>`)."""
        while self.phase < PLAY:
            ids = self._choice_ids()
            self._take_show(ids[draw(random, len(ids))])
        if self.phase == PLAY:
            self._random_plays(random)

    def shown_cards(self, seat: int) -> CardMask:
        """The cards ``seat`` has shown, of any kind (both copies with two decks)."""
        return self.shown[seat]

    # -- copies --------------------------------------------------------------------------

    def copy(self) -> Any:
        """An independent copy."""
        new = object.__new__(type(self))
        new.config = self.config
        new.shows = self.shows
        new.dealt = self.dealt
        new.leader = self.leader
        new.forced = self.forced
        new.first_seat = self.first_seat
        new.first_cards = self.first_cards
        new.phase = self.phase
        new.seat = self.seat
        new.holdings = self.holdings[:]
        new.shown = self.shown[:]
        new.locked = self.locked[:]
        new.show_log = self.show_log[:]
        new._pending = self._pending[:]
        self._copy_play(new)
        return new

    # -- what subclasses implement --------------------------------------------------------

    @abstractmethod
    def _start_play(self) -> None:
        """Set up the first trick (from :attr:`leader`, :attr:`forced`, :attr:`locked`)."""

    @abstractmethod
    def _legal_plays(self) -> tuple[Action, ...]:
        """The legal plays of the seat to act."""

    @abstractmethod
    def _random_plays(self, random: Callable[[], float]) -> None:
        """Play the tricks to the end, one draw per play."""

    @abstractmethod
    def _copy_play(self, new: Any) -> None:
        """Copy the play phase's state into ``new`` (made by :meth:`copy`)."""

    @abstractmethod
    def play(self, key: int) -> int:
        """Play ``key`` for the seat to act (see :meth:`HandEngine.play
        <gongzhu.play.HandEngine.play>`)."""

    @abstractmethod
    def refusal(self, key: int) -> tuple[int, int] | None:
        """Why play ``key`` is refused (see :meth:`HandEngine.refusal
        <gongzhu.play.HandEngine.refusal>`)."""

    def _finish(self) -> None:
        """The hand is over."""
        self.phase = OVER_PHASE
        self.seat = OVER

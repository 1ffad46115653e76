"""The pure-Python engine for two decks with pairs (``pairs-python``): the reference.

Card masks hold a card's first copy at bit ``index`` and its second copy at
bit ``52 + index`` (:func:`~gongzhu.masks.add_copy`); play keys are card
indices for one card and ``52 + 52·a + b`` for two cards ``a ≤ b``
(:attr:`Play.key <gongzhu.actions.Play.key>`).

The rules it plays (the :class:`~gongzhu.play.PlayConfig` fields ``pairs``
and ``pair_beats_unmatched``, with the shown-card lock and the plug-ins'
play rules), after the show phases of
:class:`~gongzhu.engines.base.ShowingEngine`:

* a lead is one card or an identical pair; with a forced opening card, that
  card, one or both;
* following one card: follow suit;
* following a pair: a pair of the led suit if held; else two cards of the led
  suit; else the one card of the led suit and any card; else any two cards;
* ranking: a play not wholly in the led suit never wins; after a pair lead,
  two unmatched cards of the led suit beat any pair (or, with
  ``pair_beats_unmatched``, the reverse), each kind ranking by its higher
  card; equal plays: the first played wins;
* copies: a seat holding a shown and an unshown copy of a card plays the
  unshown one first; a shown copy scores its factor for whoever takes it
  (:meth:`PairsEngine.shown_taken`);
* the shown-card lock: a shown copy may not be played in the first trick of
  its suit unless it is the holder's only card of that suit (two copies are
  two cards), nor, with ``discard_before_led``, be discarded before its suit
  has been led.

Its C twin is ``gongzhu._speedups.PairsEngine`` (``pairs-c``); the tests
require both to play identical hands from identical random draws.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Final

from ..actions import ONE_CARD_KEYS, Play, cards_of_key, key_of_cards, play_of_key
from ..masks import (
    ALL_CARDS,
    BOTH_COPIES,
    SECOND_COPY,
    SUIT_MASKS,
    CardMask,
    add_copy,
    copies_in,
    indices,
    remove_copy,
)
from ..play import (
    ILLEGAL,
    OVER_DETAIL,
    PLAY_RULE,
    RULE_CODES,
    EngineSetup,
    PlayMoment,
    PlaySituation,
)
from .base import PLAY, ShowingEngine, draw, read_masks, winning_position

__all__ = ["PairsEngine", "cards_of_key", "pair_key", "two_key"]

SUIT_OF: Final = tuple(i // 13 for i in range(52))
SUITS_BOTH: Final = tuple(mask | mask << SECOND_COPY for mask in SUIT_MASKS)
"""Both copies' bits of each suit."""

_HOLDING: Final = RULE_CODES["holding"]
_SHAPE: Final = RULE_CODES["play-shape"]
_OPENING_LEAD: Final = RULE_CODES["opening-lead"]
_FOLLOW_SUIT: Final = RULE_CODES["follow-suit"]
_PAIR_FOLLOW: Final = RULE_CODES["pair-follow"]
_LOCK: Final = RULE_CODES["shown-card-lock"]
_LOCK_COPIES: Final = 3  # LOCK_WHERE: the two-deck lock's sentence
_LEAD_SHAPE, _PAIR_SHAPE, _SINGLE_SHAPE, _ANY_SHAPE = 1, 2, 3, 4  # SHAPES


class _Refused(Exception):
    """Raised inside the cascade when the play being explained is removed (explain mode)."""

    def __init__(self, code: int, detail: int = 0) -> None:
        self.code = code
        self.detail = detail


def pair_key(index: int) -> int:
    """The play key of the pair of card ``index``."""
    return key_of_cards(index, index)


two_key: Final = key_of_cards
"""The play key of two cards (any order): :func:`~gongzhu.actions.key_of_cards`."""


def _valid_key(key: int) -> bool:
    if type(key) is not int or key < 0:
        return False
    if key < ONE_CARD_KEYS:
        return True
    low, high = cards_of_key(key)
    return low <= high < 52


def _checked_masks(holdings: Sequence[CardMask]) -> list[int]:
    """Four two-deck card masks (no second copy without its first), else
    :class:`ValueError` (:class:`TypeError` for one that is not an int)."""
    message = "holdings: expected four two-deck card masks"
    # each checked as it is read (as the C engine reads them): a bad mask is refused
    # before a later one that is not an int
    return read_masks(holdings, BOTH_COPIES, message, valid=lambda hand: not (hand >> 52) & ~hand)


def _copy_counts(hands: Sequence[int]) -> tuple[int, int, int]:
    """Bitwise counters of the copies between ``hands``: ``(ones, twos, over)``.

    Equal for equal multisets of cards; ``over`` has the bit of each card held
    more than twice.
    """
    ones = twos = over = 0
    for hand in hands:
        for bits in (hand & ALL_CARDS, hand >> 52):  # bitwise adders over every copy
            over |= twos & bits
            twos |= ones & bits
            ones ^= bits
    return ones, twos, over


class PairsEngine(ShowingEngine):
    """A two-deck hand with pairs: the reference engine (``pairs-python``).

    Made as :class:`~gongzhu.play.HandEngine` says:
    ``PairsEngine(setup, holdings, leader, forced, first_seat, first_cards)``.
    """

    __slots__ = (
        "_legal_keys",
        "first_of_suit",
        "lift_for_hand",
        "lifted",
        "lock_discards",
        "lock_first",
        "pair_beats_unmatched",
        "play_rules",
        "played",
        "shown_left",
        "taken",
        "taken_shows",
        "trick",
        "trick_leader",
        "trick_log",
        "trick_shows",
        "unled",
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
        checked = _checked_masks(holdings)
        if len({h.bit_count() for h in checked}) != 1:
            raise ValueError("holdings: expected four two-deck card masks of as many cards")
        if _copy_counts(checked)[2]:
            raise ValueError("holdings overlap: a card is held more than twice")
        super().__init__(setup, checked, leader, forced, first_seat, first_cards)
        config = setup.play
        self.lock_first, self.lock_discards, self.lift_for_hand = config.lock_flags
        self.pair_beats_unmatched = config.pair_beats_unmatched
        self.play_rules = config.rules
        self.lifted = [False, False, False, False]
        self.taken = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.trick_log: list[tuple[int, tuple[int, ...], int, int]] = []
        self.unled = ALL_CARDS
        self.played = 0
        self.first_of_suit = False
        self.trick_leader = self.leader
        # per seat, its shown copies not yet played: (card index, kind code), in order shown
        self.shown_left: list[list[tuple[int, int]]] = [[], [], [], []]
        # per seat, the shown copies it took: (seat that showed it, card index, kind code)
        self.taken_shows: list[list[tuple[int, int, int]]] = [[], [], [], []]
        self.trick_shows: list[tuple[int, int, int]] = []
        self._legal_keys: list[int] | None = None

    def _start_play(self) -> None:
        self.trick_leader = self.seat = self.leader
        self._legal_keys = None
        choices = self.shows.choices
        for seat, choice_id, _forced in self.show_log:
            choice = choices[choice_id]
            for card in choice.show.cards:
                self.shown_left[seat].append((card.index, choice.kind_code))

    def _copy_play(self, new: Any) -> None:
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new.lifted = self.lifted[:]
        new.taken = self.taken[:]
        new.trick = self.trick[:]
        new.trick_log = self.trick_log[:]
        new.shown_left = [seat[:] for seat in self.shown_left]
        new.taken_shows = [seat[:] for seat in self.taken_shows]
        new.trick_shows = self.trick_shows[:]
        new._legal_keys = None

    @property
    def trick_count(self) -> int:
        """How many tricks are finished."""
        return len(self.trick_log)

    def redeal(self, holdings: Sequence[CardMask]) -> None:
        """Give each seat ``holdings[seat]`` (a two-deck mask) in place of the cards it holds now.

        For determinised search, in the play phase: the seats keep their counts
        and the copies stay the same between them, only who holds which changes.
        The history is not replayed (the caller answers for its consistency).

        :raises TypeError: a mask is not an int.
        :raises ValueError: not in the play phase; the masks are malformed,
            change a seat's count or the copies held between them; the engine
            is unchanged.
        """
        new = _checked_masks(holdings)
        if self.phase != PLAY:
            raise ValueError("redeal: holdings change in the play phase only")
        if _copy_counts(new) != _copy_counts(self.holdings):
            raise ValueError("redeal: the seats must hold the same cards between them")
        if any(a.bit_count() != b.bit_count() for a, b in zip(new, self.holdings, strict=True)):
            raise ValueError("redeal: each seat must keep its number of cards")
        self.holdings = new
        self._legal_keys = None

    def shown_taken(self) -> list[list[tuple[int, int, int]]]:
        """Per seat, the shown copies it took: ``(seat that showed it, card index, kind
        code)``, in the order taken (each scores its factor for the taker)."""
        return [list(records) for records in self.taken_shows]

    # -- legality: one cascade decides and explains -----------------------------------------

    def _candidates(self, hand: int, why: int) -> list[int]:
        """The plays the lead and follow rules allow (raising :class:`_Refused` for ``why``)."""
        trick = self.trick
        if not trick:
            forced = self.forced
            if forced and hand & forced:
                index = forced.bit_length() - 1
                keys = [index] + ([pair_key(index)] if copies_in(hand, index) == 2 else [])
                if why >= 0 and why not in keys:
                    raise _Refused(_OPENING_LEAD, index)
                return keys
            return indices(hand & ALL_CARDS) + [pair_key(i) for i in indices(hand >> 52)]
        lead = trick[0]
        led = SUIT_OF[cards_of_key(lead)[0]]
        suited = hand & SUITS_BOTH[led]
        if lead < ONE_CARD_KEYS:
            keys = indices((suited or hand) & ALL_CARDS)
            if why >= 0 and why not in keys:
                raise _Refused(_FOLLOW_SUIT, led)
            return keys
        if suited >> 52:  # 1. a pair of the led suit
            keys, step = [pair_key(i) for i in indices(suited >> 52)], 0
        else:
            singles = indices(suited & ALL_CARDS)
            if len(singles) >= 2:  # 2. two cards of the led suit
                keys, step = [two_key(a, b) for a, b in combinations(singles, 2)], 1
            elif singles:  # 3. the one card of the led suit and any other card
                rest = remove_copy(hand, singles[0])
                keys = sorted(two_key(singles[0], other) for other in indices(rest & ALL_CARDS))
                step = 2
            else:  # 4. any two cards
                keys = [two_key(a, b) for a, b in combinations(indices(hand & ALL_CARDS), 2)]
                keys = sorted(keys + [pair_key(i) for i in indices(hand >> 52)])
                step = 3
        if why >= 0 and why not in keys:
            raise _Refused(_PAIR_FOLLOW, led * 4 + step)
        return keys

    def _blocked(self, key: int, hand: int, locked: int) -> bool:
        """Whether ``key`` must use a shown copy the lock withholds now."""
        trick = self.trick
        led = SUIT_OF[cards_of_key(trick[0])[0]] if trick else -1
        cards = cards_of_key(key)
        for index in set(cards):
            needed = cards.count(index)
            free = copies_in(hand, index) - copies_in(locked, index)
            if free >= needed:
                continue
            suit = SUIT_OF[index]
            unled = bool(self.unled & SUIT_MASKS[suit])
            if not trick or suit == led:
                applies = self.lock_first and (unled if not trick else self.first_of_suit)
                # exempt: the shown copy is the holder's only card of its suit (copies count)
                if applies and (hand & SUITS_BOTH[suit]).bit_count() > 1:
                    return True
            elif self.lock_discards and unled:
                return True
        return False

    def legal_keys(self) -> list[int]:
        """The keys of the legal plays of the seat to move, ascending (kept until a play).

        :raises ValueError: the hand is not in its play phase.
        """
        if self.phase != PLAY:
            raise ValueError("legal_keys: not in the play phase")
        keys = self._legal_keys
        if keys is None:
            keys = self._legal_keys = self._cascade(-1)
        return keys

    def _cascade(self, why: int) -> list[int]:
        seat = self.seat
        hand = self.holdings[seat]
        if why >= 0:
            self._check_shape(hand, why)
        candidates = self._candidates(hand, why)
        locked = 0 if self.lifted[seat] else self.locked[seat] & hand
        if locked:
            touched = set(indices(locked & ALL_CARDS))
            allowed = [
                key
                for key in candidates
                if touched.isdisjoint(cards_of_key(key)) or not self._blocked(key, hand, locked)
            ]
            if allowed:
                if why >= 0 and why not in allowed:
                    raise _Refused(_LOCK, _LOCK_COPIES)
                candidates = allowed
            elif self.lift_for_hand and why < 0:  # the lock leaves nothing: it lifts
                self.lifted[seat] = True
        if self.play_rules:
            candidates = self._apply_play_rules(hand, candidates, why)
        return candidates  # ascending: every step keeps the order

    def _check_shape(self, hand: int, why: int) -> None:
        cards = cards_of_key(why)
        for index in set(cards):
            if cards.count(index) > copies_in(hand, index):
                raise _Refused(_HOLDING)
        if not self.trick:
            if len(cards) == 2 and cards[0] != cards[1]:
                raise _Refused(_SHAPE, _LEAD_SHAPE)
        elif len(cards) != len(cards_of_key(self.trick[0])):
            raise _Refused(_SHAPE, _PAIR_SHAPE if self.trick[0] >= ONE_CARD_KEYS else _SINGLE_SHAPE)

    def _moment(self, hand: int) -> PlayMoment:
        trick = self.trick
        if not trick:
            return PlayMoment.LEAD
        led = SUIT_OF[cards_of_key(trick[0])[0]]
        return PlayMoment.FOLLOW if hand & SUITS_BOTH[led] else PlayMoment.DISCARD

    def _apply_play_rules(self, hand: int, candidates: list[int], why: int) -> list[int]:
        """The plug-ins' own rules, each narrowing the plays, asked only where they can
        matter; one that would leave nothing lifts."""
        moment = self._moment(hand)
        for position, rule in enumerate(self.play_rules):
            if not moment & rule.when:
                continue
            allowed = 0
            for key in candidates:
                for index in cards_of_key(key):
                    allowed |= 1 << index
            if not allowed & rule.cards:
                continue
            situation = PlaySituation(
                self.seat, hand, tuple(self.trick), self.played, self.unled, allowed
            )
            kept = candidates
            if rule.refuse is not None:
                refused = rule.refused(situation)
                refused = (refused | refused >> SECOND_COPY) & allowed  # every copy
                if refused:
                    kept = [k for k in kept if not any(refused >> i & 1 for i in cards_of_key(k))]
            if kept and rule.require is not None:
                required = rule.required(situation)
                required = (required | required >> SECOND_COPY) & allowed
                using = [k for k in kept if any(required >> i & 1 for i in cards_of_key(k))]
                if using:
                    kept = using
            if kept and len(kept) != len(candidates):
                if why >= 0 and why not in kept:
                    raise _Refused(PLAY_RULE, position)
                candidates = kept
        return candidates

    def legal_mask(self) -> CardMask:
        """The cards used by some legal play (first-copy bits).

        :raises ValueError: the hand is not in its play phase.
        """
        if self.phase != PLAY:
            raise ValueError("legal_mask: not in the play phase")
        mask = 0
        for key in self.legal_keys():
            for index in cards_of_key(key):
                mask |= 1 << index
        return mask

    def _legal_plays(self) -> tuple[Play, ...]:
        return tuple(map(play_of_key, self.legal_keys()))

    def refusal(self, key: int) -> tuple[int, int] | None:
        """Why play ``key`` is refused for the seat to move, as ``(code, detail)``
        (:func:`~gongzhu.play.explain_refusal`), or ``None`` when it is legal."""
        if self.phase != PLAY:
            return (_HOLDING, OVER_DETAIL)
        if not _valid_key(key):
            return (_SHAPE, _ANY_SHAPE)
        try:
            self._cascade(key)
        except _Refused as refused:
            return (refused.code, refused.detail)
        return None

    # -- playing ---------------------------------------------------------------------

    def play(self, key: int) -> int:
        """Play ``key`` for the seat to move if it is legal (see
        :meth:`HandEngine.play <gongzhu.play.HandEngine.play>`)."""
        if self.phase != PLAY or not _valid_key(key) or key not in self.legal_keys():
            return ILLEGAL
        self._play(key)
        return self.seat

    def _play(self, key: int) -> None:
        self._legal_keys = None
        seat = self.seat
        cards = cards_of_key(key)
        if not self.trick:
            suit_mask = SUIT_MASKS[SUIT_OF[cards[0]]]
            self.first_of_suit = bool(self.unled & suit_mask)
            self.unled &= ~suit_mask
            self.forced = 0
        hand = self.holdings[seat]
        shown_left = self.shown_left[seat]
        for index in cards:
            if shown_left:
                shown = [n for n, (card, _kind) in enumerate(shown_left) if card == index]
                if copies_in(hand, index) <= len(shown):  # only shown copies left: one goes
                    _card, kind = shown_left.pop(shown[0])
                    self.trick_shows.append((seat, index, kind))
                    if copies_in(self.locked[seat], index):
                        self.locked[seat] = remove_copy(self.locked[seat], index)
            hand = remove_copy(hand, index)
            self.played |= 1 << index
        self.holdings[seat] = hand
        self.trick.append(key)
        if len(self.trick) == 4:
            self._finish_trick()
        else:
            self.seat = (seat + 1) & 3

    def _finish_trick(self) -> None:
        trick = self.trick
        position = winning_position(trick, self.pair_beats_unmatched)
        leader = self.trick_leader
        winner = (leader + position) & 3
        taken = self.taken[winner]
        for key in trick:
            for index in cards_of_key(key):
                taken = add_copy(taken, index)
        self.taken[winner] = taken
        self.taken_shows[winner].extend(self.trick_shows)
        self.trick_shows = []
        self.trick_log.append((leader, tuple(trick), winner, winner))
        self.trick = []
        self.trick_leader = winner
        if self.holdings[winner]:
            self.seat = winner
        else:
            self._finish()

    def _random_plays(self, random: Callable[[], float]) -> None:
        """Each play: one draw, the ``int(r * n)``-th of the ``n`` legal keys."""
        while self.phase == PLAY:
            keys = self.legal_keys()
            self._play(keys[draw(random, len(keys))])


_COPIED: Final = frozenset(
    {
        "lifted",
        "taken",
        "trick",
        "trick_log",
        "shown_left",
        "taken_shows",
        "trick_shows",
        "_legal_keys",
    }
)
_SCALARS: Final = tuple(name for name in PairsEngine.__slots__ if name not in _COPIED)

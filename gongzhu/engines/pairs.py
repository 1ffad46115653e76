"""The pure-Python engine for two decks with pairs (``pairs-python``): the reference.

Card masks hold a card's first copy at bit ``index`` and its second copy at
bit ``52 + index`` (:func:`~gongzhu.engine.add_copy`); play keys are card
indices for one card and ``52 + 52·a + b`` for two cards ``a ≤ b``
(:attr:`Play.key <gongzhu.actions.Play.key>`).

The rules it plays (the :class:`~gongzhu.play.PlayConfig` fields ``pairs``
and ``pair_beats_unmatched``, with the shown-card lock):

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
  (:meth:`PairsCore.shown_taken`);
* the shown-card lock: a shown copy may not be played in the first trick of
  its suit unless it is the holder's only card of that suit (two copies are
  two cards), nor, with ``discard_before_led``, be discarded before its suit
  has been led.

Its C twin is ``gongzhu._pairs.PairsCore`` (``pairs-c``); the tests require
both to play identical hands from identical random draws.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Final

from .actions import Play, ShowKind, play_of_key
from .cards import Card, Suit
from .engine import (
    LOW,
    SUIT_MASKS,
    SUIT_OF,
    _Refused,
    add_copy,
    copies_in,
    remove_copy,
)
from .play import (
    FOLLOW_SUIT,
    HOLDING,
    ILLEGAL,
    OPENING_LEAD,
    OVER,
    PAIR_FOLLOW,
    SHAPE,
    SHOWN_CARD_LOCK,
    PlayConfig,
    PlaySituation,
    Refusal,
)
from .scoring import ShowRecord

__all__ = ["PairsCore", "cards_of_key", "pair_key", "two_key"]

SUITS_BOTH: Final = tuple(mask | mask << 52 for mask in SUIT_MASKS)
"""Both copies' bits of each suit."""
FULL_TWO: Final = (1 << 104) - 1


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def pair_key(index: int) -> int:
    """The play key of the pair of card ``index``."""
    return 52 + index * 52 + index


def two_key(first: int, second: int) -> int:
    """The play key of two cards (any order)."""
    low, high = (first, second) if first <= second else (second, first)
    return 52 + low * 52 + high


def cards_of_key(key: int) -> tuple[int, ...]:
    """The card indices a play key plays."""
    if key < 52:
        return (key,)
    return divmod(key - 52, 52)


def _valid_key(key: int) -> bool:
    if key < 0:
        return False
    if key < 52:
        return True
    low, high = divmod(key - 52, 52)
    return low <= high < 52


def _checked_masks(hands: list[int]) -> list[int]:
    """``hands`` when they are four two-deck card masks, else :class:`ValueError`."""
    if len(hands) != 4 or any(h < 0 or h > FULL_TWO or (h >> 52) & ~h for h in hands):
        raise ValueError("hands: expected four two-deck card masks")
    return hands


def _copy_counts(hands: Sequence[int]) -> tuple[int, int, int]:
    """Bitwise counters of the copies between ``hands``: ``(ones, twos, over)``.

    Equal for equal multisets of cards; ``over`` has the bit of each card held
    more than twice.
    """
    ones = twos = over = 0
    for hand in hands:
        for bits in (hand & LOW, hand >> 52):  # bitwise adders over every copy
            over |= twos & bits
            twos |= ones & bits
            ones ^= bits
    return ones, twos, over


class PairsCore:
    """The play phase of a two-deck hand with pairs.

    :param config: the ruleset's :class:`~gongzhu.play.PlayConfig`.
    :param hands: each seat's cards (two-deck masks).
    :param history: the hand's action list; each play appends ``(seat, Play)``.
    :param tricks: the hand's trick list; each trick appends
        ``(leader, keys, winner, taker)``.
    """

    __slots__ = (
        "_legal_keys",
        "config",
        "first_of_suit",
        "forced",
        "hands",
        "history",
        "lift_for_hand",
        "lifted",
        "lock_discards",
        "lock_first",
        "locked",
        "pair_beats_unmatched",
        "played",
        "seat",
        "shown_left",
        "taken",
        "taken_shows",
        "trick",
        "trick_leader",
        "trick_shows",
        "tricks",
        "unled",
    )

    def __init__(
        self,
        config: PlayConfig,
        hands: Sequence[int],
        history: list[Any],
        tricks: list[Any],
    ) -> None:
        hands = _checked_masks([int(h) for h in hands])
        if _copy_counts(hands)[2]:
            raise ValueError("hands overlap: a card is held more than twice")
        self.config = config
        self.hands = hands
        self.lock_first, self.lock_discards, self.lift_for_hand = config.lock_flags
        self.pair_beats_unmatched = config.pair_beats_unmatched
        self.history = history
        self.tricks = tricks
        self.locked = [0, 0, 0, 0]
        self.lifted = [False, False, False, False]
        self.taken = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.unled = LOW
        self.played = 0
        self.first_of_suit = False
        self.forced = 0
        self.trick_leader = 0
        self.seat = OVER
        self.shown_left: list[list[tuple[int, ShowKind]]] = [[], [], [], []]
        self.taken_shows: list[list[ShowRecord]] = [[], [], [], []]
        self.trick_shows: list[ShowRecord] = []
        self._legal_keys: list[int] | None = None

    def start(
        self,
        leader: int,
        forced: int,
        locked: Sequence[int],
        shows: Sequence[ShowRecord] = (),
    ) -> None:
        """Begin the first trick: ``leader`` leads; ``shows``: every shown copy, in order."""
        if leader not in range(4):
            raise ValueError("leader must be 0-3")
        if not 0 <= forced <= LOW or forced & (forced - 1):
            raise ValueError("forced must be 0 or one card's bit")
        locked = [int(m) for m in locked]
        if len(locked) != 4 or any(m < 0 or m > FULL_TWO for m in locked):
            raise ValueError("locked: expected four two-deck card masks")
        self.trick_leader = self.seat = leader
        self.forced = forced
        self.locked = locked
        self._legal_keys = None
        for record in shows:
            self.shown_left[record.seat].append((record.card.index, record.kind))

    def copy(self, history: list[Any], tricks: list[Any]) -> PairsCore:
        """An independent copy that appends to ``history`` and ``tricks``."""
        new = object.__new__(type(self))
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands[:]
        new.locked = self.locked[:]
        new.lifted = self.lifted[:]
        new.taken = self.taken[:]
        new.trick = self.trick[:]
        new.shown_left = [seat[:] for seat in self.shown_left]
        new.taken_shows = [seat[:] for seat in self.taken_shows]
        new.trick_shows = self.trick_shows[:]
        new._legal_keys = None
        new.history = history
        new.tricks = tricks
        return new

    def redeal(self, hands: Sequence[int]) -> None:
        """Give each seat ``hands[seat]`` (a two-deck mask) in place of the cards it holds now.

        For determinised search: the seats keep their counts and the copies
        stay the same between them, only who holds which changes.  The
        history is not replayed (the caller answers for its consistency).

        :raises TypeError: a mask is not an int.
        :raises ValueError: the masks are malformed, change a seat's count or
            the copies held between them; the engine is unchanged.
        """
        new = _checked_masks([operator.index(h) for h in hands])
        if _copy_counts(new) != _copy_counts(self.hands):
            raise ValueError("redeal: the seats must hold the same cards between them")
        if any(a.bit_count() != b.bit_count() for a, b in zip(new, self.hands, strict=True)):
            raise ValueError("redeal: each seat must keep its number of cards")
        self.hands = new
        self._legal_keys = None

    def shown_taken(self) -> list[list[ShowRecord]]:
        """Per seat, the shown copies it took (each scores its factor for the taker)."""
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
                    raise _Refused(OPENING_LEAD, index)
                return keys
            return _indices(hand & LOW) + [pair_key(i) for i in _indices(hand >> 52)]
        lead = trick[0]
        led = SUIT_OF[cards_of_key(lead)[0]]
        suited = hand & SUITS_BOTH[led]
        if lead < 52:
            keys = _indices((suited or hand) & LOW)
            if why >= 0 and why not in keys:
                raise _Refused(FOLLOW_SUIT, led)
            return keys
        if suited >> 52:  # 1. a pair of the led suit
            keys, step = [pair_key(i) for i in _indices(suited >> 52)], 1
        else:
            singles = _indices(suited & LOW)
            if len(singles) >= 2:  # 2. two cards of the led suit
                keys, step = [two_key(a, b) for a, b in combinations(singles, 2)], 2
            elif singles:  # 3. the one card of the led suit and any other card
                rest = remove_copy(hand, singles[0])
                keys = sorted(two_key(singles[0], other) for other in _indices(rest & LOW))
                step = 3
            else:  # 4. any two cards
                keys = [two_key(a, b) for a, b in combinations(_indices(hand & LOW), 2)]
                keys = sorted(keys + [pair_key(i) for i in _indices(hand >> 52)])
                step = 4
        if why >= 0 and why not in keys:
            raise _Refused(PAIR_FOLLOW, (led, step))
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
        """The keys of the legal plays of the seat to move, ascending (kept until a play)."""
        keys = self._legal_keys
        if keys is None:
            keys = self._legal_keys = self._cascade(-1)
        return keys

    def _cascade(self, why: int) -> list[int]:
        seat = self.seat
        hand = self.hands[seat]
        if why >= 0:
            self._check_shape(hand, why)
        candidates = self._candidates(hand, why)
        locked = 0 if self.lifted[seat] else self.locked[seat] & hand
        if locked:
            touched = set(_indices(locked & LOW))
            allowed = [
                key
                for key in candidates
                if touched.isdisjoint(cards_of_key(key)) or not self._blocked(key, hand, locked)
            ]
            if allowed:
                if why >= 0 and why not in allowed:
                    raise _Refused(SHOWN_CARD_LOCK)
                candidates = allowed
            elif self.lift_for_hand and why < 0:  # the lock leaves nothing: it lifts
                self.lifted[seat] = True
        rules = self.config.rules
        if rules:
            candidates = self._apply_play_rules(hand, candidates, why)
        return candidates  # ascending: every step keeps the order

    def _check_shape(self, hand: int, why: int) -> None:
        cards = cards_of_key(why)
        for index in set(cards):
            if cards.count(index) > copies_in(hand, index):
                raise _Refused(HOLDING)
        if not self.trick:
            if len(cards) == 2 and cards[0] != cards[1]:
                raise _Refused(SHAPE, "a lead is one card or an identical pair")
        elif len(cards) != len(cards_of_key(self.trick[0])):
            size = len(cards_of_key(self.trick[0]))
            raise _Refused(
                SHAPE, f"the lead was {'a pair' if size == 2 else 'one card'}: play {size}"
            )

    def _apply_play_rules(self, hand: int, candidates: list[int], why: int) -> list[int]:
        trick = tuple(c for key in self.trick for c in play_of_key(key).cards)
        unled = frozenset(s for s in Suit if self.unled & SUIT_MASKS[s])
        for rule in self.config.rules:
            allowed = 0
            for key in candidates:
                for index in cards_of_key(key):
                    allowed |= 1 << index
            situation = PlaySituation(self.seat, hand, trick, self.played, unled, allowed)
            refused = int(rule.refuse(situation))
            refused = (refused | refused >> 52) & allowed  # a refused card: every copy
            if not refused:
                continue
            kept = [k for k in candidates if not any(refused >> i & 1 for i in cards_of_key(k))]
            if kept:
                if why >= 0 and why not in kept:
                    raise _Refused(rule.name, rule)
                candidates = kept
        return candidates

    def legal_mask(self) -> int:
        """The cards used by some legal play (first-copy bits)."""
        mask = 0
        for key in self.legal_keys():
            for index in cards_of_key(key):
                mask |= 1 << index
        return mask

    def legal(self) -> tuple[Play, ...]:
        """The legal plays of the seat to move, in key order (each distinct play once)."""
        return tuple(play_of_key(key) for key in self.legal_keys())

    def refusal(self, play: Play) -> Refusal | None:
        """Why ``play`` is refused for the seat to move, or ``None`` when it is legal."""
        seat = self.seat
        if seat < 0:
            return Refusal(HOLDING, "the hand is over")
        cards = play.cards
        if len(cards) not in (1, 2):
            return Refusal(SHAPE, "a play is one card or two")
        try:
            self._cascade(play.key)
        except _Refused as refused:
            return Refusal(refused.rule, self._message(refused, seat, cards))
        return None

    def _message(self, refused: _Refused, seat: int, cards: tuple[Card, ...]) -> str:
        rule, detail = refused.rule, refused.detail
        if rule == HOLDING:
            return f"seat {seat} does not hold {' '.join(map(str, cards))}"
        if rule == SHAPE:
            return str(detail)
        if rule == OPENING_LEAD:
            return f"the opening lead must be {Card.from_index(detail)} (one, or both as a pair)"
        if rule == FOLLOW_SUIT:
            return f"must follow suit: seat {seat} holds {Suit(detail).symbol}"
        if rule == PAIR_FOLLOW:
            led, step = detail
            symbol = Suit(led).symbol
            return {
                1: f"following a pair: play a pair of {symbol} (seat {seat} holds one)",
                2: f"following a pair: play two {symbol} (seat {seat} holds them)",
                3: f"following a pair: play your {symbol} card and any other",
                4: "following a pair: play any two cards",
            }[step]
        if rule == SHOWN_CARD_LOCK:
            return (
                f"{' '.join(map(str, cards))}: a shown card may not be played yet "
                "(the shown-card restriction: not in the first trick of its suit unless it "
                "is the holder's only card of that suit)"
            )
        return str(detail.reason).replace("{card}", " ".join(map(str, cards)))

    # -- playing ---------------------------------------------------------------------

    def play(self, key: int) -> int:
        """Play ``key`` for the seat to move if it is legal (see :meth:`PlayCore.play`)."""
        if self.seat < 0:
            raise ValueError("no seat is to move")
        if not _valid_key(key) or key not in self.legal_keys():
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
        hand = self.hands[seat]
        shown_left = self.shown_left[seat]
        for index in cards:
            if shown_left:
                shown = [n for n, (card, _kind) in enumerate(shown_left) if card == index]
                if copies_in(hand, index) <= len(shown):  # only shown copies left: one goes
                    _card, kind = shown_left.pop(shown[0])
                    self.trick_shows.append(ShowRecord(seat, Card.from_index(index), kind))
                    if copies_in(self.locked[seat], index):
                        self.locked[seat] = remove_copy(self.locked[seat], index)
            hand = remove_copy(hand, index)
            self.played |= 1 << index
        self.hands[seat] = hand
        self.trick.append(key)
        self.history.append((seat, play_of_key(key)))
        if len(self.trick) == 4:
            self._finish_trick()
        else:
            self.seat = (seat + 1) & 3

    def _rank(self, key: int, led: int, pair_lead: bool) -> tuple[int, int] | None:
        cards = cards_of_key(key)
        if any(SUIT_OF[index] != led for index in cards):
            return None  # not wholly in the led suit: never wins
        top = max(index % 13 for index in cards)
        if not pair_lead:
            return (0, top)
        is_pair = cards[0] == cards[1]
        return (int(is_pair == self.pair_beats_unmatched), top)

    def _finish_trick(self) -> None:
        trick = self.trick
        lead = trick[0]
        led = SUIT_OF[cards_of_key(lead)[0]]
        best: tuple[int, int] | None = None
        position = 0
        for n, key in enumerate(trick):
            rank = self._rank(key, led, lead >= 52)
            if rank is not None and (best is None or rank > best):
                best, position = rank, n
        leader = self.trick_leader
        winner = (leader + position) & 3
        taken = self.taken[winner]
        for key in trick:
            for index in cards_of_key(key):
                taken = add_copy(taken, index)
        self.taken[winner] = taken
        self.taken_shows[winner].extend(self.trick_shows)
        self.trick_shows = []
        self.tricks.append((leader, tuple(trick), winner, winner))
        self.trick = []
        self.trick_leader = winner
        self.seat = winner if self.hands[winner] else OVER

    def random_playout(self, random: Callable[[], float]) -> None:
        """Play to the end, each play the ``int(random() * n)``-th of the ``n`` legal keys."""
        while self.seat != OVER:
            keys = self.legal_keys()
            r = random()
            if not 0.0 <= r < 1.0:
                raise ValueError("random() must return a float in [0, 1)")
            self._play(keys[int(r * len(keys))])


_COPIED: Final = frozenset(
    {
        "hands",
        "locked",
        "lifted",
        "taken",
        "trick",
        "shown_left",
        "taken_shows",
        "trick_shows",
        "_legal_keys",
        "history",
        "tricks",
    }
)
_SCALARS: Final = tuple(name for name in PairsCore.__slots__ if name not in _COPIED)

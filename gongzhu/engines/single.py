"""The pure-Python play engines' building blocks, and the single-deck engine.

:class:`PlayCore` holds the play phase of a single-deck hand as integers
(each seat's cards as a 52-bit mask, bit :attr:`Card.index
<gongzhu.cards.Card.index>`) and plays it: the ``single-python`` engine of
:mod:`gongzhu.play`, and the reference its C twin (``single-c``, in
``gongzhu._speedups``) must agree with.  The mask helpers here
(:func:`add_copy`, :func:`cards_of_mask`, ...) know the two-deck layout too:
a second copy of card ``i`` is bit ``52 + i``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from .actions import SINGLE_PLAYS, Play, play_of_key
from .cards import Card, Suit
from .play import (
    DISCARD_RULE,
    FOLLOW_SUIT,
    HOLDING,
    ILLEGAL,
    OPENING_LEAD,
    OVER,
    SHAPE,
    SHOWN_CARD_LOCK,
    PlayConfig,
    PlayRule,
    PlaySituation,
    Refusal,
)

__all__ = [
    "ILLEGAL",
    "OVER",
    "PlayCore",
    "add_copy",
    "cards_of_mask",
    "copies_in",
    "plays_of_mask",
    "remove_copy",
    "subtract_copies",
]

SUIT_MASKS: Final = tuple(0x1FFF << (13 * s) for s in range(4))
FULL_MASK: Final = (1 << 52) - 1
SUIT_OF: Final = tuple(i // 13 for i in range(52))
BIT: Final = tuple(1 << i for i in range(52))
"""Each card's bit (made once: the play path then makes no new int for it)."""

LOW: Final = FULL_MASK
"""The first-copy bits of a card mask (two-deck masks keep second copies at bit 52 + index)."""


def add_copy(mask: int, index: int) -> int:
    """``mask`` with one more copy of card ``index`` (a second copy goes to bit 52 + index)."""
    bit = 1 << index
    return mask | (bit << 52 if mask & bit else bit)


def remove_copy(mask: int, index: int) -> int:
    """``mask`` with one copy of card ``index`` fewer (the second copy goes first)."""
    high = 1 << (52 + index)
    return mask ^ high if mask & high else mask ^ (1 << index)


def copies_in(mask: int, index: int) -> int:
    """How many copies of card ``index`` the mask holds (0, 1 or 2)."""
    return (mask >> index & 1) + (mask >> (52 + index) & 1)


def subtract_copies(a: int, b: int) -> int:
    """Per card, the copies in ``a`` less those in ``b`` (never below zero)."""
    low_a, high_a, low_b, high_b = a & LOW, a >> 52, b & LOW, b >> 52
    return ((high_a & ~high_b) | (low_a & ~low_b)) | ((high_a & ~low_b) << 52)


_T = TypeVar("_T")


def _per_suit(
    make: Callable[[int, int], tuple[_T, ...]],
) -> tuple[Callable[[int], tuple[_T, ...]], Callable[[int], tuple[_T, ...] | None]]:
    """``(of_mask, of_one_suit)`` for the items of cards (their plays, or the cards).

    ``of_mask(mask)`` gives the items of every card in ``mask``, in card order.
    ``make(suit, chunk)`` gives the items of one suit's 13-bit chunk; they are
    made once and kept by their one-suit mask, and ``of_one_suit`` looks one up
    (``None`` for a mask not kept: several suits, or not seen yet).  This is the
    per-play path of the Python engines: a legal mask is most often one suit's
    cards (following suit), found with one lookup; others are put together from
    their suits' parts.
    """
    kept: dict[int, tuple[_T, ...]] = {}
    of_one_suit = kept.get

    def make_part(suit: int, part: int) -> tuple[_T, ...]:
        items = kept[part] = make(suit, part >> (13 * suit))
        return items

    def of_mask(mask: int) -> tuple[_T, ...]:
        out = of_one_suit(mask)
        if out is not None:
            return out
        out = ()
        part = mask & 0x1FFF
        if part:
            out = of_one_suit(part) or make_part(0, part)
        part = mask & 0x3FFE000
        if part:
            out += of_one_suit(part) or make_part(1, part)
        part = mask & 0x7FFC000000
        if part:
            out += of_one_suit(part) or make_part(2, part)
        part = mask & 0xFFF8000000000
        if part:
            out += of_one_suit(part) or make_part(3, part)
        return out

    return of_mask, of_one_suit


def _suit_plays(suit: int, chunk: int) -> tuple[Play, ...]:
    base = 13 * suit
    return tuple(SINGLE_PLAYS[base + r] for r in range(13) if chunk >> r & 1)


def _suit_cards(suit: int, chunk: int) -> tuple[Card, ...]:
    return tuple(play.cards[0] for play in _suit_plays(suit, chunk))


plays_of_mask, _one_suit_plays = _per_suit(_suit_plays)
plays_of_mask.__doc__ = (
    """The single-card plays of every card in ``mask``, in card order (memoised per suit)."""
)
_cards_of_low, _ = _per_suit(_suit_cards)
"""The cards of a one-copy ``mask``, in card order (memoised per suit)."""


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of ``mask``, in card order, a card held twice listed twice."""
    second = mask >> 52
    if not second:
        return _cards_of_low(mask)
    plays = plays_of_mask(mask & LOW)
    cards = []
    for play in plays:  # in card order already: a second copy goes right after its first
        card = play.cards[0]
        cards.append(card)
        if second >> play.key & 1:
            cards.append(card)
    return tuple(cards)


class _Refused(Exception):
    """Raised inside the cascade when the play being explained is removed (explain mode only)."""

    def __init__(self, rule: str, detail: Any = None) -> None:
        self.rule = rule
        self.detail = detail


def _checked_masks(hands: list[int]) -> list[int]:
    """``hands`` when they are four disjoint 52-bit card masks, else :class:`ValueError`."""
    if len(hands) != 4 or any(h < 0 or h > FULL_MASK for h in hands):
        raise ValueError("hands: expected four 52-bit card masks")
    if (
        hands[0] & hands[1]
        or (hands[0] | hands[1]) & hands[2]
        or (hands[0] | hands[1] | hands[2]) & hands[3]
    ):
        raise ValueError("hands overlap")
    return hands


class PlayCore:
    """The play phase of a single-deck hand: the reference engine (``single-python``).

    Its legality is one ordered cascade (:meth:`legal_mask`): the opening
    lead, follow suit, the discard rule, the shown-card lock, then the
    plug-ins' own :class:`~gongzhu.play.PlayRule` objects, each narrowing
    what the ones before allowed.  :meth:`refusal` runs the same cascade and
    reports the step that removed the play, so a refusal is explained by
    the code that decides it.

    :param config: the ruleset's :class:`~gongzhu.play.PlayConfig`.
    :param hands: each seat's cards (masks).
    :param history: the hand's action list; each play appends ``(seat, Play)``.
    :param tricks: the hand's trick list; each trick appends
        ``(leader, (k0, k1, k2, k3), winner, taker)``.
    """

    __slots__ = (
        "_legal_cache",
        "config",
        "first_of_suit",
        "forced",
        "hands",
        "history",
        "last_offender",
        "lift_for_hand",
        "lifted",
        "lock_discards",
        "lock_first",
        "locked",
        "offenders",
        "penalty",
        "play_rules",
        "played",
        "preferred",
        "seat",
        "strict",
        "taken",
        "trick",
        "trick_leader",
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
        self.config = config
        hands = _checked_masks([int(h) for h in hands])
        self.hands = hands
        self.lock_first, self.lock_discards, self.lift_for_hand = config.lock_flags
        self.strict, self.penalty, self.last_offender = config.discard_flags
        self.preferred = config.preferred_discard_masks
        self.play_rules = config.rules
        self.history = history
        self.tricks = tricks
        self.locked = [0, 0, 0, 0]
        self.lifted = [False, False, False, False]
        self.taken = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.offenders: list[int] = []
        self.unled = FULL_MASK
        self.played = 0
        self.first_of_suit = False
        self.forced = 0
        self.trick_leader = 0
        self.seat = OVER
        self._legal_cache = -1  # the legal mask of the seat to move, once asked; -1: not known

    def start(
        self,
        leader: int,
        forced: int,
        locked: Sequence[int],
        shows: Sequence[Any] = (),
    ) -> None:
        """Begin the first trick: ``leader`` leads (``forced``: the card mask it must lead)."""
        if leader not in range(4):
            raise ValueError("leader must be 0-3")
        if not 0 <= forced <= FULL_MASK or forced & (forced - 1):
            raise ValueError("forced must be 0 or one card's bit")
        locked = [int(m) for m in locked]
        if len(locked) != 4 or any(m < 0 or m > FULL_MASK for m in locked):
            raise ValueError("locked: expected four 52-bit card masks")
        self.trick_leader = self.seat = leader
        self.forced = forced
        self.locked = locked
        self._legal_cache = -1

    def copy(self, history: list[Any], tricks: list[Any]) -> PlayCore:
        """An independent copy that appends to ``history`` and ``tricks``."""
        new = object.__new__(type(self))
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands[:]
        new.locked = self.locked[:]
        new.lifted = self.lifted[:]
        new.taken = self.taken[:]
        new.trick = self.trick[:]
        new.offenders = self.offenders[:]
        new.history = history
        new.tricks = tricks
        return new

    def redeal(self, hands: Sequence[int]) -> None:
        """Give each seat ``hands[seat]`` (a card mask) in place of the cards it holds now.

        For determinised search: the seats keep their counts and the cards
        stay the same between them, only who holds which changes.  The
        history is not replayed (the caller answers for its consistency);
        the discard-rule offenders of the trick under way are found again
        from the new cards.

        :raises TypeError: a mask is not an int.
        :raises ValueError: the masks are malformed, overlap, change a seat's
            count or the cards held between them; the engine is unchanged.
        """
        new = _checked_masks([operator.index(h) for h in hands])
        old = self.hands
        if new[0] | new[1] | new[2] | new[3] != old[0] | old[1] | old[2] | old[3]:
            raise ValueError("redeal: the seats must hold the same cards between them")
        if any(a.bit_count() != b.bit_count() for a, b in zip(new, old, strict=True)):
            raise ValueError("redeal: each seat must keep its number of cards")
        self.hands = new
        self._legal_cache = -1
        if self.penalty and self.trick:
            # who broke the discard rule in the trick under way depends on what they held
            led = SUIT_OF[self.trick[0]]
            preferred = self.preferred[led]  # type: ignore[index]
            self.offenders = [
                seat
                for i, key in enumerate(self.trick[1:], 1)
                if SUIT_OF[key] != led
                and new[seat := (self.trick_leader + i) & 3] & preferred
                and not 1 << key & preferred
            ]

    def shown_taken(self) -> None:
        """Single-deck: a shown card is one card, so who took it needs no engine's word."""
        return None

    # -- legality: one cascade decides and explains ------------------------------------

    def legal_mask(self) -> int:
        """The cards the seat to move may play."""
        mask = self._legal_cache = _cascade(self, -1)
        return mask

    def legal(self) -> tuple[Play, ...]:
        """The legal plays of the seat to move, in card order."""
        mask = self._legal_cache = _cascade(self, -1)
        return _one_suit_plays(mask) or plays_of_mask(mask)

    def refusal(self, play: Play) -> Refusal | None:
        """Why ``play`` is refused for the seat to move, or ``None`` when it is legal.

        The C engine explains its refusals through this method too, on a
        Python engine holding its state (:mod:`gongzhu.engines`).
        """
        seat = self.seat
        if seat < 0:
            return Refusal(HOLDING, "the hand is over")
        if len(play.cards) != 1:
            return Refusal(SHAPE, "a play is one card in single-deck play")
        card = play.cards[0]
        try:
            _cascade(self, card.index)
        except _Refused as refused:
            return Refusal(refused.rule, _message(refused, seat, card))
        return None

    # -- playing --------------------------------------------------------------------

    def play(self, key: int) -> int:
        """Play card ``key`` for the seat to move if it is legal.

        :return: the next seat to move, :data:`OVER` after the last card, or
            :data:`ILLEGAL` (nothing changes) when the card may not be played.
        """
        if self.seat < 0:
            raise ValueError("no seat is to move")
        legal = self._legal_cache  # what legal() found for this seat, if it was asked
        if legal < 0:
            legal = _cascade(self, -1)
        if key < 0 or not legal >> key & 1:  # (a legal mask has no bit from 52 up)
            return ILLEGAL
        self._play(key)
        return self.seat

    def _play(self, key: int) -> None:
        self._legal_cache = -1
        seat = self.seat
        bit = BIT[key]
        hands = self.hands
        trick = self.trick
        if not trick:
            suit_mask = SUIT_MASKS[SUIT_OF[key]]
            unled = self.unled
            if unled & suit_mask:  # the suit's first trick
                self.first_of_suit = True
                self.unled = unled & ~suit_mask
            else:
                self.first_of_suit = False
            self.forced = 0
        elif self.penalty:
            led = SUIT_OF[trick[0]]
            preferred = self.preferred[led]  # type: ignore[index]
            hand = hands[seat]
            if not hand & SUIT_MASKS[led] and hand & preferred and not bit & preferred:
                self.offenders.append(seat)
        hands[seat] ^= bit
        self.played |= bit
        trick.append(key)
        self.history.append((seat, SINGLE_PLAYS[key]))
        if len(trick) == 4:
            self._finish_trick()
        else:
            self.seat = (seat + 1) & 3

    def _finish_trick(self) -> None:
        trick = self.trick
        first, second, third, fourth = trick
        top = (SUIT_OF[first] + 1) * 13  # the led suit's cards are first <= card < top
        best, position = first, 0
        if best < second < top:
            best, position = second, 1
        if best < third < top:
            best, position = third, 2
        if best < fourth < top:
            position = 3
        leader = self.trick_leader
        winner = taker = (leader + position) & 3
        offenders = self.offenders
        if offenders:
            taker = offenders[-1] if self.last_offender else offenders[0]
            self.offenders = []
        self.taken[taker] |= BIT[first] | BIT[second] | BIT[third] | BIT[fourth]
        self.tricks.append((leader, (first, second, third, fourth), winner, taker))
        self.trick = []
        self.trick_leader = winner
        self.seat = winner if self.hands[winner] else OVER

    def random_playout(self, random: Callable[[], float]) -> None:
        """Play to the end with uniformly random legal cards.

        Each card takes one ``random()`` draw ``r``: the card is the
        ``int(r * n)``-th lowest of the ``n`` legal ones.
        """
        play = self._play
        while self.seat != OVER:
            mask = _cascade(self, -1)
            r = random()
            if not 0.0 <= r < 1.0:
                raise ValueError("random() must return a float in [0, 1)")
            skip = int(r * mask.bit_count())
            while skip:
                mask &= mask - 1
                skip -= 1
            play((mask & -mask).bit_length() - 1)


def _lead_lock(state: PlayCore, hand: int, locked: int) -> int:
    """The shown cards the lock keeps from being led: in an unled suit, unless the only card.

    Asked only when the lock holds in a suit's first trick (``first_trick``).
    """
    blocked = 0
    pending = locked & state.unled
    while pending:
        low = pending & -pending
        if hand & SUIT_MASKS[SUIT_OF[low.bit_length() - 1]] != low:
            blocked |= low
        pending ^= low
    return blocked


def _locked_out(state: PlayCore, legal: int, blocked: int, why: int, where: str) -> int:
    """``legal`` less the cards the shown-card lock ``blocked``, unless that leaves nothing.

    Then the seat is stuck and the lock lifts: for this play, or (``stuck="hand"``)
    for the rest of the hand, recorded only when not explaining.
    """
    kept = legal & ~blocked
    if kept:
        if why >= 0 and not kept >> why & 1:
            raise _Refused(SHOWN_CARD_LOCK, where)
        return kept
    if state.lift_for_hand and why < 0 and legal:  # stuck by the lock, not empty-handed
        state.lifted[state.seat] = True
    return legal


def _cascade(state: PlayCore, why: int) -> int:
    """The single-deck legality cascade over a :class:`PlayCore`'s state.

    Returns the legal card mask.  With ``why`` a card index, raises
    :class:`_Refused` naming the step that removes it instead (and changes
    nothing: a lock that lifts for the hand is only recorded when not explaining).
    """
    seat = state.seat
    hand = state.hands[seat]
    if why >= 0 and not hand >> why & 1:
        raise _Refused(HOLDING)
    trick = state.trick
    if not trick:
        forced = state.forced
        if forced:
            legal = forced & hand or hand
            if why >= 0 and not legal >> why & 1:
                raise _Refused(OPENING_LEAD, forced)
            return legal
        legal = hand
        if state.lock_first:
            locked = 0 if state.lifted[seat] else state.locked[seat] & hand
            if locked:
                legal = _locked_out(state, legal, _lead_lock(state, hand, locked), why, "lead")
    else:
        led = SUIT_OF[trick[0]]
        follow = hand & SUIT_MASKS[led]
        if follow:
            if why >= 0 and not follow >> why & 1:
                raise _Refused(FOLLOW_SUIT, led)
            legal = follow
            # a shown card may not follow in its suit's first trick, unless it is the only one
            if state.first_of_suit and state.lock_first:
                locked = 0 if state.lifted[seat] else state.locked[seat] & follow
                if locked and locked != follow:
                    legal = follow & ~locked
                    if why >= 0 and not legal >> why & 1:
                        raise _Refused(SHOWN_CARD_LOCK, "follow")
        else:
            legal = hand
            preferred = state.preferred
            if preferred is not None and state.strict:
                same_colour = hand & preferred[led]
                if same_colour:
                    if why >= 0 and not same_colour >> why & 1:
                        raise _Refused(DISCARD_RULE, led)
                    legal = same_colour
            if state.lock_discards:
                locked = 0 if state.lifted[seat] else state.locked[seat] & hand
                if locked:
                    legal = _locked_out(state, legal, locked & state.unled, why, "discard")
    rules = state.play_rules
    if rules:
        legal = _apply_play_rules(state, rules, hand, legal, why)
    return legal


def _apply_play_rules(
    state: PlayCore, rules: Sequence[PlayRule], hand: int, legal: int, why: int
) -> int:
    """The plug-ins' own rules, each narrowing ``legal``; one that leaves nothing lifts."""
    unled = state.unled
    situation_trick = tuple(c for key in state.trick for c in play_of_key(key).cards)
    for rule in rules:
        situation = PlaySituation(
            seat=state.seat,
            holding=hand,
            trick=situation_trick,
            played=state.played,
            unled_suits=frozenset(s for s in Suit if unled & SUIT_MASKS[s]),
            candidates=legal,
        )
        refused = int(rule.refuse(situation))
        refused = (refused | refused >> 52) & legal
        kept = legal & ~refused
        if kept and refused:
            if why >= 0 and not kept >> why & 1:
                raise _Refused(rule.name, rule)
            legal = kept
    return legal


def _message(refused: _Refused, seat: int, card: Card) -> str:
    rule, detail = refused.rule, refused.detail
    suit = card.suit.symbol
    if rule == HOLDING:
        return f"seat {seat} does not hold {card}"
    if rule == OPENING_LEAD:
        return f"the opening lead must be {cards_of_mask(detail)[0]}"
    if rule == FOLLOW_SUIT:
        return f"must follow suit: seat {seat} holds {Suit(detail).symbol}"
    if rule == DISCARD_RULE:
        led = Suit(detail)
        colour = "red" if led.is_red else "black"
        return (
            f"垫牌规则: a seat void in {led.symbol} must discard a card of the same colour "
            f"({colour}) while it holds one"
        )
    if rule == SHOWN_CARD_LOCK:
        if detail == "lead":
            return (
                f"{card} was shown and may not be led in the first trick of "
                f"{suit} unless it is the holder's only {suit}"
            )
        if detail == "follow":
            return (
                f"{card} was shown and may not be played in the first trick of "
                f"{suit} unless it is the holder's only {suit}"
            )
        return f"{card} was shown and may not be discarded before {suit} has been led"
    return str(detail.reason).replace("{card}", str(card))


_SCALARS: Final = tuple(
    name
    for name in PlayCore.__slots__
    if name not in {"hands", "locked", "lifted", "taken", "trick", "offenders", "history", "tricks"}
)

"""The pure-Python single-deck engine (``single-python``): the reference.

:class:`SingleEngine` plays a one-deck hand as integers: the show phases
(:class:`~gongzhu.engines.base.ShowingEngine`), then thirteen tricks on card
masks.  Its legality is one ordered cascade (:func:`_cascade`): the opening
lead, follow suit, the discard rule, the shown-card lock, then the plug-ins'
own :class:`~gongzhu.play.PlayRule` objects, each narrowing what the ones
before allowed.  :meth:`SingleEngine.refusal` runs the same cascade and
reports the step that removed the play, as the code
:func:`~gongzhu.play.explain_refusal` reads, so a refusal is explained by the
code that decides it.  Its C twin is ``gongzhu._speedups.SingleEngine``
(``single-c``); the tests require both to play identical hands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from ..actions import Play
from ..masks import ALL_CARDS, SECOND_COPY, SUIT_MASKS, CardMask, one_suit_plays, plays_of_mask
from ..play import (
    ILLEGAL,
    OVER_DETAIL,
    PLAY_RULE,
    RULE_CODES,
    EngineSetup,
    PlayMoment,
    PlayRule,
    PlaySituation,
)
from .base import PLAY, ShowingEngine, draw, read_masks, winning_position

__all__ = ["SingleEngine"]

SUIT_OF: Final = tuple(i // 13 for i in range(52))
BIT: Final = tuple(1 << i for i in range(52))
"""Each card's bit (made once: the play path then makes no new int for it)."""

_HOLDING: Final = RULE_CODES["holding"]
_SHAPE: Final = RULE_CODES["play-shape"]
_OPENING_LEAD: Final = RULE_CODES["opening-lead"]
_FOLLOW_SUIT: Final = RULE_CODES["follow-suit"]
_LOCK: Final = RULE_CODES["shown-card-lock"]
_DISCARD_RULE: Final = RULE_CODES["discard-rule"]
_LEAD, _FOLLOW, _DISCARD = 0, 1, 2  # where the shown-card lock held a card (LOCK_WHERE)
_MOMENTS: Final = (PlayMoment.LEAD, PlayMoment.FOLLOW, PlayMoment.DISCARD)


class _Refused(Exception):
    """Raised inside the cascade when the play being explained is removed (explain mode)."""

    def __init__(self, code: int, detail: int = 0) -> None:
        self.code = code
        self.detail = detail


def _checked_masks(holdings: Sequence[CardMask]) -> list[int]:
    """Four disjoint 52-bit card masks, else :class:`ValueError` (:class:`TypeError` for
    one that is not an int)."""
    hands = read_masks(holdings, ALL_CARDS, "holdings: expected four 52-bit card masks")
    if (
        hands[0] & hands[1]
        or (hands[0] | hands[1]) & hands[2]
        or (hands[0] | hands[1] | hands[2]) & hands[3]
    ):
        raise ValueError("holdings overlap")
    return hands


class SingleEngine(ShowingEngine):
    """A single-deck hand: the reference engine (``single-python``).

    Made as :class:`~gongzhu.play.HandEngine` says:
    ``SingleEngine(setup, holdings, leader, forced, first_seat, first_cards)``.
    """

    __slots__ = (
        "_legal_cache",
        "first_of_suit",
        "last_offender",
        "lift_for_hand",
        "lifted",
        "lock_discards",
        "lock_first",
        "offenders",
        "penalty",
        "play_rules",
        "played",
        "preferred",
        "strict",
        "taken",
        "trick",
        "trick_leader",
        "trick_log",
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
            raise ValueError("holdings: expected four 52-bit card masks of as many cards")
        super().__init__(setup, checked, leader, forced, first_seat, first_cards)
        config = setup.play
        self.lock_first, self.lock_discards, self.lift_for_hand = config.lock_flags
        self.strict, self.penalty, self.last_offender = config.discard_flags
        self.preferred = config.preferred_discard_masks
        self.play_rules = config.rules
        self.lifted = [False, False, False, False]
        self.taken = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.trick_log: list[tuple[int, tuple[int, ...], int, int]] = []
        self.offenders: list[int] = []
        self.unled = ALL_CARDS
        self.played = 0
        self.first_of_suit = False
        self.trick_leader = self.leader
        self._legal_cache = -1  # the legal mask of the seat to move, once asked; -1: not known

    def _start_play(self) -> None:
        self.trick_leader = self.seat = self.leader
        self._legal_cache = -1

    def _copy_play(self, new: Any) -> None:
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new.lifted = self.lifted[:]
        new.taken = self.taken[:]
        new.trick = self.trick[:]
        new.trick_log = self.trick_log[:]
        new.offenders = self.offenders[:]

    @property
    def trick_count(self) -> int:
        """How many tricks are finished."""
        return len(self.trick_log)

    def shown_taken(self) -> None:
        """Single-deck: a shown card is one card, so who took it needs no engine's word."""
        return None

    def redeal(self, holdings: Sequence[CardMask]) -> None:
        """Give each seat ``holdings[seat]`` (a card mask) in place of the cards it holds now.

        For determinised search, in the play phase: the seats keep their counts
        and the cards stay the same between them, only who holds which changes.
        The history is not replayed (the caller answers for its consistency);
        the discard-rule offenders of the trick under way are found again from
        the new cards.

        :raises TypeError: a mask is not an int.
        :raises ValueError: not in the play phase; the masks are malformed,
            overlap, change a seat's count or the cards held between them; the
            engine is unchanged.
        """
        new = _checked_masks(holdings)
        if self.phase != PLAY:
            raise ValueError("redeal: holdings change in the play phase only")
        old = self.holdings
        if new[0] | new[1] | new[2] | new[3] != old[0] | old[1] | old[2] | old[3]:
            raise ValueError("redeal: the seats must hold the same cards between them")
        if any(a.bit_count() != b.bit_count() for a, b in zip(new, old, strict=True)):
            raise ValueError("redeal: each seat must keep its number of cards")
        self.holdings = new
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

    # -- legality: one cascade decides and explains ------------------------------------

    def legal_mask(self) -> CardMask:
        """The cards the seat to move may play.

        :raises ValueError: the hand is not in its play phase.
        """
        if self.phase != PLAY:
            raise ValueError("legal_mask: not in the play phase")
        mask = self._legal_cache = _cascade(self, -1)
        return mask

    def _legal_plays(self) -> tuple[Play, ...]:
        mask = self._legal_cache = _cascade(self, -1)
        return one_suit_plays(mask) or plays_of_mask(mask)

    def refusal(self, key: int) -> tuple[int, int] | None:
        """Why play ``key`` is refused for the seat to move, as ``(code, detail)``
        (:func:`~gongzhu.play.explain_refusal`), or ``None`` when it is legal."""
        if self.phase != PLAY:
            return (_HOLDING, OVER_DETAIL)
        if type(key) is not int or not 0 <= key < 52:
            return (_SHAPE, 0)  # two cards, or more
        try:
            _cascade(self, key)
        except _Refused as refused:
            return (refused.code, refused.detail)
        return None

    # -- playing --------------------------------------------------------------------

    def play(self, key: int) -> int:
        """Play card ``key`` for the seat to move if it is legal.

        :return: the next seat to move, :data:`~gongzhu.play.OVER` after the last
            card, or :data:`~gongzhu.play.ILLEGAL` (nothing changes).
        """
        if self.phase != PLAY:
            return ILLEGAL
        legal = self._legal_cache  # what legal() found for this seat, if it was asked
        if legal < 0:
            legal = _cascade(self, -1)
        if type(key) is not int or key < 0 or not legal >> key & 1:  # (no bit from 52 up)
            return ILLEGAL
        self._play(key)
        return self.seat

    def _play(self, key: int) -> None:
        self._legal_cache = -1
        seat = self.seat
        bit = BIT[key]
        hands = self.holdings
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
        if len(trick) == 4:
            self._finish_trick()
        else:
            self.seat = (seat + 1) & 3

    def _finish_trick(self) -> None:
        trick = self.trick
        first, second, third, fourth = trick
        position = winning_position(trick)
        leader = self.trick_leader
        winner = taker = (leader + position) & 3
        offenders = self.offenders
        if offenders:
            taker = offenders[-1] if self.last_offender else offenders[0]
            self.offenders = []
        self.taken[taker] |= BIT[first] | BIT[second] | BIT[third] | BIT[fourth]
        self.trick_log.append((leader, (first, second, third, fourth), winner, taker))
        self.trick = []
        self.trick_leader = winner
        if self.holdings[winner]:
            self.seat = winner
        else:
            self._finish()

    def _random_plays(self, random: Callable[[], float]) -> None:
        """Each card: one draw ``r``; the ``int(r * n)``-th lowest of the ``n`` legal ones."""
        play = self._play
        while self.phase == PLAY:
            mask = _cascade(self, -1)
            skip = draw(random, mask.bit_count())
            while skip:
                mask &= mask - 1
                skip -= 1
            play((mask & -mask).bit_length() - 1)


def _lead_lock(state: SingleEngine, hand: int, locked: int) -> int:
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


def _locked_out(state: SingleEngine, legal: int, blocked: int, why: int, where: int) -> int:
    """``legal`` less the cards the shown-card lock ``blocked``, unless that leaves nothing.

    Then the seat is stuck and the lock lifts: for this play, or (``stuck="hand"``)
    for the rest of the hand, recorded only when not explaining.
    """
    kept = legal & ~blocked
    if kept:
        if why >= 0 and not kept >> why & 1:
            raise _Refused(_LOCK, where)
        return kept
    if state.lift_for_hand and why < 0 and legal:  # stuck by the lock, not empty-handed
        state.lifted[state.seat] = True
    return legal


def _cascade(state: SingleEngine, why: int) -> int:
    """The single-deck legality cascade over a :class:`SingleEngine`'s state.

    Returns the legal card mask.  With ``why`` a card index, raises
    :class:`_Refused` naming the step that removes it instead (and changes
    nothing: a lock that lifts for the hand is only recorded when not explaining).
    """
    seat = state.seat
    hand = state.holdings[seat]
    if why >= 0 and not hand >> why & 1:
        raise _Refused(_HOLDING)
    trick = state.trick
    if not trick:
        moment = _LEAD
        forced = state.forced
        if forced:
            legal = forced & hand or hand
            if why >= 0 and not legal >> why & 1:
                raise _Refused(_OPENING_LEAD, forced.bit_length() - 1)
            return legal
        legal = hand
        if state.lock_first:
            locked = 0 if state.lifted[seat] else state.locked[seat] & hand
            if locked:
                legal = _locked_out(state, legal, _lead_lock(state, hand, locked), why, _LEAD)
    else:
        led = SUIT_OF[trick[0]]
        follow = hand & SUIT_MASKS[led]
        if follow:
            moment = _FOLLOW
            if why >= 0 and not follow >> why & 1:
                raise _Refused(_FOLLOW_SUIT, led)
            legal = follow
            # a shown card may not follow in its suit's first trick, unless it is the only one
            if state.first_of_suit and state.lock_first:
                locked = 0 if state.lifted[seat] else state.locked[seat] & follow
                if locked and locked != follow:
                    legal = follow & ~locked
                    if why >= 0 and not legal >> why & 1:
                        raise _Refused(_LOCK, _FOLLOW)
        else:
            moment = _DISCARD
            legal = hand
            preferred = state.preferred
            if preferred is not None and state.strict:
                same_colour = hand & preferred[led]
                if same_colour:
                    if why >= 0 and not same_colour >> why & 1:
                        raise _Refused(_DISCARD_RULE, led)
                    legal = same_colour
            if state.lock_discards:
                locked = 0 if state.lifted[seat] else state.locked[seat] & hand
                if locked:
                    legal = _locked_out(state, legal, locked & state.unled, why, _DISCARD)
    rules = state.play_rules
    if rules:
        legal = _apply_play_rules(state, rules, _MOMENTS[moment], hand, legal, why)
    return legal


def _apply_play_rules(
    state: SingleEngine,
    rules: Sequence[PlayRule],
    moment: PlayMoment,
    hand: int,
    legal: int,
    why: int,
) -> int:
    """The plug-ins' own rules, each narrowing ``legal``, asked only where they can matter;
    one that would leave nothing lifts."""
    for position, rule in enumerate(rules):
        if not (moment & rule.when and legal & rule.cards):
            continue
        situation = PlaySituation(
            state.seat, hand, tuple(state.trick), state.played, state.unled, legal
        )
        kept = legal
        if rule.refuse is not None:
            refused = rule.refused(situation)
            kept &= ~(refused | refused >> SECOND_COPY)
        if kept and rule.require is not None:
            required = rule.required(situation)
            required = (required | required >> SECOND_COPY) & kept
            if required:
                kept = required
        if kept and kept != legal:
            if why >= 0 and not kept >> why & 1:
                raise _Refused(PLAY_RULE, position)
            legal = kept
    return legal


_SCALARS: Final = tuple(
    name
    for name in SingleEngine.__slots__
    if name not in {"lifted", "taken", "trick", "trick_log", "offenders"}
)

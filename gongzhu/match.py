"""Matches: hand after hand, with running totals, until the ruleset says it is over."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import GongzhuError, HandLimitReached, HandNotOver

if TYPE_CHECKING:
    from .hand import HandState
    from .rules import Rules

__all__ = ["HAND_LIMIT", "MATCH_FORMAT", "Match"]

MATCH_FORMAT = "gongzhu-match/1"
"""The ``format`` field of match records (:func:`gongzhu.record.match_record`)."""

HAND_LIMIT = 1000
"""The most hands :meth:`Match.play` (and a run of matches) lets a match take by default."""


class Match:
    """A match under one ruleset.  Create it with :meth:`Rules.new_match`.

    Each hand comes from :meth:`new_hand` (its leader follows the ruleset's
    rule for later hands, :func:`~gongzhu.hookspecs.gongzhu_next_leader`) and
    is added, finished, with :meth:`record_hand`.  The match is over when the
    ruleset says so (:func:`~gongzhu.hookspecs.gongzhu_match_over`): by
    default when a total reaches ``±target``, or after ``hands`` hands.

    :param first_dealer: the seat dealt the first card of the first hand.
    :param leader: who leads the first hand, any card (``None``: the ruleset's
        opening-lead rule).  :meth:`next_match` gives both to the match's loser
        (当猪 deals and starts the next match).
    """

    def __init__(
        self,
        rules: Rules,
        *,
        seed: int | None = None,
        target: int | None = None,
        hands: int | None = None,
        first_dealer: int = 0,
        leader: int | None = None,
    ) -> None:
        for name, value in (("target", target), ("number of hands", hands)):
            if value is not None and (not _is_int(value) or value <= 0):
                raise GongzhuError(f"a match {name} must be a positive integer, not {value!r}")
        for name, value in (("first dealer", first_dealer), ("leader", leader)):
            if value is not None and (not _is_int(value) or value not in range(4)):
                raise GongzhuError(f"a match's {name} must be a seat 0-3, not {value!r}")
        if seed is not None and not _is_int(seed):
            raise GongzhuError(f"a match seed must be an integer, not {seed!r}")
        self.rules = rules
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**63)
        self.target = target
        self.max_hands = hands
        self._seeds = random.Random(self.seed)
        self._hand_seeds: list[int] = []  # drawn from _seeds in order, as they are needed
        self.first_dealer = first_dealer
        self.leader = leader
        self.hands: list[HandState] = []
        self.totals: list[int] = [0, 0, 0, 0]

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        if self.max_hands is not None and len(self.hands) >= self.max_hands:
            return True
        return bool(self.hands) and self.rules.match_over(self.totals, len(self.hands), self.target)

    @property
    def losers(self) -> tuple[int, ...]:
        """The losers (当猪) of the finished match."""
        if not self.is_over:
            raise GongzhuError("the match is not over yet")
        return self.rules.match_losers(self.totals)

    def _seed(self, number: int) -> int:
        """The ``number``-th seed the match's seed gives (from 0), the same however often
        it is asked for: hand ``n``'s, or the next match's after ``n`` hands."""
        while len(self._hand_seeds) <= number:
            self._hand_seeds.append(self._seeds.randrange(2**63))
        return self._hand_seeds[number]

    def next_deal(self) -> tuple[int, int, int | None]:
        """How the next hand is dealt: its seed (derived from the match's), the seat dealt
        its first card, and its leader (``None``: the opening-lead rule).

        :meth:`new_hand` deals it; :meth:`record_hand` takes only a hand dealt so.
        """
        number = len(self.hands)
        if not number:
            return self._seed(0), self.first_dealer, self.leader
        return self._seed(number), 0, self.rules.next_leader(self.hands[-1])

    def new_hand(self) -> HandState:
        """Deal the next hand (:meth:`next_deal`; asked again, the same hand)."""
        if self.is_over:
            raise GongzhuError("the match is over")
        seed, first_seat, leader = self.next_deal()
        return self.rules.new_hand(seed, first_seat=first_seat, leader=leader)

    def record_hand(self, hand: HandState) -> tuple[int, ...]:
        """Add a finished hand's final scores to the totals; return them.

        The hand must be the match's next hand, as :meth:`new_hand` deals it
        (:meth:`next_deal`: the same seed, first seat and leader; a copy of it
        will do), played under the match's ruleset or an equal one (the same
        :meth:`Rules.spec <gongzhu.rules.Rules.spec>`): a match's record
        replays only so.

        :raises HandNotOver: the hand is not finished.
        :raises GongzhuError: the match is over, or the hand was played under
            another ruleset, is recorded in this match already, or is not the
            match's next hand; the match is unchanged.
        """
        if not hand.is_over:
            raise HandNotOver("only a finished hand can be added to a match")
        if any(recorded is hand for recorded in self.hands):
            raise GongzhuError("this hand is recorded in the match already")
        if self.is_over:
            raise GongzhuError("the match is over: it takes no more hands")
        if hand.rules is not self.rules and hand.rules.spec() != self.rules.spec():
            raise GongzhuError(
                f"the hand was played under {hand.rules!r}, not the match's {self.rules!r}"
            )
        seed, first_seat, leader = self.next_deal()
        dealt = (hand.seed, hand.deal.first_seat, hand.explicit_leader)
        which = f"this is not the match's next hand (hand {len(self.hands)}, from 0)"
        if dealt != (seed, first_seat, leader):  # (a seed names its deal: Rules.new_hand)
            raise GongzhuError(
                f"{which}: it is dealt from {_dealing(seed, first_seat, leader)}, "
                f"this one from {_dealing(*dealt)}"
            )
        final = hand.score().final
        self.totals = [t + f for t, f in zip(self.totals, final, strict=True)]
        self.hands.append(hand)
        return final

    def play(self, bots: Sequence[Any], *, hand_limit: int = HAND_LIMIT) -> None:
        """Play hands with ``bots`` (one per seat, :mod:`gongzhu.bots`) until the match is over.

        :param hand_limit: the most hands the match may take (its target may be
            out of reach: ``target=10**12``).
        :raises GongzhuError: for a match that cannot end: no ``hands``, no
            ``target``, and no plug-in of the ruleset deciding when matches end
            (:attr:`Rules.decides_match_end <gongzhu.rules.Rules.decides_match_end>`).
        :raises HandLimitReached: the match is not over after ``hand_limit`` hands
            (the hands played stay recorded).
        """
        if not _is_int(hand_limit) or hand_limit < 1:
            raise GongzhuError(f"a hand limit is a positive integer, not {hand_limit!r}")
        if len(bots) != 4:
            raise GongzhuError("a match needs four bots, one per seat")
        if self.max_hands is None and self.target is None and not self.rules.decides_match_end:
            raise GongzhuError(
                "this match never ends: give a target or a number of hands "
                f"({self.rules!r} has no end of its own)"
            )
        while not self.is_over:
            self.check_hand_limit(hand_limit)
            hand = self.new_hand()
            while (seat := hand.to_move) is not None:
                hand.apply(bots[seat].choose(hand.view(seat)))
            self.record_hand(hand)

    def check_hand_limit(self, hand_limit: int) -> None:
        """Refuse to go on once the match has taken ``hand_limit`` hands and is not over.

        :raises HandLimitReached: naming the target and the totals.
        """
        if not self.is_over and len(self.hands) >= hand_limit:
            target = "no target" if self.target is None else f"target {self.target}"
            raise HandLimitReached(
                f"the match did not end within {hand_limit} hands "
                f"({target}, {self.rules!r}; totals {self.totals})",
                self.target,
            )

    def next_match(self, seed: int | None = None) -> Match:
        """The next match: 当猪, the loser, deals its first hand and leads it.

        With several losers (a tie, or 双豬's two), the one with the lowest total
        deals, the lowest seat among equals.  The new match has this one's
        ruleset, target and number of hands; its seed derives from this match's
        (so a series replays from the first seed), unless ``seed`` is given.

        :raises GongzhuError: the match is not over.
        """
        losers = self.losers
        dealer = min(losers, key=lambda seat: (self.totals[seat], seat))
        return Match(
            self.rules,
            seed=self._seed(len(self.hands)) if seed is None else seed,
            target=self.target,
            hands=self.max_hands,
            first_dealer=dealer,
            leader=dealer,
        )

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record: every hand's record, the totals and (when over) the losers.

        The same as :func:`gongzhu.record.match_record(match) <gongzhu.record.match_record>`,
        where records are written (imported when called: the record layer sits
        above the match, since replaying a record builds matches).
        """
        from .record import match_record

        return match_record(self)


def _dealing(seed: int | None, first_seat: int, leader: int | None) -> str:
    """How a hand was dealt, for a message."""
    led = "the opening-lead rule" if leader is None else f"seat {leader}"
    shuffled = "no seed" if seed is None else f"seed {seed}"
    return f"{shuffled}, first card to seat {first_seat}, led by {led}"


def _is_int(value: object) -> bool:
    """An integer, and not a bool (records keep the two apart)."""
    return isinstance(value, int) and not isinstance(value, bool)

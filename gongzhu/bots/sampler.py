"""Sampling the hidden cards: the soft facts a sound player's play suggests, beside the hard
facts and the consistent deals of :mod:`gongzhu.implied`.

What the rules imply of the hidden cards (voids, the shown-card lock, what a
view fixes) and the deals that agree with a view are :mod:`gongzhu.implied`'s
(:mod:`gongzhu.bots` exports them too); this module adds :func:`infer`, what the play
says of the hidden cards beyond the rules, when a seat plays as a sound
player would.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

from ..actions import key_of_play
from ..cards import PIG, TRANSFORMER, Card, Rank, Suit, full_deck
from ..deal import SEATS
from ..engines.base import winning_position
from ..implied import DealSource, Knowledge, card_values, knowledge, start_of_play
from ..masks import CardMask, mask_of
from ..play import Capability
from ..rules import Rules
from ..view import SeatView

__all__ = [
    "HEART_FACTOR",
    "MISMATCH_FACTOR",
    "PIG_FACTOR",
    "Inference",
    "PlayReading",
    "infer",
]


PIG_FACTOR: Final = 0.1
"""The default weight of a sample giving the pig to a seat whose play says it has none."""

HEART_FACTOR: Final = 0.3
"""The default weight of each heart a sample gives to a seat whose discard says it has none."""

MISMATCH_FACTOR: Final = 0.3
"""The default weight :class:`PlayReading` gives a sampled deal for each play on it that the
greedy policy would not have made."""

_ALL_SUITS: Final = frozenset(Suit)
_PIG_GUARDS = frozenset({Card.parse("KS"), Card.parse("AS")})


@attrs.frozen
class Inference:
    """Soft facts read from the play so far: which seats are unlikely to hold which cards.

    Computed by :func:`infer`; a :class:`Determinizer` deals by it.  A sampled
    deal's weight is the product, over the hidden cards, of the factor of the
    seat the deal gives each card to.  Every factor is above zero, so no deal
    the view allows is excluded: an inference can be wrong (a seat may play
    otherwise than the reading expects) and only makes such deals rarer.

    :ivar factors: for each card the play argues about, a factor for each
        seat (1: nothing is inferred).
    """

    factors: dict[Card, tuple[float, ...]] = attrs.field(factory=dict)

    def __bool__(self) -> bool:
        return bool(self.factors)

    def weight(self, holdings: Sequence[Iterable[Card]]) -> float:
        """The relative weight of a deal of ``holdings`` (each seat's hidden cards)."""
        weight = 1.0
        for seat, cards in enumerate(holdings):
            for card in cards:
                factors = self.factors.get(card)
                if factors is not None:
                    weight *= factors[seat]
        return weight


def infer(
    view: SeatView,
    rules: Rules,
    teams: Sequence[int] = (0, 1, 2, 3),
    *,
    pig: float = PIG_FACTOR,
    hearts: float = HEART_FACTOR,
) -> Inference:
    """What the play so far tells of the hidden cards, beyond the rules (one deck).

    It reads the plays as a sound player makes them (as the heuristic and
    search bots do), each reading weighting the samples by a factor:

    - ``pig``: a seat that discarded on a trick an opponent was winning, or
      followed spades under an opponent's ♠K or ♠A, without playing the pig,
      likely has no pig (a sound player gets rid of it there);
    - ``hearts``: a seat that discarded on an opponent's trick a card that is
      neither a heart nor the pig, ♠K, ♠A or the transformer likely has no
      heart worth points; one that discarded a heart, none worth fewer
      points (more negative).

    A seat that later plays a card its play said it had not is not read as
    a sound player: nothing is inferred of it.  No inference is made under a
    discard rule that could have forced the discard, with two decks, or of
    the viewer.

    :param teams: each seat's team (partners do not give each other points).
    :param pig: the factor of the pig (in ``(0, 1]``; 1 infers nothing).
    :param hearts: the factor of each heart worth points.
    """
    if not (0 < pig <= 1 and 0 < hearts <= 1):
        raise ValueError(f"inference factors must be in (0, 1], not {pig} and {hearts}")
    if rules.table.copies != 1:
        return Inference()
    table = rules.table
    value = {card: table.base_value(card) for card in full_deck() if card.suit is Suit.HEARTS}
    bad_hearts = [card for card, points in value.items() if points < 0 or card.rank >= Rank.TEN]
    rule = rules.discard_rule
    flags: list[dict[Card, float]] = [{} for _ in range(SEATS)]
    trusted = [seat != view.seat for seat in range(SEATS)]
    tricks = [t.plays for t in view.tricks]
    if view.current_trick:
        tricks.append(view.current_trick)

    def note(seat: int, cards: Iterable[Card], factor: float) -> None:
        if factor < 1:
            mine = flags[seat]
            for card in cards:
                mine[card] = min(mine.get(card, 1.0), factor)

    for plays in tricks:
        led = plays[0][1][0].suit
        leader = plays[0][0]
        best_key = key_of_play(plays[0][1])
        best_seat = leader
        free_suits = _ALL_SUITS if rule is None else rule.preferred.get(led, _ALL_SUITS)
        for index, (seat, cards) in enumerate(plays):
            card = cards[0]
            if card in flags[seat]:
                trusted[seat] = False  # it held a card its play said it had not
            if index:  # who is winning before this play: the engines' rule (one deck here)
                key = key_of_play(plays[index - 1][1])
                if winning_position((best_key, key)):  # (the best so far, then the last play)
                    best_key, best_seat = key, plays[index - 1][0]
                best_rank = plays[(best_seat - leader) % SEATS][1][0].rank
            if index and len(cards) == 1 and teams[best_seat] != teams[seat]:
                if card.suit is not led:
                    if rule is None or Suit.SPADES in free_suits:
                        note(seat, (PIG,) if card != PIG else (), pig)
                    if rule is None or Suit.HEARTS in free_suits:
                        if card.suit is Suit.HEARTS:
                            worse = [h for h in bad_hearts if value[h] < value[card]]
                            note(seat, worse, hearts)
                        elif card != PIG and card != TRANSFORMER and card not in _PIG_GUARDS:
                            note(seat, bad_hearts, hearts)
                elif led is Suit.SPADES and best_rank > Rank.QUEEN and card != PIG:
                    note(seat, (PIG,), pig)
    factors: dict[Card, list[float]] = {}
    for seat in range(SEATS):
        if trusted[seat]:
            for card, factor in flags[seat].items():
                factors.setdefault(card, [1.0] * SEATS)[seat] = factor
    return Inference({card: tuple(f) for card, f in factors.items()})


class PlayReading:
    """The plays so far, read against each sampled deal: a deal on which the other seats'
    plays look like a sound player's is the likelier (a :class:`~gongzhu.implied.DealReading`).

    A sampled deal is weighted ``factor ** n``, where ``n`` counts the plays of the other
    seats (where they had a choice) that the greedy playout policy
    (:func:`~gongzhu.bots.playout.greedy_rollout_policy`, playing for the teams) would not
    have made holding the deal's cards.  The engine replays the view's plays on each deal
    from the start of the play (:attr:`~gongzhu.play.Capability.MISMATCHES`), so this reads
    every play the policy would make otherwise, where :func:`infer` reads a few by rules.
    A :class:`~gongzhu.implied.Determinizer` given it draws each sample among
    ``candidates`` dealt deals by these weights.

    :param view: the viewer's view (play phase).
    :param rules: the ruleset being played (its engine must offer
        :attr:`~gongzhu.play.Capability.MISMATCHES` and
        :attr:`~gongzhu.play.Capability.REDEAL`).
    :param rng: draws the deal the plays are replayed from (:func:`~gongzhu.implied.start_of_play`).
    :param teams: each seat's team (the policy plays for them).
    :param candidates: the deals each sample is chosen among.
    :param factor: a deal's weight for each play the policy would not have made, in ``(0, 1]``.
    :param leads: read leads too (the policy leads its lowest card, which a sound player
        often does not); ``False`` reads follows and discards only.
    :param points: read only the follows and discards where the policy's card or the
        seat's is worth points or is the transformer (where a sound player's choice hangs
        on the cards that score, not on which plain card it sheds).
    :param facts: ``knowledge(view, rules)``, when the caller has it already.
    :raises Inconsistent: the view is not in the play phase, or agrees with no deal.
    :raises IncompatibleVariants: the engine does not offer both capabilities.
    """

    def __init__(
        self,
        view: SeatView,
        rules: Rules,
        rng: random.Random,
        teams: Sequence[int] | None = None,
        *,
        candidates: int = 8,
        factor: float = MISMATCH_FACTOR,
        leads: bool = False,
        points: bool = False,
        facts: Knowledge | None = None,
    ) -> None:
        if not 0 < factor <= 1:
            raise ValueError(f"the mismatch factor must be in (0, 1], not {factor}")
        if candidates < 1:
            raise ValueError(f"candidates must be at least 1, not {candidates}")
        self.candidates = candidates
        self.factor = factor
        self.leads = leads
        self.points = points
        facts = knowledge(view, rules) if facts is None else facts
        start = start_of_play(view, rules, rng, facts=facts)
        self._spec = spec = rules.engine_spec
        spec.capable(start.engine, Capability.REDEAL)  # (raises where the engine lacks it)
        self._start = start.engine
        self._reader = spec.capable(start.engine, Capability.MISMATCHES)
        """The start's engine, typed for :meth:`draw` (which does not change it)."""
        self._teams = None if teams is None else tuple(teams)
        self._played = [mask_of(cards) for cards in facts.played]
        plays = [p for t in view.tricks for p in t.plays] + list(view.current_trick)
        self._keys = [key_of_play(cards) for _, cards in plays]
        self._values = list(card_values(rules, view)[:52])
        self._seats = sum(1 << seat for seat in range(SEATS) if seat != view.seat)

    def draw(self, dealer: DealSource, rng: random.Random) -> list[CardMask] | None:
        """One of ``candidates`` deals of ``dealer``, each as likely as its weight
        (:meth:`weigh`): the engine deals and weighs them where the dealer has a C twin, else
        :meth:`draw_in_python`, draw for draw the same."""
        native = dealer.native
        if native is None:
            return self.draw_in_python(dealer, rng)
        masks = self._reader.read_deal(
            native,
            self.candidates,
            self._played,
            self.factor,
            rng.random,
            self._keys,
            self._values,
            self._seats,
            self._teams,
            self.leads,
            self.points,
        )
        return masks

    def draw_in_python(self, dealer: DealSource, rng: random.Random) -> list[CardMask] | None:
        """:meth:`draw` in Python, the reference: after each dealt deal of weight ``w`` > 0,
        one ``rng.random()`` keeps it with chance ``w`` / the weights so far."""
        chosen = None
        total = 0.0
        for _ in range(self.candidates):
            masks = dealer.deal(rng)
            if masks is None:
                continue
            weight = self.weigh(masks)
            total += weight
            if weight > 0 and rng.random() * total < weight:
                chosen = masks
        return chosen

    def weigh(self, holdings: Sequence[CardMask]) -> float:
        """``factor`` to the number of the other seats' plays the policy would not have made,
        on the deal whose hidden holdings are now ``holdings``."""
        if not self._keys:
            return 1.0
        engine = self._start.copy()
        dealt = [now | played for now, played in zip(holdings, self._played, strict=True)]
        self._spec.capable(engine, Capability.REDEAL).redeal(dealt)
        misses = self._spec.capable(engine, Capability.MISMATCHES).mismatches(
            self._keys, self._values, self._seats, self._teams, self.leads, self.points
        )
        return float(self.factor**misses)

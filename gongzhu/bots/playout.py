"""Playout policies: how a search plays a sampled hand to its end, fast.

The search bot (:class:`~gongzhu.bots.search.SearchBot`) plays each sampled
deal out with a cheap policy.  :func:`greedy_rollout_policy` is the default:
the engines that declare :attr:`~gongzhu.play.Capability.GREEDY_PLAYOUT` play
it inside the engine (:meth:`HandState.greedy_play_out
<gongzhu.hand.HandState.greedy_play_out>`), choice for choice and draw for draw,
reading each card's value from :func:`card_values`: the values the shows so
far give the cards (a shown pig is worth −200 to whoever takes it), so the
playout ducks and discards for the stakes of the hand being played.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import cast

from .. import implied
from ..actions import Action, Play, ShowKind, cards_of_key, play_of_key
from ..cards import PIG, SHEEP, TRANSFORMER, Card, Rank, Suit
from ..deal import SEATS
from ..engines.base import winning_position
from ..hand import HandState
from ..rules import Rules
from ..scoring import show_record
from ..view import Phase

__all__ = [
    "RolloutPolicy",
    "card_values",
    "greedy_rollout_policy",
    "random_rollout_policy",
]


RolloutPolicy = Callable[[HandState, random.Random], Action]
"""A fast policy for playouts: the action to apply in a (full-information) state."""

_QUEEN = int(Rank.QUEEN)


class _PlayFacts(dict[int, tuple[int, int, int, int, int, int]]):
    """What the greedy playout policy reads of each play, by play key, for one ruleset.

    A play's facts are ``(top, top_rank, first_suit, value, max_rank, flags)``:
    the index of its top card (the higher rank of two), that card's rank,
    the suit of its first card, the sum of its cards' base values, the
    highest rank in it, and ``_PIG_FLAG`` / ``_SHEEP_FLAG`` /
    ``_TRANSFORMER_FLAG`` bits.  Two-card plays are added when first asked for.
    """

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = weakref.ref(rules)
        self.card_values = implied.card_values(rules)[:52]  # no show: the base values
        self.pair_beats_unmatched = rules.play_config.pair_beats_unmatched
        for key in range(52):
            self[key] = self._facts(key)

    def __missing__(self, key: int) -> tuple[int, int, int, int, int, int]:
        facts = self[key] = self._facts(key)
        return facts

    def _facts(self, key: int) -> tuple[int, int, int, int, int, int]:
        cards = play_of_key(key).cards
        top = _top(cards)
        flags = 0
        for card in cards:
            flags |= _FLAGS.get(card.index, 0)
        return (
            top.index,
            int(top.rank),
            int(cards[0].suit),
            sum(self.card_values[card.index] for card in cards),
            max(int(card.rank) for card in cards),
            flags,
        )


_PIG_FLAG = 1
_SHEEP_FLAG = 2
_TRANSFORMER_FLAG = 4
_FLAGS = {PIG.index: _PIG_FLAG, SHEEP.index: _SHEEP_FLAG, TRANSFORMER.index: _TRANSFORMER_FLAG}
_FACTS: weakref.WeakKeyDictionary[Rules, _PlayFacts] = weakref.WeakKeyDictionary()
_LAST_FACTS: list[_PlayFacts] = []  # the last ruleset's, checked by identity first
_SPADES_I = int(Suit.SPADES)
_HEARTS_I = int(Suit.HEARTS)


def _play_facts(rules: Rules) -> _PlayFacts:
    if _LAST_FACTS and _LAST_FACTS[0].rules() is rules:
        return _LAST_FACTS[0]
    facts = _FACTS.get(rules)
    if facts is None:
        facts = _FACTS[rules] = _PlayFacts(rules)
    _LAST_FACTS[:] = [facts]
    return facts


def random_rollout_policy(state: HandState, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(state.legal_actions())


def _top(cards: tuple[Card, ...]) -> Card:
    return cards[0] if len(cards) == 1 or cards[0].rank >= cards[1].rank else cards[1]


def greedy_rollout_policy(
    state: HandState, rng: random.Random, teams: Sequence[int] | None = None
) -> Action:
    """A cheap greedy player: the heuristic's main rules, reading only the trick and the cards.

    Leads low (never the pig, its guards, the sheep or the transformer by
    choice; among leads alike for it, such as the lowest card of two suits,
    one drawn at random: one ``rng.random()``, only where there is a tie);
    follows under a trick holding points, wins a trick holding the sheep,
    drops the pig under ♠K/♠A; discards the pig, then the transformer onto
    points, the worst heart, then high cards, never the sheep.  A few
    microseconds a decision, for playouts on sampled states: it reads plays
    by their keys (:attr:`HandState.trick_keys <gongzhu.hand.HandState.trick_keys>`).

    :param teams: each seat's team, for a playout that knows the partners: a
        seat that cannot follow while its teammate's card wins the trick gives
        it the play worth the most points (the sheep), else its highest clean
        card, rather than the pig or a heart.  ``None``: every seat for itself.
    """
    if state.phase is not Phase.PLAY:
        return rng.choice(state.legal_actions())
    legal = cast(tuple[Play, ...], state.legal_actions())
    if len(legal) == 1:
        return legal[0]
    facts = _play_facts(state.rules)
    trick = state.trick_keys
    if not trick:  # the lowest lead key; one draw picks among the plays that share it
        tied: list[Play] = []
        best_key = 1 << 20
        for play in legal:
            top, rank, _suit, _value, _high, flags = facts[play.key]
            key = rank
            suit = top // 13
            if suit == _SPADES_I:
                if top == _PIG_INDEX:
                    key += 30
                elif rank > _QUEEN:
                    key += 20
            elif suit == _HEARTS_I:
                key += 2
            elif top in (_SHEEP_INDEX, _TRANSFORMER_INDEX):
                key += 15
            if key < best_key:
                best_key = key
                tied = [play]
            elif key == best_key:
                tied.append(play)
        if len(tied) == 1:
            return tied[0]
        return tied[int(rng.random() * len(tied))]
    values = facts.card_values
    led = facts[trick[0]][2]
    points = 0
    negative = False
    for key in trick:
        for index in cards_of_key(key):
            value = values[index]
            points += value
            negative = negative or value < 0
    # the winning play so far, as the engines rank plays (pairs included), and its top rank
    best_at = winning_position(trick, facts.pair_beats_unmatched)
    best_rank = facts[trick[best_at]][1]
    last = len(trick) == 3
    follow = [(facts[p.key], p) for p in legal]
    follow = [entry for entry in follow if entry[0][2] == led]
    if follow:
        if led == _SPADES_I and best_rank > _QUEEN:
            for f, play in follow:
                if f[5] & _PIG_FLAG:
                    return play
        under = [entry for entry in follow if entry[0][1] < best_rank]
        over = [entry for entry in follow if entry[0][1] > best_rank]
        if negative or led == _HEARTS_I:
            if under:
                return max(under, key=_by_top_rank)[1]
            return (max if last else min)(follow, key=_by_top_rank)[1]
        safe = [entry for entry in follow if not entry[0][5] & _PIG_FLAG] or follow
        if points > 0 and over:
            return (min if last else max)(over, key=_by_top_rank)[1]
        if last:
            for f, play in over:
                if f[5] & _SHEEP_FLAG:
                    return play
            keep = [entry for entry in safe if not entry[0][5] & (_SHEEP_FLAG | _TRANSFORMER_FLAG)]
            return max(keep or safe, key=_by_top_rank)[1]
        if under:
            return max(under, key=_by_top_rank)[1]
        return min(safe, key=_by_top_rank)[1]
    if teams is not None:
        seat = state.to_move
        assert seat is not None  # the play phase
        if teams[(state.trick_leader + best_at) % SEATS] == teams[seat]:
            return max(legal, key=lambda play: _gift_key(facts[play.key]))
    worst = legal[0]
    worst_key = -1e9
    for play in legal:
        _top_i, _rank, _suit, value, rank, flags = facts[play.key]
        key = -value * 2 + rank
        if flags & _PIG_FLAG:
            key += 1000
        if flags & _TRANSFORMER_FLAG:
            key += 300 if negative else -30
        if value > 0:
            key -= 500
        if key > worst_key:
            worst_key, worst = key, play
    return worst


_PIG_INDEX = PIG.index
_SHEEP_INDEX = SHEEP.index
_TRANSFORMER_INDEX = TRANSFORMER.index


def _gift_key(facts: tuple[int, int, int, int, int, int]) -> int:
    """How much a discard onto a teammate's trick is worth giving: points, then rank; never
    the transformer."""
    _top_i, _rank, _suit, value, rank, flags = facts
    return value * 10 + rank - (500 if flags & _TRANSFORMER_FLAG else 0)


def _by_top_rank(entry: tuple[tuple[int, int, int, int, int, int], Play]) -> int:
    return entry[0][1]


def card_values(rules: Rules, shown: Iterable[tuple[Card, ShowKind]] = ()) -> list[int]:
    """Each card's value by card index, as the shows make it (for the greedy playout).

    :param shown: each shown card with the kind of its show.

    The scorer's values (:func:`gongzhu.implied.card_values`): a shown card
    counts its base value times its shows' factors (a shown pig −200, 首明
    −400); a shown showable heart multiplies every heart; the transformer
    counts 0.  With two decks, each card's first copy (its shown copy, where
    one is shown).

    >>> import gongzhu
    >>> from gongzhu import Card, ShowKind
    >>> rules = gongzhu.load_rules()
    >>> pig = Card.parse("QS")
    >>> card_values(rules)[pig.index], card_values(rules, [(pig, ShowKind.OPEN)])[pig.index]
    (-100, -200)
    """
    records = [show_record(0, card, kind) for card, kind in shown]  # (no seat changes a value)
    return list(implied.card_values(rules, records)[:52])

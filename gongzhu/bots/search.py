"""The search bot: determinised Monte-Carlo search over deals sampled from the view."""

from __future__ import annotations

import random
import time
import weakref
from collections.abc import Callable, Sequence
from typing import cast

from ..actions import Action, Play, play_of_key
from ..cards import PIG, SHEEP, TRANSFORMER, Card, Rank, Suit, full_deck
from ..hand import HandState
from ..rules import Rules, load_rules
from ..view import Phase, SeatView
from .heuristic import HeuristicBot
from .sampler import Determinizer, Inconsistent

__all__ = [
    "DEFAULT_BUDGET_MS",
    "RolloutPolicy",
    "SearchBot",
    "greedy_rollout_policy",
    "random_rollout_policy",
]


DEFAULT_BUDGET_MS = 50.0
"""The default time budget of one decision, in milliseconds (on one core)."""

RolloutPolicy = Callable[[HandState, random.Random], Action]
"""A fast policy for playouts: the action to apply in a (full-information) state."""

_QUEEN = int(Rank.QUEEN)
_SPADES = Suit.SPADES
_HEARTS = Suit.HEARTS


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
        self.card_values = tuple(rules.table.base_value(card) for card in full_deck())
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


def greedy_rollout_policy(state: HandState, rng: random.Random) -> Action:
    """A cheap greedy player: the heuristic's main rules, reading only the trick and the cards.

    Leads low (never the pig, its guards, the sheep or the transformer by
    choice); follows under a trick holding points, wins a trick holding the
    sheep, drops the pig under ♠K/♠A; discards the pig, then the transformer
    onto points, the worst heart, then high cards, never the sheep.  A few
    microseconds a decision, for playouts on sampled states: it reads plays
    by their keys (:attr:`HandState.trick_keys <gongzhu.hand.HandState.trick_keys>`).
    """
    if state.phase is not Phase.PLAY:
        return rng.choice(state.legal_actions())
    legal = cast(tuple[Play, ...], state.legal_actions())
    if len(legal) == 1:
        return legal[0]
    facts = _play_facts(state.rules)
    trick = state.trick_keys
    if not trick:
        best_play = legal[0]
        best_key = 1e9
        random_ = rng.random
        for play in legal:
            top, rank, _suit, _value, _high, flags = facts[play.key]
            key = rank + random_()
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
                best_key, best_play = key, play
        return best_play
    values = facts.card_values
    led = facts[trick[0]][2]
    best_rank = 0
    points = 0
    negative = False
    for key in trick:
        if key < 52:
            value = values[key]
            points += value
            negative = negative or value < 0
            if key // 13 == led and key % 13 + 2 > best_rank:
                best_rank = key % 13 + 2
            continue
        first, second = divmod(key - 52, 52)
        for index in (first, second):
            value = values[index]
            points += value
            negative = negative or value < 0
            if index // 13 == led and index % 13 + 2 > best_rank:
                best_rank = index % 13 + 2
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


def _by_top_rank(entry: tuple[tuple[int, int, int, int, int, int], Play]) -> int:
    return entry[0][1]


_OBJECTIVES = ("final", "raw", "team")

_POLICIES: dict[str, RolloutPolicy] = {
    "greedy": greedy_rollout_policy,
    "random": random_rollout_policy,
}


class SearchBot:
    """Determinised Monte-Carlo search: sampled deals, each action played out, best mean score.

    :param seed: seeds the sampling and the playouts.
    :param rules: the ruleset being played (the view does not carry it; the
        sampled states are hands of this ruleset).  Default: 39baobao.
    :param budget_ms: the time budget of one decision, in milliseconds
        (default :data:`DEFAULT_BUDGET_MS`); ``None`` for no time limit.
    :param samples: the most sampled deals per decision (``None``: as many
        as the time budget allows).  With ``budget_ms=None`` this makes the
        bot deterministic for a seed, whatever the machine.
    :param rollout: the playout policy: ``"greedy"`` (default) or ``"random"``,
        or a :data:`RolloutPolicy`.
    :param playouts: playouts per action per sampled deal.
    :param margin: the search overrules the heuristic's choice only when its
        best action beats it by more than ``margin`` standard errors (paired
        over the sampled deals); ``None`` always takes the search's best.
    :param prune: from four sampled deals on (checked after every eighth or
        so more), stop playing out the actions whose mean is ``prune``
        standard errors (paired) below the best's, so the budget goes to the
        contenders; ``None`` plays out every action.
    :param objective: what a playout is worth to the seat: ``"final"``
        (default) its final score under the ruleset, normalisation included
        (under 39baobao's zero-sum results that counts every other seat's
        points against it); ``"raw"`` its own raw points only; ``"team"`` its
        raw points plus its partner's (the seat opposite), for 2-vs-2
        partnership play.
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        budget_ms: float | None = DEFAULT_BUDGET_MS,
        samples: int | None = None,
        rollout: str | RolloutPolicy = "greedy",
        playouts: int = 1,
        margin: float | None = 1.0,
        prune: float | None = 2.0,
        objective: str = "final",
    ) -> None:
        if budget_ms is None and samples is None:
            raise ValueError("SearchBot needs a budget: budget_ms, samples or both")
        if budget_ms is not None and not budget_ms > 0:
            raise ValueError(f"budget_ms must be a positive number of ms, not {budget_ms}")
        if samples is not None and samples < 1:
            raise ValueError(f"samples must be at least 1, not {samples}")
        if objective not in _OBJECTIVES:
            raise ValueError(
                f"objective must be one of {', '.join(map(repr, _OBJECTIVES))}, not {objective!r}"
            )
        self.objective = objective
        self.rules = load_rules() if rules is None else rules
        self.budget_ms = budget_ms
        self.samples = samples
        self.playouts = playouts
        self.margin = margin
        self.prune = prune
        self.policy: RolloutPolicy = _POLICIES[rollout] if isinstance(rollout, str) else rollout
        self._rng = random.Random(seed)
        self._fallback = HeuristicBot(seed, rules=self.rules)
        self.last_stats: dict[str, float] = {}
        """Of the last decision: ``samples`` drawn, ``playouts`` run, ``ms`` spent."""

    def choose(self, view: SeatView) -> Action:
        """The legal action with the best mean score over sampled deals and playouts."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if len(legal) == 1:
            return legal[0]
        if view.phase is not Phase.PLAY:
            return self._fallback.choose(view)
        return self._search(view, legal)

    def _search(self, view: SeatView, legal: Sequence[Action]) -> Action:
        start = time.perf_counter()
        deadline = None if self.budget_ms is None else start + self.budget_ms / 1000
        rng = self._rng
        seat = view.seat
        prior = self._fallback.choose(view) if self.margin is not None else None
        keep = None if prior is None else legal.index(prior)
        scores: list[list[float]] = [[] for _ in legal]
        active = list(range(len(legal)))
        try:
            sampler = Determinizer(view, self.rules)
        except Inconsistent:
            return self._fallback.choose(view)
        samples = 0
        playouts = 0
        next_prune = 4
        policy = self.policy
        objective = self.objective
        partner = (seat + 2) % 4
        in_engine = policy is greedy_rollout_policy  # the engine may play it out itself
        values = _play_facts(self.rules).card_values
        draw = rng.random
        while self.samples is None or samples < self.samples:
            if deadline is not None and samples:
                now = time.perf_counter()
                per_sample = (now - start) / samples
                if now + per_sample > deadline:  # the next sample would overrun the budget
                    break
            try:
                state = sampler.sample(rng)
            except Inconsistent:
                break
            samples += 1
            for i in active:
                total = 0.0
                for _ in range(self.playouts):
                    child = state.clone()
                    child.apply(legal[i])
                    if not (in_engine and child.greedy_play_out(values, draw)):
                        while not child.is_over:
                            child.apply(policy(child, rng))
                    if objective == "final":
                        total += child.returns()[seat]
                    else:
                        raw = child.raw_scores()
                        total += raw[seat] + (raw[partner] if objective == "team" else 0)
                scores[i].append(total / self.playouts)
                playouts += self.playouts
            if self.prune is not None and samples >= next_prune and len(active) > 2:
                active = self._pruned(active, scores, keep)
                next_prune = samples + 1 + samples // 8  # the test costs O(samples): not each time
        self.last_stats = {
            "samples": samples,
            "playouts": playouts,
            "ms": (time.perf_counter() - start) * 1000,
        }
        if not samples:
            return self._fallback.choose(view)
        means = {i: sum(scores[i]) / len(scores[i]) for i in active}
        best = max(active, key=means.__getitem__)
        if keep is None or best == keep or samples < 2:
            return legal[best]
        # keep the heuristic's choice unless the search is sure enough it is worse
        mean, stderr = _paired(scores[best], scores[keep])
        assert self.margin is not None
        if mean > self.margin * stderr:
            return legal[best]
        return legal[keep]

    def _pruned(self, active: list[int], scores: list[list[float]], keep: int | None) -> list[int]:
        """``active`` less the actions clearly worse than the best so far (``prune`` errors)."""
        assert self.prune is not None
        best = max(active, key=lambda i: sum(scores[i]) / len(scores[i]))
        out = []
        for i in active:
            if i in (best, keep):
                out.append(i)
                continue
            mean, stderr = _paired(scores[best], scores[i])
            if mean <= self.prune * stderr:
                out.append(i)
        return out


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """The mean of ``a - b`` over their common (first) samples, and its standard error."""
    n = min(len(a), len(b))
    diffs = [x - y for x, y in zip(a[:n], b[:n], strict=True)]
    if n < 2:
        return (diffs[0] if diffs else 0.0), float("inf")
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5

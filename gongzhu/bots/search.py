"""The search bot: determinised Monte-Carlo search over deals sampled from the view.

For each decision, cards to play or shows to make alike, the bot samples the
hidden cards consistently with its view (:class:`~gongzhu.implied.Determinizer`),
plays each legal action on the sample, plays the hand out with a fast policy
(:mod:`gongzhu.bots.playout`) and scores it for its objective
(:mod:`gongzhu.bots.objective`): its team's points in 2-vs-2, once told the
format (:func:`~gongzhu.bots.tell_format`), its final score otherwise.
"""

from __future__ import annotations

import math
import numbers
import operator
import random
import time
from collections.abc import Callable, Sequence
from typing import Final, cast

from ..actions import Action
from ..hand import HandState
from ..implied import Determinizer, Inconsistent, knowledge
from ..masks import CardMask
from ..play import PLAY_PHASE, Capability, GreedyPlayoutEngine, HandEngine, greedy_playout
from ..rules import Rules, load_rules
from ..view import Phase, SeatView
from .base import Bot
from .objective import OBJECTIVES, EngineScorer, Objective, default_objective, seat_objective
from .playout import (
    RolloutPolicy,
    card_values,
    greedy_rollout_policy,
    random_rollout_policy,
)
from .registry import UnknownBot, make_bot
from .rulebook import RulesBot, Situation, alike_plays, quick_show
from .sampler import MISMATCH_FACTOR, PlayReading, infer
from .teams import TableFormat, format_of, tell_format

__all__ = [
    "CLOCKS",
    "DEFAULT_BUDGET_MS",
    "DEFAULT_ENDGAME",
    "DEFAULT_READING",
    "ROLLOUTS",
    "SHOW_MODES",
    "RolloutPolicy",
    "SearchBot",
    "check_endgame",
    "greedy_rollout_policy",
    "random_rollout_policy",
]


DEFAULT_BUDGET_MS: Final = 50.0
"""The default time budget of one decision, in milliseconds (on one core)."""

SHOW_MODES: Final = ("search", "prior", "heuristic")
"""How the search bot decides its shows (亮牌, 首明, 暗卖): by search, or by its prior (the
rules of thumb by default); ``"heuristic"`` is the older name of ``"prior"``."""

_POLICIES: dict[str, RolloutPolicy] = {
    "greedy": greedy_rollout_policy,
    "random": random_rollout_policy,
}
ROLLOUTS: Final = ("auto", *_POLICIES)
"""The playout policies by name: ``"auto"`` is ``"greedy"`` where the ruleset's engine plays it
itself (:attr:`~gongzhu.play.Capability.GREEDY_PLAYOUT`), else ``"random"`` (every engine
plays random playouts itself, a hundred times as fast as a greedy one in Python)."""

CLOCKS: Final[dict[str, Callable[[], float]]] = {
    "wall": time.perf_counter,
    "cpu": time.thread_time,
}
"""What a time budget measures: ``"wall"`` (elapsed time) or ``"cpu"`` (the thread's
processor time)."""


DEFAULT_ENDGAME: Final = 3
"""The hand's last tricks the search's playouts search exactly at a table of two teams
(``endgame``), where the engine offers it (:attr:`~gongzhu.play.Capability.ENDGAME`)."""

DEFAULT_READING: Final = 8
"""The dealt deals each sample is drawn among by the reading of the plays (``reading``), where
the engine offers it (:attr:`~gongzhu.play.Capability.MISMATCHES`)."""

_RESERVE: Final = 0.04
"""The part of the budget kept for choosing once the sampling stops."""

_RESERVE_MS: Final = 0.3
"""The least time kept for choosing, in milliseconds."""


class SearchBot:
    """Determinised Monte-Carlo search: sampled deals, each action played out, best mean score.

    :param seed: seeds the sampling and the playouts.
    :param rules: the ruleset being played (the view does not carry it; the
        sampled states are hands of this ruleset).  Default: 39baobao.
    :param budget_ms: the time budget of one decision, in milliseconds
        (default :data:`DEFAULT_BUDGET_MS`); ``None`` for no time limit.  The
        bot stops sampling when the next sample would not fit, and drops a
        sample a slow playout would overrun, so a decision takes no longer.
    :param samples: the most sampled deals per decision (``None``: as many
        as the time budget allows).  With ``budget_ms=None`` this makes the
        bot deterministic for a seed, whatever the machine.
    :param rollout: the playout policy: ``"auto"`` (default, see :data:`ROLLOUTS`),
        ``"greedy"`` or ``"random"``, or a :data:`~gongzhu.bots.playout.RolloutPolicy`.
    :param playouts: playouts per action per sampled deal.
    :param margin: the search overrules the prior's choice only when its
        best action beats it by more than ``margin`` standard errors (paired
        over the sampled deals); ``None`` always takes the search's best.
    :param prune: from four sampled deals on (checked after every eighth or
        so more), stop playing out the actions whose mean is ``prune``
        standard errors (paired) below the best's, so the budget goes to the
        contenders; once one action is left the decision is made and the
        sampling stops; ``None`` plays out every action.
    :param objective: what a playout is worth to the seat
        (:mod:`gongzhu.bots.objective`): ``"final"``, ``"raw"`` or ``"team"``;
        ``None`` (default) is ``"team"`` at a table with partners and
        ``"final"`` otherwise.
    :param format: the table's format (:func:`~gongzhu.bots.format_of`); a
        bot may also be told it later (:meth:`set_format`).  Default: every
        seat for itself.
    :param team_trick: at a table with partners (one deck), the greedy
        playout played inside the engine (the default rollout, one playout
        an action) finishes the trick under way for the teams: a seat that
        cannot follow gives its points to a teammate's winning card (the
        greedy policy with ``teams``).  ``False`` plays it as every seat for
        itself.  Random rollouts, and playouts played state by state, play
        every seat for itself either way.
    :param endgame: at a table with partners (one deck, greedy playouts), each playout
        searches the hand's last ``endgame`` tricks exactly, both teams playing their best
        on the sampled deal, rather than playing them out greedily
        (:attr:`~gongzhu.play.Capability.ENDGAME`; default :data:`DEFAULT_ENDGAME`).
        ``0`` plays every trick greedily, as do engines without it.
    :param shows: ``"search"`` (default) decides shows (亮牌, 首明, 暗卖) by
        search too; ``"prior"`` (or its older name ``"heuristic"``) leaves
        them to the prior.
    :param prior: the bot whose choice the search keeps unless it finds a
        better one (see ``margin``), and which decides where the search
        cannot: a bot, or a bot's name (:func:`~gongzhu.bots.make_bot`, built
        with this bot's seed and ruleset).  It must play this bot's ruleset,
        and it is told the table's format with this bot (whatever format it
        had).  Default: a :class:`~gongzhu.bots.rulebook.RulesBot` (the rules
        of thumb).
    :param infer: deal the samples by what the play so far tells of the hidden
        cards beyond the rules (:func:`~gongzhu.bots.sampler.infer`: a seat
        that kept the pig where a sound player drops it likely has none);
        ``False`` deals every deal the view allows alike.
    :param reading: choose each sample among this many dealt deals, each as likely
        as the other seats' plays so far look like the greedy policy's on it
        (:class:`~gongzhu.bots.sampler.PlayReading`, ``reading_factor`` a play it
        would not have made), where the engine offers it
        (:attr:`~gongzhu.play.Capability.MISMATCHES`; default :data:`DEFAULT_READING`);
        0 or 1 reads nothing.
    :param reading_factor: the weight of a sampled deal for each such play, in ``(0, 1]``.
    :param alike: search one card of each group of alike cards
        (:func:`~gongzhu.bots.rulebook.alike_plays`: cards no play can tell apart), the
        prior's where it is one of them (with ``margin=None`` the prior is not asked: the
        lowest), so the samples go to plays that differ; where every legal card is alike,
        that card is played without a search.  ``False`` searches every legal card.
    :param clock: what ``budget_ms`` measures (:data:`CLOCKS`): ``"wall"``
        (default) the time a caller waits; ``"cpu"`` the processor time of the
        bot's thread, which other programs on a busy machine do not take:
        for measuring strength at a budget on a shared machine.
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        rules: Rules | None = None,
        budget_ms: float | None = DEFAULT_BUDGET_MS,
        samples: int | None = None,
        rollout: str | RolloutPolicy = "auto",
        playouts: int = 1,
        margin: float | None = 1.0,
        prune: float | None = 2.0,
        objective: str | None = None,
        format: str | TableFormat | None = None,
        shows: str = "search",
        clock: str = "wall",
        team_trick: bool = True,
        endgame: int = DEFAULT_ENDGAME,
        infer: bool = True,
        prior: Bot | str | None = None,
        reading: int = DEFAULT_READING,
        reading_factor: float = MISMATCH_FACTOR,
        alike: bool = True,
    ) -> None:
        if budget_ms is None and samples is None:
            raise ValueError("SearchBot needs a budget: budget_ms, samples or both")
        if budget_ms is not None and not (_is_number(budget_ms) and budget_ms > 0):
            raise ValueError(f"budget_ms must be a positive number of ms, not {budget_ms!r}")
        if samples is not None and not (_is_whole(samples) and samples >= 1):
            raise ValueError(f"samples must be a whole number, at least 1, not {samples!r}")
        if not (_is_whole(playouts) and playouts >= 1):
            raise ValueError(f"playouts must be a whole number, at least 1, not {playouts!r}")
        if not (_is_whole(reading) and reading >= 0):
            raise ValueError(f"reading must be a whole number of deals, 0 or more, not {reading!r}")
        if not (_is_real(reading_factor) and 0 < reading_factor <= 1):
            raise ValueError(f"reading_factor must be a number in (0, 1], not {reading_factor!r}")
        check_endgame(endgame)
        for name, value in (("margin", margin), ("prune", prune)):  # inf: never overrule/prune
            if value is not None and not (_is_real(value) and value >= 0):
                raise ValueError(
                    f"{name} must be a number of standard errors (0 or more) or None, not {value!r}"
                )
        for name, flag in (("team_trick", team_trick), ("infer", infer), ("alike", alike)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be true or false, not {flag!r}")
        if not isinstance(rollout, str) and not callable(rollout):
            raise ValueError(f"rollout must be a policy's name or a policy, not {rollout!r}")
        if objective is not None and objective not in OBJECTIVES:
            raise ValueError(
                f"objective must be one of {', '.join(map(repr, OBJECTIVES))}, not {objective!r}"
            )
        if shows not in SHOW_MODES:
            raise ValueError(
                f"shows must be one of {', '.join(map(repr, SHOW_MODES))}, not {shows!r}"
            )
        if clock not in CLOCKS:
            raise ValueError(f"clock must be one of {', '.join(map(repr, CLOCKS))}, not {clock!r}")
        if isinstance(rollout, str) and rollout not in ROLLOUTS:
            raise ValueError(
                f"rollout must be one of {', '.join(map(repr, ROLLOUTS))} or a policy, "
                f"not {rollout!r}"
            )
        self.rules = load_rules() if rules is None else rules
        if rollout == "auto":
            greedy = self.rules.engine_spec.offers(Capability.GREEDY_PLAYOUT)
            rollout = "greedy" if greedy else "random"
        self.budget_ms = budget_ms
        self.samples = samples
        self.playouts = playouts
        self.margin = margin
        self.prune = prune
        self.shows = shows
        self.clock = clock
        self.team_trick = team_trick
        self.endgame = int(endgame)
        self.infer = infer
        self.alike = alike
        self.reading = int(reading)
        self.reading_factor = float(reading_factor)
        self._clock: Callable[[], float] = CLOCKS[clock]
        self.policy: RolloutPolicy = _POLICIES[rollout] if isinstance(rollout, str) else rollout
        self._objective = objective
        self._rng = random.Random(seed)
        self.prior: Bot = _prior_bot(prior, seed, self.rules)
        """The bot whose choice the search keeps unless it finds a better one."""
        self._scorer = EngineScorer(self.rules)
        self.format = format_of(format)
        self.set_format(self.format)
        self.last_stats: dict[str, float] = {}
        """Of the last decision: ``samples`` drawn, ``playouts`` run, ``ms`` spent (no samples
        where it was made without a search: one legal action, every card alike, or a show
        left to the prior)."""

    @property
    def objective(self) -> str:
        """The objective in use: the one given, else the format's default."""
        return self._objective or default_objective(self.format)

    @property
    def scorer(self) -> EngineScorer:
        """What scores the bare engines of the search's playouts (its ruleset's scorer)."""
        return self._scorer

    def set_format(self, format: TableFormat) -> None:
        """Hear the table's format (:func:`~gongzhu.bots.tell_format` calls this)."""
        self.format = format
        tell_format(self.prior, format)

    def choose(self, view: SeatView) -> Action:
        """The legal action with the best mean score over sampled deals and playouts."""
        start = self._clock()
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action: it is not its turn")
        if len(legal) == 1:
            self._unsearched(start)
            return legal[0]
        if view.phase is not Phase.PLAY and self.shows != "search":  # "prior", "heuristic"
            action = self.prior.choose(view)
            self._unsearched(start)
            return action
        return _Decision(self, view, start).run()

    def _unsearched(self, start: float) -> None:
        """:attr:`last_stats` of a decision made without a search."""
        self.last_stats = {"samples": 0, "playouts": 0, "ms": (self._clock() - start) * 1000}


def check_endgame(endgame: object) -> None:
    """Refuse an ``endgame`` (the search's, or the heuristic's check's) that is not a whole
    number of tricks 0-13.

    :raises ValueError: it is not.
    """
    if not (_is_whole(endgame) and 0 <= endgame <= 13):  # type: ignore[operator]
        raise ValueError(f"endgame must be a whole number of tricks 0-13, not {endgame!r}")


def _is_number(value: object) -> bool:
    """A finite real number (not a bool)."""
    return _is_real(value) and math.isfinite(value)  # type: ignore[arg-type]


def _is_real(value: object) -> bool:
    """A real number, infinity included (not NaN, not a bool)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == value


def _is_whole(value: object) -> bool:
    """An integer (not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _prior_bot(prior: Bot | str | None, seed: int | None, rules: Rules) -> Bot:
    """The search's prior: built when named, checked to play the search's ruleset."""
    if prior is None:
        return RulesBot(rules=rules)
    if isinstance(prior, str):
        try:
            return make_bot(prior, seed, rules=rules)
        except UnknownBot as exc:
            raise ValueError(f"prior: {exc}") from None
    if not callable(getattr(prior, "choose", None)):
        raise TypeError(f"prior must be a bot (with choose(view)) or a bot's name, not {prior!r}")
    theirs = getattr(prior, "rules", None)
    if isinstance(theirs, Rules) and theirs.spec() != rules.spec():
        raise ValueError(
            f"the prior plays {theirs.describe()}, but the search plays {rules.describe()}"
        )
    return prior


class _Decision:
    """One search: the sampling loop of :meth:`SearchBot.choose` and what it keeps."""

    def __init__(self, bot: SearchBot, view: SeatView, start: float) -> None:
        self.bot = bot
        self.view = view
        self.legal = view.legal_actions
        self.start = start
        self.clock = bot._clock
        budget = bot.budget_ms
        if budget is None:
            self.deadline = None
        else:
            reserve = max(_RESERVE_MS, budget * _RESERVE) / 1000
            self.deadline = start + budget / 1000 - reserve
        rules = bot.rules
        self.objective: Objective = seat_objective(bot.objective, view.seat, bot.format, rules)
        self.play_phase = view.phase is Phase.PLAY
        self.scores: list[list[float]] = [[] for _ in self.legal]
        self.teams = (
            bot.format.teams
            if bot.team_trick and bot.format.has_teams and rules.table.copies == 1
            else None
        )
        # the end game's value is the team difference: the "team" objective of two pairs
        pairs = self.teams is not None and sorted(self.teams).count(self.teams[0]) == 2
        self.endgame = (
            bot.endgame
            if pairs
            and len(set(self.teams or ())) == 2
            and bot.objective == "team"
            and rules.engine_spec.offers(Capability.ENDGAME)
            else 0
        )

    def _late(self) -> bool:
        return self.deadline is not None and self.clock() > self.deadline

    def run(self) -> Action:
        bot, view, legal = self.bot, self.view, self.legal
        prior = bot.prior.choose(view) if bot.margin is not None else None
        if bot.alike and self.play_phase:
            groups = alike_plays(Situation(view, bot.rules, bot.format))
            if len(groups) < len(legal):  # one play of each group: the prior's, else the lowest
                legal = self.legal = tuple(prior if prior in g else g[0] for g in groups)
                self.scores = [[] for _ in legal]
                if len(legal) == 1:
                    bot._unsearched(self.start)
                    return legal[0]
        keep = None if prior is None else legal.index(prior)
        try:
            inference = (
                infer(view, bot.rules, bot.format.teams) if bot.infer and self.play_phase else None
            )
            facts = knowledge(view, bot.rules)  # (once: the reading and the sampler read it)
            reading = (
                PlayReading(
                    view,
                    bot.rules,
                    bot._rng,
                    bot.format.teams if bot.format.has_teams else None,
                    candidates=bot.reading,
                    factor=bot.reading_factor,
                    facts=facts,
                )
                if bot.reading > 1
                and self.play_phase
                and bot.rules.engine_spec.offers(Capability.MISMATCHES)
                else None
            )
            sampler = Determinizer(
                view, bot.rules, facts=facts, inference=inference, reading=reading
            )
        except Inconsistent:
            action = prior or bot.prior.choose(view)
            bot._unsearched(self.start)
            return action
        sample_one = self._sampler_for(sampler)
        rng = bot._rng
        active = list(range(len(legal)))
        samples = playouts = 0
        next_prune = 4
        clock = self.clock
        loop_start = clock()
        while (bot.samples is None or samples < bot.samples) and len(active) > 1:
            if self.deadline is not None:
                now = clock()
                per_sample = (now - loop_start) / samples if samples else 0.0
                if now + per_sample > self.deadline:  # the next sample would overrun
                    break
            try:
                values = sample_one(sampler, rng, active)
            except Inconsistent:
                break
            if values is None:  # a playout ran past the deadline: the sample is dropped
                break
            samples += 1
            playouts += len(active) * bot.playouts
            for i, value in zip(active, values, strict=True):
                self.scores[i].append(value)
            if bot.prune is not None and samples >= next_prune and len(active) > 2:
                active = _pruned(active, self.scores, keep, bot.prune)
                next_prune = samples + 1 + samples // 8  # the test costs O(samples): not each time
        bot.last_stats = {
            "samples": samples,
            "playouts": playouts,
            "ms": (clock() - self.start) * 1000,
        }
        if not samples:
            return prior or bot.prior.choose(view)
        scores = self.scores
        means = {i: sum(scores[i]) / len(scores[i]) for i in active}
        best = max(active, key=means.__getitem__)
        if keep is None or best == keep or samples < 2:
            return legal[best]
        # keep the prior's choice unless the search is sure enough it is worse
        mean, stderr = _paired(scores[best], scores[keep])
        assert bot.margin is not None
        return legal[best] if mean > bot.margin * stderr else legal[keep]

    # -- one sample ---------------------------------------------------------------------

    def _sampler_for(
        self, sampler: Determinizer
    ) -> Callable[[Determinizer, random.Random, list[int]], list[float] | None]:
        """How one sample is played: by bare engines where that fits, else by states."""
        bot = self.bot
        engine = bot.rules.engine_spec
        in_engine = bot.policy is random_rollout_policy or (
            bot.policy is greedy_rollout_policy and engine.offers(Capability.GREEDY_PLAYOUT)
        )
        fast = self.play_phase and in_engine and bot.playouts == 1
        if fast and engine.offers(Capability.PLAYOUTS) and bot.rules.scorer.native is not None:
            return self._batched_sample
        return self._engine_sample if fast else self._state_sample

    def _batched_sample(
        self, sampler: Determinizer, rng: random.Random, active: list[int]
    ) -> list[float] | None:
        """Each active play's value on one sample: every playout in one engine call
        (:attr:`~gongzhu.play.Capability.PLAYOUTS`), scored there from the compiled score
        data; the same draws and values as :meth:`_engine_sample`, except after a score
        beyond 64 bits (a plug-in's), when the sample is played again one copy a play
        from the generator where the call left it."""
        engine, dealt = sampler.sample_engine(rng)
        bot = self.bot
        legal = self.legal
        keys = [legal[i].key for i in active]  # type: ignore[union-attr]  # (plays)
        handle = bot.rules.engine_spec.capable(engine, Capability.PLAYOUTS)
        native = bot.rules.scorer.native
        try:
            if bot.policy is greedy_rollout_policy and self.endgame:
                values = self._scorer_state(engine)[0]
                raws = bot.rules.engine_spec.capable(engine, Capability.ENDGAME).playouts(
                    native, keys, rng.random, values, self.teams, endgame=self.endgame
                )
            elif bot.policy is greedy_rollout_policy:
                values = self._scorer_state(engine)[0]
                raws = handle.playouts(native, keys, rng.random, values, self.teams)
            else:
                raws = handle.playouts(native, keys, rng.random)
        except OverflowError:  # a score beyond 64 bits: Python's ints score this sample
            return self._engine_values(engine, dealt, rng, active)
        value_of = self.objective
        return [value_of(raw) for raw in raws]

    def _engine_sample(
        self, sampler: Determinizer, rng: random.Random, active: list[int]
    ) -> list[float] | None:
        """Each active play's value on one sample, played out inside the engine."""
        engine, dealt = sampler.sample_engine(rng)
        return self._engine_values(engine, dealt, rng, active)

    def _engine_values(
        self, engine: HandEngine, dealt: Sequence[CardMask], rng: random.Random, active: list[int]
    ) -> list[float]:
        """Each active play's value on the sampled ``engine``, one engine copy a play."""
        values, factors = self._scorer_state(engine)
        score = self.bot.scorer.raw
        value_of = self.objective
        draw = rng.random
        legal = self.legal
        # _sampler_for chose this path for the greedy policy only where the engine's spec
        # offers it (EngineSpec.offers, read there once)
        greedy = (
            cast(GreedyPlayoutEngine, engine) if self.bot.policy is greedy_rollout_policy else None
        )
        teams = self.teams
        out = []
        for i in active:
            key = legal[i].key  # type: ignore[union-attr]  # (plays, in the play phase)
            if greedy is not None:
                greedy_child = greedy.copy()
                greedy_child.play(key)
                if greedy_child.phase == PLAY_PHASE:
                    greedy_playout(greedy_child, values, draw, teams)
                out.append(value_of(score(greedy_child, dealt, factors)))
            else:
                child = engine.copy()
                child.play(key)
                if child.phase == PLAY_PHASE:
                    child.random_playout(draw)
                out.append(value_of(score(child, dealt, factors)))
        return out

    _cached_values: tuple[list[int], dict[int, int]] | None = None

    def _scorer_state(self, engine: HandEngine) -> tuple[list[int], dict[int, int]]:
        """The playout's card values and the scorer's show factors for a sample's shows.

        The same for every sample unless another seat sold cards secretly (each
        sample picks which).
        """
        cached = self._cached_values
        if cached is not None and not self._secret_elsewhere:
            return cached
        scorer = self.bot.scorer
        shows = scorer.shows(engine)
        shown = [(record.card, record.kind) for record in shows]
        cached = self._cached_values = (card_values(self.bot.rules, shown), scorer.factors(shows))
        return cached

    @property
    def _secret_elsewhere(self) -> bool:
        view = self.view
        return any(show.cards is None and show.seat != view.seat for show in view.shows)

    def _state_sample(
        self, sampler: Determinizer, rng: random.Random, active: list[int]
    ) -> list[float] | None:
        """Each active action's value on one sample, played out from a state."""
        state = sampler.sample(rng)
        bot = self.bot
        out = []
        for i in active:
            total = 0.0
            for _ in range(bot.playouts):
                child = state.clone()
                child.apply(self.legal[i])
                total += self.objective(self._play_out(child, rng))
                if self._late():
                    return None
            out.append(total / bot.playouts)
        return out

    def _play_out(self, state: HandState, rng: random.Random) -> tuple[int, ...]:
        """Play ``state`` to its end, shows by :func:`~gongzhu.bots.rulebook.quick_show`.

        :returns: the raw scores.
        """
        while state.phase is Phase.FIRST_SHOW or state.phase is Phase.SHOW:
            seat = state.to_move
            assert seat is not None
            holding = state.holding(seat) if state.phase is Phase.SHOW else ()
            state.apply(quick_show(state.phase, state.legal_actions(), holding))
        policy = self.bot.policy
        if policy is random_rollout_policy:
            state.play_out(rng.random)  # inside the engine
            return state.raw_scores()
        if policy is greedy_rollout_policy and not state.is_over:
            shown = [(card, show.kind) for show in state.shows for card in show.cards or ()]
            if state.greedy_play_out(card_values(self.bot.rules, shown), rng.random):
                return state.raw_scores()
        while not state.is_over:
            state.apply(policy(state, rng))
        return state.raw_scores()


def _pruned(
    active: list[int], scores: list[list[float]], keep: int | None, prune: float
) -> list[int]:
    """``active`` less the actions clearly worse than the best so far (``prune`` errors)."""
    best = max(active, key=lambda i: sum(scores[i]) / len(scores[i]))
    out = []
    for i in active:
        if i in (best, keep):
            out.append(i)
            continue
        mean, stderr = _paired(scores[best], scores[i])
        if mean <= prune * stderr:
            out.append(i)
    return out


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """The mean of ``a - b`` over their common (first) samples, and its standard error."""
    diffs = list(map(operator.sub, a, b))  # (map stops at the shorter)
    n = len(diffs)
    if n < 2:
        return (diffs[0] if diffs else 0.0), float("inf")
    total = sum(diffs)
    mean = total / n
    # the squares' sum less n·mean² (C loops, not Python ones; never below 0)
    var = max(0.0, (sum(map(operator.mul, diffs, diffs)) - total * mean) / (n - 1))
    return mean, (var / n) ** 0.5

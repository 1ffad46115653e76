"""PettingZoo environments: the four seats of one hand (extra ``gongzhu[pettingzoo]``).

It follows PettingZoo's classic games: agents ``player_0`` … ``player_3``
are seats 0-3; each observation is a dict of ``observation`` (the seat's
observation vector, :mod:`gongzhu.envs.encoding`, a ``float32`` Box) and
``action_mask`` (an ``int8`` Box, all zeros for a seat not to move); actions
are :func:`~gongzhu.envs.encoding.encode_action` indices of one ``Discrete``
space.  Rewards are 0 until the hand ends, then every agent receives its
score of the hand (by default raw points times 0.01: see
:class:`~gongzhu.envs.encoding.Reward`) and is terminated.
``reset(seed=...)`` makes the deals reproducible: the seed starts a
sequence of hand seeds, one per reset.

Use :func:`env` (wrapped like the classic games) or :class:`raw_env`::

    from gongzhu.envs.pettingzoo import env

    game = env(rules=("huapai", "anmai"), render_mode="ansi")
    game.reset(seed=1)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        action = None
        if not (termination or truncation):
            action = game.action_space(agent).sample(observation["action_mask"])
        game.step(action)

``observation_key="observations"`` names the vector as RLlib's
action-masking module reads it (:doc:`/scale`); ``reward="team"`` pays the
2-vs-2 teams, ``observation="information_state"`` adds the hand's history
to the vector.  :func:`parallel_env` is the same hand behind PettingZoo's
parallel API.  The observations come from
:class:`~gongzhu.envs.fast.HandEncoder`, which keeps them up to date as the
hand is played.

This module imports without PettingZoo installed (so that documentation
builds); building an environment then raises :class:`ImportError`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..rules import Rules
from . import encoding
from .encoding import RulesLike, resolve_rules

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    from ..hand import HandState
    from ..plugin import Deal
    from .fast import HandEncoder
else:
    try:
        from pettingzoo import AECEnv, ParallelEnv
        from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
        from pettingzoo.utils.wrappers import (
            AssertOutOfBoundsWrapper,
            OrderEnforcingWrapper,
            TerminateIllegalWrapper,
        )
    except ImportError:  # the module stays importable (docs, doctest collection)
        _MISSING = (
            "gongzhu.envs.pettingzoo needs PettingZoo: python -m pip install 'gongzhu[pettingzoo]'"
        )
        AECEnv = encoding.stand_in("pettingzoo.AECEnv", _MISSING)
        ParallelEnv = encoding.stand_in("pettingzoo.ParallelEnv", _MISSING)
        turn_based_aec_to_parallel_wrapper = ParallelEnv
        AssertOutOfBoundsWrapper = OrderEnforcingWrapper = TerminateIllegalWrapper = AECEnv


__all__ = ["AGENTS", "env", "parallel_env", "raw_env"]

AGENTS = ("player_0", "player_1", "player_2", "player_3")
"""The agents, seat by seat."""

_SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}


def env(
    rules: RulesLike = None,
    render_mode: str | None = None,
    *,
    reward: encoding.RewardKind = encoding.DEFAULT_REWARD,
    reward_scale: float | None = None,
    illegal_reward: float | Literal["auto"] | None = "auto",
    observation_key: str = "observation",
    observation: encoding.ObservationKind = "observation",
) -> AECEnv:
    """A wrapped :class:`raw_env`, as PettingZoo's classic games build theirs.

    The wrappers are PettingZoo's: ``TerminateIllegalWrapper`` (an action
    outside the mask ends the hand, the offender receiving ``illegal_reward``
    and the others 0; ``illegal_reward=None`` leaves it out, so that an
    illegal action raises :class:`~gongzhu.errors.IllegalAction`), then
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``, each
    subclassed to read the environment's attributes directly rather than
    through each other (they do the same, faster).  The default ``"auto"``
    is :meth:`Reward.illegal <gongzhu.envs.encoding.Reward.illegal>`: five
    spreads of the reward below zero, on the same scale (-14.4 for
    39baobao's raw points at the default scale).  The other parameters are :class:`raw_env`'s.
    """
    raw = raw_env(
        rules=rules,
        render_mode=render_mode,
        reward=reward,
        reward_scale=reward_scale,
        observation_key=observation_key,
        observation=observation,
    )
    game: AECEnv = raw
    if illegal_reward == "auto":
        illegal_reward = raw.reward.illegal(raw.rules)
    if illegal_reward is not None:
        game = _TerminateIllegal(game, illegal_reward=float(illegal_reward))
    game = _AssertOutOfBounds(game)
    return _OrderEnforcing(game)


def parallel_env(
    rules: RulesLike = None,
    render_mode: str | None = None,
    *,
    reward: encoding.RewardKind = encoding.DEFAULT_REWARD,
    reward_scale: float | None = None,
    illegal_reward: float | Literal["auto"] | None = "auto",
    observation_key: str = "observation",
    observation: encoding.ObservationKind = "observation",
) -> ParallelEnv:
    """The hand as a PettingZoo parallel environment: :func:`env` through PettingZoo's
    ``turn_based_aec_to_parallel``, its conversion for turn-based games.

    Every step takes a dict of actions and reads only that of the agent to
    move (``infos[agent]["active_agent"]`` names it, and the others' action
    masks are all zeros): the others' actions may be anything, or missing.
    Every live agent observes each step; rewards are 0 until the hand ends,
    when every agent is paid and terminated, and ``agents`` empties.  The
    parameters are :func:`env`'s (an illegal action ends the hand, the
    offender receiving ``illegal_reward``).

    PettingZoo's ``aec_to_parallel`` does not apply: it wants every agent to
    act once per step, in a fixed cycle, where a trick's taker leads the next.
    """
    return _TurnBased(
        env(
            rules=rules,
            render_mode=render_mode,
            reward=reward,
            reward_scale=reward_scale,
            illegal_reward=illegal_reward,
            observation_key=observation_key,
            observation=observation,
        )
    )


class raw_env(AECEnv):  # PettingZoo's name for the unwrapped environment
    """The unwrapped AEC environment of one hand of ``rules``.

    :param rules: the ruleset (see :data:`~gongzhu.envs.encoding.RulesLike`).
    :param render_mode: ``"ansi"`` (:meth:`render` returns the text),
        ``"human"`` (it prints it) or ``None``.
    :param reward: what a hand pays (:data:`~gongzhu.envs.encoding.RewardKind`):
        each seat's ``"raw"`` or ``"final"`` score, or its team's, 2-vs-2
        (``player_0`` and ``player_2`` against ``player_1`` and ``player_3``),
        ``"team"`` of raw points or ``"team-final"`` (:attr:`Reward.team
        <gongzhu.envs.encoding.Reward.team>`: the team's mean score less the
        other team's; partners are paid the same, and the rewards sum to zero).
    :param reward_scale: what the scores are multiplied by (``None``: 0.01
        for raw points, 0.001 for final scores; see
        :func:`~gongzhu.envs.encoding.make_reward`).
    :param observation_key: the key of the observation vector in each
        observation dict (``"observations"`` for RLlib's action-masking module).
    :param observation: what the vector is
        (:data:`~gongzhu.envs.encoding.ObservationKind`): the compact
        ``"observation"`` (the default), or the ``"information_state"``,
        which adds the hand's history (the order of the tricks; OpenSpiel's
        perfect-recall tensor).

    An illegal action raises :class:`~gongzhu.errors.IllegalAction` and leaves
    the hand unchanged (:func:`env` adds the classic games' wrapper that ends
    the hand instead).  ``reset(options={"deal": deal})`` plays the given
    :class:`~gongzhu.deal.Deal`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "gongzhu_v1",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: RulesLike = None,
        render_mode: str | None = None,
        *,
        reward: encoding.RewardKind = encoding.DEFAULT_REWARD,
        reward_scale: float | None = None,
        observation_key: str = "observation",
        observation: encoding.ObservationKind = "observation",
    ) -> None:
        super().__init__()  # without PettingZoo: ImportError, naming the extra
        import numpy
        from gymnasium import spaces

        from .fast import HandEncoder

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"not {render_mode!r}"
            )
        if observation_key == "action_mask" or not observation_key:
            raise ValueError(f"observation_key cannot be {observation_key!r}")
        self.rules: Rules = resolve_rules(rules)
        """The ruleset played."""
        self.reward: encoding.Reward = encoding.make_reward(reward, reward_scale)
        """What a hand pays."""
        self.observation_key = observation_key
        """The key of the observation vector in each observation dict."""
        self.observation: encoding.ObservationKind = encoding.check_observation(observation)
        """What the vector is: ``"observation"`` or ``"information_state"``."""
        self._history = self.observation == "information_state"
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._codec = encoding.layout(self.rules)
        size = self._codec.action_size
        self.action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(size) for agent in AGENTS
        }
        space = spaces.Dict(
            {
                observation_key: spaces.Box(
                    low=0.0,
                    high=encoding.vector_high(self.rules, self.observation),
                    dtype=numpy.float32,
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=numpy.int8),
            }
        )
        self.observation_spaces: dict[str, spaces.Dict] = dict.fromkeys(AGENTS, space)
        self._seeds = random.Random()
        self.encoder: HandEncoder = HandEncoder(self.rules, information_state=self._history)
        """The encoder following :attr:`hand`."""
        self.hand: HandState = self.rules.new_hand(seed=self._seeds.getrandbits(63))
        """The hand being played (read it; do not apply actions to it)."""
        self._start()

    def _start(self) -> None:
        self.encoder.reset(self.hand)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        seat = self.hand.to_move
        assert seat is not None
        self.agent_selection = AGENTS[seat]

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of ``agent`` (the same for every agent)."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """``agent``'s observation: its observation vector and its action mask."""
        seat = _SEAT[agent]
        if self._history:
            vector, mask = self.encoder.information_state(seat), self.encoder.action_mask(seat)
            return {self.observation_key: vector, "action_mask": mask}
        observation, mask = self.encoder.observe(seat)
        return {self.observation_key: observation, "action_mask": mask}

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        """``agent``'s action mask (zeros unless it is to move)."""
        return self.encoder.action_mask(_SEAT[agent])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand.

        :param seed: restarts the sequence of hand seeds (none: the sequence continues).
        :param options: ``{"deal": Deal}`` plays that deal; other keys are ignored.
        """
        if seed is not None:
            self._seeds = random.Random(seed)
        deal: Deal | None = (options or {}).get("deal")
        hand_seed = self._seeds.getrandbits(63)
        self.hand = self.rules.new_hand(seed=None if deal else hand_seed, deal=deal)
        self._start()

    def step(self, action: int | None) -> None:
        """The agent to move takes the action numbered ``action`` (``None`` once terminated).

        :raises IllegalAction: the action is not legal now (nothing changes).
        :raises ValueError: an action that is no whole number (nothing changes).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None, "a live agent's action cannot be None"
        hand = self.hand
        hand.apply(self._codec.decode(encoding.action_number(action)))
        seat = hand.to_move
        if seat is not None:
            self.agent_selection = AGENTS[seat]
            return  # rewards stay 0 until the hand ends
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(AGENTS, self.reward.of(hand), strict=True))
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = AGENTS[(_SEAT[agent] + 1) % len(AGENTS)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The hand as text (``"ansi"``), printed (``"human"``), or nothing without a mode."""
        if self.render_mode is None:
            return None
        text = encoding.render_text(self.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class _TurnBased(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's conversion of a turn-based AEC game, which also names the agent to move
    in the infos that :meth:`reset` returns (its steps' infos do)."""

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Deal a new hand (see :meth:`raw_env.reset`): every agent's observation and info."""
        observations, infos = super().reset(seed=seed, options=options)
        for agent in self.agents:
            infos[agent]["active_agent"] = self.aec_env.agent_selection
        return observations, infos


# -- the classic games' wrappers, reading the environment's attributes directly -----------

_BEFORE_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
)


def _direct(name: str) -> property:
    """A property reading ``name`` from the unwrapped environment (PettingZoo's wrappers
    find it through ``__getattr__`` at every level, which costs more than a step)."""

    if name not in _BEFORE_RESET:

        def get(self: Any) -> Any:
            return getattr(self._raw, name)

    else:

        def get(self: Any) -> Any:
            if self._checks and not self._ready():
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

    return property(get, doc=f"The unwrapped environment's ``{name}``.")


class _Direct:
    """The attributes every step reads, from the unwrapped environment."""

    _raw: Any
    _checks = False
    """Whether this wrapper refuses the attributes before a reset (only the outermost)."""

    def _ready(self) -> bool:
        return True

    agent_selection = _direct("agent_selection")
    agents = _direct("agents")
    rewards = _direct("rewards")
    terminations = _direct("terminations")
    truncations = _direct("truncations")
    infos = _direct("infos")
    _cumulative_rewards = _direct("_cumulative_rewards")


class _TerminateIllegal(_Direct, TerminateIllegalWrapper):
    def __init__(self, game: AECEnv, illegal_reward: float) -> None:
        self._raw = game.unwrapped
        super().__init__(game, illegal_reward)


class _AssertOutOfBounds(_Direct, AssertOutOfBoundsWrapper):
    def __init__(self, game: AECEnv) -> None:
        self._raw = game.unwrapped
        self._size = int(self._raw.action_spaces[AGENTS[0]].n)
        super().__init__(game)

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._size:
            self.env.step(action)  # in the space: what the parent's check says, faster
        else:
            super().step(action)


class _OrderEnforcing(_Direct, OrderEnforcingWrapper):
    _checks = True

    def __init__(self, game: AECEnv) -> None:
        self._raw = game.unwrapped
        super().__init__(game)

    def _ready(self) -> bool:
        return self._has_reset

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, npt.NDArray[Any]] | None, float, bool, bool, dict[str, Any]]:
        """As :meth:`AECEnv.last <pettingzoo.AECEnv.last>` (through the wrappers' ``observe``)."""
        raw = self._raw
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent = raw.agent_selection
        observation = self.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

"""A PettingZoo AEC environment: the four seats of one hand (extra ``gongzhu[pettingzoo]``).

It follows PettingZoo's classic games: agents ``player_0`` … ``player_3``
are seats 0-3; each observation is a dict of ``observation`` (the seat's
:func:`~gongzhu.envs.encoding.encode_observation`, a ``float32`` Box) and
``action_mask`` (an ``int8`` Box, all zeros for a seat not to move); actions
are :func:`~gongzhu.envs.encoding.encode_action` indices of one ``Discrete``
space.  Rewards are 0 until the hand ends, then every agent receives its
final score (:meth:`HandState.returns <gongzhu.hand.HandState.returns>`) and
is terminated.  ``reset(seed=...)`` makes the deals reproducible: the seed
starts a sequence of hand seeds, one per reset.

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
    from pettingzoo import AECEnv

    from ..hand import HandState
    from ..plugin import Deal
else:
    try:
        from pettingzoo import AECEnv
    except ImportError:  # the module stays importable (docs, doctest collection)
        AECEnv = encoding.stand_in(
            "pettingzoo.AECEnv",
            "gongzhu.envs.pettingzoo needs PettingZoo: python -m pip install 'gongzhu[pettingzoo]'",
        )


__all__ = ["AGENTS", "env", "raw_env"]

AGENTS = ("player_0", "player_1", "player_2", "player_3")
"""The agents, seat by seat."""


def env(
    rules: RulesLike = None,
    render_mode: str | None = None,
    *,
    illegal_reward: float | Literal["auto"] | None = "auto",
) -> AECEnv:
    """A wrapped :class:`raw_env`, as PettingZoo's classic games build theirs.

    The wrappers: PettingZoo's ``TerminateIllegalWrapper`` (an action outside
    the mask ends the hand, the offender receiving ``illegal_reward`` and the
    others 0; ``illegal_reward=None`` leaves it out, so that an illegal
    action raises :class:`~gongzhu.errors.IllegalAction`), then
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.  The default
    ``"auto"`` is the ruleset's
    :func:`~gongzhu.envs.encoding.default_illegal_reward`, below any hand's
    result (-59 208 for 39baobao, -692 808 for two-deck).
    """
    from pettingzoo.utils import wrappers

    raw = raw_env(rules=rules, render_mode=render_mode)
    game: AECEnv = raw
    if illegal_reward == "auto":
        illegal_reward = encoding.default_illegal_reward(raw.rules)
    if illegal_reward is not None:
        game = wrappers.TerminateIllegalWrapper(game, illegal_reward=float(illegal_reward))
    game = wrappers.AssertOutOfBoundsWrapper(game)
    game = wrappers.OrderEnforcingWrapper(game)
    return game


class raw_env(AECEnv):  # PettingZoo's name for the unwrapped environment
    """The unwrapped AEC environment of one hand of ``rules``.

    :param rules: the ruleset (see :data:`~gongzhu.envs.encoding.RulesLike`).
    :param render_mode: ``"ansi"`` (:meth:`render` returns the text),
        ``"human"`` (it prints it) or ``None``.

    An illegal action raises :class:`~gongzhu.errors.IllegalAction` and leaves
    the hand unchanged (:func:`env` adds the classic games' wrapper that ends
    the hand instead).  ``reset(options={"deal": deal})`` plays the given
    :class:`~gongzhu.deal.Deal`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "gongzhu_v0",
        "is_parallelizable": False,
    }

    def __init__(self, rules: RulesLike = None, render_mode: str | None = None) -> None:
        super().__init__()  # without PettingZoo: ImportError, naming the extra
        import numpy
        from gymnasium import spaces

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"not {render_mode!r}"
            )
        self.rules: Rules = resolve_rules(rules)
        """The ruleset played."""
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        size = encoding.action_size(self.rules)
        self.action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(size) for agent in AGENTS
        }
        self.observation_spaces: dict[str, spaces.Dict] = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0.0, high=encoding.observation_high(self.rules), dtype=numpy.float32
                    ),
                    "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=numpy.int8),
                }
            )
            for agent in AGENTS
        }
        self._seeds = random.Random()
        self.hand: HandState = self.rules.new_hand(seed=self._seeds.getrandbits(63))
        """The hand being played (read it; do not apply actions to it)."""
        self._start()

    def _start(self) -> None:
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
        """``agent``'s observation: its encoded view and its action mask."""
        view = self.hand.view(AGENTS.index(agent))
        return {
            "observation": encoding.encode_observation(self.rules, view),
            "action_mask": encoding.action_mask(self.rules, view.legal_actions),
        }

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        """``agent``'s action mask (zeros unless it is to move)."""
        return encoding.action_mask(self.rules, self.hand.view(AGENTS.index(agent)).legal_actions)

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
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None, "a live agent's action cannot be None"
        self.hand.apply(encoding.decode_action(self.rules, int(action)))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.hand.is_over:
            for name, score in zip(AGENTS, self.hand.returns(), strict=True):
                self.rewards[name] = float(score)
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[(AGENTS.index(agent) + 1) % len(AGENTS)]
        else:
            seat = self.hand.to_move
            assert seat is not None
            self.agent_selection = AGENTS[seat]
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

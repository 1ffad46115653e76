"""A Gymnasium environment: one seat against bots (extra ``gongzhu[gymnasium]``).

:class:`SeatEnv` plays one hand per episode from ``seat``'s chair; the other
three seats are bots chosen by name (:func:`gongzhu.bots.make_bot`), whose
moves are played inside :meth:`~SeatEnv.reset` and :meth:`~SeatEnv.step`
until the agent is to move again or the hand is over.  Observations are
:func:`~gongzhu.envs.encoding.encode_observation` vectors, actions
:func:`~gongzhu.envs.encoding.encode_action` indices; the reward is 0 until
the hand ends, then the seat's final score (:meth:`HandState.returns
<gongzhu.hand.HandState.returns>`).  :meth:`~SeatEnv.action_masks` (and
``info["action_mask"]``) give the legal actions, for masked policies such as
sb3-contrib's ``MaskablePPO``.

Importing this module registers the environment as ``gongzhu/Seat-v0``
(when Gymnasium is installed)::

    import gymnasium
    import gongzhu.envs.gymnasium  # registers gongzhu/Seat-v0

    env = gymnasium.make("gongzhu/Seat-v0", rules="huapai", bots="random")
    observation, info = env.reset(seed=1)

This module imports without Gymnasium installed (so that documentation
builds); building an environment then raises :class:`ImportError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, SupportsFloat

from ..bots import Bot, make_bot
from ..errors import IllegalAction
from . import encoding
from .encoding import RulesLike, resolve_rules

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from gymnasium import Env

    from ..hand import HandState
    from ..rules import Rules
else:
    try:
        from gymnasium import Env
    except ImportError:  # the module stays importable (docs, doctest collection)
        Env = encoding.stand_in(
            "gymnasium.Env",
            "gongzhu.envs.gymnasium needs Gymnasium: python -m pip install 'gongzhu[gymnasium]'",
        )


__all__ = ["ENV_ID", "SeatEnv"]

ENV_ID = "gongzhu/Seat-v0"
"""The id this module registers :class:`SeatEnv` under."""

_SEATS = 4


class SeatEnv(Env["npt.NDArray[np.float32]", "np.int64"]):
    """One seat of a hand of ``rules`` against three bots.

    :param rules: the ruleset: a :class:`~gongzhu.rules.Rules`, a name, a
        sequence of names, or ``None`` for the default rules.
    :param seat: the agent's seat, 0-3.
    :param bots: the bots' name (:func:`gongzhu.bots.bot_names`), or three
        names for the other seats in seat order.
    :param render_mode: ``"ansi"`` (:meth:`render` returns the text),
        ``"human"`` (it prints it) or ``None``.
    :param illegal_reward: the reward of an action outside the mask, which
        ends the episode (``info["illegal_action"]`` is then ``True``).  The
        default ``"auto"`` is the ruleset's
        :func:`~gongzhu.envs.encoding.default_illegal_reward`, below any
        hand's result (-59 208 for 39baobao, -692 808 for two-deck).

    ``reset(seed=...)`` seeds the deals and the bots; ``reset(options={"deal":
    deal})`` plays the given :class:`~gongzhu.deal.Deal`.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012 (gymnasium.Env declares it an instance attribute)

    def __init__(
        self,
        rules: RulesLike = None,
        seat: int = 0,
        bots: str | Sequence[str] = "random",
        render_mode: str | None = None,
        illegal_reward: float | Literal["auto"] = "auto",
    ) -> None:
        super().__init__()  # without Gymnasium: ImportError, naming the extra
        import numpy
        from gymnasium import spaces

        if seat not in range(_SEATS):
            raise ValueError(f"seat must be 0-3, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"not {render_mode!r}"
            )
        names = [bots] * (_SEATS - 1) if isinstance(bots, str) else list(bots)
        if len(names) != _SEATS - 1:
            raise ValueError(f"bots must be one name or three, not {len(names)}")
        for name in names:
            make_bot(name)  # an unknown name fails here, not at reset
        self.rules: Rules = resolve_rules(rules)
        """The ruleset played."""
        self.seat = seat
        """The agent's seat."""
        self.bot_names: tuple[str, ...] = tuple(names)
        """The other seats' bots, in seat order."""
        self.render_mode = render_mode
        self.illegal_reward: float = (
            encoding.default_illegal_reward(self.rules)
            if illegal_reward == "auto"
            else float(illegal_reward)
        )
        """The reward of an illegal action (it ends the episode)."""
        self.action_space = spaces.Discrete(encoding.action_size(self.rules))
        self.observation_space = spaces.Box(
            low=0.0, high=encoding.observation_high(self.rules), dtype=numpy.float32
        )
        self.hand: HandState | None = None
        """The hand being played (``None`` before the first reset)."""
        self._bots: dict[int, Bot] = {}

    def _hand(self) -> HandState:
        if self.hand is None:
            raise RuntimeError("call reset() before step()")
        return self.hand

    def _observation(self) -> npt.NDArray[np.float32]:
        return encoding.encode_observation(self.rules, self._hand().view(self.seat))

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype("int8"), **extra}

    def _play_bots(self) -> None:
        hand = self._hand()
        while not hand.is_over and hand.to_move != self.seat:
            seat = hand.to_move
            assert seat is not None
            hand.apply(self._bots[seat].choose(hand.view(seat)))

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Which actions are legal now (a boolean vector; all ``False`` once the hand is over)."""
        hand = self._hand()
        legal = hand.legal_actions() if hand.to_move == self.seat else ()
        return encoding.action_mask(self.rules, legal).astype(bool)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal a new hand and let the bots play up to the agent's first decision.

        :param seed: seeds the environment's random generator, which draws the
            deal and the bots' seeds.
        :param options: ``{"deal": Deal}`` plays that deal; other keys are ignored.
        """
        super().reset(seed=seed)
        draw = self.np_random.integers(0, 2**63, size=_SEATS)
        others = [s for s in range(_SEATS) if s != self.seat]
        self._bots = {
            s: make_bot(name, seed=int(draw[k + 1]), rules=self.rules)
            for k, (s, name) in enumerate(zip(others, self.bot_names, strict=True))
        }
        deal = (options or {}).get("deal")
        self.hand = self.rules.new_hand(seed=None if deal else int(draw[0]), deal=deal)
        self._play_bots()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[npt.NDArray[np.float32], SupportsFloat, bool, bool, dict[str, Any]]:
        """Take the action numbered ``action``, then let the bots play up to the agent's turn.

        :returns: ``(observation, reward, terminated, truncated, info)``; the
            episode terminates when the hand is over, or on an illegal action.
        """
        hand = self._hand()
        if hand.is_over:
            raise RuntimeError("the hand is over: call reset()")
        try:
            hand.apply(encoding.decode_action(self.rules, int(action)))
        except (IllegalAction, ValueError):
            return (
                self._observation(),
                self.illegal_reward,
                True,
                False,
                self._info(illegal_action=True),
            )
        self._play_bots()
        reward = float(hand.returns()[self.seat]) if hand.is_over else 0.0
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, hand.is_over, False, self._info()

    def render(self) -> str | None:
        """The hand as text (``"ansi"``), printed (``"human"``), or nothing without a mode."""
        if self.render_mode is None or self.hand is None:
            return None
        text = encoding.render_text(self.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def _register() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=f"{__name__}:SeatEnv")


_register()

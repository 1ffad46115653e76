"""Gymnasium environments: one seat against opponents (extra ``gongzhu[gymnasium]``).

:class:`SeatEnv` plays one hand per episode from ``seat``'s chair; the other
three seats are *opponents* whose moves are played inside
:meth:`~SeatEnv.reset` and :meth:`~SeatEnv.step` until the agent is to move
again or the hand is over.  An opponent is a bot by name
(:func:`gongzhu.bots.make_bot`), a bot object (anything with
``choose(view) -> action``), a callable ``policy(observation, action_mask) ->
action index`` (the agent's own policy, for self-play), or an object with
sb3-contrib's ``predict(observation, action_masks=...)`` (a ``MaskablePPO``
model or a checkpoint loaded with ``MaskablePPO.load``).
:meth:`~SeatEnv.set_opponents` changes them between episodes.

Observations are the observation vectors of :mod:`gongzhu.envs.encoding`
(kept up to date by :class:`~gongzhu.envs.fast.HandEncoder`), actions
:func:`~gongzhu.envs.encoding.encode_action` indices; the reward is 0 until
the hand ends, then the seat's score (by default raw points times 0.01: see
:class:`~gongzhu.envs.encoding.Reward`; ``reward="team"`` pays its 2-vs-2
team's).  ``observation="information_state"`` adds the hand's history to
the vector.  :meth:`~SeatEnv.action_masks` (and
``info["action_mask"]``) give the legal actions, for masked policies such as
sb3-contrib's ``MaskablePPO``; once an episode has ended every action is
marked legal (the next call must be ``reset()``, which ignores it), so that a
masked sampler never faces an empty mask.

:class:`SeatVectorEnv` steps several hands at once behind Gymnasium's vector
API, and :class:`MatchEnv` plays a whole match: hands until the ruleset (or
the ``target`` or ``hands`` given) ends it.

Importing this module registers ``gongzhu/Seat-v0`` and ``gongzhu/Match-v0``
(when Gymnasium is installed)::

    import gymnasium
    import gongzhu.envs.gymnasium  # registers gongzhu/Seat-v0 and gongzhu/Match-v0

    env = gymnasium.make("gongzhu/Seat-v0", rules="huapai", bots="random")
    observation, info = env.reset(seed=1)

This module imports without Gymnasium installed (so that documentation
builds); building an environment then raises :class:`ImportError`.
"""

from __future__ import annotations

import abc
import numbers
import operator
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, SupportsFloat, TypeAlias

from ..actions import Action
from ..bots import PARTNERS, SOLO, Bot, RandomBot, TableFormat, make_bot, tell_format
from ..errors import GongzhuError, IllegalAction
from . import encoding
from .encoding import RulesLike, resolve_rules

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from gymnasium import Env
    from gymnasium.vector import VectorEnv

    from ..batch import HandBatch
    from ..hand import HandState
    from ..match import Match
    from ..rules import Rules
    from .fast import HandEncoder
else:
    try:
        from gymnasium import Env
        from gymnasium.vector import VectorEnv
    except ImportError:  # the module stays importable (docs, doctest collection)
        _MISSING = (
            "gongzhu.envs.gymnasium needs Gymnasium: python -m pip install 'gongzhu[gymnasium]'"
        )
        Env = encoding.stand_in("gymnasium.Env", _MISSING)
        VectorEnv = encoding.stand_in("gymnasium.vector.VectorEnv", _MISSING)


__all__ = [
    "ENV_ID",
    "MATCH_ENV_ID",
    "BatchPolicy",
    "MatchEnv",
    "Opponent",
    "Policy",
    "SeatEnv",
    "SeatVectorEnv",
    "policy_opponent",
]

ENV_ID = "gongzhu/Seat-v0"
"""The id this module registers :class:`SeatEnv` under."""

MATCH_ENV_ID = "gongzhu/Match-v0"
"""The id this module registers :class:`MatchEnv` under."""

_SEATS = 4
_MATCH_BOUND = 1e6  # the match segment's bound: totals (scaled) and hands played

Policy: TypeAlias = "Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]"
"""An opponent's policy: ``policy(observation, action_mask) -> action index``, given the
seat's observation vector and its ``int8`` action mask (an int or a numpy integer)."""

Opponent: TypeAlias = "str | Bot | Policy | BatchPolicy | Any"
"""What may sit at another seat: a bot name, a bot object (``choose(view)``), a
:data:`Policy`, a :class:`BatchPolicy`, or an object with sb3-contrib's
``predict(observation, action_masks=...)``."""


class BatchPolicy:
    """An opponent asked once for many decisions: ``policy(observations, masks) -> actions``.

    ``observations`` is an ``(M, observation size)`` ``float32`` array, one row per
    decision waiting for this opponent, ``masks`` the ``(M, actions)`` ``int8``
    action masks, and the answer M action indices (a sequence or an array).
    :class:`SeatVectorEnv` gathers the decisions of all its hands waiting for the
    same opponent and makes one call, so that a neural policy runs one forward
    pass for the whole batch rather than one per decision (self-play); a
    :class:`SeatEnv` calls it with one row.

    :param policy: the batched policy function.
    """

    __slots__ = ("policy",)

    def __init__(
        self, policy: Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]
    ) -> None:
        if not callable(policy):
            raise TypeError(f"a BatchPolicy wraps a callable, not {policy!r}")
        self.policy = policy

    def __call__(self, observations: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]) -> Any:
        """The policy's actions for the rows of ``observations``."""
        return self.policy(observations, masks)

    def __repr__(self) -> str:
        return f"BatchPolicy({self.policy!r})"


def policy_opponent(
    model: Any, *, deterministic: bool = False, batched: bool = False
) -> Policy | BatchPolicy:
    """A :data:`Policy` playing ``model``'s choices: anything with sb3-contrib's
    ``predict(observation, action_masks=..., deterministic=...)`` (``MaskablePPO``).

    ``deterministic=False`` (the default) samples from the policy, as a
    self-play opponent should; its randomness is the model's (torch's), not the
    environment's seed.  ``batched=True`` makes a :class:`BatchPolicy`, one
    ``predict`` for many observations (``predict`` takes a batch).
    """
    if batched:

        def many(observations: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]) -> Any:
            actions, _state = model.predict(
                observations, action_masks=masks.astype(bool), deterministic=deterministic
            )
            return actions

        return BatchPolicy(many)

    def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> Any:
        action, _state = model.predict(
            observation, action_masks=mask.astype(bool), deterministic=deterministic
        )
        return action

    return policy


class _Seat(abc.ABC):
    """One opponent seat: how it moves."""

    def reset(self, seed: int, rules: Rules) -> None:  # noqa: B027 (most seats keep nothing)
        """A new episode, seeded (nothing to do by default)."""

    @abc.abstractmethod
    def choose(self, env: SeatEnv, seat: int) -> Action:
        """The seat's action, at its turn in ``env``."""


class _NamedBot(_Seat):
    def __init__(self, name: str, format: TableFormat) -> None:
        self.name = name
        self.format = format
        self.bot: Bot | None = None

    def reset(self, seed: int, rules: Rules) -> None:
        self.bot = make_bot(self.name, seed=seed, rules=rules, format=self.format)

    def choose(self, env: SeatEnv, seat: int) -> Action:
        assert self.bot is not None
        return self.bot.choose(env._hand().view(seat))


class _Random(_Seat):
    """The shipped ``random`` bot's choices, draw for draw (``RandomBot(seed)`` chooses
    among ``view.legal_actions``, the hand's legal actions), without building a view."""

    def __init__(self) -> None:
        self.choice = random.Random().choice

    def reset(self, seed: int, rules: Rules) -> None:
        self.choice = random.Random(seed).choice

    def choose(self, env: SeatEnv, seat: int) -> Action:
        return self.choice(env._hand().legal_actions())


class _BotObject(_Seat):
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, env: SeatEnv, seat: int) -> Action:
        return self.bot.choose(env._hand().view(seat))


def _action_numbers(actions: Any, count: int, size: int) -> npt.NDArray[np.int64]:
    """``count`` actions as whole numbers (int64), checked before any is taken; those
    outside the ``size`` actions are -1 (illegal).

    :raises ValueError: not ``count`` actions in one row, or one that is no whole number.
    """
    import numpy

    given = numpy.asarray(actions)
    if given.shape != (count,):
        if given.ndim == 1:
            raise ValueError(f"{len(given)} actions for {count} environments")
        raise ValueError(f"actions of shape {given.shape} for {count} environments")
    if given.dtype.kind == "f":
        whole = numpy.isfinite(given) & (given == numpy.floor(given))
        if not whole.all():
            bad = given[numpy.flatnonzero(~whole)[0]]
            raise ValueError(f"an action is a whole number of the action space, not {bad!r}")
    elif given.dtype.kind not in "iub":
        given = numpy.asarray([encoding.action_number(action) for action in given], dtype=object)
    # beyond the action table (2**70, 1e30): an illegal action, as Seat-v0 takes it
    inside = (given >= 0) & (given < size)
    return numpy.where(inside, given, -1).astype(numpy.int64)


def _policy_index(codec: encoding.Layout, seat: int, index: Any, mask: npt.NDArray[np.int8]) -> int:
    """The action index a policy chose at ``seat`` (``index``, under ``mask``).

    :raises IllegalAction: an index outside the mask.
    :raises ValueError: an answer that is no whole number (``3.7`` is not truncated).
    """
    try:
        index = encoding.action_number(index)
    except ValueError as error:
        raise ValueError(f"the policy at seat {seat}: {error}") from None
    if not 0 <= index < len(mask) or not mask[index]:
        raise IllegalAction(
            codec.decode(index) if 0 <= index < len(mask) else index,
            seat,
            f"the policy at seat {seat} chose action {index}, outside its action mask",
        )
    return index


def _policy_action(env: SeatEnv, seat: int, index: Any, mask: npt.NDArray[np.int8]) -> Action:
    """The action a policy chose at ``seat`` of ``env`` (see :func:`_policy_index`)."""
    return env._codec.decode(_policy_index(env._codec, seat, index, mask))


def _batch_answer(
    policy: BatchPolicy, observations: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]
) -> Any:
    """A batch policy's actions for ``observations``, one a row.

    :raises GongzhuError: not as many actions as rows.
    """
    chosen = policy(observations, masks)
    if len(chosen) != len(masks):
        raise GongzhuError(
            f"a BatchPolicy answered {len(chosen)} actions for {len(masks)} observations"
        )
    return chosen


class _PolicySeat(_Seat):
    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def choose(self, env: SeatEnv, seat: int) -> Action:
        observation, mask = env._observe(seat)
        return _policy_action(env, seat, self.policy(observation, mask), mask)


class _BatchSeat(_Seat):
    """A :class:`BatchPolicy`: one call for the decisions of many hands."""

    def __init__(self, policy: BatchPolicy) -> None:
        self.policy = policy

    def choose(self, env: SeatEnv, seat: int) -> Action:
        return self.choose_many([(env, seat)])[0]

    def choose_many(self, waiting: Sequence[tuple[SeatEnv, int]]) -> list[Action]:
        """The actions of ``waiting``'s ``(env, seat)`` decisions, from one call."""
        import numpy

        first = waiting[0][0]
        observations = numpy.empty((len(waiting), first._observed_size), dtype=numpy.float32)
        masks = numpy.empty((len(waiting), first._codec.action_size), dtype=numpy.int8)
        for row, (env, seat) in enumerate(waiting):
            env._observe_into(seat, observations[row], masks[row])
        chosen = _batch_answer(self.policy, observations, masks)
        return [
            _policy_action(env, seat, index, masks[row])
            for row, ((env, seat), index) in enumerate(zip(waiting, chosen, strict=True))
        ]


def _seat_of(opponent: Opponent, format: TableFormat) -> _Seat:
    if isinstance(opponent, str):
        bot = make_bot(opponent)  # an unknown name fails here, not at reset
        return _Random() if type(bot) is RandomBot else _NamedBot(opponent, format)
    if isinstance(opponent, Bot):  # told 2-vs-2 at a team table; left as it is otherwise
        return _BotObject(tell_format(opponent, format) if format.has_teams else opponent)
    if isinstance(opponent, BatchPolicy):
        return _BatchSeat(opponent)
    predict = getattr(opponent, "predict", None)
    if callable(predict):
        return _PolicySeat(policy_opponent(opponent))
    if callable(opponent):
        return _PolicySeat(opponent)
    raise TypeError(
        f"an opponent is a bot name, a bot, a policy(observation, mask) or a model with "
        f"predict(), not {opponent!r}"
    )


class SeatEnv(Env["npt.NDArray[np.float32]", "np.int64"]):
    """One seat of a hand of ``rules`` against three opponents.

    :param rules: the ruleset: a :class:`~gongzhu.rules.Rules`, a name, a
        sequence of names, or ``None`` for the default rules.
    :param seat: the agent's seat, 0-3.
    :param bots: the opponents (see :data:`Opponent`): one for all three seats,
        or three for the other seats in seat order.  Bot names are built anew,
        seeded, at every reset.
    :param render_mode: ``"ansi"`` (:meth:`render` returns the text),
        ``"human"`` (it prints it) or ``None``.
    :param reward: what a hand pays (:data:`~gongzhu.envs.encoding.RewardKind`):
        the seat's ``"raw"`` or ``"final"`` score, or its team's, 2-vs-2
        (seats 0 and 2 against 1 and 3), ``"team"`` of raw points or
        ``"team-final"`` (:attr:`Reward.team <gongzhu.envs.encoding.Reward.team>`:
        the team's mean score less the other team's, zero-sum).  With a team
        reward the opponents given by name, or as bot objects, are told the
        format (:data:`~gongzhu.bots.PARTNERS`), so that the agent's partner
        plays for the team.
    :param reward_scale: what the scores are multiplied by (``None``: 0.01
        for raw points, 0.001 for final scores; see
        :func:`~gongzhu.envs.encoding.make_reward`).
    :param observation: what the agent observes
        (:data:`~gongzhu.envs.encoding.ObservationKind`): the
        ``"observation"`` vector (the default), or the
        ``"information_state"`` vector, which adds the hand's history (the
        order of the tricks; OpenSpiel's perfect-recall tensor).  Policy
        opponents are given the same kind.
    :param illegal_reward: the reward of an action outside the mask, which
        ends the episode (``info["illegal_action"]`` is then ``True``).  The
        default ``"auto"`` is :meth:`Reward.illegal
        <gongzhu.envs.encoding.Reward.illegal>`: five spreads of the reward
        below zero, on the same scale (-14.4 for 39baobao's raw points at the
        default scale).

    ``reset(seed=...)`` seeds the deals and the bots; ``reset(options={"deal":
    deal})`` plays the given :class:`~gongzhu.deal.Deal`.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 4}  # noqa: RUF012 (gymnasium.Env declares it an instance attribute)

    def __init__(
        self,
        rules: RulesLike = None,
        seat: int = 0,
        bots: Opponent | Sequence[Opponent] = "random",
        render_mode: str | None = None,
        *,
        reward: encoding.RewardKind = encoding.DEFAULT_REWARD,
        reward_scale: float | None = None,
        illegal_reward: float | Literal["auto"] = "auto",
        observation: encoding.ObservationKind = "observation",
    ) -> None:
        super().__init__()  # without Gymnasium: ImportError, naming the extra
        import numpy
        from gymnasium import spaces

        from .fast import HandEncoder

        if seat not in range(_SEATS):
            raise ValueError(f"seat must be 0-3, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"not {render_mode!r}"
            )
        self.rules: Rules = resolve_rules(rules)
        """The ruleset played."""
        self.seat = seat
        """The agent's seat."""
        self.reward: encoding.Reward = encoding.make_reward(reward, reward_scale)
        """What a hand pays."""
        self.format: TableFormat = PARTNERS if self.reward.team else SOLO
        """The table's format the opponents are told: 2-vs-2 with a team reward."""
        self.observation: encoding.ObservationKind = encoding.check_observation(observation)
        """What the agent observes: ``"observation"`` or ``"information_state"``."""
        self._history = self.observation == "information_state"
        self.render_mode = render_mode
        self.illegal_reward: float = (
            self.reward.illegal(self.rules) if illegal_reward == "auto" else float(illegal_reward)
        )
        """The reward of an illegal action (it ends the episode)."""
        self._codec = encoding.layout(self.rules)
        self._vector_size = (
            self._codec.information_state_size if self._history else self._codec.observation_size
        )
        self.action_space = spaces.Discrete(self._codec.action_size)
        self.observation_space = self._observation_space()
        self.encoder: HandEncoder = HandEncoder(self.rules, information_state=self._history)
        """The encoder following :attr:`hand`."""
        self.hand: HandState | None = None
        """The hand being played (``None`` before the first reset)."""
        self._opponent_seats: dict[int, _Seat] = {}
        self.bot_names: tuple[str, ...] = ()
        """The opponents given by name, in seat order (others appear as ``"policy"``
        or ``"bot"``)."""
        self.set_opponents(bots)
        self._done = True
        self._ones = numpy.ones(self._codec.action_size, dtype=numpy.int8)

    def _observation_space(self) -> Any:
        import numpy
        from gymnasium import spaces

        high = encoding.vector_high(self.rules, self.observation)
        return spaces.Box(low=0.0, high=high, dtype=numpy.float32)

    def set_opponents(self, bots: Opponent | Sequence[Opponent]) -> None:
        """Seat other opponents (see :data:`Opponent`); they play from the next reset on
        (or from the next move, for policies and bot objects).

        :raises ValueError: neither one opponent nor three.
        :raises UnknownBot: an unknown bot name.
        """
        if isinstance(bots, str) or not isinstance(bots, Sequence):
            chosen = [bots] * (_SEATS - 1)
        else:
            chosen = list(bots)
        if len(chosen) != _SEATS - 1:
            raise ValueError(f"bots must be one opponent or three, not {len(chosen)}")
        others = [s for s in range(_SEATS) if s != self.seat]
        fmt = self.format
        self._opponent_seats = {
            seat: _seat_of(o, fmt) for seat, o in zip(others, chosen, strict=True)
        }
        self.bot_names = tuple(
            o if isinstance(o, str) else "bot" if isinstance(o, Bot) else "policy" for o in chosen
        )

    def _hand(self) -> HandState:
        if self.hand is None:
            raise RuntimeError("call reset() before step()")
        return self.hand

    def _vector(
        self, seat: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``seat``'s observation or information-state vector (see :attr:`observation`)."""
        if self._history:
            return self.encoder.information_state(seat, out)
        return self.encoder.observation(seat, out)

    @property
    def _observed_size(self) -> int:
        """The length of an observation (the agent's, a policy opponent's)."""
        return self._vector_size

    def _observe_into(
        self, seat: int, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]
    ) -> None:
        """``seat``'s observation (as the agent's is made) and action mask, into the arrays."""
        self._vector(seat, observation)
        self.encoder.action_mask(seat, mask)

    def _observe(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``seat``'s vector and action mask (new arrays)."""
        if self._history:
            return self.encoder.information_state(seat), self.encoder.action_mask(seat)
        return self.encoder.observe(seat)

    def _observation(self) -> npt.NDArray[np.float32]:
        return self._vector(self.seat)

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"action_mask": self._mask(), **extra}

    def _outputs(self, **extra: Any) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """The observation and the info a step or a reset returns."""
        if self._done:
            return self._observation(), self._info(**extra)
        observation, mask = self._observe(self.seat)
        return observation, {"action_mask": mask, **extra}

    def _mask(self) -> npt.NDArray[np.int8]:
        if self._done:
            return self._ones.copy()
        return self.encoder.action_mask(self.seat)

    def _play_opponents(self) -> None:
        hand = self._hand()
        seats = self._opponent_seats
        mine = self.seat
        while (seat := hand.to_move) is not None and seat != mine:
            hand.apply(seats[seat].choose(self, seat))

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Which actions are legal now (a boolean vector); once the episode has ended,
        every action (none is: call reset(), which ignores the action)."""
        return self._mask().astype(bool)

    def _deal(self, seed: int | None, options: dict[str, Any] | None) -> HandState:
        """The next hand (``seed``: its seed, unless ``options`` gives a deal)."""
        deal = (options or {}).get("deal")
        return self.rules.new_hand(seed=None if deal else seed, deal=deal)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal a new hand and let the opponents play up to the agent's first decision.

        :param seed: seeds the environment's random generator, which draws the
            deal and the bots' seeds.
        :param options: ``{"deal": Deal}`` plays that deal; other keys are ignored.
        """
        self._begin(seed, options)
        self._play_opponents()
        self._after_opponents()
        if self.render_mode == "human":
            self.render()
        return self._outputs()

    def _begin(self, seed: int | None, options: dict[str, Any] | None) -> None:
        """Seed, deal the next hand and reseat the opponents, none of them moved yet."""
        super().reset(seed=seed)
        draw = self.np_random.integers(0, 2**63, size=_SEATS)
        for k, seat in enumerate(sorted(self._opponent_seats)):
            self._opponent_seats[seat].reset(int(draw[k + 1]), self.rules)
        self.hand = self._deal(int(draw[0]), options)
        self.encoder.reset(self.hand)
        self._done = False

    def _after_opponents(self) -> float:
        """The reward once the opponents have played (the hand may be over); for
        :class:`MatchEnv`, which goes on to the next hand."""
        hand = self._hand()
        if not hand.is_over:
            return 0.0
        self._done = True
        return self.reward.of(hand)[self.seat]

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[npt.NDArray[np.float32], SupportsFloat, bool, bool, dict[str, Any]]:
        """Take the action numbered ``action``, then let the opponents play up to the agent's
        turn.

        :returns: ``(observation, reward, terminated, truncated, info)``; the
            episode terminates when the hand is over, or on an illegal action.
        :raises RuntimeError: the episode is over (after the last card or an
            illegal action): call :meth:`reset`.
        :raises ValueError: an action that is no whole number (``3.7``; nothing changes).
        """
        reward, illegal = self._advance(action)
        if self.render_mode == "human" and not illegal:
            self.render()
        observation, info = self._outputs(illegal_action=True) if illegal else self._outputs()
        return observation, reward, self._done, False, info

    def _advance(self, action: int | np.integer[Any]) -> tuple[float, bool]:
        """Take the action, let the opponents play: ``(reward, illegal)``."""
        if self._agent_action(action):
            return self.illegal_reward, True
        self._play_opponents()
        return self._after_opponents(), False

    def _agent_action(self, action: int | np.integer[Any]) -> bool:
        """Take the agent's action (no opponent moves); whether it was illegal (which
        ends the episode)."""
        hand = self._hand()
        number = encoding.action_number(action)
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        if hand.to_move != self.seat:  # an opponent's move raised mid-way: the hand is stuck
            raise RuntimeError(
                f"seat {hand.to_move} is to move, not the agent: a previous step raised; "
                "call reset()"
            )
        try:
            hand.apply(self._codec.decode(number))
        except (IllegalAction, ValueError):
            self._done = True
            return True
        return False

    def render(self) -> Any:
        """The hand as text (``"ansi"``, a ``str``), printed (``"human"``), or nothing
        (``None``) without a mode."""
        if self.render_mode is None or self.hand is None:
            return None
        text = encoding.render_text(self.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text


class MatchEnv(SeatEnv):
    """One seat of a whole match against three opponents: an episode is a match.

    Hands follow one another (the next hand's leader by the ruleset's rule,
    :class:`gongzhu.match.Match`) until the match is over: by the ruleset's
    own end (华牌: a total reaching its ``match_target``, 1000), at ``target``,
    or after ``hands`` hands.  Each step that ends a hand pays the agent's
    score of it (as :class:`SeatEnv` does, ``reward`` and ``reward_scale``);
    the next hand is dealt in the same step, and ``info["hand_over"]`` is
    ``True``.  The observation is the hand's, followed by ``match``: the four
    seats' running totals (final scores, relative seats as everywhere, times
    ``reward_scale`` of final scores: 0.001 by default) and the number of hands
    played.  A policy opponent is given its own seat's observation made the same
    way, so a policy trained on this environment can play any seat of it.

    The other parameters are :class:`SeatEnv`'s.

    :raises GongzhuError: a match that cannot end (no ``target``, no ``hands``
        and a ruleset with no end of its own, as 39baobao).
    """

    def __init__(
        self,
        rules: RulesLike = None,
        seat: int = 0,
        bots: Opponent | Sequence[Opponent] = "random",
        render_mode: str | None = None,
        *,
        target: int | None = None,
        hands: int | None = None,
        reward: encoding.RewardKind = encoding.DEFAULT_REWARD,
        reward_scale: float | None = None,
        illegal_reward: float | Literal["auto"] = "auto",
        observation: encoding.ObservationKind = "observation",
    ) -> None:
        self._hand_over = False
        self.target = target
        """The total that ends the match (``None``: the ruleset's own end)."""
        self.max_hands = hands
        """The most hands a match has (``None``: no limit)."""
        super().__init__(
            rules,
            seat,
            bots,
            render_mode,
            reward=reward,
            reward_scale=reward_scale,
            illegal_reward=illegal_reward,
            observation=observation,
        )
        if hands is None and target is None and not self.rules.decides_match_end:
            raise GongzhuError(
                f"a match of {self.rules!r} never ends by itself: give target= or hands="
            )
        self.match: Match | None = None
        """The match being played (``None`` before the first reset)."""
        self._totals_scale = encoding.DEFAULT_SCALES["final"]

    def _observation_space(self) -> Any:
        import numpy
        from gymnasium import spaces

        high = encoding.vector_high(self.rules, self.observation)
        low = numpy.zeros(len(high) + _SEATS + 1, dtype=numpy.float32)
        low[len(high) : len(high) + _SEATS] = -_MATCH_BOUND
        top = numpy.concatenate([high, numpy.full(_SEATS + 1, _MATCH_BOUND, numpy.float32)])
        return spaces.Box(low=low, high=top.astype(numpy.float32), dtype=numpy.float32)

    def _observation(self) -> npt.NDArray[np.float32]:
        import numpy

        size = self._vector_size
        out = numpy.empty(size + _SEATS + 1, dtype=numpy.float32)
        self._vector(self.seat, out[:size])
        self._match_part(self.seat, out[size:])
        return out

    def _observe(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``seat``'s observation as the agent's is made (the match part from ``seat``), and
        its mask: what a policy opponent is given, so that a policy trained here plays at
        any seat."""
        import numpy

        out = numpy.empty(self._observed_size, dtype=numpy.float32)
        mask = numpy.empty(self._codec.action_size, dtype=numpy.int8)
        self._observe_into(seat, out, mask)
        return out, mask

    @property
    def _observed_size(self) -> int:
        return self._vector_size + _SEATS + 1

    def _observe_into(
        self, seat: int, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]
    ) -> None:
        size = self._vector_size
        self._vector(seat, observation[:size])
        self._match_part(seat, observation[size:])
        self.encoder.action_mask(seat, mask)

    def _match_part(self, viewer: int, out: npt.NDArray[np.float32]) -> None:
        """The match's totals from ``viewer``'s seat on (relative seats) and the hands
        played, into ``out`` (``SEATS + 1`` entries)."""
        match = self.match
        assert match is not None
        for seat in range(_SEATS):
            total = match.totals[seat] * self._totals_scale
            out[(seat - viewer) % _SEATS] = max(-_MATCH_BOUND, min(_MATCH_BOUND, total))
        out[_SEATS] = min(len(match.hands), _MATCH_BOUND)

    def _deal(self, seed: int | None, options: dict[str, Any] | None) -> HandState:
        deal = (options or {}).get("deal")
        if deal is not None:
            raise ValueError("a match deals its own hands: reset(options={'deal': ...}) is refused")
        self.match = self.rules.new_match(seed, target=self.target, hands=self.max_hands)
        return self.match.new_hand()

    def _after_opponents(self) -> float:
        hand = self._hand()
        match = self.match
        assert match is not None
        paid = 0.0
        self._hand_over = False
        while hand.is_over:
            paid += self.reward.of(hand)[self.seat]
            match.record_hand(hand)
            self._hand_over = True
            if match.is_over:
                self._done = True
                return paid
            hand = self.hand = match.new_hand()
            self.encoder.reset(hand)
            self._play_opponents()
        return paid

    def _outputs(self, **extra: Any) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        return self._observation(), self._info(**extra)

    def _info(self, **extra: Any) -> dict[str, Any]:
        info = super()._info(**extra)
        info["hand_over"] = self._hand_over
        if self.match is not None:
            info["totals"] = tuple(self.match.totals)
        return info


class SeatVectorEnv(VectorEnv):
    """``num_envs`` hands of :class:`SeatEnv` stepped together, behind Gymnasium's vector API.

    One process, no pickling: each step takes a batch of actions and returns
    batched observations (``num_envs`` rows written in place), rewards and
    flags.  By default an episode that ends is reset in the same step
    (Gymnasium's ``AutoresetMode.SAME_STEP``): its last observation is in
    ``info["final_obs"]`` (an object array, ``None`` for the others, with the
    boolean ``info["_final_obs"]``) and its last info in ``info["final_info"]``
    (batched as Gymnasium batches infos, with ``info["_final_info"]``), and the
    returned row is the next hand's.  With ``autoreset_mode=AutoresetMode.NEXT_STEP``
    (Gymnasium's own vector environments' mode, which its observation wrappers
    such as ``NormalizeObservation`` need) the step that ends an episode returns
    its last observation in the row (the mask all ones: any action, it is
    ignored), and the next step resets it: that hand's action is ignored, its
    row is the new hand's, its reward 0.  ``gymnasium.make_vec("gongzhu/Seat-v0",
    num_envs=N, vectorization_mode="vector_entry_point")`` makes one
    (``autoreset_mode=...`` among its keyword arguments chooses the mode).
    ``info["action_mask"]`` is the ``(num_envs, actions)`` ``int8`` masks and
    :meth:`action_masks` the same as booleans.

    **Batched** (the default when every opponent is ``"random"``, a
    :data:`Policy`, a :class:`BatchPolicy` or a model with ``predict``): the
    hands are one :class:`gongzhu.batch.HandBatch`, stepped in C on the C
    engines, their observations written in C; the random opponents choose in
    C, and each policy is asked once a round for all the hands waiting on it
    (a :data:`Policy` row by row, a :class:`BatchPolicy` in one call).  A
    ``reset(seed=s)`` deals hand ``i`` from seed ``b + i``, ``b`` drawn from
    ``numpy.random.default_rng(s)``, and the hands dealt later from the seeds
    after them; the random opponents draw from the same generator.
    **One by one** (``batched=False``, and always with bots by name other than
    ``"random"`` or bot objects, which read views): ``num_envs``
    :class:`SeatEnv`, hand ``i`` reset with seed ``s + i``, their opponents
    played a round at a time (a :class:`BatchPolicy` asked once a round).

    :param num_envs: how many hands at once.
    :param batched: ``True``, ``False``, or ``None`` for batched when the
        opponents allow it.
    :param autoreset_mode: ``AutoresetMode.SAME_STEP`` (the default) or
        ``AutoresetMode.NEXT_STEP`` (or their values, ``"SameStep"``, ``"NextStep"``).
    :param kwargs: :class:`SeatEnv`'s parameters, the same for every hand.
    :raises ValueError: ``batched=True`` with opponents that need views; a
        ``render_mode`` (a vector environment does not render); another autoreset
        mode (``DISABLED``: a hand is always reset by a step).
    """

    def __init__(
        self,
        num_envs: int = 8,
        *,
        batched: bool | None = None,
        autoreset_mode: Any = "SameStep",
        **kwargs: Any,
    ) -> None:
        import numpy
        from gymnasium.vector import AutoresetMode
        from gymnasium.vector.utils import batch_space

        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs!r}")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
            raise ValueError(
                "autoreset_mode must be AutoresetMode.SAME_STEP or AutoresetMode.NEXT_STEP, "
                f"not {autoreset_mode!r}"
            )
        self.next_step = mode is AutoresetMode.NEXT_STEP
        """Whether a hand that ends is reset by the next step (else by the same step)."""
        if kwargs.get("render_mode") is not None:
            raise ValueError(
                "a vector environment does not render: render a SeatEnv "
                "(gymnasium.make('gongzhu/Seat-v0', render_mode=...))"
            )
        first = SeatEnv(**kwargs)
        can_batch = _batchable(first)
        if batched is None:
            batched = can_batch
        elif batched and not can_batch:
            raise ValueError(
                "batched=True needs opponents that read no view: 'random', policies and "
                "models (bots by name and bot objects play with batched=False)"
            )
        self.batched = bool(batched)
        """Whether the hands are one :class:`~gongzhu.batch.HandBatch` (else
        :attr:`envs`)."""
        self.envs: list[SeatEnv] = (
            [first] + [SeatEnv(**kwargs) for _ in range(num_envs - 1)] if not batched else []
        )
        """The hands' environments, one by one (empty when :attr:`batched`)."""
        self.rules: Rules = first.rules
        """The ruleset played."""
        self.seat = first.seat
        """The agent's seat."""
        self.reward: encoding.Reward = first.reward
        """What a hand pays."""
        self.illegal_reward = first.illegal_reward
        """The reward of an illegal action (it ends the episode)."""
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(first.observation_space, num_envs)
        self.action_space = batch_space(first.action_space, num_envs)
        size = first._vector_size
        actions = first._codec.action_size
        self._obs = numpy.zeros((num_envs, size), dtype=numpy.float32)
        self._masks = numpy.zeros((num_envs, actions), dtype=numpy.int8)
        self._rewards = numpy.zeros(num_envs, dtype=numpy.float64)
        self._terminated = numpy.zeros(num_envs, dtype=numpy.bool_)
        self._truncated = numpy.zeros(num_envs, dtype=numpy.bool_)
        self._pending = numpy.zeros(num_envs, dtype=numpy.bool_)  # next step resets them
        self._hands = (
            _BatchedHands(first, num_envs, self._obs, self._masks, self.next_step)
            if batched
            else None
        )
        self._template = first

    def set_opponents(self, bots: Opponent | Sequence[Opponent]) -> None:
        """Seat other opponents in every hand (see :data:`Opponent`), as
        :meth:`SeatEnv.set_opponents` does (policies from the next move on, bots by name
        from the next reset): a pool of past checkpoints in self-play, say.  Batched, they
        must read no view (``"random"``, policies, batch policies, models).

        :raises ValueError: neither one opponent nor three; batched, one that reads views.
        :raises UnknownBot: an unknown bot name.
        """
        template = self._template
        if self._hands is None:
            for env in self.envs:
                env.set_opponents(bots)
            return
        previous = template._opponent_seats, template.bot_names
        template.set_opponents(bots)
        if not _batchable(template):
            template._opponent_seats, template.bot_names = previous
            raise ValueError(
                "a batched vector environment seats opponents that read no view: 'random', "
                "policies and models (bots by name and bot objects need batched=False)"
            )
        self._hands.seat_opponents(template._opponent_seats)

    @property
    def batch(self) -> HandBatch | None:
        """The hands, when :attr:`batched` (``None`` otherwise)."""
        return None if self._hands is None else self._hands.batch

    def _row(self, i: int) -> None:
        env = self.envs[i]
        env._vector(env.seat, self._obs[i])
        env.encoder.action_mask(env.seat, self._masks[i])

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Reset every hand (see the class docs for how ``seed`` seeds them).

        :raises ValueError: ``options`` giving a deal (a vector deals its own hands) or a
            ``reset_mask`` (hands are reset in the step that ends them), or seeds that are
            not ``num_envs``.
        """
        if (options or {}).get("deal") is not None:
            raise ValueError("a vector environment deals its own hands: no options={'deal': ...}")
        if (options or {}).get("reset_mask") is not None:
            raise ValueError(
                "reset_mask is for the DISABLED autoreset mode: this environment resets a "
                "hand in a step (the one that ends it, or the next)"
            )
        self._pending[:] = False
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
            seed = int(seed)  # a numpy integer too
        if self._hands is not None:
            if seed is not None and not isinstance(seed, int):
                given = [operator.index(s) for s in seed if s is not None]
                if len(given) != self.num_envs:
                    raise ValueError(f"{len(given)} int seeds for {self.num_envs} environments")
                self._hands.reset(given)
            else:
                self._hands.reset(seed)
            return self._obs.copy(), self._mask_info({})
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        for i, env in enumerate(self.envs):
            env._begin(seeds[i], options)
        _play_opponents(self.envs)
        for i, env in enumerate(self.envs):
            env._after_opponents()
            self._row(i)
        return self._obs.copy(), self._mask_info({})

    def step(
        self, actions: Any
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Step every hand with its action; hands that end are reset at once (or, in
        ``NEXT_STEP`` mode, by the next step, which ignores their actions).

        The opponents of all the hands then play, a round at a time: the decisions
        waiting for one :class:`BatchPolicy` are asked of it in one call.

        :raises ValueError: not ``num_envs`` actions, or one that is no whole number
            (checked before any hand moves).
        """
        actions = _action_numbers(actions, self.num_envs, self._masks.shape[1])
        if self._hands is not None:
            info = self._mask_info(self._hands.step(actions, self._rewards, self._terminated))
        else:
            info = self._step_one_by_one(actions)
        return (
            self._obs.copy(),
            self._rewards.copy(),
            self._terminated.copy(),
            self._truncated.copy(),
            info,
        )

    def _step_one_by_one(self, actions: Any) -> dict[str, Any]:
        """:meth:`step` of the hands one by one (:attr:`envs`): the info; the rows, rewards
        and flags written in place."""
        info: dict[str, Any] = {}
        envs = self.envs
        pending = self._pending.tolist()
        illegal = [False] * len(envs)
        for i, env in enumerate(envs):
            if pending[i]:  # NEXT_STEP: the hand that ended is reset, its action ignored
                env._begin(None, None)
            else:
                illegal[i] = env._agent_action(actions[i])
        _play_opponents(envs)
        if self.next_step:
            for i, env in enumerate(envs):
                if pending[i]:
                    env._after_opponents()
                    self._rewards[i] = 0.0
                else:
                    self._rewards[i] = env.illegal_reward if illegal[i] else env._after_opponents()
                self._terminated[i] = self._pending[i] = env._done
                self._row(i)
                if env._done:
                    self._masks[i] = 1  # any action: the next step ignores it
                    info = self._add_info(info, {"illegal_action": illegal[i]}, i)
            return self._mask_info(info)
        ended: list[SeatEnv] = []
        for i, env in enumerate(envs):
            self._rewards[i] = env.illegal_reward if illegal[i] else env._after_opponents()
            terminated = self._terminated[i] = env._done
            if terminated:  # as Gymnasium's own vector envs report a same-step reset
                final_info = env._info(illegal_action=True) if illegal[i] else env._info()
                last = {
                    "final_obs": env._observation(),
                    "final_info": final_info,
                    "illegal_action": illegal[i],
                }
                info = self._add_info(info, last, i)
                env._begin(None, None)
                ended.append(env)
        if ended:
            _play_opponents(ended)
            for env in ended:
                env._after_opponents()
        for i in range(len(envs)):
            self._row(i)
        return self._mask_info(info)

    def _mask_info(self, info: dict[str, Any]) -> dict[str, Any]:
        """``info`` with the masks, batched as Gymnasium batches an info's entries (each
        key with its ``_key``: which hands have it, here all)."""
        import numpy

        info["action_mask"] = self._masks.copy()
        info["_action_mask"] = numpy.ones(self.num_envs, dtype=numpy.bool_)
        return info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Each hand's legal actions now, as a ``(num_envs, actions)`` boolean array."""
        return self._masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


def _batchable(env: SeatEnv) -> bool:
    """Whether ``env``'s opponents read no view (so its hands may be batched)."""
    return all(
        isinstance(seat, _Random | _PolicySeat | _BatchSeat)
        for seat in env._opponent_seats.values()
    )


class _BatchedHands:
    """:class:`SeatVectorEnv`'s hands as one :class:`~gongzhu.batch.HandBatch`: the agent's
    actions, the opponents' rounds, the rewards and the same-step resets, on arrays."""

    def __init__(
        self,
        template: SeatEnv,
        size: int,
        obs: npt.NDArray[np.float32],
        masks: npt.NDArray[np.int8],
        next_step: bool = False,
    ) -> None:
        import numpy

        from ..batch import HandBatch
        from .fast import batch_observations

        rules = template.rules
        self.rules = rules
        self.codec = template._codec
        self.seat = template.seat
        self.reward = template.reward
        self.illegal_reward = template.illegal_reward
        self.history = template.observation == "information_state"
        self.batch = HandBatch(
            rules,
            size,
            actions=encoding.batch_actions(rules),
            observations=batch_observations(rules),
            auto_reset=False,
        )
        self.size = size
        self.obs = obs
        self.masks = masks
        self.rng = numpy.random.default_rng()
        self.seat_opponents(template._opponent_seats)
        self.opponent_obs = numpy.zeros_like(obs)
        self.opponent_masks = numpy.zeros_like(masks)
        self.agent = numpy.full(size, self.seat, dtype=numpy.int8)
        self.ones = numpy.ones(masks.shape[1], dtype=numpy.int8)
        self.started = False
        self.next_step = next_step
        self.pending = numpy.zeros(size, dtype=numpy.bool_)  # NEXT_STEP: reset by the next step

    def seat_opponents(self, opponents: dict[int, _Seat]) -> None:
        """Seat ``opponents`` (each batchable: random, a policy, a batch policy)."""
        import numpy

        # per seat (index -1: a hand over), whether a random opponent sits there, and
        # which policy group: lookups, not searches, at every round
        self.at_random = numpy.zeros(_SEATS + 1, dtype=numpy.bool_)
        self.group_of = numpy.full(_SEATS + 1, -1, dtype=numpy.int8)
        groups: dict[int, tuple[Any, list[int]]] = {}
        for seat, opponent in opponents.items():
            if isinstance(opponent, _Random):
                self.at_random[seat] = True
                continue
            assert isinstance(opponent, _PolicySeat | _BatchSeat)
            key = id(opponent.policy)
            groups.setdefault(key, (opponent, []))[1].append(seat)
        self.groups = [opponent for opponent, _seats in groups.values()]
        for number, (_opponent, seats) in enumerate(groups.values()):
            self.group_of[seats] = number

    def reset(self, seed: int | list[int] | None) -> None:
        """Deal every hand anew: from the seeds given, or from ``b + i`` with ``b`` drawn
        from the generator (seeded with ``seed``; ``None`` carries on the generator, as
        Gymnasium's environments do)."""
        import numpy

        if isinstance(seed, list):
            self.rng = numpy.random.default_rng(seed)
            self.batch.reset(seed)
        else:
            if seed is not None:
                self.rng = numpy.random.default_rng(seed)
            self.batch.reset(int(self.rng.integers(0, 2**62)))
        self.started = True
        self.pending[:] = False
        self._opponents()
        self._outputs()

    def _outputs(self) -> None:
        self.batch.observe(self.obs, history=self.history)
        self.batch.legal_mask(self.masks)

    def _opponents(self) -> None:
        """The opponents of every hand move, a round at a time, until each hand waits for
        the agent (or is over)."""

        batch = self.batch
        while True:
            to_move = batch.to_move.copy()
            waiting = (to_move >= 0) & (to_move != self.seat)
            if not waiting.any():  # (nothing drawn: the draws depend on the hands alone)
                return
            if not self.groups:  # random opponents only: their rounds in one call
                batch.random_until(self.seat, self.rng)
                continue
            at_random = waiting & self.at_random[to_move]
            at_policy = waiting & ~at_random
            if at_policy.any():
                self._policies(to_move, at_policy)
            if at_random.any():
                batch.random_step(self.rng, where=at_random)

    def _policies(self, to_move: npt.NDArray[np.int8], waiting: npt.NDArray[np.bool_]) -> None:
        import numpy

        batch = self.batch
        observations = batch.observe(self.opponent_obs, history=self.history)
        masks = batch.legal_mask(self.opponent_masks)
        chosen = numpy.zeros(self.size, dtype=numpy.int64)
        group = self.group_of[to_move]
        for number, opponent in enumerate(self.groups):
            rows = numpy.flatnonzero(waiting & (group == number))
            if not len(rows):
                continue
            if isinstance(opponent, _BatchSeat):
                picked = list(_batch_answer(opponent.policy, observations[rows], masks[rows]))
            else:  # each its own arrays, as SeatEnv gives them (a policy may keep them)
                picked = [opponent.policy(observations[i].copy(), masks[i].copy()) for i in rows]
            for i, index in zip(rows.tolist(), picked, strict=True):
                chosen[i] = _policy_index(self.codec, int(to_move[i]), index, masks[i])
        batch.step(chosen, where=waiting)

    def step(
        self,
        actions: Any,
        rewards: npt.NDArray[np.float64],
        terminated: npt.NDArray[np.bool_],
    ) -> dict[str, Any]:
        import numpy

        batch = self.batch
        if not self.started:
            raise RuntimeError("call reset() before step()")
        to_move = batch.to_move
        if ((to_move >= 0) & (to_move != self.seat)).any():  # an opponent's move raised
            raise RuntimeError("an opponent is to move: a previous step raised; call reset()")
        pending = self.pending.copy()
        if pending.any():  # NEXT_STEP: the hands that ended are dealt anew, actions ignored
            batch.restart(numpy.flatnonzero(pending))
            self._opponents()
        given = numpy.asarray(actions, dtype=numpy.int64)  # (whole numbers: step checked)
        inside = (given >= 0) & (given < self.masks.shape[1]) & ~pending
        legal = inside.copy()
        legal[inside] = self.masks[numpy.flatnonzero(inside), given[inside]] != 0
        illegal = ~legal & ~pending
        batch.step(numpy.where(legal, given, 0), where=legal)
        self._opponents()
        finished = (batch.to_move < 0) & ~pending
        ended = finished | illegal
        terminated[:] = ended
        rewards[:] = 0.0
        info: dict[str, Any] = {}
        if self.next_step:
            if finished.any():
                paid = self.reward.of_arrays(self.rules, batch.raw_scores, batch.returns)
                rewards[finished] = paid[finished, self.seat]
            rewards[illegal] = self.illegal_reward
            if ended.any():
                info = {"illegal_action": illegal & ended, "_illegal_action": ended.copy()}
            self.pending[:] = ended
            batch.observe(self.obs, history=self.history, seats=self.agent)
            batch.legal_mask(self.masks)
            self.masks[ended] = self.ones  # any action: the next step ignores it
            return info
        if ended.any():
            which = numpy.flatnonzero(ended)
            if finished.any():
                paid = self.reward.of_arrays(self.rules, batch.raw_scores, batch.returns)
                rewards[finished] = paid[finished, self.seat]
            rewards[illegal] = self.illegal_reward
            last = batch.observe(history=self.history, seats=self.agent)
            final_obs = numpy.empty(self.size, dtype=object)
            for i in which.tolist():
                final_obs[i] = last[i]
            final_masks = numpy.zeros_like(self.masks)
            final_masks[ended] = self.ones
            final_info: dict[str, Any] = {
                "action_mask": final_masks,
                "_action_mask": ended.copy(),
            }
            if illegal.any():
                final_info["illegal_action"] = illegal.copy()
                final_info["_illegal_action"] = illegal.copy()
            info = {
                "final_obs": final_obs,
                "_final_obs": ended.copy(),
                "final_info": final_info,
                "_final_info": ended.copy(),
                "illegal_action": illegal & ended,
                "_illegal_action": ended.copy(),
            }
            batch.restart(which)
            self._opponents()
        self._outputs()
        return info


def _play_opponents(envs: Sequence[SeatEnv]) -> None:
    """Play the opponents of ``envs`` up to each agent's turn (or the hand's end), a
    round at a time: in each round every hand waiting for an opponent gets one move,
    and the hands waiting for the same :class:`BatchPolicy` are asked in one call."""
    while True:
        batches: dict[int, tuple[_BatchSeat, list[tuple[SeatEnv, int]]]] = {}
        moved = False
        for env in envs:
            if env._done:
                continue
            hand = env._hand()
            seat = hand.to_move
            if seat is None or seat == env.seat:
                continue
            opponent = env._opponent_seats[seat]
            if isinstance(opponent, _BatchSeat):
                key = id(opponent.policy)
                if key not in batches:
                    batches[key] = (opponent, [])
                batches[key][1].append((env, seat))
            else:
                hand.apply(opponent.choose(env, seat))
                moved = True
        for opponent, waiting in batches.values():
            for (env, _seat), action in zip(waiting, opponent.choose_many(waiting), strict=True):
                env._hand().apply(action)
            moved = True
        if not moved:
            return


def _register() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point=f"{__name__}:SeatEnv",
            vector_entry_point=f"{__name__}:SeatVectorEnv",
        )
    if MATCH_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=MATCH_ENV_ID, entry_point=f"{__name__}:MatchEnv")


_register()

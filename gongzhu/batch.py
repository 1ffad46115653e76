"""Many hands stepped together, with numpy arrays in and out: :class:`HandBatch`.

A :class:`HandBatch` holds ``N`` hands of one ruleset, each on its own engine
(:class:`~gongzhu.play.HandEngine`), and steps them together: the legal
actions of every hand's seat to move as one ``N × A`` mask, one call
applying ``N`` actions (shows and plays alike), the seats to move, and the
raw and final scores of the hands that finish as arrays.  A finished hand
starts again in place from the next seed (unless ``auto_reset=False``), and
any hand, or the last one finished in a slot, is a
:class:`~gongzhu.hand.HandState` (and so a record) on request.

**Actions** are numbered by an :class:`ActionTable`: a plain table, made
once per ruleset, giving each play key (:attr:`Play.key
<gongzhu.actions.Play.key>`) and each show choice id (:attr:`ShowPhase.choices
<gongzhu.showphase.ShowPhase.choices>`) its action index.  The default,
:meth:`ActionTable.default`, numbers the plays by key (one card: its card
index; two decks: then the two-card plays ``a ≤ b`` in the order (0,0), (0,1),
…, (51,51)) and then the show choices by id; the learning adapters number
them as their action space does (:func:`gongzhu.envs.encoding.batch_actions`).
The batch knows the table and nothing of how it was made.

**Engines.**  On the C engines (``single-c``, ``pairs-c``) the hands are held
in C (``gongzhu._speedups.Batch``) and stepped with no Python per decision:
each engine type gives its legal play keys and plays a key through C entry
points, so legality is the engines' own, not a copy.  On any other engine
(the pure-Python references, ``engine="single-python"``, or every engine
when the C extension is absent) a Python loop over the engines gives the
same API and the same hands; the tests hold the two, and ``N`` separate
:meth:`Rules.new_hand <gongzhu.rules.Rules.new_hand>` hands, equal.

**Observations** (:meth:`HandBatch.observe`): each hand's seat to move's
observation, or its perfect-recall information state, written into a
preallocated ``float32`` array, where an :class:`ObservationTable` places
them (:func:`gongzhu.envs.fast.batch_observations` gives the adapters'
layout, so they are :class:`gongzhu.envs.fast.HandEncoder`'s vectors).  On
the C engines they are made in C, the encoder's twin.

**Bad input** (an action out of range or not legal, a wrong shape or dtype)
raises :class:`ValueError` or :class:`TypeError` naming the hand and the
action, and no hand changes.

numpy is imported on first use, not when this module is imported.

>>> from gongzhu import load_rules
>>> batch = HandBatch(load_rules(), 4, seeds=100)
>>> batch.legal_mask().shape          # 52 plays, 16 shows
(4, 68)
>>> while batch.hands_finished < 4:
...     done = batch.random_step()
>>> batch.returns.shape
(4, 4)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

from ._accel import accelerator
from .actions import ONE_CARD_KEYS, PLAY_KEYS, Action, play_of_key
from .bulk import RandomHands
from .deal import SEATS
from .masks import CardMask
from .play import OVER_PHASE, PLAY_PHASE, HandEngine

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .hand import HandState
    from .rules import Rules

__all__ = ["OBSERVATION_INTS", "ActionTable", "HandBatch", "HandObserver", "ObservationTable"]

_speedups: Any = accelerator("_speedups")
_C_ENGINES: Final = () if _speedups is None else (_speedups.SingleEngine, _speedups.PairsEngine)
CARDS: Final = 52


def _play_keys(copies: int) -> list[int]:
    """The play keys of a ruleset with ``copies`` decks, ascending."""
    keys = list(range(CARDS))
    if copies == 2:
        keys += [ONE_CARD_KEYS + a * CARDS + b for a in range(CARDS) for b in range(a, CARDS)]
    return keys


@attrs.frozen
class ActionTable:
    """The numbering of one ruleset's actions: plain ints, made once.

    :ivar plays: per play key (``0 ≤ key <`` :data:`~gongzhu.actions.PLAY_KEYS`), its
        action index, or -1 for a key the ruleset never plays.
    :ivar shows: per show choice id (:attr:`ShowPhase.choices
        <gongzhu.showphase.ShowPhase.choices>`), its action index, or -1.
    :ivar size: how many action indices there are (a mask row's length).
    """

    plays: tuple[int, ...]
    shows: tuple[int, ...]
    size: int

    @classmethod
    def numbered(cls, rules: Rules, number: Callable[[Action], int], size: int) -> ActionTable:
        """The table of ``rules`` that numbers each action ``number(action)``.

        :param number: a callable taking a :class:`~gongzhu.actions.Play` or
            :class:`~gongzhu.actions.Show` of the ruleset and giving its index in ``[0, size)``.
        :param size: the number of action indices.
        """
        plays = [-1] * PLAY_KEYS
        for key in _play_keys(rules.table.copies):
            plays[key] = number(play_of_key(key))
        shows = tuple(number(choice.show) for choice in rules.show_phase.choices)
        return cls(tuple(plays), shows, size)

    @classmethod
    def default(cls, rules: Rules) -> ActionTable:
        """The plays of ``rules`` by key, ascending, then its show choices by id."""
        keys = _play_keys(rules.table.copies)
        plays = [-1] * PLAY_KEYS
        for index, key in enumerate(keys):
            plays[key] = index
        nshows = len(rules.show_phase.choices)
        shows = tuple(range(len(keys), len(keys) + nshows))
        return cls(tuple(plays), shows, len(keys) + nshows)


@attrs.frozen
class ObservationTable:
    """Where a batch writes each part of a seat's observation and history: plain data,
    made once per ruleset by the encoder whose vectors they are
    (:func:`gongzhu.envs.fast.batch_observations` gives the learning adapters').

    :ivar ints: the sizes of the observation and of the history, then the offsets of the
        parts, by name, in the order of :data:`OBSERVATION_INTS` (-1: a part the ruleset
        has not).
    :ivar show_start: per (show choice id, forced, seat relative to the observer), the
        start of its entries in ``show_at`` (one more at the end: their number).
    :ivar show_at: the offsets in the observation each show adds to.
    :ivar show_value: what it adds there.
    :ivar binds: per show choice id: 0, 1 when the shown-card lock binds its cards in
        the first trick of their suit, 2 when only the seat that made it knows (a secret sale).
    :ivar first: per show choice id: whether it is a 首明 choice.
    :ivar reference: ``reference(hand, seat, history)``, the encoder's vector of a
        :class:`~gongzhu.hand.HandState` for ``seat`` (observation, or information state
        with ``history``): what a batch on Python engines writes, and the C batch's twin.
    """

    ints: tuple[int, ...]
    show_start: tuple[int, ...]
    show_at: tuple[int, ...]
    show_value: tuple[float, ...]
    binds: tuple[int, ...]
    first: tuple[int, ...]
    reference: Any = attrs.field(eq=False, repr=False)

    @property
    def observation_size(self) -> int:
        """The length of an observation."""
        return self.ints[0]

    @property
    def information_state_size(self) -> int:
        """The length of an information state (the observation, then the history)."""
        return self.ints[0] + self.ints[1]


OBSERVATION_INTS: Final = (
    "observation size",
    "history size",
    "holding",
    "played-by",
    "trick",
    "taken",
    "voids",
    "holding-sizes",
    "phase",
    "leader",
    "to-move",
    "phase of first-show",
    "phase of show",
    "phase of play",
    "phase of over",
    "first-card",
    "first-turns",
    "played-in",
    "played-seat",
    "trick-leaders",
    "tricks",
    "preferred after spades",
    "preferred after hearts",
    "preferred after diamonds",
    "preferred after clubs",
    "strict discard rule",
    "first offender takes",
)
"""The names of :attr:`ObservationTable.ints`, in order (history offsets count from the
history's start; the phase entries are each engine phase's position in the ``phase`` part,
or -1)."""


class _PythonBatch:
    """The Python twin of ``gongzhu._speedups.Batch``: the same methods, over any engines."""

    def __init__(self, engines: Sequence[HandEngine], table: ActionTable, rules: Rules) -> None:
        self._engines = list(engines)
        self._plays = table.plays
        self._shows = table.shows
        self.size = table.size
        self._choice_of = {choice.show: choice.id for choice in rules.show_phase.choices}

    def __len__(self) -> int:
        return len(self._engines)

    def _legal(self, i: int) -> tuple[list[int], list[int], bool]:
        """Hand i's legal actions (engine order), their keys or positions, whether shows."""
        engine = self._engines[i]
        phase = engine.phase
        if phase == OVER_PHASE:
            return [], [], False
        legal = engine.legal()
        if phase != PLAY_PHASE:
            acts = []
            for show in legal:
                choice = self._choice_of[show]  # type: ignore[index]
                action = self._shows[choice]
                if action < 0:
                    raise ValueError(
                        f"hand {i}: show choice {choice} is legal but has no action number"
                    )
                acts.append(action)
            return acts, list(range(len(legal))), True
        keys = [play.key for play in legal]  # type: ignore[union-attr]
        acts = [self._plays[key] for key in keys]
        for key, action in zip(keys, acts, strict=True):
            if action < 0:
                raise ValueError(f"hand {i}: play key {key} is legal but has no action number")
        return acts, keys, False

    def legal_mask(self, out: Any) -> None:
        out[...] = 0
        for i in range(len(self._engines)):
            acts = self._legal(i)[0]
            if acts:
                out[i, acts] = 1

    def seats(self, out: Any) -> None:
        for i, engine in enumerate(self._engines):
            out[i] = engine.seat

    def _move(
        self, actions: Any, uniforms: Any, chosen: Any, moving: Any = None
    ) -> tuple[int, ...]:
        moves: list[tuple[int, int, bool] | None] = []
        if uniforms is not None:
            for i, u in enumerate(uniforms.tolist()):
                if not 0.0 <= u < 1.0:
                    raise ValueError(f"uniforms[{i}] is not in [0, 1)")
        for i, engine in enumerate(self._engines):
            if engine.phase == OVER_PHASE or (moving is not None and not moving[i]):
                if chosen is not None:
                    chosen[i] = -1
                moves.append(None)
                continue
            if actions is not None:
                action = int(actions[i])
                if not 0 <= action < self.size:
                    raise ValueError(f"hand {i}: action {action} is outside [0, {self.size})")
            acts, keys, show = self._legal(i)
            if not acts:
                raise ValueError(f"hand {i}: the seat to move has no legal action")
            if actions is not None:
                if action not in acts:
                    raise ValueError(
                        f"hand {i}: action {action} is not legal for seat {engine.seat}"
                    )
                k = acts.index(action)
            else:
                k = min(int(float(uniforms[i]) * len(acts)), len(acts) - 1)
                chosen[i] = acts[k]
            moves.append((i, keys[k], show))
        finished = []
        for move in moves:
            if move is None:
                continue
            i, key, show = move
            engine = self._engines[i]
            if show:
                engine.show(key)
            else:
                engine.play(key)
            if engine.phase == OVER_PHASE:
                finished.append(i)
        return tuple(finished)

    def step(self, actions: Any, moving: Any = None) -> tuple[int, ...]:
        return self._move(actions, None, None, moving)

    def random_step(self, uniforms: Any, out: Any, moving: Any = None) -> tuple[int, ...]:
        return self._move(None, uniforms, out, moving)

    def random_until(self, uniforms: Any, out: Any, stop: int) -> tuple[int, ...]:
        finished: list[int] = []
        out[...] = -1
        for r in range(len(uniforms)):
            moving = [
                engine.phase != OVER_PHASE and engine.seat >= 0 and engine.seat != stop
                for engine in self._engines
            ]
            if not any(moving):
                break
            finished.extend(self._move(None, uniforms[r], out[r], moving))
        return tuple(finished)

    def engine(self, i: int) -> HandEngine:
        return self._engines[i]

    def replace(self, i: int, engine: HandEngine) -> None:
        self._engines[i] = engine


class HandObserver:
    """Any seat's observation or information state of one hand, written in C from its
    engine's state: the rendering a :class:`HandBatch` does, for one hand that is played
    elsewhere (:class:`gongzhu.envs.fast.HandEncoder` reads its hand through one).

    :param engine: the hand's engine, a C engine (:meth:`renders` says whether).
    :param actions: the ruleset's action numbering (the observation's layout needs its
        show choices).
    :param observations: the layout, as data.
    :raises TypeError: an engine the C rendering cannot read.
    """

    __slots__ = ("_core", "_seats", "_size", "_width")

    @staticmethod
    def renders(engine: object) -> bool:
        """Whether ``engine`` is one the C rendering reads (a C engine)."""
        return type(engine) in _C_ENGINES

    def __init__(
        self, engine: HandEngine, actions: ActionTable, observations: ObservationTable
    ) -> None:
        import numpy as np

        if not self.renders(engine):
            raise TypeError(f"the C rendering reads the C engines, not {type(engine).__name__}")
        self._core = _speedups.Batch([engine], actions.plays, actions.shows, actions.size)
        table = observations
        self._core.set_encoding(
            table.ints, table.show_start, table.show_at, table.show_value, table.binds, table.first
        )
        self._seats = np.zeros(1, dtype=np.int8)
        self._size = table.observation_size
        self._width = table.information_state_size

    def write(self, seat: int, out: npt.NDArray[np.float32], *, history: bool = False) -> None:
        """``seat``'s observation (with ``history``, its information state) into ``out``, a
        C-contiguous ``float32`` vector of the right size.

        :raises ValueError: a seat outside 0-3, or ``out`` of another size.
        """
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0-3, not {seat!r}")
        self._seats[0] = seat
        width = self._width if history else self._size
        if out.shape != (width,):
            raise ValueError(f"out: expected shape ({width},), got {out.shape}")
        self._core.observe(out.reshape(1, width), self._seats)


class HandBatch:
    """``size`` hands of ``rules`` stepped together (see the module docs).

    :param rules: the ruleset.
    :param size: how many hands (``N``).
    :param seeds: the hands' first seeds (see :meth:`reset`); ``None``: 0, 1, …, N-1.
    :param actions: the numbering of the actions; ``None``: :meth:`ActionTable.default`.
    :param engine: the name of the engine to play on (one of :attr:`Rules.engines
        <gongzhu.rules.Rules.engines>`); ``None``: the ruleset's fastest.
    :param auto_reset: a hand that finishes starts again at once, from the next seed.
    :raises ValueError: ``size`` below 1, or an action table of another ruleset.
    :raises IncompatibleVariants: an engine that cannot play the ruleset.
    """

    def __init__(
        self,
        rules: Rules,
        size: int,
        *,
        seeds: int | Sequence[int] | npt.NDArray[Any] | None = None,
        actions: ActionTable | None = None,
        engine: str | None = None,
        auto_reset: bool = True,
        observations: ObservationTable | None = None,
    ) -> None:
        import numpy as np

        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"size must be an int of at least 1, not {size!r}")
        self.rules = rules
        self.actions = ActionTable.default(rules) if actions is None else actions
        if not isinstance(self.actions, ActionTable):
            raise TypeError(f"actions must be an ActionTable, not {type(actions).__name__}")
        if len(self.actions.plays) != PLAY_KEYS or len(self.actions.shows) != len(
            rules.show_phase.choices
        ):
            raise ValueError("the action table is not one of this ruleset")
        if observations is not None and not isinstance(observations, ObservationTable):
            raise TypeError(
                f"observations must be an ObservationTable, not {type(observations).__name__}"
            )
        if observations is not None and len(observations.binds) != len(rules.show_phase.choices):
            raise ValueError("the observation table is not one of this ruleset")
        self.observations = observations
        self.auto_reset = bool(auto_reset)
        self._hands = RandomHands(rules, engine=engine)
        self._scorer = rules.scorer
        self._shows = rules.show_phase
        self._size = size
        self._seeds = np.zeros(size, dtype=np.int64)
        self._seed_list: list[int] = [0] * size
        self._dealt: list[list[CardMask]] = [[]] * size
        self._last: list[tuple[int, HandEngine] | None] = [None] * size
        self._seats = np.zeros(size, dtype=np.int8)
        self._raw = np.zeros((size, SEATS), dtype=np.int64)
        self._returns = np.zeros((size, SEATS), dtype=np.int64)
        self._next_seed = 0
        self.hands_finished = 0
        """How many hands have finished since the batch was made or reset."""
        self._core: Any = None
        self._rng: np.random.Generator | None = None
        self.reset(seeds)

    # -- set-up -------------------------------------------------------------------------

    def reset(self, seeds: int | Sequence[int] | npt.NDArray[Any] | None = None) -> None:
        """Every hand starts again: hand ``i`` from ``seeds[i]`` (a sequence or an array of
        ``N`` ints), or from ``seeds + i`` (one int; ``None``: 0).  Hand ``i`` is the hand
        ``rules.new_hand(seed)`` deals, with the same opening lead.  Auto-reset then deals
        from the seed after the largest, upward.

        :raises TypeError: a seed that is not an int.
        :raises ValueError: not ``N`` seeds.
        """
        size = self._size
        if seeds is None:
            seeds = 0
        if isinstance(seeds, bool):
            raise TypeError("seeds: an int or a sequence of ints, not a bool")
        if (
            not isinstance(seeds, int)
            and hasattr(seeds, "__index__")
            and not hasattr(seeds, "__len__")
        ):
            seeds = operator.index(seeds)  # a numpy integer
        if isinstance(seeds, int):
            chosen = list(range(seeds, seeds + size))
        else:
            chosen = [_seed(seed) for seed in seeds]
            if len(chosen) != size:
                raise ValueError(f"seeds: expected {size} seeds, got {len(chosen)}")
        started = [self._hands.start(seed) for seed in chosen]
        engines = [engine for engine, _ in started]
        if (
            _C_ENGINES
            and all(type(engine) is type(engines[0]) for engine in engines)
            and (type(engines[0]) in _C_ENGINES)
        ):
            table = self.actions
            self._core = _speedups.Batch(engines, table.plays, table.shows, table.size)
            found = self.observations
            if found is not None:
                self._core.set_encoding(
                    found.ints,
                    found.show_start,
                    found.show_at,
                    found.show_value,
                    found.binds,
                    found.first,
                )
        else:
            self._core = _PythonBatch(engines, self.actions, self.rules)
        self._dealt = [dealt for _, dealt in started]
        self._seed_list = chosen
        self._seeds[:] = chosen
        self._next_seed = max(chosen) + 1
        self._last = [None] * size
        self._raw[:] = 0
        self._returns[:] = 0
        self.hands_finished = 0
        self._core.seats(self._seats)

    @property
    def size(self) -> int:
        """How many hands the batch holds (``N``)."""
        return self._size

    @property
    def action_size(self) -> int:
        """How many action indices there are (``A``: a mask row's length)."""
        return self.actions.size

    @property
    def engine_name(self) -> str:
        """The name of the engine the hands are played on."""
        return self._hands.engine_name

    @property
    def in_c(self) -> bool:
        """Whether the hands are held and stepped in C (else by a Python loop)."""
        return not isinstance(self._core, _PythonBatch)

    # -- stepping -----------------------------------------------------------------------

    def legal_mask(self, out: npt.NDArray[Any] | None = None) -> npt.NDArray[Any]:
        """Each hand's legal actions: ``out[i, a]`` is 1 when action ``a`` is legal for hand
        ``i``'s seat to move (a finished hand's row is all 0).

        :param out: an ``N × A`` C-contiguous array of ``bool``, ``int8`` or ``uint8`` to
            write into; ``None``: a new ``bool`` array.
        :raises TypeError / ValueError: ``out`` of another dtype or shape.
        """
        import numpy as np

        if out is None:
            out = np.zeros((self._size, self.actions.size), dtype=np.bool_)
        elif not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
        elif out.shape != (self._size, self.actions.size):
            raise ValueError(
                f"out: expected shape {(self._size, self.actions.size)}, got {out.shape}"
            )
        elif out.dtype not in (np.bool_, np.int8, np.uint8) or not out.flags.c_contiguous:
            raise TypeError(
                f"out: expected a C-contiguous bool, int8 or uint8 array, not {out.dtype}"
            )
        self._core.legal_mask(out)
        return out

    def observe(
        self,
        out: npt.NDArray[np.float32] | None = None,
        *,
        history: bool = False,
        seats: npt.ArrayLike | None = None,
    ) -> npt.NDArray[np.float32]:
        """Each hand's seat to move's observation (with ``history``, its information state:
        the observation, then the history), as the :attr:`observations` table's encoder
        gives it; a finished hand's row is all 0.  On the C engines the batch writes the
        rows in C; on others it asks the table's reference encoder.

        :param out: an ``N × size`` C-contiguous ``float32`` array to write into; ``None``:
            a new one.
        :param seats: ``N`` seats (0-3, or -1 for the seat to move): hand ``i``'s row is
            ``seats[i]``'s observation, a finished hand's too (a learner's last
            observation of its hand, with ``auto_reset=False``).
        :raises ValueError: the batch was made without ``observations``, or ``out`` of
            another shape.
        :raises TypeError: ``out`` of another dtype.
        """
        import numpy as np

        table = self.observations
        if table is None:
            raise ValueError("this batch was made without observations=ObservationTable(...)")
        width = table.information_state_size if history else table.observation_size
        if out is None:
            out = np.empty((self._size, width), dtype=np.float32)
        elif not isinstance(out, np.ndarray) or out.dtype != np.float32:
            raise TypeError("out: expected a float32 numpy array")
        elif out.shape != (self._size, width) or not out.flags.c_contiguous:
            raise ValueError(f"out: expected a C-contiguous array of shape {(self._size, width)}")
        viewers = None
        if seats is not None:
            given = np.asarray(seats)
            if given.dtype.kind not in "iu":
                raise TypeError(f"seats: expected integers, not {given.dtype}")
            if ((given < -1) | (given > 3)).any():
                raise ValueError("seats: expected seats 0 to 3, or -1 for the seat to move")
            viewers = np.ascontiguousarray(given, dtype=np.int8)
            if viewers.shape != (self._size,):
                raise ValueError(f"seats: expected shape ({self._size},), got {viewers.shape}")
            if ((viewers < -1) | (viewers > 3)).any():
                raise ValueError("seats: expected seats 0 to 3, or -1 for the seat to move")
        if self.in_c:
            self._core.observe(out, viewers)
            return out
        for i in range(self._size):
            seat = int(self._seats[i]) if viewers is None or viewers[i] < 0 else int(viewers[i])
            if seat < 0:
                out[i] = 0
            else:
                out[i] = table.reference(self.hand(i), seat, history)
        return out

    @property
    def to_move(self) -> npt.NDArray[np.int8]:
        """Each hand's seat to move, -1 for a finished hand (a read-only view)."""
        view = self._seats.view()
        view.flags.writeable = False
        return view

    @property
    def seeds(self) -> npt.NDArray[np.int64]:
        """Each hand's seed (a read-only view)."""
        view = self._seeds.view()
        view.flags.writeable = False
        return view

    @property
    def raw_scores(self) -> npt.NDArray[np.int64]:
        """``N × 4``: the raw scores (:attr:`ScoreSheet.raw <gongzhu.scoring.ScoreSheet.raw>`)
        of the last hand finished in each slot, by seat (0 before one finishes)."""
        view = self._raw.view()
        view.flags.writeable = False
        return view

    @property
    def returns(self) -> npt.NDArray[np.int64]:
        """``N × 4``: the final (normalised) scores (:meth:`HandState.returns
        <gongzhu.hand.HandState.returns>`) of the last hand finished in each slot."""
        view = self._returns.view()
        view.flags.writeable = False
        return view

    def step(
        self, actions: npt.ArrayLike, *, where: npt.ArrayLike | None = None
    ) -> npt.NDArray[np.bool_]:
        """Apply action ``actions[i]`` for each hand ``i``'s seat to move (a finished
        hand's entry is not read: with ``auto_reset=False`` it stays finished).

        :param where: ``N`` booleans: only the hands marked move (the others' actions are
            not read); ``None``: every hand.
        :return: which hands this step finished (their scores are then in
            :attr:`raw_scores` and :attr:`returns`; with auto-reset they have started again).
        :raises TypeError: actions that are not integers.
        :raises ValueError: not ``N`` actions, or one out of range or not legal (the
            message names the hand, the action and the seat): no hand changes.
        """
        import numpy as np

        given = np.asarray(actions)
        if given.dtype.kind not in "iu" or not np.can_cast(given.dtype, np.int64):
            raise TypeError(f"actions: expected integers (int64 at most), not {given.dtype}")
        if given.shape != (self._size,):
            raise ValueError(f"actions: expected shape ({self._size},), got {given.shape}")
        moving = self._where(where)
        finished = self._core.step(np.ascontiguousarray(given, dtype=np.int64), moving)
        return self._after(finished)

    def random_step(
        self, rng: np.random.Generator | None = None, *, where: npt.ArrayLike | None = None
    ) -> npt.NDArray[np.bool_]:
        """Each hand's seat to move takes a uniformly random legal action, chosen in C (on
        the C engines): with ``u`` drawn from ``rng`` per hand, the ``int(u * n)``-th of its
        ``n`` legal actions in the engine's order, as :meth:`HandEngine.random_playout
        <gongzhu.play.HandEngine.random_playout>` draws.  The actions taken are then
        :attr:`last_actions` (-1 for a finished hand, or one left out by ``where``).

        :param rng: the generator; ``None``: the batch's own (``numpy.random.default_rng()``,
            made on first use).
        :param where: ``N`` booleans: only the hands marked move; ``None``: every hand.
        :return: which hands this step finished (see :meth:`step`).
        """
        import numpy as np

        if rng is None:
            if self._rng is None:
                self._rng = np.random.default_rng()
            rng = self._rng
        uniforms = rng.random(self._size)
        chosen = np.empty(self._size, dtype=np.int64)
        finished = self._core.random_step(uniforms, chosen, self._where(where))
        self.last_actions = chosen
        return self._after(finished)

    def random_until(
        self, seat: int, rng: np.random.Generator | None = None, *, rounds: int = 16
    ) -> npt.NDArray[np.bool_]:
        """Random steps of the hands whose seat to move is not ``seat``, round after round
        (each as :meth:`random_step` draws), until every hand waits for ``seat`` or is over,
        or ``rounds`` rounds are played: a learner's random opponents, played in one call
        (in C on the C engines).  :attr:`last_actions` is then ``None``.

        :param seat: the seat the hands are played up to (0-3).
        :param rng: the generator; ``None``: the batch's own.
        :param rounds: the most rounds played (a hand may be left waiting for another seat
            after them: check :attr:`to_move`).
        :return: which hands finished (see :meth:`step`).
        :raises ValueError: a seat outside 0-3, or fewer than one round.
        """
        import numpy as np

        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0-3, not {seat!r}")
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {rounds!r}")
        if rng is None:
            if self._rng is None:
                self._rng = np.random.default_rng()
            rng = self._rng
        uniforms = rng.random((rounds, self._size))
        chosen = np.empty((rounds, self._size), dtype=np.int64)
        finished = self._core.random_until(uniforms, chosen, seat)
        self.last_actions = None
        return self._after(finished)

    def _where(self, where: npt.ArrayLike | None) -> npt.NDArray[np.bool_] | None:
        """``where`` as ``N`` contiguous booleans (``None`` stays ``None``)."""
        import numpy as np

        if where is None:
            return None
        chosen = np.asarray(where)
        if chosen.dtype != np.bool_:
            raise TypeError(f"where: expected booleans, not {chosen.dtype}")
        if chosen.shape != (self._size,):
            raise ValueError(f"where: expected shape ({self._size},), got {chosen.shape}")
        return np.ascontiguousarray(chosen)

    def restart(self, hands: npt.ArrayLike) -> None:
        """Start ``hands`` again at once, each from the next seed, unfinished and unscored
        (a hand abandoned: an agent's illegal action, a time limit).

        :param hands: the hands' indices, or ``N`` booleans marking them (as :meth:`step`
            returns and ``where=`` takes).
        :raises TypeError: neither integers nor booleans.
        :raises IndexError: an index outside the batch.
        :raises ValueError: booleans that are not ``N``.
        """
        import numpy as np

        given = np.asarray(hands)
        if given.dtype == np.bool_:
            if given.shape != (self._size,):
                raise ValueError(f"hands: expected {self._size} booleans, got {given.shape}")
            given = np.flatnonzero(given)
        elif given.size and given.dtype.kind not in "iu":
            raise TypeError(f"hands: expected indices or booleans, not {given.dtype}")
        for i in [self._index(i) for i in given.ravel().tolist()]:
            self._deal_next(i)
        self._core.seats(self._seats)

    def _deal_next(self, i: int) -> None:
        """Hand ``i`` starts again, dealt from the next seed (auto-reset, :meth:`restart`)."""
        seed = self._next_seed
        self._next_seed = seed + 1
        fresh, self._dealt[i] = self._hands.start(seed)
        self._core.replace(i, fresh)
        self._seed_list[i] = seed
        self._seeds[i] = seed

    last_actions: npt.NDArray[np.int64] | None = None
    """The actions :meth:`random_step` took last, or ``None`` before it runs."""

    def _after(self, finished: tuple[int, ...]) -> npt.NDArray[np.bool_]:
        import numpy as np

        done = np.zeros(self._size, dtype=np.bool_)
        if finished:
            which = list(finished)
            done[which] = True
            core = self._core
            score = self._score
            seeds = self._seed_list
            dealt = self._dealt
            last = self._last
            raws = []
            finals = []
            for i in which:
                engine = core.engine(i)
                raw, final = score(engine, dealt[i])
                raws.append(raw)
                finals.append(final)
                last[i] = (seeds[i], engine)
                if self.auto_reset:
                    self._deal_next(i)
            self._raw[which] = raws
            self._returns[which] = finals
            self.hands_finished += len(which)
        self._core.seats(self._seats)
        return done

    def _score(
        self, engine: HandEngine, dealt: Sequence[CardMask]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The raw and final scores of a finished hand: the one place the batch scores (as
        bulk play does: :meth:`RandomHands.raw_scores <gongzhu.bulk.RandomHands.raw_scores>`,
        in C from the compiled score data where it can)."""
        raw = self._hands.raw_scores(engine, dealt)
        return raw, self._scorer.normalise(raw)

    # -- hands on request ---------------------------------------------------------------

    def hand(self, i: int, *, finished: bool = False) -> HandState:
        """Hand ``i`` as a :class:`~gongzhu.hand.HandState` (a new one, replayed from the
        engine's show and trick logs): the hand under way, or with ``finished`` the last
        hand that finished in slot ``i``.

        :raises IndexError: no hand ``i``.
        :raises LookupError: ``finished`` and no hand has finished in slot ``i``.
        """
        index = self._index(i)
        if finished:
            last = self._last[index]
            if last is None:
                raise LookupError(f"no hand has finished in slot {index} yet")
            seed, engine = last
        else:
            seed, engine = self._seed_list[index], self._core.engine(index)
        state = self.rules.new_hand(seed, engine=self.engine_name)
        choices = self._shows.choices
        for _seat, choice, forced in engine.show_log:
            if not forced:
                state.apply(choices[choice].show)
        for entry in engine.trick_log:
            for key in entry[1]:
                state.apply(play_of_key(key))
        for key in engine.trick:
            state.apply(play_of_key(key))
        return state

    def record(self, i: int, *, finished: bool = False) -> dict[str, Any]:
        """The record (:meth:`HandState.to_record <gongzhu.hand.HandState.to_record>`) of
        hand ``i`` (see :meth:`hand`)."""
        return self.hand(i, finished=finished).to_record()

    def legal_actions(self, i: int) -> tuple[Action, ...]:
        """Hand ``i``'s legal actions as objects (for people and tests; the engine's order)."""
        return self._core.engine(self._index(i)).legal()

    def _index(self, i: int) -> int:
        if isinstance(i, bool):
            raise TypeError("a hand's index is an int, not bool")
        try:
            i = operator.index(i)  # an int, or a numpy integer
        except TypeError:
            raise TypeError(f"a hand's index is an int, not {type(i).__name__}") from None
        if not 0 <= i < self._size:
            raise IndexError(f"hand {i}: the batch holds hands 0 to {self._size - 1}")
        return i

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        where = "" if self.in_c else ", Python loop"
        return (
            f"HandBatch({' + '.join(self.rules.names)}, {self._size} hands,"
            f" {self.actions.size} actions, {self.engine_name}{where})"
        )


def _seed(seed: object) -> int:
    """A seed given in a sequence or an array: an int (a numpy integer is one)."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"a seed is an int, not {type(seed).__name__}: {seed!r}")
    return int(seed.__index__())

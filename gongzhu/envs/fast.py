"""The adapters' encoder of one hand (numpy): :class:`HandEncoder`.

:class:`HandEncoder` follows one :class:`~gongzhu.hand.HandState` and gives any
seat's observation (and, when asked, its information state) and action mask as
the hand is then.  On the C engines the vectors are written in C from the
engine's integers (:class:`gongzhu.batch.HandObserver`: the rendering a
:class:`~gongzhu.batch.HandBatch` uses, for one hand), about a microsecond, and
no :class:`~gongzhu.view.SeatView` is built; on the others they are the
reference encoders' (:func:`~gongzhu.envs.encoding.encode_observation`, from a
view).  Both give the same vectors (the tests compare them on every ruleset, at
every step, for every seat)::

    import gongzhu
    from gongzhu.envs.fast import HandEncoder

    rules = gongzhu.load_rules()
    hand = rules.new_hand(seed=1)
    encoder = HandEncoder(rules)
    encoder.reset(hand)
    while not hand.is_over:
        observation, mask = encoder.observe(hand.to_move)  # the seat to move's
        hand.apply(hand.legal_actions()[0])

:func:`batch_observations` gives the layout the C rendering reads, as data.
This module imports without numpy (so that documentation builds); building
an encoder then raises :class:`ImportError`.
"""

from __future__ import annotations

import copy
import functools
from typing import TYPE_CHECKING, Any, Final

from ..actions import Show, ShowKind
from ..batch import HandObserver, ObservationTable
from ..implied import VoidReader
from ..play import ENGINE_PHASES, PLAY_PHASE, Capability
from ..rules import Rules
from .encoding import (
    CARDS,
    SEATS,
    SUITS,
    Layout,
    batch_actions,
    encode_information_state,
    encode_observation,
    layout,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..hand import HandState
    from ..play import HandEngine, LegalKeysEngine
else:
    try:
        import numpy as np
    except ImportError:  # the module stays importable (docs, doctest collection)
        np = None

__all__ = ["HandEncoder", "batch_observations"]


@functools.cache
def _suit_indices() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per suit, each 13-bit mask of its cards as the card indices it holds."""
    return tuple(
        tuple(tuple(13 * suit + i for i in range(13) if v >> i & 1) for v in range(1 << 13))
        for suit in range(SUITS)
    )


@functools.cache
def _suit_bytes() -> tuple[bytes, ...]:
    """Each 13-bit mask of one suit's cards as 13 bytes of 0 and 1 (an action mask's part)."""
    return tuple(bytes(v >> i & 1 for i in range(13)) for v in range(1 << 13))


class _Tables:
    """What the encodings of one ruleset precompute: the layout's offsets the batch's
    rendering reads (:func:`batch_observations`), each show's entries, the action masks'
    tables."""

    def __init__(self, rules: Rules) -> None:
        codec = layout(rules)
        self.codec = codec
        size = self.size = codec.observation_size
        self.history = codec.information_state_size - size
        self.phase_of = [
            codec.phases.index(phase) if phase in codec.phases else -1 for phase in ENGINE_PHASES
        ]
        self.mask_tail = bytes(codec.action_size - CARDS)
        # two decks: play key -> action index
        self.key_action = np.full(CARDS + CARDS * CARDS, -1, dtype=np.intp)
        for k in range(CARDS):
            self.key_action[k] = k
        if codec.copies == 2:
            for a in range(CARDS):
                for b in range(a, CARDS):
                    self.key_action[CARDS + a * CARDS + b] = (
                        CARDS + a * CARDS - a * (a - 1) // 2 + (b - a)
                    )
        self.choices = rules.show_phase.choices
        self._shows: dict[tuple[int, int, bool], tuple[Any, Any] | None] = {}
        self._rel = [[(seat - viewer) % SEATS for viewer in range(SEATS)] for seat in range(SEATS)]
        self._rows = [viewer * size for viewer in range(SEATS)]

    def show(self, seat: int, choice_id: int, forced: bool) -> tuple[Any, Any] | None:
        """The (flat indices, values) a show adds to the rows (``None``: nothing)."""
        key = (seat, choice_id, forced)
        if key in self._shows:
            return self._shows[key]
        codec = self.codec
        show = self.choices[choice_id].show
        added: dict[int, float] = {}
        if show.cards:
            width = len(codec.showable)
            if forced:
                base = codec.segment("auto-shown").start
            elif show.kind is not ShowKind.SECRET:
                base = codec.segment(f"shown-{show.kind.value}").start
            else:
                base = codec.segment("shown-secret").start
            for v in range(SEATS):
                r = self._rel[seat][v]
                if show.kind is ShowKind.SECRET and not forced and v != seat:
                    at = self._rows[v] + codec.segment("sold-hidden").start + r
                    added[at] = added.get(at, 0.0) + len(show.cards)
                    continue
                for card in show.cards:
                    at = self._rows[v] + base + r * width + codec.showable.index(card)
                    added[at] = added.get(at, 0.0) + 1.0
        found = (
            (np.array(list(added), dtype=np.intp), np.array(list(added.values()), np.float32))
            if added
            else None
        )
        self._shows[key] = found
        return found


@functools.lru_cache(maxsize=64)
def _tables(rules: Rules) -> _Tables:
    return _Tables(rules)


class HandEncoder:
    """The four seats' observations of one hand, read when asked.

    :param rules: the ruleset of the hands it will follow.
    :param information_state: whether :meth:`information_state` may be asked
        (OpenSpiel's perfect-recall tensor).

    Call :meth:`reset` with a hand, then ask for observations at any time: the
    encoder reads the hand as it is then, whatever was played since (by any means:
    :meth:`HandState.apply <gongzhu.hand.HandState.apply>`, bots,
    :meth:`~gongzhu.hand.HandState.play_out`).  On the C engines the vectors are
    written in C from the engine's state (the rendering of
    :class:`gongzhu.batch.HandObserver`, a :class:`~gongzhu.batch.HandBatch`'s for
    one hand); on the others they are :func:`~gongzhu.envs.encoding.encode_observation`'s
    and :func:`~gongzhu.envs.encoding.encode_information_state`'s, which read a
    :class:`~gongzhu.view.SeatView`.  The tests hold the two equal at every step.
    """

    def __init__(self, rules: Rules, *, information_state: bool = False) -> None:
        if np is None:
            raise ImportError("gongzhu.envs.fast needs numpy: python -m pip install numpy")
        self.rules = rules
        self.codec: Layout = layout(rules)
        self._t = _tables(rules)
        self._history = information_state
        self.hand: HandState | None = None
        self._hand_engine: HandEngine | None = None
        self._keyed: LegalKeysEngine | None = None  # the engine, when it offers legal_keys
        self._mask_kind = 0
        self._observer: HandObserver | None = None  # made when first asked, on a C engine
        self._in_c = False

    # -- following a hand -------------------------------------------------------------

    def reset(self, hand: HandState) -> None:
        """Follow ``hand`` from now on."""
        if hand.rules is not self.rules and layout(hand.rules) is not self.codec:
            raise ValueError("the hand is played under another ruleset than the encoder's")
        self._follow(hand)

    def _follow(self, hand: HandState) -> None:
        """Read ``hand``'s engine from now on: its legal plays as a card mask (one deck), as
        keys when its spec declares :attr:`~gongzhu.play.Capability.LEGAL_KEYS` (two
        decks), else as the hand's legal actions; its vectors in C on a C engine."""
        self.hand = hand
        engine = self._hand_engine = hand.engine
        spec = hand.engine_spec
        self._keyed = None
        if self.codec.copies == 1:
            self._mask_kind = 1
        elif spec.offers(Capability.LEGAL_KEYS):
            self._mask_kind = 2
            self._keyed = spec.capable(engine, Capability.LEGAL_KEYS)
        else:
            self._mask_kind = 0
        self._observer = None
        self._in_c = HandObserver.renders(engine)

    def _followed_engine(self) -> HandEngine:
        engine = self._hand_engine
        if engine is None:
            raise RuntimeError("call reset(hand) first")
        return engine

    # -- reading -------------------------------------------------------------------------

    def _write(self, seat: int, out: npt.NDArray[np.float32], history: bool) -> None:
        """``seat``'s vector (the information state with ``history``) into ``out``."""
        engine = self._followed_engine()
        if self._in_c:
            observer = self._observer
            if observer is None:
                observer = self._observer = HandObserver(
                    engine, batch_actions(self.rules), batch_observations(self.rules)
                )
            observer.write(seat, out, history=history)
            return
        hand = self.hand
        assert hand is not None
        view = hand.view(seat)
        if not history:
            out[:] = encode_observation(self.rules, view)
            return
        out[:] = encode_information_state(
            self.rules,
            view,
            first_card=hand.deal.first_card(seat) if self.codec.first_shows else None,
            first_turns={
                who
                for who, action in hand.history
                if isinstance(action, Show) and action.kind is ShowKind.FIRST
            },
        )

    def observation(
        self, seat: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``seat``'s observation now (a new array, or written into ``out``)."""
        if out is None:
            out = np.empty(self._t.size, dtype=np.float32)
        self._write(seat, out, False)
        return out

    def observe(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``seat``'s observation and action mask now (new arrays): :meth:`observation`
        and :meth:`action_mask` in one call (the adapters' step)."""
        return self.observation(seat), self.action_mask(seat)

    def information_state(
        self, seat: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``seat``'s information state now: its observation, then the history.

        :raises RuntimeError: the encoder was made without ``information_state=True``.
        """
        if not self._history:
            raise RuntimeError("this encoder keeps no history: HandEncoder(information_state=True)")
        if out is None:
            out = np.empty(self._t.size + self._t.history, dtype=np.float32)
        self._write(seat, out, True)
        return out

    def action_mask(self, seat: int, out: npt.NDArray[Any] | None = None) -> npt.NDArray[Any]:
        """``seat``'s legal actions as a 0/1 vector (``int8`` unless ``out`` says
        otherwise): all zeros unless it is to move."""
        engine = self._followed_engine()
        if engine.phase == PLAY_PHASE and self._mask_kind == 1 and engine.seat == seat:
            bits = engine.legal_mask()
            table = _suit_bytes()
            found = np.frombuffer(
                bytearray(
                    table[bits & 8191]
                    + table[bits >> 13 & 8191]
                    + table[bits >> 26 & 8191]
                    + table[bits >> 39]
                    + self._t.mask_tail
                ),
                np.int8,
            )
            if out is None:
                return found
            out[:] = found
            return out
        if out is None:
            out = np.zeros(self.codec.action_size, dtype=np.int8)
        else:
            out.fill(0)
        if engine.seat != seat:
            return out
        if engine.phase == PLAY_PHASE and self._mask_kind == 2:
            keyed = self._keyed
            assert keyed is not None
            keys = keyed.legal_keys()
            out[self._t.key_action[list(keys)]] = 1
        else:
            hand = self.hand
            assert hand is not None
            encode = self.codec.encode
            for action in hand.legal_actions():
                out[encode(action)] = 1
        return out

    def legal_indices(self) -> list[int]:
        """The action indices of the seat to move, ascending (empty once the hand is over)."""
        engine = self._followed_engine()
        if engine.phase == PLAY_PHASE and self._mask_kind == 1:
            bits = engine.legal_mask()
            spades, hearts, diamonds, clubs = _suit_indices()
            return [
                *spades[bits & 8191],
                *hearts[bits >> 13 & 8191],
                *diamonds[bits >> 26 & 8191],
                *clubs[bits >> 39],
            ]
        if engine.phase == PLAY_PHASE and self._mask_kind == 2:
            keyed = self._keyed
            assert keyed is not None
            action = self._t.key_action
            return sorted(int(action[key]) for key in keyed.legal_keys())
        hand = self.hand
        assert hand is not None
        encode = self.codec.encode
        return sorted(encode(action) for action in hand.legal_actions())

    # -- copies ----------------------------------------------------------------------------

    def __deepcopy__(self, memo: dict[int, Any]) -> HandEncoder:
        """An independent encoder following a deep copy of the hand (``copy.deepcopy``
        of a state holding both copies the hand once)."""
        new = _new_encoder(HandEncoder)
        new.__dict__.update(self.__dict__)
        new._observer = None
        if self.hand is not None:
            new._follow(copy.deepcopy(self.hand, memo))
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the encoder as its ruleset, its kind and its hand: unpickling follows the
        (unpickled) hand again."""
        return (_rebuild, (self.rules, self._history, self.hand))

    def follow(self, hand: HandState) -> HandEncoder:
        """A copy of this encoder following ``hand`` (a clone of its hand, say:
        :meth:`HandState.clone <gongzhu.hand.HandState.clone>`)."""
        new = _new_encoder(HandEncoder)
        new.__dict__.update(self.__dict__)
        new._follow(hand)
        return new


_new_encoder: Final = object.__new__


def _rebuild(rules: Rules, history: bool, hand: HandState | None) -> HandEncoder:
    encoder = HandEncoder(rules, information_state=history)
    if hand is not None:
        encoder.reset(hand)
    return encoder


def _reference(rules: Rules) -> Any:
    def encode(hand: HandState, seat: int, history: bool) -> npt.NDArray[np.float32]:
        encoder = HandEncoder(rules, information_state=history)
        encoder.reset(hand)
        return encoder.information_state(seat) if history else encoder.observation(seat)

    return encode


@functools.lru_cache(maxsize=64)
def batch_observations(rules: Rules) -> ObservationTable:
    """The layout of this module's observations and information states as a
    :class:`gongzhu.batch.ObservationTable`, for a :class:`~gongzhu.batch.HandBatch` that
    writes them (in C on the C engines: the twin of :class:`HandEncoder`, held equal to it
    by the tests at every step); made once per ruleset from the encoder's own tables.

    >>> import gongzhu
    >>> from gongzhu.batch import HandBatch
    >>> rules = gongzhu.load_rules()
    >>> batch = HandBatch(rules, 4, observations=batch_observations(rules))
    >>> batch.observe().shape == (4, layout(rules).observation_size)
    True
    """
    t = _tables(rules)
    codec = t.codec
    size = t.size
    kinds, preferred, strict, first = VoidReader(rules).reading

    def at(name: str, history: bool = False) -> int:
        if not codec.has(name):
            return -1
        start = codec.segment(name).start
        return start - size if history else start

    ints = [
        size,
        t.history,
        at("holding"),
        at("played-by"),
        at("trick"),
        at("taken"),
        at("voids"),
        at("holding-sizes"),
        at("phase"),
        at("leader"),
        at("to-move"),
        *t.phase_of,
        at("first-card", True),
        at("first-turns", True),
        at("played-in", True),
        at("played-seat", True),
        at("trick-leaders", True),
        codec.tricks,
        *preferred,
        int(strict),
        int(first),
    ]
    starts: list[int] = []
    where: list[int] = []
    values: list[float] = []
    for choice in t.choices:
        for forced in (False, True):
            # the show of seat 0, as each viewer v sees it: relative seat (0 - v) % 4
            found = t.show(0, choice.id, forced) if codec.auto_show or not forced else None
            by_rel: list[list[tuple[int, float]]] = [[] for _ in range(SEATS)]
            if found is not None:
                for flat, value in zip(found[0].tolist(), found[1].tolist(), strict=True):
                    viewer, offset = divmod(flat, size)
                    by_rel[-viewer % SEATS].append((offset, value))
            for rel in range(SEATS):
                starts.append(len(where))
                for offset, value in by_rel[rel]:
                    where.append(offset)
                    values.append(value)
    starts.append(len(where))
    binds = tuple(
        0 if choice.show.kind not in kinds else 2 if choice.show.kind is ShowKind.SECRET else 1
        for choice in t.choices
    )
    firsts = tuple(int(choice.show.kind is ShowKind.FIRST) for choice in t.choices)
    return ObservationTable(
        tuple(ints), tuple(starts), tuple(where), tuple(values), binds, firsts, _reference(rules)
    )

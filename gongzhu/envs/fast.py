"""Observations kept up to date as a hand is played: the adapters' fast encoder (numpy).

:class:`HandEncoder` follows one :class:`~gongzhu.hand.HandState` and keeps
the four seats' observations (and, when asked, their information states) in
one ``float32`` array, changing only the entries a show, a play or the end
of a trick changes: it reads the hand's engine (its show log, trick log and
trick under way, all integers) and never builds a
:class:`~gongzhu.view.SeatView`.  An observation is then a copy of one row,
a few microseconds, where :func:`~gongzhu.envs.encoding.encode_observation`
rebuilds the vector from a view.  Both give the same vectors (the tests
compare them on every ruleset, at every step, for every seat)::

    import gongzhu
    from gongzhu.envs.fast import HandEncoder

    rules = gongzhu.load_rules()
    hand = rules.new_hand(seed=1)
    encoder = HandEncoder(rules)
    encoder.reset(hand)
    while not hand.is_over:
        observation, mask = encoder.observe(hand.to_move)  # the seat to move's
        hand.apply(hand.legal_actions()[0])

This module imports without numpy (so that documentation builds); building
an encoder then raises :class:`ImportError`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ..actions import PLAY_KEYS, ShowKind, cards_of_key
from ..batch import ObservationTable
from ..implied import VoidReader
from ..masks import mask_of
from ..play import ENGINE_PHASES, FIRST_SHOW_PHASE, PLAY_PHASE, Capability
from ..rules import Rules
from .encoding import CARDS, SEATS, SUITS, Layout, layout

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

_ALL: Final = (1 << CARDS) - 1


def _counts(mask: int) -> npt.NDArray[np.int8]:
    """The 52 bits of a one-copy card mask as 0/1 ``int8`` entries, by card index."""
    table = _suit_bytes()
    return np.frombuffer(
        table[mask & 8191]
        + table[mask >> 13 & 8191]
        + table[mask >> 26 & 8191]
        + table[mask >> 39],
        np.int8,
    )


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
    """What the encoder of one ruleset precomputes: flat indices into the (4, size) rows."""

    def __init__(self, rules: Rules) -> None:
        codec = layout(rules)
        self.codec = codec
        size = self.size = codec.observation_size
        self.history = codec.information_state_size - size
        seg = codec.segment
        self.holding = seg("holding").start
        played_by = seg("played-by").start
        self.trick = seg("trick")
        self.taken_start = seg("taken").start
        self.voids = seg("voids").start
        self.sizes = seg("holding-sizes").start
        self.phase = seg("phase")
        self.leader = seg("leader")
        self.to_move = seg("to-move").start
        self.phase_of = [
            codec.phases.index(phase) if phase in codec.phases else -1 for phase in ENGINE_PHASES
        ]
        rel = [[(seat - viewer) % SEATS for viewer in range(SEATS)] for seat in range(SEATS)]
        rows = [viewer * size for viewer in range(SEATS)]
        trick = self.trick.start
        # a card played by a seat: played-by and trick rows of every viewer (+1), every
        # viewer's size of the player's holding (-1), the player's own holding (-1)
        self.play_idx = np.array(
            [
                [
                    [rows[v] + played_by + rel[s][v] * CARDS + c for v in range(SEATS)]
                    + [rows[v] + trick + rel[s][v] * CARDS + c for v in range(SEATS)]
                    + [rows[v] + self.sizes + rel[s][v] for v in range(SEATS)]
                    + [rows[s] + self.holding + c]
                    for c in range(CARDS)
                ]
                for s in range(SEATS)
            ],
            dtype=np.intp,
        )
        self.mask_tail = bytes(codec.action_size - CARDS)
        self.play_val = np.array([1.0] * 8 + [-1.0] * 5, dtype=np.float32)
        self.taken_idx = np.array(
            [
                [
                    [rows[v] + self.taken_start + rel[s][v] * CARDS + c for v in range(SEATS)]
                    for c in range(CARDS)
                ]
                for s in range(SEATS)
            ],
            dtype=np.intp,
        )
        self.leader_idx = np.array(
            [[rows[v] + self.leader.start + rel[s][v] for v in range(SEATS)] for s in range(SEATS)],
            dtype=np.intp,
        )
        self.void_idx = np.array(
            [
                [
                    [rows[v] + self.voids + rel[s][v] * SUITS + u for v in range(SEATS)]
                    for u in range(SUITS)
                ]
                for s in range(SEATS)
            ],
            dtype=np.intp,
        )
        self.size_idx = np.array(
            [[rows[v] + self.sizes + rel[s][v] for v in range(SEATS)] for s in range(SEATS)],
            dtype=np.intp,
        )
        self.key_cards = tuple(map(cards_of_key, range(PLAY_KEYS)))
        # per play key: the suit of its first card; the suits of its cards (bits), as the
        # voids are read (gongzhu.implied.VoidReader)
        self.suit_of_key = [cards[0] // 13 for cards in self.key_cards]
        self.suits_of_key = VoidReader(rules).suits_of_key
        self.play_rows = [list(self.play_idx[seat]) for seat in range(SEATS)]
        self.taken_rows = [list(self.taken_idx[seat]) for seat in range(SEATS)]
        self.trick_slice = slice(self.trick.start, self.trick.stop)
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
        # the history's rows (offsets count from the observation's end)
        hist = self.history
        hrows = [viewer * hist for viewer in range(SEATS)]
        tricks = codec.tricks
        played_in = seg("played-in").start - size
        self.played_in_idx = np.array(
            [
                [
                    [hrows[v] + played_in + (k * CARDS + c) * tricks for v in range(SEATS)]
                    for c in range(CARDS)
                ]
                for k in range(codec.copies)
            ],
            dtype=np.intp,
        )
        self.played_seat_idx: npt.NDArray[np.intp] | None = None
        if codec.copies == 2:
            seats = seg("played-seat").start - size
            self.played_seat_idx = np.array(
                [
                    [
                        [
                            [
                                hrows[v] + seats + (k * CARDS + c) * SEATS + rel[s][v]
                                for v in range(SEATS)
                            ]
                            for s in range(SEATS)
                        ]
                        for c in range(CARDS)
                    ]
                    for k in range(2)
                ],
                dtype=np.intp,
            )
        leaders = seg("trick-leaders").start - size
        self.trick_leader_idx = np.array(
            [
                [
                    [hrows[v] + leaders + t * SEATS + rel[s][v] for v in range(SEATS)]
                    for s in range(SEATS)
                ]
                for t in range(tricks)
            ],
            dtype=np.intp,
        )
        self.first_card: int | None = None
        self.first_turn_idx: npt.NDArray[np.intp] | None = None
        if codec.first_shows:
            self.first_card = seg("first-card").start - size
            turns = seg("first-turns").start - size
            self.first_turn_idx = np.array(
                [[hrows[v] + turns + rel[s][v] for v in range(SEATS)] for s in range(SEATS)],
                dtype=np.intp,
            )
        self.choices = rules.show_phase.choices
        self._shows: dict[tuple[int, int, bool], tuple[Any, Any] | None] = {}
        self._rel = rel
        self._rows = rows

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
    """The four seats' observations of one hand, kept up to date as it is played.

    :param rules: the ruleset of the hands it will follow.
    :param information_state: keep the history too, for :meth:`information_state`
        (OpenSpiel's perfect-recall tensor); without it the encoder skips that work.

    Call :meth:`reset` with a hand, then ask for observations at any time: the
    encoder catches up with whatever was played since (by any means:
    :meth:`HandState.apply <gongzhu.hand.HandState.apply>`, bots,
    :meth:`~gongzhu.hand.HandState.play_out`).  The vectors are those of
    :func:`~gongzhu.envs.encoding.encode_observation` and
    :func:`~gongzhu.envs.encoding.encode_information_state`, which read a
    :class:`~gongzhu.view.SeatView` instead.
    """

    def __init__(self, rules: Rules, *, information_state: bool = False) -> None:
        if np is None:
            raise ImportError("gongzhu.envs.fast needs numpy: python -m pip install numpy")
        self.rules = rules
        self.codec: Layout = layout(rules)
        self._t = _tables(rules)
        self._history = information_state
        self._simple = self.codec.copies == 1 and not information_state
        self._rows = np.zeros((SEATS, self._t.size), dtype=np.float32)
        self._flat = self._rows.reshape(-1)
        self._row_list = list(self._rows)
        self._hrows = np.zeros((SEATS, self._t.history if information_state else 0), np.float32)
        self._hflat = self._hrows.reshape(-1)
        self.hand: HandState | None = None
        self._hand_engine: HandEngine | None = None
        self._keyed: LegalKeysEngine | None = None  # the engine, when it offers legal_keys
        self._reset_counters()

    def _reset_counters(self) -> None:
        self._phase = -1
        self._loaded = False
        self._shows_done = 0
        self._tricks_done = 0
        self._in_trick = 0
        self._leader = -1
        self._voids = VoidReader(self.rules)  # what the play reveals of the voids
        self._copies_played = [0] * CARDS
        self._mask_kind = 0

    # -- following a hand -------------------------------------------------------------

    def reset(self, hand: HandState) -> None:
        """Follow ``hand`` from now on (its past is read at once)."""
        if hand.rules is not self.rules and layout(hand.rules) is not self.codec:
            raise ValueError("the hand is played under another ruleset than the encoder's")
        self._rows.fill(0)
        self._hrows.fill(0)
        self._reset_counters()
        self._follow(hand)
        t = self._t
        if t.first_card is not None and self._history:
            deal = hand.deal
            for seat in range(SEATS):
                self._hrows[seat, t.first_card + deal.first_card(seat).index] = 1
        self._sync()

    def _follow(self, hand: HandState) -> None:
        """Read ``hand``'s engine from now on: its legal plays as a card mask (one deck), as
        keys when its spec declares :attr:`~gongzhu.play.Capability.LEGAL_KEYS` (two
        decks), else as the hand's legal actions."""
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

    def _sync(self) -> None:
        engine = self._hand_engine
        if engine is None:
            raise RuntimeError("call reset(hand) first")
        phase = engine.phase
        if phase != self._phase or phase < PLAY_PHASE:
            if phase != self._phase:
                self._enter(phase)
            if phase < PLAY_PHASE or self._shows_done < 0:
                self._read_shows(engine)
            self._sync_leader(engine)
            if phase < PLAY_PHASE:
                return
        count = engine.trick_count
        keys = engine.trick
        if count != self._tricks_done:
            log = engine.trick_log
            for number in range(self._tricks_done, count):
                leader, done, winner, taker = log[number]
                for i in range(self._in_trick, len(done)):
                    self._play(number, i, (leader + i) & 3, done[i], done[0])
                self._finish(done, winner, taker)
                self._in_trick = 0
            self._tricks_done = count
            self._sync_leader(engine)
        if len(keys) > self._in_trick:
            leader = engine.trick_leader
            if self._simple and not self._voids.bound:  # the common case, inlined
                t = self._t
                flat = self._flat
                rows = t.play_rows
                value = t.play_val
                suits = t.suits_of_key
                lead = keys[0]
                on_led = 1 << t.suit_of_key[lead]
                for i in range(self._in_trick, len(keys)):
                    seat = (leader + i) & 3
                    key = keys[i]
                    flat[rows[seat][key]] += value  # one deck: a key is a card
                    if i and suits[key] & ~on_led:  # (as in _play: nothing is bound)
                        self._void(seat, *self._voids.play(seat, i, key, lead))
            else:
                for i in range(self._in_trick, len(keys)):
                    self._play(count, i, (leader + i) & 3, keys[i], keys[0])
            self._in_trick = len(keys)

    def _sync_leader(self, engine: HandEngine) -> None:
        leader = engine.trick_leader
        if leader != self._leader:
            t = self._t
            self._rows[:, t.leader.start : t.leader.stop] = 0
            self._flat[t.leader_idx[leader]] = 1
            self._leader = leader

    def _enter(self, phase: int) -> None:
        t = self._t
        rows = self._rows
        hand = self.hand
        assert hand is not None
        if self._phase < 0 and phase == FIRST_SHOW_PHASE:  # 首明: a seat sees its first card
            deal = hand.deal
            for seat in range(SEATS):
                rows[seat, t.holding + deal.first_card(seat).index] = 1
                rows[seat, t.sizes : t.sizes + SEATS] = 1
        elif phase > FIRST_SHOW_PHASE and not self._loaded:
            engine = self._hand_engine
            assert engine is not None
            if engine.trick_count or engine.trick:  # cards played: what each seat was dealt
                masks = [mask_of(hand.dealt(seat)) for seat in range(SEATS)]
            else:
                masks = list(engine.holdings)
            for seat, mask in enumerate(masks):
                held = rows[seat, t.holding : t.holding + CARDS]
                held[:] = _counts(mask & _ALL)
                if mask >> CARDS:
                    held += _counts(mask >> CARDS)
            rows[:, t.sizes : t.sizes + SEATS] = CARDS * self.codec.copies // SEATS
            self._loaded = True
        rows[:, t.phase.start : t.phase.stop] = 0
        rows[:, t.phase.start + t.phase_of[phase]] = 1
        if self._phase < PLAY_PHASE <= phase:
            self._shows_done = -1 - self._shows_done  # read the show log once more
        self._phase = phase

    def _read_shows(self, engine: HandEngine) -> None:
        done = self._shows_done
        final = done < 0
        if final:
            done = -1 - done
        log = engine.show_log
        t = self._t
        for seat, choice_id, forced in log[done:]:
            found = t.show(seat, choice_id, forced)
            if found is not None:
                self._flat[found[0]] += found[1]
            show = t.choices[choice_id].show
            if show.kind is ShowKind.FIRST and self._history and t.first_turn_idx is not None:
                self._hflat[t.first_turn_idx[seat]] = 1
            if show.cards:
                self._voids.show(seat, show.kind, show.cards, forced=forced)
        self._shows_done = len(log)

    def _void(self, seat: int, public: int, private: int = 0) -> None:
        """``seat`` is newly known to hold none of the suits ``public`` (by every seat) and
        ``private`` (by itself alone): :meth:`VoidReader.play
        <gongzhu.implied.VoidReader.play>`'s answer, written into the rows."""
        if public | private:
            void_idx = self._t.void_idx
            for suit in range(SUITS):
                if public >> suit & 1:
                    self._flat[void_idx[seat, suit]] = 1
                elif private >> suit & 1:
                    self._flat[void_idx[seat, suit, seat]] = 1  # only the seat knows it

    def _play(self, number: int, position: int, seat: int, key: int, lead_key: int) -> None:
        t = self._t
        flat = self._flat
        cards = t.key_cards[key]
        rows = t.play_rows[seat]
        value = t.play_val
        for card in cards:
            flat[rows[card]] += value
        if self._history:
            hflat = self._hflat
            if position == 0:
                hflat[t.trick_leader_idx[number, seat]] = 1
            for card in cards:
                slot = self._copies_played[card]
                self._copies_played[card] = slot + 1
                hflat[t.played_in_idx[slot, card] + number] = 1
                if t.played_seat_idx is not None:
                    hflat[t.played_seat_idx[slot, card, seat]] = 1
        voids = self._voids
        led = 1 << t.suit_of_key[lead_key]
        # (the reader learns nothing from a play wholly in the led suit by a seat with no
        # card bound in a suit not led before: VoidReader)
        if (position and t.suits_of_key[key] & ~led) or (
            (voids.locked[seat] or voids.private_locked[seat]) and not voids.led & led
        ):
            self._void(seat, *voids.play(seat, position, key, lead_key))

    def _finish(self, keys: Sequence[int], winner: int, taker: int) -> None:
        t = self._t
        flat = self._flat
        self._rows[:, t.trick_slice] = 0
        taken = t.taken_rows[taker]  # every card to the taker, as the engine files it
        where = np.concatenate([taken[card] for key in keys for card in t.key_cards[key]])
        if self.codec.copies == 1:
            flat[where] += 1  # one deck: every card once, no index twice
        else:
            np.add.at(flat, where, 1)
        for seat, suits in self._voids.finish(keys[0], winner, taker):
            self._void(seat, suits)

    # -- reading -------------------------------------------------------------------------

    def observation(
        self, seat: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``seat``'s observation now (a new array, or written into ``out``)."""
        self._sync()
        row = self._row_list[seat]
        if out is None:
            out = row.copy()
        else:
            out[:] = row
        mover = self._hand_engine.seat  # type: ignore[union-attr]
        if mover >= 0:
            out[self._t.to_move + ((mover - seat) & 3)] = 1
        return out

    def observe(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``seat``'s observation and action mask now (new arrays): :meth:`observation`
        and :meth:`action_mask` in one call (the adapters' step)."""
        self._sync()
        engine = self._hand_engine
        assert engine is not None
        out = self._row_list[seat].copy()
        mover = engine.seat
        if mover >= 0:
            out[self._t.to_move + ((mover - seat) & 3)] = 1
        if mover == seat and self._mask_kind == 1 and engine.phase == PLAY_PHASE:
            bits = engine.legal_mask()
            table = _suit_bytes()
            mask = np.frombuffer(
                bytearray(
                    table[bits & 8191]
                    + table[bits >> 13 & 8191]
                    + table[bits >> 26 & 8191]
                    + table[bits >> 39]
                    + self._t.mask_tail
                ),
                np.int8,
            )
            return out, mask
        return out, self.action_mask(seat)

    def information_state(
        self, seat: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``seat``'s information state now: its observation, then the history.

        :raises RuntimeError: the encoder was made without ``information_state=True``.
        """
        if not self._history:
            raise RuntimeError("this encoder keeps no history: HandEncoder(information_state=True)")
        size = self._t.size
        if out is None:
            out = np.empty(size + self._t.history, dtype=np.float32)
        self.observation(seat, out[:size])
        out[size:] = self._hrows[seat]
        return out

    def action_mask(self, seat: int, out: npt.NDArray[Any] | None = None) -> npt.NDArray[Any]:
        """``seat``'s legal actions as a 0/1 vector (``int8`` unless ``out`` says
        otherwise): all zeros unless it is to move."""
        engine = self._hand_engine
        assert engine is not None
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
        engine = self._hand_engine
        assert engine is not None
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
        new._rows = self._rows.copy()
        new._flat = new._rows.reshape(-1)
        new._row_list = list(new._rows)
        new._hrows = self._hrows.copy()
        new._hflat = new._hrows.reshape(-1)
        new._voids = self._voids.copy()
        new._copies_played = self._copies_played[:]
        if self.hand is not None:
            new._follow(copy.deepcopy(self.hand, memo))
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the encoder as its ruleset, its kind and its hand: unpickling follows the
        (unpickled) hand again, reading its past."""
        return (_rebuild, (self.rules, self._history, self.hand))

    def follow(self, hand: HandState) -> HandEncoder:
        """A copy of this encoder following ``hand``, a clone of its hand at this point
        (:meth:`HandState.clone <gongzhu.hand.HandState.clone>`), without replaying it."""
        self._sync()
        mine = self.hand
        self.hand = None
        try:
            new = copy.deepcopy(self)
        finally:
            self.hand = mine
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

"""The C two-deck engine (gongzhu._pairs.PairsCore) against its Python reference.

Both engines must play identical hands from identical inputs and identical
random draws: the same legal keys in the same order at every step, the same
tricks, the same shown copies taken.  Whatever crosses into C (masks, shows,
keys, the random stream) must give a clean exception or a valid result,
never a crash or a corrupted engine.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import math
import random
import sys
import weakref
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu import Card, Deal
from gongzhu.actions import ShowKind, play_of_key
from gongzhu.engine import add_copy
from gongzhu.engine_pairs import PairsCore as PythonPairs
from gongzhu.play import PlayConfig
from gongzhu.plugin import ShownCardLock
from gongzhu.scoring import ShowRecord

CPairs = pytest.importorskip("gongzhu._pairs").PairsCore
pytestmark = pytest.mark.one_engine  # the HandState engine fixture plays no part here

FULL_TWO = (1 << 104) - 1
LOW = (1 << 52) - 1
TWO_CLUBS = 1 << Card.parse("2C").index
SHOWABLE = frozenset(Card.parse(text).index for text in ("QS", "JD", "TC", "AH"))
KINDS = (ShowKind.OPEN, ShowKind.OPEN, ShowKind.FIRST, ShowKind.SECRET)
LOCKS = [None] + [
    ShownCardLock(first_trick=True, discard_before_led=discard, stuck=stuck)
    for discard in (False, True)
    for stuck in ("play", "hand")
]
LOCK_IDS = ["no-lock", "play", "hand", "discard-play", "discard-hand"]
CLEAN = (ValueError, TypeError)


# -- building twin engines --------------------------------------------------------------


def masks_of(deal: Deal) -> list[int]:
    hands = []
    for seat in range(4):
        mask = 0
        for card in deal.holding(seat):
            mask = add_copy(mask, card.index)
        hands.append(mask)
    return hands


def twins(
    hands: list[int], pair_beats_unmatched: bool, lock: ShownCardLock | None
) -> tuple[PythonPairs, Any]:
    config = PlayConfig(
        deck_copies=2, pairs=True, pair_beats_unmatched=pair_beats_unmatched, shown_card_lock=lock
    )
    python = PythonPairs(config, hands, [], [])
    c = CPairs(
        hands,
        lock is not None and lock.first_trick,
        lock is not None and lock.discard_before_led,
        lock is not None and lock.stuck == "hand",
        pair_beats_unmatched,
        [],
        [],
        config,
    )
    return python, c


def start_both(
    python: PythonPairs,
    c: Any,
    leader: int,
    forced: int,
    locked: list[int],
    shows: list[tuple[int, int, Any]],
) -> None:
    records = [ShowRecord(seat, Card.from_index(index), kind) for seat, index, kind in shows]
    python.start(leader, forced, locked, records)
    c.start(leader, forced, locked, shows)


def random_shows(
    hands: list[int], rng: random.Random, any_card: bool
) -> tuple[list[tuple[int, int, object]], list[int]]:
    """Shows of copies the seats hold (showable cards, or any with ``any_card``), shuffled,
    and the locked masks: the shown copies of the kinds the lock applies to."""
    shows: list[tuple[int, int, object]] = []
    locked = [0, 0, 0, 0]
    for seat, hand in enumerate(hands):
        for index in range(52):
            for _copy in range((hand >> index & 1) + (hand >> (52 + index) & 1)):
                if (any_card or index in SHOWABLE) and rng.random() < (0.25 if any_card else 0.7):
                    kind = rng.choice(KINDS)
                    shows.append((seat, index, kind))
                    if kind is ShowKind.OPEN:
                        locked[seat] = add_copy(locked[seat], index)
    rng.shuffle(shows)
    return shows, locked


def state(core: Any) -> tuple[object, ...]:
    return (
        tuple(core.hands),
        tuple(core.taken),
        tuple(core.locked),
        tuple(core.lifted),
        list(core.trick),
        core.trick_leader,
        core.seat,
        core.forced,
        core.unled,
        core.played,
        bool(core.first_of_suit),
    )


def python_shown_taken(python: PythonPairs) -> list[list[tuple[int, object]]]:
    return [[(r.card.index, r.kind) for r in seat] for seat in python.shown_taken()]


def assert_same(python: PythonPairs, c: Any) -> None:
    assert state(c) == state(python)
    assert c.history == python.history
    assert c.tricks == python.tricks
    assert c.shown_taken_raw() == python_shown_taken(python)


def assert_same_legal(python: PythonPairs, c: Any) -> list[int]:
    keys = python.legal_keys()
    assert c.legal_keys() == keys
    assert c.legal() == python.legal()
    assert all(a is b for a, b in zip(c.legal(), python.legal(), strict=True))
    assert c.legal_mask() == python.legal_mask()
    assert c.lifted == tuple(python.lifted)
    return keys


def step_to_end(python: PythonPairs, c: Any, draw: Any) -> int:
    """Play both to the end from one random stream; the number of steps the lock narrowed."""
    narrowed = 0
    while python.seat != -1:
        candidates = python._candidates(python.hands[python.seat], -1)
        keys = assert_same_legal(python, c)
        narrowed += len(keys) < len(candidates)
        key = keys[int(draw() * len(keys))]
        assert c.play(key) == python.play(key)
        assert state(c) == state(python)
    assert c.seat == -1
    return narrowed


class Counting:
    """A random stream that counts its draws."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed).random
        self.draws = 0

    def __call__(self) -> float:
        self.draws += 1
        return self._random()


# -- differential: dealt hands ----------------------------------------------------------


def dealt_twins(
    seed: int, pair_beats_unmatched: bool, lock: ShownCardLock | None, any_card: bool
) -> tuple[PythonPairs, Any, tuple[Any, ...]]:
    rng = random.Random(seed * 7 + 1)
    hands = masks_of(Deal.shuffled(seed, copies=2))
    python, c = twins(hands, pair_beats_unmatched, lock)
    shows, locked = random_shows(hands, rng, any_card)
    forced = rng.choice([0, TWO_CLUBS])
    holder = next(s for s in range(4) if hands[s] & TWO_CLUBS)
    leader = holder if forced and rng.random() < 0.8 else rng.randrange(4)
    start = (leader, forced, locked, shows)
    start_both(python, c, *start)
    return python, c, start


@pytest.mark.parametrize("any_card", [False, True], ids=["showable", "any-card"])
@pytest.mark.parametrize("lock", LOCKS, ids=LOCK_IDS)
@pytest.mark.parametrize("pair_beats_unmatched", [False, True], ids=["unmatched", "pair"])
def test_step_by_step_matches_python(
    pair_beats_unmatched: bool, lock: ShownCardLock | None, any_card: bool
) -> None:
    narrowed = lifted = 0
    for seed in range(40):
        python, c, _start = dealt_twins(seed, pair_beats_unmatched, lock, any_card)
        assert_same(python, c)
        narrowed += step_to_end(python, c, random.Random(seed).random)
        assert_same(python, c)
        assert sum(len(play.cards) for _seat, play in c.history) == 104
        lifted += any(c.lifted)
    if lock is not None:
        assert narrowed > 0  # the lock was exercised
    if lock is not None and lock.stuck == "hand" and any_card:
        assert lifted > 0


@pytest.mark.parametrize("lock", LOCKS, ids=LOCK_IDS)
@pytest.mark.parametrize("pair_beats_unmatched", [False, True], ids=["unmatched", "pair"])
def test_random_playout_matches_python(
    pair_beats_unmatched: bool, lock: ShownCardLock | None
) -> None:
    for seed in range(40, 80):
        python, c, start = dealt_twins(seed, pair_beats_unmatched, lock, seed % 2 == 0)
        draws_python, draws_c = Counting(seed), Counting(seed)
        python.random_playout(draws_python)
        c.random_playout(draws_c)
        assert draws_c.draws == draws_python.draws == len(python.history)
        assert_same(python, c)
        c.random_playout(draws_c)  # over: nothing to do, no draw
        assert draws_c.draws == draws_python.draws
        # the same hand stepped with the same stream gives the same history
        hands = masks_of(Deal.shuffled(seed, copies=2))
        again_python, again_c = twins(hands, pair_beats_unmatched, lock)
        start_both(again_python, again_c, *start)
        step_to_end(again_python, again_c, random.Random(seed).random)
        assert again_c.history == c.history and again_c.tricks == c.tricks


def test_random_playout_from_the_middle_of_a_hand() -> None:
    for seed in range(20):
        python, c, _start = dealt_twins(seed, seed % 2 == 1, LOCKS[1 + seed % 4], True)
        draw = random.Random(seed).random
        for _ in range(seed * 3 + 1):  # stop in the middle of a trick, too
            keys = assert_same_legal(python, c)
            key = keys[int(draw() * len(keys))]
            assert c.play(key) == python.play(key)
        python.random_playout(random.Random(seed + 1).random)
        c.random_playout(random.Random(seed + 1).random)
        assert_same(python, c)


def test_history_holds_the_interned_plays() -> None:
    python, c, _start = dealt_twins(3, False, LOCKS[1], False)
    c.random_playout(random.Random(3).random)
    python.random_playout(random.Random(3).random)
    assert all(a[1] is b[1] for a, b in zip(c.history, python.history, strict=True))
    for seat, play in c.history:
        assert seat in range(4)
        assert play is play_of_key(play.key)
    for leader, keys, winner, taker in c.tricks:
        assert leader in range(4) and winner == taker and len(keys) == 4
        assert all(isinstance(k, int) for k in keys)


# -- differential: arbitrary hands (unequal, crowded, empty seats) ----------------------


def hands_from_owners(owners: list[tuple[int, int]]) -> list[int]:
    """Each card's two copies go to the given seats (4: nobody)."""
    hands = [0, 0, 0, 0]
    for index, pair in enumerate(owners):
        for seat in pair:
            if seat < 4:
                hands[seat] = add_copy(hands[seat], index)
    return hands


owners = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=52, max_size=52).map(
    hands_from_owners
)
crowded = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=52, max_size=52).map(
    hands_from_owners
)


@settings(max_examples=300, deadline=None)
@given(
    hands=st.one_of(owners, crowded),
    pair_beats_unmatched=st.booleans(),
    lock=st.sampled_from(LOCKS),
    leader=st.integers(0, 3),
    forced=st.one_of(st.just(0), st.integers(0, 51).map(lambda i: 1 << i)),
    seed=st.integers(0, 2**32),
    extra_shows=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 51), st.sampled_from(KINDS)), max_size=6
    ),
    wild_locked=st.booleans(),
)
def test_fuzz_matches_python_on_any_hands(
    hands, pair_beats_unmatched, lock, leader, forced, seed, extra_shows, wild_locked
) -> None:
    rng = random.Random(seed)
    python, c = twins(hands, pair_beats_unmatched, lock)
    shows, locked = random_shows(hands, rng, True)
    shows += extra_shows  # shows of cards not held, or of more copies than held
    if wild_locked:  # any masks: copies not held, a second copy without its first
        locked = [rng.getrandbits(104) & rng.getrandbits(104) for _ in range(4)]
    start_both(python, c, leader, forced, locked, shows)
    assert_same(python, c)
    while python.seat != -1:
        keys = assert_same_legal(python, c)
        for bad in (rng.randrange(2756), rng.randrange(-5, 60)):
            if bad not in keys:
                assert c.play(bad) == python.play(bad) == -2
        if not keys:  # the seat to move holds no card: both refuse to index an empty list
            with pytest.raises(IndexError):
                python.random_playout(random.Random(seed).random)
            with pytest.raises(IndexError):
                c.random_playout(random.Random(seed).random)
            break
        key = keys[int(rng.random() * len(keys))]
        assert c.play(key) == python.play(key)
        assert_same(python, c)


def test_the_largest_legal_sets() -> None:
    # a seat void in spades holding both copies of every other card follows a pair of spades
    spade = Card.parse("2S").index
    rest = sum(1 << i for i in range(52) if i // 13 != 0)
    hands = [(1 << spade) | (1 << (52 + spade)), rest | rest << 52, 0, 0]
    python, c = twins(hands, False, LOCKS[3])
    start_both(python, c, 0, 0, [0, rest & ~(rest - 1), 0, 0], [(1, 13, ShowKind.OPEN)])
    assert len(assert_same_legal(python, c)) == 2  # the single or the pair
    pair = 52 + 53 * spade
    assert c.play(pair) == python.play(pair) == 1
    # any two of 39 cards, or a pair: all but the pair of the locked shown heart
    assert len(assert_same_legal(python, c)) == 39 * 38 // 2 + 39 - 1
    assert 52 + 53 * 13 not in c.legal_keys()
    # one seat holding everything: every single card and every pair may lead
    python, c = twins([FULL_TWO, 0, 0, 0], True, None)
    start_both(python, c, 0, 0, [0, 0, 0, 0], [])
    assert assert_same_legal(python, c) == list(range(52)) + [52 + 53 * i for i in range(52)]


# -- copies -------------------------------------------------------------------------------


def test_copies_are_independent() -> None:
    for seed in range(12):
        python, c, _start = dealt_twins(seed, seed % 2 == 0, LOCKS[seed % 5], True)
        draw = random.Random(seed).random
        for _ in range(20 + seed):
            keys = assert_same_legal(python, c)
            key = keys[int(draw() * len(keys))]
            assert c.play(key) == python.play(key)
        before = (state(c), list(c.history), list(c.tricks), c.shown_taken_raw())
        history: list[object] = []
        tricks: list[object] = []
        copy = c.copy(history, tricks)
        python_copy = python.copy([], [])
        assert type(copy) is CPairs
        assert copy.history is history and copy.tricks is tricks
        assert copy.config is c.config
        assert state(copy) == state(c)
        assert copy.shown_taken_raw() == c.shown_taken_raw()
        # the copy plays on from its own stream; the original does not move
        step_to_end(python_copy, copy, random.Random(seed + 100).random)
        assert copy.history == python_copy.history and copy.tricks == python_copy.tricks
        assert copy.shown_taken_raw() == python_shown_taken(python_copy)
        assert (state(c), c.history, c.tricks, c.shown_taken_raw()) == before
        assert not history or history[0] is copy.history[0]
        # the original plays on differently, and the copy does not move
        after = (state(copy), list(copy.history), list(copy.tricks), copy.shown_taken_raw())
        step_to_end(python, c, random.Random(seed + 200).random)
        assert (state(copy), copy.history, copy.tricks, copy.shown_taken_raw()) == after
        assert_same(python, c)


def test_copy_keeps_the_cached_legal_keys_and_the_lift() -> None:
    # seat 1 holds only shown spades, both locked: the lock leaves nothing, it lifts
    queen, king = Card.parse("QS").index, Card.parse("KS").index
    hands = [
        (1 << 0) | (1 << 14),
        (1 << queen) | (1 << king),
        (1 << 1) | (1 << 15),
        (1 << 2) | (1 << 16),
    ]
    python, c = twins(hands, False, LOCKS[2])
    shows = [(1, queen, ShowKind.OPEN), (1, king, ShowKind.OPEN)]
    start_both(python, c, 0, 0, [0, hands[1], 0, 0], shows)
    assert c.play(0) == python.play(0) == 1
    assert assert_same_legal(python, c) == [queen, king]
    assert c.lifted == (False, True, False, False)
    copy = c.copy([], [])
    assert copy.lifted == c.lifted and copy.legal_keys() == [queen, king]
    step_to_end(python.copy([], []), copy, random.Random(1).random)
    assert copy.shown_taken_raw() != [[], [], [], []]


# -- the type: subclassing, GC, getters ---------------------------------------------------


class Explaining(CPairs):  # type: ignore[misc, valid-type]
    __slots__ = ()

    def refusal(self, key: int) -> str | None:
        return None if key in self.legal_keys() else "illegal"


class WithDict(CPairs):  # type: ignore[misc, valid-type]
    pass


def plain(cls: Any = CPairs, config: object = None, seed: int = 1) -> Any:
    hands = masks_of(Deal.shuffled(seed, copies=2))
    core = cls(hands, True, False, False, False, [], [], config)
    core.start(0, 0, [0, 0, 0, 0], [])
    return core


@pytest.mark.parametrize("cls", [Explaining, WithDict])
def test_subclass_and_copy_keep_the_subclass(cls: Any) -> None:
    config = {"name": "test"}
    core = plain(cls, config)
    core.play(core.legal_keys()[0])
    copy = core.copy([], [])
    assert type(copy) is cls and copy.config is config
    assert state(copy) == state(core)
    copy.random_playout(random.Random(2).random)
    assert copy.seat == -1 and len(core.history) == 1
    if cls is Explaining:
        assert core.refusal(-1) == "illegal"
        assert core.refusal(core.legal_keys()[-1]) is None
        with pytest.raises(AttributeError):
            core.anything = 1


def test_getters_are_read_only_and_config_is_kept() -> None:
    marker = object()
    before = sys.getrefcount(marker)
    core = plain(config=marker)
    assert core.config is marker
    assert sys.getrefcount(marker) == before + 1
    copy = core.copy([], [])
    assert sys.getrefcount(marker) == before + 2
    del core, copy
    assert sys.getrefcount(marker) == before
    core = CPairs([0, 0, 0, 0], False, True, True, True, [], [])
    assert core.config is None
    assert (core.lock_first, core.lock_discards, core.lift_for_hand) == (False, True, True)
    assert core.pair_beats_unmatched is True and core.first_of_suit is False
    assert core.unled == LOW and core.played == 0 and core.seat == -1
    for name in ("config", "hands", "seat", "trick", "lifted", "history", "unled"):
        with pytest.raises(AttributeError):
            setattr(core, name, 1)


class Holder:
    core: Any = None


def test_garbage_collector_frees_cycles() -> None:
    # through config
    holder = Holder()
    holder.core = plain(config=holder)
    alive = weakref.ref(holder)
    del holder
    gc.collect()
    assert alive() is None
    # through history
    history: list[object] = []
    core = CPairs([0, 0, 0, 0], True, True, True, True, history, [])
    holder = Holder()
    history.extend([core, holder])
    alive = weakref.ref(holder)
    del core, history, holder
    gc.collect()
    assert alive() is None
    # through a shown copy's kind, still held, played and taken
    for plays in (0, 1, 60):
        kind = Holder()
        core = plain()
        shows = [(s, i, kind) for s in range(4) for i in range(52) if core.hands[s] >> i & 1]
        core.start(0, 0, [0, 0, 0, 0], shows)
        for _ in range(plays):
            if core.seat != -1:
                core.play(core.legal_keys()[-1])
        kind.core = core.copy([], [])
        kind.core.copy([], [])
        alive = weakref.ref(kind)
        del kind, core, shows
        gc.collect()
        assert alive() is None


def test_kinds_are_released() -> None:
    kind = object()
    before = sys.getrefcount(kind)
    core = plain()
    shows = [(s, i, kind) for s in range(4) for i in range(52) if core.hands[s] >> i & 1]
    core.start(0, 0, [0, 0, 0, 0], shows)
    core.random_playout(random.Random(5).random)
    taken = core.shown_taken_raw()
    assert sum(map(len, taken)) == len(shows)
    assert all(k is kind for seat in taken for _i, k in seat)
    del taken
    copy = core.copy([], [])
    core.__init__([0, 0, 0, 0], True, True, True, True, [], [])
    assert core.shown_taken_raw() == [[], [], [], []]
    del core, copy, shows
    assert sys.getrefcount(kind) == before


def test_uninitialised_engine_is_safe() -> None:
    core = CPairs.__new__(CPairs)
    assert core.seat == -1 and core.history is None and core.config is None
    assert core.hands == (0, 0, 0, 0) and core.lifted == (False,) * 4
    for call in (core.legal, core.legal_keys, core.legal_mask, lambda: core.play(0)):
        with pytest.raises(ValueError, match="no seat"):
            call()
    core.random_playout(random.random)  # over: nothing to do
    core.start(0, 0, [1, 0, 0, 0], [(0, 0, None)])
    assert core.legal_keys() == []
    with pytest.raises(RuntimeError):
        core.play(0)
    with pytest.raises(RuntimeError):
        core.random_playout(random.random)
    assert core.copy([], []).seat == 0


# -- validation ---------------------------------------------------------------------------

BAD_TYPES = [1.0, "1", None, b"\x01", [1], 1j]
BAD_MASKS = [-1, 1 << 104, 2**200, -(2**200), 1 << 52, (1 << 103) | (1 << 50)]


@pytest.mark.parametrize("bad", BAD_MASKS)
@pytest.mark.parametrize("seat", range(4))
def test_bad_hand_masks(bad: int, seat: int) -> None:
    hands: list[object] = [0, 0, 0, 0]
    hands[seat] = bad
    with pytest.raises(ValueError, match="hands: expected four two-deck card masks"):
        CPairs(hands, True, True, True, True, [], [])
    with pytest.raises(ValueError, match="hands: expected four two-deck card masks"):
        twins(hands, False, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", BAD_TYPES)
def test_non_int_hands(bad: object) -> None:
    with pytest.raises(TypeError):
        CPairs([0, bad, 0, 0], True, True, True, True, [], [])


@pytest.mark.parametrize("hands", [[], [0, 0, 0], [0, 0, 0, 0, 0], (0,) * 3])
def test_not_four_hands(hands: object) -> None:
    with pytest.raises(ValueError, match="hands: expected four"):
        CPairs(hands, True, True, True, True, [], [])


@pytest.mark.parametrize("hands", [5, None, {1.5: 2}])
def test_hands_not_a_sequence(hands: object) -> None:
    with pytest.raises(TypeError):
        CPairs(hands, True, True, True, True, [], [])


def test_no_card_more_than_twice() -> None:
    both = 1 | 1 << 52
    for hands in ([both, 1, 0, 0], [1, 1, 1, 0], [0, both, 0, both]):
        with pytest.raises(ValueError, match="more than twice"):
            CPairs(hands, True, True, True, True, [], [])
        with pytest.raises(ValueError, match="more than twice"):
            twins(hands, False, None)
    CPairs([both, 2, 2, 0], True, True, True, True, [], [])


@pytest.mark.parametrize(("history", "tricks"), [((), []), ([], None), (None, None), ("", [])])
def test_history_and_tricks_are_lists(history: object, tricks: object) -> None:
    with pytest.raises(TypeError):
        CPairs([0, 0, 0, 0], True, True, True, True, history, tricks)


def test_a_failed_init_or_start_leaves_the_engine_as_it_was() -> None:
    core = plain()
    core.play(core.legal_keys()[0])
    before = (state(core), list(core.history))
    args: Sequence[Any]
    for args in ([[0, 0, 0, -1]], [[1, 1, 1, 0]], [[0, 0, 0, "x"]]):
        with pytest.raises(CLEAN):
            core.__init__(*args, True, True, True, True, [], [])
    for args in (
        (4, 0, [0] * 4, []),
        (0, 3, [0] * 4, []),
        (0, 0, [0] * 3, []),
        (0, 0, [0] * 4, [(0, 52, None)]),
        (0, 0, [0] * 4, [(0, 1, None), (4, 1, None)]),
    ):
        with pytest.raises(CLEAN):
            core.start(*args)
    assert (state(core), core.history) == before


@pytest.mark.parametrize("leader", [-1, 4, 2**31, 2**70, -(2**70)])
def test_bad_leader(leader: int) -> None:
    with pytest.raises(ValueError, match="leader must be 0-3"):
        plain().start(leader, 0, [0] * 4, [])


@pytest.mark.parametrize("leader", [1.0, "0", None])
def test_non_int_leader(leader: object) -> None:
    with pytest.raises(TypeError):
        plain().start(leader, 0, [0] * 4, [])


@pytest.mark.parametrize("forced", [3, -1, 1 << 52, 1 << 60, 1 << 103, 2**200, LOW, -(2**70)])
def test_bad_forced(forced: int) -> None:
    with pytest.raises(ValueError, match="forced must be 0 or one card's bit"):
        plain().start(0, forced, [0] * 4, [])
    python, _c = twins([0, 0, 0, 0], False, None)
    with pytest.raises(ValueError, match="forced must be 0 or one card's bit"):
        python.start(0, forced, [0] * 4)


@pytest.mark.parametrize("bad", [-1, 1 << 104, 2**200, -(2**200)])
def test_bad_locked(bad: int) -> None:
    with pytest.raises(ValueError, match="locked: expected four two-deck card masks"):
        plain().start(0, 0, [0, bad, 0, 0], [])
    with pytest.raises(ValueError, match="locked"):
        plain().start(0, 0, [0, 0, 0], [])
    with pytest.raises(TypeError):
        plain().start(0, 0, [0, 1.0, 0, 0], [])


@pytest.mark.parametrize(
    ("shows", "error"),
    [
        ([(4, 0, None)], ValueError),
        ([(-1, 0, None)], ValueError),
        ([(0, 52, None)], ValueError),
        ([(0, -1, None)], ValueError),
        ([(0, 2**70, None)], ValueError),
        ([(0, 0)], TypeError),
        ([(0, 0, None, None)], TypeError),
        ([[0, 0, None]], TypeError),
        ([(0.0, 0, None)], TypeError),
        ([(0, "1", None)], TypeError),
        ([None], TypeError),
        (5, TypeError),
    ],
)
def test_bad_shows(shows: object, error: type[Exception]) -> None:
    core = plain()
    with pytest.raises(error):
        core.start(1, 0, [0] * 4, shows)
    assert core.seat == 0  # unchanged


def test_shows_are_optional_and_append() -> None:
    a, b = plain(), plain()
    a.start(0, 0, [0] * 4)
    kind = object()
    b.start(0, 0, [0] * 4, [(0, 5, kind)])
    b.start(0, 0, [0] * 4, ((0, 5, kind),))  # a second start appends, like the Python
    a.random_playout(random.Random(1).random)
    b.random_playout(random.Random(1).random)
    assert a.history == b.history


@pytest.mark.parametrize(
    "key", [-1, 2756, 2757, 52 + 52 * 3 + 2, 52 + 52 * 51 + 50, 2**31, 2**63, 2**70, -(2**70)]
)
def test_out_of_range_keys_are_illegal(key: int) -> None:
    core = plain()
    before = state(core)
    assert core.play(key) == -2
    assert state(core) == before and core.history == []
    python, _c = twins(masks_of(Deal.shuffled(1, copies=2)), False, None)
    python.start(0, 0, [0] * 4)
    assert python.play(key) == -2


@pytest.mark.parametrize("key", [1.0, "1", None, b"\x01", [1]])
def test_non_int_keys(key: object) -> None:
    with pytest.raises(TypeError):
        plain().play(key)


def test_no_to_move() -> None:
    core = plain()
    core.random_playout(random.Random(1).random)
    assert core.seat == -1
    for call in (core.legal, core.legal_keys, core.legal_mask, lambda: core.play(0)):
        with pytest.raises(ValueError, match="no seat is to move"):
            call()
    core.random_playout(lambda: 1 / 0)  # over: no draw


@pytest.mark.parametrize(
    "value", [1.0, -0.5, -1e-300, 1.5, math.nan, math.inf, -math.inf, 0, 1, "0.5", None, 1j]
)
def test_bad_random_values(value: object) -> None:
    core = plain()
    before = state(core)
    with pytest.raises(ValueError, match=r"random\(\) must return a float in \[0, 1\)"):
        core.random_playout(lambda: value)
    assert state(core) == before


def test_random_extremes_are_fine() -> None:
    for value in (0.0, -0.0, 1 - 2**-53, 5e-324):
        core = plain()
        core.random_playout(lambda v=value: v)
        assert core.seat == -1 and core.hands == (0, 0, 0, 0)


def test_random_errors_propagate() -> None:
    core = plain()
    draws = iter([0.5] * 10)
    with pytest.raises(StopIteration):
        core.random_playout(lambda: next(draws))
    assert len(core.history) == 10
    core.random_playout(random.Random(1).random)  # it can go on
    assert core.seat == -1


@pytest.mark.parametrize("action", ["play", "start", "init", "playout"])
def test_random_that_changes_the_engine(action: str) -> None:
    core = plain()

    def draw() -> float:
        if action == "play":
            core.play(core.legal_keys()[0])
        elif action == "start":
            core.start(1, 0, [0, 0, 0, 0])
        elif action == "init":
            core.__init__([1, 2, 4, 8], True, True, True, True, [], [])
        else:
            core.random_playout(random.Random(0).random)
        return 0.0

    with pytest.raises(RuntimeError, match="changed"):
        core.random_playout(draw)


def test_random_that_reads_the_engine_is_fine() -> None:
    core, other = plain(), plain()

    def draw() -> float:
        core.legal()
        core.copy([], [])
        return 0.5

    core.random_playout(draw)
    other.random_playout(lambda: 0.5)
    assert core.history == other.history


def test_a_mask_reader_that_changes_its_list_is_harmless() -> None:
    hands: list[object] = []

    class Sneaky:
        def __index__(self) -> int:
            hands.clear()
            return 0

    hands.extend([Sneaky(), 0, 0, 0])
    CPairs(hands, True, True, True, True, [], [])
    shows: list[object] = []

    class SneakySeat:
        def __index__(self) -> int:
            shows.clear()
            gc.collect()
            return 0

    shows.extend([(SneakySeat(), 1, object()), (0, 2, object())])
    plain().start(0, 0, [0] * 4, shows)


# -- fuzzing: nothing crashes, ints are judged like the Python ----------------------------

ints = st.one_of(
    st.integers(0, FULL_TWO),
    st.integers(-(2**110), 2**110),
    st.sampled_from([0, LOW, FULL_TWO, 1 << 52, 1 << 103, -1]),
)
anything = st.one_of(ints, st.floats(allow_nan=True), st.none(), st.text(max_size=2))


@settings(max_examples=300, deadline=None)
@given(hands=st.lists(ints, max_size=5), forced=ints, locked=st.lists(ints, max_size=5))
def test_fuzz_int_arguments_are_judged_like_the_python(hands, forced, locked) -> None:
    errors: list[str | None] = []
    engines = []
    for make in (
        lambda: PythonPairs(PlayConfig(deck_copies=2, pairs=True), hands, [], []),
        lambda: CPairs(hands, True, True, True, True, [], []),
    ):
        try:
            engines.append(make())
            errors.append(None)
        except ValueError as error:
            errors.append(str(error))
    assert errors[0] == errors[1]
    if errors[0] is not None:
        return
    python, c = engines
    results: list[str | None] = []
    for engine_ in (python, c):
        try:
            engine_.start(1, forced, locked, [])
            results.append(None)
        except ValueError as error:
            results.append(str(error))
    assert results[0] == results[1]
    if results[0] is None:
        assert tuple(python.locked) == c.locked and python.forced == c.forced


operations = st.lists(
    st.one_of(
        st.tuples(st.just("play"), st.one_of(st.integers(-3, 2800), anything)),
        st.tuples(st.just("playout"), st.lists(st.one_of(st.floats(0, 1), anything), max_size=4)),
        st.tuples(st.just("legal"), st.none()),
        st.tuples(st.just("copy"), st.none()),
        st.tuples(
            st.just("start"),
            st.tuples(
                st.one_of(st.integers(-1, 4), anything),
                anything,
                st.lists(anything, max_size=5),
                st.lists(
                    st.one_of(
                        st.tuples(st.integers(-1, 4), st.integers(-1, 53), anything), anything
                    ),
                    max_size=4,
                ),
            ),
        ),
    ),
    max_size=20,
)


def cards_in(core: Any) -> list[int]:
    """Per card, how many copies the engine holds in hands, taken piles and the trick."""
    count = [0] * 52
    for mask in (*core.hands, *core.taken):
        for index in range(52):
            count[index] += (mask >> index & 1) + (mask >> (52 + index) & 1)
    for key in core.trick:
        for index in (key,) if key < 52 else divmod(key - 52, 52):
            count[index] += 1
    return count


@settings(max_examples=300, deadline=None)
@given(hands=st.one_of(owners, crowded), flags=st.tuples(*[st.booleans()] * 4), ops=operations)
def test_fuzz_never_crashes(hands, flags, ops) -> None:
    core = CPairs(hands, *flags, [], [], object())
    expected = cards_in(core)
    with pytest.raises(ValueError):
        core.legal_keys()
    for name, arg in ops:
        before = state(core)
        with contextlib.suppress(ValueError, TypeError, IndexError):
            if name == "play":
                result = core.play(arg)
                assert result in (-2, -1, 0, 1, 2, 3)
                if result == -2:  # nothing changed (but the lock may have lifted)
                    assert state(core)[:3] + state(core)[4:] == before[:3] + before[4:]
            elif name == "playout":
                stream = itertools.chain(arg, itertools.repeat(0.5))
                core.random_playout(lambda s=stream: next(s))
                assert core.seat == -1
            elif name == "legal":
                keys = core.legal_keys()
                assert keys == sorted(set(keys))
                assert [p.key for p in core.legal()] == keys
            elif name == "copy":
                copy = core.copy(list(core.history), list(core.tricks))
                assert state(copy) == state(core)
                core = copy
            else:
                core.start(*arg)
        assert cards_in(core) == expected
        plays = len(core.history)
        assert plays == 4 * len(core.tricks) + len(core.trick)
        assert sum(len(seat) for seat in core.shown_taken_raw()) <= 104

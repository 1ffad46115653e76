"""The C play engine (gongzhu._speedups.PlayCore) on its own: its interface and its input checks.

Whatever crosses into C (masks, keys, the random stream) must give a clean
exception or a valid result, never a crash or a corrupted engine.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import math
import random
import sys
import weakref
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.actions import SINGLE_PLAYS

speedups = pytest.importorskip("gongzhu._speedups")
PlayCore: Any = speedups.PlayCore  # a C type: Any to mypy
speedups.set_plays(SINGLE_PLAYS)  # what gongzhu.hand does on import

FULL = (1 << 52) - 1
FLAGS = (True, True, True, False, False)
SUITS = tuple(0x1FFF << (13 * s) for s in range(4))
CLEAN: tuple[type[Exception], ...] = (ValueError, TypeError, OverflowError)


def deal(seed: int) -> list[int]:
    cards = list(range(52))
    random.Random(seed).shuffle(cards)
    return [sum(1 << c for c in cards[13 * s : 13 * s + 13]) for s in range(4)]


def make(hands: list[int] | None = None, config: object = None, **kw: object) -> Any:
    core = PlayCore(
        deal(1) if hands is None else hands,
        kw.get("flags", FLAGS),
        kw.get("preferred"),
        [],
        [],
        config,
    )
    return core


def started(seed: int = 1, leader: int = 0) -> Any:
    core = make(deal(seed))
    core.start(leader, 0, [0, 0, 0, 0])
    return core


def state(core: Any) -> tuple[object, ...]:
    return (
        core.hands,
        core.taken,
        core.locked,
        core.lifted,
        core.seat,
        core.forced,
        core.unled,
        core.first_of_suit,
        core.trick_leader,
        core.trick,
        list(core.history),
        list(core.tricks),
    )


def check_consistent(core: Any, cards: int) -> None:
    """The engine's cards are still the dealt ones, each in exactly one place."""
    places = [*core.hands, *core.taken, sum(1 << k for k in core.trick)]
    union = 0
    for mask in places:
        assert 0 <= mask <= FULL
        assert not mask & union
        union |= mask
    assert union == cards
    assert core.seat in (-1, 0, 1, 2, 3)
    assert len(core.trick) < 4


# -- the constructor, config, subclassing ------------------------------------------------


def test_config_defaults_to_none_and_is_kept() -> None:
    assert make().config is None
    assert PlayCore(deal(1), FLAGS, None, [], []).config is None
    marker = object()
    before = sys.getrefcount(marker)
    core = make(config=marker)
    assert core.config is marker
    assert sys.getrefcount(marker) == before + 1
    copy = core.copy([], [])
    assert copy.config is marker
    assert sys.getrefcount(marker) == before + 2
    del core, copy
    assert sys.getrefcount(marker) == before


def test_config_by_keyword_and_read_only() -> None:
    core = PlayCore(deal(1), FLAGS, None, [], [], config="rules")
    assert core.config == "rules"
    with pytest.raises(AttributeError):
        core.config = 1
    core.__init__(deal(2), FLAGS, None, [], [])  # re-initialising drops the old config
    assert core.config is None


class Holder:
    core: Any = None


def test_garbage_collector_frees_a_cycle_through_config() -> None:
    holder = Holder()
    holder.core = make(config=holder)
    holder.core.copy([], [])
    alive = weakref.ref(holder)
    del holder
    gc.collect()
    assert alive() is None


def test_garbage_collector_frees_a_cycle_through_history() -> None:
    history: list[object] = []
    core = PlayCore(deal(1), FLAGS, None, history, [])
    history.append(core)
    holder = Holder()
    history.append(holder)
    alive = weakref.ref(holder)
    del core, history, holder
    gc.collect()
    assert alive() is None


class CPlayCore(PlayCore):
    __slots__ = ()

    def cards_left(self) -> int:
        return sum(h.bit_count() for h in self.hands)


class DictPlayCore(PlayCore):
    pass


@pytest.mark.parametrize("cls", [CPlayCore, DictPlayCore])
def test_subclass_and_copy_keep_the_subclass_and_config(cls: type[Any]) -> None:
    config = {"name": "test"}
    core = cls(deal(3), FLAGS, None, [], [], config)
    core.start(2, 0, [0, 0, 0, 0])
    core.play(core.legal_mask().bit_length() - 1)
    history: list[object] = []
    tricks: list[object] = []
    copy = core.copy(history, tricks)
    assert type(copy) is cls
    assert copy.config is config
    assert copy.history is history and copy.tricks is tricks
    assert state(copy)[:10] == state(core)[:10]
    copy.random_playout(random.Random(4).random)
    assert copy.seat == -1 and len(tricks) == 13 and len(history) == 51
    assert core.seat != -1 and len(core.history) == 1  # the original is untouched
    if cls is CPlayCore:
        assert core.cards_left() == 51
        with pytest.raises(AttributeError):
            core.anything = 1


def test_uninitialised_engine_is_safe() -> None:
    core = PlayCore.__new__(PlayCore)
    assert core.seat == -1 and core.history is None and core.tricks is None
    assert core.config is None
    assert core.hands == (0, 0, 0, 0) and core.lifted == (False,) * 4
    for call in (core.legal, core.legal_mask, lambda: core.play(0)):
        with pytest.raises(ValueError, match="no seat"):
            call()
    core.random_playout(random.random)  # over: nothing to do
    core.start(0, 0, [0, 0, 0, 0])
    with pytest.raises(ValueError):
        core.play(0)
    with pytest.raises(ValueError):
        core.random_playout(random.random)
    assert core.copy([], []).seat == 0


# -- start, the getters -------------------------------------------------------------------


def test_start_takes_and_ignores_shows() -> None:
    a, b = make(), make()
    a.start(1, 0, [0, 0, 0, 0])
    b.start(1, 0, [0, 0, 0, 0], [(1, "anything")])
    assert state(a) == state(b)
    b.start(1, 0, [0, 0, 0, 0], None)
    with pytest.raises(TypeError):
        b.start(1, 0, [0, 0, 0, 0], None, None)


def test_first_of_suit() -> None:
    core = started(5)
    assert core.first_of_suit is False
    seen = set()
    while core.seat != -1:
        leading = not core.trick
        mask = core.legal_mask()
        key = (mask & -mask).bit_length() - 1
        core.play(key)
        if leading:
            assert core.first_of_suit is (key // 13 not in seen)
            seen.add(key // 13)


def test_lifted() -> None:
    # seat 0 holds two locked cards of one suit and nothing else: neither may lead, the lock lifts
    hands = [(1 << 10) | (1 << 12), 1 << 13, 1 << 26, 1 << 39]
    core = make(hands, flags=(True, True, True, False, False))
    core.start(0, 0, [hands[0], 0, 0, 0])
    assert core.lifted == (False, False, False, False)
    assert core.legal_mask() == hands[0]
    assert core.lifted == (True, False, False, False)
    assert all(type(x) is bool for x in core.lifted)
    assert core.copy([], []).lifted == (True, False, False, False)
    # lifting for one play only leaves it unset
    core = make(hands, flags=(True, True, False, False, False))
    core.start(0, 0, [hands[0], 0, 0, 0])
    assert core.legal_mask() == hands[0]
    assert core.lifted == (False, False, False, False)


# -- input checks ------------------------------------------------------------------------

BAD_MASKS = [-1, -(2**70), 1 << 52, FULL + 1, 2**64 - 1, 2**64, 2**100, 1.0, "1", None, b"1"]


@pytest.mark.parametrize("bad", BAD_MASKS)
@pytest.mark.parametrize("seat", range(4))
def test_bad_hand_masks(bad: object, seat: int) -> None:
    hands: list[object] = [0, 0, 0, 0]
    hands[seat] = bad
    with pytest.raises(CLEAN):
        PlayCore(hands, FLAGS, None, [], [])


@pytest.mark.parametrize("hands", [[], [0, 0, 0], [0, 0, 0, 0, 0], 5, None, "abcd", {1: 2}])
def test_bad_hand_sequences(hands: object) -> None:
    with pytest.raises(CLEAN):
        PlayCore(hands, FLAGS, None, [], [])


def test_hands_must_not_overlap() -> None:
    hands = deal(1)
    hands[2] |= hands[1] & -hands[1]
    with pytest.raises(ValueError, match="hands overlap"):
        PlayCore(hands, FLAGS, None, [], [])
    with pytest.raises(ValueError, match="hands overlap"):
        PlayCore([1, 0, 0, 1], FLAGS, None, [], [])


def test_int_like_masks_are_accepted() -> None:
    class Index:
        def __init__(self, value: int) -> None:
            self.value = value

        def __index__(self) -> int:
            return self.value

    hands = deal(1)
    core = PlayCore([Index(h) for h in hands], FLAGS, None, [], [])
    assert core.hands == tuple(hands)
    with pytest.raises(ValueError):
        PlayCore([Index(-1), 0, 0, 0], FLAGS, None, [], [])


def test_a_mask_reader_that_empties_the_list_is_harmless() -> None:
    hands: list[object] = []

    class Shrink:
        def __index__(self) -> int:
            hands.clear()
            return 0

    hands.extend([Shrink(), 1, 2, 4])
    core = PlayCore(hands, FLAGS, None, [], [])
    assert core.hands == (0, 1, 2, 4)


@pytest.mark.parametrize("bad", BAD_MASKS)
def test_bad_preferred_masks(bad: object) -> None:
    with pytest.raises(CLEAN):
        PlayCore(deal(1), FLAGS, [0, bad, 0, 0], [], [])
    with pytest.raises(CLEAN):
        PlayCore(deal(1), FLAGS, [0, 0, 0], [], [])


@pytest.mark.parametrize(
    ("flags", "history", "tricks"),
    [
        ((True,) * 4, [], []),
        ((True,) * 6, [], []),
        (None, [], []),
        (FLAGS, (), []),
        (FLAGS, [], None),
    ],
)
def test_bad_flags_and_lists(flags: object, history: object, tricks: object) -> None:
    with pytest.raises(CLEAN):
        PlayCore(deal(1), flags, None, history, tricks)


def test_a_failed_init_leaves_the_engine_as_it_was() -> None:
    core = started(2)
    core.play(core.legal_mask().bit_length() - 1)
    before = state(core)
    args: tuple[Any, ...]
    for args in [
        ([1, 1, 0, 0], FLAGS, None, [], []),
        (deal(3), FLAGS, [0, 0, 0, -1], [], []),
        ([0, 0, 0, 1 << 60], FLAGS, None, [], []),
    ]:
        with pytest.raises(CLEAN):
            core.__init__(*args)
        assert state(core) == before


@pytest.mark.parametrize("bad", [*BAD_MASKS, 3, (1 << 5) | (1 << 40), FULL])
def test_bad_forced(bad: object) -> None:
    core = make()
    with pytest.raises(CLEAN):
        core.start(0, bad, [0, 0, 0, 0])
    assert core.seat == -1 and core.forced == 0


def test_forced_single_card() -> None:
    hands = deal(1)
    card = hands[2] & -hands[2]
    core = make(hands)
    core.start(2, card, [0, 0, 0, 0])
    assert core.forced == card and core.legal_mask() == card


@pytest.mark.parametrize("bad", BAD_MASKS)
def test_bad_locked(bad: object) -> None:
    core = make()
    with pytest.raises(CLEAN):
        core.start(0, 0, [bad, 0, 0, 0])
    with pytest.raises(CLEAN):
        core.start(0, 0, [0, 0, 0])
    assert core.seat == -1 and core.locked == (0, 0, 0, 0)


@pytest.mark.parametrize("leader", [-1, 4, 2**31, 2**70, -(2**70), 1.0, "0", None])
def test_bad_leader(leader: object) -> None:
    core = make()
    with pytest.raises(CLEAN):
        core.start(leader, 0, [0, 0, 0, 0])
    assert core.seat == -1


@pytest.mark.parametrize("key", [-1, 52, 63, 64, 2**31, -(2**31), 2**62])
def test_out_of_range_keys_are_illegal(key: int) -> None:
    core = started()
    before = state(core)
    assert core.play(key) == -2
    assert state(core) == before


@pytest.mark.parametrize("key", [2**70, -(2**70), 2**64])
def test_huge_keys(key: int) -> None:
    core = started()
    before = state(core)
    with contextlib.suppress(OverflowError):
        assert core.play(key) == -2
    assert state(core) == before


@pytest.mark.parametrize("key", [1.0, "1", None, b"\x01", [1]])
def test_non_int_keys(key: object) -> None:
    core = started()
    with pytest.raises(TypeError):
        core.play(key)


def test_no_to_move() -> None:
    core = make()
    for call in (core.legal, core.legal_mask, lambda: core.play(0)):
        with pytest.raises(ValueError, match="no seat is to move"):
            call()
    core.start(0, 0, [0, 0, 0, 0])
    core.random_playout(random.Random(1).random)
    assert core.seat == -1
    for call in (core.legal, core.legal_mask, lambda: core.play(0)):
        with pytest.raises(ValueError, match="no seat is to move"):
            call()
    core.random_playout(random.random)  # a finished hand: nothing to do, as in Python


@pytest.mark.parametrize("value", [1.0, -0.5, -1e-300, 1.5, math.nan, math.inf, -math.inf, 1e300])
def test_random_out_of_range(value: float) -> None:
    core = started()
    before = state(core)
    with pytest.raises(ValueError, match=r"random\(\) must return a float in \[0, 1\)"):
        core.random_playout(lambda: value)
    assert state(core) == before


@pytest.mark.parametrize("value", ["0.5", None, [0.5], 1j])
def test_random_not_a_float(value: object) -> None:
    core = started()
    with pytest.raises(TypeError):
        core.random_playout(lambda: value)


def test_random_extremes_are_fine() -> None:
    core = started()
    core.random_playout(lambda: math.nextafter(1.0, 0.0))
    assert core.seat == -1 and len(core.tricks) == 13
    core = started()
    core.random_playout(lambda: 0)  # an int is a number
    assert core.seat == -1


def test_random_errors_propagate() -> None:
    core = started()
    draws = iter([0.5] * 10)

    def draw() -> float:
        return next(draws)

    with pytest.raises(StopIteration):
        core.random_playout(draw)
    assert len(core.history) == 10
    check_consistent(core, FULL)
    core.random_playout(random.Random(1).random)  # it can go on
    assert core.seat == -1


def test_a_seat_without_cards() -> None:
    core = make([1, 0, 0, 1 << 13])
    core.start(0, 0, [0, 0, 0, 0])
    assert core.play(0) == 1
    assert core.legal_mask() == 0 and core.legal() == ()
    assert core.play(13) == -2
    with pytest.raises(ValueError, match="no card"):
        core.random_playout(random.random)


@pytest.mark.parametrize("action", ["play", "start", "init", "playout"])
def test_random_that_changes_the_engine(action: str) -> None:
    core = started()

    def draw() -> float:
        if action == "play":
            core.play(core.legal_mask().bit_length() - 1)
        elif action == "start":
            core.start(1, 0, [0, 0, 0, 0])
        elif action == "init":
            core.__init__([1, 2, 4, 8], FLAGS, None, [], [])
        else:
            core.random_playout(random.Random(0).random)
        return 0.0

    with pytest.raises(RuntimeError, match="changed"):
        core.random_playout(draw)


def test_set_plays_checks_its_argument() -> None:
    with pytest.raises(TypeError):
        speedups.set_plays(SINGLE_PLAYS[:51])
    with pytest.raises(TypeError):
        speedups.set_plays(list(SINGLE_PLAYS))
    assert started().legal()[0] in SINGLE_PLAYS


# -- fuzzing -----------------------------------------------------------------------------

masks = st.one_of(
    st.integers(0, FULL),
    st.integers(0, FULL),
    st.sampled_from([0, 1, FULL, 1 << 51, 1 << 52, 2**63, 2**64 - 1, 2**64, -1]),
    st.integers(FULL + 1, 2**64 - 1),  # fits a C uint64 but not 52 bits: must not be truncated
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.none(),
    st.text(max_size=2),
)
keys = st.one_of(
    st.integers(-3, 55),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.none(),
)
draws = st.one_of(
    st.floats(0, 1, exclude_max=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-2, 2),
    st.none(),
)
deals = st.permutations(range(52)).flatmap(
    lambda cards: st.tuples(*(st.integers(0, 13) for _ in range(3))).map(
        lambda cuts: _split(cards, cuts)
    )
)
mask_lists = st.one_of(
    deals,
    deals,
    st.lists(st.integers(0, FULL), min_size=4, max_size=4),  # in range, but overlapping
    st.lists(masks, min_size=4, max_size=4),
    st.lists(masks, max_size=5),
)


def _split(cards: list[int], cuts: tuple[int, int, int]) -> list[int]:
    bounds = sorted([0, *(13 * i + c - 6 for i, c in enumerate(cuts, 1)), 52])
    bounds = [min(max(b, 0), 52) for b in bounds]
    return [sum(1 << c for c in cards[a:b]) for a, b in itertools.pairwise(bounds)]


operations = st.lists(
    st.one_of(
        st.tuples(st.just("play"), keys),
        st.tuples(st.just("playout"), st.lists(draws, max_size=6)),
        st.tuples(st.just("legal"), st.none()),
        st.tuples(st.just("copy"), st.none()),
        st.tuples(st.just("start"), st.tuples(st.integers(-1, 4), masks, st.lists(masks))),
    ),
    max_size=25,
)


@settings(max_examples=400, deadline=None)
@given(
    hands=mask_lists,
    flags=st.tuples(*(st.booleans() for _ in range(5))),
    preferred=st.one_of(st.none(), st.lists(masks, min_size=4, max_size=4), mask_lists),
    leader=st.integers(-1, 4),
    forced=masks,
    locked=st.one_of(mask_lists, st.lists(st.integers(0, FULL), min_size=4, max_size=4)),
    ops=operations,
)
def test_fuzz_never_crashes(hands, flags, preferred, leader, forced, locked, ops) -> None:
    try:
        core = PlayCore(hands, flags, preferred, [], [])
    except CLEAN:
        return
    assert list(core.hands) == list(hands)  # accepted only as given: no truncation
    cards = 0
    for h in core.hands:
        assert not h & cards
        cards |= h
    check_consistent(core, cards)
    with pytest.raises(ValueError):
        core.legal_mask()
    with contextlib.suppress(*CLEAN):
        core.start(leader, forced, locked)
        assert core.forced == forced and list(core.locked) == list(locked)
        assert forced.bit_count() <= 1
    check_consistent(core, cards)
    for name, arg in ops:
        before = state(core)
        try:
            if name == "play":
                result = core.play(arg)
                assert result in (-2, -1, 0, 1, 2, 3)
                if result == -2:
                    assert state(core) == before
            elif name == "playout":
                values = arg or [0.25]
                stream = iter(values * 60)
                core.random_playout(lambda s=stream: next(s, 0.5))
                assert core.seat == -1
            elif name == "legal":
                mask = core.legal_mask()
                assert mask & ~core.hands[core.seat] == 0
                plays = core.legal()
                assert len(plays) == mask.bit_count()
                assert all(p is SINGLE_PLAYS[p.key] for p in plays)
            elif name == "copy":
                copy = core.copy(list(core.history), list(core.tricks))
                assert state(copy)[:10] == state(core)[:10]
                assert copy.config is core.config
                core = copy
            else:
                core.start(*arg)
        except CLEAN:
            pass
        check_consistent(core, cards)
        assert len(core.history) == sum(map(int.bit_count, core.taken)) + len(core.trick)
        assert len(core.tricks) * 4 == sum(map(int.bit_count, core.taken))


@settings(max_examples=200, deadline=None)
@given(
    cards=st.permutations(range(52)),
    flags=st.tuples(*(st.booleans() for _ in range(5))),
    leader=st.integers(0, 3),
    seed=st.integers(0, 2**32),
    keys=st.lists(st.integers(0, 51), max_size=60),
)
def test_fuzz_whole_hands(cards, flags, leader, seed, keys) -> None:
    hands = [sum(1 << c for c in cards[13 * s : 13 * s + 13]) for s in range(4)]
    preferred = [SUITS[1] | SUITS[2], SUITS[0] | SUITS[3], SUITS[0] | SUITS[3], SUITS[1] | SUITS[2]]
    core = PlayCore(hands, flags, preferred if flags[3] else None, [], [])
    core.start(leader, 0, [hands[0] & (1 << 10), 0, hands[2] & SUITS[1], 0])
    for key in keys:
        if core.seat == -1:
            break
        legal = core.legal_mask()
        result = core.play(key)
        assert (result == -2) is (not legal >> key & 1)
    core.random_playout(random.Random(seed).random)
    assert core.seat == -1 and core.hands == (0, 0, 0, 0)
    assert len(core.tricks) == 13 and len(core.history) == 52
    taken = 0
    for mask in core.taken:
        assert not mask & taken
        taken |= mask
    assert taken == FULL


def test_a_refused_play_from_an_empty_hand_changes_nothing() -> None:
    # found by test_fuzz_never_crashes: with the lock lifting for the hand, an empty
    # hand's (empty) legal mask used to lift the lock as a refused play was explained
    core = PlayCore([0, 0, 0, 0], (False, False, True, False, False), None, [], [])
    core.start(0, 0, [0, 0, 0, 0])
    before = state(core)
    assert core.play(0) == -2
    assert state(core) == before

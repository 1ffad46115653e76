"""The bulk path: RandomHands plays exactly as HandState.play_out; the shuffle's two twins."""

from __future__ import annotations

import hashlib
import random
import sys
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.deal
import gongzhu.engines
from gongzhu import Deal, ShowKind
from gongzhu.bulk import RandomHands
from gongzhu.cards import full_deck
from gongzhu.hand import HandState
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.rules import Rules
from gongzhu.scoring import ShowRecord, show_record
from gongzhu.simulate import ScoreStats

from . import plugins

SHIPPED = [
    (),
    *((name,) for name in gongzhu.variant_names() if name != "39baobao"),
    ("huapai", "anmai"),
    ("huapai", "two-deck"),
    ("two-deck", "anmai"),
    ("chuyang-quanming", "biming"),
]


def rulesets() -> list[tuple[str, Rules]]:
    out = [(" + ".join(names) or "39baobao", gongzhu.load_rules(*names)) for names in SHIPPED]
    out.append(("lock-discards", Rules.from_plugins(plugins.LockDiscards("hand"))))
    out.append(("colours-penalty", Rules.from_plugins(plugins.Colours(strict=False))))
    return out


CASES = [
    pytest.param(rules, spec.name, id=f"{label}-{spec.name}")
    for label, rules in rulesets()
    for spec in rules.engines
]


@pytest.mark.parametrize(("rules", "engine_name"), CASES)
def test_random_hands_play_as_play_out(rules: Rules, engine_name: str) -> None:
    """Hand for hand, the same outcome from the same seed and draws (and the same draws
    used: the generators end in the same state)."""
    fast_rng, slow_rng = random.Random(11), random.Random(11)
    hands = RandomHands(rules, engine=engine_name)
    for _ in range(120):
        seed = fast_rng.getrandbits(63)
        assert slow_rng.getrandbits(63) == seed
        state = rules.new_hand(seed, engine=engine_name)
        state.play_out(slow_rng.random)
        assert hands.outcome(seed, fast_rng.random) == state.outcome(), seed
    assert fast_rng.getstate() == slow_rng.getstate()


def test_simulate_sums_play_out() -> None:
    rules = gongzhu.load_rules("huapai")
    rng = random.Random(5)
    stats = ScoreStats()
    for _ in range(200):
        state = rules.new_hand(rng.getrandbits(63))
        state.play_out(rng.random)
        stats.add_scores(*state.outcome())
    summary = gongzhu.simulate(rules, 200, seed=5)
    assert summary.mean_final == tuple(stats.mean(seat) for seat in range(4))
    assert (summary.full_hearts, summary.slams) == (stats.full_hearts, stats.slams)


def test_random_hands_unknown_engine() -> None:
    with pytest.raises(gongzhu.errors.IncompatibleVariants, match="no play engine 'nope'"):
        RandomHands(gongzhu.load_rules(), engine="nope")


# -- the shuffle: the C accelerator's shuffle_deck and its Python twin -----------------------

needs_speedups = pytest.mark.skipif(
    gongzhu.deal._shuffle is gongzhu.deal._shuffle_deck, reason="C accelerator not built"
)


@needs_speedups
@settings(max_examples=300, deadline=None)
@given(copies=st.sampled_from([1, 2]), data=st.data())
def test_c_shuffle_is_the_python_shuffle(copies: int, data: st.DataObject) -> None:
    deck = full_deck(copies)
    # few distinct bytes make equal keys likely: ties must keep deck order in both
    digest = data.draw(st.binary(min_size=8 * len(deck), max_size=8 * len(deck)))
    order, masks = gongzhu.deal._shuffle(digest, deck)
    assert (order, list(masks)) == gongzhu.deal._shuffle_deck(digest, deck)


@needs_speedups
def test_c_shuffle_ties_and_bad_input() -> None:
    deck = full_deck(1)
    assert gongzhu.deal._shuffle(bytes(8 * 52), deck)[0] == deck  # every key equal
    with pytest.raises(ValueError, match="8 bytes per card"):
        gongzhu.deal._shuffle(bytes(8), deck)
    with pytest.raises(ValueError, match="52 or 104 cards"):
        gongzhu.deal._shuffle(bytes(8 * 3), deck[:3])
    with pytest.raises(TypeError):
        gongzhu.deal._shuffle("text", deck)  # type: ignore[arg-type]


@pytest.mark.parametrize("copies", [1, 2])
def test_shuffle_keys_are_little_endian_everywhere(
    copies: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The big-endian branch reads the same keys as the little-endian one."""
    deck = full_deck(copies)
    digest = hashlib.shake_256(b"gongzhu").digest(8 * len(deck))
    little = gongzhu.deal._shuffle_deck(digest, deck)
    monkeypatch.setattr(sys, "byteorder", "big")
    assert gongzhu.deal._shuffle_deck(digest, deck) == little


@pytest.mark.parametrize("copies", [1, 2])
@pytest.mark.parametrize("first_seat", range(4))
def test_shuffled_masks_are_the_deals(copies: int, first_seat: int) -> None:
    for seed in (-(2**70), -1, 0, 1, 7, 2**63 - 1, 2**80):
        deal, masks = Deal._shuffled(seed, copies, first_seat)
        assert deal == Deal.shuffled(seed, copies, first_seat)
        assert deal.first_seat == first_seat
        assert masks == HandState._deal_masks(deal)


def test_shuffled_deals_did_not_change() -> None:
    """The seed contract: a seed deals what it dealt before the shuffle had a C twin."""
    assert [str(c) for c in Deal.shuffled(7).holding(0)[:4]] == ["9D", "TH", "2H", "2D"]
    assert [str(c) for c in Deal.shuffled(-3, 2).holding(1)[:4]] == ["9S", "6H", "4C", "5C"]


def test_show_record_is_interned() -> None:
    record = show_record(2, gongzhu.PIG, ShowKind.OPEN)
    assert record == ShowRecord(2, gongzhu.PIG, ShowKind.OPEN)
    assert show_record(2, gongzhu.PIG, ShowKind.OPEN) is record
    assert show_record(2, gongzhu.PIG, ShowKind.SECRET) is not record


# -- the C engines' whole-hand and quiet playouts: what they refuse ---------------------------

needs_c_engines = pytest.mark.skipif(
    not gongzhu.engines.ACCELERATED, reason="C accelerator not built"
)


def fresh_single_c(seed: int = 3) -> tuple[Any, Any, gongzhu.Rules]:
    rules = gongzhu.load_rules()
    hands = RandomHands(rules, engine="single-c")
    assert hands._table is not None  # the one-deck C engine plays whole hands
    core = hands._factory(hands._config, Deal._shuffled(seed)[1], [], [])
    return core, hands._table, rules


@needs_c_engines
def test_random_hand_refuses_a_started_engine_and_bad_arguments() -> None:
    core, table, _rules = fresh_single_c()
    draw = random.Random(1).random
    with pytest.raises(ValueError, match="leader and first_seat must be 0-3"):
        core.random_hand(table, 4, 0, 0, None, draw)
    with pytest.raises(ValueError, match="forced must be 0 or a single card"):
        core.random_hand(table, 0, 3, 0, None, draw)
    with pytest.raises(TypeError):
        core.random_hand("not a table", 0, 0, 0, None, draw)
    with pytest.raises(ValueError, match="the four first dealt cards"):
        core.random_hand(table, 0, 0, 0, (gongzhu.PIG,), draw)
    with pytest.raises(ValueError, match="random\\(\\) must return a float in \\[0, 1\\)"):
        core.random_hand(table, 0, 0, 0, None, lambda: 1.0)
    with pytest.raises(TypeError):
        core.random_hand(table, 0, 0, 0, None, lambda: "x")
    taken, _factors = core.random_hand(table, 0, 0, 0, None, draw)
    assert sum(mask.bit_count() for mask in taken) == 52 and core.seat == -1
    assert core.history == [] and core.tricks == []  # it keeps no record
    with pytest.raises(ValueError, match="needs a fresh engine"):
        core.random_hand(table, 0, 0, 0, None, draw)


@needs_c_engines
def test_random_hand_notices_random_changing_the_engine() -> None:
    core, table, _rules = fresh_single_c()

    def meddling() -> float:
        core.start(0, 0, [0, 0, 0, 0])
        return 0.5

    with pytest.raises(RuntimeError, match="changed the PlayCore under random_hand"):
        core.random_hand(table, 0, 0, 0, None, meddling)


@needs_c_engines
def test_show_table_checks_its_data() -> None:
    from gongzhu.engines import CPlayCore

    showable = gongzhu.PIG.bit | gongzhu.SHEEP.bit
    good = [[(0, 1, False)], [(0, 1, False)], [(0, 1, False)], [(0, 1, False)]]
    CPlayCore.show_table(showable, good, None, 0, 1, False)
    with pytest.raises(ValueError, match="one entry per subset"):
        CPlayCore.show_table(showable, good[:3], None, 0, 1, False)
    with pytest.raises(ValueError, match="a show of a card not held"):
        CPlayCore.show_table(showable, [[(gongzhu.PIG.bit, 2, False)], *good[1:]], None, 0, 1, 0)
    with pytest.raises(ValueError, match="1 to 1024 choices"):
        CPlayCore.show_table(showable, [[], *good[1:]], None, 0, 1, False)
    with pytest.raises(ValueError, match="at most 8 showable cards"):
        CPlayCore.show_table((1 << 9) - 1, good, None, 0, 1, False)
    with pytest.raises(ValueError, match="threshold"):
        CPlayCore.show_table(showable, good, None, -1, 1, False)


@needs_c_engines
@pytest.mark.parametrize("names", [(), ("two-deck",)])
def test_quiet_playout_plays_as_random_playout(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    for seed in range(20):
        loud, quiet = rules.new_hand(seed), rules.new_hand(seed)
        for hand in (loud, quiet):
            while hand.phase is not gongzhu.Phase.PLAY:
                hand.apply(hand.legal_actions()[0])
        loud._core.random_playout(random.Random(seed).random)
        quiet._core.quiet_playout(random.Random(seed).random)  # type: ignore[attr-defined]
        assert quiet._core.taken == loud._core.taken
        assert loud._core.seat == quiet._core.seat == -1  # both played to the end
        assert loud._tricks and len(loud._history) > 4
        assert len(quiet._history) == 4 and quiet._tricks == []  # only the four shows


# -- odd rulesets and hostile inputs (found by review) ---------------------------------------


class _Factors:
    """Show factors of a test's choosing."""

    def __init__(self, factors: dict[ShowKind, Any]) -> None:
        self.factors = factors

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("factors", "odd show factors")

    @hookimpl(tryfirst=True)
    def gongzhu_show_factors(self) -> dict[ShowKind, Any]:
        return self.factors


class _Showable:
    """The showable cards of a test's choosing."""

    def __init__(self, cards: str) -> None:
        self.cards = gongzhu.parse_cards(cards)

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("showable", "odd showable cards")

    @hookimpl(tryfirst=True)
    def gongzhu_showable_cards(self) -> tuple[gongzhu.Card, ...]:
        return self.cards


ODD = {
    "open-factor-0": lambda: Rules.from_plugins(
        _Factors({ShowKind.OPEN: 0, ShowKind.FIRST: 4, ShowKind.SECRET: 2})
    ),
    "open-factor-negative": lambda: Rules.from_plugins(
        _Factors({ShowKind.OPEN: -2, ShowKind.FIRST: 4, ShowKind.SECRET: 2})
    ),
    "open-factor-2**70": lambda: Rules.from_plugins(
        _Factors({ShowKind.OPEN: 2**70, ShowKind.FIRST: 4, ShowKind.SECRET: 2})
    ),
    "open-factor-fraction": lambda: Rules.from_plugins(
        _Factors({ShowKind.OPEN: Fraction(3, 2), ShowKind.FIRST: 4, ShowKind.SECRET: 2})
    ),
    "nothing-showable": lambda: Rules.from_plugins(_Showable("")),
    "eight-showable": lambda: Rules.from_plugins(_Showable("QS JD TC AH KS KD KC 2S")),
    "nine-showable": lambda: Rules.from_plugins(_Showable("QS JD TC AH KS KD KC 2S 3S")),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_random_hands_on_odd_rulesets(name: str) -> None:
    """A zero, negative, huge or fractional show factor, or no showable card at all:
    every engine's bulk hands are play_out's."""
    rules = ODD[name]()
    for spec in rules.engines:
        fast_rng, slow_rng = random.Random(5), random.Random(5)
        hands = RandomHands(rules, engine=spec.name)
        for _ in range(60):
            seed = fast_rng.getrandbits(63)
            slow_rng.getrandbits(63)
            state = rules.new_hand(seed, engine=spec.name)
            state.play_out(slow_rng.random)
            assert hands.outcome(seed, fast_rng.random) == state.outcome(), (spec.name, seed)
    assert gongzhu.simulate(rules, 5).hands == 5


@needs_c_engines
def test_show_table_is_made_once_and_only_used_made() -> None:
    core, table, _rules = fresh_single_c()
    with pytest.raises(TypeError, match="made once"):
        table.__init__(gongzhu.PIG.bit, [[(0, 1, False)], [(0, 1, False)]], None, 0, 1, False)
    kind: Any = type(table)
    unmade = kind.__new__(kind)
    with pytest.raises(ValueError, match="was not made"):
        core.random_hand(unmade, 0, 0, 0, None, random.Random(1).random)
    with pytest.raises(TypeError, match="a choice is a"):
        type(table)(gongzhu.PIG.bit, [[[0, 1, False]], [(0, 1, False)]], None, 0, 1, False)


@needs_c_engines
def test_show_table_reads_a_snapshot_of_lists_python_code_changes() -> None:
    """An __index__ that empties the lists being read cannot make the table read freed
    memory: what was given is what is read."""
    from gongzhu.engines import CPlayCore

    inner = [(0, 1, False)]

    class Emptying:
        def __index__(self) -> int:
            inner.clear()
            return 0

    held = [[(Emptying(), 1, False), *[(0, 1, False)] * 30], inner, [(0, 1, False)], inner]
    table = CPlayCore.show_table(gongzhu.PIG.bit | gongzhu.SHEEP.bit, held, None, 0, 1, False)
    assert table is not None

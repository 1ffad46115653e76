"""The bulk path: RandomHands plays exactly as HandState.play_out; the shuffle's two twins.

:class:`~gongzhu.bulk.RandomHands` deals a hand, has the engine play all of it at random
(the show phases inside the engine) and scores the facts; it must give, for a seed and a
stream of draws, the outcome ``rules.new_hand(seed)``, ``play_out`` and ``outcome`` give,
using the same draws, on every ruleset and on every engine that can play it.
"""

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
from gongzhu.bulk import RandomHands, facts_of
from gongzhu.cards import full_deck
from gongzhu.errors import IncompatibleVariants
from gongzhu.hand import HandState
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.rules import Rules
from gongzhu.scoring import ShowRecord, show_record
from gongzhu.simulate import ScoreStats
from gongzhu_variants import huapai, two_deck

from . import plugins
from .test_engines_twins import AutoShow, Counting, PlayRules, Showable, rule_sets

SHIPPED = [
    (),
    *((name,) for name in gongzhu.variant_names() if name != "39baobao"),
    ("huapai", "anmai"),
    ("huapai", "two-deck"),
    ("two-deck", "anmai"),
    ("chuyang-quanming", "biming"),
    ("heart-three", "huapai", "anmai"),
]


def rulesets() -> list[tuple[str, Rules]]:
    out = [(" + ".join(names) or "39baobao", gongzhu.load_rules(*names)) for names in SHIPPED]
    out += [
        ("lock-discards", Rules.from_plugins(plugins.LockDiscards("hand"))),
        ("colours-penalty", Rules.from_plugins(plugins.Colours(strict=False))),
        ("colours-penalty-last", Rules.from_plugins(plugins.Colours(False, offender="last"))),
        ("same-colour-strict", gongzhu.load_rules("same-colour-discard", same_colour_strict=True)),
        ("huapai-stuck-hand", gongzhu.load_rules("huapai", shown_lock_stuck="hand")),
        ("two-deck-pair-beats", gongzhu.load_rules("two-deck", pair_beats_unmatched=True)),
        ("two-deck+auto-show", Rules.from_plugins(two_deck, AutoShow(2))),
        ("show-family", Rules.from_plugins(plugins.ShowFamily())),
        ("play-rules", Rules.from_plugins(huapai, PlayRules("r", *rule_sets(1)["both"]))),
        (
            "play-rules-two-deck",
            Rules.from_plugins(two_deck, PlayRules("r", *rule_sets(2)["require"])),
        ),
    ]
    return out


CASES = [
    pytest.param(rules, spec.name, id=f"{label}-{spec.name}")
    for label, rules in rulesets()
    for spec in rules.engines
]


@pytest.mark.parametrize(("rules", "engine_name"), CASES)
def test_random_hands_play_as_play_out(rules: Rules, engine_name: str) -> None:
    """Hand for hand, the same outcome from the same seed and draws (and the same draws
    used: the generators end in the same state), and the same facts."""
    fast_rng, slow_rng = random.Random(11), random.Random(11)
    hands = RandomHands(rules, engine=engine_name)
    for _ in range(40 if rules.table.copies == 1 else 20):
        seed = fast_rng.getrandbits(63)
        assert slow_rng.getrandbits(63) == seed
        state = rules.new_hand(seed, engine=engine_name)
        state.play_out(slow_rng.random)
        assert hands.outcome(seed, fast_rng.random) == state.outcome(), seed
        assert fast_rng.getstate() == slow_rng.getstate()
        facts = facts_of(state.engine, state.dealt_masks, rules.show_phase)
        assert facts == state.facts()
        assert rules.scorer.outcome(facts) == state.outcome()


@pytest.mark.parametrize(
    "names", [(), ("huapai", "anmai"), ("two-deck",), ("huapai", "two-deck", "anmai")]
)
def test_random_hands_are_the_same_hands_on_every_engine(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    outcomes = []
    for spec in rules.engines:
        rng = random.Random(3)
        hands = RandomHands(rules, engine=spec.name)
        outcomes.append([hands.outcome(rng.getrandbits(63), rng.random) for _ in range(30)])
    assert len(outcomes) == len(rules.engines) and all(o == outcomes[0] for o in outcomes)
    assert RandomHands(rules)._spec is rules.engine_spec  # the fastest by default


def test_random_hands_draw_one_number_per_decision() -> None:
    """As many draws as the hand had decisions: each show turn, each play."""
    for names in [(), ("huapai", "anmai"), ("two-deck",)]:
        rules = gongzhu.load_rules(*names)
        for seed in range(5):
            stream = Counting(seed)
            RandomHands(rules).outcome(seed, stream)
            hand = rules.new_hand(seed)
            hand.play_out(random.Random(seed).random)
            assert stream.draws == len(hand.history)


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
    with pytest.raises(IncompatibleVariants, match="no play engine 'nope'"):
        RandomHands(gongzhu.load_rules(), engine="nope")
    with pytest.raises(IncompatibleVariants, match="no play engine 'single-python'"):
        RandomHands(gongzhu.load_rules("two-deck"), engine="single-python")


def test_random_hands_pass_on_a_bad_stream() -> None:
    hands = RandomHands(gongzhu.load_rules())
    with pytest.raises(ValueError, match=r"random\(\) must return a float in \[0, 1\)"):
        hands.outcome(1, lambda: 1.0)
    with pytest.raises(ZeroDivisionError):
        hands.outcome(1, lambda: 1 / 0)
    assert hands.outcome(1, random.Random(1).random) == hands.outcome(1, random.Random(1).random)


# -- the shuffle: the C accelerator's shuffle_deck and its Python twin -----------------------

needs_speedups = pytest.mark.skipif(
    gongzhu.deal._shuffle is gongzhu.deal._shuffle_deck, reason="C accelerator not built"
)


@needs_speedups
@settings(max_examples=150, deadline=None)
@given(copies=st.sampled_from([1, 2]), data=st.data())
def test_c_shuffle_is_the_python_shuffle(copies: int, data: st.DataObject) -> None:
    deck = full_deck(copies)
    # few distinct bytes make equal keys likely: ties must keep deck order in both
    digest = data.draw(
        st.one_of(
            st.binary(min_size=8 * len(deck), max_size=8 * len(deck)),
            st.lists(
                st.sampled_from([b"\0" * 8, b"\xff" * 8, b"\1" + b"\0" * 7]),
                min_size=len(deck),
                max_size=len(deck),
            ).map(b"".join),
        )
    )
    order, masks = gongzhu.deal._shuffle(digest, deck)
    assert (order, list(masks)) == gongzhu.deal._shuffle_deck(digest, deck)


@needs_speedups
def test_c_shuffle_ties_and_bad_input() -> None:
    shuffle: Any = gongzhu.deal._shuffle
    deck = full_deck(1)
    assert shuffle(bytes(8 * 52), deck)[0] == deck  # every key equal
    assert shuffle(bytes(8 * 104), full_deck(2))[0] == full_deck(2)
    digest = hashlib.shake_256(b"x").digest(8 * 52)
    for buffer in (bytearray(digest), memoryview(digest)):  # any bytes-like digest
        assert shuffle(buffer, deck) == shuffle(digest, deck)
    with pytest.raises(ValueError, match="8 bytes per card"):
        shuffle(bytes(8), deck)
    with pytest.raises(ValueError, match="8 bytes per card"):
        shuffle(bytes(8 * 104), deck)
    with pytest.raises(ValueError, match="52 or 104 cards"):
        shuffle(bytes(8 * 3), deck[:3])
    with pytest.raises(ValueError, match="52 or 104 cards"):
        shuffle(bytes(8 * 156), deck * 3)
    for bad in ("text", None, 5):
        with pytest.raises(TypeError):
            shuffle(bad, deck)
    with pytest.raises(TypeError):
        shuffle(digest, list(deck))  # a tuple of cards
    with pytest.raises(TypeError):
        shuffle(digest)
    objects = tuple(object() for _ in range(52))  # what the deck holds is only reordered
    order, masks = shuffle(digest, objects)
    assert sorted(map(id, order)) == sorted(map(id, objects))
    assert sum(masks) == (1 << 52) - 1


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
        deal, masks = Deal.shuffled_with_masks(seed, copies, first_seat)
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


# -- odd rulesets (found by review) ------------------------------------------------------------


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
    "open-factor-1": lambda: Rules.from_plugins(
        _Factors({ShowKind.OPEN: 1, ShowKind.FIRST: 4, ShowKind.SECRET: 2})
    ),
    "nothing-showable": lambda: Rules.from_plugins(Showable("")),
    "eight-showable": lambda: Rules.from_plugins(Showable("QS JD TC AH KS KD KC 2S")),
    "eight-showable-huapai": lambda: Rules.from_plugins(
        huapai, Showable("QS JD TC AH KS KD KC 2S")
    ),
    "two-deck-five-showable": lambda: Rules.from_plugins(
        two_deck, Showable("QS JD TC AH KS"), AutoShow(4)
    ),
    "two-deck-nothing-showable": lambda: Rules.from_plugins(two_deck, Showable("")),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_random_hands_on_odd_rulesets(name: str) -> None:
    """A zero, negative, huge or unit show factor, no showable card at all, or as
    many as an engine's tables take: every engine's bulk hands are play_out's."""
    rules = ODD[name]()
    for spec in rules.engines:
        fast_rng, slow_rng = random.Random(5), random.Random(5)
        hands = RandomHands(rules, engine=spec.name)
        for _ in range(12):
            seed = fast_rng.getrandbits(63)
            slow_rng.getrandbits(63)
            state = rules.new_hand(seed, engine=spec.name)
            state.play_out(slow_rng.random)
            assert hands.outcome(seed, fast_rng.random) == state.outcome(), (spec.name, seed)
    assert gongzhu.simulate(rules, 5).hands == 5


@pytest.mark.parametrize(
    ("plugins_", "count"),
    [((), 9), ((two_deck,), 6)],
    ids=["one-deck-nine", "two-deck-six"],
)
def test_more_showable_cards_than_the_tables_take_are_refused(
    plugins_: tuple[object, ...], count: int
) -> None:
    """The show phase is compiled when the ruleset is built: too many showable cards (one
    entry per holding: 2**8 with one deck, 3**5 with two) are refused there."""
    cards = " ".join(["QS", "JD", "TC", "AH", "KS", "KD", "KC", "2S", "3S"][:count])
    with pytest.raises(IncompatibleVariants, match=f"has {count} showable cards; at most"):
        Rules.from_plugins(*plugins_, Showable(cards))


def test_a_fractional_show_factor_is_refused_naming_the_plugin() -> None:
    """Factors are integers (scores are whole points); a plug-in that gives another is named."""
    factors = {ShowKind.OPEN: Fraction(3, 2), ShowKind.FIRST: 4, ShowKind.SECRET: 2}
    with pytest.raises(IncompatibleVariants, match=r"the factor Fraction\(3, 2\).*an integer"):
        Rules.from_plugins(_Factors(factors))


def test_c_engines_play_every_odd_ruleset() -> None:
    if not gongzhu.engines.ACCELERATED:
        pytest.skip("the C engines are not built")
    for name, make in ODD.items():
        assert make().engine_spec.name.endswith("-c"), name

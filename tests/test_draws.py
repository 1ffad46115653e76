"""The C engines' random draws: a ``random.Random``'s own ``random()`` is drawn in C.

Every random choice of an engine is one ``random()`` draw.  When ``random`` is the
``random`` method of a :class:`random.Random` (not a subclass's override), the C
engines draw from that object's state themselves (``engines/c/draws.c``), by the
generator's own algorithm, so the hands and the generator's state afterwards must
be exactly those that calling ``random()`` gives.  Here each C draw is held equal
to the same generator called from Python (through a lambda, which the C side cannot
read and so calls), on both engines, for random playouts, greedy playouts (their
tie-breaks) and whole hands (``simulate``).
"""

from __future__ import annotations

import random
import sysconfig
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.engines
from gongzhu.bots.playout import card_values
from gongzhu.bulk import RandomHands
from gongzhu.play import Capability

pytestmark = [
    pytest.mark.one_engine,
    pytest.mark.skipif(not gongzhu.engines.ACCELERATED, reason="the C engines are not built"),
]

RULESETS = {"39baobao": (), "two-deck": ("two-deck",), "huapai": ("huapai",)}


def speedups() -> Any:
    return gongzhu.engines._speedups


@pytest.mark.skipif(
    bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    reason="a free-threaded build calls random() for every draw (draws.c)",
)
def test_the_generator_is_drawn_in_c() -> None:
    """On CPython the layout check passes when the module loads: without it, every test
    below would compare Python's draws with themselves."""
    assert speedups().draws_in_c() is True


def started(variants: tuple[str, ...], seed: int) -> tuple[gongzhu.Rules, Any]:
    rules = gongzhu.load_rules(*variants)
    engine, _ = RandomHands(rules).start(seed)
    return rules, engine


def through_python(rng: random.Random) -> Callable[[], float]:
    """``rng``'s draws by a Python call each: a callable the C side does not recognise."""
    return lambda: rng.random()


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), draw_seed=st.integers(0, 2**32 - 1))
def test_a_random_playout_draws_as_random_would(name: str, seed: int, draw_seed: int) -> None:
    _, in_c = started(RULESETS[name], seed)
    _, by_calls = started(RULESETS[name], seed)
    mine, theirs = random.Random(draw_seed), random.Random(draw_seed)
    in_c.random_playout(mine.random)
    by_calls.random_playout(through_python(theirs))
    assert in_c.taken == by_calls.taken
    assert in_c.trick_log == by_calls.trick_log
    assert in_c.show_log == by_calls.show_log
    assert (
        mine.getstate() == theirs.getstate()
    )  # the object's own state moved, as random() moves it


def test_c_and_python_take_turns_on_one_generator() -> None:
    """Draws made in C move the object's state: Python's next draw follows them."""
    rng, twin = random.Random(5), random.Random(5)
    for seed in range(40):  # past several refills of the 624-word state
        _, engine = started((), seed)
        _, other = started((), seed)
        engine.random_playout(rng.random)
        other.random_playout(through_python(twin))
        assert rng.random() == twin.random()
        assert engine.taken == other.taken
    assert rng.getstate() == twin.getstate()


def test_a_state_set_from_python_is_the_state_drawn_from() -> None:
    rng = random.Random(1)
    saved = rng.getstate()
    _, first = started((), 3)
    first.random_playout(rng.random)
    rng.setstate(saved)
    _, again = started((), 3)
    again.random_playout(rng.random)
    assert first.trick_log == again.trick_log


def test_a_subclass_that_overrides_random_is_called() -> None:
    class Loaded(random.Random):
        calls = 0

        def random(self) -> float:
            Loaded.calls += 1
            return 0.0

    calls = []
    _, first_legal = started((), 9)

    def first() -> float:
        calls.append(1)
        return 0.0

    first_legal.random_playout(first)
    _, engine = started((), 9)
    engine.random_playout(Loaded(1).random)
    assert Loaded.calls == len(calls) >= 52  # a call a decision: the override, not the state
    assert engine.trick_log == first_legal.trick_log


def test_a_plain_subclass_is_drawn_in_c_and_still_moves() -> None:
    class Plain(random.Random):
        pass

    rng, twin = Plain(11), random.Random(11)
    _, engine = started((), 2)
    _, other = started((), 2)
    engine.random_playout(rng.random)
    other.random_playout(through_python(twin))
    assert engine.taken == other.taken and rng.getstate() == twin.getstate()


def at_play(rules: gongzhu.Rules, seed: int) -> gongzhu.HandState:
    """The hand dealt from ``seed``, every seat showing nothing, at its first play."""
    hand = rules.new_hand(seed)
    while hand.phase is not gongzhu.Phase.PLAY:
        hand.apply(min(hand.legal_actions(), key=lambda show: len(show.cards)))
    return hand


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), draw_seed=st.integers(0, 2**32 - 1))
def test_the_greedy_playouts_tie_breaks_draw_as_random_would(seed: int, draw_seed: int) -> None:
    rules = gongzhu.load_rules()
    assert rules.engine_spec.offers(Capability.GREEDY_PLAYOUT)
    in_c, by_calls = at_play(rules, seed), at_play(rules, seed)
    values = card_values(rules)
    mine, theirs = random.Random(draw_seed), random.Random(draw_seed)
    assert in_c.greedy_play_out(values, mine.random)
    assert by_calls.greedy_play_out(values, through_python(theirs))
    assert in_c.history == by_calls.history
    assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("name", RULESETS)
def test_whole_hands_in_c_draw_as_random_would(name: str) -> None:
    """``RandomHands.outcomes`` (what ``simulate`` runs) with the generator's own methods
    and with Python callables over an equal generator: the same outcomes, the same state."""
    rules = gongzhu.load_rules(*RULESETS[name])
    mine, theirs = random.Random(8), random.Random(8)
    fast = list(RandomHands(rules).outcomes(300, lambda: mine.getrandbits(63), mine.random))
    slow = list(
        RandomHands(rules).outcomes(300, lambda: theirs.getrandbits(63), through_python(theirs))
    )
    assert fast == slow
    assert mine.getstate() == theirs.getstate()


def test_a_bad_random_is_still_refused() -> None:
    _, engine = started((), 4)
    before = engine.holdings
    with pytest.raises(ValueError, match=r"random\(\) must return a float"):
        engine.random_playout(lambda: 1.5)
    with pytest.raises(ValueError, match=r"random\(\) must return a float"):
        engine.random_playout(lambda: 1)  # an int is no float
    assert engine.holdings == before

"""Issue 12: hand states pickle, deep-copy and copy on every engine, independently."""

from __future__ import annotations

import copy
import json
import pickle
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu.errors import GongzhuError
from gongzhu.hand import HandState
from gongzhu.rules import Rules, load_rules

from . import plugins
from .conftest import engine_state

pytestmark = pytest.mark.one_engine  # each test runs every engine of its ruleset itself

RULESETS = (
    (),
    ("huapai", "anmai"),  # 首明, secret sales, the strict lock
    ("same-colour-discard",),  # penalties
    ("biming", "shuangzhu"),
    ("two-deck",),
    ("two-deck", "anmai"),
)


def observed(hand: HandState) -> dict[str, Any]:
    """Everything a caller can read of a hand."""
    seen: dict[str, Any] = {
        "record": hand.to_record(),
        "legal": hand.legal_actions(),
        "history": hand.history,
        "phase": hand.phase,
        "seat": hand.to_move,
        "engine": hand.engine_spec.name,
        "views": [hand.view(seat) for seat in range(4)],
        "holdings": [hand.holding(seat) for seat in range(4)],
        "captured": [hand.taken(seat) for seat in range(4)],
        "shows": hand.shows,
        "trick_log": hand.trick_log,
    }
    if hand.is_over:
        seen["returns"] = hand.returns()
        seen["sheet"] = hand.score()
        seen["facts"] = hand.facts()
    return seen


def advance(hand: HandState, steps: int, rng: random.Random) -> None:
    """Apply up to ``steps`` random legal actions."""
    for _ in range(steps):
        if hand.is_over:
            return
        hand.apply(rng.choice(hand.legal_actions()))


def engines_of(names: tuple[str, ...]) -> list[str]:
    return [spec.name for spec in load_rules(*names).engines]


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(RULESETS),
    st.integers(0, 2**64),
    st.integers(0, 70),
    st.integers(0, 2**32),
    st.integers(0, 4),
)
def test_pickled_states_equal_the_original_on_every_engine(
    names: tuple[str, ...], seed: int, steps: int, choices: int, protocol: int
) -> None:
    rules = load_rules(*names)
    for engine in engines_of(names):
        hand = rules.new_hand(seed, engine=engine)
        advance(hand, steps, random.Random(choices))
        back = pickle.loads(pickle.dumps(hand, protocol=protocol + 1))
        assert back.rules is rules and back.engine_spec.name == engine
        assert type(back.engine) is type(hand.engine)
        assert engine_state(back.engine) == engine_state(hand.engine)
        assert observed(back) == observed(hand)
        # the two go on alike, and independently
        advance(hand, 200, random.Random(choices + 1))
        assert back.history != hand.history or hand.is_over
        advance(back, 200, random.Random(choices + 1))
        assert observed(back) == observed(hand)


@pytest.mark.parametrize("names", RULESETS)
def test_copies_are_clones(names: tuple[str, ...]) -> None:
    rules = load_rules(*names)
    for engine in engines_of(names):
        hand = rules.new_hand(11, engine=engine)
        advance(hand, 9, random.Random(3))
        before = observed(hand)
        for made in (copy.copy(hand), copy.deepcopy(hand), hand.clone()):
            assert made is not hand and made.rules is rules
            assert observed(made) == before
            advance(made, 200, random.Random(4))
            assert made.is_over
            assert observed(hand) == before  # the original did not move
        advance(hand, 200, random.Random(4))
        assert observed(copy.deepcopy(hand)) == observed(hand)


def test_copies_do_not_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """copy.copy and copy.deepcopy are clone(): a fast copy, not a pickle round trip."""

    def refuse(*args: object) -> None:
        raise AssertionError("copied by replaying the hand")

    monkeypatch.setattr(gongzhu.hand, "_rebuild_hand", refuse)
    hand = load_rules("two-deck").new_hand(4)
    advance(hand, 30, random.Random(4))
    assert observed(copy.copy(hand)) == observed(hand)
    assert observed(copy.deepcopy(hand)) == observed(hand)


def test_deepcopy_of_a_container_keeps_sharing() -> None:
    hand = load_rules().new_hand(1)
    advance(hand, 5, random.Random(0))
    pair = copy.deepcopy([hand, hand])
    assert pair[0] is pair[1] and pair[0] is not hand
    assert observed(pair[0]) == observed(hand)


def test_a_pickled_hand_of_a_match_and_its_leader() -> None:
    rules = load_rules()  # 39baobao: the first pig-taker leads the next hand
    match = rules.new_match(seed=3, hands=3)
    first = match.new_hand()
    advance(first, 500, random.Random(1))
    match.record_hand(first)
    second = match.new_hand()
    advance(second, 17, random.Random(2))
    assert second.explicit_leader is not None
    back = pickle.loads(pickle.dumps(second))
    assert back.explicit_leader == second.explicit_leader
    assert observed(back) == observed(second)


def test_rulesets_pickle_as_their_spec() -> None:
    rules = load_rules("huapai", "anmai", shown_lock_stuck="hand")
    assert pickle.loads(pickle.dumps(rules)) is rules
    assert copy.copy(rules) is rules and copy.deepcopy(rules) is rules
    # built from the installed plug-in objects: rebuilt by name
    again = Rules.from_plugins(("anmai", rules.plugin("anmai")))
    assert pickle.loads(pickle.dumps(again)) is load_rules("anmai")


def test_rulesets_of_plugin_objects_cannot_be_pickled() -> None:
    rules = Rules.from_plugins(plugins.Picky(), picky_level=2)
    hand = rules.new_hand(1)
    message = r"cannot pickle load_rules\('39baobao', 'picky', picky_level=2\): it was built"
    with pytest.raises(GongzhuError, match=message):
        pickle.dumps(hand)
    with pytest.raises(GongzhuError, match=message):
        pickle.dumps(rules)
    assert observed(copy.deepcopy(hand)) == observed(hand)  # copies need no pickling


def test_a_hand_pickled_in_one_process_is_read_in_another(tmp_path: Any) -> None:
    hand = load_rules("two-deck").new_hand(8)
    advance(hand, 40, random.Random(8))
    path = tmp_path / "hand.pickle"
    path.write_bytes(pickle.dumps(hand))
    code = (
        "import json, pickle, sys; "
        "hand = pickle.loads(open(sys.argv[1], 'rb').read()); "
        "print(json.dumps([hand.to_record(), [str(a) for a in hand.legal_actions()]]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    record, legal = json.loads(out)
    assert record == json.loads(json.dumps(hand.to_record()))
    assert legal == [str(a) for a in hand.legal_actions()]


def test_gongzhu_hand_state_is_importable_for_unpickling() -> None:
    hand = load_rules().new_hand(2)
    data = pickle.dumps(hand)
    assert b"_rebuild_hand" in data and b"gongzhu.hand" in data
    assert isinstance(pickle.loads(data), gongzhu.HandState)


@pytest.mark.parametrize(
    "error",
    [
        gongzhu.errors.InvalidRecord("stored totals differ", hand=None),
        gongzhu.errors.InvalidRecord("illegal action", hand=2, index=17),
        gongzhu.errors.PluginLoadError("broken", "brokengz 1.0", ImportError("no module")),
        gongzhu.errors.UnknownVariant("nope", ["39baobao", "huapai"]),
    ],
    ids=repr,
)
def test_errors_pickle_whole(error: gongzhu.errors.GongzhuError) -> None:
    """A worker process's error reaches the parent as it was raised (multiprocessing pickles it)."""
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error)
    for name in ("reason", "hand", "index", "name", "origin", "available"):
        assert getattr(copy, name, None) == getattr(error, name, None), name

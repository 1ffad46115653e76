"""Issue 14: the names that said "hand" for a seat's cards still work, with a DeprecationWarning.

Each old name warns, naming the new one, blames the caller's line, and
returns what the new name returns.
"""

from __future__ import annotations

import importlib
import random
import re
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import gongzhu
import gongzhu.bots
from gongzhu import Deal, HandState


@pytest.fixture
def midhand() -> HandState:
    hand = gongzhu.load_rules().new_hand(seed=7)
    rng = random.Random(7)
    for _ in range(10):
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def deprecated(call: Callable[[], Any], new_name: str) -> Any:
    """``call()``, checking that it warns once, naming ``new_name``, from this file."""
    new_name = re.escape(new_name)
    with pytest.warns(DeprecationWarning, match=rf"is deprecated; .*use {new_name}$") as caught:
        value = call()
    assert len(caught) == 1
    assert caught[0].filename == __file__  # stacklevel: the caller is blamed
    return value


def test_hand_state_hand(midhand: HandState) -> None:
    for seat in range(4):
        old = deprecated(lambda: midhand.hand(seat), "HandState.holding")  # noqa: B023
        assert old == midhand.holding(seat)


def test_seat_view_hand(midhand: HandState) -> None:
    view = midhand.view(1)
    assert deprecated(lambda: view.hand, "SeatView.holding") == view.holding


def test_seat_view_hand_sizes(midhand: HandState) -> None:
    view = midhand.view(2)
    assert deprecated(lambda: view.hand_sizes, "SeatView.holding_sizes") == view.holding_sizes


def test_deal_hand() -> None:
    deal = Deal.shuffled(3, first_seat=2)
    for seat in range(4):
        assert deprecated(lambda: deal.hand(seat), "Deal.holding") == deal.holding(seat)  # noqa: B023


def test_deal_hands() -> None:
    deal = Deal.shuffled(4, copies=2)
    assert deprecated(lambda: deal.hands, "Deal.holdings") == deal.holdings


def test_deal_from_hands() -> None:
    holdings = Deal.shuffled(5).holdings
    old = deprecated(lambda: Deal.from_hands(holdings, 1), "Deal.from_holdings")
    assert old == Deal.from_holdings(holdings, 1)
    assert old.holding(1) == holdings[1]


def test_play_situation_hand() -> None:
    from gongzhu.masks import ALL_CARDS
    from gongzhu.play import PlaySituation

    # (seat, holding, trick_keys, played, unled, candidates)
    situation = PlaySituation(0, 0b1011, (), 0, ALL_CARDS, 0b11)
    assert situation.holding == 0b1011 and situation._fields[1] == "holding"
    assert deprecated(lambda: situation.hand, "PlaySituation.holding") == 0b1011


# -- the engine modules' old names (engines play whole hands now: gongzhu.engines) ---------------

ENGINE_NAMES = [
    ("gongzhu.engine", name, "gongzhu.masks")
    for name in (
        "add_copy",
        "remove_copy",
        "copies_in",
        "subtract_copies",
        "cards_of_mask",
        "plays_of_mask",
    )
] + [
    ("gongzhu.engine", "ILLEGAL", "gongzhu.play"),
    ("gongzhu.engine", "OVER", "gongzhu.play"),
    ("gongzhu.engine_pairs", "cards_of_key", "gongzhu.engines.pairs"),
    ("gongzhu.engine_pairs", "pair_key", "gongzhu.engines.pairs"),
    ("gongzhu.engine_pairs", "two_key", "gongzhu.engines.pairs"),
    *(("gongzhu.scorer", name, "gongzhu.scoring") for name in ("HandFacts", "Outcome", "Scorer")),
    *(
        ("gongzhu.score_input", name, "gongzhu.scoring")
        for name in (
            "CardsBySeat",
            "ShownCopiesBySeat",
            "attribute_shown_copies",
            "cards_by_seat",
            "score_cards",
        )
    ),
    ("gongzhu.hand", "ACCELERATED", "gongzhu.engines"),
]
"""Every public name of the old ``gongzhu.engine``, ``gongzhu.engine_pairs``,
``gongzhu.scorer`` and ``gongzhu.score_input`` (and ``gongzhu.hand.ACCELERATED``) with a home
now: (old module, name, new module)."""


@pytest.mark.parametrize(("old", "name", "home"), ENGINE_NAMES)
def test_engine_module_names(old: str, name: str, home: str) -> None:
    module = importlib.import_module(old)
    new = getattr(importlib.import_module(home), name)
    assert deprecated(lambda: getattr(module, name), f"{home}.{name}") is new
    namespace: dict[str, Any] = {}
    code = compile(f"from {old} import {name} as value", __file__, "exec")
    assert deprecated(lambda: exec(code, namespace), f"{home}.{name}") is None
    assert namespace["value"] is new


def test_engine_module_names_still_work() -> None:
    from gongzhu.cards import Card

    engine = importlib.import_module("gongzhu.engine")
    engine_pairs = importlib.import_module("gongzhu.engine_pairs")
    queen = Card.parse("QS").index
    with pytest.warns(DeprecationWarning):
        mask = engine.add_copy(engine.add_copy(0, queen), queen)
        assert engine.copies_in(mask, queen) == 2
        assert engine_pairs.cards_of_key(engine_pairs.pair_key(queen)) == (queen, queen)
        assert engine.ILLEGAL == -2 and engine.OVER == -1


@pytest.mark.parametrize(
    ("old", "name"), [("gongzhu.engine", "PlayCore"), ("gongzhu.engine_pairs", "PairsCore")]
)
def test_the_old_engines_have_no_alias(old: str, name: str) -> None:
    """PlayCore and PairsCore played only the tricks; their replacements play whole hands and
    are made differently, so an alias would mislead: the name is gone."""
    module = importlib.import_module(old)
    with pytest.raises(AttributeError, match=rf"module '{old}' has no attribute '{name}'"):
        getattr(module, name)
    with pytest.raises(ImportError, match=name):
        exec(f"from {old} import {name}", {})


def test_play_engine() -> None:
    import gongzhu.play

    old = deprecated(lambda: gongzhu.play.PlayEngine, "gongzhu.play.HandEngine")
    assert old is gongzhu.play.HandEngine
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchEngine'"):
        gongzhu.play.NoSuchEngine  # noqa: B018


@pytest.mark.parametrize("name", ["PLAY_RULES", "feed_partner", "quick_show"])
def test_the_rules_of_thumb_moved_to_the_rulebook(name: str) -> None:
    import gongzhu.bots.heuristic
    import gongzhu.bots.rulebook

    old = deprecated(lambda: getattr(gongzhu.bots.heuristic, name), f"gongzhu.bots.rulebook.{name}")
    assert old is getattr(gongzhu.bots.rulebook, name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_rule'"):
        gongzhu.bots.heuristic.no_such_rule  # noqa: B018


def test_a_star_import_of_the_heuristic_module_brings_no_rule_of_thumb() -> None:
    namespace: dict[str, object] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and warns of nothing
        exec("from gongzhu.bots.heuristic import *", namespace)
    assert {"HeuristicBot", "points_at_stake", "CHECK_SAMPLES"} <= namespace.keys()
    assert "feed_partner" not in namespace and "PLAY_RULES" not in namespace  # docs/api.rst

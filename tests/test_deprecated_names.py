"""Issue 14: the names that said "hand" for a seat's cards still work, with a DeprecationWarning.

Each old name warns, naming the new one, blames the caller's line, and
returns what the new name returns.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import gongzhu
import gongzhu.bots
from gongzhu import Deal, HandState
from gongzhu.bots import sampler


@pytest.fixture
def midhand() -> HandState:
    hand = gongzhu.load_rules().new_hand(seed=7)
    rng = random.Random(7)
    for _ in range(10):
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def deprecated(call: Callable[[], Any], new_name: str) -> Any:
    """``call()``, checking that it warns once, naming ``new_name``, from this file."""
    with pytest.warns(DeprecationWarning, match=rf"is deprecated; use {new_name}$") as caught:
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


def test_sample_hands(midhand: HandState) -> None:
    assert gongzhu.bots.sample_hands is sampler.sample_hands  # still importable from both
    view = midhand.view(midhand.to_move or 0)
    rules = midhand.rules
    old = deprecated(
        lambda: sampler.sample_hands(view, random.Random(1), rules=rules), "sample_holdings"
    )
    assert old == sampler.sample_holdings(view, random.Random(1), rules=rules)


def test_play_situation_hand() -> None:
    from gongzhu.play import PlaySituation

    situation = PlaySituation(0, 0b1011, (), 0, frozenset(), 0b11)
    assert deprecated(lambda: situation.hand, "PlaySituation.holding") == 0b1011


def test_heuristic_situation_hand(midhand: HandState) -> None:
    from gongzhu.bots.heuristic import Situation

    situation = Situation(midhand.view(3), midhand.rules)
    assert deprecated(lambda: situation.hand, "Situation.holding") == situation.holding

"""The deprecated aliases still standing: two, in modules being rewritten (issue 38).

Every other alias went before the first release (nothing was released under the old
names; see CHANGELOG.md).  These two go with the rewrite of their modules, and this file
with them.  Each old name warns, naming the new one, blames the caller's line, and
returns what the new name returns.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

import gongzhu
from gongzhu import HandState
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
    new_name = re.escape(new_name)
    with pytest.warns(DeprecationWarning, match=rf"is deprecated; .*use {new_name}$") as caught:
        value = call()
    assert len(caught) == 1
    assert caught[0].filename == __file__  # stacklevel: the caller is blamed
    return value


def test_sample_hands(midhand: HandState) -> None:
    view = midhand.view(midhand.to_move or 0)
    rules = midhand.rules
    old = deprecated(
        lambda: sampler.sample_hands(view, random.Random(1), rules=rules), "sample_holdings"
    )
    assert old == sampler.sample_holdings(view, random.Random(1), rules=rules)


def test_rulebook_situation_hand(midhand: HandState) -> None:
    from gongzhu.bots.rulebook import Situation

    situation = Situation(midhand.view(3), midhand.rules)
    assert deprecated(lambda: situation.hand, "Situation.holding") == situation.holding

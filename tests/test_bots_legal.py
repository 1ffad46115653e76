"""Property: every shipped bot only ever chooses legal actions, in every ruleset."""

from __future__ import annotations

import random

import pytest

import gongzhu
from gongzhu.bots import SearchBot, make_bot

COMBINATIONS = [
    ("39baobao",),
    ("huapai",),
    ("39baobao", "anmai"),
    ("huapai", "anmai"),
    ("two-deck",),
    ("two-deck", "anmai"),
    ("huapai", "two-deck"),
    ("39baobao", "same-colour-discard"),
    ("huapai", "same-colour-discard"),
    ("fenpai-quanming",),
    ("chuyang-quanming",),
    ("39baobao", "anmai", "same-colour-discard"),
    ("biming",),
    ("shuangzhu",),
    ("hearts-pips",),
    ("hearts-positive",),
    ("heart-three",),
    ("huapai", "heart-three", "anmai"),
]


def loadable(names: tuple[str, ...]) -> gongzhu.Rules | None:
    try:
        return gongzhu.load_rules(*names)
    except gongzhu.errors.IncompatibleVariants:
        return None


@pytest.mark.parametrize("names", COMBINATIONS, ids=lambda n: "+".join(n))
def test_bots_choose_only_legal_actions(names: tuple[str, ...]) -> None:
    rules = loadable(names)
    if rules is None:
        pytest.skip(f"{'+'.join(names)} is not a ruleset")
    hands = 4 if rules.table.copies == 2 else 9  # two-deck hands cost more
    for seed in range(hands):
        rng = random.Random(seed)
        kinds = [rng.choice(["random", "first", "rules", "heuristic"]) for _ in range(4)]
        bots = [
            make_bot(kind, seed=seed * 4 + seat, rules=rules) for seat, kind in enumerate(kinds)
        ]
        if seed % 4 == 0:  # a cheap search bot at one seat: one sampled deal a decision
            bots[seed % 3] = SearchBot(seed, rules=rules, budget_ms=None, samples=1)
        hand = rules.new_hand(seed=seed)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            view = hand.view(seat)
            action = bots[seat].choose(view)
            assert action in view.legal_actions, (names, seed, seat, action)
            assert action in hand.legal_actions()
            hand.apply(action)

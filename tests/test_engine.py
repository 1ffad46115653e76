"""The pure-Python single-deck engine's own helpers and edge cases (gongzhu.engine).

The engines' agreement over whole hands is tested elsewhere (test_speedups_c,
test_conformance); these pin down what the per-play path takes for granted: the
memoised plays of a card mask, and play() on keys that are no card.
"""

from __future__ import annotations

import random

import pytest

import gongzhu
from gongzhu.actions import SINGLE_PLAYS, Play
from gongzhu.engine import (
    SUIT_MASKS,
    PlayCore,
    _per_suit,
    _suit_cards,
    _suit_plays,
    cards_of_mask,
    plays_of_mask,
)
from gongzhu.play import ILLEGAL
from gongzhu.view import Phase

FULL = (1 << 52) - 1


def naive_plays(mask: int) -> tuple[Play, ...]:
    return tuple(SINGLE_PLAYS[i] for i in range(52) if mask >> i & 1)


def some_masks(seed: int) -> list[int]:
    rng = random.Random(seed)
    masks = [0, FULL, *SUIT_MASKS, SUIT_MASKS[0] | SUIT_MASKS[3], 1, 1 << 51, 1 << 13 | 1 << 12]
    for _ in range(300):
        masks.append(rng.getrandbits(52))
        masks.append(rng.getrandbits(13) << 13 * rng.randrange(4))  # one suit's cards
        suits = rng.sample(range(4), rng.randrange(1, 5))
        masks.append(sum(rng.getrandbits(13) << 13 * s for s in suits))
    return masks


@pytest.mark.parametrize("order", ["as-drawn", "one-suit-first", "several-suits-first"])
def test_plays_of_mask_are_the_cards_in_order_however_the_memo_was_filled(order: str) -> None:
    masks = some_masks(1)
    one_suit = [m for m in masks if sum(1 for s in SUIT_MASKS if m & s) == 1]
    several = [m for m in masks if m not in one_suit]
    if order == "one-suit-first":
        masks = one_suit + several
    elif order == "several-suits-first":
        masks = several + one_suit
    of_mask, of_one_suit = _per_suit(_suit_plays)  # a fresh memo
    for mask in masks * 2:  # the second round reads what the first one kept
        assert of_mask(mask) == naive_plays(mask), hex(mask)
        kept = of_one_suit(mask)
        assert kept is None or kept == naive_plays(mask)
    assert all(of_one_suit(m) is None for m in several)  # only one suit's cards are kept
    for mask in masks:
        assert plays_of_mask(mask) == naive_plays(mask)  # the module's own memo


def test_cards_of_mask_one_and_two_copies() -> None:
    cards_of, _ = _per_suit(_suit_cards)
    for mask in some_masks(2):
        expected = tuple(play.cards[0] for play in naive_plays(mask))
        assert cards_of(mask) == expected == cards_of_mask(mask)
        second = mask & random.Random(mask).getrandbits(52)
        doubled = cards_of_mask(mask | second << 52)
        assert doubled == tuple(c for c in expected for _ in range(1 + (second >> c.index & 1)))


def started_core() -> PlayCore:
    rules = gongzhu.load_rules()
    state = rules.new_hand(3, engine="single-python")
    while state.phase is not Phase.PLAY:
        state.apply(state.legal_actions()[0])
    core = state._core
    assert isinstance(core, PlayCore)
    return core.copy([], [])


def snapshot(core: PlayCore) -> tuple[object, ...]:
    return (list(core.hands), list(core.trick), core.seat, core.played, list(core.taken))


@pytest.mark.parametrize("asked", [False, True])
@pytest.mark.parametrize("key", [-1, -(2**31), 52, 63, 2**31, 2**62, 2**70, -(2**70)])
def test_keys_that_are_no_card_are_illegal_and_change_nothing(asked: bool, key: int) -> None:
    core = started_core()
    if asked:
        core.legal()  # play() then checks against the legal mask legal() found
    before = snapshot(core)
    assert core.play(key) == ILLEGAL
    assert snapshot(core) == before


@pytest.mark.parametrize("key", [1.0, "1", None, b"\x01", [1]])
def test_keys_that_are_no_int_are_a_type_error(key: object) -> None:
    core = started_core()
    before = snapshot(core)
    with pytest.raises(TypeError):
        core.play(key)  # type: ignore[arg-type]
    assert snapshot(core) == before


def test_each_legal_card_plays_and_each_other_is_refused() -> None:
    for seed in range(30):
        core = started_core()
        rng = random.Random(seed)
        while core.seat >= 0:
            legal = core.legal_mask()
            hand = core.hands[core.seat]
            for key in range(52):
                if not legal >> key & 1:
                    before = snapshot(core)
                    assert core.play(key) == ILLEGAL
                    assert snapshot(core) == before
                    refusal = core.refusal(SINGLE_PLAYS[key])
                    assert refusal is not None
                    assert (refusal.rule == "holding") is (not hand >> key & 1)
            keys = [p.key for p in core.legal()]
            assert keys == [k for k in range(52) if legal >> k & 1]
            seat, key = core.seat, rng.choice(keys)
            assert core.refusal(SINGLE_PLAYS[key]) is None
            core.play(key)
            assert not core.hands[seat] >> key & 1 and core.played >> key & 1

"""The engines' own helpers and edge cases: what the per-play path takes for granted.

The memoised plays and cards of a card mask (:mod:`gongzhu.masks`), the draw every
engine makes a decision with (:func:`gongzhu.engines.base.draw`), ``play()`` on keys
that are no card or no int, and the refusal of every card a seat may not play, explained
by the rule that refuses it (:func:`gongzhu.play.explain_refusal`), on every engine.
The C engines' agreement with these references, hand for hand, is tested in
test_engines_twins.py.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

import gongzhu
from gongzhu.actions import SINGLE_PLAYS, Play
from gongzhu.engines.base import draw
from gongzhu.masks import (
    SUIT_MASKS,
    _per_suit,
    _suit_cards,
    _suit_plays,
    cards_of_mask,
    one_suit_plays,
    plays_of_mask,
)
from gongzhu.play import ILLEGAL, RULE_CODES, Refusal, explain_refusal
from gongzhu.rules import Rules

from . import plugins

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
        assert one_suit_plays(mask) in (None, naive_plays(mask))
        assert all(a is b for a, b in zip(plays_of_mask(mask), naive_plays(mask), strict=True))


def test_cards_of_mask_one_and_two_copies() -> None:
    cards_of, _ = _per_suit(_suit_cards)
    for mask in some_masks(2):
        expected = tuple(play.cards[0] for play in naive_plays(mask))
        assert cards_of(mask) == expected == cards_of_mask(mask)
        second = mask & random.Random(mask).getrandbits(52)
        doubled = cards_of_mask(mask | second << 52)
        assert doubled == tuple(c for c in expected for _ in range(1 + (second >> c.index & 1)))


# -- the draw -------------------------------------------------------------------------------


def test_a_draw_is_int_r_times_n() -> None:
    for n in (1, 2, 3, 13, 52, 1378):
        for r in (0.0, 0.5, 0.999, math.nextafter(1.0, 0.0), 5e-324, -0.0):
            assert draw(itertools.repeat(r).__next__, n) == int(r * n) < n


@pytest.mark.parametrize(
    "value", [1.0, -0.5, 1.5, math.nan, math.inf, -math.inf, 0, 1, True, "0.5", None]
)
def test_a_draw_refuses_anything_but_a_float_in_0_1(value: object) -> None:
    with pytest.raises(ValueError, match=r"random\(\) must return a float in \[0, 1\)"):
        draw(lambda: value, 5)  # type: ignore[arg-type, return-value]


def test_a_draw_among_nothing_is_refused_before_drawing() -> None:
    with pytest.raises(ValueError, match="holds no card"):
        draw(lambda: 1 / 0, 0)


# -- play() and refusal() on every engine ------------------------------------------------------

RULESETS = {
    "39baobao": gongzhu.load_rules(),
    "huapai+same-colour-strict": gongzhu.load_rules(
        "huapai", "same-colour-discard", same_colour_strict=True
    ),
    "lock-discards-hand": Rules.from_plugins(plugins.LockDiscards("hand")),
    "two-deck": gongzhu.load_rules("two-deck"),
}
CASES = [
    pytest.param(name, spec.name, id=f"{name}-{spec.name}")  # ("engine" is a fixture)
    for name, rules in RULESETS.items()
    for spec in rules.engines
]


def started(name: str, engine: str, seed: int = 3, shows: int = 0) -> Any:
    """The engine of hand ``seed`` in its play phase (each seat showing choice ``shows``,
    or nothing where it has fewer)."""
    hand = RULESETS[name].new_hand(seed, engine=engine)
    while hand.phase is not gongzhu.Phase.PLAY:
        legal = hand.legal_actions()
        hand.apply(legal[min(shows, len(legal) - 1)])
    return hand.engine.copy()


def snapshot(engine: Any) -> tuple[object, ...]:
    return (
        tuple(engine.holdings),
        tuple(engine.trick),
        engine.seat,
        tuple(engine.taken),
        engine.trick_count,
    )


@pytest.mark.parametrize(("name", "engine_name"), CASES)
@pytest.mark.parametrize("asked", [False, True])
@pytest.mark.parametrize(
    "key",
    [
        -1,
        -(2**31),
        2**31,
        2**62,
        2**64,
        2**70,
        -(2**70),
        52 + 52 * 52,
        52 + 52 * 5 + 4,
        1.0,
        "1",
        None,
        b"\x01",
        [1],
        True,
    ],
)
def test_keys_that_are_no_play_are_illegal_and_change_nothing(
    name: str, engine_name: str, asked: bool, key: object
) -> None:
    core = started(name, engine_name)
    if asked:
        core.legal()  # play() then checks against what legal() found
    before = snapshot(core)
    assert core.play(key) == ILLEGAL
    assert snapshot(core) == before
    assert core.refusal(key) == (RULE_CODES["play-shape"], 0 if "single" in engine_name else 4)


@pytest.mark.parametrize(("name", "engine_name"), CASES)
def test_each_legal_play_plays_and_each_other_is_refused_by_its_rule(
    name: str, engine_name: str
) -> None:
    """At every step: every play key is refused exactly when it is not legal, as
    ``holding`` exactly when the seat lacks its cards, and the refusal reads as a
    Refusal of a rule the ruleset has; a refused key changes nothing."""
    rules = RULESETS[name]
    config = rules.play_config
    two = rules.table.copies == 2
    codes: set[int] = set()
    for seed in range(2 if two else 8):
        core = started(name, engine_name, seed, shows=seed % 3)
        rng = random.Random(seed)
        while core.seat >= 0:
            legal = core.legal()
            keys = [play.key for play in legal]
            assert keys == sorted(set(keys)) and legal
            mask = core.legal_mask()
            assert mask == sum({1 << i for play in legal for i in (c.index for c in play.cards)})
            hand = core.holdings[core.seat]
            sample = [*range(52), *(52 + 53 * i for i in range(52))]
            if two:  # (every key at some steps: test_engines_twins)
                sample += rng.sample(range(52, 52 + 52 * 52), 120) + [k for k in keys if k > 52]
            for key in sample:
                found = core.refusal(key)
                if key >= 52 and not two:  # one card a play
                    assert found == (RULE_CODES["play-shape"], 0)
                    continue
                if key >= 52 and (key - 52) // 52 > (key - 52) % 52:  # no key: the low card first
                    assert found == (RULE_CODES["play-shape"], 4)
                    continue
                if key in keys:
                    assert found is None
                    continue
                assert found is not None
                code, detail = found
                codes.add(code)
                play = gongzhu.actions.play_of_key(key)
                lacks = any(
                    play.cards.count(c) > (hand >> c.index & 1) + (hand >> (52 + c.index) & 1)
                    for c in play.cards
                )
                assert (code == RULE_CODES["holding"]) is lacks, (key, found)
                refusal = explain_refusal(config, code, detail, core.seat, play.cards)
                assert isinstance(refusal, Refusal) and refusal.message
                if key < 52 or rng.random() < 0.02:
                    before = snapshot(core)
                    assert core.play(key) == ILLEGAL
                    assert snapshot(core) == before
            seat, key = core.seat, rng.choice(keys)
            assert core.play(key) in (-1, 0, 1, 2, 3)
            assert core.holdings[seat] != hand
    expected = {"holding", "follow-suit"}
    if name in ("39baobao", "lock-discards-hand"):  # (huapai's ♠3 holder leads any card)
        expected.add("opening-lead")
    if name == "huapai+same-colour-strict":
        expected |= {"discard-rule", "shown-card-lock"}
    if name == "two-deck":
        expected |= {"play-shape", "pair-follow"}
    assert codes >= {RULE_CODES[rule] for rule in expected}


def test_every_engine_has_the_contract() -> None:
    names = [
        *("phase", "seat", "holdings", "taken", "trick", "trick_leader", "trick_count"),
        *("trick_log", "show_log", "legal", "show", "play", "refusal", "copy"),
        *("random_playout", "shown_taken", "legal_mask"),
    ]
    for rules in (RULESETS["39baobao"], RULESETS["two-deck"]):
        for spec in rules.engines:
            engine = started("39baobao" if rules.table.copies == 1 else "two-deck", spec.name)
            for name in names:
                assert hasattr(engine, name), (spec.name, name)
            for capability in spec.capabilities:
                assert callable(getattr(engine, capability.method))

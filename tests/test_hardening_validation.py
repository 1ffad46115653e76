"""Issue 12: bad input ends in a precise GongzhuError, never a wrong answer or a TypeError."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gongzhu
from gongzhu import Card, Play, load_rules, parse_cards
from gongzhu.actions import SINGLE_PLAYS, play_of_key
from gongzhu.errors import GongzhuError, InvalidCard, InvalidScoreInput

from .conftest import BOTH_ENGINES

pytestmark = BOTH_ENGINES  # hands are played: on both play engines


@pytest.fixture
def midhand() -> gongzhu.HandState:
    hand = load_rules().new_hand(7)
    rng = random.Random(7)
    for _ in range(10):
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


@pytest.mark.parametrize("method", ["holding", "dealt", "taken"])
@pytest.mark.parametrize("seat", [-1, 4, 9, -4, "x", None, True, 1.0])
def test_seats_are_checked(midhand: gongzhu.HandState, method: str, seat: Any) -> None:
    before = midhand.to_record()
    with pytest.raises(GongzhuError) as caught:
        getattr(midhand, method)(seat)
    assert str(caught.value) == f"seat must be 0-3, not {seat!r}"
    assert not isinstance(caught.value, IndexError)
    assert midhand.to_record() == before


def test_seats_0_to_3_still_answer(midhand: gongzhu.HandState) -> None:
    assert sum(len(midhand.dealt(seat)) for seat in range(4)) == 52
    assert midhand.holding(3) == midhand.view(3).holding
    assert all(isinstance(midhand.taken(seat), tuple) for seat in range(4))


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("abc", "a seed must be an integer or None, not str: 'abc'"),
        (True, "a seed must be an integer or None, not bool: True"),
        (False, "a seed must be an integer or None, not bool: False"),
        (1.5, "a seed must be an integer or None, not float: 1.5"),
    ],
)
def test_new_hand_seeds_are_integers(seed: Any, message: str) -> None:
    with pytest.raises(GongzhuError) as caught:
        load_rules().new_hand(seed)
    assert str(caught.value) == message


def test_an_integer_seed_replays(engine: str) -> None:
    hand = load_rules().new_hand(1)
    assert gongzhu.replay(hand.to_record()).to_record() == hand.to_record()


@pytest.mark.parametrize("leader", [True, -1, 4, "0"])
def test_new_hand_leaders_are_seats(leader: Any) -> None:
    with pytest.raises(GongzhuError, match=r"leader must be a seat 0-3 or None, not"):
        load_rules().new_hand(1, leader=leader)


@pytest.mark.parametrize("deal", [5, None.__class__, "QS JD"])
def test_new_hand_deals_are_card_sequences(deal: Any) -> None:
    with pytest.raises(InvalidCard, match="a deal is a Deal or a sequence of cards, not"):
        load_rules().new_hand(1, deal=deal)


def untyped(value: object) -> Any:
    """``value``, typed as anything: these calls pass wrong types on purpose."""
    return value


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: parse_cards(untyped(None)),
            "expected card text or an iterable of cards, got NoneType",
        ),
        (lambda: parse_cards(untyped(5)), "expected card text or an iterable of cards, got int: 5"),
        (lambda: parse_cards([untyped(None)]), "expected card text, got NoneType: None"),
        (lambda: Play.parse(untyped(None)), "expected play text, got NoneType: None"),
        (lambda: Play.parse(untyped(3)), "expected play text, got int: 3"),
        (lambda: Play(untyped(None)), "expected card text or an iterable of cards, got NoneType"),
        (lambda: Card.parse(untyped(None)), "expected card text, got NoneType: None"),
        (
            lambda: gongzhu.Show(untyped(None)),
            "expected card text or an iterable of cards, got NoneType",
        ),
    ],
)
def test_card_input_is_checked(call: Callable[[], object], message: str) -> None:
    with pytest.raises(InvalidCard) as caught:
        call()
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"taken": {0: None}}, "taken of seat 0: expected card text or an iterable"),
        ({"taken": {0: 7}}, "taken of seat 0: expected card text or an iterable"),
        ({"taken": {1: [None]}}, "taken of seat 1: expected card text, got NoneType"),
        (
            {"taken": {}, "shown": {2: None}},
            "open shows of seat 2: expected card text or an iterable",
        ),
    ],
)
def test_score_input_is_checked(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidScoreInput) as caught:
        load_rules().score(**kwargs)
    assert message in str(caught.value)


@pytest.mark.parametrize("key", [-1, -52, 52 + 52 * 52, 10**6, True, "1", 1.0, None, [3]])
def test_play_keys_are_checked(key: Any) -> None:
    with pytest.raises(InvalidCard, match=r"not a play key: .* \(0-51 for one card"):
        play_of_key(key)


@given(st.integers(0, 52 + 52 * 52 - 1))
def test_every_play_key_names_its_play(key: int) -> None:
    play = play_of_key(key)
    if key < 52:
        assert play is SINGLE_PLAYS[key] and play.key == key
    else:
        first, second = divmod(key - 52, 52)
        assert sorted(play.cards) == sorted((Card.from_index(first), Card.from_index(second)))
        assert play_of_key(key) is play


@pytest.mark.parametrize("seat", [-1, 4, True, "0", None])
def test_view_of_a_bad_seat_is_an_invalid_seat(seat: object) -> None:
    hand = gongzhu.load_rules().new_hand(1)
    with pytest.raises(gongzhu.errors.InvalidSeat, match="seat must be 0-3"):
        hand.view(seat)  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # still a ValueError for callers that caught one
        hand.view(seat)  # type: ignore[arg-type]

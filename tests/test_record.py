"""Hand records: to_record() / replay() and the errors of a bad record."""

from __future__ import annotations

import copy
import json

import pytest

import gongzhu
from gongzhu.bots import RandomBot, play_hand
from gongzhu.errors import InvalidRecord

from .conftest import BOTH_ENGINES

pytestmark = BOTH_ENGINES  # hands are played: on both play engines


@pytest.fixture(scope="module")
def record() -> dict:
    hand = gongzhu.load_rules().new_hand(11)
    play_hand(hand, [RandomBot(s) for s in range(4)])
    return hand.to_record()


def test_record_shape(record: dict) -> None:
    assert record["format"] == "gongzhu-hand/1"
    assert record["rules"]["variants"] == ["39baobao"]
    assert record["rules"] == gongzhu.load_rules().spec()  # every option, written in full
    assert record["seed"] == 11
    assert len(record["deal"]) == 52 and record["deal"][0] == str(
        gongzhu.Deal.shuffled(11).order[0]
    )
    assert record["leader"] is None
    assert len(record["actions"]) == 4 + 52
    assert record["actions"][0]["action"].startswith("show")
    assert set(record["result"]) == {"raw", "final", "captured"}
    json.dumps(record)


def test_replay_round_trip(record: dict) -> None:
    hand = gongzhu.replay(json.loads(json.dumps(record)))
    assert hand.is_over
    assert hand.to_record() == record


def test_unfinished_hand_round_trip() -> None:
    hand = gongzhu.load_rules().new_hand(3, leader=2)
    for _ in range(9):
        hand.apply(hand.legal_actions()[-1])
    again = gongzhu.replay(hand.to_record())
    assert again.to_record() == hand.to_record()
    assert again.to_move == hand.to_move and not again.is_over


def mutate(record: dict, path: tuple, value: object) -> dict:
    bad = copy.deepcopy(record)
    target = bad
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return bad


@pytest.mark.parametrize(
    ("path", "value", "index", "reason"),
    [
        (("format",), "gongzhu-hand/9", None, "unknown record format"),
        (("rules",), KeyError, None, "missing field 'rules'"),
        (("rules", "variants"), ["no-such-variant"], None, "no gongzhu variant named"),
        (("rules", "variants"), "39baobao", None, "list of names"),
        (("rules", "options"), {"nope": 1}, None, "unknown option"),
        (("deal",), ["QS"] * 52, None, "deal: a deal must hold every card"),
        (("deal", 0), "XX", None, "deal: not a card"),
        (("deal",), "QS", None, "field 'deal' has the wrong type"),
        (("leader",), 7, None, "leader must be a seat"),
        (("seed",), "x", None, "field .seed. has the wrong type"),
        (("actions", 0, "seat"), "other seat", 0, "action by seat .*, but seat .* is to move"),
        (("actions", 10, "action"), "play XS", 10, "not a card"),
        (("actions", 4), "play 2C", 4, "an action is"),
        (("actions", 20, "action"), "play 2C", 20, "illegal action"),
        (("result", "raw"), [1, 2, 3, 4], None, "stored raw scores"),
        (("result", "final"), [0, 0, 0, 0], None, "stored final scores"),
    ],
)
def test_bad_records_name_the_problem(
    record: dict, path: tuple, value: object, index: int | None, reason: str
) -> None:
    if value == "other seat":
        value = (record["actions"][0]["seat"] + 1) % 4
    bad = mutate(record, path, value)
    with pytest.raises(InvalidRecord, match=reason) as info:
        gongzhu.replay(bad)
    assert info.value.index == index
    assert info.value.hand == 0


def test_result_on_unfinished_actions(record: dict) -> None:
    bad = copy.deepcopy(record)
    bad["actions"] = bad["actions"][:-1]
    with pytest.raises(InvalidRecord, match="do not finish the hand"):
        gongzhu.replay(bad)


def test_not_a_mapping() -> None:
    with pytest.raises(InvalidRecord, match=r"a hand record is a JSON object, not an array$"):
        gongzhu.replay(["nope"])  # type: ignore[arg-type]


def test_hand_number_in_message(record: dict) -> None:
    with pytest.raises(InvalidRecord, match=r"hand 3, action 20"):
        gongzhu.replay(mutate(record, ("actions", 20, "action"), "play 2C"), hand=3)


def test_replay_with_given_rules(record: dict) -> None:
    rules = gongzhu.load_rules()
    assert gongzhu.replay(record, rules=rules).score() == gongzhu.replay(record).score()
    from gongzhu.rules import Rules

    from . import plugins

    other = Rules.from_plugins(plugins.Picky())
    with pytest.raises(InvalidRecord, match="was played under"):
        gongzhu.replay(record, rules=other)


def test_tricks_and_shows_are_checked(record: dict) -> None:
    assert len(record["tricks"]) == 13
    assert set(record["tricks"][0]) == {"leader", "cards", "winner", "taker"}
    bad = mutate(record, ("tricks", 3, "taker"), (record["tricks"][3]["taker"] + 1) % 4)
    with pytest.raises(InvalidRecord, match="stored tricks differ"):
        gongzhu.replay(bad)
    bad = mutate(
        record, ("shows",), [{"seat": 0, "kind": "open", "cards": ["QS"], "forced": False}]
    )
    with pytest.raises(InvalidRecord, match="stored shows differ"):
        gongzhu.replay(bad)


def test_rules_variants_and_options_default(record: dict) -> None:
    """The schema does not require ``rules.variants``; replay's default is the default base."""
    bare = copy.deepcopy(record)
    bare["rules"] = {}
    assert gongzhu.replay(bare).to_record() == record
    assert (
        gongzhu.replay(bare, rules=gongzhu.load_rules()).score() == gongzhu.replay(record).score()
    )
    with pytest.raises(InvalidRecord, match="was played under"):
        gongzhu.replay(bare, rules=gongzhu.load_rules("huapai"))


@pytest.mark.parametrize(
    "variants",
    [(), ("two-deck",), ("huapai", "two-deck"), ("same-colour-discard",), ("huapai",)],
)
def test_a_records_tricks_are_the_hands_tricks(variants: tuple[str, ...]) -> None:
    """The record's tricks (written from the engine's play keys) say what
    :attr:`HandState.tricks` says: leader, cards in play order, winner, taker; pairs and
    discard penalties included, finished hands and one stopped mid-trick."""
    import random

    rules = gongzhu.load_rules(*variants)
    for seed in range(60):
        hand = rules.new_hand(seed)
        rng = random.Random(seed)
        stop = rng.randrange(4, 60)
        while not hand.is_over and len(hand.history) < stop:
            legal = hand.legal_actions()
            hand.apply(legal[int(rng.random() * len(legal))])
        if seed % 2:
            hand.play_out(rng.random)
        expected = [
            {
                "leader": trick.leader,
                "cards": [str(card) for _seat, cards in trick.plays for card in cards],
                "winner": trick.winner,
                "taker": trick.taker,
            }
            for trick in hand.tricks
        ]
        assert hand.to_record()["tricks"] == expected

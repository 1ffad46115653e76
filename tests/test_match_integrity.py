"""Issue 39: a match records only the hands it deals, its record replays only so, and the
match-level hooks' answers are checked (and checked by the conformance kit).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gongzhu
from gongzhu import Rules
from gongzhu.errors import GongzhuError, InvalidRecord, PluginError
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.testing import ConformanceError, check_ruleset


def played(hand: gongzhu.HandState, seed: int = 0) -> gongzhu.HandState:
    rng = random.Random(seed)
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def match_of(hands: int = 3, seed: int = 5) -> gongzhu.Match:
    match = gongzhu.load_rules().new_match(seed, hands=hands)
    while not match.is_over:
        match.record_hand(played(match.new_hand(), len(match.hands)))
    return match


# -- the hands a match takes ------------------------------------------------------------------


def test_a_match_deals_the_same_next_hand_however_often_asked() -> None:
    match = gongzhu.load_rules().new_match(3, hands=2)
    first, again = match.new_hand(), match.new_hand()
    assert first.seed == again.seed and first.deal == again.deal
    match.record_hand(played(again))
    assert match.new_hand().seed != first.seed


def test_a_match_refuses_a_hand_it_did_not_deal_next() -> None:
    match = gongzhu.load_rules().new_match(3, hands=3)
    first = played(match.new_hand())
    early = first.clone()  # a copy of the next hand is the next hand
    match.record_hand(early)
    totals = list(match.totals)
    strangers = {
        "a copy of the first hand": first,
        "a replay of the first hand": gongzhu.replay(first.to_record()),
        "a hand the match never dealt": played(gongzhu.load_rules().new_hand(seed=5)),
    }
    for what, hand in strangers.items():
        with pytest.raises(GongzhuError, match=r"not the match's next hand \(hand 1, from 0\)"):
            match.record_hand(hand)
        assert match.totals == totals and len(match.hands) == 1, what
    match.record_hand(played(match.new_hand()))
    assert len(match.hands) == 2


def test_a_match_record_with_hands_swapped_or_reseeded_does_not_replay(tmp_path: Path) -> None:
    record = match_of().to_record()
    gongzhu.replay_match(record)  # as written, it replays
    swapped = json.loads(json.dumps(record))
    swapped["hands"][0], swapped["hands"][1] = swapped["hands"][1], swapped["hands"][0]
    with pytest.raises(
        InvalidRecord, match=r"\(hand 0\): this is not the match's next hand \(hand 0,"
    ):
        gongzhu.replay_match(swapped)
    reseeded = json.loads(json.dumps(record))
    reseeded["hands"][1]["seed"] += 1
    with pytest.raises(InvalidRecord, match="not the deal seed"):
        gongzhu.replay_match(reseeded)
    with pytest.raises(InvalidRecord, match="not the deal seed"):
        gongzhu.replay(reseeded["hands"][1])
    # gongzhu score says so, in one line, with the status for a bad record
    path = tmp_path / "swapped.json"
    path.write_text(json.dumps(swapped), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", "score", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "hand 0: this is not the match's next hand (hand 0, from 0)" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_match_after_another_replays_with_its_dealer_and_leader() -> None:
    match = gongzhu.load_rules("huapai").new_match(2, hands=1)
    match.record_hand(played(match.new_hand()))
    nxt = match.next_match()
    nxt.record_hand(played(nxt.new_hand()))
    again = gongzhu.replay_match(json.loads(json.dumps(nxt.to_record())))
    assert again.totals == nxt.totals
    assert again.hands[0].deal.first_seat == nxt.first_dealer == again.first_dealer


def test_a_match_record_needs_its_seed() -> None:
    record = match_of(hands=1).to_record()
    record["seed"] = None
    with pytest.raises(InvalidRecord, match="a match record needs it"):
        gongzhu.replay_match(record)


# -- the match-level hooks' answers -----------------------------------------------------------


class Answers:
    """A modifier whose match-level hooks answer what it is told to."""

    def __init__(self, **answers: Any) -> None:
        self.answers = answers

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("answers", "Answers")

    @hookimpl(tryfirst=True)
    def gongzhu_normalise(self, raw: tuple[int, ...]) -> Any:
        make = self.answers.get("normalise")
        return None if make is None else make(raw)

    @hookimpl(tryfirst=True)
    def gongzhu_match_over(self) -> Any:
        return self.answers.get("match_over")

    @hookimpl(tryfirst=True)
    def gongzhu_next_leader(self) -> Any:
        return self.answers.get("next_leader")


@pytest.mark.parametrize(
    "normalise",
    [
        lambda raw: tuple(value / 2 for value in raw),  # floats: records could not replay
        lambda raw: (True, False, False, True),
    ],
)
def test_a_normalisation_must_give_four_integers(normalise: Any) -> None:
    rules = Rules.from_plugins(Answers(normalise=normalise))
    hand = played(rules.new_hand(seed=1))
    with pytest.raises(PluginError, match=r"'answers' failed in gongzhu_normalise.*integer"):
        hand.score()


def test_match_over_must_answer_true_or_false() -> None:
    rules = Rules.from_plugins(Answers(match_over="yes"))
    match = rules.new_match(1, target=10**6)
    match.record_hand(played(match.new_hand()))
    with pytest.raises(PluginError, match=r"'answers' failed in gongzhu_match_over.*'yes'"):
        _ = match.is_over


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ({"match_over": "yes"}, "gongzhu_match_over"),
        ({"next_leader": 7}, "gongzhu_next_leader"),
        ({"normalise": lambda raw: tuple(v + 0.5 for v in raw)}, "gongzhu_normalise"),
    ],
)
def test_check_ruleset_asks_the_match_level_hooks(answers: dict[str, Any], problem: str) -> None:
    rules = Rules.from_plugins(Answers(**answers))
    with pytest.raises(ConformanceError, match=problem):
        check_ruleset(rules, hands=1)


def test_check_ruleset_plays_a_match() -> None:
    report = check_ruleset(gongzhu.load_rules("huapai"), hands=2)
    assert report.match_hands >= 1


# -- the order of several trylast stages, as the plug-in guide says -----------------------------


def _inserting(name: str) -> object:
    from gongzhu.plugin import ScoreStage

    class Inserts:
        @hookimpl
        def gongzhu_variant_info(self) -> VariantInfo:
            return VariantInfo(name, name)

        @hookimpl(trylast=True)
        def gongzhu_score_stages(self, stages: Any) -> None:
            stages.insert_after("values", ScoreStage(name, lambda ctx: None))

    return Inserts()


def test_trylast_stages_run_in_the_order_the_plugins_are_named() -> None:
    rules = Rules.from_plugins(_inserting("a"), _inserting("b"))
    names = [stage.name for stage in rules.score_stages]
    assert names[:3] == ["values", "b", "a"]
    owners = {stage.name: stage.owner for stage in rules.score_stages}
    assert (owners["a"], owners["b"], owners["values"]) == ("a", "b", None)


def test_a_finished_match_takes_no_more_hands() -> None:
    """A hand recorded after the match ended made a record its own replay refused."""
    match = match_of(hands=1)
    seed, first_seat, leader = match.next_deal()
    extra = played(gongzhu.load_rules().new_hand(seed, first_seat=first_seat, leader=leader))
    with pytest.raises(GongzhuError, match="the match is over"):
        match.record_hand(extra)
    assert len(match.hands) == 1
    gongzhu.replay_match(match.to_record())


def test_a_hand_given_a_seed_and_a_deal_has_the_seeds_deal() -> None:
    """The one check behind the records' and the matches': a seed names its deal."""
    from gongzhu.errors import InvalidCard

    rules = gongzhu.load_rules()
    assert rules.new_hand(5, deal=gongzhu.Deal.shuffled(5)).deal == gongzhu.Deal.shuffled(5)
    with pytest.raises(InvalidCard, match="not the deal seed 5 gives"):
        rules.new_hand(5, deal=gongzhu.Deal.shuffled(6))

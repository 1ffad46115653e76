"""Hardening, second round: matches that never end, the next match, plug-ins' values and
options, values that are not actions, hook implementations that do not fit."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

import gongzhu
from gongzhu.bots import make_bot
from gongzhu.errors import (
    GongzhuError,
    HandLimitReached,
    IllegalAction,
    IncompatibleVariants,
    InvalidCard,
    InvalidOption,
    NotAnAction,
)
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.record import replay_match, scan_records


def bots() -> list[Any]:
    return [make_bot("first") for _ in range(4)]


# -- matches ---------------------------------------------------------------------------------


def test_a_hand_is_recorded_once() -> None:
    match = gongzhu.load_rules("huapai").new_match(seed=3)
    hand = match.new_hand()
    hand.play_out(random.Random(1).random)
    match.record_hand(hand)
    totals = list(match.totals)
    with pytest.raises(GongzhuError, match="recorded in the match already"):
        match.record_hand(hand)
    assert match.totals == totals and len(match.hands) == 1


def test_a_match_that_cannot_reach_its_target_stops_at_the_hand_limit() -> None:
    match = gongzhu.load_rules().new_match(seed=1, target=10**12)
    with pytest.raises(HandLimitReached, match="did not end within 5 hands"):
        match.play(bots(), hand_limit=5)
    assert len(match.hands) == 5 and not match.is_over
    with pytest.raises(GongzhuError, match="hand limit is a positive integer"):
        match.play(bots(), hand_limit=0)


def test_the_default_hand_limit_ends_a_match_that_never_would() -> None:
    match = gongzhu.load_rules().new_match(seed=2, target=10**12)
    with pytest.raises(HandLimitReached, match="1000 hands"):
        match.play([make_bot("random", seat) for seat in range(4)])


def finished_match(seed: int, *names: str, **kwargs: Any) -> gongzhu.Match:
    match = gongzhu.load_rules(*names).new_match(seed=seed, **kwargs)
    match.play(bots())
    return match


@pytest.mark.parametrize("names", [("huapai",), ("huapai", "shuangzhu")], ids="+".join)
def test_the_loser_deals_and_leads_the_next_match(names: tuple[str, ...]) -> None:
    match = finished_match(4, *names)
    following = match.next_match()
    loser = min(match.losers, key=lambda seat: (match.totals[seat], seat))
    assert match.totals[loser] == min(match.totals)
    first = following.new_hand()
    assert first.deal.first_seat == loser and first.leader == loser
    assert first.explicit_leader == loser  # any card: not the ♠3 rule
    assert following.rules is match.rules and following.target == match.target
    with pytest.raises(GongzhuError, match="not over"):
        following.next_match()


def test_a_series_of_matches_is_one_file_that_replays(tmp_path: Any) -> None:
    match = finished_match(5, "huapai")
    series = [match]
    for _ in range(2):
        nxt = series[-1].next_match()
        nxt.play(bots())
        series.append(nxt)
    path = tmp_path / "series.jsonl"
    path.write_text("".join(json.dumps(m.to_record()) + "\n" for m in series), encoding="utf-8")
    entries = list(scan_records(path.read_text(encoding="utf-8")))
    assert len(entries) == 3 and all(entry.error is None for entry in entries)
    for entry, original in zip(entries, series, strict=True):
        replayed = replay_match(entry.record)
        assert replayed.totals == original.totals and replayed.losers == original.losers
    # each match after the first is dealt and led by the one before's loser
    for before, after in itertools.pairwise(series):
        dealer = min(before.losers, key=lambda seat: (before.totals[seat], seat))
        assert after.hands[0].deal.first_seat == dealer == after.hands[0].leader


def test_a_match_refuses_a_dealer_or_leader_that_is_no_seat() -> None:
    rules = gongzhu.load_rules("huapai")
    for kwargs in ({"first_dealer": 4}, {"leader": -1}, {"first_dealer": True}):
        with pytest.raises(GongzhuError, match="must be a seat 0-3"):
            rules.new_match(seed=1, **kwargs)
    with pytest.raises(GongzhuError, match="first_seat must be a seat"):
        rules.new_hand(1, first_seat=5)


# -- plug-ins' values and options ------------------------------------------------------------


class Values:
    """A plug-in answering one hook with a given value."""

    def __init__(self, hook: str, value: Any) -> None:
        self.value = value
        setattr(self, hook, hookimpl(lambda: self.value))

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("odd-values", "odd values")


@pytest.mark.parametrize(
    ("hook", "value", "message"),
    [
        ("gongzhu_card_values", {"JD": 1.5}, "gives JD 1.5: a card's value is an integer"),
        ("gongzhu_card_values", {"JD": "200"}, "gives JD '200'"),
        ("gongzhu_card_values", {"JD": True}, "gives JD True"),
        ("gongzhu_card_values", {"XX": 3}, "not a card: 'XX'"),
        ("gongzhu_card_values", ["JD"], "must map cards to values"),
        ("gongzhu_heart_values", {rank: 0.5 for rank in gongzhu.Rank}, "a value is an integer"),
        ("gongzhu_heart_values", {gongzhu.Rank.ACE: -50}, "all 13 ranks"),
        ("gongzhu_show_factors", {gongzhu.ShowKind.OPEN: 2.0}, "factor is an integer"),
        ("gongzhu_showable_cards", ["QS", "ZZ"], "not a card"),
        ("gongzhu_auto_show_threshold", -1, "a count of cards"),
        ("gongzhu_auto_show_threshold", "3", "a count of cards"),
    ],
)
def test_bad_plug_in_values_are_refused_naming_the_plug_in(
    hook: str, value: Any, message: str
) -> None:
    with pytest.raises(IncompatibleVariants, match="odd-values") as caught:
        gongzhu.Rules.from_plugins(Values(hook, value))
    assert message in str(caught.value)


def test_good_plug_in_values_still_count() -> None:
    rules = gongzhu.Rules.from_plugins(Values("gongzhu_card_values", {"JD": 150, "AS": -20}))
    assert rules.score({0: "JD AS"}).raw[0] == 130


def test_option_values_are_kept_in_their_option_s_type() -> None:
    assert gongzhu.load_rules("huapai", match_target=800.0) is gongzhu.load_rules(
        "huapai", match_target=800
    )
    assert type(gongzhu.load_rules("huapai", match_target=800.0).options["match_target"]) is int
    for value in (True, "800", 800.5, 900):
        with pytest.raises(InvalidOption, match=r"\(huapai\): expected one of 1000, 800"):
            gongzhu.load_rules("huapai", match_target=value)
    with pytest.raises(InvalidOption, match=r"\(same-colour-discard\): expected true or false"):
        gongzhu.load_rules("same-colour-discard", same_colour_strict=1)


# -- values that are not actions ---------------------------------------------------------------


@pytest.mark.parametrize("value", ["2C", None, gongzhu.Card.parse("2C"), 3, "play 2C"])
@pytest.mark.parametrize("phase", ["show", "play", "over"])
def test_a_value_that_is_not_an_action_is_named_so(value: Any, phase: str) -> None:
    hand = gongzhu.load_rules().new_hand(seed=30)
    if phase != "show":
        while hand.phase is gongzhu.Phase.SHOW:
            hand.apply(gongzhu.Show(()))
    if phase == "over":
        hand.play_out(random.Random(2).random)
    history = hand.history
    with pytest.raises(NotAnAction, match=r"^not an action: .* not a Play or a Show") as caught:
        hand.apply(value)
    assert isinstance(caught.value, TypeError)
    assert ("parse_action" in str(caught.value)) == isinstance(value, str)
    assert hand.history == history


# -- hook implementations that do not fit --------------------------------------------------


class MisnamedArgument:
    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("misnamed", "misnamed")

    @hookimpl
    def gongzhu_normalise(self, rw: tuple[int, ...]) -> None:
        return None


@pytest.mark.parametrize("given", ["object", "named"])
def test_a_hook_implementation_that_does_not_fit_names_its_plug_in(given: str) -> None:
    plugin: Any = MisnamedArgument() if given == "object" else ("misnamed", MisnamedArgument())
    with pytest.raises(IncompatibleVariants) as caught:
        gongzhu.Rules.from_plugins(plugin)
    text = str(caught.value)
    name = "MisnamedArgument" if given == "object" else "misnamed"
    assert f"plug-in {name!r} does not fit gongzhu's hooks" in text
    assert "gongzhu_normalise(rw" in text and "{'rw'}" in text


# -- the README's show loop ----------------------------------------------------------------


@pytest.mark.parametrize(
    "names",
    [(), ("huapai",), ("huapai", "anmai"), ("fenpai-quanming",), ("two-deck",), ("heart-three",)],
    ids=lambda names: "+".join(names) or "39baobao",
)
def test_the_readme_show_loop_works_under_every_ruleset(names: tuple[str, ...]) -> None:
    for seed in range(20):
        hand = gongzhu.load_rules(*names).new_hand(seed)
        while hand.phase is not gongzhu.Phase.PLAY:  # the README's loop
            first = hand.legal_actions()[0]
            assert isinstance(first, gongzhu.Show)
            if "fenpai-quanming" not in names:
                assert first.cards == ()  # "show nothing", wherever the ruleset allows it
            hand.apply(first)
        assert hand.to_move is not None


def test_an_error_repeats_at_most_the_start_of_a_huge_text() -> None:
    hand = gongzhu.load_rules().new_hand(seed=3)
    huge = gongzhu.Play(tuple(hand.holding(0)) * 4)  # 52 cards, refused whatever the phase
    with pytest.raises(IllegalAction) as refused:
        hand.apply(huge)
    assert str(refused.value).startswith(f"illegal action {str(huge)[:60]}… (")
    assert len(str(refused.value)) < 200 and refused.value.action == huge  # kept whole
    with pytest.raises(InvalidCard, match=r"^not a card: 'ZZZ[Z]*'… \(1,000 characters\)"):
        gongzhu.Card.parse("Z" * 1000)

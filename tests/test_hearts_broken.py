"""The hearts-broken example distribution: a third-party plug-in that changes play."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gongzhu
from gongzhu import Play, Suit
from gongzhu.bots import RandomBot
from gongzhu.errors import IllegalAction

from .conftest import BOTH_ENGINES, install_example

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hearts_broken"
# Every engine plays plug-in play rules: the tests that play hands run on the reference
# (pure-Python) engines and on the C ones.
pytestmark = BOTH_ENGINES

RULESETS = [("hearts-broken",), ("huapai", "hearts-broken"), ("two-deck", "hearts-broken")]
CASES: list[tuple[tuple[str, ...], dict[str, Any]]] = [(names, {}) for names in RULESETS] + [
    (RULESETS[0], {"hearts_broken_by_pig": True})
]
CASE_IDS = ["39baobao", "huapai", "two-deck", "by-pig"]


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install_example(tmp_path, monkeypatch, EXAMPLE)
    yield
    monkeypatch.undo()
    gongzhu.variant_names(refresh=True)


def start(rules: gongzhu.Rules, holdings: list[str]) -> gongzhu.HandState:
    """A scripted hand: seat 0 leads any card, and nobody shows anything."""
    hand = rules.new_hand(deal=gongzhu.Deal.from_holdings(holdings), leader=0)
    while hand.phase is gongzhu.Phase.SHOW:
        hand.apply(gongzhu.Show(()))
    return hand


def play(hand: gongzhu.HandState, *plays: str) -> None:
    for text in plays:
        hand.apply(Play.parse(text))


def refusal(hand: gongzhu.HandState, text: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Play.parse(text))
    return caught.value


# Seat 0 leads spades and holds hearts; seat 3 is void in spades and can discard a heart.
ONE_DECK = [
    "AS KS JS TS 9S 8S 2H 3H 4H 5H 6H 7H 8H",
    "2S 3S 4S 5S 6S 7S QS 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2C 3C 4C 5C 6C 7C 8C 9H TH JH QH KH AH",
]


def doubled(holdings: list[str]) -> list[str]:
    """The same holdings with two decks: every card twice."""
    return [" ".join(card for card in h.split() for _ in range(2)) for h in holdings]


def test_found_by_entry_point_name_and_composes(installed: None) -> None:
    assert "hearts-broken" in gongzhu.variant_names()
    for names in RULESETS:
        rules = gongzhu.load_rules(*names)
        assert "hearts-broken" in rules.names
        assert [rule.name for rule in rules.play_config.rules] == ["hearts-broken"]
        assert "play-rules" in rules.play_config.features
        assert all("play-rules" in spec.features for spec in rules.engines)
        base = gongzhu.load_rules(*(name for name in names if name != "hearts-broken"))
        assert rules.engines == base.engines  # the rule costs no engine: the fastest plays it
    assert gongzhu.load_rules("hearts-broken").names == ("39baobao", "hearts-broken")


def test_a_heart_lead_waits_until_hearts_are_broken(installed: None) -> None:
    hand = start(gongzhu.load_rules("hearts-broken"), ONE_DECK)
    error = refusal(hand, "2H")  # nothing has been played: not even the first lead
    assert error.refusal.rule == "hearts-broken"
    play(hand, "AS", "2S", "2D", "2C")  # nobody discards a heart
    assert hand.to_move == 0
    error = refusal(hand, "8H")
    assert error.refusal.rule == "hearts-broken"
    assert error.refusal.message == (
        "8H: no heart may be led until hearts are broken (a heart played in an earlier trick)"
    )
    assert error.refusal.message in str(error)
    assert all(card.suit is not Suit.HEARTS for a in hand.legal_actions() for card in a.cards)
    play(hand, "KS", "3S", "3D", "9H")  # seat 3, void in spades, discards a heart
    assert hand.to_move == 0
    assert Play.parse("2H") in hand.legal_actions()
    play(hand, "2H")


def test_without_the_plug_in_the_heart_lead_is_legal() -> None:
    hand = start(gongzhu.load_rules(), ONE_DECK)
    play(hand, "AS", "2S", "2D", "2C", "8H")


def test_the_pig_breaks_hearts_only_when_asked(installed: None) -> None:
    for by_pig in (False, True):
        hand = start(gongzhu.load_rules("hearts-broken", hearts_broken_by_pig=by_pig), ONE_DECK)
        play(hand, "AS", "QS", "2D", "2C")  # the pig is played; no heart is
        assert hand.to_move == 0
        if by_pig:
            play(hand, "2H")
        else:
            error = refusal(hand, "2H")
            assert error.refusal.rule == "hearts-broken"
            assert "or the pig" not in str(error)


def test_a_seat_holding_only_hearts_may_lead_one(installed: None) -> None:
    holdings = [
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    ]
    hand = start(gongzhu.load_rules("hearts-broken"), holdings)
    assert len(hand.legal_actions()) == 13
    play(hand, "2H")


def test_two_decks_refuse_both_copies_and_pairs(installed: None) -> None:
    hand = start(gongzhu.load_rules("two-deck", "hearts-broken"), doubled(ONE_DECK))
    play(hand, "AS", "2S", "2D", "2C")
    assert hand.to_move == 0
    for text in ("2H", "2H 2H", "8H 8H"):
        assert refusal(hand, text).refusal.rule == "hearts-broken"
    assert all(card.suit is not Suit.HEARTS for a in hand.legal_actions() for card in a.cards)
    play(hand, "KS", "3S", "3D", "9H")  # one copy of ♥9 breaks hearts
    assert hand.to_move == 0
    legal = hand.legal_actions()
    assert Play.parse("2H") in legal and Play.parse("2H 2H") in legal
    play(hand, "2H 2H")


def test_two_decks_holding_only_hearts(installed: None) -> None:
    holdings = doubled(
        [
            "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
            "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
            "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        ]
    )
    hand = start(gongzhu.load_rules("two-deck", "hearts-broken"), holdings)
    play(hand, "AH AH")


def is_heart(card: gongzhu.Card) -> bool:
    return card.suit is Suit.HEARTS


def breaks(card: gongzhu.Card, by_pig: bool) -> bool:
    return is_heart(card) or (by_pig and card == gongzhu.PIG)


def play_checking_leads(hand: gongzhu.HandState, seed: int, by_pig: bool) -> None:
    """Random bots play ``hand``; before each lead, the legal leads follow the rule exactly:
    no heart while hearts are unbroken and the leader holds another suit, some heart once
    they are broken (or it holds only hearts) and it holds one."""
    bots = [RandomBot(seed * 4 + seat) for seat in range(4)]
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        if hand.phase is gongzhu.Phase.PLAY and not hand.current_trick:
            broken = any(breaks(card, by_pig) for trick in hand.tricks for card in trick.cards)
            held = hand.holding(seat)
            heart_leads = [a for a in hand.legal_actions() if any(map(is_heart, a.cards))]
            if not broken and not all(map(is_heart, held)):
                assert not heart_leads, (seat, held)
            elif any(map(is_heart, held)):
                assert heart_leads, (seat, held)
        hand.apply(bots[seat].choose(hand.view(seat)))


def unbroken_heart_leads(hand: gongzhu.HandState, by_pig: bool = False) -> tuple[int, int]:
    """Check every lead of a finished hand from its tricks; count the heart leads before
    and after hearts broke.  One before must come from a seat holding only hearts."""
    held = [Counter(hand.dealt(seat)) for seat in range(4)]
    broken = False
    early = late = 0
    for trick in hand.tricks:
        seat, cards = trick.plays[0]
        if any(map(is_heart, cards)):
            if broken:
                late += 1
            else:
                assert all(map(is_heart, held[seat].elements())), trick
                early += 1
        for player, played in trick.plays:
            held[player].subtract(played)
        broken = broken or any(breaks(card, by_pig) for card in trick.cards)
    assert all(count == 0 for counter in held for count in counter.values())
    return early, late


@pytest.mark.parametrize(("names", "options"), CASES, ids=CASE_IDS)
def test_random_hands_never_lead_an_unbroken_heart(
    installed: None, names: tuple[str, ...], options: dict[str, bool]
) -> None:
    rules = gongzhu.load_rules(*names, **options)
    by_pig = options.get("hearts_broken_by_pig", False)
    late = 0
    for seed in range(40):
        hand = rules.new_hand(seed=seed)
        play_checking_leads(hand, seed, by_pig)
        late += unbroken_heart_leads(hand, by_pig)[1]
        assert gongzhu.replay(hand.to_record()).score() == hand.score()
    assert late > 0  # hearts do get led once broken


@pytest.mark.parametrize(("names", "options"), CASES, ids=CASE_IDS)
def test_the_conformance_kit_accepts_its_rulesets(
    installed: None, names: tuple[str, ...], options: dict[str, bool]
) -> None:
    testing = pytest.importorskip("gongzhu.testing")
    rules = gongzhu.load_rules(*names, **options)
    report = testing.check_ruleset(rules, hands=20)
    assert report.hands == 20
    assert report.engines == tuple(spec.name for spec in rules.engines)


def test_gone_when_uninstalled() -> None:
    assert "hearts-broken" not in gongzhu.variant_names(refresh=True)

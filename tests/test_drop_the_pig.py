"""The drop-the-pig example distribution: a play rule that requires a card."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

import gongzhu
from gongzhu import PIG, Play
from gongzhu.bots import RandomBot
from gongzhu.errors import IllegalAction
from gongzhu.play import PlayConfigurator, PlayMoment, PlaySituation
from gongzhu.plugin import VariantInfo, hookimpl

from .conftest import BOTH_ENGINES, install_example

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "drop_the_pig"
pytestmark = BOTH_ENGINES  # every engine plays plug-in play rules

RULESETS = [("drop-the-pig",), ("huapai", "drop-the-pig"), ("two-deck", "drop-the-pig")]


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install_example(tmp_path, monkeypatch, EXAMPLE)
    yield
    monkeypatch.undo()
    gongzhu.variant_names(refresh=True)


def start(
    rules: gongzhu.Rules, holdings: list[str], shows: dict[int, str] | None = None
) -> gongzhu.HandState:
    """A scripted hand: seat 0 leads any card; no 首明; the seats show what ``shows`` says."""
    hand = rules.new_hand(deal=gongzhu.Deal.from_holdings(holdings), leader=0)
    shows = shows or {}
    while hand.phase is gongzhu.Phase.FIRST_SHOW:
        hand.apply(gongzhu.Show((), gongzhu.ShowKind.FIRST))
    while hand.phase is gongzhu.Phase.SHOW:
        seat = hand.to_move
        assert seat is not None
        hand.apply(gongzhu.Show(shows.get(seat, "")))
    return hand


def play(hand: gongzhu.HandState, *plays: str) -> None:
    for text in plays:
        hand.apply(Play.parse(text))


# Seat 0 leads diamonds; seat 1 holds no diamond and holds the pig.
ONE_DECK = [
    "2D 3D 4D 5D 6D 7D 8D 2C 3C 4C 5C 6C 7C",
    "QS 2S 3S 4S 5S 6S 2H 3H 4H 5H 6H 7H 8H",
    "9D TD JD QD KD AD 8C 9C TC JC QC KC AC",
    "7S 8S 9S TS JS KS AS 9H TH JH QH KH AH",
]


def doubled(holdings: list[str]) -> list[str]:
    return [" ".join(card for card in h.split() for _ in range(2)) for h in holdings]


def test_found_by_entry_point_name_on_the_fastest_engines(installed: None) -> None:
    assert "drop-the-pig" in gongzhu.variant_names()
    for names in RULESETS:
        rules = gongzhu.load_rules(*names)
        assert [rule.name for rule in rules.play_config.rules] == ["drop-the-pig"]
        base = gongzhu.load_rules(*names[:-1])
        assert rules.engines == base.engines


def test_a_void_seat_must_play_the_pig(installed: None) -> None:
    hand = start(gongzhu.load_rules("drop-the-pig"), ONE_DECK)
    play(hand, "2D")
    assert hand.legal_actions() == (Play.parse("QS"),)
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Play.parse("2H"))
    assert caught.value.refusal is not None
    assert caught.value.refusal.rule == "drop-the-pig"
    assert caught.value.refusal.message == (
        "2H: a seat that cannot follow suit must play the pig (♠Q)"
    )
    play(hand, "QS", "9D", "7S")
    assert hand.tricks[0].winner == 2


def test_leading_following_and_a_void_without_the_pig_are_free(installed: None) -> None:
    hand = start(gongzhu.load_rules("drop-the-pig"), ONE_DECK)
    play(hand, "2D", "QS", "9D", "7S")
    assert hand.to_move == 2  # seat 2 took the trick with ♦9 and leads: any card
    assert len(hand.legal_actions()) == len(hand.holding(2))
    play(hand, "8C")  # seat 3 holds no club and no pig: any card
    assert len(hand.legal_actions()) == len(hand.holding(3))
    play(hand, "AH", "2C")  # seat 0 follows suit freely
    assert len(hand.legal_actions()) == len(hand.holding(1))  # seat 1: its pig is gone


def test_without_the_plug_in_the_discard_is_free() -> None:
    hand = start(gongzhu.load_rules(), ONE_DECK)
    play(hand, "2D", "2H")


def test_a_lock_that_holds_the_pig_back_comes_first(installed: None) -> None:
    """华牌: a shown pig may not be discarded before spades are led; the rule gives way."""
    hand = start(gongzhu.load_rules("huapai", "drop-the-pig"), ONE_DECK, {1: "QS"})
    play(hand, "2D")
    legal = hand.legal_actions()
    assert Play.parse("QS") not in legal and len(legal) == 12


def test_two_decks_a_pair_led_requires_a_pig_in_the_discard(installed: None) -> None:
    hand = start(gongzhu.load_rules("two-deck", "drop-the-pig"), doubled(ONE_DECK))
    play(hand, "2D 2D")
    legal = hand.legal_actions()
    assert legal and all(PIG in play.cards for play in legal)
    assert Play.parse("QS QS") in legal and Play.parse("2S QS") in legal
    with pytest.raises(IllegalAction) as caught:
        hand.apply(Play.parse("2H 3H"))
    assert caught.value.refusal is not None
    assert caught.value.refusal.rule == "drop-the-pig"


def test_two_decks_one_card_led(installed: None) -> None:
    hand = start(gongzhu.load_rules("two-deck", "drop-the-pig"), doubled(ONE_DECK))
    play(hand, "2D")
    assert hand.legal_actions() == (Play.parse("QS"),)


def void_discards(hand: gongzhu.HandState) -> list[tuple[int, tuple[gongzhu.Card, ...], bool]]:
    """Each play of a seat holding no card of the led suit: (seat, cards, held a free pig)."""
    out = []
    held = [list(hand.dealt(seat)) for seat in range(4)]
    for trick in hand.tricks:
        led = trick.plays[0][1][0].suit
        for position, (seat, cards) in enumerate(trick.plays):
            if position and not any(card.suit is led for card in held[seat]):
                out.append((seat, cards, PIG in held[seat]))
            for card in cards:
                held[seat].remove(card)
    return out


@pytest.mark.parametrize("names", RULESETS, ids=lambda names: "+".join(names))
def test_random_hands_drop_the_pig_at_the_first_chance(
    installed: None, names: tuple[str, ...]
) -> None:
    rules = gongzhu.load_rules(*names)
    required = 0
    for seed in range(40):
        hand = rules.new_hand(seed=seed)
        bots = [RandomBot(seed * 4 + seat) for seat in range(4)]
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            hand.apply(bots[seat].choose(hand.view(seat)))
        shown_pig = {show.seat for show in hand.shows if PIG in (show.cards or ())}
        for seat, cards, held_pig in void_discards(hand):
            locked = "huapai" in names and seat in shown_pig
            if held_pig and not locked:
                assert PIG in cards, (seed, seat, cards)
                required += 1
        assert gongzhu.replay(hand.to_record()).score() == hand.score()
    assert required > 0


@pytest.mark.parametrize("names", RULESETS, ids=lambda names: "+".join(names))
def test_every_engine_plays_it_alike(installed: None, names: tuple[str, ...]) -> None:
    testing = pytest.importorskip("gongzhu.testing")
    rules = gongzhu.load_rules(*names)
    report = testing.check_ruleset(rules, hands=15)
    assert report.engines == tuple(spec.name for spec in rules.engines)
    assert len(report.engines) == (2 if gongzhu.engines.ACCELERATED else 1)


def test_simulate_runs_it_in_the_engine(installed: None) -> None:
    summary = gongzhu.simulate(gongzhu.load_rules("drop-the-pig"), 50, seed=2)
    assert summary.hands == 50


def test_the_rule_is_asked_only_where_it_can_matter(installed: None) -> None:
    """Asked only when the seat cannot follow suit and may play the pig: the example's
    rule, recording each situation it is asked about, on each engine."""
    example = gongzhu.load_rules("drop-the-pig").play_config.rules[0]
    assert example.when is PlayMoment.DISCARD and example.cards == PIG.bit
    asked: list[PlaySituation] = []

    def recording(situation: PlaySituation) -> int:
        asked.append(situation)
        assert example.require is not None
        return example.require(situation)

    class Recording:
        @hookimpl
        def gongzhu_variant_info(self) -> VariantInfo:
            return VariantInfo("recording", "drop-the-pig, recording")

        @hookimpl
        def gongzhu_play_config(self, config: PlayConfigurator) -> None:
            config.add_rule(attrs.evolve(example, require=recording))

    rules = gongzhu.Rules.from_plugins(Recording())
    for seed in range(20):
        hand = rules.new_hand(seed)
        hand.play_out(random.Random(seed).random)
    assert asked
    for situation in asked:
        assert situation.moment is PlayMoment.DISCARD
        assert situation.candidates & PIG.bit and situation.holds(PIG)

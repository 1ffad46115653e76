"""Each core hook, exercised through the test plug-ins in ``plugins.py``."""

from __future__ import annotations

import itertools
import operator
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import Phase, Play, Show, ShowKind
from gongzhu.cards import PIG, SHEEP, Card, Suit
from gongzhu.engines import ACCELERATED
from gongzhu.engines.base import PLAY, ShowingEngine, draw
from gongzhu.errors import IllegalAction, IncompatibleVariants, InvalidOption
from gongzhu.hand import HandState
from gongzhu.masks import ALL_CARDS, plays_of_mask
from gongzhu.play import (
    ILLEGAL,
    OVER_DETAIL,
    RULE_CODES,
    EngineSetup,
    EngineSpec,
    PlayMoment,
    PlayRule,
    PlaySituation,
)
from gongzhu.plugin import OpeningLead, Options, ShownCardLock, VariantInfo, hookimpl
from gongzhu.rules import Rules

from . import plugins
from .conftest import BOTH_ENGINES, deal_with, play, play_through_shows, rotation_holdings
from .test_hand import VOID_IN_CLUBS

pytestmark = BOTH_ENGINES  # hands are played: on both play engines

# -- a reference for the legal plays, written from the rules, not from the engine ----------


def reference_legal(hand: HandState, lifted: frozenset[int] = frozenset()) -> set[Card]:
    """The legal cards of the seat to move (``lifted``: seats whose lock was lifted for good)."""
    return reference(hand, lifted)[0]


def reference(hand: HandState, lifted: frozenset[int] = frozenset()) -> tuple[set[Card], bool]:
    """The legal cards, and whether the shown-card lock had to be lifted to find any."""
    rules = hand.rules
    seat = hand.to_move
    assert seat is not None
    cards = set(hand.holding(seat))
    lock = rules.shown_card_lock
    locked = set()
    if lock is not None and seat not in lifted:
        locked = {r.card for r in hand.show_records if r.seat == seat and r.kind not in lock.exempt}
    led_before = {t.plays[0][1][0].suit for t in hand.tricks}
    trick = hand.current_trick

    def count(suit):
        return sum(1 for c in cards if c.suit is suit)

    if not trick:
        if not hand.tricks and hand.explicit_leader is None and Card.parse("2C") in cards:
            return {Card.parse("2C")}, False
        legal = {
            c
            for c in cards
            if not (
                lock
                and lock.first_trick
                and c in locked
                and c.suit not in led_before
                and count(c.suit) > 1
            )
        }
        return (legal, False) if legal else (cards, True)
    led = trick[0][1][0].suit
    follow = {c for c in cards if c.suit is led}
    if follow:
        if lock and led not in led_before and len(follow) > 1:
            return follow - locked, False
        return follow, False
    legal = set(cards)
    discard = rules.discard_rule
    if discard is not None and discard.strict:
        preferred = {c for c in cards if c.suit in discard.preferred[led]}
        legal = preferred or legal
    without_lock = set(legal)
    if lock and lock.discard_before_led:
        legal = {c for c in legal if not (c in locked and c.suit not in led_before | {led})}
    return (legal, False) if legal else (without_lock, True)


RULESETS = [
    gongzhu.load_rules(),
    Rules.from_plugins(plugins.LockDiscards()),
    Rules.from_plugins(plugins.Colours(strict=True)),
    Rules.from_plugins(plugins.Colours(strict=False), plugins.LockDiscards()),
    Rules.from_plugins(plugins.Colours(strict=True), plugins.LockDiscards()),
]


@settings(max_examples=300, deadline=None)
@given(
    which=st.sampled_from(range(len(RULESETS))),
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
)
def test_engine_agrees_with_reference(which: int, seed: int, rng: random.Random) -> None:
    hand = RULESETS[which].new_hand(seed)
    while hand.phase is not Phase.PLAY:  # show a lot, so that locks matter
        hand.apply(max(hand.legal_actions(), key=lambda a: len(a.cards)))
    while not hand.is_over:
        legal = hand.legal_actions()
        assert {a.cards[0] for a in legal} == reference_legal(hand)
        hand.apply(rng.choice(legal))
    assert sorted(c for s in range(4) for c in hand.taken(s)) == list(gongzhu.full_deck())


@pytest.mark.parametrize("size", range(1, len(ShowKind) + 1))
def test_a_locks_exempt_kinds_print_in_definition_order(size: int) -> None:
    """Kinds hash by identity, so a set of them iterates in an order that changes from run
    to run; the lock's repr lists them in definition order, and any iterable of kinds is
    taken (as a frozenset)."""
    for kinds in itertools.combinations(ShowKind, size):
        lock = ShownCardLock(exempt=reversed(kinds))
        assert lock.exempt == frozenset(kinds)
        assert f"exempt=frozenset({{{', '.join(map(repr, kinds))}}})," in repr(lock)


@pytest.mark.parametrize("exempt", ["first", ["first"], [ShowKind.FIRST, None]])
def test_a_lock_exempts_only_show_kinds(exempt: object) -> None:
    with pytest.raises(InvalidOption, match=r"ShownCardLock\.exempt takes show kinds"):
        ShownCardLock(exempt=exempt)  # type: ignore[arg-type]


def test_a_lock_exempting_nothing_prints_an_empty_frozenset() -> None:
    assert "exempt=frozenset()," in repr(ShownCardLock(exempt=()))


# -- shown-card lock on discards, and lifting it when it leaves nothing ---------------------


def test_lock_on_discards() -> None:
    rules = Rules.from_plugins(plugins.LockDiscards())
    hand = rules.new_hand(deal=deal_with(VOID_IN_CLUBS))
    play_through_shows(hand, {2: "QS"})
    play(hand, "2C", "3C", "4C")
    assert Play.parse("QS") not in hand.legal_actions()
    with pytest.raises(IllegalAction, match="may not be discarded before ♠ has been led"):
        hand.apply(Play.parse("QS"))


def show_everything(hand: HandState) -> None:
    while hand.phase is not Phase.PLAY:
        hand.apply(max(hand.legal_actions(), key=lambda a: len(a.cards)))


# Seeds whose random playout (below) reaches a seat the lock leaves nothing, found by
# searching seeds 0-2999 with this test's procedure and the reference above.
STUCK_SEEDS = (707, 712, 1605, 2252, 2585)


@pytest.mark.parametrize("stuck", ["play", "hand"])
def test_a_lock_that_leaves_nothing_is_lifted(stuck: str) -> None:
    """Seeded random hands with every card shown: find the positions where the lock
    leaves a seat nothing, and check the engine lifts it as the option says."""
    rules = Rules.from_plugins(plugins.LockDiscards(stuck))
    found = 0
    for seed in [*range(100), *STUCK_SEEDS]:
        rng = random.Random(seed)
        hand = rules.new_hand(seed)
        show_everything(hand)
        lifted: set[int] = set()
        while not hand.is_over:
            expected, was_stuck = reference(hand, frozenset(lifted))
            legal = hand.legal_actions()
            assert {a.cards[0] for a in legal} == expected, (seed, len(hand.tricks))
            if was_stuck:
                found += 1
                if stuck == "hand" and hand.to_move is not None:
                    lifted.add(hand.to_move)
            hand.apply(rng.choice(legal))
    assert found >= len(STUCK_SEEDS), "the seeds no longer reach a stuck position: search again"


# -- the discard rule: strict and penalty ------------------------------------------------


def test_strict_discard_rule_narrows_discards() -> None:
    rules = Rules.from_plugins(plugins.Colours(strict=True))
    hand = rules.new_hand(deal=deal_with(VOID_IN_CLUBS))
    play_through_shows(hand)
    play(hand, "2C", "3C", "4C")
    assert {str(a) for a in hand.legal_actions()} == {"play 4S", "play 8S", "play QS"}
    with pytest.raises(
        IllegalAction,
        match=r"垫牌规则: a seat void in ♣ must discard a card of the same colour \(black\)",
    ):
        hand.apply(Play.parse("KH"))


PENALTY = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",  # seat 0: all clubs
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",  # seat 1: all spades (black: never offends)
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",  # seat 2: hearts only: no black card, no offence
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",  # seat 3: diamonds only
]


def test_discard_penalty_only_for_a_seat_holding_the_right_colour() -> None:
    rules = Rules.from_plugins(plugins.Colours(strict=False))
    hand = rules.new_hand(deal=deal_with(PENALTY))
    play_through_shows(hand)
    play(hand, "2C", "QS", "AH", "JD")
    trick = hand.tricks[0]
    assert trick.winner == 0 and trick.taker == 0 and not trick.penalty


MIXED = [
    "2C 3C 4C 5C 6C 7C 8C 9C JC QC KC AC AS",  # seat 0
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH KS",  # seat 1: void in clubs, holds ♠K
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD QS",  # seat 2: void in clubs, holds ♠Q
    "AH AD TC 2S 3S 4S 5S 6S 7S 8S 9S TS JS",  # seat 3
]


@pytest.mark.parametrize(("offender", "taker"), [("first", 1), ("last", 2)])
def test_two_offenders(offender: str, taker: int) -> None:
    rules = Rules.from_plugins(plugins.Colours(strict=False, offender=offender))
    hand = rules.new_hand(deal=deal_with(MIXED))
    play_through_shows(hand)
    play(hand, "2C", "KH", "JD", "TC")  # seats 1 and 2 discard red while holding black
    trick = hand.tricks[0]
    assert trick.winner == 3 and trick.taker == taker and trick.penalty
    assert hand.to_move == 3  # the winner still leads
    assert set(hand.taken(taker)) >= set(gongzhu.parse_cards("KH JD TC"))
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    lines = hand.score().explain(taker)
    assert lines[0] == "垫牌 penalty: took trick 1's scoring cards (♥K ♦J ♣10) from seat 3"
    assert "penalty" in str(hand.tricks[0])


# -- show kinds, first shows, secret sales, filters ---------------------------------------


def first_show_deal() -> gongzhu.Deal:
    holdings = rotation_holdings()
    holdings[2].remove(PIG)
    holdings[2].insert(0, PIG)  # seat 2's first card is the pig
    return gongzhu.Deal.from_holdings(holdings)


def test_first_show_is_decided_on_the_first_card_only() -> None:
    rules = Rules.from_plugins(plugins.ShowFamily())
    hand = rules.new_hand(deal=first_show_deal())
    assert hand.phase is Phase.FIRST_SHOW and hand.to_move == 2
    view = hand.view(2)
    assert view.holding == (PIG,)
    assert [str(a) for a in view.legal_actions] == ["first-show -", "first-show QS"]
    with pytest.raises(IllegalAction, match="首明 phase"):
        hand.apply(Show("QS"))
    hand.apply(Show("QS", ShowKind.FIRST))
    assert hand.phase is Phase.SHOW
    assert len(hand.view(2).holding) == 13
    with pytest.raises(IllegalAction, match="首明 is decided on the first dealt card only"):
        hand.apply(Show("", ShowKind.FIRST))
    play_through_shows(hand)
    # a first-shown card is exempt from the lock: seat 2 may lead it in the first spade trick
    play(hand, "2C", "3C", "4C", "5C")
    assert Play.parse("QS") in hand.legal_actions()
    assert hand.show_records[0].kind is ShowKind.FIRST


def test_first_show_factor_is_four() -> None:
    rules = Rules.from_plugins(plugins.ShowFamily())
    assert rules.score({0: "QS"}, first_shown={1: "QS"}).raw[0] == -400
    assert rules.score({0: "QS"}, secret={1: "QS"}).raw[0] == -200


def test_secret_sales_are_hidden_from_other_seats() -> None:
    rules = Rules.from_plugins(plugins.ShowFamily())
    hand = rules.new_hand(deal=gongzhu.Deal.from_holdings(rotation_holdings()))
    assert hand.phase is Phase.SHOW  # no seat's first card is showable
    actions = {str(a) for a in hand.legal_actions()}  # seat 3 holds ♦J ♣10; ♦J never openly
    assert actions == {"show -", "show TC", "sell JD", "sell TC", "sell JD TC"}
    hand.apply(Show("JD TC", ShowKind.SECRET))
    mine = hand.view(3).shows[0]
    theirs = hand.view(0).shows[0]
    assert mine.cards == (SHEEP, gongzhu.TRANSFORMER) and mine.count == 2
    assert theirs.cards is None and theirs.count == 2 and theirs.kind is ShowKind.SECRET
    assert hand.shown[3] == (SHEEP, gongzhu.TRANSFORMER)  # the full state knows


def test_filter_can_force_a_show() -> None:
    rules = Rules.from_plugins(plugins.MustShowPig())
    hand = rules.new_hand(deal=gongzhu.Deal.from_holdings(rotation_holdings()))
    while hand.to_move != 2:
        hand.apply(Show(()))
    assert all(PIG in a.cards for a in hand.legal_actions())
    with pytest.raises(IllegalAction, match="forbids this show"):
        hand.apply(Show(()))


def test_filter_that_leaves_nothing_is_a_plugin_error() -> None:
    """The show phase is compiled when the ruleset is built: the error comes then, naming
    the holding left without a show, before any hand is dealt."""
    with pytest.raises(
        IncompatibleVariants,
        match=r"the show filters of .*forbid-all leave no legal open show for a seat holding",
    ):
        Rules.from_plugins(plugins.ForbidAll())


# -- scoring stages, normalisation, matches --------------------------------------------------


def test_added_stage_and_normalisation() -> None:
    rules = Rules.from_plugins(plugins.Bonus())
    assert [s.name for s in rules.score_stages] == [
        "values",
        "full-hearts",
        "slam",
        "total",
        "bonus",
    ]
    sheet = rules.score({0: "QS"})
    assert sheet.raw == (-93, 0, 0, 0)
    assert sheet.final == (-186, 0, 0, 0)
    assert sheet.explain(0)[-3:] == [
        "bonus +7",
        "raw −93",
        "final −186 (39baobao: raw − (others' sum) / 3, rounded per seat (sum may be ±12), ×12)",
    ]


def test_match_hooks_and_leaders() -> None:
    rules = gongzhu.load_rules()
    match = rules.new_match(seed=4, hands=3)
    bots = [gongzhu.bots.RandomBot(s) for s in range(4)]
    first = match.new_hand()
    assert first.explicit_leader is None
    gongzhu.bots.play_hand(first, bots)
    match.record_hand(first)
    second = match.new_hand()
    assert second.leader == rules.next_leader(first)
    assert PIG in first.taken(second.leader)
    gongzhu.bots.play_hand(second, bots)
    match.record_hand(second)
    match.play(bots)
    assert match.is_over and len(match.hands) == 3
    totals = [sum(h.score().final[s] for h in match.hands) for s in range(4)]
    assert match.totals == totals
    assert match.losers == (totals.index(min(totals)),) or min(totals) == sorted(totals)[1]
    record = match.to_record()
    assert record["losers"] == list(match.losers) and len(record["hands"]) == 3


def test_target_match_with_two_losers() -> None:
    rules = Rules.from_plugins(plugins.Bonus())
    match = rules.new_match(seed=1, target=2000)
    match.play([gongzhu.bots.RandomBot(s) for s in range(4)])
    assert any(abs(t) >= 2000 for t in match.totals)
    assert match.losers == (
        match.totals.index(max(match.totals)),
        match.totals.index(min(match.totals)),
    )
    with pytest.raises(gongzhu.errors.GongzhuError, match="over"):
        match.new_hand()


def test_match_errors() -> None:
    rules = gongzhu.load_rules()
    with pytest.raises(gongzhu.errors.GongzhuError, match="never ends: give a target"):
        rules.new_match(seed=1).play([gongzhu.bots.FirstLegalBot()] * 4)
    with pytest.raises(gongzhu.errors.GongzhuError, match="positive"):
        rules.new_match(target=0)
    match = rules.new_match(seed=1, hands=1)
    with pytest.raises(gongzhu.errors.HandNotOver):
        match.record_hand(match.new_hand())
    with pytest.raises(gongzhu.errors.GongzhuError, match="not over"):
        match.losers  # noqa: B018


# -- the play layer: configuration, engines, play rules ------------------------------------


class AnyCardEngine(ShowingEngine):
    """A third party's engine, registered by its own plug-in: the show phases of the public
    base (:class:`~gongzhu.engines.base.ShowingEngine`), and a play phase of its own in
    which any held card may be played (no follow-suit; only the opening lead binds)."""

    __slots__ = ("taken", "trick", "trick_leader", "trick_log")

    def __init__(
        self,
        setup: EngineSetup,
        holdings: Sequence[int],
        leader: int,
        forced: int,
        first_seat: int,
        first_cards: Sequence[int],
    ) -> None:
        masks = [operator.index(h) for h in holdings]
        union = 0
        for held in masks:
            if not 0 <= held <= ALL_CARDS or union & held:
                raise ValueError("holdings: expected four disjoint 52-bit card masks")
            union |= held
        if len(masks) != 4:
            raise ValueError("holdings: expected four 52-bit card masks")
        self.taken = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.trick_leader = leader
        self.trick_log: list[tuple[int, tuple[int, ...], int, int]] = []
        super().__init__(setup, masks, leader, forced, first_seat, first_cards)

    @property
    def trick_count(self) -> int:
        return len(self.trick_log)

    def shown_taken(self) -> None:
        return None

    def _start_play(self) -> None:
        self.seat = self.trick_leader = self.leader

    def _legal_mask(self) -> int:
        held = self.holdings[self.seat]
        return self.forced & held or held  # the opening lead, then any card

    def _legal_plays(self) -> tuple[Play, ...]:
        return plays_of_mask(self._legal_mask())

    def refusal(self, key: int) -> tuple[int, int] | None:
        if self.phase != PLAY:
            return (RULE_CODES["holding"], OVER_DETAIL)
        if type(key) is not int or not 0 <= key < 52:
            return (RULE_CODES["play-shape"], 0)
        if not self.holdings[self.seat] >> key & 1:
            return (RULE_CODES["holding"], 0)
        if not self._legal_mask() >> key & 1:
            return (RULE_CODES["opening-lead"], self.forced.bit_length() - 1)
        return None

    def play(self, key: int) -> int:
        if self.phase != PLAY or self.refusal(key) is not None:
            return ILLEGAL
        seat = self.seat
        self.holdings[seat] &= ~(1 << key)
        self.forced = 0
        self.trick.append(key)
        if len(self.trick) < 4:
            self.seat = (seat + 1) & 3
            return self.seat
        trick, leader = self.trick, self.trick_leader
        led = trick[0] // 13
        position = max(range(4), key=lambda i: (trick[i] // 13 == led, trick[i]))
        winner = (leader + position) & 3
        for played in trick:
            self.taken[winner] |= 1 << played
        self.trick_log.append((leader, tuple(trick), winner, winner))
        self.trick = []
        self.trick_leader = winner
        if self.holdings[winner]:
            self.seat = winner
        else:
            self._finish()
        return self.seat

    def _random_plays(self, random: Callable[[], float]) -> None:
        while self.phase == PLAY:
            plays = self._legal_plays()
            self.play(plays[draw(random, len(plays))].key)

    def _copy_play(self, new: Any) -> None:
        new.taken = self.taken[:]
        new.trick = self.trick[:]
        new.trick_leader = self.trick_leader
        new.trick_log = self.trick_log[:]


class AnyCardPlugin:
    """Registers an engine that declares only 'one-deck': it can play a ruleset without a lock."""

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("any-card", "Any card")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.set("shown_card_lock", None, overrides="39baobao")

    @hookimpl
    def gongzhu_play_engines(self, engines):
        engines.add(EngineSpec("any-card", AnyCardEngine, {"one-deck", "singles"}, speed=1000))


def test_a_third_party_engine_is_chosen_when_fastest() -> None:
    rules = Rules.from_plugins(AnyCardPlugin())
    assert rules.engines[0].name == "any-card"  # the fastest able
    assert "single-python" in [spec.name for spec in rules.engines[1:]]
    hand = rules.new_hand(1, leader=0, engine="any-card")
    assert hand.engine_spec is rules.engines[0] and type(hand.engine) is AnyCardEngine
    play_through_shows(hand)
    hand.apply(hand.legal_actions()[0])
    assert len(hand.legal_actions()) == 13  # no need to follow suit
    assert type(hand.clone().engine) is AnyCardEngine
    # the core's engines still play it when asked by name
    strict = rules.new_hand(1, leader=0, engine="single-python")
    play_through_shows(strict)
    strict.apply(strict.legal_actions()[0])
    assert len(strict.legal_actions()) < 13
    # the base plays its show phases, auto-show and all, in a random playout too
    whole = rules.new_hand(2, engine="any-card")
    assert whole.phase is not Phase.PLAY
    whole.play_out(random.Random(2).random)
    assert whole.is_over and len(whole.tricks) == 13
    assert sorted(c for s in range(4) for c in whole.taken(s)) == list(gongzhu.full_deck())
    assert whole.returns() == whole.score().final


def test_unknown_engine_name_is_refused() -> None:
    with pytest.raises(IncompatibleVariants, match="no play engine 'nope'"):
        gongzhu.load_rules().new_hand(1, engine="nope")


class TwoDecksNoPairs:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("two-decks-no-pairs", "Two decks without pairs")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.set("deck_copies", 2)


def test_a_configuration_no_engine_implements_is_refused_naming_the_features() -> None:
    with pytest.raises(
        IncompatibleVariants, match=r"lacks (two-decks|singles) \(set by two-decks-no-pairs\)"
    ):
        Rules.from_plugins(TwoDecksNoPairs())
    with pytest.raises(IncompatibleVariants, match=r"discard-rule-penalty \(set by same-colour"):
        gongzhu.load_rules("two-deck", "same-colour-discard")


class OtherLock:
    def __init__(self, overrides=()):
        self.overrides = overrides

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("other-lock", "Other lock")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.set("shown_card_lock", ShownCardLock(stuck="hand"), overrides=self.overrides)


def test_a_field_has_one_owner_unless_overridden() -> None:
    with pytest.raises(IncompatibleVariants, match="set by both 'other-lock' and '39baobao'"):
        Rules.from_plugins(OtherLock())
    rules = Rules.from_plugins(OtherLock(overrides="39baobao"))
    assert rules.shown_card_lock == ShownCardLock(stuck="hand")
    assert rules.play_config.owner("shown_card_lock") == "other-lock"


class BadSetting:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("bad-setting", "Bad setting")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.set("trump_suit", "hearts")


def test_unknown_play_setting_is_refused() -> None:
    with pytest.raises(IncompatibleVariants, match="unknown play setting 'trump_suit'"):
        Rules.from_plugins(BadSetting())


def no_clubs_led(situation: PlaySituation) -> int:
    return Suit.CLUBS.mask if situation.leading else 0


class NoClubLeads:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("no-club-leads", "No club leads")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.add_rule(PlayRule("no-club-leads", no_clubs_led, "{card}: clubs may not be led"))


def test_a_play_rule_runs_on_every_engine_and_explains_its_refusals() -> None:
    rules = Rules.from_plugins(NoClubLeads())
    assert "play-rules" in rules.play_config.features
    able = {"single-python", "single-c"} if ACCELERATED else {"single-python"}
    assert {spec.name for spec in rules.engines} == able  # the C engine plays rules too
    for spec in rules.engines:
        hand = rules.new_hand(deal=deal_with_rotation(), leader=3, engine=spec.name)
        play_through_shows(hand)
        assert hand.legal_actions()
        assert all(p.cards[0].suit is not Suit.CLUBS for p in hand.legal_actions())
        with pytest.raises(IllegalAction, match="2C: clubs may not be led") as info:
            hand.apply(Play.parse("2C"))
        assert info.value.refusal.rule == "no-club-leads", spec.name


def must_discard_the_pig(situation: PlaySituation) -> int:
    return PIG.bit


class PigFirst:
    """A seat that cannot follow and holds the pig must discard it (a rule that requires)."""

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("pig-first", "Pig first")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.add_rule(
            PlayRule(
                "pig-first",
                require=must_discard_the_pig,
                reason="{card}: discard the pig first",
                when=PlayMoment.DISCARD,
                cards=PIG.bit,
            )
        )


def test_a_requiring_play_rule_runs_on_every_engine() -> None:
    rules = Rules.from_plugins(PigFirst())
    assert len(rules.engines) == (2 if ACCELERATED else 1)
    for spec in rules.engines:
        hand = rules.new_hand(deal=deal_with(VOID_IN_CLUBS), engine=spec.name)
        play_through_shows(hand)
        play(hand, "2C", "3C", "4C")
        assert hand.to_move == 2  # void in clubs, holding the pig
        assert hand.legal_actions() == (Play.parse("QS"),), spec.name
        with pytest.raises(IllegalAction, match="3H: discard the pig first") as info:
            hand.apply(Play.parse("3H"))
        assert info.value.refusal.rule == "pig-first"
        play(hand, "QS")
        assert hand.tricks[0].winner == 1 and PIG in hand.taken(1)


def test_refusals_name_the_core_rule() -> None:
    hand = gongzhu.load_rules().new_hand(deal=deal_with_rotation())
    play_through_shows(hand)
    with pytest.raises(IllegalAction) as info:
        hand.apply(Play.parse("6C"))
    assert info.value.refusal.rule == "opening-lead"
    hand.apply(Play.parse("2C"))
    with pytest.raises(IllegalAction) as info:
        hand.apply(Play.parse("2S"))
    assert info.value.refusal.rule == "follow-suit"


def deal_with_rotation():
    return gongzhu.Deal.from_holdings(rotation_holdings())


class TwoDecksWithPairs:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("two-decks-with-pairs", "Two decks with pairs")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.set("deck_copies", 2)
        config.set("pairs", True)


def test_the_old_segfault_recipe_ends_cleanly() -> None:
    """Two decks from a third party's plug-in used to reach the single-deck C engine."""
    rules = Rules.from_plugins(TwoDecksWithPairs())
    assert rules.engine_spec.name.startswith("pairs-")
    assert gongzhu.simulate(rules, 3, seed=1).hands == 3
    two_deck_masks = gongzhu.HandState._deal_masks(gongzhu.Deal.shuffled(1, copies=2))
    one_deck = gongzhu.load_rules()
    for spec in one_deck.engines:  # every single-deck engine refuses them
        with pytest.raises(ValueError, match=r"mask|overlap"):
            one_deck.make_engine(spec, two_deck_masks, 0, 0, 0, [0, 1, 2, 3])


@settings(max_examples=150, deadline=None)
@given(
    names=st.sampled_from([(), ("two-deck",), ("same-colour-discard",), ("huapai", "two-deck")]),
    data=st.data(),
)
def test_malformed_deals_end_in_a_gongzhu_error_on_every_engine(names, data) -> None:
    """A deal with a card missing, doubled or foreign never reaches an engine."""
    rules = gongzhu.load_rules(*names)
    cards = list(gongzhu.full_deck(rules.table.copies))
    data.draw(st.randoms(use_true_random=False)).shuffle(cards)
    how = data.draw(st.sampled_from(["drop", "double", "short", "third-deck"]))
    if how == "drop":  # a card replaced by a copy of another: one missing, one too many
        cards[0] = next(card for card in cards if card != cards[0])
    elif how == "double":
        cards.append(cards[0])
    elif how == "short":
        cards = cards[: data.draw(st.integers(0, len(cards) - 1))]
    else:
        cards += list(gongzhu.full_deck(1))
    for spec in rules.engines:
        with pytest.raises(gongzhu.errors.GongzhuError):
            rules.new_hand(deal=cards, engine=spec.name)


class _PositionalOnly:
    """Hook implementations whose parameters are positional-only (pluggy passes
    arguments by position) or fewer than the spec's."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("positional", "positional-only hook parameters")

    @hookimpl(tryfirst=True)
    def gongzhu_normalise(self, raw: tuple[int, ...], options: Options, /) -> tuple[int, ...]:
        return tuple(value * (2 if options["zero_sum"] == "exact" else 3) for value in raw)

    @hookimpl(tryfirst=True)
    def gongzhu_opening_lead(self) -> OpeningLead:  # takes none of the spec's arguments
        return OpeningLead(2)


def test_hooks_asked_per_hand_take_positional_only_and_fewer_parameters() -> None:
    rules = Rules.from_plugins(_PositionalOnly())
    assert rules.normalise((1, 2, 3, -6)) == (3, 6, 9, -18)
    hand = rules.new_hand(1)
    assert hand.leader == 2
    hand.play_out(random.Random(1).random)
    assert hand.returns() == rules.normalise(hand.raw_scores()) == hand.score().final
    assert gongzhu.simulate(rules, 3).hands == 3

"""The 华牌 rules, the showing family (暗卖, 逼明, 除羊全明, 分牌全明) and matches (双豬)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import HEART_ACE, PIG, SHEEP, TRANSFORMER, Phase, Play, Show, ShowKind
from gongzhu.bots import FirstLegalBot, RandomBot, play_hand
from gongzhu.errors import IllegalAction, IncompatibleVariants

from .conftest import BOTH_ENGINES, deal_with, play
from .test_properties import play_and_check

pytestmark = BOTH_ENGINES  # hands are played: on both play engines

ALL_HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
EVERYTHING = ALL_HEARTS + " QS JD TC"


@pytest.fixture
def huapai() -> gongzhu.Rules:
    return gongzhu.load_rules("huapai")


def finish_shows(hand: gongzhu.HandState, shows: dict[int, str] | None = None) -> None:
    """Decline every 首明, then show what ``shows`` says (else nothing)."""
    shows = shows or {}
    while hand.phase is Phase.FIRST_SHOW:
        hand.apply(Show((), ShowKind.FIRST))
    while hand.phase is Phase.SHOW:
        seat = hand.to_move
        assert seat is not None
        hand.apply(Show(shows.get(seat, "")))


# -- source 001's worked examples ------------------------------------------------------------


def test_source001_example_1_through_score(huapai: gongzhu.Rules) -> None:
    """豬，明紅桃6、8、10、J，變壓器 = (−100 + (−20×3) + (−40)) × 2 = −400."""
    sheet = huapai.score({0: "QS 6H 8H TH JH TC"}, shown={3: "AH"})
    assert sheet.raw[0] == -400
    assert sheet.final == sheet.raw  # 华牌: no normalisation


def test_source001_example_2_through_score(huapai: gongzhu.Rules) -> None:
    """明豬，明全紅，變壓器，自得羊 (豬羊滿圈) = (200 + 400 + 200) × 2 = 1600."""
    dealt = {0: "JD", 1: "TC", 2: "QS", 3: "AH"}
    sheet = huapai.score({0: EVERYTHING}, shown={2: "QS", 3: "AH"}, dealt=dealt)
    assert sheet.raw[0] == 1600
    assert sheet.slam[0] and sheet.full_hearts[0]
    assert "自得 self-capture ♦J: now +200 (+100 ×2)" in sheet.explain(0)


EXAMPLE_1_DEAL = [
    "3S AC KC QC JC 9C 8C 7C 6C 5C 4C 3C 2C",  # seat 0: ♠3 leads; clubs only after it
    "TC 8H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",  # seat 1: ♣10 is its only club
    "QS TH 2S 4S 5S 6S 7S 8S 9S TS JS KS AS",  # seat 2
    "6H JH AH 2H 3H 4H 5H 7H 9H QH KH KD AD",  # seat 3: shows ♥A
]


def test_source001_example_1_through_a_played_hand(huapai: gongzhu.Rules) -> None:
    hand = huapai.new_hand(deal=deal_with(EXAMPLE_1_DEAL))
    assert hand.leader == 0  # the ♠3 holder
    finish_shows(hand, {3: "AH"})
    play(hand, "AC", "TC", "QS", "6H")  # ♣10 must follow; the void seats discard
    play(hand, "KC", "8H", "TH", "JH")
    play(
        hand, "3S", "2D", "AS", "2H"
    )  # seat 0 loses the lead; with clubs only, it never wins again
    play_hand(hand, [FirstLegalBot()] * 4)
    assert set(hand.taken(0)) >= set(gongzhu.parse_cards("QS 6H 8H TH JH TC"))
    sheet = hand.score()
    assert sheet.captured[0] == tuple(sorted(gongzhu.parse_cards("QS 6H 8H TH JH TC")))
    assert sheet.raw[0] == -400


EXAMPLE_2_DEAL = [
    "AD KD QD JD AC KC QC JC 9C 8C 7C 6C 5C",  # seat 0: wins every trick; dealt the sheep
    "TC 2S 3S 4S 5S 6S 7S 8S 2H 3H 4H 5H 6H",  # seat 1: ♣10 is its only club
    "QS 2C 9S TS JS KS AS 7H 8H 9H TH 2D 3D",  # seat 2: shows the pig
    "AH 3C 4C KH QH JH 4D 5D 6D 7D 8D 9D TD",  # seat 3: shows ♥A
]


def test_source001_example_2_through_a_played_hand(huapai: gongzhu.Rules) -> None:
    """A slam with a shown pig, ♥A shown, ♣10 and the sheep taken back: 1600.

    Spades and hearts are never led, so the holders of the shown pig and ♥A end
    up with nothing else: the lock lifts for that play, as the default option says.
    """
    hand = huapai.new_hand(deal=deal_with(EXAMPLE_2_DEAL), leader=0)
    finish_shows(hand, {2: "QS", 3: "AH"})
    for lead in ["AC", "KC", "QC", "JC", "9C", "8C", "7C", "6C", "5C", "AD", "KD", "QD", "JD"]:
        play(hand, lead)
        for _ in range(3):
            hand.apply(hand.legal_actions()[0])
    assert [t.winner for t in hand.tricks] == [0] * 13
    sheet = hand.score()
    assert sheet.slam[0]
    assert sheet.raw == (1600, 0, 0, 0)


# -- 首明 ------------------------------------------------------------------------------


FIRST_CARD_PIG = [
    "QS 3S 2C 5C 6C 7C 8C 9C JC QC KC AC 2D",  # seat 0: its first card is the pig
    "TC 2S 4S 5S 6S 7S 8S 9S TS JS 3C 4C 3D",
    "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
    "JD KS AS 4D 5D 6D 7D 8D 9D TD QD KD AD",
]


def test_first_show_is_decided_blind(huapai: gongzhu.Rules) -> None:
    hand = huapai.new_hand(deal=deal_with(FIRST_CARD_PIG))
    assert hand.phase is Phase.FIRST_SHOW
    order = []
    while hand.phase is Phase.FIRST_SHOW:
        seat = hand.to_move
        assert seat is not None
        view = hand.view(seat)
        assert len(view.holding) == 1 and view.holding == (hand.deal.first_card(seat),)
        assert view.holding_sizes == (1, 1, 1, 1)
        order.append(seat)
        hand.apply(Show(view.holding, ShowKind.FIRST) if seat == 0 else Show((), ShowKind.FIRST))
    assert order == [0, 1, 2, 3]  # every first card here is showable: ♠Q, ♣10, ♥A, ♦J
    assert hand.show_records[0].kind is ShowKind.FIRST
    # the first-shown pig cannot be shown again, and the rest of the hand is seen now
    assert all(PIG not in a.cards for a in hand.legal_actions())


def test_first_shown_card_scores_x4_and_is_not_locked(huapai: gongzhu.Rules) -> None:
    assert huapai.score({1: "QS"}, first_shown={0: "QS"}).raw[1] == -400
    assert huapai.score({1: "JD"}, first_shown={0: "JD"}).raw[1] == 400
    assert huapai.score({1: "TC JD"}, first_shown={0: "TC"}).raw[1] == 800
    assert huapai.score({1: "KH"}, first_shown={0: "AH"}).raw[1] == -160
    hand = huapai.new_hand(deal=deal_with(FIRST_CARD_PIG))
    hand.apply(Show("QS", ShowKind.FIRST))
    finish_shows(hand)
    # seat 0 leads (♠3): the first-shown pig is free in the first spade trick
    assert hand.to_move == 0 and Play.parse("QS") in hand.legal_actions()


def test_openly_shown_card_is_locked_under_huapai(huapai: gongzhu.Rules) -> None:
    hand = huapai.new_hand(deal=deal_with(FIRST_CARD_PIG))
    finish_shows(hand, {0: "QS"})
    assert Play.parse("QS") not in hand.legal_actions()
    with pytest.raises(IllegalAction, match="QS was shown"):
        hand.apply(Play.parse("QS"))


# -- 自得 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("taken", "dealt", "shown", "raw"),
    [
        ("QS", "QS", {}, -200),  # pig taken back: −100 ×2
        ("QS", "QS", {0: "QS"}, -400),  # shown and taken back
        ("QS", "JD", {}, -100),  # someone else's pig: no 自得
        ("JD", "JD", {}, 200),  # the unshown self-captured sheep of source 001
        ("JD", "JD", {0: "JD"}, 400),
        ("AH KH", "AH", {}, -140),  # only the ♥A itself doubles
        ("AH KH", "AH", {0: "AH"}, -280),  # ♥A shown: every heart ×2, the ♥A ×2 again
        ("TC", "TC", {}, 100),  # alone-value doubles
        ("TC QS", "TC", {}, -400),  # multiplier doubles: ×4
    ],
)
def test_self_capture(huapai: gongzhu.Rules, taken: str, dealt: str, shown: dict, raw: int) -> None:
    sheet = huapai.score({0: taken}, shown=shown, dealt={0: dealt})
    assert sheet.raw[0] == raw


@pytest.mark.parametrize(
    ("option", "alone", "with_pig"), [("alone", 100, -200), ("none", 50, -200)]
)
def test_self_captured_transformer_option(option: str, alone: int, with_pig: int) -> None:
    rules = gongzhu.load_rules("huapai", zide_transformer=option)
    assert rules.score({0: "TC"}, dealt={0: "TC"}).raw[0] == alone
    assert rules.score({0: "TC QS"}, dealt={0: "TC"}).raw[0] == with_pig


def test_self_capture_needs_the_deal(huapai: gongzhu.Rules) -> None:
    assert huapai.score({0: "QS"}).raw[0] == -100


# -- the showing family -----------------------------------------------------------------


ROTATION = [
    "2S 6S TS AS 5H 9H KH 4D 8D QD 3C 7C JC",
    "3S 7S JS 2H 6H TH AH 5D 9D KD 4C 8C QC",
    "4S 8S QS 3H 7H JH 2D 6D TD AD 5C 9C KC",
    "5S 9S KS 4H 8H QH 3D 7D JD 2C 6C TC AC",
]


def legal_shows_by_seat(rules: gongzhu.Rules) -> dict[int, list[str]]:
    hand = rules.new_hand(deal=deal_with(ROTATION))
    out: dict[int, list[str]] = {}
    while (seat := hand.to_move) is not None and hand.phase is Phase.SHOW:
        out[seat] = [str(a) for a in hand.legal_actions()]
        hand.apply(hand.legal_actions()[0])
    return out


def test_chuyang_quanming_forces_all_but_the_sheep() -> None:
    shows = legal_shows_by_seat(gongzhu.load_rules("chuyang-quanming"))
    assert shows == {3: ["show TC"], 0: ["show -"], 1: ["show AH"], 2: ["show QS"]}
    hand = gongzhu.load_rules("chuyang-quanming").new_hand(deal=deal_with(ROTATION))
    with pytest.raises(IllegalAction, match="forbids this show"):
        hand.apply(Show("JD TC"))  # the sheep must not be shown


def test_fenpai_quanming_forces_everything() -> None:
    shows = legal_shows_by_seat(gongzhu.load_rules("fenpai-quanming"))
    assert shows == {3: ["show JD TC"], 0: ["show -"], 1: ["show AH"], 2: ["show QS"]}


def test_biming_adds_the_fourth_show_to_huapai() -> None:
    for names, forced in ((("huapai",), False), (("huapai", "biming"), True)):
        hand = gongzhu.load_rules(*names).new_hand(deal=deal_with(ROTATION))
        finish_shows(hand, {3: "JD TC", 2: "QS"})
        assert (hand.shown[1] == (HEART_ACE,)) is forced


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("fenpai-quanming", "chuyang-quanming"), "cannot be combined with 'chuyang-quanming'"),
        (("huapai", "fenpai-quanming"), "分牌全明.*首明 first shows"),
        (("huapai", "chuyang-quanming"), "除羊全明.*首明 first shows"),
        (("anmai", "fenpai-quanming"), "暗卖 secret sales"),
        (("huapai", "39baobao"), "are both bases"),
    ],
)
def test_refused_combinations(names: tuple[str, ...], message: str) -> None:
    with pytest.raises(IncompatibleVariants, match=message):
        gongzhu.load_rules(*names)


def test_anmai_hides_which_cards_were_sold() -> None:
    rules = gongzhu.load_rules("anmai")
    hand = rules.new_hand(deal=deal_with(ROTATION))
    assert "sell JD TC" in [str(a) for a in hand.legal_actions()]
    hand.apply(Show("JD TC", ShowKind.SECRET))
    seen_by_0 = hand.view(0).shows
    assert [(s.seat, s.count, s.cards, s.kind) for s in seen_by_0] == [
        (3, 2, None, ShowKind.SECRET)
    ]
    assert "JD" not in repr(seen_by_0) and "TC" not in repr(seen_by_0)
    assert hand.view(3).shows[0].cards == (SHEEP, TRANSFORMER)
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    # revealed at the end: the record and the score sheet name the cards
    assert hand.to_record()["shows"][0] == {
        "seat": 3,
        "kind": "secret",
        "cards": ["JD", "TC"],
        "forced": False,
    }
    assert [(r.seat, str(r.card), r.kind) for r in hand.score().shows] == [
        (3, "JD", ShowKind.SECRET),
        (3, "TC", ShowKind.SECRET),
    ]


def test_sold_cards_score_as_shown_and_play_freely() -> None:
    rules = gongzhu.load_rules("anmai")
    assert rules.score({0: "QS"}, secret={1: "QS"}).raw[0] == -200
    lines = rules.score({0: "QS"}, secret={1: "QS"}).explain(0)
    assert lines[0] == "pig ♠Q −100 ×2 (sold 暗卖)"
    hand = rules.new_hand(deal=deal_with(ROTATION), leader=2)
    while hand.phase is Phase.SHOW:
        seat = hand.to_move
        hand.apply(Show("QS", ShowKind.SECRET) if seat == 2 else Show(()))
    assert Play.parse("QS") in hand.legal_actions()  # no lock on a sold card


# -- matches ------------------------------------------------------------------------------


def test_huapai_match_ends_at_1000_with_the_lowest_as_loser(huapai: gongzhu.Rules) -> None:
    match = huapai.new_match(seed=3)
    match.play([RandomBot(seat) for seat in range(4)])
    totals = match.totals
    assert any(abs(t) >= 1000 for t in totals)
    before = [sum(h.score().final[s] for h in match.hands[:-1]) for s in range(4)]
    assert all(abs(t) < 1000 for t in before)  # it ended at the first hand that got there
    assert match.losers == tuple(s for s in range(4) if totals[s] == min(totals))
    for hand in match.hands:
        assert hand.explicit_leader is None  # 华牌: the ♠3 holder leads every hand
        assert gongzhu.Card.parse("3S") in hand.dealt(hand.leader)


def test_match_target_800() -> None:
    rules = gongzhu.load_rules("huapai", match_target=800)
    match = rules.new_match(seed=3)
    match.play([RandomBot(seat) for seat in range(4)])
    assert any(abs(t) >= 800 for t in match.totals)


def test_shuangzhu_makes_highest_and_lowest_lose() -> None:
    plain = gongzhu.load_rules("huapai").new_match(seed=3)
    double = gongzhu.load_rules("huapai", "shuangzhu").new_match(seed=3)
    for match in (plain, double):
        match.play([RandomBot(seat) for seat in range(4)])
    assert plain.totals == double.totals  # same deals, same play
    totals = double.totals
    high, low = totals.index(max(totals)), totals.index(min(totals))
    assert plain.losers == (low,)
    assert double.losers == tuple(sorted({high, low}))
    assert double.to_record()["losers"] == sorted({high, low})


def test_39baobao_match_adds_the_x12_finals() -> None:
    match = gongzhu.load_rules("shuangzhu").new_match(seed=1, hands=3)
    match.play([RandomBot(seat) for seat in range(4)])
    assert match.totals == [sum(h.score().final[s] for h in match.hands) for s in range(4)]
    assert all(t % 12 == 0 for t in match.totals)


# -- random hands under every combination -----------------------------------------------------

COMBINATIONS = [
    names
    for base in ("39baobao", "huapai")
    for extra in itertools.chain.from_iterable(
        itertools.combinations(
            ("anmai", "biming", "chuyang-quanming", "fenpai-quanming", "shuangzhu"), n
        )
        for n in range(3)
    )
    if (names := (base, *extra))
    and not ({"chuyang-quanming", "fenpai-quanming"} <= set(names))
    and not (
        {"chuyang-quanming", "fenpai-quanming"} & set(names) and {"huapai", "anmai"} & set(names)
    )
]


def test_combinations_cover_the_family() -> None:
    assert ("huapai", "anmai", "biming") in COMBINATIONS
    assert ("39baobao", "biming", "chuyang-quanming") in COMBINATIONS
    assert len(COMBINATIONS) >= 12
    for names in COMBINATIONS:
        gongzhu.load_rules(*names)


@settings(max_examples=250, deadline=None)
@given(
    names=st.sampled_from(COMBINATIONS),
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
)
def test_random_hands_under_every_combination(
    names: tuple[str, ...], seed: int, rng: random.Random
) -> None:
    play_and_check(gongzhu.load_rules(*names), seed, rng, zero_sum="39baobao" in names)

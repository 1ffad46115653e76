"""The heuristic bot: each rule of thumb fires on a scripted position made for it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import gongzhu
from gongzhu import Deal, Phase, Play, Show, ShowKind
from gongzhu.bots import (
    PLAY_RULES,
    SHOW_RULES,
    HeuristicBot,
    RulesBot,
    Situation,
    avoid_transformer_with_negatives,
    capture_own_sheep,
    discard_dangerous_cards,
    discard_pig_guards,
    duck_under_when_hearts_in_trick,
    dump_big_hearts_on_discard,
    dump_pig_on_discard,
    dump_transformer_on_loser,
    first_show_decision,
    guard_pig_until_safe,
    hunt_pig_with_low_spades,
    lead_low_safe_card,
    make_bot,
    natural_following,
    play_hand,
    run_full_hearts,
    safe_fallback,
    shed_high_card_when_last_and_clean,
    show_decision,
    take_sheep_when_safe,
    void_short_suit,
)
from gongzhu.bots.heuristic import (
    CHECK_SAMPLES,
    CHECK_SHARES,
    CHECK_WHERE,
    points_at_stake,
)
from gongzhu.bots.rulebook import alike_plays
from gongzhu.hand import HandState

RULES = gongzhu.load_rules()

# Deal 1: seat 1 is void in clubs and holds the pig; seat 2 holds the ♦A.
DEAL1 = (
    "AC KC QC JC TC 9C 8C 2S 3S 4S 2H 3H 4H",
    "QS AS KS 5S 6S AH KH QH 2D 3D 4D 5D 6D",
    "7C 6C 5C 7S 8S 9S JH TH 9H 7D 8D 9D AD",
    "4C 3C 2C TS JS 8H 7H 6H 5H JD QD KD TD",
)
# Deal 2: seat 0 has two small diamonds.
DEAL2 = (
    "2D 3D AC KC QC JC TC 9C 8C 2S 3S 4S 2H",
    "QS AS KS 5S 6S AH KH QH 3H 4D 5D 6D 4H",
    "7C 6C 5C 7S 8S 9S JH TH 9H 7D 8D 9D AD",
    "4C 3C 2C TS JS 8H 7H 6H 5H JD QD KD TD",
)
# Deal 4: seat 0 has no hearts.
DEAL4 = (
    "AC KC QC JC TC 9C 8C 7C 2S 3S 4S 2D 3D",
    "QS AS KS 5S 6S AH KH QH 2H 3H 5D 6D 4H",
    "6C 5C 4C 7S 8S 9S JH TH 9H 7D 8D 9D AD",
    "3C 2C 4D TS JS 8H 7H 6H 5H JD QD KD TD",
)
# Deal 5: the ♠A is seat 3's, the pig seat 1's.
DEAL5 = (
    "AC KC QC JC TC 9C 8C 2S 3S 4S 2D 3D 4D",
    "QS TS KS 5S 6S AH KH QH 2H 3H 5D 6D 4H",
    "7C 6C 5C 7S 8S 9S JH TH 9H 7D 8D 9D AD",
    "4C 3C 2C AS JS 8H 7H 6H 5H JD QD KD TD",
)
# Deal 6: long suits: seat 0 eight top hearts, seat 1 the pig and eight spades.
DEAL6 = (
    "AH KH QH JH TH 9H 8H 7H 2C 3C 4C 5C 6C",
    "QS 6H 5H 4H 3H 2H AS KS JS TS 9S 8S 7S",
    "6S 5S 4S 3S 2S AD KD QD JD TD 9D 8D 7D",
    "6D 5D 4D 3D 2D AC KC QC JC TC 9C 8C 7C",
)
# Deal 7: one suit each, nearly.
DEAL7 = (
    "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    "QS 2S 3S 4S 5S 6S 7S 8S 9S TS JS 2H 3H",
    "AS KS 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
)


def position(
    holdings: Sequence[str],
    plays: Sequence[str] = (),
    *,
    leader: int = 0,
    rules: gongzhu.Rules = RULES,
    shows: Sequence[Show] | None = None,
) -> HandState:
    """A hand dealt ``holdings``, led by ``leader``, with no shows (or ``shows``) and ``plays``."""
    hand = rules.new_hand(deal=Deal.from_holdings(list(holdings)), leader=leader)
    for show in shows if shows is not None else [Show(())] * 4:
        hand.apply(show)
    for play in plays:
        hand.apply(Play.parse(play))
    return hand


def situation(hand: HandState, rules: gongzhu.Rules = RULES) -> Situation:
    seat = hand.to_move
    assert seat is not None
    return Situation(hand.view(seat), rules)


def test_every_rule_is_named_and_cites_its_advice() -> None:
    for rule in (*PLAY_RULES, *SHOW_RULES):
        doc = rule.__doc__ or ""
        assert rule.__name__.islower()
        assert "Source 001" in doc, rule.__name__


def test_dump_pig_on_discard() -> None:
    s = situation(position(DEAL1, ["AC"]))
    assert dump_pig_on_discard(s) == Play.parse("QS")
    bot = HeuristicBot(rules=RULES, check=0)
    assert bot.choose(s.view) == Play.parse("QS")
    assert bot.last_rule == "dump_pig_on_discard"


def test_dump_big_hearts_on_discard() -> None:
    s = situation(position(DEAL1, ["AC"]))
    assert dump_big_hearts_on_discard(s) == Play.parse("AH")


def test_duck_under_when_hearts_in_trick() -> None:
    s = situation(position(DEAL1, ["4H", "QH"]))
    assert duck_under_when_hearts_in_trick(s) == Play.parse("JH")


def test_natural_following() -> None:
    s = situation(position(DEAL2, ["9C", "4D", "7C", "4C", "8C", "5D"]))
    assert natural_following(s) == Play.parse("6C")  # under the 8, keeping the 5 to exit


def test_take_sheep_when_safe() -> None:
    s = situation(position(DEAL1, ["JD", "2S", "6D"], leader=3))
    assert take_sheep_when_safe(s) == Play.parse("AD")


def test_take_sheep_when_safe_leads_a_catcher() -> None:
    deal = (
        "AD KD 2D 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
        "JD 3D 4D 5D 6D 7D 8D 9D TD QD QC KC AC",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    )
    s = situation(position(deal))
    assert take_sheep_when_safe(s) == Play.parse("AD")


def test_capture_own_sheep() -> None:
    s = situation(position(DEAL6, leader=2))
    assert capture_own_sheep(s) == Play.parse("JD")


def test_hunt_pig_with_low_spades() -> None:
    s = situation(position(DEAL1, leader=2))
    assert hunt_pig_with_low_spades(s) == Play.parse("9S")


def test_void_short_suit() -> None:
    s = situation(position(DEAL2))
    assert void_short_suit(s) == Play.parse("2D")


def test_lead_low_safe_card_and_fallback() -> None:
    s = situation(position(DEAL7))
    assert lead_low_safe_card(s) == Play.parse("2C")
    assert safe_fallback(s) == Play.parse("2C")


def test_avoid_transformer_with_negatives() -> None:
    plays = ["2H", "3H", "JH", "8H", "7S", "TS", "4S", "5S", "4C", "TC", "6D"]
    s = situation(position(DEAL2, plays))
    assert s.taken[2] < 0
    assert avoid_transformer_with_negatives(s) == Play.parse("7C")


def test_dump_transformer_on_loser() -> None:
    plays = ["3H", "JH", "8H", "2S", "7S", "TS", "4S", "AS", "4H", "TH", "7H"]
    s = situation(position(DEAL4, plays, leader=1))
    assert s.seat == 0 and s.taken[2] < 0
    assert dump_transformer_on_loser(s) == Play.parse("TC")


def test_guard_pig_until_safe() -> None:
    s = situation(position(DEAL5, ["AS", "2S"], leader=3))
    assert guard_pig_until_safe(s) == Play.parse("QS")


def test_shed_high_card_when_last_and_clean() -> None:
    s = situation(position(DEAL4, ["7S", "TS", "4S"], leader=2))
    assert s.position == 3
    assert shed_high_card_when_last_and_clean(s) == Play.parse("AS")


def test_discard_pig_guards_and_dangerous_cards() -> None:
    s = situation(position(DEAL7, ["2C", "2H"]))
    assert discard_pig_guards(s) == Play.parse("AS")
    assert discard_dangerous_cards(s) == Play.parse("AS")


def test_run_full_hearts() -> None:
    s = situation(position(DEAL6))
    assert s.full_hearts_plan
    assert run_full_hearts(s) == Play.parse("AH")


def test_show_decision_shows_a_long_suit_card() -> None:
    hand = position(DEAL6, shows=[])
    assert hand.phase is Phase.SHOW
    hand.apply(Show(()))  # seat 0
    s = situation(hand)
    assert show_decision(s) == Show("QS")  # seat 1: the pig with eight spades
    hand.apply(Show("QS"))
    assert show_decision(situation(hand)) == Show("JD")  # seat 2: the sheep with ♦A K Q


def test_show_decision_prefers_a_secret_sale() -> None:
    rules = gongzhu.load_rules("39baobao", "anmai")
    hand = position(DEAL6, shows=[Show(())], rules=rules)
    assert show_decision(situation(hand, rules)) == Show("QS", ShowKind.SECRET)


def test_first_show_decision_declines() -> None:
    rules = gongzhu.load_rules("huapai")
    hand = rules.new_hand(deal=Deal.from_holdings(list(DEAL6)), leader=0)
    assert hand.phase is Phase.FIRST_SHOW
    s = situation(hand, rules)
    action = first_show_decision(s)
    assert action == Show((), ShowKind.FIRST)


@pytest.mark.parametrize(
    "names",
    [("39baobao",), ("huapai", "anmai"), ("two-deck",), ("39baobao", "same-colour-discard")],
)
def test_heuristic_beats_nothing_but_plays_whole_hands(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    for seed in range(3):
        bots = [make_bot("heuristic", seed=seat, rules=rules) for seat in range(4)]
        assert play_hand(rules.new_hand(seed=seed), bots).is_over


def test_points_at_stake_where_a_play_moves_points() -> None:
    assert not points_at_stake(situation(position(DEAL1)))  # a lead
    assert points_at_stake(situation(position(DEAL1, ["AC"])))  # the pig among the discards
    # seat 2 follows clubs: nothing worth points in the trick or in its clubs
    assert not points_at_stake(situation(position(DEAL1, ["AC", "2D"])))


@pytest.mark.parametrize("where", CHECK_WHERE)
def test_the_check_searches_every_choice_or_where_points_are_at_stake(where: str) -> None:
    hands = [RULES.new_hand(seed=seed) for seed in range(3)]
    overruled = elsewhere = 0
    for hand in hands:
        for phase_action in [Show(())] * 4:
            hand.apply(phase_action)
        bots = [HeuristicBot(seat, rules=RULES, format="2v2", where=where) for seat in range(4)]
        twins = [HeuristicBot(seat, rules=RULES, format="2v2", where=where) for seat in range(4)]
        plain = [HeuristicBot(seat, rules=RULES, format="2v2", check=0) for seat in range(4)]
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            view = hand.view(seat)
            action = bots[seat].choose(view)
            assert action in view.legal_actions
            assert twins[seat].choose(view) == action  # the same for a seat's seed
            by_rules = plain[seat].choose(view)
            if action != by_rules:
                overruled += 1
                assert bots[seat].last_rule == "checked"
                if not points_at_stake(Situation(view, RULES, bots[seat].format)):
                    elsewhere += 1
            hand.apply(action)
        assert all(bot._checker is None for bot in plain)
    assert overruled > 0
    if where == "stake":
        assert elsewhere == 0
    else:  # leads and point-free tricks are checked too, and sometimes overruled
        assert elsewhere > 0


def test_alike_plays_are_grouped_as_the_ruleset_values_them() -> None:
    def groups(hand: HandState) -> list[str]:
        return [" ".join(str(p.cards[0]) for p in g) for g in alike_plays(situation(hand))]

    lead = groups(position(DEAL1))  # seat 0 leads: the transformer stands alone
    assert sorted(lead) == sorted(["2S 3S 4S", "2H 3H 4H", "8C 9C", "TC", "JC QC KC AC"])
    # seat 1 discards on the ♣A: the pig, and each heart worth other points, alone;
    # ♠K and ♠A alike (no spade between them is out)
    discard = groups(position(DEAL1, ["AC"]))
    assert sorted(discard) == sorted(["5S 6S", "QS", "KS AS", "QH", "KH", "AH", "2D 3D 4D 5D 6D"])
    # seat 2 follows the ♣A with 7C 6C 5C: nothing out between them
    assert groups(position(DEAL1, ["AC", "2D"])) == ["5C 6C 7C"]
    # seat 2 leads: the ♦A is parted from ♦9 by the diamonds seat 3 holds; ♥9 and ♥10
    # are alike (both −10), ♥J (−20) is not
    lead = groups(position(DEAL1, leader=2))
    assert sorted(lead) == sorted(["5C 6C 7C", "7S 8S 9S", "9H TH", "JH", "7D 8D 9D", "AD"])
    # ♣A and ♣K led; seat 3 follows the second with ♣3 ♣2 left: alike
    hand = position(DEAL1, ["AC", "2D", "7C", "4C", "KC", "3D", "6C"])
    assert groups(hand) == ["2C 3C"]
    # with two decks every play stands alone
    two_deck = gongzhu.load_rules("two-deck")
    hand = two_deck.new_hand(seed=1)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    seat = hand.to_move
    assert seat is not None
    plays = Situation(hand.view(seat), two_deck).plays
    assert [len(g) for g in alike_plays(Situation(hand.view(seat), two_deck))] == [1] * len(plays)


# Seed 15, played by the heuristic to trick 11: seat 1 (♠A ♦J) leads; the ♦K is out.
SHEEP_LAST = (
    "5S 6S 9S JS 2H 3H KH 2D 7D TD KD 2C 6C",
    "2S 7S 8S AS 4H 9H AH 8D JD AD 5C 7C KC",
    "3S 4S TS 5H 7H TH QH 6D QD 4C TC QC AC",
    "QS KS 6H 8H JH 3D 4D 5D 9D 3C 8C 9C JC",
)
SHEEP_LAST_PLAYS = " ".join(
    [
        "2C 5C 4C JC 8H 3H 4H 7H 3C 6C 7C AC TS QS JS 8S 8C KH KC TC AD 6D",
        "3D 7D 9H 5H 6H 2H 2S 3S KS 9S 4D 2D 8D QD TH JH TD AH 7S 4S 9C 6S",
    ]
).split()


def test_the_check_cashes_the_ace_before_leading_the_sheep() -> None:
    hand = position(SHEEP_LAST, SHEEP_LAST_PLAYS)
    view = hand.view(1)
    assert sorted(map(str, view.holding)) == ["AS", "JD"] and not view.current_trick
    rules_bot = HeuristicBot(1, rules=RULES, format="2v2", check=0)
    assert rules_bot.choose(view) == Play.parse("JD")  # lead_low_safe_card: the low card
    assert not points_at_stake(Situation(view, RULES, rules_bot.format))  # a lead
    for seed in range(5):
        # the ♦K's holder may have to throw it on the ♠A: the sheep is led after
        bot = HeuristicBot(seed, rules=RULES, format="2v2")
        assert bot.choose(view) == Play.parse("AS")
        assert bot.last_rule == "checked"
        stake_only = HeuristicBot(seed, rules=RULES, format="2v2", where="stake")
        assert stake_only.choose(view) == Play.parse("JD")


def test_every_play_is_checked_where_the_engine_plays_greedy_playouts() -> None:
    assert HeuristicBot(rules=RULES).where == "all"
    assert HeuristicBot(rules=gongzhu.load_rules("huapai")).where == "all"
    assert HeuristicBot(rules=gongzhu.load_rules("two-deck")).where == "all"
    assert HeuristicBot(rules=gongzhu.load_rules("two-deck"), where="stake").where == "stake"


def test_the_check_plays_greedily_to_the_end_unless_told_to_search_the_last_tricks() -> None:
    """The check's playouts are greedy to the hand's end by default (the heuristic's budget);
    with ``endgame=3`` they search the last three tricks exactly, and choose otherwise."""
    assert HeuristicBot(rules=RULES).endgame == 0
    assert HeuristicBot(rules=RULES, endgame=3).endgame == 3
    assert HeuristicBot(rules=RULES, check=0, endgame=3).endgame == 0  # no check, no search
    for bad in (14, -1, 2.5, True):
        for check in (32, 0):
            with pytest.raises(ValueError, match="endgame must be a whole number of tricks 0-13"):
                HeuristicBot(rules=RULES, check=check, endgame=bad)  # type: ignore[arg-type]
    greedy, exact = (HeuristicBot(5, rules=RULES, format="2v2", endgame=k) for k in (0, 3))
    player = RulesBot(rules=RULES, format="2v2")
    differ = 0
    for seed in range(6):
        hand = RULES.new_hand(seed=seed)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            view = hand.view(seat)
            if view.phase is Phase.PLAY and len(view.tricks) >= 8 and seat == 0:
                differ += greedy.choose(view) != exact.choose(view)
            hand.apply(player.choose(view))
    assert differ > 0


def test_an_unknown_check_place_is_refused() -> None:
    with pytest.raises(ValueError, match="where must be one of 'all', 'stake'"):
        HeuristicBot(rules=RULES, where="leads")


def test_the_rules_bot_is_the_heuristic_without_its_check() -> None:
    rules = gongzhu.load_rules("huapai")
    for seed in range(3):
        hand = rules.new_hand(seed=seed)
        by_rules = [RulesBot(seat, rules=rules, format="2v2") for seat in range(4)]
        unchecked = [HeuristicBot(seat, rules=rules, format="2v2", check=0) for seat in range(4)]
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            action = by_rules[seat].choose(hand.view(seat))
            assert unchecked[seat].choose(hand.view(seat)) == action
            assert unchecked[seat].last_rule == by_rules[seat].last_rule
            hand.apply(action)


def test_the_format_and_play_rules_reach_the_rules_and_the_check() -> None:
    bot = HeuristicBot(1, rules=RULES)
    bot.format = gongzhu.bots.format_of("2v2")
    assert bot.by_rules.format.name == "2v2" and bot.format.name == "2v2"
    bot.play_rules = [lead_low_safe_card]
    assert bot.by_rules.play_rules == (lead_low_safe_card,)
    with pytest.raises(AttributeError):
        bot.check = 0  # type: ignore[misc]


@pytest.mark.parametrize("check", [-1, 2.5, True, "3", None])
def test_a_check_that_is_not_a_number_of_samples_is_refused(check: object) -> None:
    with pytest.raises(ValueError, match="check must be a number of samples"):
        HeuristicBot(rules=RULES, check=check)  # type: ignore[arg-type]


def test_a_check_of_any_integer_type_is_a_number_of_samples() -> None:
    numpy = pytest.importorskip("numpy")
    assert HeuristicBot(rules=RULES, check=numpy.int64(3)).check == 3
    assert type(HeuristicBot(rules=RULES, check=numpy.int64(3)).check) is int


@pytest.mark.parametrize("bot_class", [HeuristicBot, RulesBot])
def test_play_rules_assigned_later_are_checked_as_in_the_constructor(bot_class: type) -> None:
    bot = bot_class(rules=RULES)
    before = bot.play_rules
    with pytest.raises(ValueError, match=r"^play_rules holds 'void_short_suit', which is not"):
        bot.play_rules = [lead_low_safe_card, "void_short_suit"]
    with pytest.raises(ValueError, match=r"^play_rules must be a sequence of rules"):
        bot.play_rules = lead_low_safe_card
    with pytest.raises(ValueError, match=r"^rules_order must be a sequence of rules"):
        bot_class(rules=RULES, rules_order=lead_low_safe_card)
    assert bot.play_rules == before  # a refused assignment changes nothing


def test_a_two_deck_check_draws_an_eighth_of_the_samples_or_a_quarter_at_stake_only() -> None:
    rules = gongzhu.load_rules("two-deck")
    bots = [HeuristicBot(seat, rules=rules) for seat in range(4)]
    hand = play_hand(rules.new_hand(seed=2), bots)
    assert hand.is_over
    checkers = [bot._checker for bot in bots if bot._checker is not None]
    assert checkers and all(
        (checker.samples or 0) <= CHECK_SAMPLES * 3 // 16 for checker in checkers
    )
    eighth = {kind: int(CHECK_SAMPLES * share / 8) for kind, share in CHECK_SHARES.items()}
    assert all(bot.check_samples == eighth for bot in bots)
    quarter = {kind: int(CHECK_SAMPLES * share / 4) for kind, share in CHECK_SHARES.items()}
    assert HeuristicBot(rules=rules, where="stake").check_samples == quarter
    assert dict(HeuristicBot(rules=RULES).check_samples) == {"lead": 48, "stake": 32, "other": 24}
    assert dict(HeuristicBot(rules=rules, check=1).check_samples) == dict.fromkeys(quarter, 1)


def test_a_check_draws_the_share_of_its_decision() -> None:
    hand = RULES.new_hand(seed=5)
    for _ in range(4):
        hand.apply(Show(()))
    bot = HeuristicBot(1, rules=RULES, format="2v2")
    drawn: dict[str, set[int | None]] = {}
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        view = hand.view(seat)
        bot.choose(view)
        checker = bot._checker
        assert checker is not None
        s = Situation(view, RULES, bot.format)
        kind = "stake" if points_at_stake(s) else "other" if s.trick else "lead"
        if bot.last_rule == "checked" or checker.last_stats.get("samples"):
            drawn.setdefault(kind, set()).add(checker.samples)
            checker.last_stats = {}
        hand.apply(hand.legal_actions()[0])
    assert drawn == {"lead": {48}, "stake": {32}, "other": {24}}

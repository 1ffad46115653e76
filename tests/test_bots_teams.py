"""Bots told the table's format: 2-vs-2 partners play for their team, by default."""

from __future__ import annotations

import pytest

import gongzhu
from gongzhu import Deal, Play, Show
from gongzhu.bots import (
    FORMATS,
    PARTNERS,
    SOLO,
    HeuristicBot,
    RandomBot,
    RulesBot,
    SearchBot,
    TableFormat,
    feed_partner,
    format_of,
    make_bot,
    tell_format,
    tell_formats,
)
from gongzhu.errors import GongzhuError
from gongzhu.hand import HandState

RULES = gongzhu.load_rules()

# Seat 2 leads ♦A; seat 0 holds the sheep with two small diamonds.
SHEEP_DEAL = (
    "JD 3D 4D 2C 3C 4C 5C 2S 3S 4S 2H 3H 4H",
    "5D 6D 7D 6C 7C 8C 9C 5S 6S 7S 5H 6H 7H",
    "AD KD QD 2D TC JC QC 8S 9S TS 8H 9H TH",
    "8D 9D TD KC AC JS QS KS AS JH QH KH AH",
)
# Seat 2 leads ♣A; seat 0, void in clubs, holds the pig.
PIG_DEAL = (
    "QS 2S 3S 2D 3D 4D 5D 2H 3H 4H 5H 6H 7H",
    "5C 6C 7C 8C 6S 7S 8S 9S 9D TD JD JH QH",
    "AC KC 2C 3C 4C 4S 5S 6D 7D 8D 8H 9H TH",
    "9C TC JC QC TS JS KS AS QD KD AD KH AH",
)
# Seat 2 leads ♠A; seat 0 holds the pig with two small spades.
GUARD_DEAL = (
    "QS 2S 3S 2D 3D 4D 5D 2H 3H 4H 5H 6H 7H",
    "5C 6C 7C 8C 6S 7S 8S 9S 9D TD JD JH QH",
    "AS KC 2C 3C 4C 4S 5S 6D 7D 8D 8H 9H TH",
    "9C TC JC QC TS JS KS AC QD KD AD KH AH",
)


def position(holdings: tuple[str, ...], plays: tuple[str, ...], leader: int = 2) -> HandState:
    hand = RULES.new_hand(deal=Deal.from_holdings(list(holdings)), leader=leader)
    for _ in range(4):
        hand.apply(Show(()))
    for card in plays:
        hand.apply(Play.parse(card))
    return hand


def test_formats_name_the_teams() -> None:
    assert PARTNERS.partners(0) == (2,) and PARTNERS.opponents(1) == (0, 2)
    assert PARTNERS.partner(3) == 1 and SOLO.partner(3) is None
    assert PARTNERS.has_teams and not SOLO.has_teams and not FORMATS["1v3"].has_teams
    assert format_of(None) is SOLO and format_of("2v2") is PARTNERS
    three = TableFormat("3v1", (0, 0, 0, 1))
    assert format_of(three) is three and three.partners(1) == (0, 2)
    with pytest.raises(GongzhuError, match="unknown table format '3v1'; known: solo, 2v2, 1v3"):
        format_of("3v1")
    with pytest.raises(GongzhuError, match="each of the four seats a team"):
        TableFormat("odd", (0, 1, 0))  # type: ignore[arg-type]


def test_telling_the_format_reaches_the_bots_that_listen() -> None:
    search = SearchBot(1, rules=RULES, samples=1, budget_ms=None)
    assert search.format is SOLO and search.objective == "final"
    assert tell_format(search, "2v2") is search
    assert search.format is PARTNERS and search.objective == "team"
    assert isinstance(search.prior, RulesBot)  # by default, the rules of thumb...
    assert search.prior.format is PARTNERS  # ...which play for the team too
    explicit = SearchBot(1, rules=RULES, objective="raw", format="2v2")
    assert explicit.objective == "raw"  # an objective given is kept
    quiet = RandomBot(1)
    assert tell_format(quiet, PARTNERS) is quiet  # a bot without set_format is left alone
    bots = tell_formats([HeuristicBot(1), RandomBot(2)], "2v2")
    assert isinstance(bots[0], HeuristicBot) and bots[0].format is PARTNERS
    made = make_bot("heuristic", seed=1, rules=RULES, format="2v2")
    assert isinstance(made, HeuristicBot) and made.format is PARTNERS
    assert isinstance(make_bot("random", format="2v2"), RandomBot)  # any bot takes the format
    with pytest.raises(GongzhuError, match="unknown table format"):
        make_bot("random", format="teams")


def test_the_heuristic_gives_the_sheep_to_its_partner() -> None:
    view = position(SHEEP_DEAL, ("AD", "8D")).view(0)
    team = HeuristicBot(rules=RULES, format="2v2", check=0)
    assert team.choose(view) == Play.parse("JD") and team.last_rule == "feed_partner"
    alone = HeuristicBot(rules=RULES, check=0)
    assert alone.choose(view) != Play.parse("JD")  # the ♦A is an opponent's: keep the sheep
    assert feed_partner(gongzhu.bots.Situation(view, RULES)) is None


def test_the_heuristic_keeps_the_pig_from_its_partner() -> None:
    view = position(PIG_DEAL, ("AC", "9C")).view(0)
    assert HeuristicBot(rules=RULES, check=0).choose(view) == Play.parse("QS")  # 垫猪 elsewhere
    team = HeuristicBot(rules=RULES, format="2v2", check=0)
    choice = team.choose(view)
    assert choice != Play.parse("QS") and team.last_rule == "feed_partner"
    assert all(RULES.table.base_value(card) == 0 for card in choice.cards)


def test_the_heuristic_does_not_drop_the_pig_under_its_partners_ace() -> None:
    view = position(GUARD_DEAL, ("AS", "TS")).view(0)
    assert HeuristicBot(rules=RULES, check=0).choose(view) == Play.parse("QS")
    assert HeuristicBot(rules=RULES, format="2v2", check=0).choose(view) == Play.parse("3S")


def test_the_search_plays_for_its_team_once_told() -> None:
    view = position(PIG_DEAL, ("AC", "9C")).view(0)
    # (its own raw points: the default objective alone, the final score, hangs on the other
    # seats' scores too, and at 150 samples finds no play here clearly best)
    alone = SearchBot(1, rules=RULES, budget_ms=None, samples=150, objective="raw")
    assert alone.choose(view) == Play.parse("QS")  # 垫猪 on another seat's trick
    for margin in (1.0, None):  # with the heuristic's prior, and by the search alone
        team = SearchBot(1, rules=RULES, budget_ms=None, samples=150, margin=margin)
        assert tell_format(team, "2v2").choose(view) != Play.parse("QS")

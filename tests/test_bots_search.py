"""The search bot: legal, reproducible with a sample budget, and sensible on a clear position."""

from __future__ import annotations

import random
import time
from typing import cast

import pytest

import gongzhu
from gongzhu import Action, Deal, Phase, Play, SeatView, Show
from gongzhu.bots import (
    Bot,
    FirstLegalBot,
    HeuristicBot,
    RulesBot,
    SearchBot,
    Situation,
    TableFormat,
    alike_plays,
    greedy_rollout_policy,
    make_bot,
    play_hand,
    random_rollout_policy,
    tell_format,
)
from gongzhu.bots import search as search_module

from .conftest import SHORT_SPADES_DEAL

RULES = gongzhu.load_rules()
HUAPAI = gongzhu.load_rules("huapai")


def play_phase_hand(seed: int) -> gongzhu.HandState:
    hand = RULES.new_hand(seed=seed)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    return hand


def choice_view() -> SeatView:
    """The view of the seat to move five cards into hand 4: a choice among several plays."""
    hand = play_phase_hand(4)
    for _ in range(5):
        hand.apply(hand.legal_actions()[0])
    view = hand.view(hand.to_move or 0)
    assert len(view.legal_actions) > 1
    return view


def test_search_is_reproducible_with_a_sample_budget() -> None:
    view = choice_view()
    one = SearchBot(7, rules=RULES, budget_ms=None, samples=4)
    two = SearchBot(7, rules=RULES, budget_ms=None, samples=4)
    assert one.choose(view) == two.choose(view)
    assert one.last_stats["samples"] == 4


def test_search_keeps_to_its_time_budget() -> None:
    hand = play_phase_hand(5)
    for _ in range(8):
        hand.apply(hand.legal_actions()[-1])
    view = hand.view(hand.to_move or 0)
    bot = SearchBot(1, rules=RULES, budget_ms=20)
    start = time.perf_counter()
    action = bot.choose(view)
    spent = (time.perf_counter() - start) * 1000
    assert action in view.legal_actions
    assert spent < 20 + 60  # one sample may run past the budget; a slow machine some more


class _Ticks:
    """A clock that moves 0.1 ms at each reading: the search's time without the machine's."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.0001
        return self.now


@pytest.mark.parametrize(
    "names", [(), ("huapai",), ("same-colour-discard",), ("two-deck",), ("huapai", "two-deck")]
)
def test_every_decision_keeps_to_the_budget_in_every_ruleset(
    monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...]
) -> None:
    monkeypatch.setitem(search_module.CLOCKS, "cpu", _Ticks())
    rules = gongzhu.load_rules(*names)
    bots = [
        SearchBot(seat, rules=rules, budget_ms=3, samples=400, clock="cpu", format="2v2")
        for seat in range(4)
    ]
    hand = rules.new_hand(seed=8)
    searched = {"show": 0, "play": 0}
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        view = hand.view(seat)
        bot = bots[seat]
        bot.last_stats = {}
        hand.apply(bot.choose(view))
        assert bot.last_stats["ms"] <= 3
        if len(view.legal_actions) == 1 or (
            view.phase is Phase.PLAY and len(alike_plays(Situation(view, rules))) == 1
        ):
            assert bot.last_stats["samples"] == 0  # one play, or every card alike: no search
            continue
        searched["play" if view.phase is Phase.PLAY else "show"] += 1  # (shows are searched too)
        assert 0 < bot.last_stats["samples"] < 400
    assert searched["play"] > 10 and searched["show"] >= 1


def test_search_drops_the_pig_under_the_ace() -> None:
    # seat 0 leads 2C; seat 3 takes it with AC and leads AS: seat 1, short of
    # spades with no void to shed the pig on later, drops it on the ace
    deal = SHORT_SPADES_DEAL
    hand = RULES.new_hand(deal=deal)
    for _ in range(4):
        hand.apply(Show(()))
    for card in ("2C", "6C", "9C", "AC", "AS", "2S"):
        hand.apply(Play.parse(card))
    assert hand.to_move == 1
    bot = SearchBot(3, rules=RULES, budget_ms=None, samples=150, margin=None, prune=None)
    assert bot.choose(hand.view(1)) == Play.parse("QS")


def test_the_search_stops_once_pruning_leaves_one_action() -> None:
    # the pig dropped under the ace (above) beats both other plays by far: on most seeds the
    # first pruning leaves it alone, and the search stops there
    hand = RULES.new_hand(deal=SHORT_SPADES_DEAL)
    for _ in range(4):
        hand.apply(Show(()))
    for card in ("2C", "6C", "9C", "AC", "AS", "2S"):
        hand.apply(Play.parse(card))
    view = hand.view(1)
    assert len(view.legal_actions) == 3
    stopped = 0
    for seed in range(12):  # (♠5 and ♠6 are alike: every card is searched here)
        bot = SearchBot(seed, rules=RULES, budget_ms=None, samples=200, margin=None, alike=False)
        assert bot.choose(view) == Play.parse("QS")
        stopped += bot.last_stats["samples"] < 20  # every other play pruned: nothing to compare
    assert stopped >= 4
    unpruned = SearchBot(3, rules=RULES, budget_ms=None, samples=200, margin=None, prune=None)
    assert unpruned.choose(view) == Play.parse("QS")
    assert unpruned.last_stats["samples"] == 200


def alike_views(groups_wanted: int) -> list[SeatView]:
    """Views of hands the ``rules`` bot plays where the seat's legal cards fall in
    ``groups_wanted`` groups of alike cards (1: all alike; 2+: that many), some group of two
    cards or more among them."""
    bots = [make_bot("rules", seat, rules=RULES) for seat in range(4)]
    found = []
    for seed in range(40):
        hand = play_phase_hand(seed)
        while not hand.is_over:
            view = hand.view(hand.to_move or 0)
            groups = alike_plays(Situation(view, RULES))
            if len(groups) == groups_wanted and len(groups) < len(view.legal_actions):
                found.append(view)
            hand.apply(bots[view.seat].choose(view))
        if len(found) >= 3:
            break
    assert found
    return found


@pytest.mark.parametrize("groups", [2, 3])
def test_the_search_plays_out_one_card_of_each_group_of_alike_cards(groups: int) -> None:
    for view in alike_views(groups):
        reps = [group[0] for group in alike_plays(Situation(view, RULES))]
        options = {"budget_ms": None, "samples": 12, "prune": None, "margin": None}
        bot = SearchBot(5, rules=RULES, **options)  # type: ignore[arg-type]
        assert bot.choose(view) in reps  # no prior: the lowest card of each group
        assert bot.last_stats["playouts"] == 12 * groups
        every = SearchBot(5, rules=RULES, alike=False, **options)  # type: ignore[arg-type]
        every.choose(view)
        assert every.last_stats["playouts"] == 12 * len(view.legal_actions)


def test_where_every_legal_card_is_alike_the_search_plays_its_priors_without_sampling() -> None:
    for view in alike_views(1):
        prior = RulesBot(rules=RULES).choose(view)
        bot = SearchBot(5, rules=RULES, budget_ms=None, samples=40)
        assert bot.choose(view) == prior
        assert bot.last_stats["samples"] == 0
        every = SearchBot(5, rules=RULES, budget_ms=None, samples=40, alike=False)
        every.choose(view)
        assert every.last_stats["samples"] > 0


def test_rollout_policies_finish_hands() -> None:
    import random

    for policy in (greedy_rollout_policy, random_rollout_policy):
        hand = RULES.new_hand(seed=9)
        rng = random.Random(9)
        while not hand.is_over:
            action = policy(hand, rng)
            assert action in hand.legal_actions()
            hand.apply(action)


def test_search_plays_two_deck_and_anmai() -> None:
    for names in (("two-deck", "anmai"), ("huapai", "anmai")):
        rules = gongzhu.load_rules(*names)
        bots: list[Bot] = [SearchBot(s, rules=rules, budget_ms=None, samples=1) for s in range(2)]
        bots += [make_bot("heuristic", seed=s, rules=rules) for s in range(2)]
        assert play_hand(rules.new_hand(seed=2), bots).is_over


@pytest.mark.parametrize(
    ("names", "options"),
    [
        ((), {}),
        (("huapai", "anmai", "biming"), {}),
        (("same-colour-discard",), {}),
        (("same-colour-discard",), {"same_colour_strict": True}),
        (("same-colour-discard",), {"same_colour_offender": "last"}),
        (("hearts-positive", "heart-three"), {}),
        (("two-deck",), {}),
        (("two-deck", "anmai"), {}),
        (("huapai", "two-deck"), {}),
        (("two-deck", "hearts-positive", "heart-three"), {}),
    ],
)
def test_the_engines_greedy_playout_is_the_policy_draw_for_draw(
    names: tuple[str, ...], options: dict[str, object]
) -> None:
    rules = gongzhu.load_rules(*names, **options)
    values = [rules.table.base_value(card) for card in gongzhu.full_deck()]
    checked = 0
    for seed in range(40):
        hand = rules.new_hand(seed=seed)
        rng = random.Random(seed)
        while hand.phase is not Phase.PLAY:  # random shows, so that locks apply
            hand.apply(rng.choice(hand.legal_actions()))
        for _ in range(rng.randrange(0, 30)):
            hand.apply(rng.choice(hand.legal_actions()))
        fast, slow = hand.clone(), hand.clone()
        if not fast.greedy_play_out(values, random.Random(seed).random):
            assert fast.engine_spec.name.endswith("python") and fast.history == hand.history
            continue
        draws = random.Random(seed)
        while not slow.is_over:
            slow.apply(greedy_rollout_policy(slow, draws))
        assert fast.history == slow.history and fast.is_over and fast.to_move is None
        assert fast.outcome() == slow.outcome()
        checked += 1
    assert checked == 40 or checked == 0


@pytest.mark.parametrize("teams", [(0, 1, 0, 1), (0, 0, 1, 1)])
@pytest.mark.parametrize("names", [(), ("two-deck",)])
def test_the_engines_greedy_playout_finishes_the_trick_for_the_teams_as_the_policy_does(
    teams: tuple[int, ...], names: tuple[str, ...]
) -> None:
    rules = gongzhu.load_rules(*names)
    values = [rules.table.base_value(card) for card in gongzhu.full_deck()]
    checked = gifts = 0
    for seed in range(300):
        hand = rules.new_hand(seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 48)):
            if hand.is_over:
                break
            hand.apply(rng.choice(hand.legal_actions()))
        if hand.is_over or hand.phase is not Phase.PLAY or not hand.trick_keys:
            continue
        fast, slow, alone = hand.clone(), hand.clone(), hand.clone()
        if not fast.greedy_play_out(values, random.Random(seed).random, teams):
            pytest.skip("the C engine's greedy playout")
        draws = random.Random(seed)
        while slow.trick_keys:  # the trick under way, for the teams
            slow.apply(greedy_rollout_policy(slow, draws, teams))
        while not slow.is_over:  # the rest, every seat for itself
            slow.apply(greedy_rollout_policy(slow, draws))
        assert fast.history == slow.history, seed
        assert alone.greedy_play_out(values, random.Random(seed).random)
        gifts += alone.history != fast.history  # a seat played for its teammate
        checked += 1
    assert checked > 150 and gifts >= (2 if names else 10), (checked, gifts)


def test_greedy_play_out_refuses_bad_values_draws_and_teams() -> None:
    hand = play_phase_hand(6)
    if hand.engine_spec.name != "single-c":
        pytest.skip("the C engine's greedy playout")
    before = hand.history
    for teams in ((0, 1, 0), (0, 1, 0, 7)):
        with pytest.raises(ValueError, match="4 ints 0-3"):
            hand.clone().greedy_play_out([0] * 52, random.random, teams)
    with pytest.raises(TypeError):
        hand.clone().greedy_play_out([0] * 52, random.random, cast(list[int], ["a"] * 4))
    with pytest.raises(ValueError, match="52 ints"):
        hand.clone().greedy_play_out([0] * 51, random.random)
    with pytest.raises(TypeError):
        hand.clone().greedy_play_out(cast(list[int], ["x"] * 52), random.random)
    with pytest.raises(ValueError, match=r"float in \[0, 1\)"):
        hand.clone().greedy_play_out([0] * 52, lambda: 1.0)
    assert hand.history == before


def test_the_team_objective_keeps_the_pig_from_the_partner() -> None:
    # seat 0, last to a diamond trick its partner (seat 2) wins with ♦A, holds the pig
    # guarded by three low spades (a singleton pig would be no better kept than dumped)
    holdings = [
        "QS 2S 3S 4S 5C 6C 7C 8C 9C TC JC QC KC",
        "2D 4D 5D 6D 7D 8D 9D 5S 6S 7S 8S 9S 2C",
        "AD KD QD JD TD 2H 3H 4H 5H 6H 7H 8H 9H",
        "3D AC 3C 4C TS JS KS AS TH JH QH KH AH",
    ]
    hand = RULES.new_hand(deal=Deal.from_holdings(holdings), leader=1)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    for card in ("2D", "AD", "3D"):
        hand.apply(Play.parse(card))
    view = hand.view(0)
    assert HeuristicBot(rules=RULES, check=0).choose(view) == Play.parse("QS")  # 垫猪: alone
    team = SearchBot(1, rules=RULES, budget_ms=None, samples=30, objective="team")
    assert team.format.name == "solo"  # its prior, the rules, dumps the pig...
    assert team.choose(view) != Play.parse("QS")  # ...which the search overrules


class _Recorder:
    """A prior that plays its first legal action and records what it is told."""

    def __init__(self) -> None:
        self.formats: list[str] = []
        self.asked = 0

    def set_format(self, format: TableFormat) -> None:
        self.formats.append(format.name)

    def choose(self, view: SeatView) -> Action:
        self.asked += 1
        return view.legal_actions[0]


def test_the_search_keeps_its_priors_choice_unless_it_is_sure() -> None:
    view = choice_view()
    prior = _Recorder()
    stubborn = SearchBot(1, rules=RULES, budget_ms=None, samples=8, margin=1e9, prior=prior)
    assert prior.formats == ["solo"]
    assert stubborn.choose(view) == view.legal_actions[0]  # never sure by a billion errors
    assert prior.asked == 1
    tell_format(stubborn, "2v2")
    assert prior.formats == ["solo", "2v2"]  # told the format with the search
    # shows left to the prior are the prior's
    showing = RULES.new_hand(seed=4)
    shows = SearchBot(1, rules=RULES, samples=8, shows="prior", prior=prior)
    first = showing.view(showing.to_move or 0)
    assert shows.choose(first) == first.legal_actions[0]


def test_a_prior_is_a_bot_or_a_bots_name_playing_the_searchs_ruleset() -> None:
    assert isinstance(SearchBot(1, rules=RULES, prior="first").prior, FirstLegalBot)
    named = SearchBot(1, rules=HUAPAI, prior="rules").prior
    assert isinstance(named, RulesBot) and named.rules is HUAPAI
    with pytest.raises(ValueError, match="prior: no gongzhu bot named 'nope'"):
        SearchBot(1, rules=RULES, prior="nope")
    with pytest.raises(TypeError, match="prior must be a bot"):
        SearchBot(1, rules=RULES, prior=cast(Bot, 42))
    with pytest.raises(ValueError, match=r"prior plays huapai .*, but the search plays 39baobao"):
        SearchBot(1, rules=RULES, prior=RulesBot(rules=HUAPAI))


def test_an_unknown_objective_is_refused() -> None:
    with pytest.raises(ValueError, match="objective must be one of 'final', 'raw', 'team'"):
        SearchBot(1, rules=RULES, objective="mine")


def test_an_infinite_margin_always_keeps_the_prior() -> None:
    bot = SearchBot(1, rules=RULES, budget_ms=None, samples=8, margin=float("inf"), prune=None)
    prior = RulesBot(rules=RULES)
    hand = play_phase_hand(6)
    while not hand.is_over:
        view = hand.view(hand.to_move)  # type: ignore[arg-type]
        assert bot.choose(view) == prior.choose(view)
        hand.apply(prior.choose(view))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"budget_ms": -5}, "budget_ms must be a positive number"),
        ({"budget_ms": 0}, "budget_ms must be a positive number"),
        ({"budget_ms": None, "samples": 0}, "samples must be a whole number, at least 1"),
        ({"budget_ms": float("inf")}, r"budget_ms must be a positive number of ms, not inf"),
        ({"budget_ms": float("nan")}, r"budget_ms must be a positive number of ms, not nan"),
        ({"budget_ms": "abc"}, r"budget_ms must be a positive number of ms, not 'abc'"),
        ({"budget_ms": True}, r"budget_ms must be a positive number of ms, not True"),
        ({"samples": 2.5}, r"samples must be a whole number, at least 1, not 2.5"),
        ({"playouts": 1.5}, r"playouts must be a whole number, at least 1, not 1.5"),
        ({"playouts": 0}, r"playouts must be a whole number, at least 1, not 0"),
        ({"margin": "abc"}, r"margin must be a number of standard errors \(0 or more\) or None"),
        ({"margin": -1}, r"margin must be a number of standard errors"),
        ({"prune": float("nan")}, r"prune must be a number of standard errors"),
        ({"infer": "yes"}, r"infer must be true or false, not 'yes'"),
        ({"team_trick": 1}, r"team_trick must be true or false, not 1"),
        ({"alike": "yes"}, r"alike must be true or false, not 'yes'"),
        ({"rollout": 5}, r"rollout must be a policy's name or a policy, not 5"),
    ],
)
def test_a_bad_setting_is_refused_when_the_bot_is_made(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        SearchBot(1, rules=RULES, **options)  # type: ignore[arg-type]


def test_an_engine_written_for_the_two_argument_greedy_playout_is_called_so() -> None:
    from gongzhu.play import greedy_playout

    class TwoArguments:
        def __init__(self) -> None:
            self.calls: list[tuple[object, ...]] = []

        def greedy_playout(self, values: object, random: object) -> None:
            self.calls.append((values, random))

    engine = TwoArguments()
    greedy_playout(engine, [0] * 52, random.random)  # type: ignore[arg-type]
    assert engine.calls == [([0] * 52, random.random)]
    with pytest.raises(TypeError):  # teams go only to an engine that takes them
        greedy_playout(engine, [0] * 52, random.random, (0, 1, 0, 1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "names",
    [(), ("huapai", "anmai"), ("two-deck",), ("same-colour-discard",), ("hearts-pips",)],
)
def test_the_engine_scorer_scores_as_the_hand_does(names: tuple[str, ...]) -> None:
    from gongzhu.bots import EngineScorer

    rules = gongzhu.load_rules(*names)
    scorer = EngineScorer(rules)
    rng = random.Random(4)
    for seed in range(12):
        hand = rules.new_hand(seed=seed)
        while hand.phase is not Phase.PLAY:  # some shows, to score their factors too
            hand.apply(rng.choice(hand.legal_actions()))
        hand.play_out(rng.random)
        factors = scorer.factors(scorer.shows(hand.engine))
        assert scorer.raw(hand.engine, hand.dealt_masks, factors) == hand.score().raw


def test_the_paired_difference_is_the_two_pass_mean_and_standard_error() -> None:
    rng = random.Random(3)
    for _ in range(500):
        n = rng.randint(0, 40)
        a = [rng.choice([-300, -100, 0, 0.5, 50, 100, 200]) for _ in range(n + rng.randint(0, 3))]
        b = [rng.choice([-300, -100, 0, 0.5, 50, 100, 200]) for _ in range(n)]
        mean, stderr = search_module._paired(a, b)
        diffs = [x - y for x, y in zip(a, b, strict=False)]
        if n < 2:
            assert stderr == float("inf") and mean == (diffs[0] if diffs else 0.0)
            continue
        expected = sum(diffs) / n
        var = sum((d - expected) ** 2 for d in diffs) / (n - 1)
        assert mean == pytest.approx(expected) and stderr == pytest.approx((var / n) ** 0.5)
    assert search_module._paired([5.0] * 9, [2.0] * 9) == (3.0, 0.0)  # no spread: no error

"""The OpenSpiel game ``python_gongzhu`` (skipped without OpenSpiel)."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import gongzhu  # noqa: E402
from gongzhu.envs import encoding  # noqa: E402
from gongzhu.envs.openspiel import (  # noqa: E402
    GAME_NAME,
    GongzhuGame,
    options_parameter,
    parse_options,
)
from gongzhu.errors import GongzhuError  # noqa: E402

pytestmark = pytest.mark.one_engine  # the play engine is not what these test


def _play_to(state: Any, rng: random.Random, decisions: int) -> Any:
    """Deal at random, then take ``decisions`` random actions (fewer if the hand ends)."""
    while state.is_chance_node():
        outcomes, weights = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, weights)[0])
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("rules", "sims"), [("39baobao", 4), ("huapai+anmai", 4), ("two-deck", 2)])
def test_random_sim_test_with_serialisation(rules: str, sims: int) -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": rules})
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_game_shape_follows_the_ruleset() -> None:
    for names, size in (("39baobao", 68), ("huapai+anmai", 100), ("two-deck", 1511)):
        game = pyspiel.load_game(GAME_NAME, {"rules": names})
        rules = gongzhu.load_rules(*names.split("+"))
        assert game.num_distinct_actions() == size == encoding.action_size(rules)
        assert game.num_players() == 4
        assert game.max_chance_outcomes() == 52
        assert game.observation_tensor_size() == encoding.observation_size(rules)
        assert game.information_state_tensor_size() == encoding.information_state_size(rules)
        bounds = encoding.score_bounds(rules)
        low, high = bounds.raw_low * 0.01, bounds.raw_high * 0.01
        assert game.min_utility() <= low < 0 < high <= game.max_utility()
    game_type = pyspiel.load_game(GAME_NAME).get_type()
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game_type.utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_the_deal_is_chance_in_dealing_order_and_returns_are_scaled_raw_points() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "39baobao"})
    state = game.new_initial_state()
    deal = gongzhu.Deal.shuffled(7)
    for card in deal.order:
        assert state.is_chance_node()
        probabilities = dict(state.chance_outcomes())
        assert probabilities[card.index] == pytest.approx(1 / len(probabilities))
        state.apply_action(card.index)
    reference = gongzhu.load_rules().new_hand(deal=deal)
    assert state.hand.to_move == reference.to_move
    rng = random.Random(3)
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        reference.apply(encoding.decode_action(reference.rules, action))
        state.apply_action(action)
    assert state.returns() == [x * 0.01 for x in reference.score().raw]
    final = pyspiel.load_game(GAME_NAME, {"reward": "final", "reward_scale": 1.0})
    assert final.reward == encoding.Reward("final", 1.0)
    state = final.new_initial_state()
    for action in reference.deal.order:
        state.apply_action(action.index)
    for _seat, action in reference.history:
        state.apply_action(encoding.encode_action(reference.rules, action))
    assert state.returns() == [float(x) for x in reference.returns()]


def test_two_deck_chance_counts_copies() -> None:
    state = pyspiel.load_game(GAME_NAME, {"rules": "two-deck"}).new_initial_state()
    state.apply_action(0)
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 52 and outcomes[0] == pytest.approx(1 / 103)
    assert outcomes[1] == pytest.approx(2 / 103)


def test_serialised_states_round_trip() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "huapai+anmai"})
    state = _play_to(game.new_initial_state(), random.Random(5), 20)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert state2.history() == state.history()
    for seat in range(4):
        assert state2.information_state_string(seat) == state.information_state_string(seat)


def test_game_parameters_options_and_errors() -> None:
    assert parse_options(" zero_sum=exact, x = 3 ") == {"zero_sum": "exact", "x": 3}
    assert parse_options('zero_sum:exact;x:3;y:"true"') == {
        "zero_sum": "exact",
        "x": 3,
        "y": "true",
    }
    assert options_parameter({"zero_sum": "exact", "x": 3, "y": "true"}) == (
        'x:3;y:"true";zero_sum:exact'
    )
    game = pyspiel.load_game(GAME_NAME, {"rules": "39baobao", "options": "zero_sum=exact"})
    assert game.rules.options["zero_sum"] == "exact"
    with pytest.raises(GongzhuError, match="name:value"):
        parse_options("zero_sum")
    with pytest.raises(GongzhuError, match="game string"):
        options_parameter({"x": [1, 2]})
    with pytest.raises(gongzhu.errors.UnknownVariant):
        GongzhuGame({"rules": "no-such-variant"})
    with pytest.raises(ValueError, match="'raw', 'final', 'team'"):
        pyspiel.load_game(GAME_NAME, {"reward": "points"})


@pytest.mark.parametrize(
    "params",
    [
        {"options": "zero_sum=exact"},
        {"rules": "huapai+anmai", "options": "match_target:800"},
        {"reward": "final", "reward_scale": 0.5},
    ],
    ids=["zero_sum=exact", "huapai-options", "final"],
)
def test_game_strings_round_trip_and_pickle(params: dict[str, Any]) -> None:
    """The bug: options=zero_sum=exact gave a game string load_game could not read back,
    so serialisation, pickling (multiprocessing, Ray) and random_sim_test failed."""
    import pickle

    game = pyspiel.load_game(GAME_NAME, params)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game)
    assert again.rules == game.rules and again.reward == game.reward
    revived = pickle.loads(pickle.dumps(game))
    assert str(revived) == str(game)
    state = _play_to(game.new_initial_state(), random.Random(3), 10)
    text = pyspiel.serialize_game_and_state(game, state)
    _game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert state2.information_state_tensor(1) == state.information_state_tensor(1)
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history()
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("rules", ["39baobao", "huapai+anmai", "two-deck+anmai"])
def test_resampled_states_agree_with_the_observer(rules: str) -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": rules})
    rng = random.Random(11)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for decisions in (0, 1, 3, 6, 25, 40):
        state = _play_to(game.new_initial_state(), rng, decisions)
        for seat in range(4):
            sample = state.resample_from_infostate(seat, sampler)
            assert sample.information_state_string(seat) == state.information_state_string(seat)
            assert sample.observation_string(seat) == state.observation_string(seat)
            assert sample.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert sample.hand.view(seat) == state.hand.view(seat)
            assert sample.current_player() == state.current_player()
            if seat == state.current_player():
                assert sample.legal_actions() == state.legal_actions()


def test_resampling_during_the_deal_keeps_the_first_card() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "huapai"})
    state = game.new_initial_state()
    for card in gongzhu.Deal.shuffled(2).order[:10]:
        state.apply_action(card.index)
    sample = state.resample_from_infostate(2, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sample.order[2] == state.order[2] and len(sample.order) == 10
    assert sample.information_state_string(2) == state.information_state_string(2)


def test_ismcts_plays_moves() -> None:
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(GAME_NAME, {"rules": "huapai+anmai"})
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0,
        max_simulations=10,
        random_state=np.random.RandomState(0),
    )
    state = _play_to(game.new_initial_state(), random.Random(1), 0)
    for _ in range(6):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert len(state.hand.history) == 6


def test_observer_types() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "huapai+anmai"})
    state = _play_to(game.new_initial_state(), random.Random(4), 12)
    public = game.make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    public.set_from(state, 0)
    assert public.dict["observation"][:52].sum() == 0  # no holding
    assert set(public.dict) == {"observation"}
    texts = {public.string_from(state, seat).split("\n", 1)[1] for seat in range(4)}
    assert len(texts) == 1  # the public observation is the same for every seat
    everything = game.make_py_observer(
        pyspiel.IIGObservationType(
            perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
        )
    )
    everything.set_from(state, 1)
    held = sum(len(state.hand.holding(seat)) for seat in range(4))
    assert everything.dict["holdings"].sum() == held
    with pytest.raises(ValueError, match="no parameters"):
        game.make_py_observer(None, {"x": 1})


def _deals_sharing_seat_0(rules: gongzhu.Rules, count: int) -> list[list[int]]:
    """Dealing orders (card indices) in which seat 0 is dealt the same cards in the same
    order, the other seats' cards shuffled anew."""
    first = gongzhu.Deal.shuffled(42, rules.table.copies).order
    mine = [card.index for k, card in enumerate(first) if k % 4 == 0]
    others = [card.index for k, card in enumerate(first) if k % 4]
    orders = []
    for number in range(count):
        rng = random.Random(number)
        shuffled = others[:]
        rng.shuffle(shuffled)
        it_mine, it_others = iter(mine), iter(shuffled)
        orders.append([next(it_mine) if k % 4 == 0 else next(it_others) for k in range(len(first))])
    return orders


@pytest.mark.parametrize("rules", ["39baobao", "huapai+anmai", "two-deck"])
def test_the_information_state_tensor_has_perfect_recall(rules: str) -> None:
    """Same information state <=> same tensor, over states a seat may or may not tell
    apart: deals sharing seat 0's cards, played by seat 0's fixed rule (its last legal
    action) and random others, and samples of seat 0's information states."""
    game = pyspiel.load_game(GAME_NAME, {"rules": rules})
    by_string: dict[str, bytes] = {}
    by_tensor: dict[bytes, str] = {}
    histories: dict[str, set[tuple[int, ...]]] = {}
    np = pytest.importorskip("numpy")

    def record(state: Any) -> None:
        for seat in range(4):
            histories.setdefault(state.information_state_string(seat), set()).add(
                tuple(state.history())
            )
            text = state.information_state_string(seat)
            tensor = np.asarray(state.information_state_tensor(seat), np.float32).tobytes()
            assert by_string.setdefault(text, tensor) == tensor, (
                "one information state, two tensors"
            )
            assert by_tensor.setdefault(tensor, text) == text, "two information states, one tensor"

    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    orders = _deals_sharing_seat_0(
        gongzhu.load_rules(*rules.split("+")), 8 if rules != "two-deck" else 4
    )
    for number, order in enumerate(orders):
        state = game.new_initial_state()
        for card in order:
            state.apply_action(card)
        rng = random.Random(number % 2)  # pairs of deals share the others' choices too
        decisions = 0
        while not state.is_terminal() and decisions < 30:
            record(state)
            if decisions % 7 == 3:
                record(state.resample_from_infostate(0, sampler))
            legal = state.legal_actions()
            state.apply_action(legal[-1] if state.current_player() == 0 else rng.choice(legal))
            decisions += 1
    assert len(by_string) == len(by_tensor)
    # the test meant something: information states that several histories share
    shared = [text for text, seen in histories.items() if len(seen) > 1]
    assert len(shared) >= 10 and any(" 0:" in text.rsplit("turns", 1)[-1] for text in shared)


def test_the_issues_two_histories_have_two_tensors() -> None:
    """0:♣2 1:♥5 2:♣3 3:♣A and 0:♣2 1:♣3 2:♥5 3:♣A: the strings differed, the tensors did not."""
    game = pyspiel.load_game(GAME_NAME, {"rules": "39baobao"})
    rules = game.rules
    states = []
    for plays in (["5H", "3C", "AC"], ["3C", "5H", "AC"]):
        wanted = [gongzhu.Card.parse("2C"), *map(gongzhu.Card.parse, plays)]
        rest = [c for c in gongzhu.full_deck() if c not in wanted]
        holdings = [[wanted[seat], *rest[seat * 12 : seat * 12 + 12]] for seat in range(4)]
        deal = gongzhu.Deal.from_holdings(holdings)
        state = game.new_initial_state()
        for card in deal.order:
            state.apply_action(card.index)
        while state.hand.phase is not gongzhu.Phase.PLAY:
            state.apply_action(encoding.encode_action(rules, gongzhu.Show(())))
        for text in ["2C", *plays]:
            state.apply_action(gongzhu.Card.parse(text).index)
        states.append(state)
    a, b = states
    assert a.information_state_string(0) != b.information_state_string(0)
    assert a.information_state_tensor(0) != b.information_state_tensor(0)
    assert a.observation_tensor(0) != b.observation_tensor(0)


def test_no_first_card_where_the_ruleset_has_no_first_shows() -> None:
    """39baobao has no 首明: the seat's first card is no part of its information state."""
    rng = random.Random(6)
    baobao = _play_to(
        pyspiel.load_game(GAME_NAME, {"rules": "39baobao"}).new_initial_state(), rng, 3
    )
    assert "first card" not in baobao.information_state_string(0)
    huapai = _play_to(pyspiel.load_game(GAME_NAME, {"rules": "huapai"}).new_initial_state(), rng, 3)
    assert "first card" in huapai.information_state_string(0)
    game = pyspiel.load_game(GAME_NAME, {"rules": "39baobao"})
    dealing = game.new_initial_state()
    for card in gongzhu.Deal.shuffled(1).order[:8]:
        dealing.apply_action(card.index)
    assert dealing.information_state_tensor(1) == [0.0] * game.information_state_tensor_size()
    sample = dealing.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sample.information_state_string(1) == dealing.information_state_string(1)


def test_clones_are_independent_and_keep_their_encoders() -> None:
    game = pyspiel.load_game(GAME_NAME, {"rules": "huapai+anmai"})
    state = _play_to(game.new_initial_state(), random.Random(8), 6)
    before = state.information_state_tensor(state.current_player())
    clone = state.clone()
    assert clone.hand is clone.encoder.hand and clone.hand is not state.hand
    rng = random.Random(9)
    for _ in range(8):
        clone.apply_action(rng.choice(clone.legal_actions()))
    assert state.information_state_tensor(state.current_player()) == before
    assert len(clone.hand.history) == len(state.hand.history) + 8
    reference = encoding.encode_observation(game.rules, clone.hand.view(0))
    assert clone.observation_tensor(0) == reference.tolist()


def test_the_same_tricks_in_another_order_have_another_tensor() -> None:
    """Seat 1 wins the ♣ trick, then leads ♦A and ♠A (or ♠A and ♦A), everyone following:
    the same cards played by the same seats, the same leaders, takers and voids; only the
    trick each card went to tells the two histories apart."""
    game = pyspiel.load_game(GAME_NAME, {"rules": "39baobao"})
    rules = game.rules
    fixed = {
        0: ["2C", "5D", "5S"],
        1: ["AC", "AD", "AS"],
        2: ["3C", "3D", "3S"],
        3: ["4C", "4D", "4S"],
    }
    used = {gongzhu.Card.parse(c) for cards in fixed.values() for c in cards}
    rest = [c for c in gongzhu.full_deck() if c not in used]
    holdings = [
        [*map(gongzhu.Card.parse, fixed[seat]), *rest[seat * 10 : seat * 10 + 10]]
        for seat in range(4)
    ]
    deal = gongzhu.Deal.from_holdings(holdings)
    first = ["2C", "AC", "3C", "4C"]
    diamonds, spades = ["AD", "3D", "4D", "5D"], ["AS", "3S", "4S", "5S"]
    states = []
    for order in ([*first, *diamonds, *spades], [*first, *spades, *diamonds]):
        state = game.new_initial_state()
        for card in deal.order:
            state.apply_action(card.index)
        while state.hand.phase is not gongzhu.Phase.PLAY:
            state.apply_action(encoding.encode_action(rules, gongzhu.Show(())))
        for text in order:
            state.apply_action(gongzhu.Card.parse(text).index)
        states.append(state)
    a, b = states
    for seat in range(4):
        assert a.observation_tensor(seat) == b.observation_tensor(seat)  # no history there
        assert a.information_state_string(seat) != b.information_state_string(seat)
        assert a.information_state_tensor(seat) != b.information_state_tensor(seat)


@pytest.mark.parametrize("kind", ["team", "team-final"])
def test_team_rewards_make_a_zero_sum_game(kind: str) -> None:
    """Issue 40: ``reward=team``, 2-vs-2 (seats 0 and 2 against 1 and 3): the game
    declares itself zero-sum, utility sum 0, and OpenSpiel's checks hold it to that."""
    for rules in ("39baobao", "two-deck"):
        game = pyspiel.load_game(GAME_NAME, {"rules": rules, "reward": kind})
        assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
        assert game.utility_sum() == 0.0
        assert pyspiel.load_game(str(game)).get_type().utility == game.get_type().utility
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
        low, high = game.reward.bounds(game.rules)
        assert game.min_utility() <= low < 0 < high <= game.max_utility()
        rng = random.Random(3)
        for _ in range(3):
            state = _play_to(game.new_initial_state(), rng, 10_000)
            returns = state.returns()
            assert returns[0] == returns[2] == -returns[1] == -returns[3]
            assert tuple(returns) == game.reward.of(state.hand)
    assert pyspiel.load_game(GAME_NAME).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM

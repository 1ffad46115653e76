"""The OpenSpiel game ``python_gongzhu`` (skipped without OpenSpiel)."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import gongzhu  # noqa: E402
from gongzhu.envs import encoding  # noqa: E402
from gongzhu.envs.openspiel import GAME_NAME, GongzhuGame, parse_options  # noqa: E402
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
        assert game.information_state_tensor_size() == encoding.observation_size(rules) + 56
        bounds = encoding.score_bounds(rules)
        assert game.min_utility() <= bounds.raw_low < 0 < bounds.raw_high <= game.max_utility()
    game_type = pyspiel.load_game(GAME_NAME).get_type()
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game_type.utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_the_deal_is_chance_in_dealing_order_and_returns_are_raw_points() -> None:
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
    assert state.returns() == [float(x) for x in reference.score().raw]


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
    game = pyspiel.load_game(GAME_NAME, {"rules": "39baobao", "options": "zero_sum=exact"})
    assert game.rules.options["zero_sum"] == "exact"
    with pytest.raises(GongzhuError, match="name=value"):
        parse_options("zero_sum")
    with pytest.raises(gongzhu.errors.UnknownVariant):
        GongzhuGame({"rules": "no-such-variant"})


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

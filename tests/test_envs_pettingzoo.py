"""gongzhu's PettingZoo AEC environment passes PettingZoo's own tests."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import gongzhu
from gongzhu.envs import encoding
from gongzhu.envs.pettingzoo import AGENTS, env, parallel_env, raw_env

from .test_envs_encoding import swapped_tricks

pytestmark = pytest.mark.one_engine  # the adapters, not the play engines, are tested

RULES: list[Any] = ["39baobao", ("huapai", "anmai"), "two-deck"]
IDS = ["39baobao", "huapai+anmai", "two-deck"]


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        # api_test warns that Dict observations are not arrays, as for the classic games
        warnings.filterwarnings("ignore", message="Observation", category=UserWarning)
        yield


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_api(rules: Any) -> None:
    api_test(env(rules=rules), num_cycles=60)
    api_test(raw_env(rules=rules), num_cycles=60)


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_seed(rules: Any) -> None:
    seed_test(lambda **kwargs: env(rules=rules, **kwargs), num_cycles=60)


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_render(rules: Any, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: env(rules=rules, render_mode=render_mode))
    game = env(rules=rules, render_mode="ansi")
    game.reset(seed=1)
    text = game.render()
    assert isinstance(text, str) and "seat 3:" in text


def _play_out(game: Any, seed: int) -> dict[str, float]:
    game.reset(seed=seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _info = game.last()
        totals[agent] += reward
        action = None
        if not (termination or truncation):
            mask = observation["action_mask"]
            assert mask.sum() >= 1
            action = int(np.flatnonzero(mask)[0])
        game.step(action)
    return totals


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_rewards_are_raw_points_scaled_by_default(rules: Any) -> None:
    game = env(rules=rules)
    totals = _play_out(game, seed=5)
    hand = game.unwrapped.hand
    assert hand.is_over
    assert tuple(totals[a] for a in AGENTS) == tuple(x * 0.01 for x in hand.raw_scores())
    assert not game.agents


def test_final_rewards_and_a_scale_of_ones_own() -> None:
    game = env(reward="final", reward_scale=1.0)
    totals = _play_out(game, seed=6)
    hand = game.unwrapped.hand
    assert tuple(totals[a] for a in AGENTS) == tuple(map(float, hand.returns()))
    with pytest.raises(ValueError, match="'raw', 'final', 'team'"):
        raw_env(reward="points")  # type: ignore[arg-type]


def test_reset_seed_gives_the_same_deal_and_a_sequence_without_one() -> None:
    game = env()
    game.reset(seed=3)
    first = game.unwrapped.hand.deal
    game.reset()
    second = game.unwrapped.hand.deal
    game.reset(seed=3)
    assert game.unwrapped.hand.deal == first
    game.reset()
    assert game.unwrapped.hand.deal == second != first


def test_a_given_deal_and_the_observations() -> None:
    rules = gongzhu.load_rules()
    deal = gongzhu.Deal.shuffled(9)
    game = raw_env(rules=rules)
    game.reset(options={"deal": deal})
    assert game.unwrapped.hand.deal == deal
    agent = game.agent_selection
    seat = AGENTS.index(agent)
    observation = game.observe(agent)
    view = game.hand.view(seat)
    assert np.array_equal(observation["observation"], encoding.encode_observation(rules, view))
    assert np.array_equal(observation["action_mask"], game.action_mask(agent))
    for other in AGENTS:
        if other != agent:
            assert game.observe(other)["action_mask"].sum() == 0
    assert game.observation_space(agent).contains(observation)


def test_illegal_actions() -> None:
    game = raw_env()
    game.reset(seed=2)
    mask = game.observe(game.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(gongzhu.errors.IllegalAction):
        game.step(illegal)
    wrapped = env(illegal_reward=-5000.0)
    wrapped.reset(seed=2)
    agent = wrapped.agent_selection
    wrapped.step(illegal)  # PettingZoo logs the illegal move and ends the hand
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -5000.0


def test_rules_and_render_mode_are_checked() -> None:
    with pytest.raises(gongzhu.errors.UnknownVariant):
        raw_env(rules="no-such-rules")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_the_default_illegal_reward_is_on_the_rewards_scale() -> None:
    from gongzhu.envs.encoding import default_illegal_reward

    for names, expected in (("39baobao", -14.4), ("two-deck", -63.0)):
        for kind in ("raw", "final"):
            wrapped = env(rules=names, reward=kind)
            wrapped.reset(seed=2)
            agent = wrapped.agent_selection
            mask = wrapped.observe(agent)["action_mask"]
            wrapped.step(int(np.flatnonzero(mask == 0)[0]))
            rules = gongzhu.load_rules(names)
            assert wrapped.rewards[agent] == default_illegal_reward(rules, kind)
            if kind == "raw":
                assert wrapped.rewards[agent] == expected


def test_rllib_keys() -> None:
    """observation_key="observations": the two keys RLlib's action-masking module reads."""
    game = env(observation_key="observations")
    game.reset(seed=1)
    space = game.observation_space(game.agent_selection)
    assert set(space.spaces) == {"observations", "action_mask"}
    observation, *_ = game.last()
    assert set(observation) == {"observations", "action_mask"}
    assert space.contains(observation)
    with pytest.raises(ValueError, match="observation_key"):
        raw_env(observation_key="action_mask")


def test_the_fast_wrappers_keep_the_classic_checks() -> None:
    """env()'s wrappers read the environment directly, and still refuse what PettingZoo's
    refuse: attributes before reset, actions outside the space."""
    game = env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = game.agent_selection
    with pytest.raises(AttributeError, match="before reset"):
        game.last()
    game.reset(seed=3)
    assert game.agent_selection == game.unwrapped.agent_selection
    assert game.terminations is game.unwrapped.terminations
    with pytest.raises(AssertionError, match="action space"):
        game.step(10_000)
    with pytest.raises(AssertionError, match="action space"):
        game.step(-1)


def test_observations_follow_the_hand_through_the_wrappers() -> None:
    from gongzhu.envs.encoding import encode_observation

    game = env(rules=("huapai", "anmai"))
    game.reset(seed=4)
    rules = game.unwrapped.rules
    steps = 0
    for agent in game.agent_iter():
        observation, _reward, termination, truncation, _info = game.last()
        seat = AGENTS.index(agent)
        view = game.unwrapped.hand.view(seat)
        assert np.array_equal(observation["observation"], encode_observation(rules, view))
        if termination or truncation:
            game.step(None)
            continue
        game.step(int(np.flatnonzero(observation["action_mask"])[-1]))
        steps += 1
    assert steps > 13


# -- issue 40: team rewards, the information state, the parallel API -----------------------


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_api_with_the_options(rules: Any) -> None:
    api_test(env(rules=rules, reward="team", observation="information_state"), num_cycles=60)


@pytest.mark.parametrize("kind", ["team", "team-final"])
def test_team_rewards_pay_partners_alike_and_sum_to_zero(kind: encoding.RewardKind) -> None:
    for names in ("39baobao", "two-deck"):
        game = env(rules=names, reward=kind)
        for seed in range(3):
            totals = _play_out(game, seed)
            hand = game.unwrapped.hand
            assert totals["player_0"] == totals["player_2"] == -totals["player_1"]
            assert totals["player_1"] == totals["player_3"] and sum(totals.values()) == 0
            assert tuple(totals.values()) == encoding.make_reward(kind).of(hand)
    with pytest.raises(ValueError, match="'team'"):
        env(reward="teams")  # type: ignore[arg-type]


def _observed(
    names: str, deal: gongzhu.Deal, actions: list[int], kind: encoding.ObservationKind
) -> list[Any]:
    game = raw_env(rules=names, observation=kind)
    game.reset(options={"deal": deal})
    for index in actions:
        game.step(index)
    return [game.observe(agent)["observation"] for agent in AGENTS]


@pytest.mark.parametrize("names", ["39baobao", "huapai+anmai", "two-deck"])
def test_the_information_state_keeps_the_order_of_the_tricks(names: str) -> None:
    """Issue 40: two tricks swapped gave the same observation; with
    ``observation="information_state"`` they differ (and the observation stays as it was)."""
    rules = encoding.resolve_rules(names)
    deal, one, other = swapped_tricks(rules)
    compact = [_observed(names, deal, actions, "observation") for actions in (one, other)]
    full = [_observed(names, deal, actions, "information_state") for actions in (one, other)]
    space: Any = raw_env(rules=names, observation="information_state").observation_space(AGENTS[0])
    size = encoding.information_state_size(rules)
    assert space["observation"].shape == (size,)
    assert np.array_equal(space["observation"].high, encoding.information_state_high(rules))
    for seat in range(4):
        assert np.array_equal(compact[0][seat], compact[1][seat])
        assert compact[0][seat].shape == (encoding.observation_size(rules),)
        assert not np.array_equal(full[0][seat], full[1][seat])
        assert np.array_equal(full[0][seat][: compact[0][seat].size], compact[0][seat])
        assert space["observation"].contains(full[0][seat])
    with pytest.raises(ValueError, match="observation must be one of"):
        raw_env(observation="state")  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_parallel_api(rules: Any) -> None:
    parallel_api_test(parallel_env(rules=rules), num_cycles=200)
    parallel_api_test(
        parallel_env(rules=rules, reward="team", observation="information_state"), num_cycles=200
    )


def test_parallel_seed() -> None:
    parallel_seed_test(lambda **kwargs: parallel_env(**kwargs), num_cycles=100)


def test_parallel_env_reads_the_movers_action_only() -> None:
    """One agent acts a step (named in the infos); the others' actions are ignored, and the
    hand pays what the AEC environment pays, played the same way."""
    game = parallel_env(rules="huapai")
    observations, infos = game.reset(seed=5)
    reference = raw_env(rules="huapai")
    reference.reset(seed=5)
    rng = np.random.default_rng(5)
    steps, paid = 0, dict.fromkeys(AGENTS, 0.0)
    while game.agents:
        mover = infos[AGENTS[0]]["active_agent"]
        assert mover == reference.agent_selection
        for agent in AGENTS:
            assert observations[agent]["action_mask"].any() == (agent == mover)
        action = int(rng.choice(np.flatnonzero(observations[mover]["action_mask"])))
        others = {agent: 10_000 for agent in AGENTS if agent != mover}  # not even in the space
        observations, rewards, terminations, _truncations, infos = game.step(
            {mover: action, **others}
        )
        reference.step(action)
        for agent in AGENTS:
            paid[agent] += rewards[agent]
            assert terminations[agent] == reference.terminations[agent]
        steps += 1
    assert paid == reference.rewards and reference.hand.is_over and steps > 52


def test_an_action_that_is_no_whole_number_is_refused_and_nothing_changes() -> None:
    import numpy

    game = raw_env(rules="39baobao")
    game.reset(seed=1)
    agent = game.agent_selection
    mask = game.observe(agent)["action_mask"]
    action = int(numpy.flatnonzero(mask)[0])
    history = game.hand.history
    with pytest.raises(ValueError, match="whole number"):
        game.step(action + 0.5)  # type: ignore[arg-type]
    assert game.hand.history == history and game.agent_selection == agent
    game.step(numpy.float32(action))  # type: ignore[arg-type]
    assert len(game.hand.history) == len(history) + 1

"""gongzhu's PettingZoo AEC environment passes PettingZoo's own tests."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, render_test, seed_test

import gongzhu
from gongzhu.envs import encoding
from gongzhu.envs.pettingzoo import AGENTS, env, raw_env

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
    with pytest.raises(ValueError, match="'raw' or 'final'"):
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

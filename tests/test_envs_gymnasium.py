"""gongzhu's single-seat Gymnasium environment passes Gymnasium's checker."""

from __future__ import annotations

import warnings

import pytest

gymnasium = pytest.importorskip("gymnasium")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import gongzhu  # noqa: E402
from gongzhu.envs import encoding  # noqa: E402
from gongzhu.envs.gymnasium import ENV_ID, SeatEnv  # noqa: E402

pytestmark = pytest.mark.one_engine  # the adapters, not the play engines, are tested


@pytest.mark.parametrize("rules", ["39baobao", "huapai", ("two-deck", "anmai")], ids=str)
def test_check_env(rules: object, capsys: pytest.CaptureFixture[str]) -> None:
    env = gymnasium.make(ENV_ID, rules=rules)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings are failures here
        check_env(env.unwrapped)
    env.close()


def test_make_by_id() -> None:
    env = gymnasium.make("gongzhu/Seat-v0", rules="huapai")
    assert env.unwrapped.rules is gongzhu.load_rules("huapai")
    observation, info = env.reset(seed=0)
    assert observation.shape == (encoding.observation_size(gongzhu.load_rules("huapai")),)
    assert info["action_mask"].dtype == np.int8


def _episode(env: SeatEnv, seed: int) -> tuple[float, int]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, done = 0.0, 0, False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        _obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated and "illegal_action" not in info
        total += float(reward)
        done = terminated
        steps += 1
    return total, steps


@pytest.mark.parametrize("seat", range(4))
def test_reward_is_the_seats_final_score(seat: int) -> None:
    env = SeatEnv(rules=("huapai", "anmai"), seat=seat, bots=["random", "first", "random"])
    total, steps = _episode(env, seed=seat)
    hand = env.hand
    assert hand is not None and hand.is_over
    assert total == float(hand.returns()[seat])
    assert steps == sum(1 for who, _ in hand.history if who == seat)
    assert not env.action_masks().any()


def test_the_same_seed_plays_the_same_hand() -> None:
    first, second = (SeatEnv(bots="heuristic") for _ in range(2))
    assert _episode(first, seed=4) == _episode(second, seed=4)
    assert first.hand is not None and second.hand is not None
    assert first.hand.history == second.hand.history


def test_illegal_action_ends_the_episode() -> None:
    env = SeatEnv(illegal_reward=-123.0)
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _obs, reward, terminated, _truncated, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-123.0, True, True)


def test_a_given_deal() -> None:
    deal = gongzhu.Deal.shuffled(5)
    env = SeatEnv(seat=2)
    env.reset(seed=0, options={"deal": deal})
    assert env.hand is not None and env.hand.deal == deal
    assert env.hand.to_move == 2 or env.hand.is_over


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="seat"):
        SeatEnv(seat=4)
    with pytest.raises(ValueError, match="three"):
        SeatEnv(bots=["random", "random"])
    with pytest.raises(gongzhu.bots.UnknownBot):
        SeatEnv(bots="no-such-bot")
    with pytest.raises(ValueError, match="render_mode"):
        SeatEnv(render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="reset"):
        SeatEnv().step(0)


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = SeatEnv(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "seat 0:" in text
    human = SeatEnv(render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert "seat 0:" in capsys.readouterr().out


def test_the_default_illegal_reward_is_below_every_result_of_the_ruleset() -> None:
    from gongzhu.envs.encoding import default_illegal_reward, score_bounds

    for names in ("39baobao", ("huapai", "anmai"), "two-deck"):
        env = SeatEnv(rules=names)
        assert env.illegal_reward == default_illegal_reward(env.rules)
        assert env.illegal_reward < score_bounds(env.rules).final_low < 0
    assert SeatEnv(rules="two-deck").illegal_reward < -400_000  # two-deck finals pass -300 000
    env = SeatEnv(rules="two-deck")
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    assert env.step(illegal)[1] == default_illegal_reward(env.rules)

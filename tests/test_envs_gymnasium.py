"""gongzhu's single-seat Gymnasium environment passes Gymnasium's checker."""

from __future__ import annotations

import warnings
from typing import Any

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
def test_reward_is_the_seats_raw_score_scaled(seat: int) -> None:
    env = SeatEnv(rules=("huapai", "anmai"), seat=seat, bots=["random", "first", "random"])
    total, steps = _episode(env, seed=seat)
    hand = env.hand
    assert hand is not None and hand.is_over
    assert total == hand.raw_scores()[seat] * 0.01
    assert steps == sum(1 for who, _ in hand.history if who == seat)


def test_final_rewards() -> None:
    env = SeatEnv(reward="final", reward_scale=1.0)
    total, _steps = _episode(env, seed=3)
    assert env.hand is not None and total == float(env.hand.returns()[0])


def test_an_ended_episode_asks_for_reset_and_marks_every_action_legal() -> None:
    """The terminal mask is not empty (a masked sampler draws from it before a vector
    environment resets), and stepping on raises instead of playing on."""
    env = SeatEnv()
    _episode(env, seed=2)
    mask = env.action_masks()
    assert mask.all()
    env.action_space.sample(mask.astype(np.int8))  # what crashed on an all-False mask
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=3)
    assert 0 < env.action_masks().sum() < encoding.action_size(env.rules)


def test_the_same_seed_plays_the_same_hand() -> None:
    first, second = (SeatEnv(bots="heuristic") for _ in range(2))
    assert _episode(first, seed=4) == _episode(second, seed=4)
    assert first.hand is not None and second.hand is not None
    assert first.hand.history == second.hand.history


def test_illegal_action_ends_the_episode() -> None:
    env = SeatEnv(illegal_reward=-123.0)
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.hand.history if env.hand is not None else ()
    _obs, reward, terminated, _truncated, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-123.0, True, True)
    assert info["action_mask"].all()
    with pytest.raises(RuntimeError, match="reset"):  # it used to step on
        env.step(0)
    assert env.hand is not None and env.hand.history == before


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


def test_the_default_illegal_reward_is_five_spreads_down_on_the_rewards_scale() -> None:
    from gongzhu.envs.encoding import default_illegal_reward, reward_spread

    for names in ("39baobao", ("huapai", "anmai"), "two-deck"):
        env = SeatEnv(rules=names)
        assert env.illegal_reward == default_illegal_reward(env.rules)
        assert env.illegal_reward == pytest.approx(-5 * reward_spread(env.rules) * 0.01)
        final = SeatEnv(rules=names, reward="final")
        assert final.illegal_reward == pytest.approx(-5 * reward_spread(env.rules, "final") / 1000)
    env = SeatEnv(rules="two-deck")
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    assert env.step(illegal)[1] == -63.0


class _Counting:
    """A bot object: the first legal action, counting its moves."""

    def __init__(self) -> None:
        self.moves = 0

    def choose(self, view: gongzhu.SeatView) -> gongzhu.Action:
        self.moves += 1
        return view.legal_actions[0]


class _Model:
    """What sb3-contrib's MaskablePPO offers an opponent seat: predict(obs, action_masks)."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[int, ...], bool]] = []

    def predict(
        self, observation: np.ndarray, action_masks: np.ndarray, deterministic: bool = False
    ) -> tuple[np.int64 | np.ndarray, None]:
        """The last legal action; a batch of them for a batch of observations."""
        self.calls.append((observation.shape, deterministic))
        if observation.ndim == 2:
            return np.array([np.flatnonzero(m)[-1] for m in action_masks]), None
        return np.int64(np.flatnonzero(action_masks)[-1]), None


def test_opponents_may_be_bots_callables_and_policies() -> None:
    rules = gongzhu.load_rules()
    bot = _Counting()
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        seen.append((observation, mask))
        return int(np.flatnonzero(mask)[0])

    model = _Model()
    env = SeatEnv(rules=rules, seat=1, bots=[bot, policy, model])
    assert env.bot_names == ("bot", "policy", "policy")
    _episode(env, seed=5)
    hand = env.hand
    assert hand is not None and hand.is_over
    moves = {seat: sum(1 for who, _ in hand.history if who == seat) for seat in range(4)}
    assert bot.moves == moves[0] and len(seen) == moves[2] and len(model.calls) == moves[3]
    assert model.calls[0] == ((encoding.observation_size(rules),), False)  # sampled, not argmax
    from gongzhu.envs.encoding import encode_observation

    observation, mask = seen[0]  # the policy saw seat 2's own observation and mask
    assert mask.sum() >= 1 and observation.shape == (encoding.observation_size(rules),)
    env.set_opponents("heuristic")
    assert env.bot_names == ("heuristic",) * 3
    env.reset(seed=6)
    assert env.hand is not None
    assert np.array_equal(env._observation(), encode_observation(rules, env.hand.view(1)))
    with pytest.raises(TypeError, match="opponent"):
        env.set_opponents(3)


def test_self_play_with_the_policy_that_learns() -> None:
    """A policy_opponent of the agent's own model sits at the three other seats."""
    from gongzhu.envs.gymnasium import policy_opponent

    model = _Model()
    env = SeatEnv(bots=policy_opponent(model, deterministic=True))
    _episode(env, seed=7)
    assert model.calls and all(deterministic for _size, deterministic in model.calls)


def test_a_policy_choosing_outside_its_mask_is_refused() -> None:
    env = SeatEnv(seat=0, bots=lambda observation, mask: int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(gongzhu.errors.IllegalAction, match="outside its action mask"):
        for seed in range(20):  # a hand in which another seat moves before seat 0's turn ends
            _episode(env, seed=seed)


def test_match_env_plays_until_the_ruleset_ends_the_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gongzhu.envs.gymnasium import MATCH_ENV_ID, MatchEnv

    env = gymnasium.make(MATCH_ENV_ID, rules="huapai", bots="first")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    match_env = MatchEnv(rules="huapai", seat=2)
    observation, info = match_env.reset(seed=1)
    rewards, ends, done = 0.0, 0, False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        observation, reward, done, _truncated, info = match_env.step(action)
        rewards += float(reward)
        ends += info["hand_over"]
    match = match_env.match
    assert match is not None and match.is_over and ends == len(match.hands) >= 1
    assert max(abs(t) for t in match.totals) >= 1000  # huapai: a total reaching 1000
    assert rewards == pytest.approx(sum(h.raw_scores()[2] for h in match.hands) * 0.01)
    size = encoding.observation_size(match_env.rules)
    assert observation[size:].tolist() == pytest.approx(
        [t * 0.001 for t in (match.totals[2:] + match.totals[:2])] + [len(match.hands)]
    )
    assert info["totals"] == tuple(match.totals)
    short = MatchEnv(rules="39baobao", hands=3)
    observation, _info = short.reset(seed=0)
    size = encoding.observation_size(short.rules)
    done, played = False, [observation[-1]]
    while not done:
        observation, _r, done, _t, info = short.step(int(np.flatnonzero(short.action_masks())[0]))
        if info["hand_over"] and not done:  # the next hand dealt in the same step
            played.append(observation[-1])
            assert observation[:size].sum() > 0 and short.hand is not None
            assert not short.hand.history or short.hand.to_move == 0
    assert short.match is not None and len(short.match.hands) == 3
    assert played == [0, 1, 2]
    with pytest.raises(gongzhu.errors.GongzhuError, match="never ends"):
        MatchEnv(rules="39baobao")


@pytest.mark.parametrize("batched", [False, True])
def test_vector_env_steps_hands_together(batched: bool) -> None:
    from gongzhu.envs.gymnasium import SeatVectorEnv

    vector = SeatVectorEnv(3, rules="39baobao", bots="random", batched=batched)
    assert vector.batched is batched and (vector.batch is not None) is batched
    observations, info = vector.reset(seed=10)
    assert observations.shape == (3, encoding.observation_size(vector.rules))
    assert vector.observation_space.contains(observations)
    single = SeatEnv(rules="39baobao", bots="random")
    if batched:  # hand i is dealt from b + i, b drawn from the seed's generator
        assert vector.batch is not None
        base = int(np.random.default_rng(10).integers(0, 2**62))
        assert vector.batch.seeds.tolist() == [base, base + 1, base + 2]
        dealt = vector.batch.hand(1).dealt_masks
        assert dealt == vector.rules.new_hand(base + 1).dealt_masks
    else:
        first, _ = single.reset(seed=11)
        assert np.array_equal(observations[1], first)  # hand i is seeded seed + i
    finished = 0
    rewards = []
    for _ in range(60):
        masks = vector.action_masks()
        assert masks.any(axis=1).all()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        observations, reward, terminated, truncated, info = vector.step(actions)
        assert not truncated.any() and info["action_mask"].shape == masks.shape
        for i in np.flatnonzero(terminated):
            assert info["_final_obs"][i] and info["final_obs"][i].shape == observations[i].shape
            assert (
                observations[i][encoding.layout(single.rules).segment("played-by").start :].sum()
                >= 0
            )
            rewards.append(reward[i])
        finished += int(terminated.sum())
    assert finished >= 6 and any(rewards)
    illegal = np.array([np.flatnonzero(m == 0)[0] for m in vector.action_masks()])
    _obs, reward, terminated, _t, info = vector.step(illegal)
    assert terminated.all() and info["illegal_action"].all()
    assert (reward == vector.illegal_reward).all()
    assert vector.action_masks().any(axis=1).all()  # reset in the same step


def test_random_opponents_are_the_random_bot_draw_for_draw() -> None:
    """ "random" skips building views, and plays exactly what the random bot would."""
    from gongzhu.bots import RandomBot

    fast = SeatEnv(bots="random")
    slow = SeatEnv(bots=[RandomBot(0), RandomBot(0), RandomBot(0)])
    fast.reset(seed=12)
    seeds = [int(s) for s in np.random.default_rng(12).integers(0, 2**63, size=4)]
    slow.set_opponents([RandomBot(seed) for seed in seeds[1:]])
    slow.reset(seed=12)
    done = False
    while not done:
        action = int(np.flatnonzero(fast.action_masks())[0])
        done = fast.step(action)[2]
        slow.step(action)
    assert fast.hand is not None and slow.hand is not None
    assert fast.hand.history == slow.hand.history


def test_make_vec_makes_the_vector_env_and_its_resets_carry_final_info() -> None:
    """Issue 40: gymnasium.make_vec could not make SeatVectorEnv, and a same-step reset's
    info had no final_info."""
    import numpy as np

    from gongzhu.envs.gymnasium import SeatVectorEnv

    vec = gymnasium.make_vec("gongzhu/Seat-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(vec, SeatVectorEnv) and vec.num_envs == 3
    _obs, info = vec.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(500):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in info["action_mask"]]
        _obs, _rewards, terminated, _truncated, info = vec.step(actions)
        if terminated.any():
            break
    else:
        pytest.fail("no hand ended")
    assert list(info["_final_info"]) == list(terminated) == list(info["_final_obs"])
    assert "action_mask" in info["final_info"] and "_action_mask" in info["final_info"]


def _lowest(observation: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic policy: the lowest legal action index."""
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("batched", [False, True])
def test_a_batch_policy_is_asked_once_for_every_hand_waiting(batched: bool) -> None:
    """Issue 40: self-play called the opponent's model once per decision; a BatchPolicy is
    called once per round of opponent moves, for all the hands waiting, and plays as the
    same policy asked a decision at a time."""
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv

    calls: list[int] = []

    def lowest_many(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(observations))
        assert observations.dtype == np.float32 and masks.dtype == np.int8
        return np.array([_lowest(o, m) for o, m in zip(observations, masks, strict=True)])

    width = 16
    together = SeatVectorEnv(width, rules="huapai", bots=BatchPolicy(lowest_many), batched=batched)
    single = SeatVectorEnv(width, rules="huapai", bots=_lowest, batched=batched)
    ours, _ = together.reset(seed=3)
    theirs, _ = single.reset(seed=3)
    assert np.array_equal(ours, theirs)
    for _ in range(40):
        calls.clear()
        actions = np.array([np.flatnonzero(m)[0] for m in together.action_masks()])
        ours, our_rewards, our_ends, _t, _i = together.step(actions)
        theirs, their_rewards, their_ends, _t, _i = single.step(actions)
        assert np.array_equal(ours, theirs) and np.array_equal(our_rewards, their_rewards)
        assert np.array_equal(our_ends, their_ends)
        # every hand's opponents move in rounds: a few calls, not one per decision
        assert len(calls) <= 12 and sum(calls) >= width
    if batched:
        assert together.batch is not None and single.batch is not None
        histories = [together.batch.hand(i).history for i in range(width)]
        assert histories == [single.batch.hand(i).history for i in range(width)]
    else:
        histories = [e._hand().history for e in together.envs]
        assert histories == [e._hand().history for e in single.envs]


def test_a_batch_policy_answering_wrongly_is_refused() -> None:
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv

    short = SeatVectorEnv(4, bots=BatchPolicy(lambda observations, masks: [0]))
    with pytest.raises(gongzhu.errors.GongzhuError, match="answered 1 actions for"):
        for seed in range(5):
            short.reset(seed=seed)
            for _ in range(20):
                short.step([int(np.flatnonzero(m)[0]) for m in short.action_masks()])
    outside = SeatEnv(
        bots=BatchPolicy(lambda observations, masks: [int(np.flatnonzero(masks[0] == 0)[0])])
    )
    with pytest.raises(gongzhu.errors.IllegalAction, match="outside its action mask"):
        for seed in range(20):
            _episode(outside, seed=seed)
    with pytest.raises(TypeError, match="wraps a callable"):
        BatchPolicy(3)  # type: ignore[arg-type]


def test_policy_opponent_batched_predicts_many_observations_at_once() -> None:
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv, policy_opponent

    model = _Model()
    opponent = policy_opponent(model, deterministic=True, batched=True)
    assert isinstance(opponent, BatchPolicy)
    vector = SeatVectorEnv(8, bots=opponent)
    vector.reset(seed=1)
    vector.step([int(np.flatnonzero(m)[0]) for m in vector.action_masks()])
    assert any(len(shape) == 2 and shape[0] > 1 for shape, _deterministic in model.calls)


# -- issue 40: team rewards, the information state ------------------------------------------


@pytest.mark.parametrize("kind", ["team", "team-final"])
def test_team_rewards_and_the_partner_told_the_format(kind: encoding.RewardKind) -> None:
    """A team reward pays the seat's team's mean score less the other team's (2-vs-2),
    and the bots, named or given, hear that the table plays 2-vs-2."""
    from gongzhu.bots import PARTNERS, SOLO, make_bot

    given: Any = make_bot("heuristic", seed=1)
    for seat in (0, 3):
        env = SeatEnv(rules="huapai", seat=seat, bots=["heuristic", given, "search"], reward=kind)
        total, _steps = _episode(env, seed=seat)
        hand = env.hand
        assert hand is not None and hand.is_over
        assert total == encoding.make_reward(kind).of(hand)[seat]
        assert env.format is PARTNERS and given.format is PARTNERS
        named = [s.bot for s in env._opponent_seats.values() if hasattr(s, "bot")]
        assert [bot.format for bot in named] == [PARTNERS] * 3
    assert SeatEnv(bots="heuristic").format is SOLO
    SeatEnv(bots=given)  # no team reward: a bot told its format keeps it
    assert given.format is PARTNERS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make(ENV_ID, rules="huapai", reward=kind).unwrapped)


def _scripted(
    names: str,
    deal: gongzhu.Deal,
    actions: list[int],
    seat: int,
    observation: encoding.ObservationKind,
) -> np.ndarray:
    """The agent's observation at ``seat`` once ``actions`` are played, every seat's
    taken from the script (the opponents are policies reading it)."""
    script = iter(actions)
    env = SeatEnv(
        rules=names, seat=seat, bots=lambda _obs, _mask: next(script), observation=observation
    )
    seen, _info = env.reset(seed=0, options={"deal": deal})
    assert env.observation_space.contains(seen)
    for index in script:
        seen, *_ = env.step(index)
    assert env.hand is not None and env.hand.to_move == seat
    return seen


@pytest.mark.parametrize("names", ["39baobao", "two-deck"])
def test_the_information_state_keeps_the_order_of_the_tricks(names: str) -> None:
    """Issue 40: two tricks swapped gave the agent the same observation; with
    ``observation="information_state"`` they differ."""
    from .test_envs_encoding import swapped_tricks

    rules = encoding.resolve_rules(names)
    deal, one, other = swapped_tricks(rules)
    hand = rules.new_hand(deal=deal)
    for index in one:
        hand.apply(encoding.decode_action(rules, index))
    seat = hand.to_move
    assert seat is not None
    compact = [_scripted(names, deal, actions, seat, "observation") for actions in (one, other)]
    full = [_scripted(names, deal, actions, seat, "information_state") for actions in (one, other)]
    assert np.array_equal(compact[0], compact[1])
    assert not np.array_equal(full[0], full[1])
    assert full[0].shape == (encoding.information_state_size(rules),)
    with pytest.raises(ValueError, match="observation must be one of"):
        SeatEnv(observation="state")  # type: ignore[arg-type]


def test_the_information_state_in_every_gymnasium_env() -> None:
    """The option passes through the match and the vector environments, with the right
    spaces, and a policy opponent is given the vectors the agent is."""
    from gongzhu.envs.gymnasium import MATCH_ENV_ID, SeatVectorEnv

    rules = gongzhu.load_rules("huapai")
    size = encoding.information_state_size(rules)
    seen: list[int] = []

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        seen.append(observation.size)
        return int(np.flatnonzero(mask)[0])

    env = SeatEnv(rules=rules, bots=policy, observation="information_state")
    space: Any = env.observation_space
    assert np.array_equal(space.high, encoding.information_state_high(rules))
    _episode(env, seed=1)
    assert seen and set(seen) == {size}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make(ENV_ID, rules=rules, observation="information_state").unwrapped)
        match = gymnasium.make(
            MATCH_ENV_ID, rules=rules, hands=2, observation="information_state"
        ).unwrapped
        check_env(match)
    observation, _info = match.reset(seed=2)
    assert observation.shape == (size + 5,) and match.observation_space.contains(observation)
    vector = SeatVectorEnv(num_envs=2, rules=rules, observation="information_state", batched=False)
    rows, _info = vector.reset(seed=4)
    single = SeatEnv(rules=rules, observation="information_state")
    assert rows.shape == (2, size) and vector.observation_space.contains(rows)
    assert np.array_equal(rows[1], single.reset(seed=5)[0])
    masks = vector.action_masks()
    rows, *_ = vector.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    assert rows.shape == (2, size)


# -- issue 40: the vector environment on the batch ---------------------------------------------


def _replayed_lowest(hand: Any, seat: int) -> bool:
    """Whether every move of the seats other than ``seat`` in ``hand`` was their lowest legal
    action index (as :func:`_lowest` chooses)."""
    rules = hand.rules
    again = rules.new_hand(deal=hand.deal)  # the opening lead (and its card) as dealt
    for who, action in hand.history:
        if who != seat:
            mask = encoding.action_mask(rules, again.legal_actions())
            if encoding.encode_action(rules, action) != int(np.flatnonzero(mask)[0]):
                return False
        again.apply(action)
    return True


@pytest.mark.parametrize(
    ("rules", "reward", "observation", "batch_policy"),
    [
        ("39baobao", "raw", "observation", False),
        ("huapai+anmai", "team", "information_state", True),
        ("two-deck", "final", "observation", True),
    ],
)
def test_the_batched_vector_env_is_its_hands_seen_from_the_agents_seat(
    rules: str, reward: encoding.RewardKind, observation: Any, batch_policy: bool
) -> None:
    """Every row is the agent's observation of its hand (the encoder's), every mask its legal
    actions, every reward the hand's reward at the agent's seat, every final observation
    the finished hand's; the policy opponents play their own (lowest) choices, a policy
    asked once a round."""
    from gongzhu.envs.fast import HandEncoder
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv

    calls: list[int] = []

    def lowest_many(observations: np.ndarray, masks: np.ndarray) -> list[int]:
        calls.append(len(masks))
        return [_lowest(o, m) for o, m in zip(observations, masks, strict=True)]

    seat = 2
    bots: Any = BatchPolicy(lowest_many) if batch_policy else _lowest
    width = 5
    vector = SeatVectorEnv(
        width, rules=rules, seat=seat, bots=bots, reward=reward, observation=observation
    )
    batch = vector.batch
    assert vector.batched and batch is not None
    made = encoding.make_reward(reward)
    history = observation == "information_state"
    rng = np.random.default_rng(4)
    observations, info = vector.reset(seed=3)
    ended = 0
    for _ in range(45):
        for i in range(width):
            hand = batch.hand(i)
            assert hand.to_move == seat
            encoder = HandEncoder(vector.rules, information_state=history)
            encoder.reset(hand)
            expected = encoder.information_state(seat) if history else encoder.observation(seat)
            assert np.array_equal(observations[i], expected)
            legal = encoding.action_mask(vector.rules, hand.legal_actions())
            assert np.array_equal(info["action_mask"][i], legal)
        calls.clear()
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in info["action_mask"]]
        observations, rewards, terminated, _truncated, info = vector.step(actions)
        if batch_policy:
            assert len(calls) <= 8  # a round at a time, not a call per decision
        for i in np.flatnonzero(terminated).tolist():
            ended += 1
            done = batch.hand(i, finished=True)
            assert done.is_over and _replayed_lowest(done, seat)
            assert rewards[i] == pytest.approx(made.of(done)[seat])
            encoder = HandEncoder(vector.rules, information_state=history)
            encoder.reset(done)
            last = encoder.information_state(seat) if history else encoder.observation(seat)
            assert np.array_equal(info["final_obs"][i], last)
            assert info["final_info"]["action_mask"][i].all()
        assert not rewards[~terminated].any()
    assert ended >= width


def test_the_batched_vector_env_refuses_and_ends_on_bad_actions() -> None:
    from gongzhu.envs.gymnasium import SeatVectorEnv

    vector = SeatVectorEnv(4, bots="random")
    _obs, info = vector.reset(seed=1)
    assert vector.batch is not None
    before = [vector.batch.hand(i).history for i in range(4)]
    seeds = vector.batch.seeds.tolist()
    legal = [int(np.flatnonzero(m)[0]) for m in info["action_mask"]]
    wrong = [int(np.flatnonzero(m == 0)[0]) for m in info["action_mask"]]
    actions = [wrong[0], -1, legal[2], 10**6]
    _obs, rewards, terminated, _t, info = vector.step(actions)
    assert terminated.tolist() == [True, True, False, True]
    assert info["illegal_action"].tolist() == [True, True, False, True]
    assert rewards[[0, 1, 3]].tolist() == [vector.illegal_reward] * 3
    assert info["final_obs"][0] is not None and info["final_obs"][2] is None
    assert vector.batch.seeds[[0, 1, 3]].tolist() != [seeds[0], seeds[1], seeds[3]]
    assert vector.batch.hand(2).history[: len(before[2]) + 1][-1][0] == 0  # the agent moved
    with pytest.raises(ValueError, match="3 actions for 4"):
        vector.step(legal[:3])
    with pytest.raises(ValueError, match="deals its own hands"):
        vector.reset(options={"deal": gongzhu.Deal.shuffled(1)})
    with pytest.raises(ValueError, match="batched=True needs opponents"):
        SeatVectorEnv(2, bots="heuristic", batched=True)
    # review of issue 40: both were silently ignored
    with pytest.raises(ValueError, match="reset_mask is for the DISABLED autoreset mode"):
        vector.reset(options={"reset_mask": np.ones(4, dtype=bool)})
    with pytest.raises(ValueError, match="does not render"):
        SeatVectorEnv(2, render_mode="ansi")
    assert not SeatVectorEnv(2, bots="heuristic").batched


def test_make_vec_on_the_batch_is_five_times_seat_v0_or_so() -> None:
    """Not a timing test (the benchmark measures): the vector env made by make_vec is the
    batched one, in C where the C engines are built."""
    import gongzhu.engines

    vec = gymnasium.make_vec("gongzhu/Seat-v0", num_envs=4, vectorization_mode="vector_entry_point")
    assert vec.batched and vec.batch is not None
    assert vec.batch.in_c is gongzhu.engines.ACCELERATED


def test_the_batched_vector_env_keeps_gymnasiums_vector_conventions() -> None:
    """What Gymnasium's checker asks of a single environment, asked of the vector one:
    equal seeds give equal runs, returned arrays are not written again, the spaces
    hold what is returned; and the same-step reset's infos are batched as Gymnasium's
    own vector environments batch them."""
    from gymnasium.vector import SyncVectorEnv

    from gongzhu.envs.gymnasium import SeatVectorEnv

    runs = []
    for _ in range(2):
        vector = SeatVectorEnv(6, rules="huapai", bots="random")
        observations, info = vector.reset(seed=9)
        rng = np.random.default_rng(1)
        seen = [(observations, info["action_mask"])]
        for _ in range(30):
            actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(1)
            observations, rewards, terminated, truncated, info = vector.step(actions)
            assert vector.observation_space.contains(observations)
            assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == bool
            seen.append((observations, info["action_mask"]))
        firsts = [(o.copy(), m.copy()) for o, m in seen]
        assert all(
            np.array_equal(o, c) and np.array_equal(m, k)
            for (o, m), (c, k) in zip(seen, firsts, strict=True)
        )
        runs.append(firsts)
    assert all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        for a, b in zip(runs[0], runs[1], strict=True)
    )
    # the infos' shape, as SyncVectorEnv (same-step autoreset) gives them for the same ends
    ours = SeatVectorEnv(3, bots="random")
    theirs = SyncVectorEnv(
        [lambda: SeatEnv(bots="random") for _ in range(3)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
    )
    _o, info = ours.reset(seed=2)
    _t, their_info = theirs.reset(seed=2)
    for _ in range(200):
        our_step = ours.step([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
        their_step = theirs.step([int(np.flatnonzero(m)[0]) for m in their_info["action_mask"]])
        info, their_info = our_step[4], their_step[4]
        if our_step[2].any() and their_step[2].any():
            break
    assert set(info) >= {"final_obs", "_final_obs", "final_info", "_final_info", "action_mask"}
    assert set(info) - {"illegal_action", "_illegal_action"} == set(their_info)
    assert set(info["final_info"]) == set(their_info["final_info"])
    assert info["final_obs"].dtype == their_info["final_obs"].dtype == object


@pytest.mark.parametrize("batched", [False, True])
def test_a_step_that_raised_is_not_followed_by_a_silent_one(batched: bool) -> None:
    """Review of issue 40: an opponent's policy raising mid-round left a hand with an
    opponent to move, and the next step played the agent's action as that opponent's."""
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv

    fail = {"on": False}

    def opponent(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if fail["on"]:
            fail["on"] = False
            raise RuntimeError("opponent hiccup")
        return masks.argmax(1)

    vector = SeatVectorEnv(2, bots=BatchPolicy(opponent), batched=batched)
    _obs, info = vector.reset(seed=0)
    fail["on"] = True
    with pytest.raises(RuntimeError, match="hiccup"):
        vector.step(info["action_mask"].argmax(1))
    with pytest.raises(RuntimeError, match="a previous step raised"):
        vector.step(vector.action_masks().argmax(1))
    _obs, info = vector.reset(seed=1)  # and reset() mends it
    vector.step(info["action_mask"].argmax(1))


def test_the_batched_vector_env_seeds_as_gymnasium_does() -> None:
    """Review of issue 40: a reset without a seed drew fresh entropy, so a seeded run's
    second episode differed from run to run; numpy and list seeds were refused; a step
    before any reset paid the illegal reward; a policy got rows it could not keep."""
    from gongzhu.envs.gymnasium import SeatVectorEnv

    runs = []
    for _ in range(2):
        vector = SeatVectorEnv(3, bots="random")
        vector.reset(seed=np.int64(5))  # type: ignore[arg-type]
        again, _info = vector.reset()
        runs.append(again)
    assert np.array_equal(runs[0], runs[1])
    listed = SeatVectorEnv(3, bots="random")
    listed.reset(seed=[7, 8, 9])
    assert listed.batch is not None and listed.batch.seeds.tolist() == [7, 8, 9]
    with pytest.raises(RuntimeError, match="reset"):
        SeatVectorEnv(2).step([0, 0])
    kept: list[np.ndarray] = []

    def keeper(observation: np.ndarray, mask: np.ndarray) -> int:
        kept.append(observation)
        return int(np.flatnonzero(mask)[0])

    vector = SeatVectorEnv(2, bots=keeper)
    _obs, info = vector.reset(seed=3)
    copies = [k.copy() for k in kept]
    vector.step(info["action_mask"].argmax(1))
    assert all(np.array_equal(k, c) for k, c in zip(kept, copies, strict=False))


def test_restart_takes_the_masks_step_returns() -> None:
    from gongzhu.batch import HandBatch

    batch = HandBatch(gongzhu.load_rules(), 4, seeds=0, auto_reset=False)
    batch.restart(np.array([False, False, True, False]))
    assert batch.seeds.tolist() == [0, 1, 4, 3]
    with pytest.raises(TypeError, match="indices or booleans"):
        batch.restart([1.9])
    with pytest.raises(ValueError, match="4 booleans"):
        batch.restart(np.array([True]))
    assert batch.hand(np.int64(1)).to_move is not None  # type: ignore[arg-type]


@pytest.mark.parametrize("batched", [False, True])
def test_the_vector_envs_opponents_change_between_moves(batched: bool) -> None:
    """Review of issue 40: a vector env's opponents could not be changed (a self-play pool
    of checkpoints meant a new env); set_opponents seats them in every hand."""
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv

    calls: list[int] = []

    def lowest_many(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(masks))
        return masks.argmax(1)

    vector = SeatVectorEnv(3, bots="random", batched=batched)
    _obs, info = vector.reset(seed=2)
    vector.set_opponents(BatchPolicy(lowest_many))
    for _ in range(20):
        _obs, _r, _t, _tr, info = vector.step(info["action_mask"].argmax(1))
    assert calls
    if batched:
        with pytest.raises(ValueError, match="read no view"):
            vector.set_opponents("heuristic")
        calls.clear()
        vector.step(info["action_mask"].argmax(1))
        assert calls  # the batch policy still sits there
    else:  # bots by name are built at a reset, as SeatEnv's
        vector.set_opponents("heuristic")
        _obs, info = vector.reset()
        vector.step(info["action_mask"].argmax(1))
    with pytest.raises(ValueError, match="one opponent or three"):
        vector.set_opponents(["random", "random"])


@pytest.mark.parametrize("batched", [True, False])
def test_a_vector_action_that_is_no_whole_number_is_refused_before_any_hand_moves(
    batched: bool,
) -> None:
    from gongzhu.envs.gymnasium import SeatVectorEnv

    vector = SeatVectorEnv(3, rules="39baobao", bots="random", batched=batched)
    _observations, info = vector.reset(seed=4)
    legal = [int(np.flatnonzero(row)[0]) for row in info["action_mask"]]
    for bad in ([legal[0], legal[1] + 0.5, legal[2]], [float("nan")] * 3, ["a", "b", "c"]):
        with pytest.raises(ValueError, match="whole number"):
            vector.step(np.asarray(bad, dtype=object) if bad[0] == "a" else np.asarray(bad))
    with pytest.raises(ValueError, match="2 actions for 3 environments"):
        vector.step(legal[:2])
    with pytest.raises(ValueError, match=r"actions of shape \(2, 3\) for 3 environments"):
        vector.step(np.asarray([legal, legal]))
    again, _rewards, terminated, _t, _info = vector.step(np.asarray(legal, dtype=np.float64))
    fresh = SeatVectorEnv(3, rules="39baobao", bots="random", batched=batched)
    fresh.reset(seed=4)
    expected, *_ = fresh.step(legal)  # whole floats are the ints they hold
    assert np.array_equal(again, expected) and not terminated.any()


def test_a_seat_action_that_is_no_whole_number_is_refused_and_nothing_changes() -> None:
    env = SeatEnv(rules="39baobao")
    _obs, info = env.reset(seed=2)
    action = int(np.flatnonzero(info["action_mask"])[0])
    before = env.hand.history if env.hand is not None else None
    with pytest.raises(ValueError, match="whole number"):
        env.step(action + 0.25)  # type: ignore[arg-type]
    assert env.hand is not None and env.hand.history == before
    _obs, _reward, terminated, _t, info = env.step(float(action))  # type: ignore[arg-type]
    assert "illegal_action" not in info and not terminated


def _lowest_legal(info: dict[str, Any]) -> list[int]:
    return [int(np.flatnonzero(row)[0]) for row in info["action_mask"]]


@pytest.mark.parametrize("batched", [True, False])
def test_next_step_autoreset_is_same_step_with_the_reset_one_step_later(batched: bool) -> None:
    """One hand, random opponents: the NEXT_STEP environment returns a hand's last
    observation where the SAME_STEP one puts it in ``final_obs``, with the same reward,
    and the next hand's first observation one step later, with reward 0; the same hands
    throughout (the same seeds, the same draws)."""
    from gymnasium.vector import AutoresetMode

    from gongzhu.envs.gymnasium import SeatVectorEnv

    same = SeatVectorEnv(1, bots="random", batched=batched)
    after = SeatVectorEnv(1, bots="random", batched=batched, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert after.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs_same, info_same = same.reset(seed=3)
    obs_next, info_next = after.reset(seed=3)
    assert np.array_equal(obs_same, obs_next)
    ends = 0
    for _ in range(60):
        actions = _lowest_legal(info_same)
        obs_same, r_same, t_same, _, info_same = same.step(actions)
        obs_next, r_next, t_next, _, info_next = after.step(actions)
        assert r_same[0] == r_next[0] and t_same[0] == t_next[0]
        if not t_same[0]:
            assert np.array_equal(obs_same, obs_next)
            continue
        ends += 1
        assert np.array_equal(info_same["final_obs"][0], obs_next[0])  # the last observation
        assert info_next["action_mask"][0].all()  # any action: it is ignored
        obs_next, r_next, t_next, _, info_next = after.step([10**6 % after._masks.shape[1]])
        assert r_next[0] == 0.0 and not t_next[0]
        assert np.array_equal(obs_same, obs_next)  # the next hand's first observation
        assert np.array_equal(info_same["action_mask"], info_next["action_mask"])
    assert ends >= 3


@pytest.mark.parametrize("batched", [True, False])
def test_next_step_resets_carry_on_with_illegal_actions_and_many_hands(batched: bool) -> None:
    from gymnasium.vector import AutoresetMode

    from gongzhu.envs.gymnasium import SeatVectorEnv

    vector = SeatVectorEnv(
        4, bots="random", batched=batched, autoreset_mode=AutoresetMode.NEXT_STEP
    )
    _obs, info = vector.reset(seed=8)
    masks = info["action_mask"]
    bad = int(np.flatnonzero(masks[1] == 0)[0])
    actions = _lowest_legal(info)
    actions[1] = bad
    _obs, rewards, terminated, _t, info = vector.step(actions)
    assert terminated[1] and rewards[1] == vector.illegal_reward
    assert info["illegal_action"][1] and info["_illegal_action"][1]
    assert not terminated[[0, 2, 3]].any()
    _obs, rewards, terminated, _t, info = vector.step(_lowest_legal(info))
    assert rewards[1] == 0.0 and not terminated[1]  # dealt anew, the action ignored
    pending = np.zeros(4, dtype=bool)
    for _ in range(80):
        _obs, rewards, terminated, _t, info = vector.step(_lowest_legal(info))
        assert not (terminated & pending).any() and (rewards[pending] == 0).all()
        pending = terminated.copy()


def test_next_step_lets_gymnasiums_observation_wrappers_wrap_it() -> None:
    from gymnasium.vector import AutoresetMode
    from gymnasium.wrappers.vector import NormalizeObservation

    from gongzhu.envs.gymnasium import SeatVectorEnv

    with pytest.raises(ValueError, match="NEXT_STEP or DISABLED"):
        NormalizeObservation(SeatVectorEnv(2))
    wrapped = NormalizeObservation(SeatVectorEnv(2, autoreset_mode=AutoresetMode.NEXT_STEP))
    _obs, info = wrapped.reset(seed=0)
    observations, *_ = wrapped.step(_lowest_legal(info))
    assert observations.shape == (2, wrapped.single_observation_space.shape[0])
    made = gymnasium.make_vec(
        "gongzhu/Seat-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        autoreset_mode=AutoresetMode.NEXT_STEP,
    )
    assert made.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    for mode in (AutoresetMode.DISABLED, "sometimes"):
        with pytest.raises(ValueError, match="autoreset_mode must be"):
            SeatVectorEnv(2, autoreset_mode=mode)


@pytest.mark.parametrize("batch", [False, True])
def test_match_env_policy_opponents_see_the_agents_layout_from_their_seat(batch: bool) -> None:
    """A policy opponent of MatchEnv is given the observation the agent's space describes,
    the match part from its own seat: a policy trained on MatchEnv can play any seat."""
    from gongzhu.envs.gymnasium import BatchPolicy, MatchEnv

    checked: list[int] = []

    def lowest(observation: np.ndarray, mask: np.ndarray) -> int:
        assert env.observation_space.contains(observation)
        assert env.match is not None and env.hand is not None
        seat = env.hand.to_move
        assert seat is not None and seat != env.seat
        totals = env.match.totals
        expected = [totals[(seat + k) % 4] * 0.001 for k in range(4)]
        assert observation[size : size + 4].tolist() == pytest.approx(expected)
        assert observation[-1] == len(env.match.hands)
        checked.append(len(env.match.hands))
        return int(np.flatnonzero(mask)[0])

    def lowest_many(observations: np.ndarray, masks: np.ndarray) -> list[int]:
        return [lowest(o, m) for o, m in zip(observations, masks, strict=True)]

    opponent = BatchPolicy(lowest_many) if batch else lowest
    env = MatchEnv(rules="39baobao", hands=3, seat=0, bots=[opponent] * 3)
    size = encoding.observation_size(env.rules)
    _observation, info = env.reset(seed=5)
    done = False
    while not done:
        _observation, _r, done, _t, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.match is not None and any(env.match.totals)
    assert set(checked) == {0, 1, 2}  # every hand, the later ones with totals to show


def test_numpy_answers_count_as_their_numbers_and_a_policy_is_not_truncated() -> None:
    from gongzhu.envs.gymnasium import SeatVectorEnv

    assert encoding.action_number(np.array(3.0)) == 3
    assert encoding.action_number(np.True_) == 1
    assert encoding.action_number(np.int16(7)) == 7
    with pytest.raises(ValueError, match="whole number"):
        encoding.action_number(np.array(3.5))
    env = SeatEnv(rules="39baobao")
    _obs, info = env.reset(seed=2)
    action = int(np.flatnonzero(info["action_mask"])[0])
    _obs, _r, terminated, _t, info = env.step(np.array(float(action)))  # type: ignore[arg-type]
    assert "illegal_action" not in info and not terminated
    vector = SeatVectorEnv(2, rules="39baobao", bots="random")
    _obs, info = vector.reset(seed=1)
    with pytest.raises(ValueError, match=r"actions of shape \(2, 1\) for 2 environments"):
        vector.step(np.zeros((2, 1), dtype=np.int64))
    stepped = vector.step([2**70, 10**30])  # far outside the actions: illegal, not an error
    assert stepped[2].all() and stepped[4]["illegal_action"].all()
    floating = SeatEnv(
        rules="39baobao", bots=lambda observation, mask: np.flatnonzero(mask)[0] + 0.7
    )
    with pytest.raises(ValueError, match=r"the policy at seat [123]: .*whole number"):
        for seed in range(5):
            floating.reset(seed=seed)
            floating.step(int(np.flatnonzero(floating.action_masks())[0]))

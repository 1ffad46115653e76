"""The research environments against OpenSpiel's C++ ``hearts``, measured in one run.

    python -m pip install -e '.[pettingzoo,gymnasium,openspiel]'
    python benchmarks/envs_speed.py [--hands N] [--repeat R]

Every rate is decisions per second (a seat's action: a show or a play; the
deal is not a decision, but its time counts, as a ``reset`` does), each the
best of ``--repeat`` runs of N hands of uniformly random legal actions, the
runs of the different rows interleaved so that the machine's speed drifting
during the run does not skew a ratio.  The rows:

* OpenSpiel ``hearts`` (``pass_cards=False``) stepped from Python:
  ``legal_actions()`` + ``apply_action()``, chance nodes included; then the
  same reading ``information_state_tensor(player)`` before every decision;
* gongzhu's engine alone: ``HandState.legal_actions()`` + ``apply()``;
* PettingZoo ``raw_env`` and the wrapped ``env()``: ``last()`` (the acting
  seat's observation and mask) + ``step()``, the action drawn from the mask;
* Gymnasium ``Seat-v0`` against random bots, and ``SeatVectorEnv``, 8 hands one
  by one and 64 hands batched (:class:`gongzhu.batch.HandBatch`): the agent's
  decisions only (the bots' are played inside ``step``);
* OpenSpiel ``python_gongzhu``: as hearts, with and without the tensor.

Then the encoder's time per observation (:class:`gongzhu.envs.fast.HandEncoder`
against the reference :func:`gongzhu.envs.encoding.encode_observation`) and
the ratios the issue's goals name.  39baobao throughout (``--rules`` for another:
a name or names joined by ``+``, ``--rules huapai+anmai``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np

import gongzhu

Run = Callable[[int], int]  # plays N hands, returns the decisions taken


def openspiel_steps(game: object, tensor: bool) -> Run:
    def run(hands: int) -> int:
        rng = random.Random(1)
        choice = rng.choice
        decisions = 0
        for _ in range(hands):
            state = game.new_initial_state()  # type: ignore[attr-defined]
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.legal_actions()))
                    continue
                if tensor:
                    state.information_state_tensor(state.current_player())
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
            state.returns()
        return decisions

    return run


def engine_steps(rules: gongzhu.Rules) -> Run:
    def run(hands: int) -> int:
        rng = random.Random(1)
        choice = rng.choice
        decisions = 0
        for i in range(hands):
            hand = rules.new_hand(i)
            while not hand.is_over:
                hand.apply(choice(hand.legal_actions()))
                decisions += 1
            hand.raw_scores()
        return decisions

    return run


def pettingzoo_steps(make: Callable[[], object]) -> Run:
    game = make()

    def run(hands: int) -> int:
        draw = random.Random(1).random
        decisions = 0
        game.reset(seed=1)  # type: ignore[attr-defined]
        for _ in range(hands):
            game.reset()  # type: ignore[attr-defined]
            for _agent in game.agent_iter():  # type: ignore[attr-defined]
                observation, _reward, terminated, truncated, _info = game.last()  # type: ignore[attr-defined]
                if terminated or truncated:
                    game.step(None)  # type: ignore[attr-defined]
                    continue
                legal = observation["action_mask"].nonzero()[0]
                game.step(int(legal[int(draw() * len(legal))]))  # type: ignore[attr-defined]
                decisions += 1
        return decisions

    return run


def seat_steps(rules: str) -> Run:
    from gongzhu.envs.gymnasium import SeatEnv

    env = SeatEnv(rules=rules, bots="random")

    def run(hands: int) -> int:
        draw = random.Random(1).random
        decisions = 0
        env.reset(seed=1)
        for _ in range(hands):
            _obs, info = env.reset()
            done = False
            while not done:
                legal = info["action_mask"].nonzero()[0]
                _obs, _r, done, _t, info = env.step(int(legal[int(draw() * len(legal))]))
                decisions += 1
        return decisions

    return run


def vector_steps(rules: str, width: int = 8, batched: bool = True) -> Run:
    from gongzhu.envs.gymnasium import SeatVectorEnv

    env = SeatVectorEnv(width, rules=rules, bots="random", batched=batched)

    def run(hands: int) -> int:
        rng = np.random.default_rng(1)
        decisions = 0
        _obs, info = env.reset(seed=1)
        finished = 0
        while finished < hands:
            masks = info["action_mask"]
            # uniform among each row's legal actions: the largest of iid uniforms kept
            actions = (rng.random(masks.shape) * masks).argmax(axis=1)
            _obs, _r, terminated, _t, info = env.step(actions)
            finished += int(terminated.sum())
            decisions += width
        return decisions

    return run


def encoder_times(rules: gongzhu.Rules, hands: int) -> tuple[float, float]:
    """Microseconds per observation of the acting seat: the fast encoder (catching up with
    the step just played included), then the reference from a view."""
    from gongzhu.envs.encoding import encode_observation
    from gongzhu.envs.fast import HandEncoder

    encoder = HandEncoder(rules)
    rng = random.Random(2)
    fast = slow = 0.0
    count = 0
    clock = time.perf_counter
    for i in range(hands):
        hand = rules.new_hand(i)
        encoder.reset(hand)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            start = clock()
            encoder.observation(seat)
            middle = clock()
            encode_observation(rules, hand.view(seat))
            fast += middle - start
            slow += clock() - middle
            count += 1
            hand.apply(rng.choice(hand.legal_actions()))
    return fast / count * 1e6, slow / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rules", default="39baobao")
    args = parser.parse_args()
    import pyspiel

    import gongzhu.envs.openspiel  # noqa: F401 (registers python_gongzhu)
    from gongzhu.envs.encoding import resolve_rules
    from gongzhu.envs.pettingzoo import env, raw_env

    rules = resolve_rules(args.rules)  # names joined by "+", as every adapter reads them
    hearts = pyspiel.load_game("hearts", {"pass_cards": False})
    ours = pyspiel.load_game("python_gongzhu", {"rules": args.rules})
    rows: dict[str, tuple[Run, int]] = {
        "OpenSpiel hearts (C++) from Python": (openspiel_steps(hearts, False), args.hands),
        "OpenSpiel hearts + information_state_tensor": (
            openspiel_steps(hearts, True),
            args.hands // 4,
        ),
        "gongzhu engine (HandState.apply)": (engine_steps(rules), args.hands),
        "PettingZoo raw_env (last + step)": (
            pettingzoo_steps(lambda: raw_env(rules=rules)),
            args.hands,
        ),
        "PettingZoo env() (wrapped)": (pettingzoo_steps(lambda: env(rules=rules)), args.hands),
        "Gymnasium Seat-v0 (random bots)": (seat_steps(args.rules), args.hands),
        "Gymnasium SeatVectorEnv (8 hands, one by one)": (
            vector_steps(args.rules, 8, batched=False),
            args.hands,
        ),
        "Gymnasium SeatVectorEnv (64 hands, batched)": (
            vector_steps(args.rules, 64),
            args.hands,
        ),
        "OpenSpiel python_gongzhu": (openspiel_steps(ours, False), args.hands // 4),
        "OpenSpiel python_gongzhu + information_state_tensor": (
            openspiel_steps(ours, True),
            args.hands // 4,
        ),
    }
    best = dict.fromkeys(rows, 0.0)
    for run, hands in rows.values():  # warm up: caches, tables, imports
        run(max(hands // 20, 2))
    for _ in range(args.repeat):
        for name, (run, hands) in rows.items():
            start = time.perf_counter()
            decisions = run(hands)
            best[name] = max(best[name], decisions / (time.perf_counter() - start))
    print(f"rules: {args.rules}; best of {args.repeat}; decisions per second")
    for name, rate in best.items():
        print(f"  {name:<52} {rate:>10,.0f}")
    fast, slow = encoder_times(rules, max(args.hands // 4, 20))
    print(
        f"  encoder, per observation: HandEncoder {fast:.1f} us, encode_observation {slow:.1f} us"
    )
    hearts_rate = best["OpenSpiel hearts (C++) from Python"]
    raw = best["PettingZoo raw_env (last + step)"]
    print("goals:")
    print(f"  raw_env / hearts                    {raw / hearts_rate:.2f}x  (goal >= 0.2x)")
    print(
        f"  env() / raw_env                     {best['PettingZoo env() (wrapped)'] / raw:.2f}x"
        "  (goal >= 0.5x)"
    )
    print(f"  encoder per observation             {fast:.1f} us  (goal <= 10 us)")
    tensor = (
        best["OpenSpiel python_gongzhu + information_state_tensor"]
        / best["OpenSpiel hearts + information_state_tensor"]
    )
    print(f"  python_gongzhu / hearts, tensors    {tensor:.2f}x  (goal >= 1x)")
    vector = (
        best["Gymnasium SeatVectorEnv (64 hands, batched)"]
        / best["Gymnasium Seat-v0 (random bots)"]
    )
    print(f"  SeatVectorEnv(64) / Seat-v0         {vector:.2f}x  (goal >= 5x, issue 40)")


if __name__ == "__main__":
    main()

"""MaskablePPO (sb3-contrib) learns seat 0 of gongzhu/Seat-v0 against random bots.

    python -m pip install -e '.[learn]'      # sb3-contrib, and torch (CPU wheels will do)
    python recipes/maskable_ppo_seat.py --steps 2000000 --out ppo_seat

Trains ``MaskablePPO`` on :class:`gongzhu.envs.gymnasium.SeatEnv` (39baobao,
the default reward: raw points times 0.01), evaluating the policy every
``--eval-every`` steps on the same ``--deals`` seeded deals, against random
bots and against heuristic bots, beside a random agent and the heuristic
bot in the agent's chair on those deals.  Each evaluation prints one line of
the learning curve (mean raw points a hand at seat 0); the curve goes to
``OUT.csv`` and the model to ``OUT.zip``.  The documentation (docs/envs.rst)
gives a run's curve and the command that made it.
"""

from __future__ import annotations

import argparse
import csv
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

RULES = "39baobao"

Chooser = Callable[[Any, Any], int]  # (env, observation) -> action index


def play_deals(chooser: Chooser, bots: str, deals: int, seed: int, rules: str = RULES) -> float:
    """The mean raw points a hand of seat 0, ``chooser`` deciding for it, against ``bots``,
    over ``deals`` deals seeded ``seed``, ``seed + 1``, … (the same deals and the same bot
    seeds for every chooser)."""
    from gongzhu.envs.gymnasium import SeatEnv

    env = SeatEnv(rules=rules, seat=0, bots=bots)
    total = 0
    for number in range(deals):
        observation, _info = env.reset(seed=seed + number)
        done = False
        while not done:
            observation, _reward, done, _truncated, _info = env.step(chooser(env, observation))
        assert env.hand is not None
        total += env.hand.raw_scores()[0]
    return total / deals


def model_chooser(model: Any) -> Chooser:
    """The trained policy's most likely legal action."""

    def choose(env: Any, observation: Any) -> int:
        action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
        return int(action)

    return choose


def random_chooser(seed: int = 0) -> Chooser:
    """A uniformly random legal action (a random agent in the chair)."""
    rng = random.Random(seed)

    def choose(env: Any, observation: Any) -> int:
        return int(rng.choice(np.flatnonzero(env.action_masks())))

    return choose


def bot_chooser(name: str) -> Chooser:
    """A gongzhu bot in the chair (``heuristic``), choosing from the seat's view."""
    from gongzhu.bots import make_bot
    from gongzhu.envs.encoding import encode_action

    def choose(env: Any, observation: Any) -> int:
        bot = make_bot(name, seed=0, rules=env.rules)
        return encode_action(env.rules, bot.choose(env.hand.view(env.seat)))

    return choose


def common_arguments(
    parser: argparse.ArgumentParser, *, steps: int, envs: int, saved: str
) -> argparse.ArgumentParser:
    """The options every training recipe takes (this one's and ``ppo_vector.py``'s)."""
    parser.add_argument("--steps", type=int, default=steps, help="agent decisions to train")
    parser.add_argument("--envs", type=int, default=envs, help="hands stepped side by side")
    parser.add_argument("--eval-every", type=int, default=250_000)
    parser.add_argument("--deals", type=int, default=500, help="seeded deals per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--out", type=Path, default=None, help=f"OUT.csv and {saved}")
    return parser


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Train and evaluate; return the learning curve (one dict a row)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    args = common_arguments(parser, steps=2_000_000, envs=16, saved="OUT.zip").parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from gongzhu.envs.gymnasium import SeatEnv

    torch.set_num_threads(args.threads)
    envs = DummyVecEnv(
        [lambda: SeatEnv(rules=RULES, seat=0, bots="random") for _ in range(args.envs)]
    )
    envs.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        envs,
        learning_rate=3e-4,
        n_steps=max(2048 // args.envs, 16),
        batch_size=512,
        n_epochs=5,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        verbose=0,
    )
    eval_seed = 1_000_000
    baselines = {
        "random agent vs random": play_deals(random_chooser(), "random", args.deals, eval_seed),
        "heuristic vs random": play_deals(
            bot_chooser("heuristic"), "random", args.deals, eval_seed
        ),
        "random agent vs heuristic": play_deals(
            random_chooser(), "heuristic", args.deals, eval_seed
        ),
        "heuristic vs heuristic": play_deals(
            bot_chooser("heuristic"), "heuristic", args.deals, eval_seed
        ),
    }
    print(
        f"baselines over {args.deals} deals (mean raw points a hand, seat 0): "
        + ", ".join(f"{name} {value:+.1f}" for name, value in baselines.items())
    )
    curve: list[dict[str, float]] = []
    started = time.perf_counter()
    trained = 0
    while trained < args.steps:
        chunk = min(args.eval_every, args.steps - trained)
        model.learn(total_timesteps=chunk, reset_num_timesteps=False)
        trained = model.num_timesteps
        policy = model_chooser(model)
        row = {
            "steps": float(trained),
            "minutes": (time.perf_counter() - started) / 60,
            "vs random": play_deals(policy, "random", args.deals, eval_seed),
            "vs heuristic": play_deals(policy, "heuristic", args.deals, eval_seed),
        }
        row["gain vs random"] = row["vs random"] - baselines["random agent vs random"]
        row["gain vs heuristic"] = row["vs heuristic"] - baselines["random agent vs heuristic"]
        curve.append(row)
        random_agent = baselines["random agent vs random"]
        print(
            f"steps {trained:>9,}  {row['minutes']:6.1f} min  "
            f"vs random {row['vs random']:+7.1f} (random agent {random_agent:+.1f}, "
            f"gain {row['gain vs random']:+.1f})  "
            f"vs heuristic {row['vs heuristic']:+7.1f} (random agent "
            f"{baselines['random agent vs heuristic']:+.1f}, gain {row['gain vs heuristic']:+.1f})",
            flush=True,
        )
    if args.out is not None:
        save_curve(args.out, curve)
        model.save(str(args.out.with_suffix(".zip")))
    return curve


def save_curve(out: Path, curve: list[dict[str, float]]) -> None:
    """The learning curve into ``OUT.csv`` (its folder made): every recipe's."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.with_suffix(".csv").open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=list(curve[0]))
        writer.writeheader()
        writer.writerows(curve)


if __name__ == "__main__":
    main()

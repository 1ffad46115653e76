"""Self-play speed: the agent and its three opponents one small torch MLP, measured in one run.

    python -m pip install -e '.[gymnasium]' && python -m pip install torch==2.13.0
    python benchmarks/selfplay_speed.py [--seconds S] [--repeat R] [--rules R]

Every rate is the agent's steps a second (one decision of seat 0 and the
opponents' moves up to its next one), the policy choosing among the legal
actions by sampling the MLP's masked logits.  The rows, interleaved so that the
machine's speed drifting during the run does not skew a ratio:

* ``SeatEnv``, the opponents a per-decision :data:`~gongzhu.envs.gymnasium.Policy`
  (one forward pass per opponent decision, and one per agent step): the
  self-play of the documentation's recipe before batching;
* ``SeatVectorEnv`` of N hands, the opponents a
  :class:`~gongzhu.envs.gymnasium.BatchPolicy` (one forward pass for all the
  hands waiting on an opponent) and the agent's N actions from one forward pass.

The issue's goal (issue 40): at least 5,000 agent steps a second with the
batched opponents.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def mlp(inputs: int, actions: int, seed: int = 0) -> Any:
    """A two-layer MLP policy (64 units a layer), as a small PPO policy has."""
    import torch

    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(inputs, 64),
        torch.nn.Tanh(),
        torch.nn.Linear(64, 64),
        torch.nn.Tanh(),
        torch.nn.Linear(64, actions),
    )


def sampler(model: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Actions for a batch of observations: the masked logits' samples (Gumbel-max)."""
    import torch

    generator = torch.Generator().manual_seed(0)

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            logits = model(torch.from_numpy(observations))
            noise = -torch.log(-torch.log(torch.rand(logits.shape, generator=generator)))
            logits = (logits + noise).masked_fill(torch.from_numpy(masks) == 0, -torch.inf)
            return logits.argmax(dim=1).numpy()

    return act


def seat_env_rate(rules: str, seconds: float) -> float:
    """Agent steps a second: one ``SeatEnv``, every decision its own forward pass."""
    from gongzhu.envs import encoding
    from gongzhu.envs.gymnasium import SeatEnv

    codec = encoding.layout(encoding.resolve_rules(rules))
    act = sampler(mlp(codec.observation_size, codec.action_size))

    def one(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(act(observation[None, :], mask[None, :])[0])

    env = SeatEnv(rules=rules, bots=one)
    observation, info = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        observation, _reward, done, _truncated, info = env.step(
            one(observation, info["action_mask"])
        )
        steps += 1
        if done:
            observation, info = env.reset()
    return steps / (time.perf_counter() - start)


def vector_rate(rules: str, width: int, seconds: float) -> float:
    """Agent steps a second: ``SeatVectorEnv`` of ``width`` hands, opponents batched."""
    from gongzhu.envs import encoding
    from gongzhu.envs.gymnasium import BatchPolicy, SeatVectorEnv

    codec = encoding.layout(encoding.resolve_rules(rules))
    act = sampler(mlp(codec.observation_size, codec.action_size))
    env = SeatVectorEnv(width, rules=rules, bots=BatchPolicy(act))
    observations, info = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        observations, _r, _terminated, _truncated, info = env.step(
            act(observations, info["action_mask"])
        )
        steps += width
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per row and run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default="39baobao")
    parser.add_argument("--widths", default="16,64,256", help="SeatVectorEnv sizes")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        raise SystemExit("this benchmark needs torch: python -m pip install torch") from None
    torch.set_num_threads(1)  # one core, as the goal says
    widths = [int(w) for w in args.widths.split(",")]
    rows: dict[str, Callable[[], float]] = {
        "SeatEnv, one forward pass a decision": lambda: seat_env_rate(args.rules, args.seconds)
    }
    for width in widths:
        rows[f"SeatVectorEnv({width}), BatchPolicy opponents"] = (
            lambda width=width: vector_rate(args.rules, width, args.seconds)  # type: ignore[misc]
        )
    best = dict.fromkeys(rows, 0.0)
    for _ in range(args.repeat):
        for name, run in rows.items():
            best[name] = max(best[name], run())
    print(f"rules: {args.rules}; best of {args.repeat}; agent steps a second (one torch thread)")
    reference = best["SeatEnv, one forward pass a decision"]
    for name, rate in best.items():
        print(f"  {name:<48} {rate:>9,.0f}  {rate / reference:5.1f}x")
    top = max(best[f"SeatVectorEnv({w}), BatchPolicy opponents"] for w in widths)
    print(f"goal: batched self-play >= 5,000 agent steps/s: {top:,.0f}")


if __name__ == "__main__":
    main()

"""Masked PPO (CleanRL style, plain torch) learns seat 0 of SeatVectorEnv against random bots.

    python -m pip install -e '.[gymnasium]' && python -m pip install torch
    python recipes/ppo_vector.py --steps 1000000 --out ppo_vector

One file, no RL framework: a policy and a value network (two layers of 256,
as ``recipes/maskable_ppo_seat.py`` has), the vector environment's hands
stepped together (:class:`gongzhu.envs.gymnasium.SeatVectorEnv`, ``--envs``
of them), the illegal actions' logits masked out, generalised advantage
estimation and the clipped objective.  The environment, the reward (raw points
× 0.01) and the evaluation are the MaskablePPO recipe's: every ``--eval-every``
steps the policy (its most likely legal action) plays the same seeded deals
at seat 0 against random bots and against heuristic bots, beside a random
agent on those deals.  docs/envs.rst gives a run's curve and time beside the
MaskablePPO recipe's.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import Any

import numpy as np

RULES = "39baobao"


def _evaluation() -> Any:
    """The MaskablePPO recipe's evaluation (the same deals, the same bots)."""
    path = Path(__file__).resolve().parent / "maskable_ppo_seat.py"
    spec = importlib.util.spec_from_file_location("maskable_ppo_seat", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(observations: int, actions: int, hidden: int = 256) -> Any:
    """The actor and the critic: two MLPs of two ``hidden``-unit layers."""
    import torch
    from torch import nn

    class Agent(nn.Module):
        def __init__(self) -> None:
            super().__init__()

            def mlp(out: int, gain: float) -> nn.Sequential:
                layers = [
                    nn.Linear(observations, hidden),
                    nn.Tanh(),
                    nn.Linear(hidden, hidden),
                    nn.Tanh(),
                    nn.Linear(hidden, out),
                ]
                for layer in layers:
                    if isinstance(layer, nn.Linear):
                        nn.init.orthogonal_(layer.weight, np.sqrt(2))
                        nn.init.zeros_(layer.bias)
                nn.init.orthogonal_(layers[-1].weight, gain)
                return nn.Sequential(*layers)

            self.actor = mlp(actions, 0.01)
            self.critic = mlp(1, 1.0)

        def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return self.actor(x).masked_fill(~mask, -1e9)

        def value(self, x: torch.Tensor) -> torch.Tensor:
            return self.critic(x).squeeze(-1)

    return Agent()


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Train and evaluate; return the learning curve (one dict a row)."""
    evaluation = _evaluation()
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    evaluation.common_arguments(parser, steps=1_000_000, envs=64, saved="OUT.pt")
    parser.add_argument("--rollout", type=int, default=32, help="steps per hand per update")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args(argv)

    import torch

    from gongzhu.envs.gymnasium import SeatVectorEnv

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    envs = SeatVectorEnv(args.envs, rules=RULES, seat=0, bots="random")
    size = envs.single_observation_space.shape[0]
    actions = int(envs.single_action_space.n)
    agent = build(size, actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    def chooser(env: Any, observation: Any) -> int:
        with torch.inference_mode():
            x = torch.as_tensor(observation, dtype=torch.float32)[None]
            mask = torch.as_tensor(env.action_masks())[None]
            return int(agent.masked_logits(x, mask).argmax())

    eval_seed = 1_000_000
    random_agent = {
        bots: evaluation.play_deals(evaluation.random_chooser(), bots, args.deals, eval_seed)
        for bots in ("random", "heuristic")
    }
    print(
        f"baselines over {args.deals} deals (mean raw points a hand, seat 0): random agent "
        f"vs random {random_agent['random']:+.1f}, vs heuristic {random_agent['heuristic']:+.1f}"
    )
    n, t = args.envs, args.rollout
    obs_buf = torch.zeros((t, n, size))
    mask_buf = torch.zeros((t, n, actions), dtype=torch.bool)
    act_buf = torch.zeros((t, n), dtype=torch.long)
    logp_buf = torch.zeros((t, n))
    rew_buf = torch.zeros((t, n))
    done_buf = torch.zeros((t, n))
    val_buf = torch.zeros((t, n))
    observation, info = envs.reset(seed=args.seed)
    obs = torch.as_tensor(observation)
    mask = torch.as_tensor(info["action_mask"]).bool()
    curve: list[dict[str, float]] = []
    trained, next_eval = 0, args.eval_every
    started = time.perf_counter()
    training = 0.0
    while trained < args.steps:
        tick = time.perf_counter()
        for step in range(t):
            obs_buf[step], mask_buf[step] = obs, mask
            with torch.inference_mode():
                logits = agent.masked_logits(obs, mask)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
                logp_buf[step] = dist.log_prob(action)
                val_buf[step] = agent.value(obs)
            act_buf[step] = action
            observation, reward, terminated, truncated, info = envs.step(action.numpy())
            rew_buf[step] = torch.as_tensor(reward, dtype=torch.float32)
            done_buf[step] = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            obs = torch.as_tensor(observation)
            mask = torch.as_tensor(info["action_mask"]).bool()
        # a hand's reward comes at its end: returns undiscounted (gamma 1), GAE lambda 0.95
        with torch.inference_mode():
            following = agent.value(obs)
        advantages = torch.zeros((t, n))
        last = torch.zeros(n)
        for step in reversed(range(t)):
            alive = 1.0 - done_buf[step]
            after = following if step == t - 1 else val_buf[step + 1]
            delta = rew_buf[step] + after * alive - val_buf[step]
            last = delta + 0.95 * alive * last
            advantages[step] = last
        returns = advantages + val_buf
        batch = t * n
        flat = {
            "obs": obs_buf.reshape(batch, size),
            "mask": mask_buf.reshape(batch, actions),
            "act": act_buf.reshape(batch),
            "logp": logp_buf.reshape(batch),
            "adv": advantages.reshape(batch),
            "ret": returns.reshape(batch),
        }
        for _epoch in range(args.epochs):
            order = torch.randperm(batch)
            for begin in range(0, batch, args.minibatch):
                part = order[begin : begin + args.minibatch]
                dist = torch.distributions.Categorical(
                    logits=agent.masked_logits(flat["obs"][part], flat["mask"][part])
                )
                ratio = (dist.log_prob(flat["act"][part]) - flat["logp"][part]).exp()
                adv = flat["adv"][part]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean()
                error = agent.value(flat["obs"][part]) - flat["ret"][part]
                value_loss = 0.5 * error.pow(2).mean()
                loss = policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        trained += batch
        training += time.perf_counter() - tick
        if trained >= next_eval or trained >= args.steps:
            next_eval += args.eval_every
            row = {
                "steps": float(trained),
                "minutes": (time.perf_counter() - started) / 60,
                "training minutes": training / 60,
                "vs random": evaluation.play_deals(chooser, "random", args.deals, eval_seed),
                "vs heuristic": evaluation.play_deals(chooser, "heuristic", args.deals, eval_seed),
            }
            row["gain vs random"] = row["vs random"] - random_agent["random"]
            row["gain vs heuristic"] = row["vs heuristic"] - random_agent["heuristic"]
            curve.append(row)
            print(
                f"steps {trained:>9,}  {row['minutes']:6.1f} min ({row['training minutes']:.1f} "
                f"training)  vs random {row['vs random']:+7.1f} (gain {row['gain vs random']:+.1f})"
                f"  vs heuristic {row['vs heuristic']:+7.1f} "
                f"(gain {row['gain vs heuristic']:+.1f})",
                flush=True,
            )
    if args.out is not None:
        evaluation.save_curve(args.out, curve)
        torch.save(agent.state_dict(), args.out.with_suffix(".pt"))
    return curve


if __name__ == "__main__":
    main()

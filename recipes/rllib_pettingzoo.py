"""RLlib's PPO learns gongzhu by self-play on the PettingZoo environment, with action masks.

    python -m pip install -e '.[rllib]'      # ray[rllib], and torch (CPU wheels will do)
    python recipes/rllib_pettingzoo.py --iterations 20

One policy, ``shared``, plays all four seats of
:func:`gongzhu.envs.pettingzoo.env` through RLlib's ``PettingZooEnv``
wrapper.  The environment names its observation vector ``observations``
(``observation_key="observations"``), so that the observation dicts have
the two keys the action-masking module reads, ``observations`` and
``action_mask``; the module (:func:`masking_module`) is RLlib's default PPO
module reading ``observations``, with ``log(mask)`` added to its logits, so
no illegal action is ever sampled.  (RLlib's own example,
``ActionMaskingTorchRLModule``, does the same but subclasses
``PPOTorchRLModule``, which Ray 2.60 calls deprecated.)  RLlib's
environment check steps the environment once with an unmasked random
action as each runner starts: the one "Illegal move made" line in a
runner's log is that.  After every ``--eval-every`` iterations the policy
plays seat 0 of ``--deals`` seeded deals against random bots and against
heuristic bots (its most likely legal action), beside a random agent on
the same deals: one line of the learning curve each (mean raw points a
hand).  ``--address auto`` trains on a running Ray cluster; by default a
local Ray instance with ``--cpus`` CPUs is started.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np

RULES = "39baobao"


def make_env(config: dict[str, Any]) -> Any:
    """The environment RLlib builds (``register_env``): the wrapped PettingZoo game."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from gongzhu.envs.pettingzoo import env

    return PettingZooEnv(env(rules=config.get("rules", RULES), observation_key="observations"))


def masking_module() -> type:
    """The RL module class: RLlib's default PPO torch module
    (``DefaultPPOTorchRLModule``) on the ``observations`` entry of each
    observation dict, adding ``log(action_mask)`` (clamped) to its action logits."""
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class MaskedPPOModule(DefaultPPOTorchRLModule):
        """PPO's networks on the observation vector; the mask only masks the logits."""

        def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
            self.observation_space_with_mask = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self) -> None:
            super().setup()  # the networks, for the observation vector alone
            self.observation_space = self.observation_space_with_mask

        @staticmethod
        def _unmask(batch: dict[str, Any]) -> Any:
            """Split the observation dict: the vector stays under ``obs``, the mask goes
            to ``action_mask`` (in place: the value pass and the training pass share it)."""
            obs = batch[Columns.OBS]
            if isinstance(obs, dict):
                batch[Columns.OBS] = obs["observations"]
                batch["action_mask"] = obs["action_mask"]
            return batch["action_mask"]

        @staticmethod
        def _masked(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
            logits = outs[Columns.ACTION_DIST_INPUTS]
            outs[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(torch.log(mask), min=FLOAT_MIN)
            return outs

        def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = self._unmask(batch)
            return self._masked(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = self._unmask(batch)
            return self._masked(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = self._unmask(batch)
            return self._masked(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            self._unmask(batch)
            return super().compute_values(batch, embeddings)

    return MaskedPPOModule


def build(*, rules: str = RULES, env_runners: int = 1, batch: int = 4000, hidden: int = 256) -> Any:
    """The PPO algorithm: one masked policy shared by the four seats."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("gongzhu", make_env)
    config = (
        PPOConfig()
        .environment("gongzhu", env_config={"rules": rules})
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared",
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=masking_module(),
                        model_config={
                            "fcnet_hiddens": [hidden, hidden],
                            "head_fcnet_hiddens": [hidden],
                        },
                    )
                }
            )
        )
        # short fragments, and time to sample them: a Python environment on a small machine
        .env_runners(num_env_runners=env_runners, rollout_fragment_length=200, sample_timeout_s=600)
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(512, batch),
            num_epochs=5,
            lr=3e-4,
            gamma=1.0,
            entropy_coeff=0.01,
        )
    )
    return config.build_algo()


def play_deals(choose: Any, bots: str, deals: int, seed: int, rules: str = RULES) -> float:
    """The mean raw points a hand of seat 0, ``choose(env, observation)`` deciding for it,
    against ``bots``, over ``deals`` deals seeded ``seed``, ``seed + 1``, …"""
    from gongzhu.envs.gymnasium import SeatEnv

    env = SeatEnv(rules=rules, seat=0, bots=bots)
    total = 0
    for number in range(deals):
        observation, _info = env.reset(seed=seed + number)
        done = False
        while not done:
            observation, _reward, done, _truncated, _info = env.step(choose(env, observation))
        assert env.hand is not None
        total += env.hand.raw_scores()[0]
    return total / deals


def module_chooser(module: Any) -> Any:
    """The RLlib module's most likely legal action."""
    import torch

    def choose(env: Any, observation: Any) -> int:
        mask = env.action_masks()
        batch = {
            "obs": {
                "observations": torch.from_numpy(observation[None]),
                "action_mask": torch.from_numpy(mask[None].astype(np.float32)),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        return int(np.argmax(np.where(mask, logits, -np.inf)))

    return choose


def random_chooser(seed: int = 0) -> Any:
    rng = random.Random(seed)

    def choose(env: Any, observation: Any) -> int:
        return int(rng.choice(np.flatnonzero(env.action_masks())))

    return choose


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Train and evaluate; return the learning curve (one dict a row)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--batch", type=int, default=4000, help="decisions per iteration")
    parser.add_argument("--env-runners", type=int, default=1)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--address", default=None, help="a Ray cluster (auto, ray://...)")
    args = parser.parse_args(argv)

    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    try:
        algo = build(env_runners=args.env_runners, batch=args.batch)
        seed = 2_000_000
        baseline = play_deals(random_chooser(), "random", args.deals, seed)
        baseline_h = play_deals(random_chooser(), "heuristic", args.deals, seed)
        print(
            f"random agent over {args.deals} deals: vs random {baseline:+.1f}, "
            f"vs heuristic {baseline_h:+.1f}",
            flush=True,
        )
        curve: list[dict[str, float]] = []
        started = time.perf_counter()
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            if iteration % args.eval_every and iteration != args.iterations:
                continue
            choose = module_chooser(algo.get_module("shared"))
            steps = result.get("num_env_steps_sampled_lifetime", 0)
            row = {
                "iteration": float(iteration),
                "steps": float(steps),
                "minutes": (time.perf_counter() - started) / 60,
                "vs random": play_deals(choose, "random", args.deals, seed),
                "vs heuristic": play_deals(choose, "heuristic", args.deals, seed),
            }
            curve.append(row)
            print(
                f"iteration {iteration:>3}  steps {int(steps):>8,}  {row['minutes']:5.1f} min  "
                f"vs random {row['vs random']:+7.1f} (gain {row['vs random'] - baseline:+.1f})  "
                f"vs heuristic {row['vs heuristic']:+7.1f} "
                f"(gain {row['vs heuristic'] - baseline_h:+.1f})",
                flush=True,
            )
        algo.stop()
        return curve
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()

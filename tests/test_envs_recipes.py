"""The training recipes (recipes/*.py) run as written (each skipped without its framework).

The full runs take minutes to an hour: docs/envs.rst gives their measured results.
Here the MaskablePPO and the plain-torch PPO recipes train for a few hundred steps, and
the RLlib recipe's action-masking module reads the PettingZoo environment's observations (the
Ray run itself, about half a minute, runs with ``GONGZHU_RECIPES=1``).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.one_engine  # the play engine is not what these test

RECIPES = Path(__file__).resolve().parent.parent / "recipes"


def _recipe(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_maskable_ppo_recipe_runs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (gongzhu[learn])")
    pytest.importorskip("torch", reason="torch is not installed (gongzhu[learn])")
    recipe = _recipe("maskable_ppo_seat")
    curve = recipe.main(["--steps", "256", "--envs", "2", "--eval-every", "256", "--deals", "4"])
    assert len(curve) == 1 and curve[0]["steps"] >= 256
    assert set(curve[0]) >= {"vs random", "vs heuristic", "gain vs random"}
    out = capsys.readouterr().out
    assert "baselines over 4 deals" in out and "steps " in out
    # the evaluation is the same deals every time: a duplicate comparison
    chooser = recipe.random_chooser
    assert recipe.play_deals(chooser(), "random", 4, 7) == recipe.play_deals(
        chooser(), "random", 4, 7
    )


def test_vector_ppo_recipe_runs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("gymnasium", reason="Gymnasium is not installed (gongzhu[gymnasium])")
    pytest.importorskip("torch", reason="torch is not installed")
    recipe = _recipe("ppo_vector")
    curve = recipe.main(
        [
            *("--steps", "256", "--envs", "8", "--rollout", "16", "--minibatch", "64"),
            *("--eval-every", "128", "--deals", "4"),
        ]
    )
    assert len(curve) == 2 and curve[-1]["steps"] >= 256  # 128 steps an update
    assert set(curve[0]) >= {"vs random", "vs heuristic", "gain vs random", "training minutes"}
    out = capsys.readouterr().out
    assert "baselines over 4 deals" in out and "steps " in out


def test_rllib_masking_module_reads_the_pettingzoo_observations() -> None:
    """The recipe's action-masking module (RLlib's default PPO module, masked) takes the
    environment's spaces and observations as they are (keys ``observations`` and
    ``action_mask``) and keeps finite logits for the legal actions only, the terminal
    observation's empty mask included."""
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (gongzhu[rllib])")
    torch = pytest.importorskip("torch", reason="torch is not installed (gongzhu[rllib])")
    import numpy as np

    recipe = _recipe("rllib_pettingzoo")
    masked_module = recipe.masking_module()
    env = recipe.make_env({"rules": "huapai"})
    observations, _infos = env.reset(seed=1)
    agent = next(iter(observations))
    module = masked_module(
        observation_space=env.observation_space[agent],
        action_space=env.action_space[agent],
        model_config={"fcnet_hiddens": [16], "head_fcnet_hiddens": [16]},
    )
    steps = 0
    while True:
        agent, observation = next(iter(observations.items()))
        batch = {
            "obs": {
                "observations": torch.from_numpy(observation["observations"][None]),
                "action_mask": torch.from_numpy(observation["action_mask"][None]),
            }
        }
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        legal = observation["action_mask"].astype(bool)
        assert not np.isnan(logits).any()
        if not legal.any():
            break  # the hand is over
        assert logits[legal].min() > -1e9 > logits[~legal].max()
        observations, _r, terminated, _t, _i = env.step({agent: int(np.argmax(logits))})
        steps += 1
        if terminated["__all__"]:
            break
    assert steps >= 13


@pytest.mark.skipif(
    os.environ.get("GONGZHU_RECIPES") != "1", reason="a Ray run: set GONGZHU_RECIPES=1"
)
def test_rllib_recipe_runs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (gongzhu[rllib])")
    pytest.importorskip("torch", reason="torch is not installed (gongzhu[rllib])")
    sys.modules.pop("recipe_rllib_pettingzoo", None)
    recipe = _recipe("rllib_pettingzoo")
    curve = recipe.main(["--iterations", "1", "--deals", "4", "--batch", "400"])
    assert len(curve) == 1 and curve[0]["steps"] > 0
    assert "iteration   1" in capsys.readouterr().out


def test_rllib_recipe_builds_on_no_deprecated_api(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40: the recipe used RLlib's ActionMaskingTorchRLModule example, a subclass of
    the PPOTorchRLModule that Ray 2.60 calls deprecated (a warning at import)."""
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (gongzhu[rllib])")
    pytest.importorskip("torch", reason="torch is not installed (gongzhu[rllib])")
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )

    recipe = _recipe("rllib_pettingzoo")
    module = recipe.masking_module()
    assert module.__mro__[1] is DefaultPPOTorchRLModule
    source = (RECIPES / "rllib_pettingzoo.py").read_text(encoding="utf-8")
    assert not re.search(r"\bppo_torch_rl_module|examples\.rl_modules", source)

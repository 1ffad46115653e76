"""Four random agents play a few hands in gongzhu's PettingZoo environment.

Needs the extra: ``python -m pip install -e '.[pettingzoo]'``.  Each agent
samples a legal action from its observation's ``action_mask``.
"""

from __future__ import annotations

import importlib.util


def main(hands: int = 3) -> None:
    """Play ``hands`` hands of huapai with secret sales; print each seat's reward (raw points
    times 0.01, the default)."""
    from gongzhu.envs.pettingzoo import env

    game = env(rules=("huapai", "anmai"), render_mode="ansi")
    for number in range(hands):
        game.reset(seed=number)
        scores = dict.fromkeys(game.possible_agents, 0.0)
        for agent in game.agent_iter():
            observation, reward, termination, truncation, _info = game.last()
            scores[agent] += reward
            action = None
            if not (termination or truncation):
                action = game.action_space(agent).sample(observation["action_mask"])
            game.step(action)
        print(f"hand {number}: " + "  ".join(f"{a} {s:+.2f}" for a, s in scores.items()))
    game.close()


if __name__ == "__main__":
    if importlib.util.find_spec("pettingzoo") is None:
        print("PettingZoo is not installed: python -m pip install -e '.[pettingzoo]'")
    else:
        main()

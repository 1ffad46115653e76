"""Whole matches in Gymnasium (gongzhu/Match-v0), the other seats played by a policy.

Needs the extra: ``python -m pip install -e '.[gymnasium]'``.  An opponent may be
a bot name, a bot, or a callable ``policy(observation, action_mask) -> action``
(here the same simple policy as seat 0's: self-play); an episode is a match,
hands until the ruleset ends it (huapai: a total reaching 1000).
"""

from __future__ import annotations

import importlib.util
from typing import Any


def lowest_legal(observation: Any, mask: Any) -> int:
    """A policy: the legal action with the lowest index (the lowest card, or no show)."""
    return int(mask.nonzero()[0][0])


def main(matches: int = 3) -> None:
    """Play ``matches`` huapai matches from seat 0; print each match's hands and totals."""
    import gymnasium

    import gongzhu.envs.gymnasium  # noqa: F401  (registers gongzhu/Match-v0)

    env = gymnasium.make("gongzhu/Match-v0", rules="huapai", bots=lowest_legal)
    for number in range(matches):
        observation, info = env.reset(seed=number)
        done, hands, total = False, 0, 0.0
        while not done:
            action = lowest_legal(observation, info["action_mask"])
            observation, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            hands += info["hand_over"]
            done = terminated or truncated
        totals = " ".join(f"{t:+d}" for t in info["totals"])
        print(f"match {number}: {hands} hand(s), totals {totals}, seat 0's reward {total:+.2f}")
    env.close()


if __name__ == "__main__":
    if importlib.util.find_spec("gymnasium") is None:
        print("Gymnasium is not installed: python -m pip install -e '.[gymnasium]'")
    else:
        main()

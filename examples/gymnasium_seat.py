"""One seat, driven by random legal actions, plays against three bots in Gymnasium.

Needs the extra: ``python -m pip install -e '.[gymnasium]'``.  Importing
``gongzhu.envs.gymnasium`` registers ``gongzhu/Seat-v0``; ``action_masks()``
gives the legal actions, as masked policies (sb3-contrib's ``MaskablePPO``) want.
"""

from __future__ import annotations

import importlib.util


def main(episodes: int = 3) -> None:
    """Play ``episodes`` hands from seat 0 against heuristic bots; print the rewards (raw
    points times 0.01, the default)."""
    import gymnasium

    import gongzhu.envs.gymnasium  # noqa: F401  (registers gongzhu/Seat-v0)

    env = gymnasium.make("gongzhu/Seat-v0", rules="39baobao", seat=0, bots="heuristic")
    env.action_space.seed(0)
    for episode in range(episodes):
        _observation, _info = env.reset(seed=episode)
        total, done, steps = 0.0, False, 0
        while not done:
            mask = env.unwrapped.action_masks()  # type: ignore[attr-defined]
            action = env.action_space.sample(mask.astype("int8"))
            _observation, reward, terminated, truncated, _info = env.step(action)
            total += float(reward)
            done = terminated or truncated
            steps += 1
        print(f"episode {episode}: {steps} decisions, reward {total:+.2f}")
    env.close()


if __name__ == "__main__":
    if importlib.util.find_spec("gymnasium") is None:
        print("Gymnasium is not installed: python -m pip install -e '.[gymnasium]'")
    else:
        main()

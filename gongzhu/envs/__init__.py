"""Reinforcement-learning environments for gongzhu (optional extras).

The adapters live in submodules, so that ``import gongzhu`` and
``import gongzhu.envs`` import neither numpy nor any RL framework:

- :mod:`gongzhu.envs.encoding`: the action and observation encodings both
  adapters share (needs numpy);
- :mod:`gongzhu.envs.pettingzoo`: a PettingZoo AEC environment of the four
  seats (extra ``gongzhu[pettingzoo]``);
- :mod:`gongzhu.envs.gymnasium`: one seat against bots, as a Gymnasium
  environment registered as ``gongzhu/Seat-v0`` (extra ``gongzhu[gymnasium]``).
"""

from __future__ import annotations

__all__: list[str] = []

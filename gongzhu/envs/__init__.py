"""Reinforcement-learning environments for gongzhu (optional extras).

The adapters live in submodules, so that ``import gongzhu`` and
``import gongzhu.envs`` import neither numpy nor any RL framework:

- :mod:`gongzhu.envs.encoding`: the action, observation, information-state
  and reward encodings every adapter shares (needs numpy);
- :mod:`gongzhu.envs.fast`: :class:`~gongzhu.envs.fast.HandEncoder`, which
  keeps the four seats' observations up to date as a hand is played (numpy);
- :mod:`gongzhu.envs.pettingzoo`: a PettingZoo AEC environment of the four
  seats, and the same behind the parallel API (extra ``gongzhu[pettingzoo]``);
- :mod:`gongzhu.envs.gymnasium`: one seat against bots, callables or
  policies, as Gymnasium environments registered as ``gongzhu/Seat-v0`` (a
  hand) and ``gongzhu/Match-v0`` (a match), and a vector environment of many
  hands (extra ``gongzhu[gymnasium]``);
- :mod:`gongzhu.envs.openspiel`: the OpenSpiel game ``python_gongzhu``
  (extra ``gongzhu[openspiel]``).
"""

from __future__ import annotations

__all__: list[str] = []

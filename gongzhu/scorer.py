"""A ruleset's scorer: now :mod:`gongzhu.scoring.scorer`, whose names this module re-exports.

:class:`~gongzhu.scoring.Scorer` and :class:`~gongzhu.scoring.Outcome` are
also names of :mod:`gongzhu.scoring`; import them from there.
"""

from __future__ import annotations

from .scoring.scorer import HandFacts, Outcome, Scorer

__all__ = ["HandFacts", "Outcome", "Scorer"]

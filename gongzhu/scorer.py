"""Deprecated: a ruleset's scorer moved to :mod:`gongzhu.scoring` (module
:mod:`gongzhu.scoring.scorer`).

Importing a name from here still works for one release, with a
:class:`DeprecationWarning` naming its new home.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

_MOVED: Final = ("HandFacts", "Outcome", "Scorer")


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"gongzhu.scorer.{name} is deprecated; use gongzhu.scoring.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    from . import scoring

    return getattr(scoring, name)

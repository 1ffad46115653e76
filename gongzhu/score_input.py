"""Deprecated: scoring from lists of cards moved to :mod:`gongzhu.scoring` (module
:mod:`gongzhu.scoring.cards_input`).

Importing a name from here still works for one release, with a
:class:`DeprecationWarning` naming its new home.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

_MOVED: Final = (
    "CardsBySeat",
    "ShownCopiesBySeat",
    "attribute_shown_copies",
    "cards_by_seat",
    "score_cards",
)


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"gongzhu.score_input.{name} is deprecated; use gongzhu.scoring.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    from . import scoring

    return getattr(scoring, name)

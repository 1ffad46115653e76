"""Deprecated: the two-deck engine moved to :mod:`gongzhu.engines.pairs`.

Importing a name from here still works for one release, with a
:class:`DeprecationWarning` naming its new home.  ``PairsCore`` has no alias: engines
play whole hands now (:class:`~gongzhu.play.HandEngine`), so its replacement,
:class:`~gongzhu.engines.pairs.PairsEngine`, is made differently.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any, Final

_MOVED: Final = {
    "cards_of_key": "gongzhu.engines.pairs",
    "pair_key": "gongzhu.engines.pairs",
    "two_key": "gongzhu.engines.pairs",
}


def __getattr__(name: str) -> Any:
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"gongzhu.engine_pairs.{name} is deprecated; use {home}.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(import_module(home), name)

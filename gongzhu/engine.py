"""Deprecated: the card-mask helpers moved to :mod:`gongzhu.masks`, the single-deck engine
to :mod:`gongzhu.engines.single`.

Importing a name from here still works for one release, with a
:class:`DeprecationWarning` naming its new home.  ``PlayCore`` has no alias: engines
play whole hands now (:class:`~gongzhu.play.HandEngine`), so its replacement,
:class:`~gongzhu.engines.single.SingleEngine`, is made differently.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any, Final

_MOVED: Final = {
    "add_copy": "gongzhu.masks",
    "remove_copy": "gongzhu.masks",
    "copies_in": "gongzhu.masks",
    "subtract_copies": "gongzhu.masks",
    "cards_of_mask": "gongzhu.masks",
    "plays_of_mask": "gongzhu.masks",
    "ILLEGAL": "gongzhu.play",
    "OVER": "gongzhu.play",
}


def __getattr__(name: str) -> Any:
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"gongzhu.engine.{name} is deprecated; use {home}.{name}", DeprecationWarning, stacklevel=2
    )
    return getattr(import_module(home), name)

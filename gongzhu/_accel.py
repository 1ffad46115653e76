"""The optional C accelerators, found once: ``None`` where they are not to be used.

``gongzhu._speedups`` (the C twins of the engines of :mod:`gongzhu.engines`, one
deck and two, the deal's sort, the score data's interpreter, the batch, the draws
of a :class:`random.Random` and the sampler's deal) is built when a C compiler is
present at install time.  Setting the environment variable
``GONGZHU_PURE_PYTHON`` (to anything) before import leaves them out, and every
module that uses one then runs its pure-Python reference.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["accelerator"]


def accelerator(name: str) -> Any:
    """The C accelerator module ``gongzhu.<name>``, or ``None`` when it was not built
    or ``GONGZHU_PURE_PYTHON`` is set."""
    if os.environ.get("GONGZHU_PURE_PYTHON"):
        return None
    try:
        return importlib.import_module(f"gongzhu.{name}")
    except ImportError:  # the optional C accelerator was not built
        return None

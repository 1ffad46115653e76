"""The thread-safe cache that makes equal rulesets one object.

:func:`gongzhu.rules.load_rules` asks :func:`cached` for a request (names and
options as given) and, having built a ruleset, hands it to :func:`remember`,
which returns the one ruleset with its spec (resolved names and options)
while anything uses it.  The cache knows nothing of how rulesets are built:
it keys values by request and by spec.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

__all__ = ["CACHE_SIZE", "cache_key", "cached", "forget", "remember"]

T = TypeVar("T")

CACHE_SIZE: Final = 64
"""How many distinct requests are kept when nothing else uses their rulesets."""

_lock: Final = threading.Lock()
_by_request: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
"""Request (names as given, options as given) -> ruleset: the last 64 requests, LRU."""
_by_spec: weakref.WeakValueDictionary[tuple[Any, ...], Any] = weakref.WeakValueDictionary()
"""Resolved spec -> the one ruleset with that spec, while anything uses it."""


def cache_key(names: Sequence[str], options: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """A hashable key for a ruleset request or spec, or ``None`` for unhashable options.

    Each option value is keyed with its type, so ``x=1`` and ``x=True`` (equal
    in Python) stay apart.
    """
    key = (tuple(names), tuple(sorted((k, type(v), v) for k, v in options.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def cached(names: Sequence[str], options: Mapping[str, Any]) -> Any:
    """The ruleset last built for this request, or ``None``."""
    key = cache_key(names, options)
    if key is None:
        return None
    with _lock:
        found = _by_request.get(key)
        if found is not None:
            _by_request.move_to_end(key)
        return found


def remember(
    request: tuple[Sequence[str], Mapping[str, Any]],
    spec: tuple[Sequence[str], Mapping[str, Any]],
    rules: T,
) -> T:
    """Keep ``rules``, built for ``request`` (names and options as given), whose resolved
    names and options are ``spec``; return the one ruleset with that spec (an equal
    ruleset still in use wins, so equal specs share one object)."""
    key = cache_key(*request)
    canonical = cache_key(*spec)
    with _lock:
        if canonical is not None:
            shared = _by_spec.get(canonical)
            if shared is not None:
                rules = shared
            else:
                _by_spec[canonical] = rules
        if key is not None:
            _by_request[key] = rules
            _by_request.move_to_end(key)
            while len(_by_request) > CACHE_SIZE:
                _by_request.popitem(last=False)
    return rules


def forget() -> None:
    """Forget every ruleset kept (the next request builds anew)."""
    with _lock:
        _by_request.clear()
        _by_spec.clear()

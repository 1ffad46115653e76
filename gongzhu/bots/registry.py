"""Bots by name: the entry-point group ``gongzhu.bots``, :func:`make_bot`, :func:`bot_names`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from ..discovery import EntryPointLike, entry_points, origin
from ..errors import GongzhuError, PluginLoadError, UnknownName
from .base import Bot
from .teams import TableFormat, format_of, tell_format

__all__ = [
    "BOTS",
    "ENTRY_POINT_GROUP",
    "QUICK_BOTS",
    "BotRegistry",
    "UnknownBot",
    "bot_names",
    "make_bot",
]


ENTRY_POINT_GROUP = "gongzhu.bots"
"""The entry-point group bots are registered in."""

QUICK_BOTS: Final = frozenset({"random", "first"})
"""The shipped bots that do not think: a hand of theirs takes well under a millisecond, so
many go to one task of a run (:mod:`gongzhu.runner`, :mod:`gongzhu.arena`); a hand of any
other bot is a task of its own, so that a Ctrl-C loses no finished one."""


class UnknownBot(UnknownName, KeyError, ValueError):
    """No bot is registered under the requested name.

    Also a :class:`KeyError` (a lookup in :data:`BOTS` that fails) and a
    :class:`ValueError` (what :func:`make_bot` raised before bots were plug-ins).
    Its :attr:`~gongzhu.errors.UnknownName.name` and
    :attr:`~gongzhu.errors.UnknownName.available` are those of any
    :class:`~gongzhu.errors.UnknownName`.
    """

    kind = "bot"


class BotRegistry(Mapping[str, Callable[..., Bot]]):
    """A read-only mapping of bot name -> factory, read from the entry points.

    The names are read once (:meth:`refresh` reads them again); a factory is
    imported the first time it is looked up.  A missing name raises
    :class:`UnknownBot`, which is also a :class:`KeyError`; a bot whose module
    cannot be imported raises :class:`~gongzhu.errors.PluginLoadError` naming
    it and the distribution that installed it.
    """

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self._group = group
        self._points: Mapping[str, EntryPointLike] | None = None
        self._loaded: dict[str, Callable[..., Bot]] = {}

    def _entry_points(self) -> Mapping[str, EntryPointLike]:
        points = self._points
        if points is None:  # read once per registry, and again after refresh()
            points = self._points = entry_points(self._group, refresh=True)
        return points

    def refresh(self) -> None:
        """Read the installed entry points again (after installing a bot at run time)."""
        self._points = None
        self._loaded.clear()

    def __getitem__(self, name: str) -> Callable[..., Bot]:
        factory = self._loaded.get(name)
        if factory is not None:
            return factory
        point = self._entry_points().get(name)
        if point is None:
            raise UnknownBot(name, self._entry_points())
        try:
            factory = point.load()
        except Exception as exc:  # anything a third party's module raises while importing
            raise PluginLoadError(name, origin(point), exc) from exc
        if not callable(factory):
            raise GongzhuError(f"bot entry point {name!r} ({point.value}) is not callable")
        self._loaded[name] = factory
        return factory

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entry_points()))

    def __len__(self) -> int:
        return len(self._entry_points())

    def __contains__(self, name: object) -> bool:
        return name in self._entry_points()

    def __repr__(self) -> str:
        return f"<BotRegistry {self._group}: {', '.join(self)}>"


BOTS = BotRegistry()
"""Bots by name (the ``gongzhu.bots`` entry points), each a factory ``f(seed=..., **options)``."""


def bot_names() -> list[str]:
    """The names of the registered bots, sorted."""
    return list(BOTS)


def make_bot(
    name: str,
    seed: int | None = None,
    *,
    format: str | TableFormat | None = None,
    **options: Any,
) -> Bot:
    """The bot called ``name``, built from ``seed`` and its ``options``.

    ``format``, when given, is told to the bot once it is built
    (:func:`~gongzhu.bots.tell_format`): ``make_bot("search", seed=1, rules=rules,
    format="2v2")`` plays for its team.  It is not passed to the factory, so
    any bot takes it.

    >>> make_bot("first").__class__.__name__
    'FirstLegalBot'

    :raises UnknownBot: no bot has that name (the message lists the names).
    :raises GongzhuError: an unknown format.
    """
    if not isinstance(name, str) or name not in BOTS:
        raise UnknownBot(str(name), BOTS)
    fmt = None if format is None else format_of(format)  # refused before the bot is built
    bot = BOTS[name](seed=seed, **options)
    return bot if fmt is None else tell_format(bot, fmt)

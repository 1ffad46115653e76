"""Finding plug-ins: the ``gongzhu.variants`` entry-point group (and any other group:
:func:`entry_points`, which the bot registry reads ``gongzhu.bots`` with).

The names installed distributions register in :data:`ENTRY_POINT_GROUP`, and
the plug-in object behind a name.

The entry points are those :func:`importlib.metadata.entry_points` finds (the
first distribution of a name on :data:`sys.path` wins).  Until the program
imports :mod:`importlib.metadata` (which imports :mod:`email`, :mod:`zipfile`,
:mod:`csv`..., taking longer than reading the entry points), they are read
directly from the ``.dist-info`` and ``.egg-info`` directories on
:data:`sys.path`, by :mod:`importlib.metadata`'s rules.  Anything else is left
to :mod:`importlib.metadata`: a zip file or an ``.egg`` on the path, another
finder of distributions on :data:`sys.meta_path`, an entry-point file it would
refuse, a distribution it would name from its metadata, Python 3.14 or later.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Protocol

from .errors import PluginLoadError, UnknownVariant


class EntryPointLike(Protocol):
    """What :func:`entry_points` gives for an entry point: an
    :class:`importlib.metadata.EntryPoint`, or this module's reading of one."""

    name: str
    value: str

    def load(self) -> Any:
        """Import the entry point's module and return the object it names."""


__all__ = [
    "DEFAULT_BASE",
    "ENTRY_POINT_GROUP",
    "EntryPointLike",
    "entry_points",
    "installed",
    "load_plugin",
    "origin",
    "plugin_names",
]

ENTRY_POINT_GROUP: Final = "gongzhu.variants"
"""The entry-point group plug-ins register in."""

DEFAULT_BASE: Final = "39baobao"
"""The base ruleset used when the names given to :func:`~gongzhu.rules.load_rules` contain
none."""

_found: dict[str, dict[str, EntryPointLike]] = {}


def entry_points(group: str, *, refresh: bool = False) -> Mapping[str, EntryPointLike]:
    """The entry points of ``group`` by name, as
    ``importlib.metadata.entry_points(group=group)`` finds them (a later one of a name
    replacing an earlier one), read once per group.

    :param group: the entry-point group (:data:`ENTRY_POINT_GROUP` for plug-ins,
        ``gongzhu.bots`` for bots).
    :param refresh: look at the installed distributions again (after installing
        something while the program runs).
    """
    found = _found.get(group)
    if found is None or refresh:
        found = None if "importlib.metadata" in sys.modules else _read_entry_points(group)
        if found is None:
            import importlib.metadata  # lazily: not needed to import gongzhu

            found = {ep.name: ep for ep in importlib.metadata.entry_points(group=group)}
        _found[group] = found
    return MappingProxyType(found)


def _entry_points(refresh: bool = False) -> Mapping[str, EntryPointLike]:
    return entry_points(ENTRY_POINT_GROUP, refresh=refresh)


def plugin_names(*, refresh: bool = False) -> list[str]:
    """The entry-point names of every installed plug-in, sorted.

    :param refresh: look at the installed distributions again (after
        installing a plug-in while the program runs).
    """
    return sorted(_entry_points(refresh))


def load_plugin(name: str) -> object:
    """The plug-in installed under entry-point ``name`` (the installed distributions are
    looked at again once when ``name`` is not among those seen so far).

    :raises UnknownVariant: no installed plug-in has the name (the error lists them).
    :raises PluginLoadError: the plug-in is installed but cannot be loaded (its module
        fails to import, or lacks the object named); the error names the plug-in, the
        distribution that installed it and the cause.
    """
    found = _entry_points()
    if name not in found:
        found = _entry_points(refresh=True)
    if name not in found:
        raise UnknownVariant(name, found)
    point = found[name]
    try:
        return point.load()
    except Exception as exc:  # anything a third party's module raises while importing
        raise PluginLoadError(name, origin(point), exc) from exc


def origin(point: EntryPointLike) -> str:
    """Who installed an entry point, for messages: ``"distribution version"``, or the
    entry point's value (``"module:object"``) when no distribution is known."""
    dist = getattr(point, "dist", None)
    name = getattr(dist, "name", None)
    if name:
        version = getattr(dist, "version", None)
        return f"{name} {version}" if version else str(name)
    return repr(point.value)


def installed(name: str, plugin: object) -> bool:
    """Whether ``plugin`` is the object installed under entry-point ``name``
    (a broken entry point is not)."""
    point = _entry_points().get(name)
    if point is None:
        return False
    try:
        return point.load() is plugin
    except Exception:  # a broken entry point: not loadable by name
        return False


# -- reading entry points without importing importlib.metadata ------------------------------
#
# What follows does what importlib.metadata.entry_points(group=...) does (its code in
# Python 3.11 to 3.13; tests/test_import_cost.py compares the two) for the distributions
# its standard finder reads from directories; it gives up (None) on anything else, and
# importlib.metadata answers instead.
#
# It is kept only while it saves more than 10 ms of `import gongzhu; load_rules()`
# (benchmarks/import_time.py).  On 2026-12-02 it saved 15-17 ms of 37-42 ms (Python 3.11,
# 16 and 71 distributions on sys.path): importing importlib.metadata imports email,
# zipfile, csv, importlib.abc...

_POINT_VALUE: Final = r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$"
"""importlib.metadata.EntryPoint.pattern: what an entry point's value may be."""


class _Unsupported(Exception):
    """A case left to importlib.metadata."""


class _Distribution:
    """The name and version of the distribution an entry point came from (as
    ``importlib.metadata.EntryPoint.dist`` gives them), read from its directory's name."""

    __slots__ = ("name", "version")

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version


class _Point:
    """An entry point read from a distribution's ``entry_points.txt``."""

    __slots__ = ("dist", "name", "value")

    def __init__(self, name: str, value: str, dist: _Distribution | None = None) -> None:
        self.name = name
        self.value = value
        self.dist = dist

    def load(self) -> Any:
        """The object the entry point names (as importlib.metadata.EntryPoint.load)."""
        import functools
        import importlib
        import re

        match = re.match(_POINT_VALUE, self.value)
        assert match is not None  # values that do not match were left to importlib.metadata
        module = importlib.import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)

    def __repr__(self) -> str:
        return f"_Point(name={self.name!r}, value={self.value!r})"


def _read_entry_points(group: str = ENTRY_POINT_GROUP) -> dict[str, EntryPointLike] | None:
    """The entry points of ``group`` by name, as importlib.metadata finds them, or ``None``
    when this cannot tell (the caller asks importlib.metadata)."""
    if sys.version_info >= (3, 14):
        return None  # not checked against a later importlib.metadata
    try:
        return _scan(group)
    except Exception:  # _Unsupported, or an error importlib.metadata reports its own way
        return None


_SEPARATORS: Final = r"[-_.]+"
"""What importlib.metadata.Prepared.normalize turns into one underscore (PEP 503)."""


def _scan(group: str) -> dict[str, EntryPointLike]:
    """importlib.metadata.entry_points(group=group) as a dict (a later distribution's entry
    point replacing an earlier one's of the same name), or :class:`_Unsupported`."""
    import os
    import re
    from importlib.machinery import PathFinder

    # Distribution.discover: every finder on sys.meta_path that finds distributions
    searches = 0
    for finder in sys.meta_path:
        resolver = getattr(finder, "find_distributions", None)
        if not resolver:
            continue
        if finder is not PathFinder or (
            getattr(resolver, "__module__", None),
            getattr(resolver, "__qualname__", None),
        ) != ("_frozen_importlib_external", "PathFinder.find_distributions"):
            raise _Unsupported(f"another finder of distributions: {finder!r}")
        searches += 1
    value_pattern = re.compile(_POINT_VALUE)
    separators = re.compile(_SEPARATORS)

    def normalize(name: str) -> str:  # Prepared.normalize: PEP 503, dashes as underscores
        return separators.sub("_", name).lower()

    seen: set[str] = set()  # importlib.metadata's _unique: the first of a name wins
    points: dict[str, EntryPointLike] = {}
    for root in list(sys.path) if searches else []:
        # MetadataPathFinder / FastPath / Lookup, for a directory
        if type(root) is not str or os.path.basename(root).lower().endswith(".egg"):
            raise _Unsupported(f"sys.path entry {root!r}")
        try:
            children = os.listdir(root or ".")
        except FileNotFoundError:  # nothing there, nor a zip file
            continue
        except OSError as error:  # a zip file, or unreadable: importlib.metadata decides
            raise _Unsupported(f"sys.path entry {root!r}") from error
        # Lookup: grouped by the name before the first dash, normalised, in listing order
        infos: dict[str, list[str]] = {}
        for child in children:
            stem, dot, ext = child.rpartition(".")
            if dot and ext.lower() in ("dist-info", "egg-info"):
                infos.setdefault(normalize(stem.partition("-")[0]), []).append(child)
        for child in (child for same in infos.values() for child in same):
            # PathDistribution._normalized_name, from the directory's name as
            # os.path.splitext splits it (which finds no extension in "..dist-info")
            stem, ext = os.path.splitext(child)
            name = stem.partition("-")[0]
            if ext not in (".dist-info", ".egg-info") or not name:
                raise _Unsupported(f"the name of {child!r} is in its metadata")
            dist = _Distribution(name, stem.partition("-")[2].partition("-")[0])
            name = normalize(name)
            if name in seen:
                continue
            seen.add(name)
            # PathDistribution.read_text("entry_points.txt")
            try:
                with open(os.path.join(root, child, "entry_points.txt"), "rb") as f:
                    text = f.read().decode()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                continue
            # Sectioned.section_pairs and Pair.parse, then EntryPoints.select(group=group)
            section = None
            for line in map(str.strip, text.splitlines()):
                if not line or line.startswith("#"):
                    continue
                if line.startswith("[") and line.endswith("]"):
                    section = line.strip("[]")
                    continue
                if section is None:
                    continue
                if "=" not in line:
                    raise _Unsupported(f"{child}: not an entry point: {line!r}")
                key, value = map(str.strip, line.split("=", 1))
                if not value_pattern.match(value):
                    raise _Unsupported(f"{child}: not an entry point's value: {value!r}")
                if section == group:
                    points[key] = _Point(key, value, dist)
    return points

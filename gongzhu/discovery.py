"""Finding plug-ins: the ``gongzhu.variants`` entry-point group.

The names installed distributions register in :data:`ENTRY_POINT_GROUP`, and
the plug-in object behind a name.  :mod:`importlib.metadata` is imported when
a name is first looked up, not when :mod:`gongzhu` is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from .errors import UnknownVariant

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["DEFAULT_BASE", "ENTRY_POINT_GROUP", "installed", "load_plugin", "plugin_names"]

ENTRY_POINT_GROUP: Final = "gongzhu.variants"
"""The entry-point group plug-ins register in."""

DEFAULT_BASE: Final = "39baobao"
"""The base ruleset used when the names given to :func:`~gongzhu.rules.load_rules` contain
none."""

_found: dict[str, EntryPoint] | None = None


def _entry_points(refresh: bool = False) -> dict[str, EntryPoint]:
    global _found
    if _found is None or refresh:
        import importlib.metadata  # lazily: not needed to import gongzhu

        group = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        _found = {ep.name: ep for ep in group}
    return _found


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
    """
    found = _entry_points()
    if name not in found:
        found = _entry_points(refresh=True)
    if name not in found:
        raise UnknownVariant(name, found)
    return found[name].load()


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

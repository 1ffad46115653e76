"""Who plays with whom: the table's format, and telling it to bots.

A view does not say whether the four seats play each for itself or in two
partnerships: the program that seats the bots knows (the arena, the command
line, the web table, the environments) and tells them.  A bot that cares
defines ``set_format(format)``; :func:`tell_format` calls it, and does
nothing for a bot without it, so any bot can be told:

>>> from gongzhu.bots import make_bot, tell_format
>>> bot = tell_format(make_bot("search", seed=1), "2v2")
>>> bot.format.partners(0), bot.format.opponents(0)
((2,), (1, 3))

:func:`~gongzhu.bots.make_bot` takes the format too
(``make_bot("search", seed=1, format="2v2")``).  A bot never told plays
each for itself (:data:`SOLO`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, TypeVar

import attrs

from ..deal import SEATS
from ..errors import GongzhuError

__all__ = [
    "FORMATS",
    "PARTNERS",
    "SOLO",
    "TABLE_FORMATS",
    "TableFormat",
    "format_of",
    "tell_format",
    "tell_formats",
]


def _check_teams(_instance: object, _attribute: object, teams: tuple[int, int, int, int]) -> None:
    if len(teams) != SEATS or any(not isinstance(t, int) or isinstance(t, bool) for t in teams):
        raise GongzhuError(f"a table format gives each of the four seats a team, not {teams!r}")


@attrs.frozen
class TableFormat:
    """Which seats play together.

    :ivar name: the format's name (``"solo"``, ``"2v2"``, ``"1v3"``...).
    :ivar teams: each seat's team, by seat: seats with the same number are
        partners and score together (``(0, 1, 0, 1)``: partners opposite).
    """

    name: str
    teams: tuple[int, int, int, int] = attrs.field(validator=_check_teams)

    def partners(self, seat: int) -> tuple[int, ...]:
        """The other seats of ``seat``'s team (empty when it plays alone)."""
        team = self.teams[seat]
        return tuple(s for s in range(SEATS) if s != seat and self.teams[s] == team)

    def opponents(self, seat: int) -> tuple[int, ...]:
        """The seats not on ``seat``'s team."""
        team = self.teams[seat]
        return tuple(s for s in range(SEATS) if self.teams[s] != team)

    def partner(self, seat: int) -> int | None:
        """``seat``'s one partner, or ``None`` when it has none (or more than one)."""
        partners = self.partners(seat)
        return partners[0] if len(partners) == 1 else None

    @property
    def has_teams(self) -> bool:
        """Whether some seat has a partner."""
        return len(set(self.teams)) < SEATS


SOLO: Final = TableFormat("solo", (0, 1, 2, 3))
"""Every seat for itself: the game as the rules describe it (and the default)."""

PARTNERS: Final = TableFormat("2v2", (0, 1, 0, 1))
"""Two partnerships, partners opposite (seats 0 and 2 against 1 and 3)."""

FORMATS: Final[Mapping[str, TableFormat]] = {
    "solo": SOLO,
    "2v2": PARTNERS,
    "1v3": TableFormat("1v3", SOLO.teams),  # the arena's: one bot among three, each for itself
}
"""The formats known by name."""

TABLE_FORMATS: Final = ("solo", "2v2")
"""The formats a table of four players is played in, by name: what the command line's
``--format`` and the web table take (``"1v3"`` is the arena's way of measuring, each seat
for itself: at a table it is ``"solo"``)."""


def format_of(format: str | TableFormat | None) -> TableFormat:
    """The :class:`TableFormat` named ``format`` (:data:`FORMATS`); ``None`` is :data:`SOLO`.

    :raises GongzhuError: an unknown name.
    """
    if format is None:
        return SOLO
    if isinstance(format, TableFormat):
        return format
    found = FORMATS.get(format) if isinstance(format, str) else None
    if found is None:
        raise GongzhuError(
            f"unknown table format {format!r}; known: {', '.join(FORMATS)} (or a TableFormat)"
        )
    return found


_B = TypeVar("_B")


def tell_format(bot: _B, format: str | TableFormat | None) -> _B:
    """Tell ``bot`` the table's format, if it listens (``set_format``); return the bot.

    :raises GongzhuError: an unknown format name.
    """
    fmt = format_of(format)
    hook = getattr(bot, "set_format", None)
    if callable(hook):
        hook(fmt)
    return bot


def tell_formats(bots: Iterable[_B], format: str | TableFormat | None) -> list[_B]:
    """:func:`tell_format` for each of ``bots``; the bots, as a list."""
    fmt = format_of(format)
    return [tell_format(bot, fmt) for bot in bots]

"""Every table of a server, in memory, found by the secret token of a seat's link.

>>> from gongzhu.web.lobby import Lobby
>>> lobby = Lobby()
>>> table = lobby.open_table(["huapai"], ["human", "heuristic", "random", "first"], seed=1)
>>> [seat.player for seat in table.seats]
['human', 'heuristic', 'random', 'first']
>>> lobby.find(table.seats[0].token) == (table, 0)
True
>>> lobby.open_request({"rules": ["no-such-rules"], "seats": ["human"]})
Traceback (most recent call last):
...
gongzhu.web.protocol.ProtocolError: bad-table: "seats" lists four players, seat 0 first
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..errors import GongzhuError
from ..rules import Rules, load_rules
from .protocol import ProtocolError
from .table import Table

__all__ = ["MAX_TABLES", "Lobby"]

MAX_TABLES: Final = 200
"""How many tables a server holds at most (by default)."""


class Lobby:
    """The tables of one server.

    :param bot_delay: seconds each bot waits before acting (0 in tests).
    :param max_tables: how many tables may be open at once.
    """

    def __init__(self, *, bot_delay: float = 0.0, max_tables: int = MAX_TABLES) -> None:
        self.bot_delay = bot_delay
        self.max_tables = max_tables
        self.tables: dict[str, Table] = {}
        self._seats: dict[str, tuple[Table, int]] = {}

    def open_table(
        self,
        rules: Rules | Sequence[str],
        players: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        hands: int | None = 1,
        target: int | None = None,
    ) -> Table:
        """Open a table under ``rules``: a ruleset, or plug-in names and their ``options``.

        :param players: four names, seat 0 first: ``"human"`` or a bot's name.
        :raises GongzhuError: an unknown variant or bot, a bad option, a match
            that cannot end, or a full server.
        """
        if len(self.tables) >= self.max_tables:
            raise GongzhuError(f"this server has {self.max_tables} tables open; no more")
        ruleset = rules if isinstance(rules, Rules) else load_rules(*rules, **dict(options or {}))
        table = Table(
            ruleset, players, seed=seed, hands=hands, target=target, bot_delay=self.bot_delay
        )
        while table.id in self.tables:  # pragma: no cover - 32 random bits
            table.id += "x"
        self.tables[table.id] = table
        for seat in table.seats:
            self._seats[seat.token] = (table, seat.index)
        return table

    def open_request(self, data: Any) -> Table:
        """Open a table from the JSON the lobby page posts (``docs/web.rst``).

        :raises ProtocolError: ``bad-table``, with what is wrong.
        """
        if not isinstance(data, Mapping):
            raise ProtocolError("bad-table", "a table request is a JSON object")
        rules: Any = data.get("rules", [])
        options: Any = data.get("options", {})
        seats: Any = data.get("seats")
        if not _strings(rules):
            raise ProtocolError("bad-table", '"rules" lists variant names')
        if not _strings(seats) or len(seats) != 4:
            raise ProtocolError("bad-table", '"seats" lists four players, seat 0 first')
        if not isinstance(options, Mapping):
            raise ProtocolError("bad-table", '"options" maps option names to values')
        numbers = {}
        for name in ("seed", "hands", "target"):
            value = data.get(name, 1 if name == "hands" else None)
            if value is not None and (
                not isinstance(value, int)
                or isinstance(value, bool)
                or (name != "seed" and value < 1)
            ):
                raise ProtocolError("bad-table", f'"{name}" must be a whole number')
            numbers[name] = value
        try:
            return self.open_table(
                rules,
                seats,
                options=options,
                seed=numbers["seed"],
                hands=numbers["hands"],
                target=numbers["target"],
            )
        except GongzhuError as exc:
            raise ProtocolError("bad-table", str(exc)) from None

    def find(self, token: str) -> tuple[Table, int]:
        """The table and seat of a seat link's token.

        :raises ProtocolError: ``unknown-seat``.
        """
        found = self._seats.get(token)
        if found is None:
            raise ProtocolError(
                "unknown-seat", "no seat has this link (the server may have restarted)"
            )
        return found

    async def close(self) -> None:
        """Stop every table's bots."""
        for table in self.tables.values():
            await table.close()


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)

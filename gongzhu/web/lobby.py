"""Every table of a server, found by the secret token of a seat's link.

The lobby opens tables (checking the server's limits: tables in all, per
client, hands per match), finds a table by seat token, closes the tables
that are finished or idle for longer than the settings keep them
(:meth:`Lobby.sweep`, every :attr:`Settings.sweep_every
<gongzhu.web.settings.Settings.sweep_every>` seconds once :meth:`Lobby.start`
is called), and, with a :class:`~gongzhu.web.store.Store`, writes every
table to the database and rebuilds them after a restart (:meth:`Lobby.restore`).

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

import asyncio
import contextlib
import copy
import ipaddress
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..bots import TABLE_FORMATS
from ..errors import GongzhuError, InvalidRecord
from ..rules import Rules, load_rules
from .pool import Pool
from .protocol import ProtocolError
from .settings import Settings
from .store import Store, StoredTable, StoreError
from .table import PERSON, Table, encode_json, shareable

__all__ = [
    "IPV6_PREFIX",
    "MAX_SEED",
    "MAX_TABLES",
    "MAX_TARGET",
    "UNJOINED_GRACE",
    "BotsBusy",
    "Lobby",
    "ServerFull",
    "TooManyTables",
    "client_key",
]

MAX_TABLES: Final = Settings().max_tables
"""How many tables a server holds at most (by default: :attr:`Settings.max_tables
<gongzhu.web.settings.Settings.max_tables>`)."""

UNJOINED_GRACE: Final = 60.0
"""Seconds a table nobody has joined is kept when the server is full; after them it
makes room for a new table (its person had time to open the link)."""

MAX_SEED: Final = 2**64
"""Seeds are whole numbers from 0 to ``MAX_SEED - 1``."""

MAX_TARGET: Final = 10**6
"""The highest match target a table takes."""

_log = logging.getLogger(__name__)


IPV6_PREFIX: Final = 56
"""The IPv6 network one client is counted as: a ``/56``, what a provider commonly gives
one customer (a ``/64`` is one of its 256 subnets)."""


def client_key(address: str) -> str:
    """What :attr:`Settings.tables_per_client` and the rate limits count by: the client's
    address, or for an IPv6 address its ``/56`` network (one customer's, as a rule).

    >>> client_key("203.0.113.7"), client_key("2001:db8::1"), client_key("::ffff:203.0.113.7")
    ('203.0.113.7', '2001:db8::/56', '203.0.113.7')
    """
    try:
        found = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.IPv6Network((found, IPV6_PREFIX), strict=False))
    return str(found)


class ServerFull(GongzhuError):
    """The server has :attr:`Settings.max_tables` unfinished tables: no room for another."""


class TooManyTables(GongzhuError):
    """The client already has :attr:`Settings.tables_per_client` unfinished tables."""


class BotsBusy(GongzhuError):
    """The bots' workers are saturated (:attr:`Settings.bot_queue`, :attr:`Settings.bot_wait`):
    no new table with bots for now."""


class Lobby:
    """The tables of one server.

    :param settings: the server's limits and keeping times (:class:`Settings`).
    :param store: the database every table is written to (none by default).
    :param bot_delay: overrides the settings' :attr:`~Settings.bot_delay`.
    :param max_tables: overrides the settings' :attr:`~Settings.max_tables`.
    :param clock: the wall clock the sweep reads (``time.time``; tests give another).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        bot_delay: float | None = None,
        max_tables: int | None = None,
        clock: Any = time.time,
    ) -> None:
        settings = settings if settings is not None else Settings()
        changes: dict[str, Any] = {}
        if bot_delay is not None:
            changes["bot_delay"] = bot_delay
        if max_tables is not None:
            changes["max_tables"] = max_tables
        if changes:
            import attrs

            settings = attrs.evolve(settings, **changes)
        self.settings = settings
        self.store = store
        self.clock = clock
        self.pool = Pool(settings.pool_size, bots=settings.bots)
        self.tables: dict[str, Table] = {}
        self._seats: dict[str, tuple[Table, int]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._closed_json: dict[str, bytes] = {}
        self._rulesets: dict[str, Rules | GongzhuError] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop serving the lobby, once :meth:`start` is called."""

    @property
    def bot_delay(self) -> float:
        """Seconds each bot waits before acting."""
        return self.settings.bot_delay

    @property
    def max_tables(self) -> int:
        """How many tables may be open at once."""
        return self.settings.max_tables

    def __repr__(self) -> str:
        return f"<Lobby {len(self.tables)} tables>"

    # -- opening tables ------------------------------------------------------------------

    def open_table(
        self,
        rules: Rules | Sequence[str],
        players: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        hands: int | None = 1,
        target: int | None = None,
        client: str | None = None,
        format: str = "solo",
    ) -> Table:
        """Open a table under ``rules``: a ruleset, or plug-in names and their ``options``.

        A match stops after :attr:`Settings.max_hands` hands at most: a
        match to a target, or one the ruleset ends, is given that many.

        :param players: four names, seat 0 first: ``"human"`` or a bot's name.
        :param client: the address of the client asking (counted against
            :attr:`Settings.tables_per_client`).
        :param format: the table's format, told to its bots: ``"solo"`` or ``"2v2"``
            (:class:`~gongzhu.web.table.Table`).
        :raises GongzhuError: an unknown variant or bot, a bad option, a match
            that cannot end or is too long, a full server (or one that cannot
            write to its database), or a client with too many tables.
        """
        settings = self.settings
        if hands is not None and hands > settings.max_hands:
            raise GongzhuError(f"a match here has at most {settings.max_hands} hands, not {hands}")
        if client is not None:
            client = client_key(client)
            mine = sum(
                1 for table in self.tables.values() if table.client == client and not table.is_over
            )
            if mine >= settings.tables_per_client:
                raise TooManyTables(
                    f"you have {mine} unfinished tables open here, the most one client may have"
                )
        if any(name != PERSON for name in players):
            self._admit_bots()
        ruleset = rules if isinstance(rules, Rules) else self._ruleset(rules, options)
        if hands is None and target is None and not ruleset.decides_match_end:
            raise GongzhuError(
                f"{' + '.join(ruleset.names)} matches have no end of their own: "
                "give a number of hands or a target"
            )
        table = Table(
            ruleset,
            players,
            table_id=self._new_id(),
            seed=seed,
            hands=settings.max_hands if hands is None else hands,
            target=target,
            settings=settings,
            pool=self.pool,
            client=client,
            format=format,
        )
        if len(self.tables) >= settings.max_tables:
            self._make_room()
        if self.store is not None:
            try:
                self.store.add_table(table)
            except StoreError as exc:
                _log.error("a new table cannot be kept: %s", exc)
                raise ServerFull("this server cannot keep another table now") from None
            table.journal = self.store
        self._add(table)
        return table

    def _ruleset(self, names: Sequence[str], options: Mapping[str, Any] | None) -> Rules:
        """``load_rules(*names, **options)``, kept for the next table of the same rules (a
        ruleset is compiled once, not at each request)."""
        try:
            key = json.dumps([list(names), dict(options or {})], sort_keys=True)
        except (TypeError, ValueError):
            return load_rules(*names, **dict(options or {}))
        found = self._rulesets.get(key)
        if found is None:
            try:
                found = load_rules(*names, **dict(options or {}))
            except GongzhuError as exc:  # a refusal is kept too: asking again costs nothing
                found = exc
            if len(self._rulesets) >= 64:
                self._rulesets.pop(next(iter(self._rulesets)))
            self._rulesets[key] = found
        if isinstance(found, GongzhuError):
            raise copy.copy(found) from None  # a copy: the kept one gathers no tracebacks
        return found

    def bots_busy(self) -> str | None:
        """Why a new table with bots would be refused now (``None``: it would not)."""
        settings, pool = self.settings, self.pool
        playing = sum(
            1
            for table in self.tables.values()
            if not table.is_over and any(name != PERSON for name in table.players)
        )
        if playing >= settings.bot_tables_limit:
            return f"{playing} tables with bots are being played, the most this server plays"
        waiting = pool.waiting("bot")
        if waiting >= settings.bot_queue_limit:
            return f"{waiting} bot decisions are waiting for a worker"
        slow = pool.decision_time(0.9)
        if slow is not None and slow > settings.bot_wait:
            return f"a bot's decision takes {slow:.1f} s now"
        return None

    def _admit_bots(self) -> None:
        why = self.bots_busy()
        if why is not None:
            raise BotsBusy(
                f"this server's bots are busy ({why}): try again in a minute, "
                "or open a table of people only"
            )

    def _new_id(self) -> str:
        while True:
            table_id = secrets.token_hex(4)
            if table_id not in self.tables and (
                self.store is None or not self.store.has_table(table_id)
            ):
                return table_id

    def _add(self, table: Table) -> None:
        self.tables[table.id] = table
        for seat in table.seats:
            self._seats[seat.token] = (table, seat.index)

    def _make_room(self) -> None:
        """Close the finished table left alone longest, else the oldest table nobody
        joined within :data:`UNJOINED_GRACE` seconds, to make room for a new one (so
        tables opened and left do not keep people out).

        :raises GongzhuError: no table is finished or unjoined: the server is full.
        """
        finished = [table for table in self.tables.values() if table.is_over]
        if finished:
            self._remove(min(finished, key=lambda table: table.updated))
            return
        now = self.clock()
        unjoined = [
            table
            for table in self.tables.values()
            if not table.joined and now - table.created >= UNJOINED_GRACE
        ]
        if not unjoined:
            raise ServerFull(
                f"this server has {self.settings.max_tables} unfinished tables open; no more"
            )
        self._remove(min(unjoined, key=lambda table: table.created))

    def open_request(self, data: Any, *, client: str | None = None) -> Table:
        """Open a table from the JSON the lobby page posts (``docs/web.rst``).

        :raises ProtocolError: ``bad-table``, with what is wrong;
            ``too-many-tables``, ``server-full``.
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
        format: Any = data.get("format", "solo")
        if format not in TABLE_FORMATS:
            raise ProtocolError("bad-table", f'"format" is one of {", ".join(TABLE_FORMATS)}')
        limits = {
            "seed": (0, MAX_SEED - 1),
            "hands": (1, self.settings.max_hands),
            "target": (1, MAX_TARGET),
        }
        numbers = {}
        for name, (least, most) in limits.items():
            value = data.get(name, 1 if name == "hands" else None)
            if name == "seed" and isinstance(value, str) and value.isascii() and value.isdigit():
                value = int(value) if len(value) <= 20 else -1  # a seed may come as text
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or not least <= value <= most
            ):
                raise ProtocolError(
                    "bad-table", f'"{name}" must be a whole number from {least} to {most}'
                )
            numbers[name] = value
        try:
            return self.open_table(
                rules,
                seats,
                options=options,
                seed=numbers["seed"],
                hands=numbers["hands"],
                target=numbers["target"],
                client=client,
                format=format,
            )
        except ServerFull as exc:
            raise ProtocolError("server-full", str(exc)) from None
        except TooManyTables as exc:
            raise ProtocolError("too-many-tables", str(exc)) from None
        except BotsBusy as exc:
            raise ProtocolError("bots-busy", str(exc)) from None
        except GongzhuError as exc:
            raise ProtocolError("bad-table", str(exc)) from None

    # -- finding tables ------------------------------------------------------------------

    def find(self, token: str) -> tuple[Table, int]:
        """The table and seat of a seat link's token.

        :raises ProtocolError: ``unknown-seat``; ``table-closed`` for a table
            the server closed (its records are still served).
        """
        found = self._seats.get(token)
        if found is None:
            if self.store is not None:
                stored = self.store.find(token)
                if stored is not None:
                    raise ProtocolError(
                        "table-closed",
                        "this table is closed (finished, or left too long): "
                        "its records can still be downloaded",
                    )
            raise ProtocolError(
                "unknown-seat", "no seat has this link (the server may have restarted)"
            )
        return found

    def hand_record(self, token: str, number: int) -> tuple[str, dict[str, Any]]:
        """The table id of a seat's token, and the record of its finished hand ``number``
        as the seat may have it (:func:`~gongzhu.web.table.shareable`): from the
        table, or from the database for a closed table.

        :raises ProtocolError: ``unknown-seat``, ``no-record``.
        """
        found = self._seats.get(token)
        if found is not None:
            return found[0].id, found[0].record(number)
        table_id, store = self._stored(token)
        match = store.match_record(table_id)
        records = store.hand_records(table_id)
        if not 1 <= number <= len(records):
            raise ProtocolError(
                "no-record", f"hand {number} is not finished ({len(records)} finished)"
            )
        return table_id, shareable(records[number - 1], _over(match))

    def match_record(self, token: str) -> tuple[str, dict[str, Any]]:
        """The table id of a seat's token, and its match's record so far as the seat
        may have it (:func:`~gongzhu.web.table.shareable`).

        :raises ProtocolError: ``unknown-seat``, ``no-record`` (a closed table
            that finished no hand).
        """
        found = self._seats.get(token)
        if found is not None:
            return found[0].id, found[0].match_record()
        table_id, store = self._stored(token)
        match = store.match_record(table_id)
        if match is None:
            raise ProtocolError("no-record", "the table was closed before a hand was finished")
        return table_id, shareable(match, _over(match))

    def match_json(self, token: str) -> tuple[str, bytes]:
        """:meth:`match_record` as JSON, kept once made (:meth:`Table.match_json
        <gongzhu.web.table.Table.match_json>`; a closed table's, made from the
        database once).

        :raises ProtocolError: as :meth:`match_record`.
        """
        found = self._seats.get(token)
        if found is not None:
            return found[0].id, found[0].match_json()
        table_id, _store = self._stored(token)
        made = self._closed_json.get(table_id)
        if made is None:
            made = encode_json(self.match_record(token)[1])
            if len(self._closed_json) >= 64:
                self._closed_json.pop(next(iter(self._closed_json)))
            self._closed_json[table_id] = made
        return table_id, made

    def _stored(self, token: str) -> tuple[str, Store]:
        stored = None if self.store is None else self.store.find(token)
        if stored is None or self.store is None:
            raise ProtocolError(
                "unknown-seat", "no seat has this link (the server may have restarted)"
            )
        return stored[0], self.store

    # -- closing tables ------------------------------------------------------------------

    def sweep(self, now: float | None = None) -> list[str]:
        """Close the tables finished longer than :attr:`Settings.keep_finished` ago,
        those idle (nobody connected, no action) longer than
        :attr:`Settings.keep_idle`, those nobody joined within
        :attr:`Settings.keep_unjoined` of their opening, and the unfinished ones
        whose person has not acted for :attr:`Settings.turn_timeout` (abandoned);
        return their ids.  Then retry the steps the database could not take, and
        prune the tables closed longer than :attr:`Settings.prune_after` ago."""
        now = self.clock() if now is None else now
        settings = self.settings
        gone = []
        for table in list(self.tables.values()):
            if table.finished is not None:
                expired = now - table.finished >= settings.keep_finished
            else:
                idle = table.people_connected == 0 and now - table.updated >= settings.keep_idle
                unjoined = not table.joined and now - table.created >= settings.keep_unjoined
                abandoned = table.waits_for_person and now - table.moved >= settings.turn_timeout
                expired = idle or unjoined or abandoned
            if expired:
                self._remove(table)
                gone.append(table.id)
        for table in self.tables.values():
            table.flush_journal()
        if self.store is not None and settings.prune_after > 0:
            try:
                pruned = self.store.prune(now - settings.prune_after)
            except StoreError as exc:
                _log.warning("pruning the database: %s", exc)
            else:
                if pruned:
                    _log.info("%d closed tables pruned from the database", pruned)
        return gone

    def _remove(self, table: Table) -> None:
        del self.tables[table.id]
        for seat in table.seats:
            self._seats.pop(seat.token, None)
        if self.store is not None:
            table.flush_journal()
            try:
                self.store.close_table(table)
            except StoreError as exc:
                _log.warning("table %s: its closing could not be written: %s", table.id, exc)
        with contextlib.suppress(RuntimeError):  # no event loop: nobody is connected
            closing = asyncio.get_running_loop().create_task(table.close(evicted=True))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
        _log.info("table %s closed", table.id)

    def start(self) -> None:
        """Start closing finished and idle tables, every :attr:`Settings.sweep_every`
        seconds (on the running event loop)."""
        self.loop = asyncio.get_running_loop()
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = self.loop.create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_every)
            try:
                self.sweep()
            except Exception:
                _log.exception("closing finished and idle tables")

    async def close(self) -> None:
        """Stop sweeping, every table's bots, and the worker processes."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():
            table.flush_journal()  # a last try for steps a full disk held back
            await table.close()
        await self.pool.close()

    # -- a restart ---------------------------------------------------------------------

    def restore(self) -> list[Table]:
        """Rebuild every table of the database that was not closed (after a restart).

        A table that cannot be rebuilt (a plug-in no longer installed, a row
        damaged...) is left in the database, and said so in the log; the
        others are rebuilt.
        """
        if self.store is None:
            return []
        rebuilt = []
        for stored in self.store.open_tables():
            try:
                table = self._rebuild(stored)
            except Exception as exc:  # a missing plug-in, or a row no server wrote: one table
                why = exc if isinstance(exc, GongzhuError) else f"{type(exc).__name__}: {exc}"
                _log.warning("table %s cannot be rebuilt: %s", stored.id, why)
                continue
            self._add(table)
            rebuilt.append(table)
        return rebuilt

    def _rebuild(self, stored: StoredTable) -> Table:
        spec = stored.spec
        if not isinstance(spec, Mapping) or not isinstance(spec.get("rules"), Mapping):
            raise InvalidRecord("its description in the database is damaged")
        rules_spec = spec["rules"]
        variants, options = rules_spec.get("variants", []), rules_spec.get("options", {})
        if not _strings(variants) or not isinstance(options, Mapping):
            raise InvalidRecord("its rules in the database are damaged")
        hands = spec.get("hands")
        if hands is not None and (not isinstance(hands, int) or hands > self.settings.max_hands):
            raise InvalidRecord(f"its match of {hands!r} hands is over --max-hands")
        rules = load_rules(*variants, **options)
        table = Table(
            rules,
            spec["players"],
            table_id=stored.id,
            seed=spec["seed"],
            hands=spec["hands"],
            target=spec["target"],
            settings=self.settings,
            pool=self.pool,
            tokens=stored.tokens,
            client=stored.client,
            format=spec.get("format", "solo"),
        )
        table.replay_steps(stored.steps)
        table.joined = stored.joined
        table.created = stored.created
        table.updated = stored.updated
        table.moved = stored.created if stored.moved is None else stored.moved
        if table.is_over:
            table.finished = stored.updated
        table.journal = self.store
        return table


def _over(match: Mapping[str, Any] | None) -> bool:
    return match is not None and match.get("losers") is not None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)

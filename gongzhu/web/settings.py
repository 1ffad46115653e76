"""A server's settings: its limits, how long it keeps tables, where its bots think.

Every setting has a default fit for a server open to the internet; ``gongzhu
serve`` sets the common ones from its options (``docs/web.rst`` lists them
all, with the option of each).

>>> from gongzhu.web.settings import Settings
>>> settings = Settings(keep_finished=600)
>>> settings.keep_finished, settings.max_tables, settings.tables_per_client
(600.0, 200, 10)
>>> Settings(max_hands=0)
Traceback (most recent call last):
...
gongzhu.errors.GongzhuError: max_hands must be at least 1, not 0
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from typing import Any, Final

import attrs

from ..errors import GongzhuError

__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_REQUEST_BYTES",
    "Settings",
    "connection_cap",
    "default_workers",
]

MAX_RECORD_BYTES: Final = 4 * 1024 * 1024
"""The largest record ``POST /api/replay`` takes (by default), in bytes."""

MAX_REQUEST_BYTES: Final = 16 * 1024
"""The largest ``POST /api/tables`` request (by default), in bytes."""


def default_workers() -> int:
    """The worker processes of a server by default: one per CPU, from 1 to 8."""
    return max(1, min(8, os.cpu_count() or 1))


FILES_KEPT_FREE: Final = 64
"""Files a server keeps free below its open-file limit for its database, workers and logs."""


def connection_cap(default: int = 1000) -> int:
    """The connections a server takes at most by default: ``default``, or fewer to stay
    :data:`FILES_KEPT_FREE` files below the process's open-file limit (``RLIMIT_NOFILE``).

    >>> 1 <= connection_cap() <= 1000
    True
    """
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):  # Windows: no such limit
        return default
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return default
    return max(1, min(default, soft - FILES_KEPT_FREE))


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GongzhuError(f"expected a number of seconds, not {value!r}")
    return float(value)


def _networks(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    found = []
    for text in value:
        try:
            found.append(str(ipaddress.ip_network(str(text).strip(), strict=False)))
        except ValueError:
            raise GongzhuError(
                f"a trusted proxy is an address or a network (10.0.0.5, 10.0.0.0/8, ::1), "
                f"not {text!r}"
            ) from None
    return tuple(found)


def _bots(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


def _origins(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    return tuple(str(origin).rstrip("/").lower() for origin in value)


@attrs.frozen(kw_only=True)
class Settings:
    """What a server allows and keeps.

    :ivar bot_delay: seconds each bot waits before acting, so people can follow (0).
    :ivar max_tables: tables held in memory at most (200); when the server is
        full, the finished table left alone longest makes room for a new one.
    :ivar tables_per_client: unfinished tables one client address may have
        opened (10); the IPv6 addresses of one ``/56`` network count as one
        (:func:`~gongzhu.web.lobby.client_key`).
    :ivar max_hands: the most hands of a match (100); a match to a target, or
        one the ruleset ends, stops after this many hands too.
    :ivar keep_finished: seconds a table stays after its match is over (3600);
        then it is closed: its links no longer play, its records stay
        downloadable from the database.
    :ivar keep_idle: seconds a table stays with nobody connected and no action
        (86400); then it is closed as a finished one is.
    :ivar keep_unjoined: seconds a table stays when no person has ever joined
        it (600), so tables opened and left count against the server's
        :attr:`max_tables` for minutes, not for :attr:`keep_idle`.
    :ivar workers: worker processes for the bots and for ``/api/replay``
        (``None``: one per CPU, :func:`default_workers`; 0: none, the bots
        think on threads of the server's process, as in tests).
    :ivar send_queue: messages waiting to be sent to one connection at most
        (32); a connection that lets more pile up is dropped.  A newer
        ``state`` replaces one still waiting, so only a client that does not
        read its socket gets there.
    :ivar send_timeout: seconds a connection may take to take one message (10);
        a connection that takes longer is dropped, and its seat shown offline.
    :ivar header_timeout: seconds a client has to send a request's headers (10).
    :ivar body_timeout: seconds a client has to send a request's body (30).
    :ivar max_request: the largest ``POST /api/tables`` body, in bytes (16 KiB).
    :ivar max_record: the largest ``POST /api/replay`` body, in bytes (4 MiB).
    :ivar origins: the origins (``https://example.org``) whose pages may post
        to the API and open websockets, besides the server's own.
    :ivar message_rate: websocket messages a connection may send a second, on
        average (10); :attr:`message_burst` (30) at once.  A connection that
        sends faster is told (``rate-limited``) and closed (code 4429).
    :ivar client_rate: websocket messages all of one client's connections may
        send a second (30; :attr:`client_burst`, 90, at once), and HTTP
        requests it may make a second (the same); beyond, a request is answered
        429 (``rate-limited``) and a websocket closed as above.
    :ivar max_connections: connections (HTTP and websocket) served at once at
        most (``None``: 1000, or fewer to stay 64 below the open-file limit:
        :func:`connection_cap`); more are answered 503 at once.
    :ivar turn_timeout: seconds a person may take to act, or to deal the next
        hand (900); an unfinished table whose person has waited longer is closed
        as abandoned, whether or not its page is open.  It counts from the table's
        last step, kept in the database, so a restart does not reset it.
    :ivar bot_queue: bot decisions waiting for a worker at most before new tables
        with bots are refused (``bots-busy``; ``None``: 4 per worker, at least 4).
    :ivar bot_tables: unfinished tables with bots open at once at most (``None``: 8
        per worker, at least 8); beyond, new tables with bots are refused
        (``bots-busy``).  The other limits react to the bots' measured load; this
        one holds when many tables are opened at once, before any bot has played.
    :ivar bot_wait: seconds (1.0): when the slowest tenth of the last 200 bot
        decisions took longer than this, from being asked to being answered, new
        tables with bots are refused (``bots-busy``) until they are quicker.
    :ivar trusted_proxies: addresses or networks of the reverse proxies whose
        ``X-Forwarded-For`` header names the client (none: the header is ignored).
    :ivar prune_after: seconds a closed table stays in the database (30 days);
        then its steps and records are deleted.  0 keeps them for ever.
    :ivar bots: more bots by name, each ``"module:attribute"`` naming a
        factory called as :func:`~gongzhu.bots.make_bot` calls one (for tests
        and embedding; installed bots are found by their entry points).
    """

    bot_delay: float = attrs.field(default=0.0, converter=_float)
    max_tables: int = 200
    tables_per_client: int = 10
    max_hands: int = 100
    keep_finished: float = attrs.field(default=3600.0, converter=_float)
    keep_idle: float = attrs.field(default=86400.0, converter=_float)
    keep_unjoined: float = attrs.field(default=600.0, converter=_float)
    workers: int | None = None
    send_queue: int = 32
    send_timeout: float = attrs.field(default=10.0, converter=_float)
    header_timeout: float = attrs.field(default=10.0, converter=_float)
    body_timeout: float = attrs.field(default=30.0, converter=_float)
    max_request: int = MAX_REQUEST_BYTES
    max_record: int = MAX_RECORD_BYTES
    origins: tuple[str, ...] = attrs.field(default=(), converter=_origins)
    message_rate: float = attrs.field(default=10.0, converter=_float)
    message_burst: int = 30
    client_rate: float = attrs.field(default=30.0, converter=_float)
    client_burst: int = 90
    max_connections: int | None = None
    turn_timeout: float = attrs.field(default=900.0, converter=_float)
    bot_queue: int | None = None
    bot_tables: int | None = None
    bot_wait: float = attrs.field(default=1.0, converter=_float)
    trusted_proxies: tuple[str, ...] = attrs.field(default=(), converter=_networks)
    prune_after: float = attrs.field(default=30 * 86400.0, converter=_float)
    bots: Mapping[str, str] = attrs.field(factory=dict, converter=_bots)

    def __attrs_post_init__(self) -> None:
        for name in ("max_tables", "tables_per_client", "max_hands", "send_queue"):
            _at_least(name, getattr(self, name), 1)
        for name in ("max_request", "max_record", "message_burst", "client_burst"):
            _at_least(name, getattr(self, name), 1)
        for name in ("max_connections", "bot_queue", "bot_tables"):
            if getattr(self, name) is not None:
                _at_least(name, getattr(self, name), 1)
        if self.workers is not None:
            _at_least("workers", self.workers, 0)
        for name in ("bot_delay", "keep_finished", "keep_idle", "keep_unjoined", "prune_after"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise GongzhuError(f"{name} must be a number of seconds of at least 0, not {value}")
        for name in (
            "send_timeout",
            "header_timeout",
            "body_timeout",
            "message_rate",
            "client_rate",
            "turn_timeout",
            "bot_wait",
        ):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise GongzhuError(f"{name} must be a positive number of seconds, not {value}")
        for origin in self.origins:
            scheme, _, rest = origin.partition("://")
            if scheme not in ("http", "https") or not rest or "/" in rest:
                raise GongzhuError(
                    f"an origin is scheme://host[:port], as https://example.org; not {origin!r}"
                )

    @property
    def pool_size(self) -> int:
        """The worker processes this server runs (:attr:`workers`, or one per CPU)."""
        return default_workers() if self.workers is None else self.workers

    @property
    def connection_limit(self) -> int:
        """The connections served at once at most (:attr:`max_connections`, or
        :func:`connection_cap`)."""
        return connection_cap() if self.max_connections is None else self.max_connections

    @property
    def bot_tables_limit(self) -> int:
        """Unfinished tables with bots open at once at most."""
        return max(8, 8 * self.pool_size) if self.bot_tables is None else self.bot_tables

    @property
    def bot_queue_limit(self) -> int:
        """Bot decisions waiting at most before new bot tables are refused."""
        return max(4, 4 * self.pool_size) if self.bot_queue is None else self.bot_queue

    @property
    def sweep_every(self) -> float:
        """Seconds between two looks for tables to close: a quarter of the shorter
        keeping time, from 0.05 to 60 seconds."""
        shortest = min(self.keep_finished, self.keep_idle, self.keep_unjoined, self.turn_timeout)
        return min(60.0, max(0.05, shortest / 4))


def _at_least(name: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise GongzhuError(f"{name} must be at least {least}, not {value!r}")

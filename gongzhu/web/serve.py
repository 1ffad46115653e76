"""Running the application with uvicorn: what ``gongzhu serve`` does.

The listening socket is opened first (:func:`open_socket`), so that a port
in use is an ordinary error the command line reports in one line, and so
that port 0 (any free port) gives links with the real port.

uvicorn is configured with the server's limits (:func:`uvicorn_config`): a
websocket message is at most :data:`WS_MAX_SIZE` bytes (the protocol's
longest message, :data:`~gongzhu.web.protocol.MAX_MESSAGE` characters of
up to 4 bytes each; a compressed one is counted as it is once inflated),
request headers at most :data:`MAX_HEADER_BYTES` bytes, sent within
:attr:`Settings.header_timeout <gongzhu.web.settings.Settings.header_timeout>`
seconds, and a websocket that does not read is aborted when it is closed
(:mod:`gongzhu.web.transport`).  :class:`ServerThread` runs a server on a
thread (for tests and embedding).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import signal
import socket
import threading
import time
from collections.abc import Iterator
from types import FrameType, TracebackType
from typing import IO, TYPE_CHECKING, Any, Final

from . import require_extra
from .lobby import Lobby
from .protocol import MAX_MESSAGE
from .table import Table

if TYPE_CHECKING:
    import uvicorn

__all__ = [
    "MAX_HEADER_BYTES",
    "WS_MAX_SIZE",
    "ServerThread",
    "base_url",
    "open_socket",
    "print_links",
    "raise_file_limit",
    "serve",
    "uvicorn_config",
]

WS_MAX_SIZE: Final = 4 * MAX_MESSAGE
"""The largest websocket message the server reads, in bytes (uvicorn's ``ws_max_size``)."""

MAX_HEADER_BYTES: Final = 16 * 1024
"""The largest request line and headers the server reads, in bytes (h11's limit)."""


def raise_file_limit(most: int = 65536) -> int:
    """Raise this process's open-file limit (``RLIMIT_NOFILE``) to its hard limit, or
    ``most``; return the limit now (the common default of 1,024 holds fewer
    connections than a server may want).  Where there is no such limit, nothing."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = most if hard == resource.RLIM_INFINITY else min(hard, most)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        return int(soft)
    except (ImportError, OSError, ValueError):
        return 0


def open_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (IPv4 or IPv6), ready for uvicorn.

    :raises OSError: the address cannot be used (in use, not this machine's...).
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket) -> str:
    """The address people type: ``http://localhost:8000`` for a server on every interface."""
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def print_links(table: Table, url: str, out: IO[str]) -> None:
    """One line per seat: the person's link, or the bot that plays it."""
    print(f"table {table.id}: {table.rules.describe()}", file=out)
    for seat in table.seats:
        where = seat.player if seat.is_bot else f"{url}/play/{seat.token}"
        print(f"  seat {seat.index}: {where}", file=out)


def uvicorn_config(lobby: Lobby, *, log_level: str = "warning") -> uvicorn.Config:
    """uvicorn's configuration for serving ``lobby`` with its settings' limits.

    :raises MissingExtra: uvicorn, Starlette or websockets is not installed.
    """
    require_extra()
    import uvicorn

    from .app import create_app
    from .transport import protocols, quiet_accept_errors

    settings = lobby.settings
    quiet_accept_errors()
    http, ws = protocols(settings.header_timeout, settings.connection_limit, MAX_HEADER_BYTES)
    return uvicorn.Config(
        create_app(lobby),
        log_level=log_level,
        lifespan="on",
        access_log=False,
        proxy_headers=False,  # the application reads X-Forwarded-For from trusted proxies only
        http=http,
        ws=ws,
        ws_max_size=WS_MAX_SIZE,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        server_header=False,
    )


def serve(lobby: Lobby, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve ``lobby`` on ``sock`` until interrupted (Ctrl-C stops it cleanly).

    A Ctrl-C (SIGINT) at any moment of the run, its start included, stops the
    server (closing its connections) and then raises :class:`KeyboardInterrupt`
    here: this function handles SIGINT itself while it runs, so that the
    interrupt is neither lost (Python's own handler raises wherever the main
    thread is, and an exception raised in a garbage collector's callback is
    dropped) nor left to the event loop's handling.  Called from another
    thread, it leaves the signals alone, as uvicorn does.

    :raises MissingExtra: uvicorn, Starlette or websockets is not installed.
    :raises KeyboardInterrupt: the server was stopped by SIGINT.
    """
    import uvicorn

    server = uvicorn.Server(uvicorn_config(lobby, log_level=log_level))
    with _interrupt_stops(server) as interrupted:
        gc.collect()
        gc.freeze()  # what is loaded by now (the rules, the tables rebuilt) lives on
        server.run(sockets=[sock])
    if interrupted:
        raise KeyboardInterrupt


@contextlib.contextmanager
def _interrupt_stops(server: uvicorn.Server) -> Iterator[list[int]]:
    """While inside, SIGINT asks ``server`` to stop and is recorded in the list yielded.

    uvicorn handles SIGINT itself while it serves, and re-sends it once it
    has stopped: that reaches this handler, which records it.  asyncio's
    runner installs its own handler only over Python's default one, so it
    leaves this one in place.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        server.should_exit = True

    def forced(record: logging.LogRecord) -> bool:
        """A second Ctrl-C cuts the shutdown short, and uvicorn logs the cancelled
        lifespan's traceback: the command's one line says it was interrupted."""
        if not received:
            return True
        said = record.getMessage().rstrip()
        return not (said.startswith("Traceback") and said.endswith("CancelledError"))

    log = logging.getLogger("uvicorn.error")
    log.addFilter(forced)
    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield received
    finally:
        signal.signal(signal.SIGINT, previous)
        log.removeFilter(forced)


class ServerThread:
    """A server for ``lobby`` on a thread of this process, on ``host``:``port``
    (port 0: any free one), as ``gongzhu serve`` configures it.

    Use it as a context manager: ``with ServerThread(lobby) as server:``
    ``server.url`` is its address; leaving the block stops it.

    :raises MissingExtra: uvicorn, Starlette or websockets is not installed.
    """

    def __init__(
        self, lobby: Lobby, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"
    ) -> None:
        import uvicorn

        self.lobby = lobby
        self.socket = open_socket(host, port)
        self.url = base_url(self.socket)
        """The server's address, ``http://127.0.0.1:PORT``."""
        self.server = uvicorn.Server(uvicorn_config(lobby, log_level=log_level))
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )

    def start(self, timeout: float = 30.0) -> ServerThread:
        """Start serving; return once the server takes connections.

        :raises RuntimeError: it did not start within ``timeout`` seconds.
        """
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop serving (closing every connection) and wait for the thread."""
        self.server.should_exit = True
        self._thread.join(timeout)
        self.socket.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<ServerThread {self.url}>"

    def call(self, function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` (a coroutine function) on the server's event loop and
        return its result (for tests that act on tables as the server does)."""
        import asyncio

        loop = self.lobby.loop
        if loop is None:
            raise RuntimeError("the server is not running")
        return asyncio.run_coroutine_threadsafe(function(*args), loop).result(30)

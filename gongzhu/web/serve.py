"""Running the application with uvicorn: what ``gongzhu serve`` does.

The listening socket is opened first (:func:`open_socket`), so that a port
in use is an ordinary error the command line reports in one line, and so
that port 0 (any free port) gives links with the real port.
"""

from __future__ import annotations

import socket
from typing import IO

from . import require_extra
from .lobby import Lobby
from .table import Table

__all__ = ["base_url", "open_socket", "print_links", "serve"]


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
        sock.listen(128)
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


def serve(lobby: Lobby, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve ``lobby`` on ``sock`` until interrupted (Ctrl-C stops it cleanly).

    :raises MissingExtra: uvicorn, Starlette or websockets is not installed.
    """
    require_extra()
    import uvicorn

    from .app import create_app

    config = uvicorn.Config(create_app(lobby), log_level=log_level, lifespan="on", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])

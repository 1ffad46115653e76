"""The Starlette application: pages, the JSON API and the tables' websockets.

==================================  ========================================================
``GET /``                           the lobby page: open a table
``GET /play/{token}``               the table page of the seat whose link holds ``token``
``GET /viewer``                     the hand viewer (``?record=URL`` opens a record)
``GET /static/...``                 the pages' CSS and JavaScript
``GET /api/info``                   the installed variants and bots
``POST /api/tables``                open a table; returns every seat's link
``POST /api/replay``                check a hand or match record; the viewer's data
``GET /record/{token}/{n}.json``    the record of finished hand *n* of the seat's table
``GET /record/{token}/match.json``  the match record so far
``WS /ws/{token}``                  the seat's websocket (``?takeover=1``, ``?client=ID``)
==================================  ========================================================

Every response carries a content security policy (the pages load nothing
from elsewhere), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options:
DENY`` and ``Referrer-Policy: no-referrer`` (a page's address holds its
seat's token).  The ``POST`` routes take ``application/json`` only, and their
size is checked before the body is read.  A browser's ``POST`` or websocket
from a page of another origin is refused (:func:`origin_allowed`).

Starlette is imported when :func:`create_app` is called, not with this module.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..bots import bot_names
from ..errors import GongzhuError
from ..rules import load_rules, variant_names
from . import require_extra
from .lobby import Lobby
from .pool import JobFailed
from .protocol import ProtocolError, error_message, parse_client_message
from .settings import MAX_RECORD_BYTES, Settings
from .table import CLOSE_TABLE_CLOSED, PERSON, Table

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
    from starlette.websockets import WebSocket

__all__ = [
    "CLOSE_CODES",
    "MAX_RECORD_BYTES",
    "SECURITY_HEADERS",
    "STATIC",
    "create_app",
    "origin_allowed",
    "server_info",
]

STATIC: Final = Path(__file__).parent / "static"
"""The folder of the pages, shipped in the package."""

CLOSE_CODES: Final = {
    "unknown-seat": 4404,
    "seat-taken": 4409,
    "bot-seat": 4403,
    "table-closed": CLOSE_TABLE_CLOSED,
}
"""Websocket close codes for a connection the server turns away."""

CLOSE_BAD_ORIGIN: Final = 4403
"""The close code of a websocket from a page of another origin (refused before it opens)."""

SECURITY_HEADERS: Final = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}
"""Headers on every HTTP response, besides the content security policy."""

CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'{sockets}; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
"""The content security policy; ``{sockets}`` is the server's own ``ws:`` and ``wss:``
address, for browsers whose ``'self'`` does not cover them."""

MAX_WAITING_REPLAYS: Final = 8
"""Replays waiting for a worker at most; ``/api/replay`` answers 503 beyond."""

STATUS: Final = {
    "bad-table": 400,
    "bad-record": 400,
    "too-many-tables": 429,
    "server-full": 503,
    "bad-origin": 403,
    "bad-content-type": 415,
    "no-record": 404,
    "unknown-seat": 404,
    "table-closed": 404,
}
"""The HTTP status of each error code of the JSON API."""

_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]+)?|\[[0-9A-Fa-f:.]+\](:[0-9]+)?")
_PAGE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_DEFAULT_PORTS: Final = {"http": ":80", "https": ":443", "ws": ":80", "wss": ":443"}

_log = logging.getLogger(__name__)


@cache
def server_info() -> dict[str, Any]:
    """The installed variants (name, Chinese name, base or modifier, summary) and bots."""
    variants = []
    for name in variant_names():
        try:
            info = next(i for i in load_rules(name).variants if i.name == name)
        except GongzhuError:
            continue
        variants.append(
            {"name": name, "title": info.title_zh, "base": info.base, "summary": info.summary}
        )
    return {"variants": variants, "bots": bot_names(), "person": PERSON}


def _header(headers: Any, name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _netloc(scheme: str, netloc: str) -> str:
    netloc = netloc.lower()
    default = _DEFAULT_PORTS.get(scheme)
    if default and netloc.endswith(default):
        netloc = netloc[: -len(default)]
    return netloc


def _loopback(host: str) -> bool:
    """Whether ``host`` (a ``Host`` header's name or address, without the port) is this machine."""
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host.partition("]")[0] + "]"
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def origin_allowed(
    headers: Any, scheme: str, settings: Settings, server: tuple[str, int] | None = None
) -> bool:
    """Whether a request (its raw ``headers``, ``[(name, value)]`` in bytes) may act.

    A request without an ``Origin`` header is not from a page (a script, a
    command line) and may.  A browser's request may when its origin is one of
    :attr:`Settings.origins <gongzhu.web.settings.Settings.origins>`, or names
    the address the request was sent to: its ``Host`` (the server's own origin).
    A server listening on a loopback address (``server``, ASGI's ``(host,
    port)``) is this machine's only: a page's request whose ``Host`` names
    another (a name rebound to 127.0.0.1 by its DNS) may not.

    >>> settings = Settings(origins=["https://cards.example"])
    >>> h = [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000")]
    >>> origin_allowed(h, "http", settings)
    True
    >>> origin_allowed([(b"host", b"127.0.0.1:8000"), (b"origin", b"http://evil.example")],
    ...                "http", settings)
    False
    >>> origin_allowed([(b"origin", b"https://cards.example")], "http", settings)
    True
    >>> origin_allowed([(b"host", b"127.0.0.1:8000"), (b"origin", b"https://127.0.0.1:8000")],
    ...                "http", settings)  # another scheme is another origin
    False
    >>> rebound = [(b"host", b"evil.example:8000"), (b"origin", b"http://evil.example:8000")]
    >>> origin_allowed(rebound, "http", settings, ("127.0.0.1", 8000))
    False
    """
    origin = _header(headers, b"origin")
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in settings.origins:
        return True
    host = _header(headers, b"host")
    found_scheme, _, found = origin.partition("://")
    if host is None or not found or found_scheme not in ("http", "https"):
        return False
    own = "https" if scheme in ("https", "wss") else "http"
    host = host.strip()
    if server is not None and _loopback(server[0]) and not _loopback(_hostname(host)):
        return False
    return found_scheme == own and _netloc(found_scheme, found) == _netloc(own, host)


class _SecurityHeaders:
    """ASGI middleware: the content security policy and :data:`SECURITY_HEADERS`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope.get("headers", ()), b"host") or ""
        sockets = f" ws://{host} wss://{host}" if _HOST.fullmatch(host) else ""
        extra = [
            (b"content-security-policy", CSP.format(sockets=sockets).encode()),
            *((name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()),
        ]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        self.status = status
        self.code = code
        self.message = message
        super().__init__(message)


def create_app(
    lobby: Lobby | None = None, *, bot_delay: float = 0.0, settings: Settings | None = None
) -> Starlette:
    """The ASGI application serving ``lobby``'s tables (a new, empty lobby by default).

    :param bot_delay: for a new lobby, seconds each bot waits before acting.
    :param settings: for a new lobby, its settings.
    :raises MissingExtra: Starlette is not installed.
    """
    require_extra(("starlette",))
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import FileResponse, JSONResponse
    from starlette.responses import Response as PlainResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles

    lobby = lobby if lobby is not None else Lobby(settings, bot_delay=bot_delay)
    settings = lobby.settings

    def refusal(exc: _Refused) -> Response:
        headers = {"connection": "close"} if exc.status in (408, 413) else None
        return JSONResponse(error_message(exc.code, exc.message), exc.status, headers=headers)

    def page(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

        return endpoint

    async def read_json_post(request: Request, code: str, limit: int) -> bytes:
        """The body of a JSON post, checked: its origin, its type, its size (before
        it is read) and the time it takes."""
        scope = request.scope
        if not origin_allowed(scope["headers"], request.url.scheme, settings, scope.get("server")):
            raise _Refused(403, "bad-origin", "this server takes requests from its own pages")
        kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if kind != "application/json":
            raise _Refused(415, "bad-content-type", "send JSON, as application/json")
        length = request.headers.get("content-length")
        too_large = f"the request is larger than {limit} bytes"
        if length is not None:
            if not length.isdigit():
                raise _Refused(400, code, "the Content-Length is not a number")
            if int(length) > limit:
                raise _Refused(413, code, too_large)
        body = bytearray()
        try:
            async with asyncio.timeout(settings.body_timeout):
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > limit:
                        raise _Refused(413, code, too_large)
        except TimeoutError:
            raise _Refused(408, code, "the request's body did not arrive in time") from None
        return bytes(body)

    async def info(request: Request) -> Response:
        return JSONResponse(server_info())

    async def open_table(request: Request) -> Response:
        try:
            body = await read_json_post(request, "bad-table", settings.max_request)
        except _Refused as exc:
            return refusal(exc)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return JSONResponse(error_message("bad-table", "send the table as JSON"), 400)
        client = request.client.host if request.client else None
        try:
            table = lobby.open_request(data, client=client)
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), STATUS.get(exc.code, 400))
        return JSONResponse(_links(table), headers={"Cache-Control": "no-store"})

    async def replay_record(request: Request) -> Response:
        try:
            body = await read_json_post(request, "bad-record", settings.max_record)
        except _Refused as exc:
            return refusal(exc)
        if lobby.pool.waiting("replay") >= MAX_WAITING_REPLAYS:
            return JSONResponse(
                error_message("busy", "the server is replaying other records: try again soon"),
                503,
                headers={"Retry-After": "5"},
            )
        try:
            data = await lobby.pool.replay(body)
        except JobFailed as exc:
            if exc.kind == "refused":
                return JSONResponse(error_message("bad-record", str(exc)), 400)
            _log.error("replaying a record: %s", exc)
            return JSONResponse(error_message("internal-error", "the replay failed"), 500)
        return PlainResponse(data, media_type="application/json")

    async def hand_record(request: Request) -> Response:
        number = request.path_params["number"]
        try:
            table_id, record = lobby.hand_record(request.path_params["token"], number)
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 404)
        return _download(record, f"gongzhu-{table_id}-hand-{number}.json")

    async def match_record(request: Request) -> Response:
        try:
            table_id, record = lobby.match_record(request.path_params["token"])
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 404)
        return _download(record, f"gongzhu-{table_id}-match.json")

    async def table_socket(websocket: WebSocket) -> None:
        scope, scheme = websocket.scope, websocket.url.scheme
        if not origin_allowed(scope["headers"], scheme, settings, scope.get("server")):
            await websocket.close(CLOSE_BAD_ORIGIN, "bad-origin")  # before accepting: HTTP 403
            return
        await websocket.accept()
        takeover = websocket.query_params.get("takeover") == "1"
        page_id = websocket.query_params.get("client")
        if page_id is not None and not _PAGE_ID.fullmatch(page_id):
            page_id = None
        try:
            table, seat = lobby.find(websocket.path_params["token"])
            await table.connect(seat, websocket, takeover=takeover, page=page_id)
        except ProtocolError as exc:
            await websocket.send_json(error_message(exc.code, exc.message))
            await websocket.close(CLOSE_CODES.get(exc.code, 4400), exc.code)
            return
        try:
            await _serve_seat(table, seat, websocket)
        finally:
            await table.disconnect(seat, websocket)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lobby.start()
        yield
        await lobby.close()

    app = Starlette(
        routes=[
            Route("/", page("index.html")),
            Route("/play/{token}", page("table.html")),
            Route("/viewer", page("viewer.html")),
            Route("/api/info", info),
            Route("/api/tables", open_table, methods=["POST"]),
            Route("/api/replay", replay_record, methods=["POST"]),
            Route("/record/{token}/match.json", match_record),
            Route("/record/{token}/{number:int}.json", hand_record),
            WebSocketRoute("/ws/{token}", table_socket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(_SecurityHeaders)],
        lifespan=lifespan,
    )
    app.state.lobby = lobby
    return app


async def _serve_seat(table: Table, seat: int, websocket: WebSocket) -> None:
    """Read the seat's messages until the client goes; answer each one."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not table.holds(seat, websocket):
            return  # taken over from another window, or dropped: this one was closed
        try:
            reply = await table.handle(seat, parse_client_message(message.get("text")))
        except ProtocolError as exc:
            reply = error_message(exc.code, exc.message, **exc.details)
        except Exception:  # a bug: the client is told, the table goes on
            _log.exception("table %s, seat %d", table.id, seat)
            reply = error_message("internal-error", "the server failed on this message")
        if reply is not None:
            table.reply(seat, websocket, reply)


def _links(table: Table) -> dict[str, Any]:
    """The answer to ``POST /api/tables``: the table and every seat's link."""
    return {
        "table": table.id,
        "rules": table.rules.describe(),
        "seats": [
            {
                "seat": seat.index,
                "player": seat.player,
                "link": None if seat.is_bot else f"/play/{seat.token}",
            }
            for seat in table.seats
        ],
    }


def _download(record: Mapping[str, Any], filename: str) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(
        record,
        headers={
            "Content-Disposition": f'attachment; filename="{filename}"',
            "Cache-Control": "no-store",
        },
    )

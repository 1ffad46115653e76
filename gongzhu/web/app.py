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
``GET /healthz``                    ``{"status": "ok", ...}``: the server answers
``GET /metrics``                    counters and gauges in Prometheus's text format
``GET /favicon.ico``                the pages' icon
``WS /ws/{token}``                  the seat's websocket (``?takeover=1``, ``?client=ID``)
==================================  ========================================================

Every response carries a content security policy (the pages load nothing
from elsewhere), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options:
DENY`` and ``Referrer-Policy: no-referrer`` (a page's address holds its
seat's token).  The ``POST`` routes take ``application/json`` only, and their
size is checked before the body is read.  A browser's ``POST`` or websocket
from a page of another origin is refused (:func:`origin_allowed`).

Each client (an address, or an IPv6 ``/56``: :func:`~gongzhu.web.lobby.client_key`)
may make :attr:`Settings.client_rate <gongzhu.web.settings.Settings.client_rate>`
requests a second (429 ``rate-limited`` beyond; a ``POST`` counts as
:data:`POST_COST`), and its websockets send as many messages; each websocket
:attr:`Settings.message_rate <gongzhu.web.settings.Settings.message_rate>`.
The client's address is the connection's, or, from a proxy of
:attr:`Settings.trusted_proxies <gongzhu.web.settings.Settings.trusted_proxies>`,
the one its ``X-Forwarded-For`` names (:func:`client_address`).  Each request
is written to the ``gongzhu.web.access`` log (at ``INFO``), seat tokens hidden.

Starlette is imported when :func:`create_app` is called, not with this module.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..bots import bot_names
from ..errors import GongzhuError
from ..rules import load_rules, variant_names
from . import require_extra
from .limits import CLOSE_RATE_LIMITED, Bucket, Buckets
from .lobby import Lobby, client_key
from .metrics import CONTENT_TYPE, Metrics, render
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
    "POST_COST",
    "SECURITY_HEADERS",
    "STATIC",
    "client_address",
    "create_app",
    "origin_allowed",
    "public_path",
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

POST_COST: Final = 10
"""How many requests of a client's rate limit a ``POST`` counts as (it costs more)."""

MAX_WAITING_REPLAYS: Final = 8
"""Replays waiting for a worker at most; ``/api/replay`` answers 503 beyond."""

STATUS: Final = {
    "bad-table": 400,
    "bad-record": 400,
    "too-many-tables": 429,
    "rate-limited": 429,
    "server-full": 503,
    "bots-busy": 503,
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
_access = logging.getLogger("gongzhu.web.access")

_SECRET_PATH = re.compile(r"^/(play|record|ws)/[^/]+")


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


def public_path(path: str) -> str:
    """``path`` as the access log writes it: a seat's token replaced by ``…``.

    >>> public_path("/play/bUULm9RRfgwZCNt645ZS4A"), public_path("/record/x/match.json")
    ('/play/…', '/record/…/match.json')
    """
    return _SECRET_PATH.sub(lambda found: f"/{found.group(1)}/…", path)


def _networks(settings: Settings) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(network) for network in settings.trusted_proxies]


def _trusted(host: str, networks: list[Any]) -> bool:
    try:
        address = ipaddress.ip_address(host.strip().strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address.version == network.version and address in network for network in networks)


def client_address(scope: Mapping[str, Any], settings: Settings) -> str | None:
    """The address of the client of a request (its ASGI ``scope``).

    The connection's peer, unless it is one of :attr:`Settings.trusted_proxies
    <gongzhu.web.settings.Settings.trusted_proxies>`: then the last address of
    ``X-Forwarded-For`` that is not a trusted proxy (the header of any other
    peer is ignored: anyone can write it).

    >>> settings = Settings(trusted_proxies=["10.0.0.0/8"])
    >>> forwarded = [(b"x-forwarded-for", b"198.51.100.1, 203.0.113.9, 10.0.0.7")]
    >>> client_address({"client": ("10.0.0.5", 4), "headers": forwarded}, settings)
    '203.0.113.9'
    >>> client_address({"client": ("127.0.0.1", 4), "headers": forwarded}, Settings())
    '127.0.0.1'
    """
    client = scope.get("client")
    peer = client[0] if client else None
    if peer is None or not settings.trusted_proxies:
        return peer
    networks = _networks(settings)
    if not _trusted(peer, networks):
        return peer
    forwarded = [
        part.strip()
        for key, value in scope.get("headers", ())
        if key.lower() == b"x-forwarded-for"
        for part in bytes(value).decode("latin-1").split(",")
    ]
    for hop in reversed(forwarded):
        if not hop:
            continue
        if not _trusted(hop, networks):
            try:
                return str(ipaddress.ip_address(hop.strip("[]")))
            except ValueError:
                return peer  # not an address: the proxy wrote something else
    return peer


class _Front:
    """The outermost ASGI middleware: the client's address (through trusted proxies),
    the content security policy and :data:`SECURITY_HEADERS` (also on a 500), the
    client's request rate, the access log and the request counters."""

    def __init__(
        self, app: ASGIApp, settings: Settings, metrics: Metrics, buckets: Buckets
    ) -> None:
        self.app = app
        self.settings = settings
        self.metrics = metrics
        self.buckets = buckets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        settings = self.settings
        address = client_address(scope, settings)
        if scope.get("client") and address != scope["client"][0]:
            scope = {**scope, "client": (address, 0)}
            if (proto := _header(scope.get("headers", ()), b"x-forwarded-proto")) is not None:
                proto = proto.split(",")[0].strip().lower()
                if proto in ("http", "https"):
                    secure = proto == "https"
                    if scope["type"] == "websocket":
                        scope["scheme"] = "wss" if secure else "ws"
                    else:
                        scope["scheme"] = proto
        if scope["type"] != "http":  # a websocket's opening counts as a request
            if address is not None and not self.buckets.take(client_key(address)):
                self.metrics.count("rate_limited", kind="websocket")
                await send({"type": "websocket.close", "code": CLOSE_RATE_LIMITED})  # HTTP 403
                return
            await self.app(scope, receive, send)
            return
        host = _header(scope.get("headers", ()), b"host") or ""
        sockets = f" ws://{host} wss://{host}" if _HOST.fullmatch(host) else ""
        extra = [
            (b"content-security-policy", CSP.format(sockets=sockets).encode()),
            *((name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()),
        ]
        began = time.perf_counter()
        answer = {"status": 0, "bytes": 0}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            elif message["type"] == "http.response.body":
                answer["bytes"] += len(message.get("body", b""))
            await send(message)

        cost = POST_COST if scope.get("method") == "POST" else 1
        try:
            if address is not None and not self.buckets.take(client_key(address), cost):
                self.metrics.count("rate_limited", kind="http")
                wait = self.buckets.get(client_key(address)).wait(cost)
                await _json_answer(
                    send_with_headers,
                    429,
                    error_message("rate-limited", "too many requests: slow down"),
                    [(b"retry-after", str(max(1, round(wait + 0.5))).encode())],
                )
                return
            await self.app(scope, receive, send_with_headers)
        finally:
            status = answer["status"] or 500
            self.metrics.count("http_requests", status=f"{status // 100}xx")
            if _access.isEnabledFor(logging.INFO):
                _access.info(
                    '%s "%s %s" %d %d %.1fms',
                    address or "-",
                    scope.get("method", "-"),
                    public_path(scope.get("path", "")),
                    status,
                    answer["bytes"],
                    (time.perf_counter() - began) * 1000,
                )


async def _json_answer(
    send: Send, status: int, data: Any, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps(data).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or ()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


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
    from starlette.responses import FileResponse, JSONResponse
    from starlette.responses import Response as PlainResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles

    lobby = lobby if lobby is not None else Lobby(settings, bot_delay=bot_delay)
    settings = lobby.settings
    limits = settings
    metrics = Metrics()
    requests = Buckets(settings.client_rate, settings.client_burst)
    messages = Buckets(settings.client_rate, settings.client_burst)

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
            metrics.count("tables_refused", code=exc.code)
            retry = {"Retry-After": "30"} if exc.code in ("bots-busy", "server-full") else None
            return JSONResponse(
                error_message(exc.code, exc.message), STATUS.get(exc.code, 400), headers=retry
            )
        metrics.count("tables_opened")
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
        text = request.path_params["number"]
        if not (text.isascii() and text.isdigit() and len(text) <= 6):
            return JSONResponse(error_message("no-record", f"no hand {text[:12]!r}"), 404)
        number = int(text)
        try:
            table_id, record = lobby.hand_record(request.path_params["token"], number)
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 404)
        return _download(record, f"gongzhu-{table_id}-hand-{number}.json")

    async def match_record(request: Request) -> Response:
        try:
            table_id, data = lobby.match_json(request.path_params["token"])
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 404)
        return PlainResponse(
            data,
            media_type="application/json",
            headers=_download_headers(f"gongzhu-{table_id}-match.json"),
        )

    async def health(request: Request) -> Response:
        unwritten = sum(len(table.unwritten) for table in lobby.tables.values())
        busy = lobby.bots_busy()
        answer = {
            "status": "ok" if not unwritten else "degraded",
            "tables": len(lobby.tables),
            "bots_busy": busy is not None,
            "unwritten_steps": unwritten,
        }
        return JSONResponse(answer, 200, headers={"Cache-Control": "no-store"})

    async def metrics_page(request: Request) -> Response:
        return PlainResponse(
            render(lobby, metrics), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
        )

    async def favicon(request: Request) -> Response:
        return FileResponse(
            STATIC / "favicon.svg",
            media_type="image/svg+xml",
            headers={"Cache-Control": "max-age=86400"},
        )

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
        metrics.count("ws_connections")
        client = websocket.client.host if websocket.client else None
        own = Bucket(settings.message_rate, settings.message_burst)
        shared = None if client is None else messages.get(client_key(client))
        try:
            await _serve_seat(table, seat, websocket, own, shared, metrics)
        finally:
            await table.disconnect(seat, websocket)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lobby.start()
        yield
        await lobby.close()

    class _App(Starlette):
        def build_middleware_stack(self) -> ASGIApp:
            # outside Starlette's own error middleware, so a 500 has the headers too
            return _Front(super().build_middleware_stack(), limits, metrics, requests)

    app = _App(
        routes=[
            Route("/", page("index.html")),
            Route("/play/{token}", page("table.html")),
            Route("/viewer", page("viewer.html")),
            Route("/api/info", info),
            Route("/api/tables", open_table, methods=["POST"]),
            Route("/api/replay", replay_record, methods=["POST"]),
            Route("/record/{token}/match.json", match_record),
            Route("/record/{token}/{number}.json", hand_record),
            Route("/healthz", health),
            Route("/metrics", metrics_page),
            Route("/favicon.ico", favicon),
            WebSocketRoute("/ws/{token}", table_socket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.lobby = lobby
    app.state.metrics = metrics
    return app


async def _serve_seat(
    table: Table,
    seat: int,
    websocket: WebSocket,
    own: Bucket,
    shared: Bucket | None,
    metrics: Metrics,
) -> None:
    """Read the seat's messages until the client goes; answer each one.  A client that
    sends faster than its limits (``own``, the connection's; ``shared``, its
    address's) is told and closed (:data:`~gongzhu.web.limits.CLOSE_RATE_LIMITED`)."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not table.holds(seat, websocket):
            # taken over from another window, or dropped: its close is on its way (were
            # this to return first, the socket would be shut before its close frame)
            await _closing(websocket)
            return
        metrics.count("ws_messages")
        if not own.take() or (shared is not None and not shared.take()):
            metrics.count("rate_limited", kind="websocket")
            last = error_message(
                "rate-limited", "too many messages: this connection is closed (slow down)"
            )
            await table.kick(seat, websocket, CLOSE_RATE_LIMITED, "rate limited", last)
            return
        try:
            reply = await table.handle(seat, parse_client_message(message.get("text")))
        except ProtocolError as exc:
            reply = error_message(exc.code, exc.message, **exc.details)
        except Exception:  # a bug: the client is told, the table goes on
            _log.exception("table %s, seat %d", table.id, seat)
            reply = error_message("internal-error", "the server failed on this message")
        if reply is not None:
            table.reply(seat, websocket, reply)


async def _closing(websocket: WebSocket, wait: float = 2.0) -> None:
    """Wait (``wait`` seconds at most) for the server's close of ``websocket``, sent by
    another task (an outbox dropping it, a takeover)."""
    from starlette.websockets import WebSocketState

    deadline = asyncio.get_running_loop().time() + wait
    while websocket.application_state == WebSocketState.CONNECTED:
        if asyncio.get_running_loop().time() > deadline:
            return
        await asyncio.sleep(0.01)


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


def _download_headers(filename: str) -> dict[str, str]:
    return {
        "Content-Disposition": f'attachment; filename="{filename}"',
        "Cache-Control": "no-store",
    }


def _download(record: Mapping[str, Any], filename: str) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(record, headers=_download_headers(filename))

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
``WS /ws/{token}``                  the seat's websocket (``?takeover=1`` to take it over)
==================================  ========================================================

Starlette is imported when :func:`create_app` is called, not with this module.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..bots import bot_names
from ..errors import GongzhuError
from ..rules import load_rules, variant_names
from . import require_extra
from .lobby import Lobby
from .protocol import ProtocolError, error_message, parse_client_message
from .table import PERSON, Table
from .viewer import viewer_data

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.websockets import WebSocket

__all__ = ["MAX_RECORD_BYTES", "STATIC", "create_app", "server_info"]

STATIC: Final = Path(__file__).parent / "static"
"""The folder of the pages, shipped in the package."""

MAX_RECORD_BYTES: Final = 4 * 1024 * 1024
"""The largest record ``/api/replay`` reads."""

CLOSE_CODES: Final = {"unknown-seat": 4404, "seat-taken": 4409, "bot-seat": 4403}
"""Websocket close codes for a connection the server turns away."""

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


def create_app(lobby: Lobby | None = None, *, bot_delay: float = 0.0) -> Starlette:
    """The ASGI application serving ``lobby``'s tables (a new, empty lobby by default).

    :param bot_delay: for a new lobby, seconds each bot waits before acting.
    :raises MissingExtra: Starlette is not installed.
    """
    require_extra(("starlette",))
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles

    lobby = lobby if lobby is not None else Lobby(bot_delay=bot_delay)

    def page(name: str) -> Any:
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

        return endpoint

    async def info(request: Request) -> Response:
        return JSONResponse(server_info())

    async def open_table(request: Request) -> Response:
        try:
            data = json.loads(await request.body())
        except (ValueError, RecursionError):
            return JSONResponse(error_message("bad-table", "send the table as JSON"), 400)
        try:
            table = lobby.open_request(data)
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 400)
        return JSONResponse(_links(table))

    async def replay_record(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_RECORD_BYTES:
            return JSONResponse(error_message("bad-record", "the record is too large"), 413)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return JSONResponse(error_message("bad-record", "the file is not JSON"), 400)
        try:
            return JSONResponse(viewer_data(data))
        except GongzhuError as exc:
            return JSONResponse(error_message("bad-record", str(exc)), 400)

    async def hand_record(request: Request) -> Response:
        try:
            table, _seat = lobby.find(request.path_params["token"])
            number = request.path_params["number"]
            record = table.record(number)
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 404)
        return _download(record, f"gongzhu-{table.id}-hand-{number}.json")

    async def match_record(request: Request) -> Response:
        try:
            table, _seat = lobby.find(request.path_params["token"])
        except ProtocolError as exc:
            return JSONResponse(error_message(exc.code, exc.message), 404)
        return _download(table.match_record(), f"gongzhu-{table.id}-match.json")

    async def table_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        takeover = websocket.query_params.get("takeover") == "1"
        try:
            table, seat = lobby.find(websocket.path_params["token"])
            await table.connect(seat, websocket, takeover=takeover)
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
        if table.seats[seat].connection is not websocket:
            return  # taken over from another window: this one was told and closed
        try:
            reply = await table.handle(seat, parse_client_message(message.get("text")))
        except ProtocolError as exc:
            reply = error_message(exc.code, exc.message, **exc.details)
        except Exception:  # a bug: the client is told, the table goes on
            _log.exception("table %s, seat %d", table.id, seat)
            reply = error_message("internal-error", "the server failed on this message")
        if reply is not None:
            try:
                await websocket.send_json(reply)
            except Exception:
                return


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


def _download(record: dict[str, Any], filename: str) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(
        record, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )

"""Issue 39, the web service: what still broke, tried as a hostile client and as a new user.

Each test here failed before its fix: ping frames of a client that never reads
grew the server's memory; a flooder was never dropped, and a reading client was
cut without a close frame; one IPv6 /56 filled the server; joined tables stayed
for ever; a full disk lost the table; a long match's record was encoded on the
event loop at every download; nothing refused bot work; a bot's quick decision
answered quicker; no health, metrics, access log or trusted proxies; a 5,000-digit
hand number was a 500 without headers; 64 KiB of headers passed; no favicon; the
database was never pruned.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its TestClient
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gongzhu.web.app import create_app
from gongzhu.web.lobby import Lobby
from gongzhu.web.protocol import ProtocolError
from gongzhu.web.serve import ServerThread
from gongzhu.web.settings import Settings
from gongzhu.web.store import Store, StoreError
from gongzhu.web.table import Table

pytestmark = pytest.mark.one_engine

PLAYERS = ["human", "first", "first", "first"]

CLOSE_RATE_LIMITED = 4429  # gongzhu.web.limits.CLOSE_RATE_LIMITED, as docs/web.rst says


def serving(**settings: Any) -> ServerThread:
    settings.setdefault("workers", 0)
    return ServerThread(Lobby(Settings(**settings)))


def ws_url(server: ServerThread, table: Table, seat: int = 0) -> str:
    return f"{server.url.replace('http', 'ws')}/ws/{table.seats[seat].token}"


def address(server: ServerThread) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port)


def get(
    server: ServerThread, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(*address(server), timeout=20)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def wait_for(condition: Any, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"never: {what}")


def first_state(ws: Any) -> dict[str, Any]:
    for _ in range(50):
        message = json.loads(ws.recv(timeout=10))
        if message["type"] == "state":
            return message
    raise AssertionError("no state")


# -- memory and floods --------------------------------------------------------------------


def _ping_frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x89, 0x80 | len(payload)]) + mask + masked


@pytest.mark.parametrize("known", [True, False])
def test_ping_frames_of_a_client_that_never_reads_do_not_pile_up(known: bool) -> None:
    """uvicorn answered every ping frame into the socket's buffer, read or not: 278 MB."""
    with serving() as server:
        table = server.lobby.open_table(["39baobao"], PLAYERS, seed=1)
        url = ws_url(server, table) if known else f"{server.url.replace('http', 'ws')}/ws/nobody"
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(address(server))
        frames = _ping_frame(b"p" * 125) * 200
        with connect(url, sock=sock, open_timeout=10, max_queue=1, compression=None):
            cut = False
            try:
                for _ in range(100):  # 20,000 pings: 2.5 MB of pongs never read
                    sock.sendall(frames)
            except OSError:
                cut = True

            def buffered() -> int:
                return sum(
                    c.transport.get_write_buffer_size()
                    for c in server.server.server_state.connections
                    if getattr(c, "transport", None) is not None
                )

            assert cut or buffered() < 256 * 1024
            wait_for(lambda: not server.server.server_state.connections, "the pinger is cut")
        if known:
            wait_for(lambda: table.seats[0].link is None, "the seat is free again")


def test_a_reading_client_that_floods_is_told_and_closed_with_a_close_frame() -> None:
    with serving(message_burst=20, message_rate=0.01) as server:
        table = server.lobby.open_table(["39baobao"], PLAYERS, seed=1)
        with connect(ws_url(server, table), open_timeout=10, max_queue=None) as ws:
            first_state(ws)
            try:
                for n in range(40):  # each refused, each its own refusal
                    ws.send(json.dumps({"type": f"flood-{n}"}))
            except ConnectionClosed:
                pass  # closed before the last ones were sent: what was sent can be read
            codes = []
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(100):
                    message = json.loads(ws.recv(timeout=10))
                    if message["type"] == "error":
                        codes.append(message["code"])
        assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_RATE_LIMITED
        assert codes[-1] == "rate-limited" and codes.count("bad-message") <= 20
        # the table goes on: the seat comes back
        with connect(ws_url(server, table), open_timeout=10, max_queue=None) as ws:
            assert first_state(ws)["seat"] == 0


def test_a_reading_client_dropped_for_a_full_queue_gets_a_close_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With rate limits that let it (or before them), a reading client was cut after 33
    distinct refused messages, with no close frame: the socket was shut before it.

    Each of the server's sends is slowed, so the queue fills whatever the machine's
    pace (a fast server drained it as the client sent, and nobody was dropped)."""
    from starlette.websockets import WebSocket

    send_json = WebSocket.send_json

    async def slow_send_json(self: WebSocket, data: Any, mode: str = "text") -> None:
        await asyncio.sleep(0.05)
        await send_json(self, data, mode)

    monkeypatch.setattr(WebSocket, "send_json", slow_send_json)
    with serving(message_rate=1000, message_burst=1000, client_burst=1000) as server:
        table = server.lobby.open_table(["39baobao"], PLAYERS, seed=1)
        with connect(ws_url(server, table), open_timeout=10, max_queue=None) as ws:
            first_state(ws)
            try:
                for n in range(60):
                    ws.send(json.dumps({"type": f"flood-{n}"}))
            except ConnectionClosed:
                pass
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(200):
                    ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4408


def test_one_clients_connections_share_its_message_rate() -> None:
    with serving(message_burst=100, client_rate=0.01, client_burst=10) as server:
        table = server.lobby.open_table(["39baobao"], ["human", "human", "first", "first"])
        with (
            connect(ws_url(server, table, 0), open_timeout=10, max_queue=None) as zero,
            connect(ws_url(server, table, 1), open_timeout=10, max_queue=None) as one,
        ):
            for _ in range(6):
                zero.send(json.dumps({"type": "ping"}))
                one.send(json.dumps({"type": "ping"}))
            closed = []
            for ws in (zero, one):
                try:
                    for _ in range(100):
                        ws.recv(timeout=2)
                except ConnectionClosed as exc:
                    closed.append(exc.rcvd.code if exc.rcvd else None)
                except TimeoutError:
                    pass
            assert CLOSE_RATE_LIMITED in closed


def test_a_clients_websocket_openings_count_as_requests() -> None:
    from websockets.exceptions import InvalidStatus

    with serving(client_rate=0.01, client_burst=3) as server:
        url = f"{server.url.replace('http', 'ws')}/ws/nobody"
        for _ in range(3):
            with connect(url, open_timeout=10) as ws:
                assert json.loads(ws.recv(timeout=10))["code"] == "unknown-seat"
        with pytest.raises(InvalidStatus) as refused, connect(url, open_timeout=10):
            pass
        assert refused.value.response.status_code == 403


def test_a_clients_requests_are_rate_limited() -> None:
    with serving(client_rate=0.01, client_burst=3) as server:
        answers = [get(server, "/api/info") for _ in range(4)]
        assert [status for status, _h, _b in answers] == [200, 200, 200, 429]
        _status, headers, body = answers[-1]
        assert json.loads(body)["code"] == "rate-limited"
        assert int(headers["retry-after"]) >= 1 and headers["x-content-type-options"] == "nosniff"


def test_connections_past_the_cap_are_answered_503_and_closed_at_once() -> None:
    with serving(max_connections=3) as server:
        idle = [socket.create_connection(address(server), timeout=10) for _ in range(3)]
        try:
            wait_for(lambda: len(server.server.server_state.connections) == 3, "3 connections")
            with socket.create_connection(address(server), timeout=10) as extra:
                answer = extra.recv(4096)
                assert answer.startswith(b"HTTP/1.1 503 "), answer
                assert extra.recv(4096) == b""  # closed: its file is free again
        finally:
            for sock in idle:
                sock.close()


@pytest.mark.skipif(sys.platform == "win32", reason="no RLIMIT_NOFILE")
def test_at_the_open_file_limit_the_log_is_lines_not_tracebacks(tmp_path: Path) -> None:
    """1,100 idle connections at a 1,024-file limit wrote 64.6 MB of accept tracebacks."""
    import resource

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))

    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "gongzhu", "serve", "--port", "0", "--no-table"),
            *("--db", ":memory:", "--workers", "0", "--client-rate", "100000"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=few_files,  # the child's limit, before it starts
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[3]
        host, port = url.removeprefix("http://").split(":")
        sockets = []
        for _ in range(300):
            try:
                sockets.append(socket.create_connection((host, int(port)), timeout=10))
            except OSError:
                break
        time.sleep(1.5)
        with socket.create_connection((host, int(port)), timeout=10) as late:
            late.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert late.recv(4096).startswith(b"HTTP/1.1 503 ")  # refused, not left hanging
        for sock in sockets:
            sock.close()
    finally:
        process.terminate()
        _out, err = process.communicate(timeout=30)
    assert "Traceback" not in err
    assert len(err) < 4096, err[:2000]


# -- tables per client, abandoned tables -----------------------------------------------------


def test_a_full_server_makes_room_by_closing_a_table_nobody_joined() -> None:
    """20 addresses filled all 200 tables with tables they opened and left."""
    now = [1000.0]
    lobby = Lobby(Settings(workers=0, max_tables=2), clock=lambda: now[0])
    left = [lobby.open_table(["39baobao"], PLAYERS, client=f"203.0.113.{n}") for n in (1, 2)]
    for table in left:
        table.created = now[0]
    now[0] += 30  # its person may still be opening the link: kept
    with pytest.raises(Exception, match="unfinished tables open"):
        lobby.open_table(["39baobao"], PLAYERS, client="198.51.100.1")
    now[0] += 30
    fresh = lobby.open_table(["39baobao"], PLAYERS, client="198.51.100.1")
    assert fresh.id in lobby.tables and left[0].id not in lobby.tables
    assert left[1].id in lobby.tables


def test_a_ruleset_is_compiled_once_for_many_table_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused table requests that compile a ruleset slowed the others (93 ms)."""
    import gongzhu.web.lobby as lobby_module

    compiled: list[tuple[str, ...]] = []
    load = lobby_module.load_rules

    def counting(*names: str, **options: Any) -> Any:
        compiled.append(names)
        return load(*names, **options)

    monkeypatch.setattr(lobby_module, "load_rules", counting)
    lobby = Lobby(Settings(workers=0, tables_per_client=100))
    for _ in range(3):
        lobby.open_request({"rules": ["huapai", "anmai"], "seats": PLAYERS})
        with pytest.raises(ProtocolError, match="bad-table"):
            lobby.open_request({"rules": ["huapai"], "options": {"nope": 1}, "seats": PLAYERS})
    assert len(compiled) == 2


class Listener:
    async def send_json(self, data: Any) -> None:
        pass

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def test_a_table_whose_person_does_not_act_is_closed_even_with_the_page_open() -> None:
    lobby = Lobby(Settings(workers=0, turn_timeout=60))
    table = lobby.open_table(["39baobao"], PLAYERS, seed=1)

    async def sit() -> None:
        await table.connect(0, Listener())  # and the page stays open
        await table.wait_for_bots()

    asyncio.run(sit())
    assert table.waits_for_person and table.people_connected == 1
    assert lobby.sweep(table.moved + 59) == []
    assert lobby.sweep(table.moved + 60) == [table.id]


def test_the_turn_timeout_counts_from_the_last_step_across_a_restart() -> None:
    store = Store.open(":memory:")
    lobby = Lobby(Settings(workers=0, turn_timeout=60), store=store)
    table = lobby.open_table(["39baobao"], PLAYERS, seed=1)

    async def act() -> None:
        await table.connect(0, Listener())
        await table.wait_for_bots()
        await table.act(0, str(table.hand.legal_actions()[0]))
        await table.wait_for_bots()

    asyncio.run(act())
    moved = table.moved
    restarted = Lobby(Settings(workers=0, turn_timeout=60), store=store)
    [rebuilt] = restarted.restore()
    assert rebuilt.moved == pytest.approx(moved)
    assert restarted.sweep(moved + 59) == []
    assert restarted.sweep(moved + 60) == [rebuilt.id]
    assert Lobby(Settings(workers=0), store=store).restore() == []  # closed for good
    store.close()


# -- the journal on a full disk --------------------------------------------------------------


class FlakyStore(Store):
    """A database whose disk is full while ``full`` is set."""

    full = False

    def step(self, *args: Any, **kwargs: Any) -> None:
        if self.full:
            raise StoreError("cannot write a step: database or disk is full")
        super().step(*args, **kwargs)


def test_a_disk_full_for_a_while_loses_no_table(tmp_path: Path) -> None:
    """A step not written left a gap: the whole table was lost on restart."""
    store = Store.open(tmp_path / "serve.sqlite3")
    store.__class__ = FlakyStore
    assert isinstance(store, FlakyStore)
    lobby = Lobby(Settings(workers=0), store=store)
    table = lobby.open_table(["39baobao"], PLAYERS, seed=3, hands=2)

    async def play(actions: int) -> None:
        for _ in range(actions):
            table._start_bots()
            await table.wait_for_bots()
            if table.hand.is_over:
                await table.deal_next()
            else:
                await table.act(0, str(table.hand.legal_actions()[0]))
        await table.wait_for_bots()

    asyncio.run(play(2))
    store.full = True
    asyncio.run(play(3))  # these steps cannot be written
    assert table.unwritten
    store.full = False
    lobby.sweep()  # the sweep writes them
    assert not table.unwritten
    asyncio.run(play(2))
    history = [str(action) for action in table.hand.history]
    store.close()
    store = Store.open(tmp_path / "serve.sqlite3")
    [rebuilt] = Lobby(Settings(workers=0), store=store).restore()
    assert [str(action) for action in rebuilt.hand.history] == history
    store.close()


def test_steps_a_restart_during_a_full_disk_loses_are_only_the_unwritten(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path / "serve.sqlite3")
    store.__class__ = FlakyStore
    lobby = Lobby(Settings(workers=0), store=store)
    table = lobby.open_table(["39baobao"], PLAYERS, seed=3)

    async def play(actions: int) -> None:
        for _ in range(actions):
            table._start_bots()
            await table.wait_for_bots()
            await table.act(0, str(table.hand.legal_actions()[0]))
        await table.wait_for_bots()

    asyncio.run(play(2))
    written = table.steps
    store.full = True  # type: ignore[attr-defined]
    asyncio.run(play(2))
    store.close()  # killed with its disk full
    store = Store.open(tmp_path / "serve.sqlite3")
    [rebuilt] = Lobby(Settings(workers=0), store=store).restore()
    assert rebuilt.steps == written  # the table is there, as it was when last written
    store.close()


# -- match.json, bot work -------------------------------------------------------------------


def test_a_long_matchs_record_is_encoded_once_not_at_every_download(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lobby = Lobby(Settings(workers=0, max_hands=30))
    table = lobby.open_table(["39baobao"], PLAYERS, seed=5, hands=30)

    async def play_out() -> None:
        while not table.match.is_over:
            if table.hand.is_over:
                await table.deal_next()
            elif table.hand.to_move == 0:
                await table.act(0, str(table.hand.legal_actions()[0]))
            else:
                table._start_bots()
                await table.wait_for_bots()

    asyncio.run(play_out())
    encoded = [0]
    dumps = json.dumps

    def counting(*args: Any, **kwargs: Any) -> str:
        text = dumps(*args, **kwargs)
        encoded[0] += len(text)
        return text

    monkeypatch.setattr(json, "dumps", counting)
    with TestClient(create_app(lobby)) as client:
        path = f"/record/{table.seats[0].token}/match.json"
        first = client.get(path)
        encoded[0] = 0
        second = client.get(path)
    assert second.status_code == 200 and second.content == first.content
    assert len(json.loads(second.content)["hands"]) == 30
    assert encoded[0] < len(second.content) / 10  # the hands were not encoded again


def test_new_bot_tables_are_refused_while_the_bots_are_slow() -> None:
    lobby = Lobby(Settings(workers=0, bot_wait=0.5))
    for _ in range(20):
        lobby.pool.note_decision(2.0)
    with pytest.raises(ProtocolError) as refused:
        lobby.open_request({"rules": ["39baobao"], "seats": PLAYERS})
    assert refused.value.code == "bots-busy"
    assert "try again" in refused.value.message
    lobby.open_request({"rules": ["39baobao"], "seats": ["human"] * 4})  # people only: yes
    with TestClient(create_app(lobby)) as client:
        answer = client.post("/api/tables", json={"rules": ["39baobao"], "seats": PLAYERS})
    assert answer.status_code == 503 and answer.json()["code"] == "bots-busy"
    assert answer.headers["retry-after"] == "30"
    # a minute later, with no slow decision since, they are taken again
    assert lobby.pool.decision_time(0.9, now=time.monotonic() + 61) is None


def test_a_few_slow_decisions_of_a_quiet_server_refuse_nothing() -> None:
    lobby = Lobby(Settings(workers=0, bot_wait=0.5))
    for _ in range(5):
        lobby.pool.note_decision(2.0)
    lobby.open_request({"rules": ["39baobao"], "seats": PLAYERS})


def test_new_bot_tables_are_refused_while_many_decisions_wait() -> None:
    lobby = Lobby(Settings(workers=0, bot_queue=2))
    lobby.pool._waiting["bot"].extend([(None, None), (None, None)])  # type: ignore[list-item]
    with pytest.raises(ProtocolError) as refused:
        lobby.open_request({"rules": ["39baobao"], "seats": PLAYERS})
    assert refused.value.code == "bots-busy"


class SlowBot:
    """Takes 0.15 s to choose, or no time at all when one action is legal."""

    def __init__(self, seed: int | None = None, rules: Any = None) -> None:
        pass

    def choose(self, view: Any) -> Any:
        legal = view.legal_actions
        if len(legal) > 1:
            time.sleep(0.15)
        return legal[0]


def slow_bot(seed: int | None = None, rules: Any = None) -> SlowBot:
    return SlowBot(seed, rules)


def test_a_bot_thinks_during_its_delay_so_its_answer_time_tells_nothing() -> None:
    """A search bot answered in 200 ms with one legal card, 250 ms with several."""
    settings = Settings(workers=0, bot_delay=0.25, bots={"slow": f"{__name__}:slow_bot"})
    lobby = Lobby(settings)
    table = lobby.open_table(["39baobao"], ["human", "slow", "slow", "slow"], seed=2)
    times: list[float] = []

    async def play() -> None:
        await table.connect(0, Listener())
        for _ in range(3):
            began = time.monotonic()
            steps = table.steps
            await table.wait_for_bots()
            if table.steps > steps:
                times.append((time.monotonic() - began) / (table.steps - steps))
            if table.hand.is_over:
                return
            await table.act(0, str(table.hand.legal_actions()[0]))

    asyncio.run(play())
    assert times
    for took in times:  # each bot turn is its delay, whatever it thought: not 0.25 + 0.15
        assert 0.24 <= took < 0.34, times


# -- health, metrics, access log, proxies ---------------------------------------------------


def test_health_and_metrics() -> None:
    lobby = Lobby(Settings(workers=0))
    lobby.open_table(["39baobao"], PLAYERS, seed=1)
    with TestClient(create_app(lobby)) as client:
        health = client.get("/healthz")
        client.get("/api/info")
        metrics = client.get("/metrics")
    assert health.status_code == 200
    assert health.json() == {
        "status": "ok",
        "tables": 1,
        "bots_busy": False,
        "unwritten_steps": 0,
    }
    assert metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = metrics.text
    assert 'gongzhu_tables{state="unfinished"} 1' in text
    assert 'gongzhu_http_requests_total{status="2xx"} 2' in text
    assert "# TYPE gongzhu_bot_queue gauge" in text and "gongzhu_bots_busy 0" in text


def test_the_access_log_has_a_line_a_request_without_seat_tokens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lobby = Lobby(Settings(workers=0))
    table = lobby.open_table(["39baobao"], PLAYERS, seed=1)
    token = table.seats[0].token
    with (
        caplog.at_level(logging.INFO, logger="gongzhu.web.access"),
        TestClient(create_app(lobby)) as client,
    ):
        client.get(f"/play/{token}")
        client.get(f"/record/{token}/1.json")
    lines = [r.getMessage() for r in caplog.records if r.name == "gongzhu.web.access"]
    assert len(lines) == 2
    assert '"GET /play/…" 200' in lines[0] and '"GET /record/…/1.json" 404' in lines[1]
    assert not any(token in line for line in lines)


def _open_table(server: ServerThread, headers: dict[str, str]) -> str | None:
    connection = http.client.HTTPConnection(*address(server), timeout=20)
    body = json.dumps({"seats": PLAYERS}).encode()
    connection.request(
        "POST", "/api/tables", body=body, headers={"content-type": "application/json", **headers}
    )
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return server.lobby.tables[answer["table"]].client


def test_x_forwarded_for_is_read_from_trusted_proxies_only() -> None:
    forwarded = {"x-forwarded-for": "203.0.113.5"}
    with serving() as server:  # uvicorn trusted it from any local process
        assert _open_table(server, forwarded) == "127.0.0.1"
    with serving(trusted_proxies=["127.0.0.1"]) as server:
        assert _open_table(server, forwarded) == "203.0.113.5"
        assert _open_table(server, {"x-forwarded-for": "198.51.100.1, 127.0.0.1"}) == (
            "198.51.100.1"
        )


# -- the smaller items ----------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with serving() as running:
        yield running


def test_a_huge_hand_number_is_a_404_with_the_security_headers(server: ServerThread) -> None:
    table = server.lobby.open_table(["39baobao"], PLAYERS, seed=1)
    status, headers, body = get(server, f"/record/{table.seats[0].token}/{'9' * 5000}.json")
    assert status == 404 and json.loads(body)["code"] == "no-record"
    assert headers["x-content-type-options"] == "nosniff"


def test_a_server_error_has_the_security_headers(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server.lobby, "hand_record", broken)
    logging.getLogger("uvicorn.error").disabled = True
    try:
        status, headers, _body = get(server, "/record/x/1.json")
    finally:
        logging.getLogger("uvicorn.error").disabled = False
    assert status == 500
    assert headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" in headers


def test_request_headers_are_at_most_16_kib_however_they_arrive(server: ServerThread) -> None:
    with socket.create_connection(address(server), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:100]
    with socket.create_connection(address(server), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Some: " + b"a" * 8000 + b"\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")


def test_the_favicon(server: ServerThread) -> None:
    status, headers, body = get(server, "/favicon.ico")
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")
    assert body.startswith(b"<svg")


def test_closed_tables_are_pruned_from_the_database() -> None:
    store = Store.open(":memory:")
    lobby = Lobby(Settings(workers=0, keep_unjoined=10, prune_after=100), store=store)
    table = lobby.open_table(["39baobao"], PLAYERS, seed=1)
    kept = lobby.open_table(["39baobao"], PLAYERS, seed=1)
    assert lobby.sweep(kept.created + 10) == [table.id, kept.id]
    assert store.counts()["closed"] == 2
    store._db.execute("UPDATE tables SET updated = 0 WHERE id = ?", (table.id,))
    lobby.sweep(150)
    assert store.counts()["closed"] == 1 and not store.has_table(table.id)
    assert store.find(table.seats[0].token) is None and store.has_table(kept.id)
    store.close()


def test_a_bucket_refills_at_its_rate() -> None:
    from gongzhu.web.limits import CLOSE_RATE_LIMITED as close_code
    from gongzhu.web.limits import Bucket

    assert close_code == CLOSE_RATE_LIMITED
    now = [0.0]
    bucket = Bucket(2.0, 4, clock=lambda: now[0])
    assert [bucket.take() for _ in range(5)] == [True] * 4 + [False]
    assert bucket.wait() == pytest.approx(0.5)
    now[0] = 0.5
    assert bucket.take() and not bucket.take()


def test_tables_with_bots_opened_at_once_are_capped_before_any_bot_plays() -> None:
    """Issue 39: 200 search-bot tables opened before play slowed every table (a person
    waited 20 s): the bots' measured load cannot refuse them yet, the cap does."""
    lobby = Lobby(Settings(workers=0, bot_tables=2))
    for _ in range(2):
        lobby.open_request({"rules": ["39baobao"], "seats": PLAYERS})
    with pytest.raises(ProtocolError) as refused:
        lobby.open_request({"rules": ["39baobao"], "seats": PLAYERS})
    assert refused.value.code == "bots-busy" and "2 tables with bots" in refused.value.message
    lobby.open_request({"rules": ["39baobao"], "seats": ["human"] * 4})  # people only: yes
    assert Settings(workers=3).bot_tables_limit == 24 and Settings(workers=0).bot_tables_limit == 8

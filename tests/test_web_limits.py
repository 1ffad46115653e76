"""A real server's limits, against hostile clients on 127.0.0.1.

The review's findings closed here: a seat that floods and never reads froze
its table (2); tables were never removed, and a full server refused every
new table (3); another site's page could open tables and seats (4); request
bodies were read before their size was checked, and ``/api/tables`` had no
limit (6); the websocket frame limit was uvicorn's 16 MiB (7); request
headers could stay half-sent forever, and a match could have 10³⁰ hands (8).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from gongzhu.web.lobby import Lobby, TooManyTables
from gongzhu.web.outbox import CLOSE_TOO_SLOW, Outbox
from gongzhu.web.serve import WS_MAX_SIZE, ServerThread
from gongzhu.web.settings import Settings
from gongzhu.web.store import Store
from gongzhu.web.table import CLOSE_TABLE_CLOSED, Table

pytestmark = pytest.mark.one_engine

Message = dict[str, Any]


def serving(**settings: Any) -> ServerThread:
    settings.setdefault("workers", 0)
    return ServerThread(Lobby(Settings(**settings)))


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with serving() as running:
        yield running


def ws_url(server: ServerThread, table: Table, seat: int) -> str:
    return f"{server.url.replace('http', 'ws')}/ws/{table.seats[seat].token}"


def next_state(ws: ClientConnection, done: Callable[[Message], bool] = lambda m: True) -> Message:
    """The next state with ``done(state)``, within a bounded number of messages."""
    for _ in range(500):
        message = json.loads(ws.recv(timeout=20))
        if message["type"] == "state" and done(message):
            return message
    raise AssertionError("no such state")


def post(
    server: ServerThread, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, Message]:
    host, port = server.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=20)
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    answer = json.loads(response.read() or b"null")
    connection.close()
    return response.status, answer


def raw(server: ServerThread) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    return sock


def read_response(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection or a response is complete."""
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < 2:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


async def play_out(table: Table) -> None:
    """Play seat 0's first legal action at its turns, and the bots', until the match is over."""
    while not table.match.is_over:
        if table.hand.is_over:
            await table.deal_next()
        elif table.hand.to_move == 0:
            await table.act(0, str(table.hand.legal_actions()[0]))
        else:
            table._start_bots()
            await table.wait_for_bots()


# -- finding 2: a seat that does not read ---------------------------------------------------


def flood(url: str, outcome: dict[str, Any]) -> None:
    """Connect with a tiny receive buffer, never read, and send bad messages whose
    refusals are 4 KB each, each its own (the same refusal waits once), until the server
    drops the connection (or 6,000 of them)."""
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect((host, int(port)))
    try:
        with connect(url, sock=sock, max_queue=1, compression=None, open_timeout=10) as ws:
            for sent in range(6000):
                ws.send(json.dumps({"type": f"{sent:04}" + "x" * 4000}))
                outcome["sent"] = sent + 1
    except (ConnectionClosed, OSError):
        outcome["dropped"] = True
    finally:
        sock.close()


def test_a_seat_that_floods_and_never_reads_is_dropped_and_the_others_go_on(
    server: ServerThread,
) -> None:
    table = server.lobby.open_table(["39baobao"], ["human", "human", "human", "first"], seed=4)
    with connect(ws_url(server, table, 1), open_timeout=10, max_queue=None) as one:
        next_state(one)
        outcome: dict[str, Any] = {}
        flooder = threading.Thread(
            target=flood, args=(ws_url(server, table, 0), outcome), daemon=True
        )
        flooder.start()
        flooder.join(60)
        assert outcome.get("dropped"), f"the server never dropped the flooding seat: {outcome}"
        # seat 1 is told seat 0 went; when seat 2 comes, seat 1 is told at once
        next_state(one, lambda m: not m["seats"][0]["connected"])
        with connect(ws_url(server, table, 2), open_timeout=10, max_queue=None) as two:
            state = next_state(one, lambda m: m["seats"][2]["connected"])
            assert state["number"] == 1
            # the table is intact: seat 0 comes back, and the three people finish the hand
            with connect(ws_url(server, table, 0), open_timeout=10, max_queue=None) as zero:
                sockets = {0: zero, 1: one, 2: two}
                state = next_state(zero)
                while state["phase"] != "over":
                    seat = state["to_move"]
                    if seat in sockets:
                        action = str(table.hand.legal_actions()[0])
                        sockets[seat].send(json.dumps({"type": "action", "action": action}))
                    state = next_state(zero)
    assert table.match.hands and table.match.hands[0].is_over


def test_an_outbox_drops_a_connection_whose_send_stalls_and_one_that_lets_messages_pile_up() -> (
    None
):
    class Stuck:
        """A connection whose socket never drains: a send never completes."""

        closed: tuple[int, str | None] | None = None

        async def send_json(self, data: Any) -> None:
            await asyncio.Event().wait()

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            self.closed = (code, reason)

    async def scenario() -> tuple[list[str | None], Stuck, Stuck]:
        dropped: list[str | None] = []
        stalled, piled = Stuck(), Stuck()
        slow = Outbox(stalled, limit=32, timeout=0.05, on_drop=lambda b: dropped.append(b.dropped))
        full = Outbox(piled, limit=4, timeout=30, on_drop=lambda b: dropped.append(b.dropped))
        slow.put({"type": "state"})
        full.put({"type": "error", "n": 0})
        await asyncio.sleep(0)  # the outbox's task takes it, and its send never ends
        full.put({"type": "pong", "n": 1})
        full.put({"type": "pong", "n": 2})  # one answer to a burst of pings
        for n in range(3, 5):
            full.put({"type": "error", "n": n})
            full.put({"type": "error", "n": n})  # one answer to a burst of the same refusal
        assert len(full) == 3 and not full.closed
        full.put({"type": "state"})
        full.put({"type": "state"})  # replaces the one waiting
        assert len(full) == 4 and full.put({"type": "error"}) is False
        for _ in range(200):
            if len(dropped) == 2:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.01)
        return dropped, stalled, piled

    dropped, stalled, piled = asyncio.run(scenario())
    assert sorted(dropped, key=str) == ["full", "stalled"]
    assert stalled.closed is not None and stalled.closed[0] == CLOSE_TOO_SLOW
    assert piled.closed is not None and piled.closed[0] == CLOSE_TOO_SLOW


def test_closing_an_outbox_lets_the_send_under_way_end_before_the_last_message() -> None:
    """Cancelling a send half way (as close() did) can leave half a message on the socket,
    and the last message and the close frame after it unread: a client kicked for flooding
    waited for them in vain."""

    class Slow:
        """A connection whose sends take a while; it notes what it is asked, in order."""

        def __init__(self, seconds: float) -> None:
            self.events: list[str] = []
            self.seconds = seconds

        async def send_json(self, data: Any) -> None:
            self.events.append(f"start {data['n']}")
            try:
                await asyncio.sleep(self.seconds)
            except asyncio.CancelledError:
                self.events.append(f"cut {data['n']}")
                raise
            self.events.append(f"sent {data['n']}")

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            self.events.append(f"close {code}")

    async def scenario(seconds: float, timeout: float) -> list[str]:
        connection = Slow(seconds)
        box = Outbox(connection, limit=8, timeout=timeout)
        box.put({"type": "error", "n": 1})
        box.put({"type": "error", "n": 2})  # still waiting when the box closes: never sent
        await asyncio.sleep(0.01)  # the first send is under way
        await box.close(4429, "rate limited", last={"type": "error", "n": 3})
        return connection.events

    sent = ["start 1", "sent 1", "start 3", "sent 3", "close 4429"]
    assert asyncio.run(scenario(0.05, timeout=5)) == sent
    # a send that outlasts the time limit is cut, as is the last message, and then it closes
    cut = ["start 1", "cut 1", "start 3", "cut 3", "close 4429"]
    assert asyncio.run(scenario(60, timeout=0.1)) == cut


def test_closing_an_idle_outbox_ends_its_task() -> None:
    async def scenario() -> bool:
        class Quiet:
            async def send_json(self, data: Any) -> None:
                pass

            async def close(self, code: int = 1000, reason: str | None = None) -> None:
                pass

        box = Outbox(Quiet())
        await asyncio.sleep(0)  # the task waits for a message
        await box.close()
        return box._task.done() and not box._task.cancelled()

    assert asyncio.run(scenario())


# -- finding 3: tables are removed ----------------------------------------------------------


def wait_for(condition: Callable[[], bool], what: str) -> None:
    for _ in range(400):
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")


def test_finished_and_idle_tables_are_closed_after_their_time_and_records_stay() -> None:
    store = Store.open(":memory:")
    lobby = Lobby(Settings(workers=0, keep_finished=0.5, keep_idle=1.0), store=store)
    with ServerThread(lobby) as server:
        finished = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=2)
        idle = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=3)
        with connect(ws_url(server, finished, 0), open_timeout=10, max_queue=None) as ws:
            state = next_state(ws)
            while state["phase"] != "over":
                if state["to_move"] == 0:
                    ws.send(json.dumps({"type": "action", "action": state["legal"][0]}))
                state = next_state(ws)
            # the finished table closes with its seat still connected: it is told so
            message = json.loads(ws.recv(timeout=20))
            while message["type"] == "state":
                message = json.loads(ws.recv(timeout=20))
            assert message["code"] == "table-closed"
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=20)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == CLOSE_TABLE_CLOSED
        assert finished.id not in lobby.tables
        wait_for(lambda: idle.id not in lobby.tables, "the idle table is closed")
        # the links of a closed table no longer play, but still download its records
        with connect(ws_url(server, finished, 0), open_timeout=10, max_queue=None) as ws:
            assert json.loads(ws.recv(timeout=20))["code"] == "table-closed"
        token = finished.seats[0].token
        host, port = server.url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=20)
        connection.request("GET", f"/record/{token}/1.json")
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read()) == finished.records[0]
        connection.request("GET", f"/record/{idle.seats[0].token}/match.json")
        response = connection.getresponse()
        assert response.status == 404 and json.loads(response.read())["code"] == "no-record"
    assert store.counts()["closed"] == 2
    store.close()


def test_a_full_server_closes_its_oldest_finished_table_to_open_another() -> None:
    with serving(max_tables=2, tables_per_client=5) as server:
        lobby = server.lobby
        body = json.dumps({"seats": ["human", "first", "first", "first"]}).encode()
        headers = {"content-type": "application/json"}
        opened = [post(server, "/api/tables", body, headers) for _ in range(2)]
        assert [status for status, _ in opened] == [200, 200]
        status, answer = post(server, "/api/tables", body, headers)
        assert status == 503 and answer["code"] == "server-full"
        first = lobby.tables[opened[0][1]["table"]]
        server.call(play_out, first)
        status, answer = post(server, "/api/tables", body, headers)
        assert status == 200
        assert first.id not in lobby.tables and answer["table"] in lobby.tables


def test_a_client_may_have_so_many_unfinished_tables() -> None:
    with serving(tables_per_client=2) as server:
        body = json.dumps({"seats": ["human", "first", "first", "first"]}).encode()
        headers = {"content-type": "application/json"}
        opened = [post(server, "/api/tables", body, headers) for _ in range(2)]
        status, answer = post(server, "/api/tables", body, headers)
        assert status == 429 and answer["code"] == "too-many-tables"
        server.call(play_out, server.lobby.tables[opened[0][1]["table"]])
        assert post(server, "/api/tables", body, headers)[0] == 200


class Listener:
    """A person's connection that takes every message (and keeps none)."""

    async def send_json(self, data: Any) -> None:
        pass

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def test_the_sweep_closes_by_the_settings_times() -> None:
    lobby = Lobby(Settings(workers=0, keep_finished=60, keep_idle=600, keep_unjoined=30))
    table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1)
    asyncio.run(play_out(table))
    other = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1)
    unjoined = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1)

    async def come_and_go() -> None:  # a person joins the other table, and leaves
        listener = Listener()
        await other.connect(0, listener)
        await other.disconnect(0, listener)

    asyncio.run(come_and_go())
    assert table.finished is not None
    assert lobby.sweep(unjoined.created + 29) == []
    assert lobby.sweep(unjoined.created + 30) == [unjoined.id]  # nobody ever came
    assert lobby.sweep(table.finished + 59) == []
    assert lobby.sweep(table.finished + 60) == [table.id]
    assert lobby.sweep(other.updated + 599) == []
    assert lobby.sweep(other.updated + 600) == [other.id]


def test_the_addresses_of_one_ipv6_network_are_one_client() -> None:
    """Issue 39: one /56 (what a provider gives one customer, 256 /64s) filled the server."""
    lobby = Lobby(Settings(workers=0, tables_per_client=2))
    players = ["human", "first", "first", "first"]
    lobby.open_table(["39baobao"], players, client="2001:db8:1:2::1")
    lobby.open_table(["39baobao"], players, client="2001:db8:1:2:ffff::9")
    with pytest.raises(TooManyTables):
        lobby.open_table(["39baobao"], players, client="2001:db8:1:2::abcd")
    with pytest.raises(TooManyTables):
        lobby.open_table(["39baobao"], players, client="2001:db8:1:ff::1")  # another /64, one /56
    lobby.open_table(["39baobao"], players, client="2001:db8:1:100::1")  # another /56
    lobby.open_table(["39baobao"], players, client="203.0.113.7")
    lobby.open_table(["39baobao"], players, client="203.0.113.8")  # IPv4: one address each


# -- finding 4: other sites' pages --------------------------------------------------------


def test_only_the_servers_own_pages_may_post_and_open_seats() -> None:
    with serving(origins=["https://cards.example"]) as server:
        own = server.url
        body = json.dumps({"seats": ["human", "first", "first", "first"]}).encode()
        for origin, status in [
            ("http://evil.example", 403),
            ("null", 403),
            (own, 200),
            ("https://cards.example", 200),
            (server.url.replace("http:", "https:"), 403),  # another scheme, another origin
        ]:
            headers = {"content-type": "application/json", "origin": origin}
            found, answer = post(server, "/api/tables", body, headers)
            assert found == status, (origin, answer)
            if status == 403:
                assert answer["code"] == "bad-origin"
        assert len(server.lobby.tables) == 2
        # a "simple" cross-site post (text/plain) is refused, even from the server's own page
        found, answer = post(server, "/api/tables", body, {"content-type": "text/plain"})
        assert found == 415 and answer["code"] == "bad-content-type"
        found, answer = post(server, "/api/replay", b"{}", {"content-type": "text/plain"})
        assert found == 415
        table = next(iter(server.lobby.tables.values()))
        evil = Origin("http://evil.example")
        with (
            pytest.raises(InvalidStatus) as refused,
            connect(ws_url(server, table, 0), origin=evil, open_timeout=10),
        ):
            pass
        assert refused.value.response.status_code == 403
        assert table.seats[0].link is None
        with connect(
            ws_url(server, table, 0), origin=Origin(own), open_timeout=10, max_queue=None
        ) as ws:
            assert next_state(ws)["seat"] == 0


def test_a_name_rebound_to_this_machine_is_not_its_origin(server: ServerThread) -> None:
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends
    ``Host: evil.example``, and its origin matches that Host; a loopback server
    serves this machine's names only."""
    port = server.url.rsplit(":", 1)[1]
    body = json.dumps({"seats": ["human", "first", "first", "first"]}).encode()
    for host, status in [("evil.example", 403), ("localhost", 200), ("127.0.0.1", 200)]:
        headers = {
            "content-type": "application/json",
            "host": f"{host}:{port}",
            "origin": f"http://{host}:{port}",
        }
        found, answer = post(server, "/api/tables", body, headers)
        assert found == status, (host, answer)


def test_every_response_has_the_security_headers(server: ServerThread) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=20)
    for path in ["/", "/viewer", "/play/x", "/static/table.js", "/api/info", "/record/x/1.json"]:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        headers = {name.lower(): value for name, value in response.getheaders()}
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
        policy = headers["content-security-policy"]
        for part in ("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"):
            assert part in policy
        assert "unsafe" not in policy


# -- finding 6: request bodies --------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "length"), [("/api/tables", 16 * 1024 + 1), ("/api/replay", 4 * 1024 * 1024 + 1)]
)
def test_a_body_too_large_is_refused_before_it_is_read(
    server: ServerThread, path: str, length: int
) -> None:
    with raw(server) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n".encode()
        )  # and no body at all: the answer comes without it
        answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"larger than" in answer


def test_a_chunked_body_is_cut_off_at_the_limit(server: ServerThread) -> None:
    with raw(server) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"400\r\n" + b" " * 1024 + b"\r\n"
        for _ in range(17):  # 17 KiB, and never the last chunk
            sock.sendall(chunk)
        answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


def test_a_body_that_does_not_arrive_in_time_is_refused() -> None:
    with serving(body_timeout=0.3) as server, raw(server) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]


# -- finding 7: websocket frames ------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_a_websocket_message_over_the_protocols_size_closes_the_socket(
    server: ServerThread, compression: str | None
) -> None:
    table = server.lobby.open_table(["39baobao"], ["human", "human", "first", "first"], seed=1)
    with connect(
        ws_url(server, table, 0), compression=compression, open_timeout=10, max_queue=None
    ) as ws:
        next_state(ws)
        big = "a" * (1024 * 1024 if compression else WS_MAX_SIZE + 1)  # deflated: about 1 KB
        with pytest.raises(ConnectionClosed) as closed:
            ws.send(big)
            for _ in range(100):
                ws.recv(timeout=20)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    with connect(
        ws_url(server, table, 1), open_timeout=10, max_queue=None
    ) as other:  # the table goes on
        other.send(json.dumps({"type": "ping"}))
        while (message := json.loads(other.recv(timeout=20)))["type"] == "state":
            pass
        assert message == {"type": "pong"}


# -- finding 8: header time, hands per match ------------------------------------------------


@pytest.mark.parametrize("sent", [b"", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"])
def test_request_headers_must_arrive_in_time(sent: bytes) -> None:
    with serving(header_timeout=0.3) as server, raw(server) as sock:
        sock.sendall(sent)
        assert sock.recv(1024) == b""  # the server closed the connection


def test_a_match_has_a_bounded_number_of_hands() -> None:
    lobby = Lobby(Settings(workers=0, max_hands=20))
    table = lobby.open_table(
        ["39baobao"], ["human", "first", "first", "first"], hands=None, target=10**6
    )
    assert table.match.max_hands == 20
    huapai = lobby.open_table(["huapai"], ["human", "first", "first", "first"], hands=None)
    assert huapai.match.max_hands == 20
    with pytest.raises(Exception, match="at most 20 hands"):
        lobby.open_table(["39baobao"], ["human", "first", "first", "first"], hands=21)

"""Bots and replays think in worker processes: a slow one never holds up another table.

The review's findings 5 (``/api/replay`` of a big record blocked every table)
and 10 (bots ran on threads of the server, competing with its event loop for
the interpreter lock).  "Promptly" is shown by order, not by the clock: a
whole hand is played at one table while a bot at another holds its
interpreter's lock, and actions are answered while a replay is under way.
"""

from __future__ import annotations

import asyncio
import ctypes
import http.client
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from websockets.sync.client import ClientConnection, connect

import gongzhu
from gongzhu.actions import Action
from gongzhu.bots import make_bot
from gongzhu.view import SeatView
from gongzhu.web.lobby import Lobby
from gongzhu.web.pool import BotTurn, Pool, decision_seed, run_job
from gongzhu.web.serve import ServerThread
from gongzhu.web.settings import Settings

pytestmark = pytest.mark.one_engine

GATE = "GONGZHU_TEST_GATE"


class _PollFd(ctypes.Structure):
    _fields_ = [("fd", ctypes.c_int), ("events", ctypes.c_short), ("revents", ctypes.c_short)]


class GatedBot:
    """A bot whose first decision holds its interpreter's lock until the test releases it.

    It marks ``<gate>.entered``, then waits (30 seconds at most) for a byte on the
    FIFO ``<gate>`` in a :class:`ctypes.PyDLL` call to ``poll``, which keeps the
    lock: no other thread of its process runs meanwhile.  Then it marks ``<gate>.left``.
    """

    def __init__(self, seed: int | None = None, *, rules: Any = None) -> None:
        self.gate = Path(os.environ[GATE])

    def choose(self, view: SeatView) -> Action:
        left = Path(f"{self.gate}.left")
        if not left.exists():
            Path(f"{self.gate}.entered").touch()
            fd = os.open(self.gate, os.O_RDWR | os.O_NONBLOCK)
            waiting = _PollFd(fd, 1, 0)  # POLLIN
            ctypes.PyDLL(None).poll(ctypes.byref(waiting), 1, 30_000)
            os.close(fd)
            left.touch()
        return view.legal_actions[0]


def release(gate: Path) -> None:
    try:
        fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # nobody waits at the gate
        return
    os.write(fd, b"x")
    os.close(fd)


def ws_url(server: ServerThread, token: str) -> str:
    return f"{server.url.replace('http', 'ws')}/ws/{token}"


def state(ws: ClientConnection) -> dict[str, Any]:
    while True:
        message = json.loads(ws.recv(timeout=20))
        if message["type"] == "state":
            return message


def play_hand(ws: ClientConnection, answered: list[int] | None = None) -> dict[str, Any]:
    """Seat 0 plays its first legal action at each turn until the hand is over; each
    state after one of its actions counts as that action's answer."""
    current = state(ws)
    while current["phase"] != "over":
        if current["to_move"] == 0:
            ws.send(json.dumps({"type": "action", "action": current["legal"][0]}))
            current = state(ws)
            if answered is not None:
                answered.append(len(answered))
        else:
            current = state(ws)
    return current


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if sys.platform != "linux":
        pytest.skip("the gated bot reads a FIFO through libc (Linux)")
    path = tmp_path / "gate"
    os.mkfifo(path)
    monkeypatch.setenv(GATE, str(path))  # the workers inherit it
    yield path
    release(path)


def test_a_bot_that_holds_its_processs_lock_delays_no_other_table(gate: Path) -> None:
    settings = Settings(workers=2, bots={"gated": f"{__name__}:GatedBot"})
    lobby = Lobby(settings)
    with ServerThread(lobby) as server:
        slow = lobby.open_table(["39baobao"], ["human", "gated", "first", "first"], seed=1)
        fast = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=2)
        entered = Path(f"{gate}.entered")
        with connect(ws_url(server, slow.seats[0].token), open_timeout=10) as waiting:
            current = state(waiting)
            for _ in range(100):  # seat 0 plays until the gated bot's turn
                if current["to_move"] == 1:
                    break
                if current["to_move"] == 0:
                    waiting.send(json.dumps({"type": "action", "action": current["legal"][0]}))
                current = state(waiting)
            for _ in range(2000):  # the gated bot is thinking
                if entered.exists():
                    break
                threading.Event().wait(0.01)
            assert entered.exists()
            # the gated bot thinks, holding its process's lock: the other table plays a hand
            with connect(ws_url(server, fast.seats[0].token), open_timeout=10) as other:
                answered: list[int] = []
                final = play_hand(other, answered)
            assert final["phase"] == "over" and len(answered) >= 13
            assert not Path(f"{gate}.left").exists()  # still thinking all along
            assert slow.hand.to_move == 1
            release(gate)
            after = state(waiting)
            while after["to_move"] == 1:
                after = state(waiting)
        assert Path(f"{gate}.left").exists()
    assert lobby.pool.started == 2


def big_record(hands: int) -> bytes:
    match = gongzhu.load_rules().new_match(7, hands=hands)
    while not match.is_over:
        hand = match.new_hand()
        while not hand.is_over:
            hand.apply(hand.legal_actions()[0])
        match.record_hand(hand)
    return json.dumps(match.to_record()).encode()


def test_a_big_replay_delays_no_table() -> None:
    body = big_record(1100)
    assert 3 * 1024 * 1024 < len(body) < 4 * 1024 * 1024
    lobby = Lobby(Settings(workers=2))
    with ServerThread(lobby) as server:
        table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=5)
        host, port = server.url.removeprefix("http://").split(":")
        answered: list[int] = []
        at_answer: list[int] = []
        result: dict[str, Any] = {}
        started = threading.Event()

        def replay() -> None:
            connection = http.client.HTTPConnection(host, int(port), timeout=60)
            connection.putrequest("POST", "/api/replay")
            connection.putheader("Content-Type", "application/json")
            connection.putheader("Content-Length", str(len(body)))
            connection.endheaders()
            connection.send(body)
            started.set()
            response = connection.getresponse()  # the headers: the replay is done
            at_answer.append(len(answered))
            result["status"] = response.status
            result["data"] = json.loads(response.read())

        with connect(ws_url(server, table.seats[0].token), open_timeout=10) as ws:
            current = state(ws)
            replaying = threading.Thread(target=replay, daemon=True)
            replaying.start()
            started.wait(30)
            while current["phase"] != "over" and not at_answer:
                if current["to_move"] == 0:
                    ws.send(json.dumps({"type": "action", "action": current["legal"][0]}))
                    current = state(ws)
                    answered.append(len(answered))
                else:
                    current = state(ws)
            replaying.join(60)
    assert result["status"] == 200 and len(result["data"]["hands"]) == 1100
    assert at_answer and at_answer[0] >= 5, (at_answer, len(answered))


def test_a_decision_does_not_depend_on_where_it_is_made() -> None:
    rules = gongzhu.load_rules("huapai", "anmai")
    hand = rules.new_hand(seed=3)
    for _ in range(9):
        hand.apply(hand.legal_actions()[0])
    seat = hand.to_move
    assert seat is not None
    texts = tuple(str(action) for _, action in hand.history)
    seed = decision_seed(99, seat, 1, len(texts))
    turn = BotTurn(
        "random",
        seed,
        seat,
        ("t", 1),
        tuple(str(card) for card in hand.deal.order),
        hand.deal.first_seat,
        hand.explicit_leader,
        texts,
    )
    # the bot, given the seat's own view here, decides as it does from the turn anywhere
    direct = str(make_bot("random", seed, rules=rules).choose(hand.view(seat)))
    assert run_job("bot", (rules, turn)) == direct

    async def in_workers() -> list[str]:
        pool = Pool(2)
        try:
            return list(await asyncio.gather(*(pool.choose(rules, turn) for _ in range(6))))
        finally:
            await pool.close()

    assert asyncio.run(in_workers()) == [direct] * 6
    assert decision_seed(99, 1, 1, 0) != decision_seed(99, 1, 1, 1)

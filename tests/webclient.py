"""What the web tests' clients do and read: a person at a seat of a real server, on a
thread, and the cards a ``state`` message names."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]


class Player(threading.Thread):
    """A person at a seat, on a thread: the first legal action at each turn, and seat 0
    deals the next hand; it stops acting once ``stop(state)`` holds (``reached`` is
    set then; ``last`` is the last state; ``halt`` ends the thread).

    :param url: the seat's websocket address, ``ws://host:port/ws/TOKEN``.
    """

    def __init__(self, url: str, seat: int, stop: Callable[[Message], bool]) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.seat = seat
        self.stop = stop
        self.last: Message | None = None
        self.reached = threading.Event()
        self.halt = threading.Event()
        self.start()

    def run(self) -> None:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        with connect(self.url, open_timeout=10, max_queue=None) as ws:
            while not self.halt.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.1))
                except TimeoutError:
                    continue
                except ConnectionClosed:
                    return
                if message["type"] != "state":
                    continue
                self.last = message
                if self.stop(message):
                    self.reached.set()
                elif message["phase"] == "over" and message["can_deal"] and self.seat == 0:
                    ws.send(json.dumps({"type": "next"}))
                elif message["to_move"] == self.seat:
                    action = {"action": message["legal"][0], "hand": message["number"]}
                    ws.send(json.dumps({"type": "action", **action}))


def cards_named(message: Message) -> set[str]:
    """Every card a ``state`` message names, apart from its score sheet."""
    found: set[str] = set(message["holding"])
    found.update(card for action in message["legal"] for card in action.split()[1:])
    for play in message["current_trick"]:
        found.update(play["cards"])
    for trick in message["tricks"]:
        for play in trick["plays"]:
            found.update(play["cards"])
    for show in message["shows"]:
        found.update(show["cards"] or ())
    found.discard("-")
    return found


def public_cards(message: Message) -> set[str]:
    """The cards every seat has seen: played, and shown openly (a secret sale is not)."""
    public = {c for t in message["tricks"] for p in t["plays"] for c in p["cards"]}
    public |= {c for p in message["current_trick"] for c in p["cards"]}
    public |= {c for s in message["shows"] if s["kind"] != "secret" for c in s["cards"] or ()}
    return public

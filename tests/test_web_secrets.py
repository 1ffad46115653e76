"""Nothing that reveals a deal reaches a seat before the match is over.

The review's finding 1: ``/record/<seat link>/match.json`` was served mid-match
with the match's seed, from which every deal follows.  Here a real server on
127.0.0.1 plays a three-hand match with two people; everything seat 0 is sent
(every websocket message) and every route it can fetch, at every one of its
turns, is searched for the match's seed, any hand's seed, any deal but those
of finished hands, another seat's cards and the other person's link.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from websockets.sync.client import connect

import gongzhu
from gongzhu.web.app import STATIC
from gongzhu.web.lobby import Lobby
from gongzhu.web.serve import ServerThread
from gongzhu.web.settings import Settings

from .webclient import cards_named, public_cards

pytestmark = pytest.mark.one_engine

HANDS = 3


@pytest.fixture
def server() -> Iterator[ServerThread]:
    # it fetches every route at every turn: far faster than the rate limits allow a client
    settings = Settings(
        workers=0, client_rate=10**5, client_burst=10**5, message_rate=10**5, message_burst=10**5
    )
    with ServerThread(Lobby(settings)) as running:
        yield running


def routes_of(server: ServerThread) -> set[str]:
    """The paths the application serves."""
    app: Any = server.server.config.app
    return {getattr(route, "path", "") for route in app.routes}


class Fetcher:
    """GET requests to the server over one connection."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=30)

    def get(self, path: str) -> tuple[int, str]:
        self.connection.request("GET", path)
        response = self.connection.getresponse()
        return response.status, response.read().decode("utf-8")


def play_seat(url: str, token: str, seat: int, stop: threading.Event) -> None:
    """Another person: plays the first legal action, deals on, until the match is over."""
    with connect(f"{url.replace('http', 'ws')}/ws/{token}", open_timeout=10, max_queue=None) as ws:
        while not stop.is_set():
            try:
                message = json.loads(ws.recv(timeout=0.5))
            except TimeoutError:
                continue
            if message["type"] != "state":
                continue
            if message["match"]["over"]:
                return
            if message["to_move"] == seat:
                ws.send(json.dumps({"type": "action", "action": message["legal"][0]}))


def test_no_message_and_no_route_reveals_a_deal_before_the_match_is_over(
    server: ServerThread,
) -> None:
    lobby = server.lobby
    table = lobby.open_table(
        ["huapai", "anmai"], ["human", "heuristic", "human", "random"], hands=HANDS, seed=2026
    )
    rules = table.rules
    # the secrets: the match's seed, every hand's seed (as the match draws them), every deal
    seeds = random.Random(table.match.seed)
    hand_seeds = [seeds.randrange(2**63) for _ in range(HANDS)]
    deals = [rules.new_hand(seed) for seed in hand_seeds]
    assert table.hand.deal.order == deals[0].deal.order
    secrets = {str(table.match.seed), *map(str, hand_seeds), table.seats[2].token}
    token = table.seats[0].token
    assert set(routes_of(server)) == {
        "/",
        "/play/{token}",
        "/viewer",
        "/api/info",
        "/api/tables",
        "/api/replay",
        "/record/{token}/match.json",
        "/record/{token}/{number}.json",
        "/healthz",
        "/metrics",
        "/favicon.ico",
        "/ws/{token}",
        "/static",
    }, "a new route: add it to this test"
    statics = sorted(f"/static/{path.name}" for path in STATIC.iterdir())
    fetcher = Fetcher(server.url)

    def check_text(text: str, where: str) -> None:
        leaked = [secret for secret in secrets if secret in text]
        assert not leaked, f"{where} reveals {leaked}"

    def check_routes(finished: int) -> None:
        for path in [
            *("/", f"/play/{token}", "/viewer", "/api/info", "/healthz", "/metrics"),
            *("/favicon.ico", *statics),
        ]:
            status, text = fetcher.get(path)
            assert status == 200, path
            check_text(text, path)
        status, text = fetcher.get(f"/record/{token}/match.json")
        check_text(text, "match.json")
        assert status == 200
        match = json.loads(text)
        assert match["seed"] is None and len(match["hands"]) == finished
        for number in range(1, HANDS + 2):
            status, text = fetcher.get(f"/record/{token}/{number}.json")
            check_text(text, f"{number}.json")
            if number > finished:
                assert status == 404 and json.loads(text)["code"] == "no-record"
                continue
            record = json.loads(text)
            assert record["seed"] is None
            assert record["deal"] == [str(c) for c in deals[number - 1].deal.order]
            assert record == match["hands"][number - 1]
            assert gongzhu.replay(record).is_over

    stop = threading.Event()
    other = threading.Thread(
        target=play_seat, args=(server.url, table.seats[2].token, 2, stop), daemon=True
    )
    other.start()
    seen = 0
    try:
        with connect(
            f"{server.url.replace('http', 'ws')}/ws/{token}", open_timeout=10, max_queue=None
        ) as ws:
            while True:
                text = ws.recv(timeout=30)
                assert isinstance(text, str)
                seen += 1
                check_text(text, "a websocket message")
                message = json.loads(text)
                if message["type"] != "state":
                    continue
                number = message["number"]
                if message["match"]["over"]:
                    break
                if message["phase"] != "over":  # the hand under way: only seat 0's own cards
                    dealt = {str(c) for c in deals[number - 1].dealt(0)}
                    assert set(message["holding"]) <= dealt
                    assert cards_named(message) <= dealt | public_cards(message), message
                    for show in message["shows"]:
                        if show["kind"] == "secret" and show["seat"] != 0:
                            assert show["cards"] is None
                if message["to_move"] == 0:
                    check_routes(message["records"])
                    ws.send(json.dumps({"type": "action", "action": message["legal"][0]}))
                elif message["can_deal"]:
                    check_routes(message["records"])
                    ws.send(json.dumps({"type": "next"}))
    finally:
        stop.set()
        other.join(10)
    assert seen > 30 and table.match.is_over
    # once the match is over, its record is whole: the seeds replay every deal
    status, text = fetcher.get(f"/record/{token}/match.json")
    match = json.loads(text)
    assert status == 200 and match["seed"] == table.match.seed
    played = len(table.match.hands)  # huapai may end the match before HANDS hands
    assert 1 <= played <= HANDS and len(match["hands"]) == played
    assert [hand["seed"] for hand in match["hands"]] == hand_seeds[:played]
    assert gongzhu.replay_match(match).totals == table.match.totals

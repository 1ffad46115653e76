"""The web server without a browser: the websocket protocol and the JSON API (TestClient)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx: pip install '.[web]'")

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its TestClient
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

import gongzhu
from gongzhu.record import match_record
from gongzhu.web.app import create_app
from gongzhu.web.lobby import Lobby
from gongzhu.web.settings import Settings
from gongzhu.web.table import Table

from .webclient import cards_named, public_cards

pytestmark = [
    pytest.mark.one_engine,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # TestClient on httpx
]

Message = dict[str, Any]
JSON = {"content-type": "application/json"}


@pytest.fixture
def lobby() -> Lobby:
    # the bots think on threads (no worker processes here); the tests play faster than people
    return Lobby(Settings(workers=0, message_rate=1000, message_burst=1000, client_burst=1000))


@pytest.fixture
def client(lobby: Lobby) -> Iterator[TestClient]:
    with TestClient(create_app(lobby)) as client:
        yield client


def open_table(lobby: Lobby, players: str, *names: str, **kwargs: Any) -> Table:
    kwargs.setdefault("seed", 3)
    return lobby.open_table(list(names), players.split(","), **kwargs)


def connect(client: TestClient, table: Table, seat: int, query: str = "") -> WebSocketTestSession:
    return client.websocket_connect(f"/ws/{table.seats[seat].token}{query}")


def until(ws: WebSocketTestSession, done: Any) -> Message:
    """Receive states until ``done(state)``; an error message fails the test."""
    for _ in range(500):
        message = ws.receive_json()
        assert message["type"] == "state", message
        if done(message):
            return message
    raise AssertionError("no such state")  # pragma: no cover


def my_turn_or_over(seat: int) -> Any:
    return lambda m: m["to_move"] == seat or m["phase"] == "over"


def play_out(
    ws: WebSocketTestSession,
    seat: int,
    seen: list[Message] | None = None,
    state: Message | None = None,
) -> Message:
    """Play ``seat``'s first legal action at every turn until the hand is over.

    ``state`` is the last state received, when the test has already read it.
    """
    while True:
        if state is None:
            state = until(ws, lambda m: True)
            if seen is not None:
                seen.append(state)
        if state["phase"] == "over":
            return state
        if state["to_move"] == seat:
            ws.send_json({"type": "action", "action": state["legal"][0]})
        state = None


def error_after(ws: WebSocketTestSession, payload: str | bytes) -> Message:
    if isinstance(payload, bytes):
        ws.send_bytes(payload)
    else:
        ws.send_text(payload)
    message = ws.receive_json()
    while message["type"] == "state":  # states broadcast before the refusal
        message = ws.receive_json()
    assert message["type"] == "error", message
    return message


def other_than_state(ws: WebSocketTestSession) -> Message:
    """The next message that is not a state (states are broadcast after every action)."""
    message = ws.receive_json()
    while message["type"] == "state":
        message = ws.receive_json()
    return message


# -- what a seat is sent -----------------------------------------------------------------------


def test_a_seat_sees_only_its_own_cards_and_no_one_elses_secret_sale(
    client: TestClient, lobby: Lobby
) -> None:
    # seed 2: seats 2 and 3's random bots sell ♦J and ♣10 secretly (暗卖)
    table = open_table(lobby, "human,random,random,random", "huapai", "anmai", seed=2)
    seen: list[Message] = []
    with connect(client, table, 0) as ws:
        final = play_out(ws, 0, seen)
    hand = table.match.hands[0]
    dealt = {str(c) for c in hand.dealt(0)}
    secret = [s for s in hand.show_records if s.kind.value == "secret" and s.seat != 0]
    assert secret, "the deal is meant to have another seat's secret sale"
    for message in seen:
        if message["phase"] == "over":
            continue
        assert set(message["holding"]) <= dealt
        assert cards_named(message) <= dealt | public_cards(message), message
        for show in message["shows"]:
            if show["kind"] == "secret" and show["seat"] != 0:
                assert show["cards"] is None and show["count"] >= 1
        if message["to_move"] != 0:
            assert message["legal"] == []
    assert final["sheet"]["final"] == list(hand.score().final)
    assert any(s["kind"] == "secret" and s["cards"] is None for s in final["shows"])


def test_state_is_the_engine_view_of_that_seat(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,human,first", "39baobao")
    with connect(client, table, 0) as zero, connect(client, table, 2) as two:
        state = until(zero, lambda m: m["seats"][2]["connected"])
        other = until(two, lambda m: True)
        view = table.hand.view(0)
        assert state["holding"] == [str(c) for c in view.holding]
        assert other["holding"] == [str(c) for c in table.hand.view(2).holding]
        assert not set(state["holding"]) & set(other["holding"])
        assert state["seats"][1] == {"seat": 1, "player": "bot", "bot": "first", "connected": True}


# -- refusals ------------------------------------------------------------------------------------


def test_an_action_out_of_turn_is_refused_with_whose_turn_it_is(
    client: TestClient, lobby: Lobby
) -> None:
    table = open_table(lobby, "human,human,first,first", "39baobao")
    with connect(client, table, 0) as zero, connect(client, table, 1) as one:
        # a person's turn: the bots have stopped, so the other person's turn cannot come
        state = until(zero, lambda m: m["seats"][1]["connected"] and m["to_move"] in (0, 1))
        waiting = 1 if state["to_move"] == 0 else 0
        ws = one if waiting == 1 else zero
        before = table.hand.history
        reply = error_after(ws, json.dumps({"type": "action", "action": "show -"}))
        assert reply["code"] == "not-your-turn"
        assert (
            f"it is seat {state['to_move']}'s turn, not yours (seat {waiting})" in reply["message"]
        )
        assert table.hand.history == before


def test_an_illegal_play_gets_the_engines_explanation(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao", seed=5)
    with connect(client, table, 0) as ws:
        state = until(ws, my_turn_or_over(0))
        while state["phase"] != "play" or len(state["legal"]) == len(state["holding"]):
            ws.send_json({"type": "action", "action": state["legal"][0]})
            state = until(ws, my_turn_or_over(0))
            assert state["phase"] != "over"
        card = next(c for c in state["holding"] if f"play {c}" not in state["legal"])
        with pytest.raises(gongzhu.errors.IllegalAction) as engine:
            table.hand.clone().apply(gongzhu.Play.parse(card))
        reply = error_after(ws, json.dumps({"type": "action", "action": f"play {card}"}))
        assert reply["code"] == "illegal-action"
        assert reply["message"] == str(engine.value)
        assert reply["rule"] == engine.value.rule
        assert reply["refusal"] == engine.value.refusal.rule
        not_held = json.dumps({"type": "action", "action": f"play {_not_held(state)}"})
        held = error_after(ws, not_held)
        assert held["code"] == "illegal-action" and held["refusal"] == "holding"
        ws.send_json({"type": "action", "action": state["legal"][0]})  # the table goes on
        assert until(ws, lambda m: True)["holding_sizes"][0] == len(state["holding"]) - 1


def _not_held(state: Message) -> str:
    everyone = {str(c) for c in gongzhu.full_deck()}
    return sorted(everyone - set(state["holding"]))[0]


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        ("{oops", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "dance"}', "unknown message type 'dance'"),
        ('{"type": "action"}', '"action" text'),
        ('{"type": "action", "action": 7}', '"action" text'),
        ('{"type": "action", "action": "play -", "hand": "one"}', '"hand"'),
        (b"\x00\x01", "not binary"),
        ('{"type": "ping", "x": "' + "y" * 5000 + '"}', "longer than"),
    ],
)
def test_a_malformed_message_gets_an_error_and_the_table_goes_on(
    client: TestClient, lobby: Lobby, payload: str | bytes, words: str
) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao")
    with connect(client, table, 0) as ws:
        state = until(ws, my_turn_or_over(0))
        reply = error_after(ws, payload)
        assert reply["code"] == "bad-message"
        assert words in reply["message"]
        ws.send_json({"type": "ping"})
        assert other_than_state(ws) == {"type": "pong"}
        assert play_out(ws, 0, state=state)["phase"] == "over"


def test_unreadable_action_text_and_a_stale_hand_are_refused(
    client: TestClient, lobby: Lobby
) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao")
    with connect(client, table, 0) as ws:
        until(ws, my_turn_or_over(0))
        reply = error_after(ws, '{"type": "action", "action": "play ZZ"}')
        assert reply["code"] == "bad-action" and "ZZ" in reply["message"]
        reply = error_after(ws, '{"type": "action", "action": "show -", "hand": 2}')
        assert reply["code"] == "stale-hand"
        assert error_after(ws, '{"type": "next"}')["code"] == "hand-not-over"


# -- links, connections ------------------------------------------------------------------------


def test_a_seat_link_used_twice_is_refused_unless_taken_over(
    client: TestClient, lobby: Lobby
) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao")
    with connect(client, table, 0) as first:
        until(first, lambda m: True)
        with connect(client, table, 0) as second:
            reply = second.receive_json()
            assert reply["code"] == "seat-taken"
            assert "already open in another window" in reply["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                second.receive_json()
            assert closed.value.code == 4409
        first.send_json({"type": "ping"})  # the first window keeps its seat
        assert other_than_state(first) == {"type": "pong"}
        with connect(client, table, 0, "?takeover=1") as third:
            assert other_than_state(first)["code"] == "taken-over"
            state = until(third, lambda m: True)
            assert state["seat"] == 0 and state["seats"][0]["connected"]
            assert table.seats[0].connection is not None


def test_the_same_page_reconnecting_takes_its_seat_back_and_another_page_may_not(
    client: TestClient, lobby: Lobby
) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao")
    with connect(client, table, 0, "?client=page-1") as stale:
        until(stale, lambda m: True)
        held = table.seats[0].link
        with connect(client, table, 0, "?client=page-2") as other:
            assert other.receive_json()["code"] == "seat-taken"
        assert table.seats[0].link is held
        # the page's old socket still holds the seat (a network change): no question asked
        with connect(client, table, 0, "?client=page-1") as again:
            state = until(again, lambda m: True)
            assert state["seat"] == 0 and table.seats[0].link is not held
            assert table.seats[0].page == "page-1"
            again.send_json({"type": "ping"})
            assert other_than_state(again) == {"type": "pong"}


def test_an_unknown_link_or_a_bots_seat_is_refused(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao")
    with client.websocket_connect("/ws/not-a-token") as ws:
        assert ws.receive_json()["code"] == "unknown-seat"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404
    with connect(client, table, 1) as ws:
        assert ws.receive_json()["code"] == "bot-seat"


def test_reconnecting_restores_the_seat(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao")
    with connect(client, table, 0) as ws:
        for _ in range(6):
            state = until(ws, my_turn_or_over(0))
            ws.send_json({"type": "action", "action": state["legal"][0]})
        before = until(ws, my_turn_or_over(0))
    assert table.seats[0].connection is None
    with connect(client, table, 0) as ws:
        after = until(ws, lambda m: True)
        assert after == before
        assert play_out(ws, 0, state=after)["phase"] == "over"


def test_a_socket_closed_mid_hand_loses_nothing(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,human,first", "39baobao", seed=8)

    def take_turn(state: Message, sockets: dict[int, WebSocketTestSession]) -> None:
        if state["to_move"] in sockets:  # the engine's first legal action for that seat
            action = str(table.hand.legal_actions()[0])
            sockets[state["to_move"]].send_json({"type": "action", "action": action})

    with connect(client, table, 2) as two:
        with connect(client, table, 0) as zero:
            state = until(zero, lambda m: m["seats"][2]["connected"])
            while state["phase"] != "play":  # both people take turns until the play
                take_turn(state, {0: zero, 2: two})
                state = until(zero, lambda m: True)
            played = table.hand.history
        # seat 0's socket closed mid-hand: seat 2 is told, the table keeps its state
        seen = until(two, lambda m: m["phase"] == "play" and not m["seats"][0]["connected"])
        assert table.hand.history[: len(played)] == played
        assert seen["number"] == 1
        with connect(client, table, 0) as zero:
            state = until(zero, lambda m: True)
            assert state["number"] == 1 and state["tricks"][: len(seen["tricks"])] == seen["tricks"]
            while state["phase"] != "over":
                take_turn(state, {0: zero, 2: two})
                state = until(zero, lambda m: True)
    assert table.match.hands and table.match.hands[0].is_over


# -- hands, matches and records ---------------------------------------------------------------


def test_a_finished_hands_record_can_be_downloaded(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,heuristic,random,first", "huapai")
    token = table.seats[0].token
    missing = client.get(f"/record/{token}/1.json")
    assert missing.status_code == 404 and missing.json()["code"] == "no-record"
    with connect(client, table, 0) as ws:
        final = play_out(ws, 0)
    assert final["records"] == 1 and final["sheet"] is not None
    response = client.get(f"/record/{token}/1.json")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    record = response.json()
    assert record == table.match.hands[0].to_record()
    assert gongzhu.replay(record).score().final == tuple(final["sheet"]["final"])
    match = client.get(f"/record/{token}/match.json").json()
    assert gongzhu.replay_match(match).totals == final["match"]["totals"]
    assert client.get("/record/nobody/1.json").status_code == 404


def test_a_match_deals_hand_after_hand_until_it_is_over(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,first,first", "39baobao", hands=2)
    with connect(client, table, 0) as ws:
        first = play_out(ws, 0)
        assert first["can_deal"] and not first["match"]["over"]
        ws.send_json({"type": "next"})
        state = until(ws, lambda m: m["number"] == 2)
        assert state["sheet"] is None and state["phase"] != "over"
        second = play_out(ws, 0, state=state)
        assert second["match"]["over"] and not second["can_deal"]
        assert second["match"]["losers"] == list(table.match.losers)
        # the match's record, kept hand by hand, is the one gongzhu.record writes
        assert table.full_match_record() == match_record(table.match)
        assert client.get(f"/record/{table.seats[0].token}/match.json").json() == (
            match_record(table.match)
        )
        assert error_after(ws, '{"type": "next"}')["code"] == "match-over"
        assert error_after(ws, '{"type": "action", "action": "play 2C"}')["code"] == "hand-over"


def test_two_deck_pairs_are_played_through_the_socket(client: TestClient, lobby: Lobby) -> None:
    table = open_table(lobby, "human,first,first,first", "two-deck")
    with connect(client, table, 0) as ws:
        state = play_out(ws, 0)
    assert len(state["sheet"]["final"]) == 4


# -- the JSON API and the pages ----------------------------------------------------------------


def test_opening_a_table_returns_a_link_per_person(client: TestClient) -> None:
    answer = client.post(
        "/api/tables",
        json={"rules": ["huapai", "anmai"], "seats": ["human", "random", "human", "search"]},
    )
    assert answer.status_code == 200
    seats = answer.json()["seats"]
    assert [s["link"] is not None for s in seats] == [True, False, True, False]
    assert client.get(seats[0]["link"]).status_code == 200


@pytest.mark.parametrize(
    ("request_body", "words"),
    [
        ({"rules": ["no-such-rules"], "seats": ["human"] * 4}, "no gongzhu variant named"),
        ({"seats": ["human", "nobody", "random", "random"]}, "no gongzhu bot named 'nobody'"),
        ({"seats": ["random"] * 4}, "at least one person"),
        ({"seats": ["human"] * 3}, "four players"),
        ({"seats": ["human"] * 4, "hands": 0}, "whole number from 1 to 100"),
        ({"seats": ["human"] * 4, "hands": 10**30}, "whole number from 1 to 100"),
        ({"seats": ["human"] * 4, "seed": -1}, "whole number from 0 to"),
        ({"seats": ["human"] * 4, "target": True}, '"target" must be a whole number'),
        ({"seats": ["human"] * 4, "hands": None}, "give a number of hands or a target"),
        ({"seats": ["human"] * 4, "options": {"nope": 1}}, "nope"),
        ([1, 2], "JSON object"),
    ],
)
def test_a_bad_table_request_says_what_is_wrong(
    client: TestClient, request_body: Any, words: str
) -> None:
    answer = client.post("/api/tables", json=request_body)
    assert answer.status_code == 400
    assert answer.json()["code"] == "bad-table"
    assert words in answer.json()["message"]
    bad = client.post("/api/tables", content=b"{oops", headers=JSON)
    assert bad.status_code == 400 and bad.json()["message"] == "send the table as JSON"


def test_the_viewer_api_checks_records(client: TestClient) -> None:
    rules = gongzhu.load_rules()
    hand = rules.new_hand(seed=4)
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    data = client.post("/api/replay", json=hand.to_record()).json()
    assert data["kind"] == "hand" and len(data["hands"][0]["tricks"]) == 13
    assert data["hands"][0]["dealt"][0] == [str(c) for c in hand.dealt(0)]
    assert data["hands"][0]["sheet"]["explain"][0] == hand.score().explain(0)
    record = hand.to_record()
    record["actions"][20]["action"] = "play 2C"
    bad = client.post("/api/replay", json=record)
    assert bad.status_code == 400 and "action 20" in bad.json()["message"]
    not_json = client.post("/api/replay", content=b"nope", headers=JSON)
    assert not_json.status_code == 400 and not_json.json()["message"] == "the file is not JSON"
    match = rules.new_match(2, hands=2)
    from gongzhu.bots import make_bot

    match.play([make_bot("first")] * 4)
    data = client.post("/api/replay", json=match.to_record()).json()
    assert data["kind"] == "match" and len(data["hands"]) == 2
    assert data["totals"] == match.totals


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/", "text/html"),
        ("/play/anything", "text/html"),
        ("/viewer", "text/html"),
        ("/static/table.js", "javascript"),
        ("/static/style.css", "text/css"),
        ("/api/info", "application/json"),
    ],
)
def test_the_pages_are_served(client: TestClient, path: str, kind: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert kind in response.headers["content-type"]


def test_the_info_lists_variants_and_bots(client: TestClient) -> None:
    info = client.get("/api/info").json()
    names = {v["name"] for v in info["variants"]}
    assert {"39baobao", "huapai", "anmai", "two-deck"} <= names
    assert "heuristic" in info["bots"] and info["person"] == "human"

"""The server's database: tables, tokens, actions and records survive a restart.

The review's finding 9 (a restart lost everything, finished records
included) is closed here for a server stopped and started again on the same
database; ``tests/test_web_cli.py`` kills ``gongzhu serve`` with ``SIGKILL``
mid-hand.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")


import gongzhu
from gongzhu.errors import GongzhuError
from gongzhu.web.lobby import Lobby
from gongzhu.web.protocol import ProtocolError
from gongzhu.web.serve import ServerThread
from gongzhu.web.settings import Settings
from gongzhu.web.store import SCHEMA_VERSION, Store, StoreError
from gongzhu.web.table import Table

from .test_web_limits import Listener
from .webclient import Player

pytestmark = pytest.mark.one_engine

Message = dict[str, Any]
VIEW = ("number", "phase", "to_move", "holding", "legal", "shows", "tricks", "current_trick")


def view_of(state: Message) -> dict[str, Any]:
    """What a state says of the hand (not who is connected)."""
    return {name: state[name] for name in VIEW} | {"totals": state["match"]["totals"]}


def ws_url(server: ServerThread, token: str) -> str:
    return f"{server.url.replace('http', 'ws')}/ws/{token}"


def play(server: ServerThread, tokens: list[str], stop: Any) -> Message:
    """Seats 0 and 2 play until seat 0 sees ``stop(state)``; its last state."""
    players = [Player(ws_url(server, tokens[seat]), seat, stop) for seat in (0, 2)]
    assert players[0].reached.wait(60), "the match did not get there"
    for player in players:
        player.halt.set()
        player.join(10)
    assert players[0].last is not None
    return players[0].last


def open_match(lobby: Lobby) -> Table:
    return lobby.open_table(
        ["39baobao"], ["human", "heuristic", "human", "random"], seed=11, hands=2
    )


def mid_second_hand(state: Message) -> bool:
    """Seat 0's turn in the second hand, after three tricks (nothing moves until it acts)."""
    return state["number"] == 2 and len(state["tricks"]) >= 3 and state["to_move"] == 0


def match_over(state: Message) -> bool:
    return bool(state["match"]["over"])


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "tables.sqlite3"


def test_a_restart_rebuilds_the_open_tables_and_their_links_play_on(database: Path) -> None:
    settings = Settings(workers=0)
    store = Store.open(database)
    lobby = Lobby(settings, store=store)
    table = open_match(lobby)
    tokens = [seat.token for seat in table.seats]
    with ServerThread(lobby) as server:
        before = play(server, tokens, mid_second_hand)
        record = lobby.hand_record(tokens[0], 1)[1]
    store.close()

    # a new server, a new lobby: the database's tables come back, with the same links
    store = Store.open(database)
    lobby = Lobby(settings, store=store)
    rebuilt = lobby.restore()
    assert [t.id for t in rebuilt] == [table.id]
    assert [seat.token for seat in rebuilt[0].seats] == tokens
    with ServerThread(lobby) as server:
        after = play(server, tokens, lambda state: True)  # the first state: nobody acts
        assert view_of(after) == view_of(before)
        assert lobby.hand_record(tokens[0], 1)[1] == record
        final = play(server, tokens, match_over)
    match = lobby.match_record(tokens[0])[1]
    store.close()

    # the same match, played without a restart, ends the same: bots' decisions are
    # seeded by the match, the hand and the step, not by the process that made them
    plain = Lobby(settings)
    same = open_match(plain)
    with ServerThread(plain) as server:
        play(server, [seat.token for seat in same.seats], match_over)
    assert match["totals"] == final["match"]["totals"] == same.match.totals
    assert [h["actions"] for h in match["hands"]] == [h["actions"] for h in same.records]
    assert gongzhu.replay_match(match).totals == same.match.totals


def test_a_closed_table_is_not_rebuilt(database: Path) -> None:
    store = Store.open(database)
    lobby = Lobby(Settings(workers=0), store=store)
    kept = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1)
    gone = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=2)
    lobby._remove(gone)
    store.close()
    store = Store.open(database)
    again = Lobby(Settings(workers=0), store=store)
    assert [table.id for table in again.restore()] == [kept.id]
    with pytest.raises(GongzhuError, match="closed"):
        again.find(gone.seats[0].token)
    store.close()


def test_a_table_joined_before_a_restart_is_not_closed_as_one_nobody_joined(
    database: Path,
) -> None:
    """A person who opened their link and waits to act keeps the table through a restart:
    the join is written, not only the steps."""
    settings = Settings(workers=0, keep_unjoined=30)
    store = Store.open(database)
    lobby = Lobby(settings, store=store)
    humans = ["human"] * 4  # no bot: nothing is played until a person acts
    joined = lobby.open_table(["39baobao"], humans, seed=1)
    unjoined = lobby.open_table(["39baobao"], humans, seed=2)

    async def come_and_wait() -> None:
        listener = Listener()
        await joined.connect(0, listener)
        await joined.disconnect(0, listener)

    asyncio.run(come_and_wait())
    assert joined.steps == 0
    store.close()
    store = Store.open(database)
    again = Lobby(settings, store=store)
    rebuilt = {table.id: table for table in again.restore()}
    assert rebuilt[joined.id].joined and not rebuilt[unjoined.id].joined
    assert again.sweep(max(joined.created, unjoined.created) + 30) == [unjoined.id]
    store.close()


def test_every_step_is_committed_before_anyone_is_told(database: Path) -> None:
    store = Store.open(database)
    lobby = Lobby(Settings(workers=0), store=store)
    table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=3)
    told: list[tuple[int, int, bool]] = []

    class Watcher:
        """A connection that notes, when it is told a state, what the database holds."""

        async def send_json(self, data: Any) -> None:
            committed = not store._db.in_transaction
            told.append((data["number"], store.counts()["steps"], committed))

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            pass

    async def scenario() -> None:
        await table.connect(0, Watcher())
        while not table.hand.is_over:
            if table.hand.to_move == 0:
                await table.act(0, str(table.hand.legal_actions()[0]))
            await table.wait_for_bots()
            await asyncio.sleep(0)

    asyncio.run(scenario())
    store.close()
    with closing(sqlite3.connect(database)) as db:
        steps = [action for (action,) in db.execute("SELECT action FROM steps ORDER BY step")]
        record = db.execute("SELECT record FROM records").fetchone()[0]
    assert steps == [str(action) for _, action in table.hand.history]
    assert json.loads(record) == table.hand.to_record()
    assert told and all(committed for _, _, committed in told)
    assert told[-1][1] == len(steps)


def test_a_file_that_is_not_a_servers_database_is_refused_and_left_as_it_is(
    tmp_path: Path,
) -> None:
    text = tmp_path / "notes.txt"
    text.write_bytes(b"my notes, not a database\n" * 10)
    other = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(other)) as db, db:
        db.execute("CREATE TABLE accounts (name TEXT)")
        db.execute("INSERT INTO accounts VALUES ('mine')")
    for path, words in [(text, "not SQLite"), (other, "another program's")]:
        before = path.read_bytes()
        with pytest.raises(StoreError, match=words):
            Store.open(path)
        assert path.read_bytes() == before
        assert not Path(f"{path}-wal").exists()


def test_a_newer_database_is_refused(database: Path) -> None:
    Store.open(database).close()
    with closing(sqlite3.connect(database)) as db:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    before = database.read_bytes()
    with pytest.raises(StoreError, match="newer gongzhu"):
        Store.open(database)
    assert database.read_bytes() == before


def test_a_database_is_held_by_one_server_at_a_time(database: Path) -> None:
    store = Store.open(database)
    failures: list[Exception] = []

    def second() -> None:
        try:
            Store.open(database)
        except StoreError as exc:
            failures.append(exc)

    thread = threading.Thread(target=second)
    thread.start()
    thread.join(20)
    assert failures and "in use by another gongzhu serve" in str(failures[0])
    store.close()
    Store.open(database).close()  # free again


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")
def test_a_new_database_and_its_folder_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "data" / "gongzhu" / "serve.sqlite3"
    store = Store.open(path)
    lobby = Lobby(Settings(workers=0), store=store)
    lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=3)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds the seeds and seat tokens
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    for log in path.parent.glob("serve.sqlite3-*"):
        assert stat.S_IMODE(log.stat().st_mode) == 0o600, log
    store.close()


@pytest.mark.parametrize(
    "damage",
    [
        "not json {",
        "{}",
        '{"rules": ["39baobao"]}',
        '{"rules": {"variants": "39baobao"}}',
        '{"rules": {"variants": ["39baobao"], "options": {}}, "players": ["human"]}',
    ],
)
def test_a_damaged_table_is_left_out_and_the_others_come_back(
    database: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store.open(database)
    lobby = Lobby(Settings(workers=0), store=store)
    kept = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1)
    damaged = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=2)
    store.close()
    with closing(sqlite3.connect(database)) as db:
        db.execute("UPDATE tables SET spec = ? WHERE id = ?", (damage, damaged.id))
        db.commit()
    store = Store.open(database)
    again = Lobby(Settings(workers=0), store=store)
    assert [table.id for table in again.restore()] == [kept.id]
    assert f"table {damaged.id} cannot be rebuilt" in caplog.text
    store.close()


def test_a_table_of_more_hands_than_the_server_allows_is_not_rebuilt(database: Path) -> None:
    store = Store.open(database)
    lobby = Lobby(Settings(workers=0), store=store)
    table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1, hands=50)
    store.close()
    store = Store.open(database)
    assert Lobby(Settings(workers=0, max_hands=100), store=store).restore()[0].id == table.id
    store.close()
    store = Store.open(database)
    assert Lobby(Settings(workers=0, max_hands=10), store=store).restore() == []
    store.close()


def test_a_full_disk_refuses_new_tables_and_the_open_ones_play_on(
    database: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store.open(database)
    lobby = Lobby(Settings(workers=0), store=store)
    table = lobby.open_table(["39baobao"], ["human", "first", "first", "first"], seed=1)
    db = store._db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    filler = {  # rows that fill what room is left in each table's pages: the disk is full
        "tables": "(hex(randomblob(8)), '{}', NULL, 0, 0, 'closed')",
        "seats": "(hex(randomblob(16)), 'x', 0)",
        "steps": "('x', abs(random()), 0, 0, 'x', 0)",
        "records": "('x', abs(random()), 'x')",
    }
    for name, row in filler.items():
        with pytest.raises(sqlite3.OperationalError, match="full"):
            for _ in range(10_000):
                db.execute(f"INSERT INTO {name} VALUES {row}")

    with pytest.raises(ProtocolError) as refused:
        lobby.open_request({"rules": ["39baobao"], "seats": ["human", "first", "first", "first"]})
    assert refused.value.code == "server-full"
    assert "cannot keep another table" in refused.value.message

    async def finish() -> None:
        while not table.hand.is_over:
            if table.hand.to_move == 0:
                await table.act(0, str(table.hand.legal_actions()[0]))
            await table.wait_for_bots()

    caplog.clear()
    asyncio.run(finish())
    assert table.hand.is_over  # in memory
    tracebacks = [r for r in caplog.records if r.exc_info]
    unwritten = [r for r in caplog.records if "could not be written" in r.getMessage()]
    assert not tracebacks and len(unwritten) == 1  # one line, not one a step
    assert len(table.unwritten) == len(table.hand.history)  # kept, to be written
    store.close()

"""Issue 41: every table that knows its format tells the bots it seats.

The command line (``demo``, ``play``, ``simulate``, ``serve``: ``--format solo|2v2``), the
web table (a setting at its opening, kept across a restart) and the arena tell every bot
(:func:`gongzhu.bots.tell_format`); the Gymnasium environments tell their opponents 2-vs-2
with a team reward (``tests/test_envs_gymnasium.py``).  Each test seats ``rules`` bots,
which listen (their ``set_format`` is spied on), and checks the format each one heard.
"""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import gongzhu
from gongzhu.bots import RulesBot, TableFormat, make_bot, play_hand
from gongzhu.cli import main
from gongzhu.runner import Job, run

FORMATS = ("solo", "2v2")


Heard = dict[int, tuple[RulesBot, list[str]]]
Captured = pytest.CaptureFixture[str]


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Heard]:
    """Every ``rules`` bot's ``set_format`` calls, by bot: the formats' names (each bot kept,
    so that no two bots share an id)."""
    calls: Heard = {}
    original = RulesBot.set_format

    def spy(self: RulesBot, format: TableFormat) -> None:
        calls.setdefault(id(self), (self, []))[1].append(format.name)
        original(self, format)

    monkeypatch.setattr(RulesBot, "set_format", spy)
    yield calls


def told(heard: Heard) -> list[str]:
    """What each bot heard last, one entry a bot."""
    return [formats[-1] for _bot, formats in heard.values()]


# -- the command line --------------------------------------------------------------------------


@pytest.mark.parametrize("format", FORMATS)
def test_demo_tells_each_bot_the_format(format: str, heard: Heard, capsys: Captured) -> None:
    assert main(["demo", "--bots", "rules", "--seed", "1", "--format", format]) == 0
    assert told(heard) == [format] * 4
    out = capsys.readouterr().out
    assert ("Format: 2v2; seats 0 and 2 against 1 and 3" in out) == (format == "2v2")


def test_demo_without_a_format_seats_bots_each_for_itself(heard: Heard) -> None:
    assert main(["demo", "--bots", "rules", "--seed", "1"]) == 0
    assert told(heard) == ["solo"] * 4


@pytest.mark.parametrize("format", FORMATS)
def test_play_tells_the_bots_the_format(format: str, heard: Heard, capsys: Captured) -> None:
    args = ["play", "--bots", "rules", "--seat", "1", "--seed", "2", "--format", format]
    assert main(args, stdin=io.StringIO("q\n")) == 0
    assert told(heard) == [format] * 4  # a bot a seat is built; seat 1's is never asked
    assert ("your partner is seat 3" in capsys.readouterr().out) == (format == "2v2")


@pytest.mark.parametrize("format", FORMATS)
def test_simulate_tells_each_bot_the_format(format: str, heard: Heard, capsys: Captured) -> None:
    assert main(["simulate", "--bots", "rules", "--hands", "2", "--format", format]) == 0
    assert told(heard) == [format] * 8  # four bots a hand
    assert ("(2v2)" in capsys.readouterr().out) == (format == "2v2")


def test_a_simulation_plays_as_its_format_says() -> None:
    """The same hands, told 2-vs-2 or not: the rules bots play differently."""
    job = Job(variants=(), options=(), bots=("rules",) * 4, seed=1)
    solo = run(job, 6)
    teams = run(Job(variants=(), options=(), bots=("rules",) * 4, seed=1, format="2v2"), 6)
    assert solo.played == teams.played == 6 and solo.sums != teams.sums
    with pytest.raises(ValueError, match="solo, 2v2"):
        Job(variants=(), options=(), bots=("rules",) * 4, seed=1, format="1v3")


def _tricks(seed: int, format: str) -> list[str]:
    """The tricks of ``gongzhu demo --bots rules --seed S``'s hand, its bots told ``format``."""
    rules = gongzhu.load_rules()
    hand = rules.new_hand(seed)
    bots = [make_bot("rules", seed + 1 + seat, rules=rules, format=format) for seat in range(4)]
    play_hand(hand, bots)
    return [f"trick {n:>2}: {trick}" for n, trick in enumerate(hand.tricks, 1)]


def test_the_real_command_plays_2v2_when_told() -> None:
    """``gongzhu demo --format 2v2`` in a process of its own: its hand is the one of rules
    bots told 2-vs-2 (seed 1: not the hand of bots each for itself)."""
    command = ["demo", "--bots", "rules", "--seed", "1", "--format", "2v2"]
    run = subprocess.run(
        [sys.executable, "-m", "gongzhu", *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Format: 2v2; seats 0 and 2 against 1 and 3"
    tricks = [line for line in lines if line.startswith("trick ")]
    assert tricks == _tricks(1, "2v2") != _tricks(1, "solo")


@pytest.mark.parametrize("command", ["demo", "play", "simulate", "serve"])
def test_a_bad_format_is_one_line_and_status_2(command: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "gongzhu", command, "--format", "1v3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1, run.stderr
    assert "--format: invalid choice: '1v3' (choose from 'solo', '2v2')" in run.stderr


# -- the web table --------------------------------------------------------------------------


def _web_table(format: str | None, heard: Heard) -> list[str]:
    """What the bots of a web table opened with ``format`` heard over one hand."""
    pytest.importorskip("starlette")
    from gongzhu.web.lobby import Lobby
    from gongzhu.web.settings import Settings

    lobby = Lobby(Settings(workers=0, bot_delay=0))
    request: dict[str, object] = {"rules": [], "seats": ["human", "rules", "rules", "rules"]}
    if format is not None:
        request["format"] = format
    table = lobby.open_request({**request, "seed": 4})

    async def play() -> None:
        while not table.hand.is_over:
            await table.wait_for_bots()
            if not table.hand.is_over:
                await table.act(0, str(table.hand.legal_actions()[0]))

    asyncio.run(play())
    assert table.state(0)["format"] == (format or "solo")
    return told(heard)


@pytest.mark.parametrize("format", FORMATS)
def test_a_web_table_tells_its_bots_its_format(format: str, heard: Heard) -> None:
    formats = _web_table(format, heard)
    assert len(formats) >= 3 * 13  # a bot made afresh for each decision
    assert set(formats) == {format}


def test_a_web_table_opened_without_a_format_is_solo(heard: Heard) -> None:
    assert set(_web_table(None, heard)) == {"solo"}


def test_a_web_table_refuses_an_unknown_format() -> None:
    pytest.importorskip("starlette")
    from gongzhu.web.lobby import Lobby
    from gongzhu.web.protocol import ProtocolError
    from gongzhu.web.settings import Settings

    lobby = Lobby(Settings(workers=0))
    for bad in ("1v3", 2, None, ["2v2"]):
        with pytest.raises(ProtocolError, match='"format" is one of solo, 2v2') as caught:
            lobby.open_request({"rules": [], "seats": ["human"] * 4, "format": bad})
        assert caught.value.code == "bad-table"


def test_a_web_table_keeps_its_format_across_a_restart(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from gongzhu.web.lobby import Lobby
    from gongzhu.web.settings import Settings
    from gongzhu.web.store import Store

    path = tmp_path / "tables.sqlite3"
    store = Store.open(path)
    lobby = Lobby(Settings(workers=0), store=store)
    teams = lobby.open_table(["39baobao"], ["human", "rules", "human", "rules"], format="2v2")
    solo = lobby.open_table(["39baobao"], ["human", "rules", "human", "rules"])
    store.close()
    again = Lobby(Settings(workers=0), store=Store.open(path))
    rebuilt = {table.id: table.format for table in again.restore()}
    assert rebuilt == {teams.id: "2v2", solo.id: "solo"}

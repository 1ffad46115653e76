"""``gongzhu serve`` as a user runs it: help, one-line errors and their statuses, a real start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .webclient import Player

pytestmark = pytest.mark.one_engine


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data folder, where ``gongzhu serve`` keeps its database: a temporary one."""
    folder = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


def gongzhu(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "gongzhu", *args]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("GONGZHU_DEBUG", None)
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def one_line_error(result: subprocess.CompletedProcess[str], status: int) -> str:
    assert result.returncode == status, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_serve_help() -> None:
    result = gongzhu("serve", "--help")
    assert result.returncode == 0
    for option in (
        "--host", "--port", "--rules", "--seats", "--seed", "--bot-delay", "--db", "--workers",
        "--max-tables", "--tables-per-client", "--max-hands", "--keep-finished", "--keep-idle",
        "--keep-unjoined", "--origin", "--trusted-proxy", "--max-connections", "--message-rate",
        "--client-rate", "--turn-timeout", "--bot-queue", "--bot-wait", "--prune-after",
        "--access-log",
    ):  # fmt: skip
        assert option in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--port", "nope"), "expected a port number"),
        (("--port", "70000"), "a port is 0-65535"),
        (("--seats", "human,nobody,random,random"), "no gongzhu bot named 'nobody'"),
        (("--seats", "random,random,random,random"), "no person"),
        (("--bot-delay", "-1"), "from 0 to 10 seconds"),
        (("--frobnicate",), "unrecognized arguments"),
        (("--db", ""), "give the database's path, or :memory:"),
        (("--keep-unjoined", "-5"), "must be from 0 to 100000000 seconds"),
        (("--trusted-proxy", "proxy.example"), "expected an address or a network"),
        (("--max-connections", "0"), "must be from 1 to 1000000"),
        (("--message-rate", "0"), "must be from 0.001 to 1000000 a second"),
        (("--client-rate", "fast"), "expected a number a second"),
        (("--turn-timeout", "0"), "must be from 1 to 100000000 seconds"),
        (("--bot-queue", "-1"), "must be from 1 to 1000000"),
        (("--bot-wait", "nan"), "must be from 0.01 to 3600 seconds"),
        (("--prune-after", "-1"), "must be from 0 to 100000000 seconds"),
    ],
)
def test_a_bad_argument_is_one_line_and_status_2(args: tuple[str, ...], words: str) -> None:
    line = one_line_error(gongzhu("serve", *args), 2)
    assert line.startswith(("gongzhu serve: error:", "gongzhu: error:")) and words in line


def test_without_the_extra_serve_says_what_to_install() -> None:
    blocked = "import sys; sys.modules['starlette'] = None; from gongzhu.cli import main; "
    result = gongzhu(code=blocked + "sys.exit(main(['serve']))")
    line = one_line_error(result, 2)
    assert "pip install 'gongzhu[web]'" in line


def test_other_commands_do_not_import_the_web_extra() -> None:
    check = (
        "import sys, gongzhu, gongzhu.cli, gongzhu.web, gongzhu.web.app, gongzhu.web.serve; "
        "from gongzhu.cli import main; main(['variants']); "
        "print('LOADED', sorted(m for m in ('starlette', 'uvicorn') if m in sys.modules))"
    )
    result = gongzhu(code=check)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout


needs_extra = pytest.mark.skipif(
    any(
        __import__("importlib").util.find_spec(m) is None
        for m in ("starlette", "uvicorn", "websockets")
    ),
    reason="the web extra is not installed: pip install '.[web]'",
)


@needs_extra
def test_unknown_rules_are_status_1() -> None:
    line = one_line_error(gongzhu("serve", "--rules", "no-such-rules", "--port", "0"), 1)
    assert "no gongzhu variant named 'no-such-rules'" in line


@needs_extra
def test_a_port_in_use_is_status_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        line = one_line_error(gongzhu("serve", "--port", str(port)), 2)
    assert f"cannot listen on 127.0.0.1:{port}" in line


@needs_extra
def test_serve_prints_the_links_serves_them_and_stops_on_ctrl_c(data_folder: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gongzhu", "serve", "--port", "0", "--seed", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(8)]
        assert lines[0].startswith("gongzhu serving on http://127.0.0.1:"), lines
        database = data_folder / "gongzhu" / "serve.sqlite3"
        assert lines[2].strip() == f"tables are kept in {database} (0 open tables restored)"
        assert database.is_file()
        url = lines[0].split()[3]
        seat_line = next(line for line in lines if line.strip().startswith("seat 0:"))
        link = seat_line.split()[-1]
        assert link.startswith(url + "/play/")
        with urllib.request.urlopen(link, timeout=10) as page:
            assert b"table.js" in page.read()
        with urllib.request.urlopen(url + "/api/info", timeout=10) as info:
            assert "heuristic" in json.load(info)["bots"]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            process.kill()
            raise
    assert process.returncode == 130, err  # interrupted (docs/cli.rst), cleanly
    assert "Traceback" not in err and err.strip() == "gongzhu: interrupted"


@needs_extra
@pytest.mark.parametrize("signals", [(signal.SIGINT, signal.SIGINT), (signal.SIGTERM,)])
def test_a_second_ctrl_c_or_a_sigterm_stops_the_server_in_one_line(
    data_folder: Path, signals: tuple[int, ...]
) -> None:
    """A second Ctrl-C cuts the shutdown short (uvicorn logged the cancelled lifespan's
    traceback); a SIGTERM stops it as a command is stopped (status 143)."""
    command = ["serve", "--port", "0", "--seats", "human,search,search,search"]
    process = subprocess.Popen(
        [sys.executable, "-m", "gongzhu", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:  # up to the links: the server serves
            if line.strip().startswith("seat 0:"):
                break
        time.sleep(2)  # its worker pool has started (the bots think there)
        for signum in signals:
            process.send_signal(signum)
            time.sleep(0.1)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:  # pragma: no cover
            process.kill()
    expected = (
        (130, "gongzhu: interrupted\n") if len(signals) == 2 else (143, "gongzhu: terminated\n")
    )
    assert (process.returncode, err) == expected


# A Ctrl-C that lands while the server starts, inside a garbage collector's callback:
# Python's own handler would raise KeyboardInterrupt there, where it is dropped ("Exception
# ignored"), and the server would go on serving.  The cyclic garbage below is collected by
# the server's own gc.collect() on its way up (automatic collection is off, so not before).
_CTRL_C_AT_START = """
import gc, os, signal, sys, threading, weakref
from gongzhu.cli import main

class Garbage:
    pass

def ctrl_c(_ref):
    signal.raise_signal(signal.SIGINT)

gc.disable()
garbage = Garbage()
garbage.cycle = garbage
keep = weakref.ref(garbage, ctrl_c)
del garbage
lost = threading.Timer(20, lambda: os._exit(3))  # the interrupt was lost: still serving
lost.daemon = True
lost.start()
sys.exit(main(["serve", "--port", "0", "--db", ":memory:"]))
"""


@needs_extra
def test_a_ctrl_c_while_the_server_starts_stops_it() -> None:
    result = gongzhu(code=_CTRL_C_AT_START)
    assert result.returncode == 130, result  # 3: the interrupt was lost, the server ran on
    assert "Traceback" not in result.stderr and result.stderr.strip() == "gongzhu: interrupted"


@needs_extra
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--hands", "500"), "--hands 500 is more than --max-hands 100"),
        (("--origin", "evil.example"), "--origin: an origin is scheme://host[:port]"),
        (("--keep-idle", "-5"), "must be from 0 to"),
        (("--workers", "-1"), "must be from 0 to 64"),
        (("--max-tables", "0"), "must be at least 1"),
        (
            ("--hands", "2", "--target", "100"),
            "argument --target: not allowed with argument --hands",
        ),
        (("--target", "100", "--match"), "argument --match: not allowed with argument --target"),
        (("--match",), "39baobao matches have no end of their own: give --target"),
        (("--access-log", "/no/such/folder/access.log"), "--access-log: cannot write"),
    ],
)
def test_a_bad_server_setting_is_one_line_and_status_2(
    args: tuple[str, ...], words: str, data_folder: Path
) -> None:
    line = one_line_error(gongzhu("serve", "--port", "0", *args), 2)
    assert words in line
    assert not data_folder.exists()  # refused before any database is made


@needs_extra
def test_a_file_that_is_not_a_database_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 50, encoding="utf-8")
    before = notes.read_bytes()
    line = one_line_error(gongzhu("serve", "--port", "0", "--db", str(notes)), 2)
    assert line == f"gongzhu: {notes} is not a gongzhu serve database (not SQLite): left as it is"
    assert notes.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


class Server:
    """``gongzhu serve`` in a subprocess: its address and printed seat links."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gongzhu", "serve", "--port", "0", "--bot-delay", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.lines = [self.process.stdout.readline() for _ in range(3)]
        assert self.lines[0].startswith("gongzhu serving on"), self.lines
        self.url = self.lines[0].split()[3]
        self.links: dict[int, str] = {}
        if "--no-table" not in args:
            for _ in range(5):
                line = self.process.stdout.readline()
                self.lines.append(line)
                if line.strip().startswith("seat ") and "/play/" in line:
                    self.links[int(line.split()[1].rstrip(":"))] = line.split()[-1]

    def socket(self, seat: int, token: str | None = None) -> str:
        token = token or self.links[seat].rsplit("/", 1)[1]
        return f"{self.url.replace('http', 'ws')}/ws/{token}"

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=20) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGINT)
        try:
            _out, err = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.process.kill()
            raise
        return self.process.returncode, err


@needs_extra
def test_a_server_killed_mid_hand_comes_back_with_its_tables_links_and_records(
    tmp_path: Path,
) -> None:
    from websockets.sync.client import connect

    database = tmp_path / "tables.sqlite3"
    first = Server(
        "--db", str(database), "--seed", "5", "--hands", "2",
        "--seats", "human,heuristic,human,random",
    )  # fmt: skip
    tokens = {seat: link.rsplit("/", 1)[1] for seat, link in first.links.items()}
    assert sorted(tokens) == [0, 2]

    def mid_second_hand(state: dict[str, Any]) -> bool:  # nothing moves until seat 0 acts
        return state["number"] == 2 and len(state["tricks"]) >= 2 and state["to_move"] == 0

    try:
        players = [Player(first.socket(seat), seat, mid_second_hand) for seat in (0, 2)]
        assert players[0].reached.wait(60), "the match did not get there"
        for player in players:
            player.halt.set()
            player.join(10)
        last = players[0].last
        assert last is not None
        status, record = first.get(f"/record/{tokens[0]}/1.json")
        assert status == 200
    finally:
        first.process.kill()  # SIGKILL: no shutdown, no goodbye
        first.process.communicate(timeout=30)
    assert first.process.returncode == -signal.SIGKILL

    second = Server("--db", str(database), "--no-table")
    try:
        assert second.lines[2].strip() == f"tables are kept in {database} (1 open table restored)"
        assert second.get(f"/record/{tokens[0]}/1.json") == (200, record)
        with connect(second.socket(0, tokens[0]), open_timeout=10, max_queue=None) as zero:
            state = json.loads(zero.recv(timeout=20))
            names = ("number", "phase", "to_move", "holding", "legal", "tricks", "current_trick")
            assert {name: state[name] for name in names} == {name: last[name] for name in names}
            assert state["match"]["totals"] == last["match"]["totals"]
            zero.send(json.dumps({"type": "action", "action": state["legal"][0], "hand": 2}))
            after = json.loads(zero.recv(timeout=20))
            assert after["type"] == "state"
            assert len(after["holding"]) == len(state["holding"]) - 1  # the table plays on
    finally:
        status, err = second.stop()
    assert status == 130 and err.strip() == "gongzhu: interrupted"


@needs_extra
def test_the_access_log_and_a_trusted_proxy_from_the_command_line(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    server = Server(
        "--no-table", "--db", ":memory:", "--access-log", str(log), "--trusted-proxy", "127.0.0.1"
    )
    try:
        request = urllib.request.Request(
            server.url + "/healthz", headers={"X-Forwarded-For": "203.0.113.9"}
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert json.load(answer)["status"] == "ok"
        status, _body = server.get("/play/SECRETTOKEN")
        assert status == 200
    finally:
        code, err = server.stop()
    assert code == 130 and err.strip() == "gongzhu: interrupted", err  # nothing else on stderr
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert '203.0.113.9 "GET /healthz" 200' in lines[0]
    assert '127.0.0.1 "GET /play/…" 200' in lines[1] and "SECRETTOKEN" not in lines[1]


@needs_extra
@pytest.mark.parametrize("format", ["2v2", None])
def test_serve_format_is_the_tables_and_told_to_its_bots(format: str | None) -> None:
    """``serve --format 2v2`` opens a 2-vs-2 table (its state says so; its bots are told it,
    ``tests/test_table_formats.py``); without ``--format`` the table is solo."""
    from websockets.sync.client import connect

    chosen = () if format is None else ("--format", format)
    server = Server("--db", ":memory:", "--seats", "human,rules,human,rules", *chosen)
    try:
        with connect(server.socket(0), open_timeout=10, max_queue=None) as zero:
            state = json.loads(zero.recv(timeout=20))
            assert state["type"] == "state" and state["format"] == (format or "solo")
    finally:
        status, err = server.stop()
    assert status == 130 and err.strip() == "gongzhu: interrupted"

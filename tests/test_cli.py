"""The ``gongzhu`` command line: every command, its exit codes and its messages."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import gongzhu
from gongzhu.bots import RandomBot, play_hand
from gongzhu.cli import main

pytestmark = pytest.mark.one_engine  # the command line is the same on both engines


def test_demo_prints_tricks_and_score_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Rules: 39baobao" in out
    assert out.count("trick ") == 13
    assert "Score sheet (39baobao: raw − (others' sum)" in out
    assert sum(line.startswith("  seat ") and "final" in line for line in out.splitlines()) == 4


def test_demo_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "5", "--rules", "huapai", "anmai"])
    first = capsys.readouterr().out
    main(["demo", "--seed", "5", "--rules", "huapai", "anmai"])
    assert capsys.readouterr().out == first


def test_demo_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "2", "--match", "--hands", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("hand ") == 3 and "losers (当猪)" in out


def test_unknown_variant_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rules", "nope"]) == 1
    assert "no gongzhu variant named 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["frobnicate"], ["score"], ["simulate", "--hands", "x"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_variants_lists_plugins_with_chinese_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    by_name = {line.split()[0]: line for line in lines}
    assert set(gongzhu.variant_names()) == set(by_name)
    assert "拱猪" in by_name["39baobao"] and "base" in by_name["39baobao"]
    assert "暗卖" in by_name["anmai"] and "modifier" in by_name["anmai"]
    assert "华牌" in by_name["huapai"]


def test_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", "demo", "--seed", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Score sheet" in result.stdout


# -- score and replay ------------------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def a_record(seed: int = 1, *names: str) -> dict:
    hand = gongzhu.load_rules(*names).new_hand(seed)
    return play_hand(hand, [RandomBot(seed + s) for s in range(4)]).to_record()


def test_score_a_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = a_record()
    assert main(["score", write(tmp_path, "hand.json", json.dumps(record))]) == 0
    out = capsys.readouterr().out
    assert f"raw {record['result']['raw']}" in out and out.endswith("1 checked, 0 refused\n")


def test_score_json_lines_and_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = "\n".join(json.dumps(a_record(s, "huapai")) for s in range(3))
    assert main(["score", write(tmp_path, "hands.jsonl", lines)]) == 0
    assert "3 checked, 0 refused" in capsys.readouterr().out
    match = gongzhu.load_rules().new_match(seed=1, hands=2)
    match.play([RandomBot(s) for s in range(4)])
    assert main(["score", write(tmp_path, "match.json", json.dumps(match.to_record()))]) == 0
    out = capsys.readouterr().out
    assert "match.json:1: match of 2 hands" in out and "1 checked, 0 refused" in out


def test_replay_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "hand.json", json.dumps(a_record(4, "same-colour-discard")))
    assert main(["replay", path, "--verbose"]) == 0
    out = capsys.readouterr().out
    assert out.count("  trick ") == 13 and "Score sheet" in out


def test_invalid_record_exits_1_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = a_record()
    record["actions"][20]["action"] = "play 2C"
    path = write(tmp_path, "bad.json", json.dumps(record))
    assert main(["score", path]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:1: action 20: illegal action play 2C")
    path = write(tmp_path, "junk.json", "{not json\n")
    assert main(["replay", path]) == 1
    assert capsys.readouterr().err.startswith(f"{path}:1: line 1 is not JSON")


def test_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


# -- simulate ----------------------------------------------------------------------------------


def test_simulate_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--hands", "60", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "60 hands" in out and out.count("mean final score") == 4
    assert "full hearts (满红) in" in out and "slams (满贯) in" in out


def simulate_output(tmp_path: Path, workers: int, *extra: str) -> tuple[str, list[str]]:
    out_file = tmp_path / f"run-{workers}-{'-'.join(extra)}.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gongzhu",
            "simulate",
            "--hands",
            "40",
            "--seed",
            "9",
            "--workers",
            str(workers),
            "--out",
            str(out_file),
            *extra,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[-1] == f"records: {out_file}"
    summary = "\n".join(lines[1:-1])  # the first line names the worker count
    return summary, out_file.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("bots", [[], ["--bots", "random,first,random,first"]])
def test_simulate_is_the_same_for_any_worker_count(tmp_path: Path, bots: list[str]) -> None:
    one = simulate_output(tmp_path, 1, *bots)
    two = simulate_output(tmp_path, 2, *bots)
    three = simulate_output(tmp_path, 3, *bots)
    assert one == two == three
    summary, lines = one
    assert summary.startswith("40 hands") and len(lines) == 40
    for number, line in enumerate(lines):
        gongzhu.replay(json.loads(line), hand=number)


def test_simulate_matches(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rules", "huapai", "shuangzhu", "--matches", "--hands", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 matches" in out and out.count("lost") == 4


def test_simulate_rejects_bad_bots(capsys: pytest.CaptureFixture[str]) -> None:
    for bots in ("random,genius,random,random", "random,first"):
        with pytest.raises(SystemExit) as info:
            main(["simulate", "--bots", bots, "--hands", "2"])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "give one bot name or four" in err


def test_interrupted_simulation_keeps_finished_records(tmp_path: Path) -> None:
    out_file = tmp_path / "run.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gongzhu",
            "simulate",
            "--hands",
            "200000",
            "--workers",
            "2",
            "--bots",
            "first",
            "--out",
            str(out_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the records go to a temporary file beside run.jsonl
        parts = list(tmp_path.glob(".run.jsonl.*.part"))
        if parts and parts[0].stat().st_size > 20_000:
            break
        time.sleep(0.1)
    assert not out_file.exists()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted after" in stderr
    # the summary of what was played is the whole report: the run, the seats, the records
    assert stdout.startswith("rules load_rules('39baobao'), bots first,first,first,first, ")
    assert re.search(r"^seat 3 \(first\): mean final score", stdout, re.MULTILINE)
    assert stdout.endswith(f"records: {out_file}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]  # renamed into place
    lines = out_file.read_text(encoding="utf-8").splitlines()
    assert lines
    for number, line in enumerate(lines[:50]):
        gongzhu.replay(json.loads(line), hand=number)
    json.loads(lines[-1])  # the last line is whole too
    found = re.search(r"interrupted after (\d+)", stderr)
    assert found is not None
    played = int(found.group(1))
    assert played == len(lines)


def test_a_ctrl_c_while_the_commands_load_is_one_line() -> None:
    """``import gongzhu.cli`` loads no command (nor the rules): main loads them where a
    Ctrl-C is caught, so one that comes while they load is status 130, not a traceback."""
    code = textwrap.dedent(
        """
        import builtins, sys
        from gongzhu.cli import main
        assert "gongzhu.cli.parser" not in sys.modules and "gongzhu.rules" not in sys.modules
        real = builtins.__import__

        def interrupted(name, *args, **kwargs):
            if name == "parser":  # from .parser import ..., in main
                raise KeyboardInterrupt
            return real(name, *args, **kwargs)

        builtins.__import__ = interrupted
        sys.exit(main(["demo"]))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stderr, result.stdout) == (
        130,
        "gongzhu: interrupted\n",
        "",
    )


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's /proc; empty elsewhere)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize(
    ("command", "line"),
    [
        (
            ["simulate", "--hands", "200000", "--bots", "first"],
            r"gongzhu: interrupted after \d+ hands",
        ),
        (["arena", "random", "random", "--deals", "100000"], r"gongzhu: interrupted"),
    ],
)
def test_a_ctrl_c_at_the_terminal_stops_a_run_with_workers_in_one_line(
    command: list[str], line: str
) -> None:
    # a terminal's Ctrl-C goes to the whole process group: the workers too, just started
    # (three times: stopping the pool then could hang it, about one time in seven; the
    # cause, a worker taking SIGINT while it starts, is held off every time by
    # test_arena.py::test_a_local_worker_never_takes_ctrl_c_from_its_first_moment)
    for _ in range(3):
        process = subprocess.Popen(
            [sys.executable, "-m", "gongzhu", *command, "--workers", "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while len(_children(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)  # the pool's two workers and the resource tracker
        os.killpg(process.pid, signal.SIGINT)
        try:
            _out, err = process.communicate(timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # a hung run and its workers
        assert process.returncode == 130, err
        assert re.fullmatch(line, err.strip()), err  # one line: no worker's traceback


@pytest.mark.parametrize("to_group", [False, True])
def test_a_sigterm_stops_a_run_and_leaves_the_out_file_as_it_was(
    tmp_path: Path, to_group: bool
) -> None:
    """``timeout`` and ``kill`` send SIGTERM (``timeout`` to the whole group, workers too):
    the run stops in one line, status 143, the ``--out`` file unchanged, no temporary file."""
    out_file = tmp_path / "run.jsonl"
    out_file.write_text("kept\n", encoding="utf-8")
    command = ["simulate", "--hands", "1000000", "--bots", "first", "--workers", "2"]
    process = subprocess.Popen(
        [sys.executable, "-m", "gongzhu", *command, "--out", str(out_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".part") for p in tmp_path.iterdir()):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.02)
    time.sleep(0.5)  # records are being written
    if to_group:
        os.killpg(process.pid, signal.SIGTERM)
    else:
        process.send_signal(signal.SIGTERM)
    try:
        out, err = process.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, out) == (143, "")
    if to_group:  # a worker being started just then may still say it lost its parent
        assert err.startswith("gongzhu: terminated\n"), err
    else:
        assert err == "gongzhu: terminated\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]
    assert out_file.read_text(encoding="utf-8") == "kept\n"


# -- play, through a real pseudo-terminal ---------------------------------------------------------


class Terminal:
    """A child process on a pty: read its screen, type lines."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            environment = {**os.environ, **(env or {})}
            os.execve(sys.executable, [sys.executable, "-m", "gongzhu", *argv], environment)
        self.screen = ""
        self.transcript = ""  # everything read (and echoed), for checks over the whole run

    def read_until(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.screen)
            if found:
                self.screen = self.screen[found.end() :]
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} in:\n{self.screen[-2000:]}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"the program ended; screen:\n{self.screen[-2000:]}")
                text = chunk.decode("utf-8", "replace")
                self.screen += text
                self.transcript += text

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def wait(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


@pytest.mark.parametrize("ascii_only", [True, False])
def test_play_a_whole_hand_in_a_terminal(ascii_only: bool) -> None:
    argv = ["play", "--seed", "30", "--seat", "0", "--bot", "first"] + (
        ["--ascii"] if ascii_only else []
    )
    term = Terminal(argv)
    term.read_until(r"You are seat 0")
    hand_line = term.read_until(r"Your holding: (.*)\r?\n").group(1)
    if ascii_only:
        assert "QS" in hand_line and "\x1b[" not in hand_line
    else:
        assert "♠Q" in hand_line and "\x1b[31m" in hand_line  # hearts and diamonds in red
    term.read_until(r"show which cards\? \(- \| QS\)")
    term.type("AH")  # not held: a clear message and a new prompt
    term.read_until(r"[✗x] illegal action show AH \(seat 0\)")
    term.type("QS")
    plays = 0
    while True:
        found = term.read_until(r"Your play \(legal: ([^)]*)\): |Score sheet")
        if found.group(0) == "Score sheet":
            break
        legal = found.group(1).split(", ")
        if plays == 0:
            term.type("ZZ")
            term.read_until(r"[✗x] not a card: 'ZZ'")
            term.read_until(r"Your play \(legal: [^)]*\): ")
        term.type(legal[-1])
        plays += 1
    assert plays == 13
    term.read_until(r"seat 3: raw.*\n")
    assert term.wait() == 0
    # --ascii draws every card, suit and mark in letters: the tricks, the messages, the sheet
    drawn = set(term.transcript) & set("♠♥♦♣✗→")
    assert drawn == (set() if ascii_only else set("♠♥♦♣✗→")), drawn


def test_play_end_of_input_is_not_a_traceback() -> None:
    term = Terminal(["play", "--seed", "1", "--ascii"])
    term.read_until(r"You are seat 0")
    os.write(term.fd, b"\x04")  # end of input
    term.read_until(r"gongzhu: the input ended before the hand was over \(seat 0 to move")
    assert term.wait() == 1


def test_play_reads_from_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    lines = io.StringIO("q\n")
    assert main(["play", "--seed", "2", "--ascii"], stdin=lines) == 0
    assert "bye" in capsys.readouterr().out


def test_simulate_draws_a_progress_bar_on_a_terminal() -> None:
    term = Terminal(["simulate", "--hands", "300", "--bots", "first"])
    term.read_until(r"\[#{30}\] 300/300")
    term.read_until(r"300 hands")
    assert term.wait() == 0


def test_play_two_decks_accepts_pairs() -> None:
    term = Terminal(["play", "--rules", "two-deck", "--seed", "8", "--bot", "first", "--ascii"])
    term.read_until(r"You are seat 0")
    pairs_played = 0
    while True:
        found = term.read_until(r"Your play \(legal: ([^)]*)\): |show which cards\? \(|Score sheet")
        if found.group(0) == "Score sheet":
            break
        if found.group(0).startswith("show"):
            term.type("-")
            continue
        legal = found.group(1).split(", ")
        two = [play for play in legal if " " in play]
        pairs_played += bool(two)
        term.type(two[0] if two else legal[0])
    assert pairs_played
    term.read_until(r"seat 3: raw")
    assert term.wait() == 0


def test_ruleset_options_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "same-colour-discard", "--option", "same_colour_strict=true"]
    assert main([*argv, "--hands", "5"]) == 0
    assert "same_colour_strict=True" in capsys.readouterr().out
    assert main(["demo", "--rules", "huapai", "--option", "match_target=700", "--match"]) == 1
    assert "match_target=700 (huapai): expected one of 1000, 800" in capsys.readouterr().err
    assert main(["demo", "--option", "nonsense"]) == 2
    assert "--option takes NAME=VALUE" in capsys.readouterr().err


def test_repeated_rules_add_up_and_a_repeated_option_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--rules", "huapai", "--seed", "1", "--rules", "anmai"]) == 0
    assert capsys.readouterr().out.startswith("Rules: huapai (华牌竞赛规则) + anmai (暗卖)\n")
    assert main(["demo", "--rules", "huapai", "--rules", "39baobao"]) == 1  # two bases
    assert "'huapai' and '39baobao' are both bases" in capsys.readouterr().err
    search_twice = ["--bot-option", "search:samples=3", "--bot-option", "search:samples=4"]
    twice = [
        (["demo", "--option", "zero_sum=exact", "--option", "zero_sum=rounded"], "zero_sum"),
        (["arena", "random", "search", "--deals", "1", *search_twice], "search:samples"),
    ]
    for argv, name in twice:
        assert main(argv) == 2
        assert capsys.readouterr().err == f"gongzhu: --{argv[-2][2:]} {name} is given twice\n"

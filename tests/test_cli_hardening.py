"""The command line at its edges: bad arguments, files that cannot be written, closed
pipes, bad records, runaway matches.  Every failure is one line on stderr and an exit
status from docs/cli.rst; the ``gongzhu`` command runs in a subprocess where it matters."""

from __future__ import annotations

import errno
import io
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import gongzhu
import gongzhu.cli.play
import gongzhu.hand
from gongzhu.bots import BOTS, RandomBot, play_hand
from gongzhu.cli import main, records
from gongzhu.errors import GongzhuError

from .test_cli import Terminal

pytestmark = pytest.mark.one_engine


def gongzhu_command(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real command (``python -m gongzhu``)."""
    return subprocess.run(
        [sys.executable, "-m", "gongzhu", *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=None if env is None else {**os.environ, **env},
        timeout=120,
    )


def one_line_error(result: subprocess.CompletedProcess[str], status: int, pattern: str) -> None:
    """The command failed with ``status`` and exactly one line on stderr matching ``pattern``."""
    assert result.returncode == status, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert re.search(pattern, lines[0]), lines[0]


def a_record(seed: int = 1) -> dict:
    hand = gongzhu.load_rules().new_hand(seed)
    return play_hand(hand, [RandomBot(seed + s) for s in range(4)]).to_record()


def folder_listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- 1. simulate --out: check first, then write beside the file and rename ---------------------


def test_a_bad_argument_leaves_the_out_file_alone(tmp_path: Path) -> None:
    existing = tmp_path / "existing.jsonl"
    existing.write_bytes(b"precious\n")
    result = gongzhu_command(
        "simulate", "--matches", "--target", "-5", "--out", str(existing), "--hands", "2"
    )
    one_line_error(result, 2, r"^gongzhu simulate: error: argument --target: must be at least 1")
    assert existing.read_bytes() == b"precious\n"
    assert folder_listing(tmp_path) == ["existing.jsonl"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--workers", "65"],
        ["--hands", "0"],
        ["--bots", "random,genius,random,random"],
        ["--target", "100"],  # without --matches
        ["--rules", "no-such-variant"],
        ["--option", "nonsense"],
    ],
)
def test_every_check_comes_before_the_out_file(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "existing.jsonl"
    existing.write_bytes(b"precious\n")
    try:
        status = main(["simulate", "--hands", "3", *argv, "--out", str(existing)])
    except SystemExit as exc:
        status = exc.code  # type: ignore[assignment]
    assert status in (1, 2)
    assert capsys.readouterr().err.count("\n") == 1
    assert existing.read_bytes() == b"precious\n"
    assert folder_listing(tmp_path) == ["existing.jsonl"]


def test_a_run_that_fails_leaves_the_out_file_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "existing.jsonl"
    existing.write_bytes(b"precious\n")
    writes = []
    real_write = records.Records.write

    def write_then_fill_the_disk(self: records.Records, text: str) -> None:
        writes.append(text)
        if len(writes) > 1:
            real_write(self, "half a rec")
            raise records.OutError() from OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_write(self, text)

    monkeypatch.setattr(records.Records, "write", write_then_fill_the_disk)
    assert main(["simulate", "--hands", "600", "--out", str(existing)]) == 2
    err = capsys.readouterr().err
    assert err == f"gongzhu: cannot write {existing}: No space left on device\n"
    assert len(writes) == 2  # the run had written records to the temporary file
    assert existing.read_bytes() == b"precious\n"
    assert folder_listing(tmp_path) == ["existing.jsonl"]


def test_a_successful_run_replaces_the_file_keeping_its_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "existing.jsonl"
    existing.write_bytes(b"old\n")
    existing.chmod(0o640)
    assert main(["simulate", "--hands", "5", "--out", str(existing)]) == 0
    lines = existing.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5 and all(json.loads(line)["format"] == "gongzhu-hand/1" for line in lines)
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640
    assert folder_listing(tmp_path) == ["existing.jsonl"]
    assert capsys.readouterr().out.endswith(f"records: {existing}\n")


# -- 2. files that cannot be written, full disks, closed pipes ---------------------------------


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing/run.jsonl", r"cannot write .*missing/run\.jsonl: no folder '.*missing'$"),
        ("", r"cannot write .*: it is a folder$"),
    ],
)
def test_out_into_a_missing_folder_or_onto_a_folder(
    tmp_path: Path, where: str, message: str
) -> None:
    result = gongzhu_command("simulate", "--hands", "3", "--out", str(tmp_path / where))
    one_line_error(result, 2, rf"^gongzhu: {message}")
    assert folder_listing(tmp_path) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_out_onto_a_full_disk() -> None:
    result = gongzhu_command("simulate", "--hands", "300", "--out", "/dev/full")
    one_line_error(result, 2, r"^gongzhu: cannot write /dev/full: No space left on device$")
    assert result.stdout == ""


def test_out_where_writing_is_not_permitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """chmod does not stop root, so the refusals are staged: a read-only folder, then file."""

    def refuse(*_args: object, **_kwargs: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    target = tmp_path / "run.jsonl"
    with monkeypatch.context() as patch:
        patch.setattr(tempfile, "mkstemp", refuse)
        assert main(["simulate", "--hands", "3", "--out", str(target)]) == 2
    assert capsys.readouterr().err == f"gongzhu: cannot write {target}: Permission denied\n"
    target.write_bytes(b"read-only\n")
    monkeypatch.setattr(os, "access", lambda *_args, **_kwargs: False)
    assert main(["simulate", "--hands", "3", "--out", str(target)]) == 2
    assert capsys.readouterr().err == f"gongzhu: cannot write {target}: Permission denied\n"
    assert target.read_bytes() == b"read-only\n"
    assert folder_listing(tmp_path) == ["run.jsonl"]


@pytest.mark.parametrize("command", [["demo", "--seed", "1"], ["score", "-"]])
def test_a_closed_pipe_ends_quietly(command: list[str]) -> None:
    """``gongzhu demo | head -1``: the reader goes away; no traceback, status 0."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gongzhu", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdin is not None
    process.stdout.close()  # before the command has written anything
    process.stdin.write(json.dumps(a_record()).encode())
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr is not None and process.stderr.read() == b""


def test_an_error_of_several_lines_is_printed_as_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refusing(*_args: object) -> int:
        raise GongzhuError("a plug-in's message\n   over two lines\n")

    monkeypatch.setattr(gongzhu.cli.play, "run_demo", refusing)
    assert main(["demo"]) == 1
    assert capsys.readouterr().err == "gongzhu: a plug-in's message over two lines\n"


def test_no_traceback_even_for_a_bug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*_args: object) -> int:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(gongzhu.cli.play, "run_demo", broken)  # where main looks it up
    assert main(["demo"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("gongzhu: internal error: ZeroDivisionError: division by zero")
    assert err.count("\n") == 1
    monkeypatch.setenv("GONGZHU_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["demo"])


# -- 3. score and replay check every record -------------------------------------------------


def test_score_reports_every_bad_record_by_its_line(tmp_path: Path) -> None:
    good = json.dumps(a_record(1))
    bad = a_record(2)
    bad["actions"][20]["action"] = "play 2C"
    lines = [
        "",  # 1: leading blank lines count
        "",
        good,  # 3
        json.dumps(bad),  # 4
        "",
        "{not json",  # 6
        "[" * 100_000 + "]" * 100_000,  # 7
        '{"seed": ' + "7" * 5000 + "}",  # 8
        good,  # 9
    ]
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = gongzhu_command("score", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert [line.split(": ")[0] for line in result.stderr.splitlines()] == [
        f"{path}:{n}" for n in (4, 6, 7, 8)
    ]
    assert f"{path}:4: action 20: illegal action play 2C" in result.stderr
    assert f"{path}:7: line 7: the JSON is nested too deeply to read" in result.stderr
    assert f"{path}:8: line 8: an integer is too long to read" in result.stderr
    out = result.stdout.splitlines()
    assert out[0].startswith(f"{path}:3: raw ") and out[1].startswith(f"{path}:9: raw ")
    assert out[-1] == "6 checked, 4 refused"
    again = gongzhu_command("replay", "-", stdin=good)  # - reads standard input
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout.startswith("<stdin>:1: raw ")
    assert again.stdout.endswith("1 checked, 0 refused\n")


def test_score_names_array_elements_and_match_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = a_record(2)
    bad["result"]["raw"] = [1, 2, 3, 4]
    path = tmp_path / "hands.json"
    path.write_text(json.dumps([a_record(1), bad], indent=1), encoding="utf-8")
    assert main(["score", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"{path}: record 1: stored raw scores [1, 2, 3, 4] differ from the replayed "
        f"{a_record(2)['result']['raw']}\n"
    )
    assert captured.out.endswith("2 checked, 1 refused\n")
    match = gongzhu.load_rules().new_match(seed=1, hands=2)
    match.play([RandomBot(s) for s in range(4)])
    record = match.to_record()
    record["hands"][1]["actions"][30]["action"] = "play 2C"
    path.write_text("\n\n" + json.dumps(record, indent=2), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"{path}:3: hand 1, action 30: illegal action")
    path.write_text("\n \n", encoding="utf-8")
    assert main(["score", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"{path}: no record: the text is empty\n"
    assert captured.out == "0 checked, 0 refused\n"


def test_an_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b"\xe9t\xe9\n")
    result = gongzhu_command("score", str(path))
    one_line_error(result, 2, r"^gongzhu: cannot read .*latin1\.jsonl: not UTF-8 text")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "/dev/zero",
            r"^gongzhu: cannot read /dev/zero: not text \(a NUL byte at byte 0, line 1\)$",
        ),
        ("", r"^gongzhu: cannot read a file with an empty name$"),
    ],
)
def test_a_file_that_cannot_be_records_is_refused_at_once(path: str, message: str) -> None:
    one_line_error(gongzhu_command("score", path), 2, message)  # /dev/zero never ends


def test_a_bad_byte_is_placed_across_the_chunks_it_is_read_in(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"x" * ((1 << 20) - 1) + "é".encode() + b"\xff")  # é spans two chunks
    result = gongzhu_command("score", str(path))
    one_line_error(result, 2, r"not UTF-8 text \(invalid start byte at byte 1048577, line 1\)$")


def test_a_line_longer_than_the_most_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(a_record()) + "\n", encoding="utf-8")
    monkeypatch.setattr(records, "MAX_LINE", 100)
    assert main(["score", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"gongzhu: cannot read {path}: a line longer than 100 characters, the most read\n"
    )


def test_a_document_over_many_lines_with_a_typo_is_one_refused_record(tmp_path: Path) -> None:
    """Not one error a line: a comma too many on line 3 of a record written with indent."""
    lines = json.dumps(a_record(), indent=1).split("\n")
    lines[2] = lines[2].replace(":", ": ,", 1)
    path = tmp_path / "typo.json"
    path.write_text("\n".join(lines), encoding="utf-8")
    result = gongzhu_command("score", str(path))
    assert result.stdout == "1 checked, 1 refused\n"
    one_line_error(result, 1, rf"^{re.escape(str(path))}:1: line 3 is not JSON: Expecting value .*")


def test_a_document_over_many_lines_longer_than_the_most_read_is_read_as_json_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.json"
    text = json.dumps(a_record(), indent=1)
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(records, "MAX_LINE", 1000)
    assert main(["score", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"{path}:1: line 1 is not JSON")
    lines = len(text.splitlines())  # each a record of JSON Lines, refused
    assert captured.out.endswith(f"{lines} checked, {lines} refused\n")


@pytest.mark.parametrize("bad", [2, 3])
def test_records_before_a_bad_byte_are_checked_and_the_line_is_named(
    tmp_path: Path, bad: int
) -> None:
    path = tmp_path / "hands.jsonl"
    lines = [json.dumps(a_record()).encode()] * 3
    lines[bad - 1] = lines[bad - 1][:40] + b"\xff" + lines[bad - 1][40:]
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = gongzhu_command("score", str(path))
    assert result.stdout.count(f"{path}:") == bad - 1  # the lines before it were checked
    one_line_error(result, 2, rf"not UTF-8 text \(invalid start byte at byte \d+, line {bad}\)$")


@pytest.mark.parametrize("redirect", [">>", "2>>"])
@pytest.mark.parametrize("from_stdin", [False, True])
def test_a_file_the_command_writes_to_is_not_read(
    tmp_path: Path, redirect: str, from_stdin: bool
) -> None:
    path = tmp_path / "hands.jsonl"
    before = json.dumps(a_record()) + "\n"
    path.write_text(before, encoding="utf-8")
    quoted = shlex.quote(str(path))
    source = f"- < {quoted}" if from_stdin else quoted
    result = subprocess.run(
        [
            "sh",
            "-c",
            f"{shlex.quote(sys.executable)} -m gongzhu score {source} {redirect} {quoted}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    message = (
        f"cannot read {'standard input' if from_stdin else path}: "
        "it is where this command writes (its output or errors)\n"
    )
    written = path.read_text(encoding="utf-8")
    if redirect == "2>>":
        assert written == before + "gongzhu: " + message
    else:
        assert written == before and result.stderr == "gongzhu: " + message


def test_json_lines_are_scored_as_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file of JSON Lines is never held whole: each record is scored as its line arrives."""
    path = tmp_path / "hands.jsonl"
    line = json.dumps(a_record())
    path.write_text((line + "\n") * 3, encoding="utf-8")
    monkeypatch.setattr(records, "MAX_LINE", len(line) + 10)  # a line fits, the file does not
    monkeypatch.setattr(records, "_CHUNK", 64)
    assert main(["score", str(path)]) == 0
    assert capsys.readouterr().out.endswith("3 checked, 0 refused\n")


# -- 6. records only when they are written ------------------------------------------------------


def test_simulate_builds_no_record_without_out(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_records(self: object) -> dict:
        raise AssertionError("a record was built")

    monkeypatch.setattr(gongzhu.hand.HandState, "to_record", no_records)
    assert main(["simulate", "--hands", "30", "--bots", "random,first,random,first"]) == 0
    assert main(["simulate", "--hands", "2", "--matches", "--rules", "huapai"]) == 0
    assert "2 matches" in capsys.readouterr().out


# -- 7. bounds ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--match", "--hands", "0"], "argument --hands: must be at least 1, not 0"),
        (["demo", "--target", "500"], "--target needs --match"),
        (["simulate", "--workers", "65"], "argument --workers: must be at most 64, not 65"),
        (["simulate", "--workers", "0"], "argument --workers: must be at least 1, not 0"),
        (["simulate", "--hand-limit", "x"], "argument --hand-limit: expected a whole number"),
    ],
)
def test_bounds_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_workers_are_no_more_than_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--hands", "2", "--workers", "50", "--bots", "first"]) == 0
    assert ", 2 workers\n" in capsys.readouterr().out


def test_an_unreachable_target_stops_at_the_hand_limit(capsys: pytest.CaptureFixture[str]) -> None:
    result = gongzhu_command(
        "demo", "--match", "--target", "100000000", "--hand-limit", "3", "--seed", "1"
    )
    one_line_error(
        result,
        1,
        r"^gongzhu: the match did not end within 3 hands \(target 100000000, .*\): "
        r"raise --hand-limit or lower --target$",
    )
    assert result.stdout.count("\n") == 3  # the three hands were shown
    argv = ["simulate", "--matches", "--target", "100000000", "--hands", "2"]
    assert main([*argv, "--hand-limit", "5", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gongzhu: match 0: the match did not end within 5 hands (target")
    # a match without a target (huapai's end at ±1000 is its own) has no target to lower,
    # through a pool of workers too (the error is pickled back with its target)
    argv = ["simulate", "--matches", "--rules", "huapai", "--hands", "2", "--hand-limit", "1"]
    assert main([*argv, "--workers", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gongzhu: match 0: the match did not end within 1 hands (no target")
    assert err.endswith("): raise --hand-limit\n")
    # a match of a set number of hands is refused a limit below it, before it is played
    assert main(["demo", "--match", "--hands", "5", "--hand-limit", "2"]) == 2
    err = capsys.readouterr().err
    assert err == "gongzhu: --hand-limit 2 stops a match of 5 hands before its end\n"


# -- 8. habits ----------------------------------------------------------------------------------


def test_version_without_a_stdout_is_refused() -> None:
    """As every command with stdout closed: status 2 (argparse's own --version would print
    the version on stderr instead)."""
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", "--version"],
        stdout=None,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(1),
    )
    assert (result.returncode, result.stderr) == (2, "gongzhu: standard output is closed\n")


def test_version_and_help_list_the_bots(capsys: pytest.CaptureFixture[str]) -> None:
    result = gongzhu_command("--version")
    assert result.returncode == 0 and result.stdout == f"gongzhu {gongzhu.__version__}\n"
    for command in ("demo", "play", "simulate"):
        with pytest.raises(SystemExit) as info:
            main([command, "--help"])
        assert info.value.code == 0
        words = " ".join(capsys.readouterr().out.split())
        assert f"bots: {', '.join(sorted(BOTS))}" in words and "--bot " not in words


def test_bots_everywhere_and_the_old_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "3", "--bots", "first"]) == 0
    first = capsys.readouterr().out
    assert main(["demo", "--seed", "3", "--bot", "first"]) == 0
    assert capsys.readouterr().out == first
    assert main(["demo", "--seed", "3", "--bots", "first,first,first,first"]) == 0
    assert capsys.readouterr().out == first
    assert main(["play", "--seed", "3", "--bots", "first"], stdin=io.StringIO("q\n")) == 0


def test_colour_only_on_a_terminal_without_no_color(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main(["play", "--seed", "30"], stdin=io.StringIO("q\n")) == 0
    out = capsys.readouterr().out
    assert "♠Q" in out and "\x1b[" not in out  # not a terminal: symbols, no colour
    term = Terminal(["play", "--seed", "30"], env={"NO_COLOR": "1"})
    line = term.read_until(r"Your holding: (.*)\r?\n").group(1)
    assert "♠Q" in line and "\x1b[" not in line
    term.type("q")
    assert term.wait() == 0


def test_variants_name_shows_options_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants", "huapai"]) == 0
    out = capsys.readouterr().out
    rules = gongzhu.load_rules("huapai")
    assert out.startswith("huapai: ") and "kind: base ruleset" in out
    for option in rules.option_specs:
        if option.owner == "huapai":
            assert f"--option {option.name}=VALUE  default {json.dumps(option.default)}" in out
            assert option.help.split("\n")[0] in out
    assert main(["variants", "anmai"]) == 0
    assert "kind: modifier" in capsys.readouterr().out
    result = gongzhu_command("variants", "no-such-variant")
    # an unknown variant is invalid input (status 1), as with --rules
    one_line_error(
        result, 1, r"^gongzhu: no gongzhu variant named 'no-such-variant'; installed: .*huapai"
    )
    demo = gongzhu_command("demo", "--rules", "no-such-variant")
    assert demo.stderr.splitlines() == result.stderr.splitlines()


def test_summary_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--hands", "1", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "\n1 hand\n" in out and ", 1 worker\n" in out
    assert out.count("(standard error n/a)") == 4
    assert main(["simulate", "--hands", "20", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "\n20 hands\n" in out
    assert re.search(
        r"seat 0 \(random\): mean final score [+-]\d+\.\d \(standard error \d+\.\d\)", out
    )
    assert "±" not in out and "(s)" not in out


def test_matches_without_an_end_are_refused_before_playing(tmp_path: Path) -> None:
    """39baobao matches end by a target only: without one, refused at once (not after
    --hand-limit hands), and the --out file is not touched."""
    existing = tmp_path / "existing.jsonl"
    existing.write_bytes(b"precious\n")
    result = gongzhu_command("simulate", "--matches", "--hands", "2", "--out", str(existing))
    one_line_error(result, 2, r"39baobao matches have no end of their own: give --target")
    assert existing.read_bytes() == b"precious\n"
    assert folder_listing(tmp_path) == ["existing.jsonl"]

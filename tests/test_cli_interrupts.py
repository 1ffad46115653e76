"""Issue 39: long runs stop promptly on Ctrl-C, keep their finished work, start in little
memory, and never lose or empty an existing file.

Each test runs the real command in a subprocess, as a user would, and reads its exit
status, its one line on standard error and the files it leaves.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gongzhu

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads /proc (Linux)"
)


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gongzhu", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: object, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    pytest.fail("the run did not get there in time")


def peak_memory_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def part_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.glob(".*.part"))


def interrupt(process: subprocess.Popen[str]) -> tuple[str, str, float]:
    """Ctrl-C: its output and how long it took to stop."""
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    return stdout, stderr, time.monotonic() - sent


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_of_a_trillion_hands_starts_at_once_in_little_memory(
    tmp_path: Path, workers: str
) -> None:
    """It used to build the list of its chunks first: 23.8 GB before the first hand."""
    out = tmp_path / "run.jsonl"
    process = start("simulate", "--hands", str(10**12), "--workers", workers, "--out", str(out))
    wait_for(lambda: part_size(tmp_path) > 50_000)
    assert peak_memory_mb(process.pid) < 300
    _stdout, stderr, took = interrupt(process)
    assert process.returncode == 130, stderr
    found = re.fullmatch(r"gongzhu: interrupted after ([\d,]+) hands\n", stderr)
    assert found is not None, stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == int(found.group(1).replace(",", ""))
    json.loads(lines[-1])  # whole lines only
    assert took < 2


def test_a_ctrl_c_never_replaces_an_existing_file(tmp_path: Path) -> None:
    """It used to rename the run cut short onto the old file."""
    out = tmp_path / "run.jsonl"
    out.write_text("the old records\n", encoding="utf-8")
    process = start("simulate", "--hands", "200000", "--bots", "first", "--out", str(out))
    wait_for(lambda: part_size(tmp_path) > 20_000)
    stdout, stderr, _took = interrupt(process)
    assert process.returncode == 130, stderr
    assert out.read_text(encoding="utf-8") == "the old records\n"
    kept = tmp_path / "run.jsonl.interrupted"
    found = re.fullmatch(
        rf"gongzhu: interrupted after ([\d,]+) hands; {re.escape(str(out))} is unchanged, "
        rf"the records so far are in {re.escape(str(kept))}\n",
        stderr,
    )
    assert found is not None, stderr
    lines = kept.read_text(encoding="utf-8").splitlines()
    assert len(lines) == int(found.group(1).replace(",", ""))
    assert f"{len(lines):,} hands (of 200,000, interrupted)" in stdout or (
        f"{len(lines)} hands (of 200,000, interrupted)" in stdout
    )
    gongzhu.replay(json.loads(lines[0]), hand=0)
    assert stdout.endswith(f"records: {kept}\n")
    # a second run cut short keeps the first one's records too
    process = start("simulate", "--hands", "200000", "--bots", "first", "--out", str(out))
    wait_for(lambda: part_size(tmp_path) > 20_000)
    _stdout, stderr, _took = interrupt(process)
    assert "run.jsonl.interrupted.2" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run.jsonl",
        "run.jsonl.interrupted",
        "run.jsonl.interrupted.2",
    ]


def test_a_ctrl_c_as_the_run_starts_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """It used to empty it (7,314 bytes to 0)."""
    out = tmp_path / "run.jsonl"
    out.write_text("the old records\n", encoding="utf-8")
    for delay in (0.5, 1.0, 1.5):
        process = start("simulate", "--hands", "200000", "--bots", "first", "--out", str(out))
        time.sleep(delay)
        _stdout, stderr, _took = interrupt(process)
        assert process.returncode == 130, stderr
        assert stderr.count("\n") == 1
        assert out.read_text(encoding="utf-8") == "the old records\n"
        for extra in tmp_path.iterdir():  # the records of a run cut short, if any, beside it
            if extra != out:
                assert extra.name.startswith("run.jsonl.interrupted"), extra
                extra.unlink()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_ctrl_c_stops_thinking_bots_within_two_seconds(tmp_path: Path, workers: str) -> None:
    """It used to wait for the chunk in hand: search bots on two decks ran on for minutes."""
    out = tmp_path / "run.jsonl"
    process = start(
        "simulate",
        "--rules",
        "two-deck",
        "--bots",
        "search",
        "--hands",
        "50",
        "--workers",
        workers,
        "--out",
        str(out),
    )
    time.sleep(4)  # loaded, and thinking
    _stdout, stderr, took = interrupt(process)
    assert process.returncode == 130, stderr
    assert stderr.startswith("gongzhu: interrupted") and stderr.count("\n") == 1
    assert took < 2
    assert not list(tmp_path.glob(".*.part"))


def test_a_ctrl_c_keeps_the_arenas_finished_deals() -> None:
    """It used to drop them all (about 3,500 in the case measured)."""
    for delay in (4, 12):  # (a slow start may leave no deal finished in the first)
        process = start("arena", "rules", "random", "--deals", "100000", "--json")
        time.sleep(delay)
        stdout, stderr, took = interrupt(process)
        assert process.returncode == 130, stderr
        found = re.fullmatch(r"gongzhu: interrupted after ([\d,]+) deals\n", stderr)
        if found is not None:
            break
    assert found is not None, stderr
    result = json.loads(stdout)
    assert result["deals"] == int(found.group(1).replace(",", "")) > 0
    assert result["interrupted"] is True and result["requested"] == 100_000
    assert result["a"] == "rules" and result["hands"] == 2 * result["deals"]
    assert took < 2


def test_records_cut_short_are_kept_without_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system without hard links the records so far were deleted."""
    import os

    from gongzhu.cli.records import Records

    out = tmp_path / "run.jsonl"
    out.write_text("old\n", encoding="utf-8")
    sink = Records(str(out))
    sink.write("a record\n")

    def no_links(*_args: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    kept = sink.keep_partial(True)
    assert kept == f"{out}.interrupted"
    assert Path(kept).read_text(encoding="utf-8") == "a record\n"
    assert out.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl", "run.jsonl.interrupted"]

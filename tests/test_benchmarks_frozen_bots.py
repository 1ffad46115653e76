"""benchmarks/frozen_bots.py: this checkout's bots against a reference revision's, in a
worker process, run by ``--self-test`` with this Python as the reference.

The real reference (commit 1478c10) needs a venv of its own, which no test builds; the
self-test plays tiny matches through the same driver and worker, and checks them against
the arena: identical bots score exactly 0, different ones exactly what ``run_arena`` gives
(shows, two decks and secret sales included), whatever the number of processes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "frozen_bots.py"


def test_the_frozen_bots_benchmark_passes_its_self_test() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--self-test"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "rules against itself: +0.0 (exactly 0)" in out
    assert "two-deck, shows" in out and "anmai, shows" in out
    assert "two processes: the same deals' values as one" in out
    assert "self-test passed" in out


def test_the_frozen_bots_benchmark_refuses_bad_counts() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--deals", "0"], capture_output=True, text=True, timeout=20
    )
    assert run.returncode == 2 and "--deals, --workers and --samples" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_bad_budget_a_missing_reference_and_a_closed_pipe_end_without_a_traceback() -> None:
    def run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(SCRIPT), *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            **kwargs,  # type: ignore[call-overload]
        )

    for budget in ("-5", "0", "nan", "soon"):
        bad = run("--budget-ms", budget, "--deals", "1")
        assert bad.returncode == 2 and "positive number of milliseconds" in bad.stderr
        assert "Traceback" not in bad.stderr
    missing = run("--reference-python", "/nonexistent/python", "--deals", "1")
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert (
        missing.stderr.strip()
        == "frozen_bots: --reference-python /nonexistent/python: no such file"
    )
    piped = subprocess.run(  # a reader that leaves after one line: | head -1
        [
            "bash",
            "-c",
            "set -o pipefail; "
            f"{sys.executable} {SCRIPT} --reference-python {sys.executable} --deals 4 "
            "--samples 2 --match rules:rules --match random:random | head -1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert piped.stdout.startswith("reference:") and piped.stderr == ""
    assert piped.returncode == 0

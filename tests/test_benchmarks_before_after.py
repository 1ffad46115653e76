"""benchmarks/before_after.py: its measures, worker and report, run once by ``--self-test``.

The comparison itself builds a venv per revision, which no test does; the
self-test runs every measure with tiny counts in this Python instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "before_after.py"


def test_the_before_after_benchmark_passes_its_self_test() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--self-test"], capture_output=True, text=True, timeout=20
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "self-test passed" in out
    for measure in ("step 39baobao", "bulk two-deck", "search bot", "heuristic bot", "strength"):
        assert f"{measure}: " in out


def test_the_before_after_benchmark_needs_a_base() -> None:
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=20)
    assert run.returncode == 2 and "--base is required" in run.stderr
    assert "Traceback" not in run.stderr

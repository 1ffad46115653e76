"""The time of ``import gongzhu`` and ``load_rules()`` against ``import attrs, pluggy``.

    python benchmarks/import_time.py [--repeat N]

Each row is the median of N fresh interpreters (``python -c``), the rows
alternating run for run (so that the machine's speed drifting during the run
does not skew a ratio), timed from the code's first statement to its last (the
interpreter's own start-up and :mod:`site` left out), with the bytecode cached:
a first, unmeasured round writes it, even where ``PYTHONDONTWRITEBYTECODE`` is
set.  The interpreters run in an empty temporary directory, so that only the
installed distributions are on :data:`sys.path`.

* ``import attrs, pluggy``: gongzhu's two dependencies, the reference;
* ``import gongzhu``;
* ``import gongzhu; gongzhu.load_rules()``: the base ruleset, its plug-in found
  by entry point (:func:`gongzhu.discovery.entry_points`);
* the same with :mod:`importlib.metadata` imported first, which
  :mod:`gongzhu.discovery` then reads the entry points with: what its own reader
  of the metadata files saves (it is kept only while that is more than 10 ms);
* ``importlib.metadata.entry_points(group="gongzhu.variants")`` alone, the
  import of :mod:`importlib.metadata` included.

The ceiling: ``import gongzhu`` + ``load_rules()`` at most 4x the time of
``import attrs, pluggy``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence

CEILING = 4.0
"""``import gongzhu`` + ``load_rules()``: at most this many times ``import attrs, pluggy``."""

SAVING_KEPT = 0.010
"""Seconds :mod:`gongzhu.discovery`'s own reader of entry points must save to be kept."""

REFERENCE = "import attrs, pluggy"
LOAD_RULES = "import gongzhu; gongzhu.load_rules()"
WITH_METADATA = "import gongzhu, importlib.metadata; gongzhu.load_rules()"
ENTRY_POINTS = (
    'import importlib.metadata; importlib.metadata.entry_points(group="gongzhu.variants")'
)

ROWS = {
    REFERENCE: "import attrs, pluggy",
    "import gongzhu": "import gongzhu",
    LOAD_RULES: "import gongzhu; load_rules()",
    WITH_METADATA: "  the same, importlib.metadata imported first",
    ENTRY_POINTS: "importlib.metadata.entry_points(group=...)",
}
"""The code timed -> its row's label."""


def fresh_env() -> dict[str, str]:
    """This process's environment, bytecode writing allowed (so that it gets cached)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_fresh(code: str, cwd: str) -> str:
    """The standard output of ``code`` run in a fresh interpreter in ``cwd``."""
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, env=fresh_env(), cwd=cwd)
    if done.returncode:
        raise SystemExit(f"{code}\nfailed:\n{done.stderr}")
    return done.stdout


def time_fresh(code: str, cwd: str) -> float:
    """Seconds ``code`` takes in a fresh interpreter, start-up left out."""
    timed = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
    return float(run_fresh(timed, cwd).split()[-1])


def median_times(codes: Sequence[str], repeat: int, cwd: str) -> list[float]:
    """The median seconds of each of ``codes`` over ``repeat`` fresh interpreters, the codes
    alternating run for run, after one unmeasured round that writes the bytecode."""
    for code in codes:
        time_fresh(code, cwd)
    rounds = [[time_fresh(code, cwd) for code in codes] for _ in range(repeat)]
    return [statistics.median(times) for times in zip(*rounds, strict=True)]


def distribution_count(cwd: str) -> int:
    """How many distributions :mod:`importlib.metadata` finds on a fresh interpreter's path."""
    code = "import importlib.metadata as m; print(len(list(m.distributions())))"
    return int(run_fresh(code, cwd))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="fresh interpreters per row")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as cwd:
        count = distribution_count(cwd)
        medians = dict(zip(ROWS, median_times(list(ROWS), args.repeat, cwd), strict=True))

    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {sys.prefix}")
    print(f"{count} distributions on sys.path; median of {args.repeat} fresh interpreters\n")
    reference = medians[REFERENCE]
    width = max(map(len, ROWS.values()))
    print(f"{'':<{width}}  {'ms':>7}  {'x attrs, pluggy':>15}")
    for code, seconds in medians.items():
        print(f"{ROWS[code]:<{width}}  {seconds * 1000:>7.1f}  {seconds / reference:>14.2f}x")

    ratio = medians[LOAD_RULES] / reference
    verdict = "within" if ratio <= CEILING else "OVER"
    print(f"\nimport gongzhu + load_rules(): {ratio:.2f}x import attrs, pluggy")
    print(f"  ({verdict} the ceiling, {CEILING:g}x)")
    saving = medians[WITH_METADATA] - medians[LOAD_RULES]
    print(f"importlib.metadata imported first: {saving * 1000:+.1f} ms to load_rules()")
    print(
        f"  (gongzhu.discovery's own reader is kept only while it saves more than "
        f"{SAVING_KEPT * 1000:g} ms)"
    )


if __name__ == "__main__":
    main()

"""``gongzhu simulate`` against the bulk API (:func:`gongzhu.simulate`), per core.

    python benchmarks/cli_overhead.py [--hands N] [--rules NAME ...] [--repeat R]

Times, best of ``--repeat``, for N random hands on one core:

* ``gongzhu.simulate(rules, N)``, the bulk API, in this process;
* :func:`gongzhu.runner.run` with one worker, the engine of the command, in
  this process (no records, as without ``--out``);
* ``gongzhu simulate --hands N --workers 1``, the real command in a
  subprocess (its start-up included), without and with ``--out`` (which
  builds and writes every record).

The command should stay within 1.5x of the bulk API without ``--out``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import gongzhu
from gongzhu.runner import Job, run


def best(repeat: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def command(hands: int, names: list[str], *extra: str) -> Callable[[], object]:
    rules = ["--rules", *names] if names else []
    argv = [sys.executable, "-m", "gongzhu", "simulate", "--hands", str(hands), *rules, *extra]
    return lambda: subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--rules", nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rules = gongzhu.load_rules(*args.rules)
    job = Job(rules.names, tuple(sorted(rules.options.items())), ("random",) * 4, seed=0)
    n = args.hands
    startup = best(
        args.repeat,
        lambda: subprocess.run(
            [sys.executable, "-m", "gongzhu", "--version"], check=True, stdout=subprocess.DEVNULL
        ),
    )
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "run.jsonl")
        rows = [
            ("gongzhu.simulate (bulk API)", best(args.repeat, lambda: gongzhu.simulate(rules, n))),
            ("runner.run, 1 worker, no records", best(args.repeat, lambda: run(job, n))),
            ("gongzhu simulate (command)", best(args.repeat, command(n, args.rules))),
            (
                "gongzhu simulate --out FILE",
                best(args.repeat, command(n, args.rules, "--out", out)),
            ),
        ]
    bulk = rows[0][1]
    print(f"python {platform.python_version()} on {platform.machine()}, rules {rules!r}")
    print(f"{n} random hands, one core, best of {args.repeat}; command start-up {startup:.3f} s")
    for name, seconds in rows:
        print(
            f"  {name:<36} {seconds:7.3f} s  {n / seconds:>9,.0f} hands/s  {seconds / bulk:5.2f}x"
        )


if __name__ == "__main__":
    main()

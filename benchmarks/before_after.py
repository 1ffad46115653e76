"""Two revisions of gongzhu measured in one run: step, bulk, bots, encoder, and strength.

    python benchmarks/before_after.py --base REV [--head REV | --head-dir DIR]
                                      [--rounds N] [--scale X] [--quick]
                                      [--search-samples N] [--strength-deals N]
                                      [--strength-samples N] [--cache-dir DIR]
                                      [--rebuild] [--json]
    python benchmarks/before_after.py --self-test

A refactor should cost no speed.  This installs each revision in a venv of
its own and measures both in the same run, so the ratios are taken under the
same load.  ``--base`` is a revision (a commit, a branch, a tag); the head is
``--head REV``, or ``--head-dir DIR``, a checkout measured as it is, uncommitted
work included (default: the checkout this script is in).  A revision is
checked out in a detached ``git worktree`` under a temporary directory and
installed (``pip install``, numpy too) into a venv cached by its commit
under ``--cache-dir``; a directory is installed editable (``pip install -e``)
into a venv cached by its path, built again when its build inputs change
(``pyproject.toml``, the C sources).  Both sides must have the C engines
(``gongzhu.engines.ACCELERATED``): the run stops with a message if not.

Each side runs a worker process (this script, with that venv's Python and
only public APIs that the base has: ``load_rules``, ``new_hand``,
``legal_actions``/``apply``, ``simulate``, ``make_bot``/``choose``,
``HandEncoder``), and the driver asks the two in rounds, each measure of a
round run by one side then the other, the order swapped every round (A B,
B A, ...), so that the machine's load falls on both alike.  The measures:

* ``step``: decisions a second, seeded random legal actions through
  ``HandState.legal_actions()`` + ``apply()``; 39baobao and two decks;
* ``bulk``: hands a second of :func:`gongzhu.simulate` (random play), the same;
* ``search``: decisions a second of the ``search`` bot at a fixed number of
  sampled deals a decision (``--search-samples``, no time limit: the same work
  on both sides), and of the ``heuristic`` bot, on the same views (the first
  decisions with a choice of the hands the ``rules`` bot plays, as
  ``benchmarks/search_speed.py`` takes them);
* ``encoder``: microseconds a ``HandEncoder.observe()`` of the seat to move,
  over seeded random hands;
* ``strength`` (``--strength-deals N``; skipped by default): the search bot
  against the random bot on the same duplicate deals on both sides (seats 0
  and 2 against 1 and 3, then the teams swapped: :func:`gongzhu.arena.play_deal`),
  not timed.

Every run is timed in the processor time of the worker's thread, which other
programs do not take (on a virtual machine, time the host takes from it may
still count).  How to read it: per measure, the median of each side's runs,
and the speed ratio head/base (for the encoder's microseconds, base/head:
above 1 is faster either way), which is the median of the rounds' own ratios
(each of two runs made one after the other, so sharing the machine's load),
with the middle half of those ratios, which shows the noise; a goal's
verdict is "no loss" when each of its ratios is at least 0.95.  On a busy
machine a single run varies by 15% or more, even in processor time, which is
why a run is short and there are many rounds (41: a few percent between runs
of a revision against itself); take a "LOSS" close to 0.95, and one marked
"noisy" (a quarter of the rounds or more at or above 1), as a reason to run
again with more ``--rounds``, not as a finding.  Strength gives each side's
mean raw points per hand (search − random) ± one standard error over deals,
and head − base with its standard error paired over the same deals ("DROP"
when it is more than two standard errors below 0).  Each measure also reports
its work (decisions made, a digest of the choices): "different work" marks a
measure whose two sides did not play the same hands, so that its ratio
compares different work (a refactor that changes the order of the legal
actions does that).

``--quick`` runs small counts (a smoke test: well under two minutes once the
venvs are built); ``--self-test`` runs each measure once in this Python with
tiny counts, and one worker, without any venv (the tests run it).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve()
CLOCK = time.thread_time
"""What a run's time is measured in: the processor time of the worker's thread, which
other programs on a busy machine do not take (as the search bot's ``clock="cpu"``)."""
NO_LOSS = 0.95
"""A speed ratio (head/base) from which a goal counts as met."""


# -- the measures: run in a worker, with the revision's gongzhu -------------------------


@functools.lru_cache(maxsize=8)
def _rules(variants: tuple[str, ...]) -> Any:
    import gongzhu

    return gongzhu.load_rules(*variants)


def _digest(parts: Sequence[object]) -> str:
    return hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:10]


def step_rate(variants: tuple[str, ...], hands: int) -> tuple[float, str]:
    """Decisions a second: ``hands`` seeded hands, random legal actions, ``apply()``."""
    rules = _rules(variants)
    choice = random.Random(1).choice
    decisions = 0
    start = CLOCK()
    for i in range(hands):
        hand = rules.new_hand(seed=i)
        while not hand.is_over:
            hand.apply(choice(hand.legal_actions()))
            decisions += 1
    return decisions / (CLOCK() - start), f"{decisions} decisions"


def bulk_rate(variants: tuple[str, ...], hands: int) -> tuple[float, str]:
    """Hands a second of ``gongzhu.simulate`` (uniformly random play)."""
    import gongzhu

    rules = _rules(variants)
    start = CLOCK()
    summary = gongzhu.simulate(rules, hands, seed=0)
    rate = hands / (CLOCK() - start)
    return rate, "means " + _digest([round(x, 6) for x in summary.mean_final])


@functools.lru_cache(maxsize=4)
def views(count: int) -> list[Any]:
    """The first ``count`` play decisions with a choice, from hands the ``rules`` bot plays
    (as ``benchmarks/search_speed.py`` takes them)."""
    from gongzhu.bots import make_bot
    from gongzhu.view import Phase

    rules = _rules(())
    player = make_bot("rules", rules=rules)
    found: list[Any] = []
    seed = 0
    while len(found) < count:
        hand = rules.new_hand(seed=seed)
        while not hand.is_over:
            seat = hand.to_move
            view = hand.view(seat)
            if view.phase is Phase.PLAY and len(view.legal_actions) > 1:
                found.append(view)
            hand.apply(player.choose(view))
        seed += 1
    return found[:count]


def bot_rate(name: str, decisions: int, samples: int | None = None) -> tuple[float, str]:
    """Decisions a second of a fresh bot ``name`` over the first ``decisions`` views; the
    search bot at ``samples`` sampled deals a decision and no time limit."""
    from gongzhu.bots import make_bot

    chosen = views(decisions)
    options: dict[str, Any] = {}
    if samples is not None:
        options = {"budget_ms": None, "samples": samples}
    bot = make_bot(name, seed=1, rules=_rules(()), **options)
    choose = bot.choose
    start = CLOCK()
    actions = [choose(view) for view in chosen]
    rate = len(chosen) / (CLOCK() - start)
    return rate, "choices " + _digest(actions)


def encoder_us(hands: int) -> tuple[float, str]:
    """Microseconds a ``HandEncoder.observe()`` of the seat to move, over seeded random hands
    (the encoder catching up with the action just played included).

    The hands are played at random once, untimed; then replayed twice, with an
    ``observe()`` before each action and without: the difference of the two
    times, over the observations made.
    """
    from gongzhu.envs.fast import HandEncoder

    rules = _rules(())
    choice = random.Random(2).choice
    played = []
    for i in range(hands):
        hand = rules.new_hand(seed=i)
        actions = []
        while not hand.is_over:
            actions.append(choice(hand.legal_actions()))
            hand.apply(actions[-1])
        played.append(actions)
    encoder = HandEncoder(rules)
    observe = encoder.observe
    total = 0.0

    def replay(observing: bool) -> float:
        nonlocal total
        start = CLOCK()
        for i, actions in enumerate(played):
            hand = rules.new_hand(seed=i)
            encoder.reset(hand)
            for action in actions:
                if observing:
                    total += observe(hand.to_move)[0][0]
                hand.apply(action)
        return CLOCK() - start

    spent = replay(True) - replay(False)
    count = sum(map(len, played))
    return max(spent, 1e-9) / count * 1e6, f"{count} observations, first cells {total:.0f}"


def _play_deal_here(rules: Any, seed: int, options: dict[str, Any]) -> float:
    """One duplicate 2-vs-2 deal of search against random (for a gongzhu without
    :func:`gongzhu.arena.play_deal`): search's mean team advantage per hand."""
    from gongzhu.bots import make_bot

    total = 0
    for mine, names in (((0, 2), ("search", "random") * 2), ((1, 3), ("random", "search") * 2)):
        bots = [
            make_bot(name, seed=seed * 4 + seat, rules=rules, format="2v2", **options.get(name, {}))
            for seat, name in enumerate(names)
        ]
        hand = rules.new_hand(seed=seed)
        while not hand.is_over:
            seat = hand.to_move
            hand.apply(bots[seat].choose(hand.view(seat)))
        raw = hand.score().raw
        ours = sum(raw[s] for s in mine)
        total += ours - (sum(raw) - ours)
    return total / 2


def strength(deals: int, samples: int) -> list[float]:
    """Per deal 0 … ``deals`` − 1 (39baobao, no shows): the search bot's mean advantage in
    raw points per hand over the random bot, 2 against 2, each deal with the teams swapped."""
    rules = _rules(())
    options = {"search": {"budget_ms": None, "samples": samples}}
    try:
        from gongzhu.arena import play_deal
    except ImportError:
        return [_play_deal_here(rules, seed, options) for seed in range(deals)]
    return [
        play_deal(rules, seed, "search", "random", format="2v2", options=options)
        for seed in range(deals)
    ]


@dataclass(frozen=True)
class Measure:
    """One timed measure: its goal, unit, work per run (normal and ``--quick``) and code."""

    name: str
    goal: str
    unit: str
    higher_is_better: bool
    count: int
    quick: int
    run: Callable[[int, int], tuple[float, str]]  # (count, search samples) -> value, work


TWO_DECKS = ("39baobao", "two-deck")
SPEED, HANDS, MICROSECONDS = "decisions/s", "hands/s", "µs/observation"

MEASURES: tuple[Measure, ...] = (
    # name, goal, unit, higher is better, work a run (normal, quick), the code
    Measure("step 39baobao", "step", SPEED, True, 1000, 500, lambda n, _: step_rate((), n)),
    Measure("step two-deck", "step", SPEED, True, 400, 200, lambda n, _: step_rate(TWO_DECKS, n)),
    Measure("bulk 39baobao", "bulk", HANDS, True, 3000, 1500, lambda n, _: bulk_rate((), n)),
    Measure("bulk two-deck", "bulk", HANDS, True, 1200, 600, lambda n, _: bulk_rate(TWO_DECKS, n)),
    Measure("search bot", "search", SPEED, True, 40, 20, lambda n, s: bot_rate("search", n, s)),
    Measure("heuristic bot", "search", SPEED, True, 80, 40, lambda n, _: bot_rate("heuristic", n)),
    Measure(
        "encoder observe()", "encoder", MICROSECONDS, False, 200, 100, lambda n, _: encoder_us(n)
    ),
)
BY_NAME = {m.name: m for m in MEASURES}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """What a worker answers to one request (a measure, or the strength run)."""
    try:
        if "strength" in request:
            return {"values": strength(request["strength"], request["samples"])}
        measure = BY_NAME[request["measure"]]
        value, work = measure.run(request["count"], request["samples"])
        return {"value": value, "work": work}
    except Exception:
        return {"error": traceback.format_exc()}


def worker(
    stdin: IO[str],
    stdout: IO[str],
    answer: Callable[[dict[str, Any]], dict[str, Any]] = answer,
) -> None:
    """Say which gongzhu this is, then answer one JSON request a line until stdin closes.

    ``answer`` gives the reply to a request (default: this script's measures; another
    benchmark's worker passes its own, as ``benchmarks/frozen_bots.py`` does).
    """
    import gongzhu
    import gongzhu.engines

    try:
        import numpy  # noqa: F401

        numpy_found = True
    except ImportError:
        numpy_found = False
    hello = {
        "gongzhu": str(Path(gongzhu.__file__).parent),
        "accelerated": bool(gongzhu.engines.ACCELERATED),
        "numpy": numpy_found,
        "python": sys.version.split()[0],
    }
    print(json.dumps(hello), file=stdout, flush=True)
    for line in stdin:
        if line.strip():
            print(json.dumps(answer(json.loads(line))), file=stdout, flush=True)


# -- the driver: venvs, workers, rounds, the report ----------------------------------------


class Failure(Exception):
    """A run that cannot go on: the message says why."""


def _git(repo: Path, *args: str) -> str:
    run = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if run.returncode:
        raise Failure(f"git {' '.join(args)} failed: {run.stderr.strip()}")
    return run.stdout.strip()


def _pip_install(home: Path, *targets: str) -> Path:
    """A venv at ``home/venv`` with ``targets`` installed (and numpy): its Python."""
    venv = home / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    log = home / "pip.log"
    with log.open("w") as out:
        run = subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", *targets, "numpy"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if run.returncode:
        tail = "".join(log.read_text().splitlines(keepends=True)[-15:])
        raise Failure(f"pip install {' '.join(targets)} failed (log: {log}):\n{tail}")
    probe = subprocess.run(
        [str(python), "-I", "-c", "import gongzhu.engines as e; print(e.ACCELERATED)"],
        capture_output=True,
        text=True,
        env=_clean_env(),
    )
    if probe.stdout.strip() != "True":
        raise Failure(
            f"the C engines were not built for {' '.join(targets)} "
            f"(gongzhu.engines.ACCELERATED is not True; a C compiler is needed; "
            f"pip's log: {log}){probe.stderr[-500:]}"
        )
    return python


def _clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GONGZHU_PURE_PYTHON", None)  # both sides with their C engines
    return env


def _python_tag() -> str:
    return f"py{sys.version_info.major}{sys.version_info.minor}"


def commit_env(repo: Path, commit: str, cache: Path, rebuild: bool) -> Path:
    """The Python of a venv with ``commit`` installed, from a detached worktree (cached)."""
    home = cache / f"{commit}-{_python_tag()}"
    python = home / "venv" / "bin" / "python"
    if not rebuild and (home / "ok").exists() and python.exists():
        return python
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    print(f"installing {commit[:9]} into {home} ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="gongzhu-tree-") as tmp:
        tree = Path(tmp) / "tree"
        _git(repo, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        try:
            python = _pip_install(home, str(tree))
        finally:
            _git(repo, "worktree", "remove", "--force", str(tree))
    (home / "ok").write_text(commit)
    return python


def _build_inputs(tree: Path) -> str:
    """A digest of what an editable install builds from: the metadata and the C sources."""
    files = [tree / name for name in ("pyproject.toml", "setup.py", "setup.cfg")]
    files += sorted((tree / "gongzhu").rglob("*.[ch]"))
    hasher = hashlib.sha1()
    for path in files:
        if path.is_file():
            hasher.update(str(path.relative_to(tree)).encode() + b"\0" + path.read_bytes())
    return hasher.hexdigest()


def dir_env(tree: Path, cache: Path, rebuild: bool) -> Path:
    """The Python of a venv with the checkout ``tree`` installed editable (cached by path,
    installed again when its build inputs change)."""
    key = hashlib.sha1(str(tree).encode()).hexdigest()[:12]
    home = cache / f"dir-{key}-{_python_tag()}"
    python = home / "venv" / "bin" / "python"
    stamp = _build_inputs(tree)
    ok = home / "ok"
    if not rebuild and ok.exists() and ok.read_text() == stamp and python.exists():
        return python
    home.mkdir(parents=True, exist_ok=True)
    ok.unlink(missing_ok=True)
    print(f"installing {tree} (editable) into {home} ...", file=sys.stderr, flush=True)
    python = _pip_install(home, "-e", str(tree))
    ok.write_text(stamp)
    return python


@dataclass
class Side:
    """One revision: how the report names it, and its worker."""

    label: str
    describe: str
    python: Path
    tree: Path | None = None
    """A checkout installed editable: the worker must import gongzhu from it."""
    script: Path = HERE
    """The script run as the worker (with ``--worker``): this one, or another benchmark's
    that answers its own requests through :func:`worker`."""
    process: subprocess.Popen[str] | None = None
    hello: dict[str, Any] | None = None

    def start(self, cwd: str) -> None:
        self.process = subprocess.Popen(
            [str(self.python), "-I", str(self.script), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=_clean_env(),
        )
        self.hello = self._read()
        if not self.hello.get("accelerated"):
            raise Failure(
                f"{self.label}: the C engines are not built in {self.hello.get('gongzhu')} "
                "(gongzhu.engines.ACCELERATED is False); run again with --rebuild, "
                "with a C compiler installed"
            )
        where = Path(self.hello.get("gongzhu", ""))
        if self.tree is not None and not where.is_relative_to(self.tree):
            raise Failure(
                f"{self.label}: {self.python} imports gongzhu from {where}, not from "
                f"{self.tree}; run again with --rebuild"
            )
        if not self.hello.get("numpy"):
            raise Failure(f"{self.label}: numpy is missing from {self.python}")

    def _read(self) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise Failure(f"{self.label}: the worker ({self.python}) stopped; see above")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = self._read()
        if "error" in reply:
            raise Failure(f"{self.label}: {request} failed in the worker:\n{reply['error']}")
        return reply

    def stop(self) -> None:
        if self.process is not None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self.process = None


def summarise(
    base: Sequence[float], head: Sequence[float], higher_is_better: bool
) -> dict[str, float]:
    """Each side's median, and the speed ratio head/base (base/head for a time).

    The ratio is the median of the rounds' own ratios (each of one round's two
    runs, made one after the other): on a busy machine a pair shares its load
    more than two medians over the whole run do.  ``low`` and ``high`` are the
    quartiles of those ratios (their middle half), ``of_medians`` the ratio of
    the two medians.
    """
    rounds = sorted(h / b if higher_is_better else b / h for b, h in zip(base, head, strict=True))
    b, h = statistics.median(base), statistics.median(head)
    low, high = (rounds[0], rounds[-1]) if len(rounds) < 4 else _quartiles(rounds)
    return {
        "base": b,
        "head": h,
        "ratio": statistics.median(rounds),
        "low": low,
        "high": high,
        "of_medians": h / b if higher_is_better else b / h,
    }


def _quartiles(values: Sequence[float]) -> tuple[float, float]:
    q1, _, q3 = statistics.quantiles(values, n=4)
    return q1, q3


def mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error (0 for fewer than two values)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, statistics.stdev(values) / math.sqrt(len(values))


def compare_strength(base: Sequence[float], head: Sequence[float]) -> dict[str, Any]:
    """Each side's mean ± standard error, and head − base paired over the same deals."""
    b, b_se = mean_stderr(base)
    h, h_se = mean_stderr(head)
    d, d_se = mean_stderr([y - x for x, y in zip(base, head, strict=True)])
    if list(base) == list(head):
        verdict = "no drop (identical play on every deal)"
    else:
        verdict = "DROP" if d < -2 * d_se else "no drop"
    return {
        "deals": len(base),
        "base": b,
        "base_stderr": b_se,
        "head": h,
        "head_stderr": h_se,
        "difference": d,
        "difference_stderr": d_se,
        "verdict": verdict,
    }


def goals(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per goal: its lowest speed ratio, and the verdict of that measure."""
    out: dict[str, dict[str, Any]] = {}
    for measure in MEASURES:
        row = rows.get(measure.name)
        if row is None:
            continue
        goal = out.setdefault(measure.goal, {"ratio": math.inf, "measures": []})
        if row["ratio"] < goal["ratio"]:
            goal.update(ratio=row["ratio"], verdict=_verdict(row))
        goal["measures"].append(measure.name)
    return out


def _verdict(row: dict[str, Any]) -> str:
    if row["ratio"] >= NO_LOSS:
        return "no loss"
    return "LOSS (noisy: rounds reach 1)" if row["high"] >= 1 else "LOSS"


def report(result: dict[str, Any]) -> str:
    """The run's result as text."""
    lines = [
        f"base: {result['base']['describe']}",
        f"head: {result['head']['describe']}",
        f"python {result['python']}, C engines on both sides; {result['rounds']} rounds, "
        f"the sides alternating; search bot at {result['search_samples']} samples a decision"
        + ("; --quick: a smoke test, its ratios within the noise" if result.get("quick") else ""),
        "",
        f"{'measure':<20} {'unit':<15} {'base':>11} {'head':>11} {'speed':>7}  "
        f"{'rounds':<11}  verdict",
    ]
    for name, row in result["measures"].items():
        digits = 2 if row["base"] < 100 else 0
        verdict = _verdict(row)
        if not row["same_work"]:
            verdict += f" (different work: {row['work_base']} / {row['work_head']})"
        lines.append(
            f"{name:<20} {row['unit']:<15} {row['base']:>11,.{digits}f} "
            f"{row['head']:>11,.{digits}f} {row['ratio']:>6.3f}x  "
            f"{row['low']:.2f}-{row['high']:.2f}  {verdict}"
        )
    for name, reason in result.get("skipped", {}).items():
        lines.append(f"{name:<20} skipped: {reason}")
    lines += [
        "",
        "speed: head/base (base/head for µs), the median of the rounds' ratios (each of one "
        "round's two runs);",
        "rounds: the middle half of those ratios (all of them under 4 rounds); "
        "noisy: its top reaches 1",
        f"goals (no loss: every ratio >= {NO_LOSS}):",
    ]
    for goal, row in result["goals"].items():
        lines.append(
            f"  {goal:<9} {row['ratio']:.3f}x  {row['verdict']}  ({', '.join(row['measures'])})"
        )
    strength = result.get("strength")
    if strength:
        lines += [
            f"  strength  search vs random, 2v2 duplicate, {strength['deals']} deals "
            f"({2 * strength['deals']} hands), {strength['samples']} samples a decision:",
            f"            base {strength['base']:+.1f} ± {strength['base_stderr']:.1f}, "
            f"head {strength['head']:+.1f} ± {strength['head_stderr']:.1f} raw points a hand",
            f"            head − base {strength['difference']:+.1f} ± "
            f"{strength['difference_stderr']:.1f} (paired over the deals): {strength['verdict']}",
        ]
    return "\n".join(lines)


def measure_rounds(
    sides: tuple[Side, Side],
    rounds: int,
    scale: float,
    quick: bool,
    samples: int,
    skipped: dict[str, str],
) -> dict[str, dict[str, Any]]:
    """Every measure in ``rounds`` rounds, each run by both sides, the order swapped every
    round; after one small warm-up run of each on each side.  A measure whose warm-up fails
    on either side is left out, the reason in ``skipped``."""
    counts = {m.name: max(1, round((m.quick if quick else m.count) * scale)) for m in MEASURES}
    measures = []
    for measure in MEASURES:
        warm_up = {"measure": measure.name, "count": max(1, counts[measure.name] // 10)}
        try:
            for side in sides:
                side.ask({**warm_up, "samples": samples})
        except Failure as error:  # an API one revision lacks: the others still count
            skipped[measure.name] = str(error).strip().splitlines()[-1]
            print(f"{measure.name}: skipped: {skipped[measure.name]}", file=sys.stderr)
        else:
            measures.append(measure)
    values: dict[str, tuple[list[float], list[float]]] = {m.name: ([], []) for m in measures}
    work: dict[str, tuple[set[str], set[str]]] = {m.name: (set(), set()) for m in measures}
    for index in range(rounds):
        order = (0, 1) if index % 2 == 0 else (1, 0)
        for measure in measures:
            for which in order:
                request = {
                    "measure": measure.name,
                    "count": counts[measure.name],
                    "samples": samples,
                }
                reply = sides[which].ask(request)
                values[measure.name][which].append(reply["value"])
                work[measure.name][which].add(reply["work"])
        end = "\r" if sys.stderr.isatty() and index + 1 < rounds else "\n"
        print(f"round {index + 1}/{rounds} done", end=end, file=sys.stderr, flush=True)
    rows = {}
    for measure in measures:
        base, head = values[measure.name]
        row: dict[str, Any] = summarise(base, head, measure.higher_is_better)
        work_base, work_head = (", ".join(sorted(w)) for w in work[measure.name])
        row.update(
            unit=measure.unit,
            count=counts[measure.name],
            runs_base=base,
            runs_head=head,
            work_base=work_base,
            work_head=work_head,
            same_work=work_base == work_head,
        )
        rows[measure.name] = row
    return rows


def prepare(args: argparse.Namespace) -> tuple[Side, Side]:
    """Both sides' venvs, made or found in the cache."""
    repo = Path(_git(HERE.parent, "rev-parse", "--show-toplevel"))
    cache = Path(args.cache_dir)
    base_commit = _git(repo, "rev-parse", "--verify", f"{args.base}^{{commit}}")
    base = Side(
        "base",
        _describe_commit(repo, base_commit),
        commit_env(repo, base_commit, cache, args.rebuild),
    )
    if args.head is not None:
        commit = _git(repo, "rev-parse", "--verify", f"{args.head}^{{commit}}")
        head = Side(
            "head", _describe_commit(repo, commit), commit_env(repo, commit, cache, args.rebuild)
        )
    else:
        tree = Path(args.head_dir or repo).resolve()
        if not (tree / "pyproject.toml").is_file():
            raise Failure(f"--head-dir {tree} is not a checkout of gongzhu (no pyproject.toml)")
        head = Side("head", _describe_dir(tree), dir_env(tree, cache, args.rebuild), tree)
    return base, head


def _describe_commit(repo: Path, commit: str) -> str:
    return f"{commit[:9]} {_git(repo, 'log', '-1', '--format=%s', commit)[:70]}"


def _describe_dir(tree: Path) -> str:
    try:
        commit = _git(tree, "rev-parse", "--short=9", "HEAD")
        dirty = _git(tree, "status", "--porcelain", "--untracked-files=no")
    except Failure:
        return f"{tree} (not a git checkout)"
    changes = f", {len(dirty.splitlines())} files changed" if dirty else ", no changes"
    return f"{tree} (at {commit}{changes})"


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The whole comparison: venvs, workers, rounds, strength."""
    sides = prepare(args)
    result: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="gongzhu-bench-") as cwd:
        try:
            for side in sides:
                side.start(cwd)
            rows = measure_rounds(
                sides, args.rounds, args.scale, args.quick, args.search_samples, skipped
            )
            if args.strength_deals:
                print("strength ...", file=sys.stderr, flush=True)
                request = {"strength": args.strength_deals, "samples": args.strength_samples}
                try:
                    base, head = (side.ask(request)["values"] for side in sides)
                except Failure as error:
                    skipped["strength"] = str(error).strip().splitlines()[-1]
                else:
                    result["strength"] = {
                        **compare_strength(base, head),
                        "samples": args.strength_samples,
                    }
        finally:
            for side in sides:
                side.stop()
    for label, side in zip(("base", "head"), sides, strict=True):
        result[label] = {
            "describe": side.describe,
            "python": str(side.python),
            **(side.hello or {}),
        }
    result.update(
        python=sides[0].hello["python"] if sides[0].hello else "?",
        rounds=args.rounds,
        quick=args.quick,
        search_samples=args.search_samples,
        measures=rows,
        skipped=skipped,
        goals=goals(rows),
    )
    return result


# -- the self-test: no venv, tiny counts --------------------------------------------------


def self_test() -> None:
    """Each measure once here with tiny counts, one worker with this Python, the report."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        numpy_found = False
    else:
        numpy_found = True
    tiny = {"step": 2, "bulk": 20, "search": 3, "encoder": 1}
    for measure in MEASURES:
        if measure.goal == "encoder" and not numpy_found:
            print(f"{measure.name}: skipped (no numpy)")
            continue
        value, work = measure.run(tiny[measure.goal], 2)
        assert value > 0 and math.isfinite(value), (measure.name, value)
        print(f"{measure.name}: {value:,.1f} {measure.unit} ({work})")
    values = strength(1, 2)
    assert len(values) == 1 and math.isfinite(values[0])
    print(f"strength: {values[0]:+.1f} raw points a hand (1 deal)")
    with tempfile.TemporaryDirectory(prefix="gongzhu-bench-") as cwd:
        side = Side("self", "this Python", Path(sys.executable))
        side.process = subprocess.Popen(
            [sys.executable, "-I", str(HERE), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        try:
            hello = side._read()
            assert {"gongzhu", "accelerated", "numpy", "python"} <= hello.keys(), hello
            reply = side.ask({"measure": "step 39baobao", "count": 1, "samples": 2})
            assert reply["value"] > 0, reply
            try:  # the worker reports an error rather than dying
                side.ask({"measure": "no such measure", "count": 1, "samples": 2})
            except Failure as error:
                assert "KeyError" in str(error)
            else:
                raise AssertionError("an unknown measure was not refused")
        finally:
            side.stop()
    print(f"worker: {hello['gongzhu']}, C engines {hello['accelerated']}")
    rows = {}
    for k, measure in enumerate(MEASURES):
        base = [100.0, 110.0, 90.0]
        head = [v * (0.9 if k == 0 else 1.0) for v in base]
        row: dict[str, Any] = summarise(base, head, measure.higher_is_better)
        row.update(unit=measure.unit, work_base="w", work_head="w" if k else "v", same_work=bool(k))
        rows[measure.name] = row
    verdicts = goals(rows)
    assert verdicts["step"]["verdict"] == "LOSS" and verdicts["bulk"]["verdict"] == "no loss"
    fake = {"describe": "x"}
    text = report(
        {
            "base": fake,
            "head": fake,
            "python": "3",
            "rounds": 3,
            "search_samples": 2,
            "measures": rows,
            "skipped": {"strength": "no such API"},
            "goals": verdicts,
            "strength": {**compare_strength([1.0, 3.0], [0.0, 2.0]), "samples": 2},
        }
    )
    assert "LOSS" in text and "different work" in text and "-1.0 ± 0.0" in text, text
    assert "skipped: no such API" in text, text
    assert compare_strength([1.0, 2.0], [1.0, 2.0])["verdict"].startswith("no drop (identical")
    print("report: ok")
    print("self-test passed")


def venv_options(parser: argparse.ArgumentParser) -> None:
    """``--cache-dir`` and ``--rebuild``: where the venvs are kept (shared by every
    benchmark that installs revisions), and making them again."""
    parser.add_argument(
        "--cache-dir",
        default=os.path.join(tempfile.gettempdir(), f"gongzhu-before-after-{os.getuid()}"),
        help="where the venvs are kept",
    )
    parser.add_argument("--rebuild", action="store_true", help="make the cached venvs again")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base", help="the revision before (a commit, branch or tag)")
    head = parser.add_mutually_exclusive_group()
    head.add_argument("--head", help="the revision after (default: --head-dir)")
    head.add_argument(
        "--head-dir", help="a checkout measured as it is (default: the one this script is in)"
    )
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 41; quick 9)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every run's work")
    parser.add_argument("--quick", action="store_true", help="small counts: a smoke test")
    parser.add_argument("--search-samples", type=int, default=20, help="search bot's samples")
    parser.add_argument(
        "--strength-deals", type=int, default=0, help="duplicate deals, search vs random (0: skip)"
    )
    parser.add_argument("--strength-samples", type=int, default=40)
    venv_options(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(sys.stdin, sys.stdout)
        return 0
    if args.self_test:
        self_test()
        return 0
    if args.base is None:
        parser.error("--base is required")
    if args.rounds is None:
        args.rounds = 9 if args.quick else 41
    if args.rounds < 1 or not args.scale > 0 or args.search_samples < 1:
        parser.error("--rounds and --search-samples must be at least 1, --scale positive")
    if args.strength_deals < 0 or args.strength_samples < 1:
        parser.error("--strength-deals must be at least 0, --strength-samples at least 1")
    start = time.perf_counter()
    try:
        result = run(args)
    except Failure as error:
        print(f"before_after: {error}", file=sys.stderr)
        return 1
    result["seconds"] = round(time.perf_counter() - start, 1)
    if args.json:
        print(json.dumps(result))
    else:
        print(report(result))
        print(f"({result['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

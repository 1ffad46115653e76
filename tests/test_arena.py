"""The arena: duplicate deals, both formats, the same result for any number of workers."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import gongzhu
from gongzhu import arena
from gongzhu.arena import play_deal, run_arena
from gongzhu.bots import Bot, HeuristicBot, make_bot
from gongzhu.errors import GongzhuError

pytestmark = pytest.mark.one_engine


@pytest.mark.parametrize("fmt", ["2v2", "1v3"])
def test_identical_bots_score_exactly_zero(fmt: str) -> None:
    result = run_arena(gongzhu.load_rules(), "first", "first", 4, format=fmt)
    assert (result.mean, result.stderr, result.z) == (0.0, 0.0, 0.0)
    assert result.hands == 4 * (2 if fmt == "2v2" else 4)


def test_a_deal_is_played_with_the_sides_swapped() -> None:
    rules = gongzhu.load_rules()
    one = play_deal(rules, 7, "heuristic", "random")
    other = play_deal(rules, 7, "random", "heuristic")
    assert one == -other  # the same hands, the teams' seats exchanged


def test_the_heuristic_beats_random_and_workers_do_not_change_results() -> None:
    rules = gongzhu.load_rules()
    alone = run_arena(rules, "heuristic", "random", 12, seed=3)
    assert alone.mean > 0
    assert run_arena(rules, "heuristic", "random", 12, seed=3, workers=2) == alone
    assert run_arena(rules, "heuristic", "random", 12, seed=4) != alone


@pytest.mark.parametrize(("bot", "size"), [("random", 250), ("rules", 1)])
def test_a_run_of_any_length_is_a_lazy_sequence_of_deal_ranges(
    monkeypatch: pytest.MonkeyPatch, bot: str, size: int
) -> None:
    """Each worker is given every task: the tasks are made when asked for, and pickle to a
    few bytes for any count; a range of up to 250 deals where the bots do not think (a
    fraction of a second: a Ctrl-C keeps what finished), one deal where one does."""
    sent: list[Any] = []

    def imap(function: Any, tasks: Any, **_options: Any) -> Any:
        assert len(pickle.dumps(tasks)) < 2000
        sent.extend(tasks[:2])
        sent.append(tasks[-1])
        return (list(range(start, start + count)) for _setting, start, count in tasks)

    monkeypatch.setattr(arena.backends, "imap", imap)
    seen: list[int] = []
    result = run_arena(
        gongzhu.load_rules(),
        bot,
        "random",
        123_457,
        progress=lambda done, _: seen.append(done),
    )
    assert [(start, count) for _setting, start, count in sent[:2]] == [(0, size), (size, size)]
    assert sum(sent[-1][1:]) == 123_457 and seen[-1] == 123_457
    assert result.mean == sum(range(123_457)) / 123_457  # every deal once, in order


@pytest.mark.parametrize(("fmt", "partners"), [("2v2", True), ("1v3", False)])
def test_the_bots_hear_the_format(
    monkeypatch: pytest.MonkeyPatch, fmt: str, partners: bool
) -> None:
    made: list[Bot] = []

    def recording(name: str, seed: int | None = None, **options: Any) -> Bot:
        bot = make_bot(name, seed, **options)
        made.append(bot)
        return bot

    monkeypatch.setattr(arena, "make_bot", recording)
    play_deal(gongzhu.load_rules(), 5, "heuristic", "random", format=fmt)
    heuristics = [bot for bot in made if isinstance(bot, HeuristicBot)]
    assert heuristics and all(bot.format.has_teams is partners for bot in heuristics)
    assert all(bot.format.partner(0) == (2 if partners else None) for bot in heuristics)


def test_bad_arguments_are_refused_before_any_work() -> None:
    rules = gongzhu.load_rules()
    with pytest.raises(GongzhuError, match="format"):
        run_arena(rules, "first", "random", 1, format="3v1")
    with pytest.raises(GongzhuError, match=r"bot named .nope.; installed"):
        run_arena(rules, "nope", "random", 1)
    with pytest.raises(GongzhuError, match="at least one deal"):
        run_arena(rules, "first", "random", 0)


def test_the_arena_command() -> None:
    command = [sys.executable, "-m", "gongzhu", "arena", "first", "random", "--deals", "3"]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["a"], result["b"], result["hands"]) == ("first", "random", 6)
    bad = subprocess.run(
        [sys.executable, "-m", "gongzhu", "arena", "nope", "random"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
    assert "no gongzhu bot named 'nope'" in bad.stderr and "Traceback" not in bad.stderr


def test_the_backend_is_checked_and_ray_is_optional(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gongzhu import backends, cli

    rules = gongzhu.load_rules()
    with pytest.raises(GongzhuError, match="backend must be one of local, ray"):
        run_arena(rules, "first", "first", 2, backend="dask")
    with pytest.raises(GongzhuError, match="only for the ray backend"):
        run_arena(rules, "first", "first", 2, address="auto")
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    with pytest.raises(backends.BackendUnavailable, match=r"pip install 'gongzhu\[ray\]'"):
        run_arena(rules, "first", "first", 2, backend="ray")
    for command in (["arena", "first", "first", "--deals", "2"], ["simulate", "--hands", "2"]):
        assert cli.main([*command, "--backend", "ray"]) == 2
        err = capsys.readouterr().err
        assert err == "gongzhu: the ray backend needs Ray: python -m pip install 'gongzhu[ray]'\n"
        assert cli.main([*command, "--address", "auto"]) == 2
        assert capsys.readouterr().err == "gongzhu: --address needs --backend ray\n"


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_local_workers_ignore_ctrl_c_without_holding_it_blocked() -> None:
    """A worker leaves Ctrl-C to the process running the pool: SIGINT is ignored there,
    not blocked (a blocked signal would stay blocked in everything the worker starts)."""
    from gongzhu.backends import imap

    blocked = functools.partial(signal.pthread_sigmask, signal.SIG_BLOCK)  # adds nothing
    masks = list(imap(blocked, [()] * 2, workers=2))
    assert len(masks) == 2 and all(signal.SIGINT not in mask for mask in masks)
    handlers = list(imap(signal.getsignal, [signal.SIGINT] * 2, workers=2))
    assert handlers == [signal.SIG_IGN, signal.SIG_IGN]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # here: untouched
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, ())


def _watch_sigint(stop: threading.Event, seen: dict[int, set[str]]) -> None:
    """Until ``stop`` is set, record each state in which SIGINT was seen in the processes
    this one starts from now on (``/proc/PID/status``): blocked, ignored, or taken
    (neither)."""
    me = os.getpid()
    bit = 1 << (signal.SIGINT - 1)

    def children() -> set[str]:
        with contextlib.suppress(OSError):
            return set(Path(f"/proc/{me}/task/{me}/children").read_text().split())
        return set()

    before = children()  # started by other tests: not watched
    while not stop.is_set():
        for child in children() - before:
            with contextlib.suppress(OSError):  # it may have ended
                status = Path(f"/proc/{child}/status").read_text().splitlines()
                fields = dict(line.split(":\t", 1) for line in status if ":\t" in line)
                blocked = int(fields["SigBlk"], 16) & bit
                ignored = int(fields["SigIgn"], 16) & bit
                state = "blocked" if blocked else "ignored" if ignored else "taken"
                seen.setdefault(int(child), set()).add(state)
        time.sleep(0.001)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_a_local_worker_never_takes_ctrl_c_from_its_first_moment() -> None:
    """A terminal's Ctrl-C goes to every process of the group: a worker that has just
    started (spawned, still importing) must not die of it with a traceback, nor leave
    the pool to hang.  The race is narrow from outside; the signal state is not."""
    from gongzhu.backends import imap

    seen: dict[int, set[str]] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_sigint, args=(stop, seen))
    watcher.start()
    time.sleep(0.05)  # it has seen the processes already running
    try:
        assert list(imap(time.sleep, [0.05] * 4, workers=2)) == [None] * 4
    finally:
        stop.set()
        watcher.join()
    assert len(seen) >= 2 and not any("taken" in states for states in seen.values()), seen


def test_import_gongzhu_never_imports_ray() -> None:
    code = "import sys, gongzhu, gongzhu.cli, gongzhu.backends; print('ray' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_bot_options_reach_the_bots_and_bad_ones_are_refused_up_front() -> None:
    rules = gongzhu.load_rules()
    result = run_arena(
        rules, "search", "first", 1, options={"search": {"budget_ms": None, "samples": 1}}
    )
    assert result.hands == 2
    with pytest.raises(GongzhuError, match="bot 'random' refuses its options"):
        run_arena(rules, "random", "first", 1, options={"random": {"depth": 3}})


@pytest.mark.parametrize(
    ("option", "code", "message"),
    [
        ("bad", 2, "gongzhu: --bot-option takes BOT:NAME=VALUE, not 'bad'\n"),
        (
            "search:objective=mine",
            1,
            "gongzhu: bot 'search' refuses its options: objective must be one of "
            "'final', 'raw', 'team', not 'mine'\n",
        ),
    ],
)
def test_the_command_line_checks_bot_options(option: str, code: int, message: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gongzhu",
            "arena",
            "search",
            "first",
            "--deals",
            "1",
            "--bot-option",
            option,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (code, message)


def test_one_deal_has_no_standard_error_and_the_json_stays_json() -> None:
    result = run_arena(gongzhu.load_rules(), "random", "first", 1, seed=3)
    assert result.stderr is None and result.z is None
    assert json.loads(json.dumps(result.to_json(), allow_nan=False))["z"] is None
    done = subprocess.run(
        [sys.executable, "-m", "gongzhu", "arena", "random", "first", "--deals", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "(standard error n/a, z n/a)" in done.stdout


def test_an_interrupted_quick_arena_keeps_its_finished_deals() -> None:
    """With bots that do not think a task was deals / 1000 deals: a Ctrl-C within hours of
    a 10**12-deal run kept nothing."""
    import signal
    import subprocess
    import sys
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "gongzhu", "arena", "first", "random", "--deals", str(10**12)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(6)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted after" in stderr and "first advantage" in stdout

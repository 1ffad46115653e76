"""The Ray backend: the same seeds give the same results as local processes.

One local Ray instance (two CPUs) serves the module; the tests are marked
``ray`` and skipped when Ray is not installed.
"""

from __future__ import annotations

import io
import operator
from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray")

import gongzhu  # noqa: E402
from gongzhu import backends, cli  # noqa: E402
from gongzhu.arena import run_arena  # noqa: E402
from gongzhu.runner import HandLimitReached, Job, run  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.one_engine]


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_imap_yields_in_task_order_in_batches() -> None:
    values = backends.imap(operator.neg, list(range(23)), backend="ray", workers=2, chunksize=4)
    assert list(values) == [-n for n in range(23)]


def test_a_run_is_the_same_on_ray_as_locally() -> None:
    job = Job(("huapai", "anmai"), (), ("random", "heuristic", "random", "first"), 5, records=True)
    local_out, ray_out = io.StringIO(), io.StringIO()
    local = run(job, 40, workers=1, out=local_out)
    remote = run(job, 40, workers=2, out=ray_out, backend="ray")
    assert remote == local
    assert ray_out.getvalue() == local_out.getvalue()
    assert ray_out.getvalue().count("\n") == 40


def test_an_arena_is_the_same_on_ray_as_locally() -> None:
    rules = gongzhu.load_rules()
    local = run_arena(rules, "heuristic", "random", 10, seed=2)
    assert run_arena(rules, "heuristic", "random", 10, seed=2, workers=2, backend="ray") == local


def test_a_task_error_is_raised_as_itself() -> None:
    job = Job(("39baobao",), (), ("random",) * 4, 1, matches=True, target=10_000, hand_limit=1)
    with pytest.raises(HandLimitReached, match="match 0: the match did not end within 1 hands"):
        run(job, 2, workers=2, backend="ray")


def test_the_command_line_on_ray(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--hands", "60", "--seed", "3", "--bots", "random,first,random,heuristic"]
    assert cli.main(argv) == 0
    local = capsys.readouterr().out
    assert cli.main([*argv, "--backend", "ray", "--workers", "2"]) == 0
    remote = capsys.readouterr().out
    assert remote.splitlines()[1:] == local.splitlines()[1:]
    assert remote.splitlines()[0].endswith("2 workers (ray)")
    arena = ["arena", "heuristic", "random", "--deals", "6", "--json"]
    assert cli.main(arena) == 0
    local = capsys.readouterr().out
    assert cli.main([*arena, "--backend", "ray"]) == 0
    assert capsys.readouterr().out == local

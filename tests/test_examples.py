"""Every script in examples/ runs."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


def test_there_are_examples() -> None:
    assert {p.stem for p in EXAMPLES} >= {"deal_and_score", "match", "simulation", "custom_plugin"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if path.stem == "web_table":
        pytest.importorskip("starlette", reason="the web extra is not installed")
        pytest.importorskip("httpx", reason="the web extra is not installed")
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert out.strip()
    if path.stem == "deal_and_score":
        assert out.count("trick ") == 13 and out.rstrip().endswith("-400")
    if path.stem == "match":
        assert out.count("hand ") == 8 and "losers" in out
    if path.stem == "custom_plugin":
        assert "worthless sheep: counts +20" in out
    if path.stem == "web_table":
        assert "refused (illegal-action)" in out and "13 tricks" in out
    if path.stem == "simulation":
        assert out.startswith("2000 hands")


def test_benchmark_script_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = Path(__file__).resolve().parent.parent / "benchmarks" / "random_playouts.py"
    monkeypatch.setattr("sys.argv", ["random_playouts.py", "--hands", "20", "--repeat", "1"])
    runpy.run_path(str(bench), run_name="__main__")
    assert "hands/s" in capsys.readouterr().out


CEILING = Path(__file__).resolve().parent.parent / "benchmarks" / "search_ceiling.py"


@pytest.mark.parametrize(
    ("playout", "blind"), [("greedy", False), ("rules", False), ("rules", True)]
)
def test_the_search_ceiling_benchmark_runs(playout: str, blind: bool) -> None:
    argv = ["--deals", "2", "--samples", "2", "--playout", playout, "--json"]
    argv += ["--blind"] if blind else []
    run = subprocess.run(
        [sys.executable, str(CEILING), *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["hands"] == 4 and result["playout"] == playout and result["b"] == "heuristic"
    assert isinstance(result["mean"], float) and result["stderr"] >= 0
    assert ("blind" in result["a"]) is blind and result["budget"] == "2 samples"


def test_the_search_ceiling_samples_the_real_hand_only_while_a_search_seat_decides() -> None:
    # in a child process: the script replaces the sampler for the whole process
    script = f"""
import random, runpy
import gongzhu
from gongzhu import Phase, Show
from gongzhu.bots.sampler import Determinizer
ceiling = runpy.run_path({str(CEILING)!r})
hand = gongzhu.load_rules().new_hand(seed=3)
while hand.phase is not Phase.PLAY:
    hand.apply(Show(()))
for _ in range(6):
    hand.apply(hand.legal_actions()[0])
seat = hand.to_move
real = [hand.holding(s) for s in range(4)]
sampler = Determinizer(hand.view(seat), hand.rules)
with ceiling["_seeing"](hand):
    seen = [sampler.sample(random.Random(k)) for k in range(5)]
assert all([s.holding(k) for k in range(4)] == real for s in seen), "not the real hand"
blind = [sampler.sample(random.Random(k)) for k in range(5)]
assert any([s.holding(k) for k in range(4)] != real for s in blind), "still the real hand"
assert all(s.holding(seat) == real[seat] for s in blind)
print("ok")
"""
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr

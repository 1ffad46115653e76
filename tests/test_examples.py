"""Every script in examples/ runs."""

from __future__ import annotations

import runpy
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

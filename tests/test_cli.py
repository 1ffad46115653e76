"""The ``gongzhu`` command line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gongzhu.cli import main


def test_demo_prints_tricks_and_score_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Rules: 39baobao" in out
    assert out.count("trick ") == 13
    assert "Score sheet (39baobao: zero-sum" in out
    assert sum(line.startswith("  seat ") and "final" in line for line in out.splitlines()) == 4


def test_demo_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "5"])
    first = capsys.readouterr().out
    main(["demo", "--seed", "5"])
    assert capsys.readouterr().out == first


def test_demo_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "2", "--match", "--hands", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("hand ") == 3 and "losers (当猪)" in out


def test_unknown_variant_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rules", "nope"]) == 1
    assert "no gongzhu variant named 'nope'" in capsys.readouterr().err


def test_usage_error_exits_2() -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2


def test_variants_lists_plugins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants"]) == 0
    line = next(li for li in capsys.readouterr().out.splitlines() if li.startswith("39baobao"))
    assert "拱猪" in line and "base" in line


def test_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", "demo", "--seed", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Score sheet" in result.stdout

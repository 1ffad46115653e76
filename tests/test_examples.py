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
    if path.stem == "match_plugin":  # a match-level plug-in: its match ends, and replays
        assert "losers" in out and out.rstrip().endswith("the match's record replays")
    if path.stem == "simulation":
        assert out.startswith("2000 hands")


def test_benchmark_script_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = Path(__file__).resolve().parent.parent / "benchmarks" / "random_playouts.py"
    monkeypatch.setattr("sys.argv", ["random_playouts.py", "--hands", "20", "--repeat", "1"])
    runpy.run_path(str(bench), run_name="__main__")
    assert "hands/s" in capsys.readouterr().out


SPEED = Path(__file__).resolve().parent.parent / "benchmarks" / "search_speed.py"


def test_the_search_speed_benchmark_runs_and_refuses_bad_options() -> None:
    command = [sys.executable, str(SPEED), "--decisions", "3", "--budget-ms", "2"]
    run = subprocess.run([*command, "--rounds", "1", "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["decisions"] == 3 and result["solo"] >= 1 and result["2v2"] >= 1
    # solo and 2v2 are rounded to whole samples, the ratio is of the unrounded means: with
    # a few samples a decision the rounded ones' ratio may differ by the rounding
    slack = 0.5 * (1 + result["ratio"]) / (result["solo"] - 0.5) + 0.001
    assert abs(result["ratio"] - result["2v2"] / result["solo"]) <= slack
    bad = subprocess.run([*command, "--rounds", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "--rounds must be at least 1" in bad.stderr.splitlines()[-1]


DECISION_TIME = Path(__file__).resolve().parent.parent / "benchmarks" / "decision_time.py"


def test_the_decision_time_benchmark_times_each_case_and_refuses_bad_options() -> None:
    command = [sys.executable, str(DECISION_TIME), "--hands", "2", "--rounds", "2"]
    cases = [
        "--case",
        "rules:39baobao:rules",
        "--case",
        "pairs:two-deck:heuristic:where=all,check=4",
    ]
    run = subprocess.run([*command, *cases, "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [row["case"] for row in rows] == ["rules", "pairs"]
    assert rows[0]["ratio"] == 1.0 and all(row["decisions"] > 10 for row in rows)
    assert rows[1]["ratio"] == pytest.approx(rows[1]["cpu_ms"] / rows[0]["cpu_ms"])
    shows = subprocess.run(
        [*command, cases[0], cases[1], "--shows"], capture_output=True, text=True
    )
    assert shows.returncode == 0 and "×1.00 the first" in shows.stdout, shows.stderr
    for bad, message in (
        (["--rounds", "0"], "--rounds must be at least 1"),
        (["--case", "rules"], "a case is NAME:RULES:BOT"),
        (["--case", "x:39baobao:nobody"], "case 'x': "),
        (["--case", "x:no-such-variant:rules"], "case 'x': "),
        (["--case", "x:39baobao:heuristic:where=nowhere"], "case 'x': where must be one of"),
    ):
        failed = subprocess.run([*command, *bad], capture_output=True, text=True)
        assert failed.returncode == 2 and "Traceback" not in failed.stderr
        assert message in failed.stderr.splitlines()[-1]


CEILING = Path(__file__).resolve().parent.parent / "benchmarks" / "search_ceiling.py"


def ceiling(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CEILING), "--deals", "2", *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("argv", "budget", "samples"),
    [
        (("--samples", "2"), "2 samples", 2.0),
        (("--playout", "rules"), "1 sample", 1.0),  # seeing: one playout of the real deal
        (("--playout", "rules", "--blind", "--samples", "3"), "3 samples", 3.0),
        (("--know", "JD,TC", "--samples", "2"), "2 samples", 2.0),
        (("--know", "JD,TC", "--know-from", "6", "--samples", "2"), "2 samples", 2.0),
    ],
)
def test_the_search_ceiling_benchmark_runs(
    argv: tuple[str, ...], budget: str, samples: float
) -> None:
    run = ceiling(*argv, "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["hands"] == 4 and result["b"] == "heuristic" and result["budget"] == budget
    assert ("blind" in result["a"]) is ("--blind" in argv or "--know" in argv)
    assert ("JD, TC where they lie" in result["a"]) is ("--know" in argv)
    assert result["samples_a_search"] == samples  # every search decision drew its budget
    assert result["stderr"] >= 0


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("--against", "nobody"), "no bot named 'nobody'"),
        (("--budget-ms", "-1"), "--budget-ms must be a positive"),
        (("--samples", "0"), "--samples must be at least 1"),
        (("--samples", "2", "--budget-ms", "5"), "not allowed with"),
        (("--know", "JD,XX"), "--know: not a card: 'XX'"),
        (("--know", "JD", "--playout", "rules"), "greedy playout's samples only"),
        (("--know-from", "3"), "--know-from takes a number of tricks, 0 to 13, and needs --know"),
        (("--know", "JD", "--know-from", "14"), "--know-from takes a number of tricks"),
    ],
)
def test_the_search_ceiling_benchmark_refuses_bad_options(
    argv: tuple[str, ...], words: str
) -> None:
    run = ceiling(*argv)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert words in run.stderr.splitlines()[-1]


def in_a_ceiling_child(seed: int, plays: int, body: str) -> None:
    """Run ``body`` in a child process (the ceiling script patches the sampler and the search
    for its whole process) once the script is loaded (``ns``) and a hand of ``seed`` is
    ``plays`` actions into its play phase (``hand``, ``seat``); ``body`` prints ``ok``."""
    script = f"""
import random, runpy
import gongzhu
from gongzhu import HandState, Phase, Show
from gongzhu.bots import search as search_module
from gongzhu.implied import Determinizer
from gongzhu.cards import SHEEP, TRANSFORMER
ns = runpy.run_path({str(CEILING)!r})
hand = gongzhu.load_rules().new_hand(seed={seed})
while hand.phase is not Phase.PLAY:
    hand.apply(Show(()))
for _ in range({plays}):
    hand.apply(hand.legal_actions()[0])
seat = hand.to_move
"""
    run = subprocess.run(
        [sys.executable, "-c", script + body + 'print("ok")\n'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and run.stdout == "ok\n", run.stderr


def test_the_search_ceiling_places_the_known_cards_where_they_lie() -> None:
    in_a_ceiling_child(
        5,
        5,
        """
view = hand.view(seat)
def holders(inference, card):
    sampler = Determinizer(view, hand.rules, inference=inference)
    sampler.sample_engine(random.Random(0))  # the first, replayed, is dealt without inference
    engines = [sampler.sample_engine(random.Random(k)).engine for k in range(1, 40)]
    return {s for e in engines for s in range(4) if e.holdings[s] >> card.index & 1}
for card in (SHEEP, TRANSFORMER):
    true = next(s for s in range(4) if card in hand.holding(s))
    assert len(holders(search_module.infer(view, hand.rules), card)) > 1 or true == seat
    ns["_KNOWN"].append((hand, (card,), 1))  # one trick is over: placed
    assert holders(search_module.infer(view, hand.rules), card) == {true}, card
    ns["_KNOWN"][:] = [(hand, (card,), 2)]  # --know-from 2: not yet
    assert len(holders(search_module.infer(view, hand.rules), card)) > 1 or true == seat
    ns["_KNOWN"].clear()
""",
    )


def test_the_search_ceiling_shows_the_search_seats_the_real_hand_and_no_one_else() -> None:
    in_a_ceiling_child(
        3,
        6,
        """
real = [hand.holding(s) for s in range(4)]
sampler = Determinizer(hand.view(seat), hand.rules)
with ns["_seeing"](hand):
    seen = [sampler.sample(random.Random(k)) for k in range(3)]
    engine = sampler.sample_engine(random.Random(9)).engine  # the search's fast path
assert all([s.holding(k) for k in range(4)] == real for s in seen), "not the real hand"
assert list(engine.holdings) == [sum(1 << c.index for c in h) for h in real], "engine"
blind = [sampler.sample(random.Random(k)) for k in range(5)]
assert any([s.holding(k) for k in range(4)] != real for s in blind), "still the real hand"

# a whole deal: which samples are the real hand, drawn for whom
last_view = []
view = HandState.view
def recording_view(self, seat):
    last_view[:] = [self, seat]
    return view(self, seat)
HandState.view = recording_view
drawn = {"search": [], "other": []}
sample = Determinizer.sample
def recording_sample(self, rng):
    state = sample(self, rng)
    hand, seat = last_view
    true = [state.holding(k) for k in range(4)] == [hand.holding(k) for k in range(4)]
    drawn["search" if ns["_TRUE"] else "other"].append((seat, true))
    return state
Determinizer.sample = recording_sample
ns["play_deal"](ns["Job"](11, "heuristic", "greedy", 2, None, False))
search, other = drawn["search"], drawn["other"]
assert search and all(true for _, true in search), "a search seat sampled blind"
assert other and not all(true for _, true in other), "the heuristic saw the real hand"
""",
    )

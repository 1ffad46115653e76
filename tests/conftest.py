"""Shared fixtures: deterministic deals and small test plug-ins for the core hooks."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any, Final

import pytest

import gongzhu
from gongzhu.cards import Card, Rank, Suit
from gongzhu.play import EngineSpec, HandEngine
from gongzhu.plugin import Deal


def install_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example: Path) -> None:
    """What ``pip install examples/<example>`` puts on the path: the package and its
    dist-info, with the entry points its pyproject.toml declares."""
    project = tomllib.loads((example / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dist = tmp_path / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    lines = ["[gongzhu.variants]"] + [
        f"{name} = {target}" for name, target in project["entry-points"]["gongzhu.variants"].items()
    ]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for package in (example / "src").iterdir():
        if (package / "__init__.py").exists():
            shutil.copytree(package, tmp_path / package.name)
    monkeypatch.syspath_prepend(str(tmp_path))
    gongzhu.variant_names(refresh=True)


def rotation_holdings() -> list[list[Card]]:
    """Each suit's ranks dealt round the table from a suit-dependent seat.

    Seat 0: ♠2 6 10 A  ♥5 9 K  ♦4 8 Q  ♣3 7 J
    Seat 1: ♠3 7 J  ♥2 6 10 A  ♦5 9 K  ♣4 8 Q
    Seat 2: ♠4 8 Q  ♥3 7 J  ♦2 6 10 A  ♣5 9 K
    Seat 3: ♠5 9 K  ♥4 8 Q  ♦3 7 J  ♣2 6 10 A
    """
    holdings: list[list[Card]] = [[], [], [], []]
    for suit in Suit:
        for rank in Rank:
            holdings[(rank - 2 + suit) % 4].append(Card(suit, rank))
    return holdings


@pytest.fixture
def rotation_deal() -> Deal:
    return Deal.from_holdings(rotation_holdings())


@pytest.fixture
def rules() -> gongzhu.Rules:
    return gongzhu.load_rules()


def deal_with(holdings: list[str]) -> Deal:
    """A deal from four holdings written as card text."""
    return Deal.from_holdings([gongzhu.parse_cards(h) for h in holdings])


def play_through_shows(hand: gongzhu.HandState, shows: dict[int, str] | None = None) -> None:
    """Take every seat's show turn: the cards in ``shows`` or nothing."""
    shows = shows or {}
    while hand.phase is gongzhu.Phase.SHOW:
        seat = hand.to_move
        assert seat is not None
        hand.apply(gongzhu.Show(shows.get(seat, "")))


def play(hand: gongzhu.HandState, *cards: str) -> None:
    """Apply single-card plays in order."""
    for text in cards:
        hand.apply(gongzhu.Play.parse(text))


ENGINES = [
    "python",
    pytest.param(
        "c",
        marks=pytest.mark.skipif(
            not __import__("gongzhu.engines").engines.ACCELERATED, reason="C accelerator not built"
        ),
    ),
]

BOTH_ENGINES: Final = pytest.mark.usefixtures("engine")
"""Run a test (or, as ``pytestmark = BOTH_ENGINES``, a module's tests) on both engines.

Only tests that play hands where the engines could differ need it; every other
test runs once, on the ruleset's own (fastest) engine.  A test that takes the
``engine`` argument runs on both as well.
"""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "one_engine: in a module that runs on both engines (BOTH_ENGINES), run the test "
        "with the pure-Python play engine only",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests using the ``engine`` fixture run with the pure-Python play engine and, when
    built, the C one (unless marked ``one_engine``)."""
    if "engine" in metafunc.fixturenames and not metafunc.definition.get_closest_marker(
        "one_engine"
    ):
        metafunc.parametrize("engine", ENGINES, indirect=True)


def engine_state(engine: HandEngine) -> tuple[Any, ...]:
    """Everything an engine's public attributes say of its hand, as plain tuples (an engine
    has no ``__eq__``; the C engines give tuples where the Python ones give lists)."""
    shown_taken = engine.shown_taken()
    return (
        engine.phase,
        engine.seat,
        tuple(engine.holdings),
        tuple(engine.taken),
        tuple(engine.trick),
        engine.trick_leader,
        engine.trick_count,
        tuple(
            (leader, tuple(keys), winner, taker) for leader, keys, winner, taker in engine.trick_log
        ),
        tuple(map(tuple, engine.show_log)),
        None if shown_taken is None else tuple(map(tuple, shown_taken)),
        engine.legal(),
    )


def pipeline_sheet(hand: gongzhu.HandState) -> gongzhu.ScoreSheet:
    """The finished hand's score sheet by the scoring pipeline alone, explanation and all (the
    reference the compiled scorer is held equal to)."""
    return hand.rules.scorer.pipeline_sheet(hand.facts(), hand._penalty_lines)


def python_engine(rules: gongzhu.Rules) -> EngineSpec:
    """The pure-Python reference engine among those that can play ``rules``."""
    for spec in rules.engines:
        if spec.name.endswith("-python"):
            return spec
    return rules.engines[0]  # a third party's engine, alone able to play the ruleset


@pytest.fixture
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The play engine of the test: ``"python"`` (the references) or ``"c"`` (the fastest).

    Opt-in (:data:`BOTH_ENGINES`, or take ``engine`` as an argument): tests
    that do not use it run once, on the ruleset's own engine.
    """
    name = getattr(request, "param", "python")
    if name == "python":
        monkeypatch.setattr(gongzhu.Rules, "engine_spec", property(python_engine))
    return str(name)


SHORT_SPADES_DEAL: Final = gongzhu.Deal.from_holdings(
    [
        "2C 3C 4C 5C 2S 3S 4S 2D 3D 4D 5D 6D 7D",
        "6C 7C 8C QS 5S 6S 2H 3H 4H 5H 8D 9D TD",
        "9C TC JC 7S 8S 9S TS 6H 7H 8H JD QD KD",
        "QC KC AC AS KS JS 9H TH JH QH KH AH AD",
    ]
)
"""Seat 0 leads 2C; seat 1 holds the pig with two small spades and no void; seat 3
holds AS and can take the first trick with AC (search and sampler tests)."""

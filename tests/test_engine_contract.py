"""The engine contract is closed: what clients call is :class:`~gongzhu.play.HandEngine`'s
or a declared capability's, no module probes an engine with ``hasattr``, and the play keys
and phase numbers are defined once per language (the C engines' held equal to Python's)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gongzhu
import gongzhu.engines
from gongzhu import play
from gongzhu.actions import (
    ONE_CARD_KEYS,
    PLAY_KEYS,
    Play,
    cards_of_key,
    key_of_cards,
    play_of_key,
)
from gongzhu.cards import Card
from gongzhu.engines import SingleEngine
from gongzhu.engines.base import ShowingEngine
from gongzhu.errors import IncompatibleVariants
from gongzhu.play import Capability, EngineSpec

from .test_hooks import AnyCardPlugin

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gongzhu"

RULESETS = (("39baobao",), ("two-deck",))


def engines_of(names: tuple[str, ...]) -> list[tuple[gongzhu.Rules, EngineSpec]]:
    rules = gongzhu.load_rules(*names)
    return [(rules, spec) for spec in rules.engines]


ALL_ENGINES = [pair for names in RULESETS for pair in engines_of(names)]
IDS = [spec.name for _rules, spec in ALL_ENGINES]


# -- play keys and phase numbers, once per language -------------------------------------------


@given(st.integers(0, 51), st.integers(0, 51))
def test_key_of_cards_and_cards_of_key_are_inverse(a: int, b: int) -> None:
    key = key_of_cards(a, b)
    assert key == key_of_cards(b, a) and ONE_CARD_KEYS <= key < PLAY_KEYS
    assert cards_of_key(key) == (min(a, b), max(a, b))
    assert play_of_key(key) == Play((Card.from_index(a), Card.from_index(b)))
    assert play_of_key(key).key == key
    assert cards_of_key(key_of_cards(a)) == (a,) and play_of_key(a).key == key_of_cards(a)


def test_two_card_keys_follow_the_one_card_keys_without_a_gap() -> None:
    keys = sorted(key_of_cards(a, b) for a in range(52) for b in range(a, 52))
    assert keys[0] == ONE_CARD_KEYS == key_of_cards(0, 0) and keys[-1] == PLAY_KEYS - 1


def test_phase_numbers_index_engine_phases() -> None:
    numbers = (play.FIRST_SHOW_PHASE, play.SHOW_PHASE, play.PLAY_PHASE, play.OVER_PHASE)
    assert numbers == tuple(range(len(play.ENGINE_PHASES)))
    assert [play.ENGINE_PHASES[n] for n in numbers] == [
        gongzhu.Phase.FIRST_SHOW,
        gongzhu.Phase.SHOW,
        gongzhu.Phase.PLAY,
        gongzhu.Phase.OVER,
    ]


def test_the_c_engines_constants_are_pythons() -> None:
    if not gongzhu.engines.ACCELERATED:
        pytest.skip("the C engines are not built")
    speedups = pytest.importorskip("gongzhu._speedups")
    assert (
        speedups.PHASE_FIRST_SHOW,
        speedups.PHASE_SHOW,
        speedups.PHASE_PLAY,
        speedups.PHASE_OVER,
    ) == (play.FIRST_SHOW_PHASE, play.SHOW_PHASE, play.PLAY_PHASE, play.OVER_PHASE)
    assert (speedups.OVER, speedups.ILLEGAL) == (play.OVER, play.ILLEGAL)
    assert (speedups.ONE_CARD_KEYS, speedups.NKEYS) == (ONE_CARD_KEYS, PLAY_KEYS)
    # TWO_KEY(a, b) = ONE_CARD_KEYS + stride * a + b, as key_of_cards
    assert key_of_cards(1, 2) - key_of_cards(0, 2) == speedups.TWO_KEY_STRIDE


@pytest.mark.parametrize(("rules", "spec"), ALL_ENGINES, ids=IDS)
def test_every_engine_reports_the_phase_numbers(rules: gongzhu.Rules, spec: EngineSpec) -> None:
    hand = rules.new_hand(seed=5, engine=spec.name)
    engine = hand.engine
    seen = {engine.phase}
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
        seen.add(engine.phase)
        assert play.ENGINE_PHASES[engine.phase] is hand.phase
    assert engine.phase == play.OVER_PHASE and play.PLAY_PHASE in seen


# -- what every engine has, and what its spec declares ----------------------------------------


@pytest.mark.parametrize(("rules", "spec"), ALL_ENGINES, ids=IDS)
def test_every_engine_has_the_protocol_and_its_declared_capabilities(
    rules: gongzhu.Rules, spec: EngineSpec
) -> None:
    engine = rules.new_hand(seed=1, engine=spec.name).engine
    for name in ("legal", "legal_mask", "show", "play", "refusal", "copy", "random_playout"):
        assert callable(getattr(engine, name)), (spec.name, name)
    for capability in Capability:
        if capability and spec.offers(capability):
            assert callable(getattr(engine, capability.method)), (spec.name, capability)
    assert spec.offers(Capability.LEGAL_KEYS) == (rules.table.copies == 2)


@pytest.mark.parametrize(("rules", "spec"), ALL_ENGINES, ids=IDS)
def test_legal_mask_and_legal_keys_are_the_legal_plays(
    rules: gongzhu.Rules, spec: EngineSpec
) -> None:
    rng = random.Random(3)
    hand = rules.new_hand(seed=11, engine=spec.name)
    engine = hand.engine
    while not hand.is_over:
        legal = hand.legal_actions()
        if engine.phase == play.PLAY_PHASE:
            plays = [action for action in legal if isinstance(action, Play)]
            cards = {card.index for action in plays for card in action.cards}
            assert engine.legal_mask() == sum(1 << index for index in cards)
            if spec.offers(Capability.LEGAL_KEYS):
                keyed = spec.capable(engine, Capability.LEGAL_KEYS)
                assert list(keyed.legal_keys()) == [action.key for action in plays]
        else:
            with pytest.raises(ValueError, match="not in the play phase"):
                engine.legal_mask()
        hand.apply(rng.choice(legal))


def test_the_showing_base_gives_third_party_engines_legal_mask() -> None:
    rules = gongzhu.Rules.from_plugins(AnyCardPlugin())
    hand = rules.new_hand(seed=2)
    engine = hand.engine
    assert isinstance(engine, ShowingEngine) and "legal_mask" not in type(engine).__dict__
    while hand.phase is not gongzhu.Phase.PLAY:
        hand.apply(hand.legal_actions()[0])
    for _ in range(6):  # the opening lead binds; then any held card may be played
        plays = hand.legal_actions()
        assert engine.legal_mask() == sum(p.cards[0].bit for p in plays if isinstance(p, Play))
        hand.apply(plays[-1])
    seat = hand.to_move
    assert seat is not None
    assert engine.legal_mask() == sum(card.bit for card in hand.holding(seat))


def test_capable_reads_the_declaration() -> None:
    rules = gongzhu.load_rules("39baobao")
    hand = rules.new_hand(seed=1, engine="single-python")
    spec = hand.engine_spec
    engine = hand.engine
    assert spec.capable(engine, Capability.REDEAL) is engine
    with pytest.raises(IncompatibleVariants, match="does not declare LEGAL_KEYS"):
        spec.capable(engine, Capability.LEGAL_KEYS)


def test_a_spec_whose_engines_lack_a_protocol_method_is_refused() -> None:
    class NoMask:
        def __getattr__(self, name: str) -> object:
            if name == "legal_mask":
                raise AttributeError(name)
            return lambda *args: None

    spec = EngineSpec("no-mask", SingleEngine, ["one-deck"])
    with pytest.raises(IncompatibleVariants, match=r"no legal_mask\(\) method"):
        spec.check(NoMask())


def test_the_engine_is_the_engine_the_hand_plays() -> None:
    hand = gongzhu.load_rules("39baobao").new_hand(seed=4)
    engine = hand.engine
    assert hand.clone().engine is not engine
    while hand.phase is not gongzhu.Phase.PLAY:
        hand.apply(hand.legal_actions()[0])
    before = engine.trick_count, tuple(engine.trick)
    hand.apply(hand.legal_actions()[0])
    assert (engine.trick_count, tuple(engine.trick)) != before  # the same object, moved on
    assert hand.dealt_masks == tuple(
        sum(card.bit for card in hand.dealt(seat)) for seat in range(4)
    )


# -- no module probes an engine ---------------------------------------------------------------


ENGINE_METHODS = {name for name in vars(play.HandEngine) if not name.startswith("_")} | {
    capability.method for capability in Capability if capability
}


def probes_in(source: str) -> list[str]:
    """The ``hasattr`` calls of ``source`` that probe an engine: on an object whose text
    names an engine, or for a method of the engine contract."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "hasattr"
            and len(node.args) == 2
        ):
            continue
        target, name = node.args
        engine_like = "engine" in ast.unparse(target).lower()
        method = isinstance(name, ast.Constant) and name.value in ENGINE_METHODS
        if engine_like or method:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_probes_an_engine_with_hasattr() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{probe}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for probe in probes_in(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "read the spec's declared capabilities (EngineSpec.offers) instead"


def test_the_probe_scan_finds_probes() -> None:
    source = (
        "if hasattr(engine, 'anything'):\n    pass\n"
        "if hasattr(state.core, 'legal_keys'):\n    pass\n"
        "if hasattr(view, 'deal'):\n    pass\n"
    )
    assert probes_in(source) == [
        "1: hasattr(engine, 'anything')",
        "3: hasattr(state.core, 'legal_keys')",
    ]

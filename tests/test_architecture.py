"""The shape of the code: arrows point down, plug-ins stand alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import BOTH_ENGINES

ROOT = Path(__file__).resolve().parent.parent
# the core's subpackages: the engines and scoring are layers of the core like its modules
CORE_PACKAGES = ("engines", "scoring")
CORE = sorted((ROOT / "gongzhu").glob("*.py")) + sorted(
    path for package in CORE_PACKAGES for path in (ROOT / "gongzhu" / package).glob("*.py")
)
PLUGINS = sorted((ROOT / "variants").glob("*.py"))
# the layers above the rules: command line, terminal play, bots, runs, adapters, the kit, the
# web server
UPPER = {"cli", "terminal", "bots", "runner", "arena", "__main__", "envs", "testing", "web"}


def test_the_core_packages_are_checked() -> None:
    names = {path.relative_to(ROOT / "gongzhu").as_posix() for path in CORE}
    assert {"engines/base.py", "engines/single.py", "engines/pairs.py"} <= names
    assert {"scoring/scorer.py", "scoring/compiled.py"} <= names
    # every subpackage of gongzhu is a core package or an upper layer
    packages = {p.name for p in (ROOT / "gongzhu").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(CORE_PACKAGES) | (UPPER & packages)


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names.update(f"{base}.{alias.name}".replace("..", ".") for alias in node.names)
    return names


@pytest.mark.parametrize(
    "path",
    [p for p in CORE if p.stem not in UPPER],
    ids=lambda p: p.relative_to(ROOT / "gongzhu").with_suffix("").as_posix(),
)
def test_core_does_not_import_upper_layers(path: Path) -> None:
    for name in imported_modules(path):
        parts = set(name.lstrip(".").split("."))
        assert not parts & UPPER, f"{path.name} imports {name}"
        assert "gongzhu_variants" not in parts, f"{path.name} imports a plug-in directly"


@pytest.mark.parametrize("path", PLUGINS, ids=lambda p: p.stem)
def test_plugins_do_not_import_each_other(path: Path) -> None:
    for name in imported_modules(path):
        assert not name.startswith((".", "gongzhu_variants")), f"{path.name} imports {name}"


# the plug-ins a reader copies: the shipped ones and the examples' distributions
EXAMPLE_PLUGINS = sorted((ROOT / "examples").glob("*/src/*/*.py"))


def core_imports(path: Path) -> list[str]:
    """Every module of gongzhu ``path`` imports, anywhere in it (under ``TYPE_CHECKING`` and
    inside functions too): ``from gongzhu.x import y`` and ``import gongzhu.x`` give
    ``gongzhu.x``."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
    return [name for name in names if name.split(".")[0] == "gongzhu"]


@pytest.mark.parametrize(
    "path", PLUGINS + EXAMPLE_PLUGINS, ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_plugins_import_the_core_from_gongzhu_plugin_alone(path: Path) -> None:
    """gongzhu.plugin is what a plug-in author imports (issue 38): the shipped plug-ins and
    the examples show it, so every other module of the core may change inside."""
    others = [name for name in core_imports(path) if name != "gongzhu.plugin"]
    assert not others, f"{path.name} imports {others}: import them from gongzhu.plugin"


def test_the_import_check_sees_every_import(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import gongzhu\n"
        "from gongzhu.plugin import hookimpl\n"
        "import gongzhu_variants.huapai\n"
        "if TYPE_CHECKING:\n"
        "    from gongzhu.rules import Rules\n"
        "def f():\n"
        "    import gongzhu.play\n",
        encoding="utf-8",
    )
    assert core_imports(source) == ["gongzhu", "gongzhu.plugin", "gongzhu.rules", "gongzhu.play"]


def test_gongzhu_plugin_re_exports_the_objects_themselves() -> None:
    """Each name gongzhu.plugin re-exports is its home's object (a plug-in's ``isinstance``
    and ``is`` hold), and the names whose modules stand above it load on first use."""
    import importlib

    import gongzhu.plugin

    for name in gongzhu.plugin.__all__:
        value = getattr(gongzhu.plugin, name)
        home = getattr(value, "__module__", None)
        if isinstance(home, str) and home.startswith("gongzhu.") and home != "gongzhu.plugin":
            assert getattr(importlib.import_module(home), name) is value, name
    for name, module in gongzhu.plugin._LAZY.items():
        assert getattr(gongzhu.plugin, name) is getattr(
            importlib.import_module(f"gongzhu.{module}"), name
        )
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        gongzhu.plugin.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


def test_importing_gongzhu_plugin_imports_no_layer_above_it() -> None:
    import subprocess
    import sys

    code = (
        "import sys, gongzhu.plugin\n"
        "above = ['gongzhu.play', 'gongzhu.scoring', 'gongzhu.rules', 'gongzhu.hand']\n"
        "print([m for m in above if m in sys.modules])\n"
        "from gongzhu.plugin import PlayConfigurator, ScoreStage\n"
        "print(PlayConfigurator.__module__, ScoreStage.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split("\n")[:2] == ["[]", "gongzhu.play gongzhu.scoring.pipeline"]


RULESETS = [(), ("huapai", "anmai"), ("same-colour-discard",), ("two-deck",)]


@BOTH_ENGINES
@pytest.mark.parametrize("names", RULESETS, ids=lambda names: "+".join(names) or "39baobao")
def test_no_hook_is_called_while_cards_are_played(names: tuple[str, ...]) -> None:
    """Hooks are asked when a ruleset is built and at phase boundaries, never for a card.

    Every hook call through the ruleset's plugin manager is recorded while a
    whole play phase runs (legal actions, plays, refusals, clones, views).
    """
    import random

    import gongzhu

    rules = gongzhu.load_rules(*names)
    calls: list[str] = []
    for seed in range(3):
        hand = rules.new_hand(seed)
        rng = random.Random(seed)
        while hand.phase is not gongzhu.Phase.PLAY:
            hand.apply(rng.choice(hand.legal_actions()))
        undo = rules._pm.add_hookcall_monitoring(
            lambda name, _impls, _kwargs: calls.append(name), lambda *_args: None
        )
        try:
            while not hand.is_over:
                seat = hand.to_move
                assert seat is not None
                legal = hand.legal_actions()
                held = hand.holding(seat)
                refused = [c for c in held if gongzhu.Play.of(c) not in legal]
                if refused:  # a refusal is explained by the engine alone
                    with pytest.raises(gongzhu.errors.IllegalAction):
                        hand.apply(gongzhu.Play.of(refused[0]))
                hand.view(seat)
                hand.clone()
                hand.apply(rng.choice(legal))
        finally:
            undo()
    assert calls == []


@BOTH_ENGINES
@pytest.mark.parametrize(
    "names",
    [("huapai", "anmai"), ("biming",), ("two-deck", "anmai")],
    ids=lambda names: "+".join(names),
)
def test_no_hook_is_called_in_the_show_phases(names: tuple[str, ...]) -> None:
    """The show phases are compiled with the ruleset: from the dealt hand to the first card
    (首明, shows, secret sales, auto-show), with refused shows, views and clones on the
    way, no hook is asked."""
    import random

    import gongzhu

    rules = gongzhu.load_rules(*names)
    calls: list[str] = []
    shows = 0
    for seed in range(6):
        hand = rules.new_hand(seed)  # the opening lead is asked here, once
        rng = random.Random(seed)
        undo = rules._pm.add_hookcall_monitoring(
            lambda name, _impls, _kwargs: calls.append(name), lambda *_args: None
        )
        try:
            while hand.phase is not gongzhu.Phase.PLAY:
                seat = hand.to_move
                assert seat is not None
                with pytest.raises(gongzhu.errors.IllegalAction):
                    hand.apply(gongzhu.Show(gongzhu.parse_cards("2C 2C 2C")))
                hand.view(seat)
                hand.clone()
                legal = hand.legal_actions()
                hand.apply(
                    max(legal, key=lambda a: len(a.cards))
                    if rng.random() < 0.5
                    else rng.choice(legal)
                )
                shows += 1
            hand.legal_actions()
        finally:
            undo()
    assert shows >= 6 * 4 and calls == []


def test_the_monitor_sees_a_hook_call() -> None:
    """The check above can fail: a hook asked through the plugin manager is recorded."""
    import gongzhu

    rules = gongzhu.load_rules()
    calls: list[str] = []
    undo = rules._pm.add_hookcall_monitoring(
        lambda name, _impls, _kwargs: calls.append(name), lambda *_args: None
    )
    try:
        rules.next_leader(rules.new_hand(1))
    finally:
        undo()
    assert calls == ["gongzhu_next_leader"]

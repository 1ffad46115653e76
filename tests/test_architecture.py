"""The shape of the code: arrows point down, plug-ins stand alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = sorted((ROOT / "gongzhu").glob("*.py"))
PLUGINS = sorted((ROOT / "variants").glob("*.py"))
UPPER = {"cli", "bots", "runner", "__main__", "adapters"}  # command line, bots, runs, adapters


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


@pytest.mark.parametrize("path", [p for p in CORE if p.stem not in UPPER], ids=lambda p: p.stem)
def test_core_does_not_import_upper_layers(path: Path) -> None:
    for name in imported_modules(path):
        parts = set(name.lstrip(".").split("."))
        assert not parts & UPPER, f"{path.name} imports {name}"
        assert "gongzhu_variants" not in parts, f"{path.name} imports a plug-in directly"


@pytest.mark.parametrize("path", PLUGINS, ids=lambda p: p.stem)
def test_plugins_do_not_import_each_other(path: Path) -> None:
    for name in imported_modules(path):
        assert not name.startswith((".", "gongzhu_variants")), f"{path.name} imports {name}"


def test_hot_path_does_not_call_hooks() -> None:
    """The per-card methods never reach the plugin manager."""
    source = (ROOT / "gongzhu" / "hand.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    hot = {"_legal_play_mask", "_play", "_finish_trick", "legal_actions", "apply"}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in hot:
            text = ast.unparse(node)
            assert "_hook" not in text and "pm." not in text and ".hook." not in text, node.name

"""The layers of docs/architecture.rst hold: no module of gongzhu/ imports from a layer above."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gongzhu"
PAGE = ROOT / "docs" / "architecture.rst"


def _block(name: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(rf"\.\. begin-{name}\n(.*?)\.\. end-{name}", text, flags=re.S)
    assert found, f"docs/architecture.rst has no begin-{name} / end-{name} block"
    return found.group(1)


def documented_layers() -> dict[str, int]:
    """Module (or package) name -> its layer, 0 at the bottom, read from the page's table."""
    rows = re.findall(r"^   \* - (.+)\n     - (.+)$", _block("layers"), flags=re.M)
    rows = rows[1:]  # the header row
    assert rows, "the layer table is empty"
    layers: dict[str, int] = {}
    for number, (_layer, modules) in enumerate(reversed(rows)):
        for name in re.findall(r"``([\w.]+)``", modules):
            assert name not in layers, f"{name} is in two layers"
            layers[name] = number
    return layers


def documented_upward() -> set[tuple[str, str]]:
    return set(re.findall(r"``(\w+)`` → ``(\w+)``", _block("upward")))


def _type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """The gongzhu modules ``path`` imports at run time: (name, inside a function).

    ``from .x import y`` gives ``x``; ``from . import x`` gives ``x`` when ``x`` is a
    module or package of gongzhu, else ``__init__``.  Imports under ``if TYPE_CHECKING:``
    are annotations, not arrows, and are left out.
    """
    found: list[tuple[str, bool]] = []

    def add(name: str, nested: bool) -> None:
        first = name.split(".")[0] if name else "__init__"
        found.append((first, nested))

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit(other, nested)
                continue
            inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom):
                if child.level == 1 and child.module:
                    add(child.module, nested)
                elif child.level == 1:
                    for alias in child.names:
                        is_module = (PACKAGE / f"{alias.name}.py").exists() or (
                            PACKAGE / alias.name / "__init__.py"
                        ).exists()
                        add(alias.name if is_module else "", nested)
                elif child.level == 0 and (child.module or "").startswith("gongzhu."):
                    add((child.module or "").removeprefix("gongzhu."), nested)
                elif child.level == 0 and child.module == "gongzhu":
                    add("", nested)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("gongzhu."):
                        add(alias.name.removeprefix("gongzhu."), nested)
                    elif alias.name == "gongzhu":
                        add("", nested)
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


MODULES = sorted(PACKAGE.glob("*.py"))


def test_every_module_and_package_has_a_layer() -> None:
    layers = documented_layers()
    names = {p.stem for p in MODULES}
    names |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    missing = sorted(names - set(layers))
    assert not missing, f"add to the layer table of docs/architecture.rst: {missing}"
    stale = sorted(set(layers) - names)
    assert not stale, f"the layer table names modules that do not exist: {stale}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_imports_point_down(path: Path) -> None:
    layers = documented_layers()
    allowed = documented_upward()
    own = layers[path.stem]
    for name, nested in imports_of(path):
        if layers[name] <= own:
            continue
        assert nested and (path.stem, name) in allowed, (
            f"gongzhu.{path.stem} (layer {own}) imports gongzhu.{name} (layer {layers[name]}): "
            "a module imports only from its own layer or below (docs/architecture.rst)"
        )


def test_the_allowed_upward_imports_exist() -> None:
    """Each documented exception is still needed: a stale one is removed from the page."""
    upward = {
        (path.stem, name)
        for path in MODULES
        for name, nested in imports_of(path)
        if nested and documented_layers()[name] > documented_layers()[path.stem]
    }
    assert upward == documented_upward()


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The parser finds imports at the top, in functions, and skips TYPE_CHECKING ones."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from .cards import Card\n"
        "from . import errors, __version__\n"
        "if TYPE_CHECKING:\n"
        "    from .rules import Rules\n"
        "def f():\n"
        "    from .record import hand_record\n",
        encoding="utf-8",
    )
    assert imports_of(source) == [
        ("cards", False),
        ("errors", False),
        ("__init__", False),
        ("record", True),
    ]

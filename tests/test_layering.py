"""The layers of docs/architecture.rst hold: no module of gongzhu/ imports from a layer above."""

from __future__ import annotations

import ast
import re
import tomllib
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


def unit(path: Path, root: Path = PACKAGE) -> str:
    """The name the table gives ``path``: a module's, or for a file of a package the package's."""
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 else path.stem


def imports_of(path: Path, root: Path = PACKAGE) -> list[tuple[str, bool]]:
    """The gongzhu modules ``path`` imports at run time: (name, inside a function).

    ``from .x import y`` gives ``x``; ``from . import x`` gives ``x`` when ``x`` is a
    module or package of gongzhu, else ``__init__``.  In a file of a package (``cli/``,
    ``web/``...) ``from .x import y`` is the package itself, and ``from ..x import y``
    gives ``x``.  Imports under ``if TYPE_CHECKING:`` are annotations, not arrows, and
    are left out.
    """
    found: list[tuple[str, bool]] = []
    inside = path.is_relative_to(root) and len(path.relative_to(root).parts) > 1
    top = 2 if inside else 1  # the level of ``from .. import`` / ``from . import``: gongzhu/

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
                if 0 < child.level < top:  # within its own package
                    add(unit(path, root), nested)
                elif child.level == top and child.module:
                    add(child.module, nested)
                elif child.level == top:
                    for alias in child.names:
                        is_module = (root / f"{alias.name}.py").exists() or (
                            root / alias.name / "__init__.py"
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
FILES = sorted(PACKAGE.rglob("*.py"))  # the modules, and the files of the packages


def extension_modules() -> set[str]:
    """The names of the C extension modules pyproject.toml builds inside gongzhu/."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    modules = project["tool"]["setuptools"]["ext-modules"]
    return {module["name"].removeprefix("gongzhu.") for module in modules}


def test_every_module_and_package_has_a_layer() -> None:
    layers = documented_layers()
    names = {p.stem for p in MODULES}
    names |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    names |= extension_modules()  # the C accelerator's module
    missing = sorted(names - set(layers))
    assert not missing, f"add to the layer table of docs/architecture.rst: {missing}"
    stale = sorted(set(layers) - names)
    assert not stale, f"the layer table names modules that do not exist: {stale}"


def _dotted(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


@pytest.mark.parametrize("path", FILES, ids=_dotted)
def test_imports_point_down(path: Path) -> None:
    layers = documented_layers()
    allowed = documented_upward()
    own = layers[unit(path)]
    for name, nested in imports_of(path):
        if layers[name] <= own:
            continue
        assert nested and (unit(path), name) in allowed, (
            f"gongzhu.{_dotted(path)} (layer {own}) imports gongzhu.{name} "
            f"(layer {layers[name]}): "
            "a module imports only from its own layer or below (docs/architecture.rst)"
        )


def test_the_allowed_upward_imports_exist() -> None:
    """Each documented exception is still needed: a stale one is removed from the page."""
    upward = {
        (unit(path), name)
        for path in FILES
        for name, nested in imports_of(path)
        if nested and documented_layers()[name] > documented_layers()[unit(path)]
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


def test_the_check_reads_the_files_of_a_package(tmp_path: Path) -> None:
    """In ``pkg/probe.py``, ``.x`` is the package itself and ``..x`` a module of gongzhu."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "rules.py").write_text("", encoding="utf-8")
    source = tmp_path / "pkg" / "probe.py"
    source.write_text(
        "from .parser import build_parser\n"
        "from ..cards import Card\n"
        "from .. import rules, __version__\n"
        "def f():\n"
        "    from ..record import hand_record\n",
        encoding="utf-8",
    )
    assert imports_of(source, tmp_path) == [
        ("pkg", False),
        ("cards", False),
        ("rules", False),
        ("__init__", False),
        ("record", True),
    ]

"""No module of gongzhu/ reads another module's private names, as tests/test_layering.py
holds the imports: what one module needs of another has a public name.

A private name is one with a leading underscore (dunder names are not private).  The scan
reads each module's syntax tree:

* ``x._name`` is a read of another module's private name when ``x`` is not ``self``,
  ``cls``, ``super()`` or ``type(self)``, and another module of gongzhu/ defines
  ``_name`` (assigns it, as an attribute too, or has it as a ``def``, ``class``,
  parameter or ``__slots__`` entry).  When this module defines it as well, the read may
  be of either's objects, and counts, unless :data:`OWN_SHARED` says it is of this
  module's own.  A name no module of gongzhu/ defines (``os._exit``) is not the package's.
* ``from .m import _name`` reads ``m``'s private name.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Set as AbstractSet
from functools import cache
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gongzhu"

OWN_SHARED = {
    ("bots/search.py", "_rng"),  # SearchBot's own (bots/base.py's Bot has one too)
    ("envs/gymnasium.py", "_codec"),  # SeatEnv's own (pettingzoo.py's env has one too)
}
"""``(file, name)``: a private name several modules define, read in ``file`` off its own
class's objects only."""


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def defined_names(tree: ast.AST) -> set[str]:
    """The private names a module defines: what it assigns (attributes included), its
    functions, classes, parameters, imports and ``__slots__`` entries."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__slots__" for target in node.targets
        ):
            names.update(
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
    return {name for name in names if private(name)}


def _own_receiver(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("super", "type")
    )


def private_reads(
    tree: ast.AST, own: set[str], elsewhere: Counter[str], shared: AbstractSet[str] = frozenset()
) -> list[tuple[int, str]]:
    """``(line, text)`` of each read of another module's private name in ``tree``.

    :param own: the private names this module defines.
    :param elsewhere: how many other modules define each private name.
    :param shared: names several modules define that this one reads off its own objects.
    """
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            name = node.attr
            if not private(name) or _own_receiver(node.value) or not elsewhere[name]:
                continue  # no other module's name (its own, or not the package's: os._exit)
            if name in own and name in shared:
                continue
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom) and node.level:
            found += [
                (node.lineno, f"from {'.' * node.level}{node.module or ''} import {alias.name}")
                for alias in node.names
                if private(alias.name) and not _is_module(alias.name)
            ]
    return found


COMPILED_MODULES: Final = frozenset({"_speedups"})
"""The package's compiled modules (pyproject.toml's ext-modules), built or not."""


@cache
def _modules() -> frozenset[str]:
    return frozenset(path.stem for path in PACKAGE.rglob("*.py")) | COMPILED_MODULES


def _is_module(name: str) -> bool:
    """``_accel``, ``_speedups``: the package's private modules, not a module's names."""
    return name in _modules()


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def package_reads() -> list[tuple[str, int, str]]:
    """``(file, line, text)`` of every read of another module's private name in gongzhu/."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in PACKAGE.rglob("*.py")}
    defined = {path: defined_names(tree) for path, tree in trees.items()}
    everywhere = Counter(name for names in defined.values() for name in names)
    found = []
    for path, tree in sorted(trees.items()):
        own = defined[path]
        elsewhere = everywhere.copy()
        elsewhere.subtract(own)
        rel = _relative(path)
        shared = {name for file, name in OWN_SHARED if file == rel}
        found += [(rel, line, text) for line, text in private_reads(tree, own, elsewhere, shared)]
    return found


def test_no_module_reads_another_modules_private_names() -> None:
    found = [f"gongzhu/{file}:{line}: {text}" for file, line, text in package_reads()]
    assert found == [], "give what another module needs a public name"


def _reads(source: str, other: str) -> list[str]:
    """The private reads of ``source`` beside a module whose source is ``other``."""
    tree, beside = ast.parse(source), ast.parse(other)
    elsewhere = Counter(defined_names(beside))
    return [text for _line, text in private_reads(tree, defined_names(tree), elsewhere)]


def test_the_scan_finds_private_reads() -> None:
    other = (
        "class HandState:\n"
        "    __slots__ = ('_engine', '_dealt')\n"
        "    def _helper(self): return self._engine\n"
        "def _hidden(): pass\n"
    )
    source = (
        "from .hand import _hidden\n"
        "from . import _speedups\n"  # a private module: not a module's name
        "import os\n"
        "class Encoder:\n"
        "    def __init__(self, hand):\n"
        "        self._cache = hand._engine\n"  # another module's
        "        self._cache2 = self._cache\n"  # its own, on self
        "    def copy(self, other):\n"
        "        return other._cache, other._dealt, os._exit, other.__dict__\n"
    )
    assert sorted(_reads(source, other)) == [
        "from .hand import _hidden",
        "hand._engine",
        "other._dealt",
    ]


def test_a_name_both_modules_define_is_read_as_the_others() -> None:
    other = "class HandState:\n    def __init__(self): self._engine = 1\n"
    source = "class Encoder:\n    def __init__(self, hand):\n        self._engine = hand._engine\n"
    assert _reads(source, other) == ["hand._engine"]

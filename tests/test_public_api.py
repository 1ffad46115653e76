"""The public API is the list in tests/public_api.txt: changing it is a visible decision.

The list holds every public module of ``gongzhu`` (no part of its name starts with
``_``; ``gongzhu.defaults`` and the ``__main__`` modules are private) and every name
its ``__all__`` exports, with the kind of its definition: ``class``, ``function``,
``module``, or ``value`` (bound by an assignment: a constant, a type alias, a function
made by another).  A module without ``__all__`` (``gongzhu.hookspecs``) exports its top-level
names that do not start with ``_``.  The list is read from the source, not from imported
modules, so it is the same with or without the optional extras (``gongzhu.web`` needs
Starlette); a second test checks the reading against the modules it can import.

When the API changes on purpose, regenerate the list (one command, deterministic) and
commit it with the change::

    python tests/test_public_api.py --update
"""

from __future__ import annotations

import ast
import difflib
import importlib
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gongzhu"
LIST = Path(__file__).resolve().parent / "public_api.txt"
UPDATE = "python tests/test_public_api.py --update"

PRIVATE = frozenset({"__main__", "defaults"})
"""Modules that are private though their names do not start with ``_``."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def public_modules() -> dict[str, Path]:
    """Every public module of gongzhu, name -> its file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        last = name.split(".")[1:]
        if any(part.startswith("_") or part in PRIVATE for part in last):
            continue
        found[name] = path
    return found


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _file_of(module: str) -> Path | None:
    relative = Path(*module.split("."))
    for candidate in (ROOT / relative.with_suffix(".py"), ROOT / relative / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _absolute(path: Path, level: int, module: str | None) -> str:
    """The absolute name of ``from <level dots><module> import ...`` in ``path``."""
    if level == 0:
        return module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _top_level(tree: ast.Module) -> Iterator[ast.stmt]:
    """The module's statements, those under ``if`` included (``if TYPE_CHECKING:`` holds
    the imports of names a module loads on first use)."""
    for node in tree.body:
        if isinstance(node, ast.If):
            yield from node.body
            yield from node.orelse
        else:
            yield node


def exported(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                assert node.value is not None
                return list(ast.literal_eval(node.value))
    return None


def kind(module: str, name: str, depth: int = 0) -> str:
    """What ``name`` is in ``module``: its definition's kind, following imports."""
    path = _file_of(module)
    assert path is not None and depth < 10, f"cannot find {module}.{name}"
    for node in _top_level(_tree(path)):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return "class"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return "function"
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if name in bound:
                return "value"
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    source = _absolute(path, node.level, node.module)
                    if _file_of(f"{source}.{alias.name}") is not None:
                        return "module"
                    return kind(source, alias.name, depth + 1)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == name:
                    return "module"
    raise AssertionError(f"{module}.{name} is exported but not defined")


def public_names(module: str, path: Path) -> list[str]:
    tree = _tree(path)
    names = exported(tree)
    if names is not None:
        return sorted(names)
    # no __all__: the public top-level definitions
    return sorted(
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
    )


def api_lines() -> list[str]:
    """The list as it is in the source now: a line ``module:`` for each public module, and
    ``module: name kind`` for each name it exports."""
    lines = []
    for module, path in sorted(public_modules().items(), key=lambda item: item[0].split(".")):
        lines.append(f"{module}:")
        for name in public_names(module, path):
            lines.append(f"{module}: {name} {kind(module, name)}")
    return lines


def committed() -> list[str]:
    return LIST.read_text(encoding="utf-8").splitlines()


def test_the_public_api_is_the_committed_list() -> None:
    live = api_lines()
    if live != committed():
        diff = "\n".join(
            difflib.unified_diff(
                committed(), live, "tests/public_api.txt", "the source", lineterm=""
            )
        )
        raise AssertionError(
            f"the public API changed:\n{diff}\n\nIf that is intended, regenerate the list "
            f"and commit it with the change:\n    {UPDATE}"
        )


def test_the_list_has_no_duplicates() -> None:
    lines = committed()
    assert len(lines) == len(set(lines))


def test_the_reading_matches_the_imported_modules() -> None:
    """Each module that imports here (the optional extras may be missing) exports exactly
    the names read from its source, each of them there (a lazily loaded name too)."""
    checked = 0
    for module, path in public_modules().items():
        try:
            imported = importlib.import_module(module)
        except ImportError as error:  # an optional extra: read from the source alone
            assert error.name is not None and not error.name.startswith("gongzhu")
            continue
        names = public_names(module, path)
        assert sorted(getattr(imported, "__all__", names)) == names, module
        for name in names:
            value = getattr(imported, name)
            expected = kind(module, name)
            if expected == "module":
                assert type(value).__name__ == "module", f"{module}.{name}"
            elif expected in ("class", "function"):
                assert callable(value), f"{module}.{name}"
        checked += 1
    assert checked >= 40  # the core, the bots, the command line at least


def test_the_reading_sees_each_kind(tmp_path: Path) -> None:
    assert kind("gongzhu", "load_rules") == "function"  # lazy, through TYPE_CHECKING
    assert kind("gongzhu", "errors") == "module"
    assert kind("gongzhu.plugin", "PlayRule") == "class"  # lazy, from gongzhu.play
    assert kind("gongzhu.plugin", "SeatTally") == "class"  # through gongzhu.scoring
    assert kind("gongzhu.masks", "CardMask") == "value"
    assert kind("gongzhu.masks", "plays_of_mask") == "value"  # unpacked from a call
    assert "gongzhu.plugin: PlayConfigurator class" in api_lines()
    assert not any(line.startswith(("gongzhu.defaults", "gongzhu._")) for line in api_lines())


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {UPDATE}")
    LIST.write_text("\n".join(api_lines()) + "\n", encoding="utf-8")
    print(f"wrote {LIST.relative_to(ROOT)}: {len(committed())} lines")

"""Every hook is documented: in the reference, with each parameter and its firstresult rule."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from gongzhu import hookspecs

DOCS = Path(__file__).resolve().parent.parent / "docs"
HOOKS = hookspecs.hook_names()


def test_there_are_hooks() -> None:
    assert len(HOOKS) >= 17
    assert all(name.startswith("gongzhu_") for name in HOOKS)


@pytest.mark.parametrize("name", HOOKS)
def test_hook_is_in_the_reference(name: str) -> None:
    text = (DOCS / "hooks.rst").read_text(encoding="utf-8")
    assert f".. autofunction:: gongzhu.hookspecs.{name}\n" in text


@pytest.mark.parametrize("name", HOOKS)
def test_hook_docstring_covers_its_signature(name: str) -> None:
    func = getattr(hookspecs, name)
    doc = inspect.getdoc(func) or ""
    params = list(inspect.signature(func).parameters)
    documented = re.findall(r":param (\w+):", doc)
    assert documented == params, f"{name}: documents {documented}, takes {params}"
    firstresult = func.gongzhu_spec["firstresult"]
    folded = " ".join(doc.split())
    assert ("Stops at the first non-``None`` result" in folded) == firstresult, name


def test_documented_hooks_all_exist() -> None:
    text = (DOCS / "hooks.rst").read_text(encoding="utf-8")
    listed = re.findall(r"autofunction:: gongzhu\.hookspecs\.(\w+)", text)
    assert sorted(listed) == sorted(HOOKS)


PRIVATE_MODULES = {"__init__", "__main__", "defaults", "_speedups", "_accel"}


def documented_modules() -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in DOCS.rglob("*.rst"))
    return set(re.findall(r"automodule:: (gongzhu(?:_variants)?\.\w+)", text))


def test_every_public_module_is_in_the_api_docs() -> None:
    import gongzhu

    package = Path(gongzhu.__file__).parent
    modules = {f"gongzhu.{p.stem}" for p in package.glob("*.py") if p.stem not in PRIVATE_MODULES}
    missing = modules - documented_modules()
    assert not missing, f"not in the docs: {sorted(missing)}"


def shipped_plugins() -> list[str]:
    """The plug-ins this distribution ships (not every installed one: third parties' too)."""
    import importlib.metadata

    eps = importlib.metadata.distribution("gongzhu").entry_points
    return sorted(ep.name for ep in eps if ep.group == "gongzhu.variants")


def test_every_shipped_plugin_has_a_page() -> None:
    assert "two-deck" in shipped_plugins()
    for name in shipped_plugins():
        page = DOCS / "variants" / f"{name}.rst"
        assert page.exists(), name
        assert f".. gongzhu-options:: {name}" in page.read_text(encoding="utf-8")


def test_package_exports_are_documented_objects() -> None:
    import gongzhu

    for name in gongzhu.__all__:
        obj = getattr(gongzhu, name)
        module = getattr(obj, "__module__", None)
        if module and module.startswith("gongzhu."):
            documented = documented_modules()  # a package's module counts as the package
            assert any(module == m or module.startswith(m + ".") for m in documented), (
                name,
                module,
            )

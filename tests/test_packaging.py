"""The distribution ships every package of the source tree (setuptools' list is explicit)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "gongzhu").rglob("__init__.py")
    }
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert config["package-dir"]["gongzhu_variants"] == "variants"


def test_the_version_is_written_once() -> None:
    """gongzhu.__version__ is the version: pyproject.toml reads it, and writes none."""
    import gongzhu

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "gongzhu.__version__"}
    assert gongzhu.__version__.count(".") == 2


def test_the_licence_ships() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text("utf-8")
    assert text.startswith("MIT License") and "The gongzhu developers" in text
    manifest = (ROOT / "MANIFEST.in").read_text("utf-8")
    assert "include CHANGELOG.md" in manifest

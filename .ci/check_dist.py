"""The release check (issue 38), run by .ci/run, or alone: ``python .ci/check_dist.py``.

``python -m build`` makes an sdist and a wheel (the wheel from the sdist) that
``twine check`` accepts; the sdist holds what a build needs (the C sources, the
schemas, the web client's files, the licence) and nothing stray; and a wheel built
from the sdist with no compiler (``CC=false``: the C extension is optional) installs
into a fresh virtualenv and plays a hand in pure Python.  Needs ``build`` and
``twine`` (the ``dev`` extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NEEDED = [
    "LICENSE",
    "README.md",
    "CHANGELOG.md",
    "pyproject.toml",
    "gongzhu/__init__.py",
    "gongzhu/py.typed",
    "gongzhu/engines/c/engine.h",
    "gongzhu/engines/c/module.c",
    "gongzhu/schemas/hand.schema.json",
    "gongzhu/schemas/match.schema.json",
    "gongzhu/web/static/index.html",
    "variants/huapai.py",
]
"""Paths (inside the sdist's top folder) a build, or a user, needs."""

STRAY = ("__pycache__", ".pyc", ".so", ".ci-venv", "docs/_build", ".egg-info/", ".git/")
"""What no distribution file may hold (an sdist's own PKG-INFO folder aside); nor does the
sdist hold the repository's other folders (the tests need all of them: they run from a
clone)."""


def run(*args: str | Path, **kwargs: object) -> None:
    print("+", " ".join(map(str, args)), flush=True)
    subprocess.run(list(map(str, args)), check=True, **kwargs)  # type: ignore[call-overload]


def check_sdist(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    inside = {name.removeprefix(f"{top}/") for name in names}
    missing = [path for path in NEEDED if path not in inside]
    assert not missing, f"the sdist lacks {missing}"
    c_sources = {path for path in inside if path.startswith("gongzhu/engines/c/")}
    expected = {f"gongzhu/engines/c/{p.name}" for p in (ROOT / "gongzhu/engines/c").glob("*.[ch]")}
    assert expected <= c_sources, f"the sdist lacks C files: {sorted(expected - c_sources)}"
    stray = sorted(
        name
        for name in inside
        if (any(mark in name for mark in STRAY) and not name.startswith("gongzhu.egg-info/"))
        or name.startswith(("tests/", "docs/", "examples/", "benchmarks/", "recipes/"))
    )
    assert not stray, f"the sdist holds stray files: {stray}"


def check_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), names
    assert "gongzhu/web/static/index.html" in names and "gongzhu_variants/huapai.py" in names
    stray = sorted(
        name
        for name in names
        if any(mark in name for mark in STRAY[:3]) or name.endswith((".c", ".h"))  # the sdist's
    )
    assert not stray, f"the wheel holds stray files: {stray}"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gongzhu-dist-") as tmp:
        work = Path(tmp)
        dist = work / "dist"
        run(sys.executable, "-m", "build", "--sdist", "--outdir", dist, ROOT)
        (sdist,) = dist.glob("gongzhu-*.tar.gz")
        check_sdist(sdist)
        # the wheel from the sdist alone, with no compiler: pure Python, as a user without
        # one gets it
        with tarfile.open(sdist) as tar:
            tar.extractall(work / "src", filter="data")
        (source,) = (work / "src").iterdir()
        env = {**os.environ, "CC": "false", "CXX": "false"}
        run(sys.executable, "-m", "build", "--wheel", "--outdir", dist, source, env=env)
        (wheel,) = dist.glob("gongzhu-*.whl")
        check_wheel(wheel)
        run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)

        venv = work / "venv"
        run(sys.executable, "-m", "venv", venv)
        python = venv / "bin" / "python"
        run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel)
        pure = "import gongzhu.engines as e, sys; sys.exit('C built' if e.ACCELERATED else 0)"
        run(python, "-c", pure, cwd=work)  # outside the source tree: the installed package
        run(venv / "bin" / "gongzhu", "demo", "--seed", "1", cwd=work, stdout=subprocess.DEVNULL)
    print("the distributions are fine")


if __name__ == "__main__":
    main()

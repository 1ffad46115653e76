"""The C sources compile without a warning (``-Wall -Wextra``, every warning an error).

A build prints its warnings and goes on, and ``pip install`` hides them: a function
passed where a table of functions is expected compiled with a warning, and crashed at
run time.  Skipped without a C compiler.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

SOURCES = sorted((Path(__file__).resolve().parent.parent / "gongzhu/engines/c").glob("*.c"))

pytestmark = pytest.mark.one_engine


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_compiles_without_a_warning(source: Path) -> None:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        pytest.skip("no Python headers")
    found = subprocess.run(
        [compiler, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{include}", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 0, found.stderr

"""The environment examples run (each skipped without its framework)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.one_engine  # the play engine is not what these test

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize(
    ("script", "package", "lines"),
    [
        ("pettingzoo_random.py", "pettingzoo", "hand "),
        ("gymnasium_seat.py", "gymnasium", "episode "),
        ("gymnasium_match.py", "gymnasium", "match "),
        ("openspiel_ismcts.py", "pyspiel", "hand "),
        ("ray_arena.py", "ray", "raw points per hand"),
    ],
)
def test_env_example_runs(script: str, package: str, lines: str) -> None:
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(lines) == (2 if package == "ray" else 3), done.stdout


IMPORT_CHECK = """
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel"}:
            raise ImportError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, Block())
import gongzhu, gongzhu.envs
import gongzhu.envs.encoding, gongzhu.envs.pettingzoo, gongzhu.envs.gymnasium
import gongzhu.envs.openspiel, gongzhu.envs.fast
try:
    gongzhu.envs.fast.HandEncoder(gongzhu.load_rules())
except ImportError as error:
    assert "numpy" in str(error), error
else:
    raise AssertionError("HandEncoder was built without numpy")
try:
    gongzhu.envs.openspiel.GongzhuGame()
except ImportError as error:
    assert "gongzhu[openspiel]" in str(error), error
else:
    raise AssertionError("GongzhuGame was built without OpenSpiel")
try:
    gongzhu.envs.pettingzoo.raw_env()
except ImportError as error:
    assert "gongzhu[pettingzoo]" in str(error), error
else:
    raise AssertionError("raw_env was built without PettingZoo")
try:
    gongzhu.envs.gymnasium.SeatEnv()
except ImportError as error:
    assert "gongzhu[gymnasium]" in str(error), error
else:
    raise AssertionError("SeatEnv was built without Gymnasium")
print("ok")
"""


def test_the_env_modules_import_without_the_extras() -> None:
    """Documentation and doctest collection import them where no extra is installed."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_CHECK], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_import_gongzhu_imports_no_framework() -> None:
    code = (
        "import sys, gongzhu, gongzhu.envs; "
        "print(sorted(set(sys.modules) & {'numpy', 'gymnasium', 'pettingzoo', 'pyspiel', 'ray'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

"""The README's quick start stays true: two commands, and CI runs its test command."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)


def test_quick_start_has_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert "gongzhu demo" in commands[0]
    assert commands[1].endswith("python -m pytest")


def test_ci_runs_the_readme_test_command() -> None:
    test_command = quick_start_commands()[1].split("&&")[-1].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci


def test_readme_usage_example_runs(capsys) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    assert code
    namespace: dict[str, Any] = {}
    exec(compile(code[0], "README.md", "exec"), namespace)
    sheet = namespace["sheet"]
    assert str(sheet.raw) in capsys.readouterr().out
    import gongzhu

    assert namespace["hand"].shown[0] == (gongzhu.PIG,)  # as the comment says

"""``gongzhu serve`` as a user runs it: help, one-line errors and their statuses, a real start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

pytestmark = pytest.mark.one_engine


def gongzhu(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "gongzhu", *args]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("GONGZHU_DEBUG", None)
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def one_line_error(result: subprocess.CompletedProcess[str], status: int) -> str:
    assert result.returncode == status, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_serve_help() -> None:
    result = gongzhu("serve", "--help")
    assert result.returncode == 0
    for option in ("--host", "--port", "--rules", "--seats", "--seed", "--bot-delay"):
        assert option in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--port", "nope"), "expected a port number"),
        (("--port", "70000"), "a port is 0-65535"),
        (("--seats", "human,nobody,random,random"), "no gongzhu bot named 'nobody'"),
        (("--seats", "random,random,random,random"), "no person"),
        (("--bot-delay", "-1"), "from 0 to 10 seconds"),
        (("--frobnicate",), "unrecognized arguments"),
    ],
)
def test_a_bad_argument_is_one_line_and_status_2(args: tuple[str, ...], words: str) -> None:
    line = one_line_error(gongzhu("serve", *args), 2)
    assert line.startswith(("gongzhu serve: error:", "gongzhu: error:")) and words in line


def test_without_the_extra_serve_says_what_to_install() -> None:
    blocked = "import sys; sys.modules['starlette'] = None; from gongzhu.cli import main; "
    result = gongzhu(code=blocked + "sys.exit(main(['serve']))")
    line = one_line_error(result, 2)
    assert "pip install 'gongzhu[web]'" in line


def test_other_commands_do_not_import_the_web_extra() -> None:
    check = (
        "import sys, gongzhu, gongzhu.cli, gongzhu.web, gongzhu.web.app, gongzhu.web.serve; "
        "from gongzhu.cli import main; main(['variants']); "
        "print('LOADED', sorted(m for m in ('starlette', 'uvicorn') if m in sys.modules))"
    )
    result = gongzhu(code=check)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout


needs_extra = pytest.mark.skipif(
    any(__import__("importlib").util.find_spec(m) is None for m in ("starlette", "uvicorn")),
    reason="the web extra is not installed: pip install '.[web]'",
)


@needs_extra
def test_unknown_rules_are_status_1() -> None:
    line = one_line_error(gongzhu("serve", "--rules", "no-such-rules", "--port", "0"), 1)
    assert "no gongzhu variant named 'no-such-rules'" in line


@needs_extra
def test_a_port_in_use_is_status_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        line = one_line_error(gongzhu("serve", "--port", str(port)), 2)
    assert f"cannot listen on 127.0.0.1:{port}" in line


@needs_extra
def test_serve_prints_the_links_serves_them_and_stops_on_ctrl_c() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gongzhu", "serve", "--port", "0", "--seed", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(7)]
        assert lines[0].startswith("gongzhu serving on http://127.0.0.1:"), lines
        url = lines[0].split()[3]
        seat_line = next(line for line in lines if line.strip().startswith("seat 0:"))
        link = seat_line.split()[-1]
        assert link.startswith(url + "/play/")
        with urllib.request.urlopen(link, timeout=10) as page:
            assert b"table.js" in page.read()
        with urllib.request.urlopen(url + "/api/info", timeout=10) as info:
            assert "heuristic" in json.load(info)["bots"]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            process.kill()
            raise
    assert process.returncode == 130, err  # interrupted (docs/cli.rst), cleanly
    assert "Traceback" not in err and err.strip() == "gongzhu: interrupted"

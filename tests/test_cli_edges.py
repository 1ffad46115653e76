"""The command line when its surroundings fail: standard input or output closed, a
full disk behind standard output, a third party's plug-in that cannot be imported,
the end of input in ``play``; and the messages a user reads for bad records.

Every case runs the real command in a subprocess and reads its exit status and
its one line on stderr (docs/cli.rst lists the statuses)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import gongzhu
from gongzhu.bots import RandomBot, play_hand

pytestmark = pytest.mark.one_engine

PYTHON = shlex.quote(sys.executable)


def shell(command: str, *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``gongzhu`` through a shell, which can close descriptors (``>&-``, ``<&-``)."""
    return subprocess.run(
        ["sh", "-c", f"{PYTHON} -m gongzhu {command}"],
        capture_output=True,
        text=True,
        timeout=120,
        env=None if env is None else {**os.environ, **env},
    )


def one_line(result: subprocess.CompletedProcess[str], status: int, pattern: str) -> None:
    assert result.returncode == status, result
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert re.fullmatch(pattern, lines[0]), lines[0]


def finished_record(rules: tuple[str, ...] = (), seed: int = 1) -> dict:
    hand = gongzhu.load_rules(*rules).new_hand(seed)
    return play_hand(hand, [RandomBot(seed + s) for s in range(4)]).to_record()


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(finished_record()), encoding="utf-8")
    return path


# -- closed descriptors and a full disk ---------------------------------------------------------


@pytest.mark.parametrize("command", ["--help", "--version", "bogus", "demo --bogus"])
def test_help_or_a_usage_error_with_both_outputs_closed_is_status_2(command: str) -> None:
    result = shell(command + " >&- 2>&-")
    assert result.returncode == 2, result


@pytest.mark.parametrize(
    "command", ["demo --seed 1", "score {file}", "variants", "--version", "demo --help"]
)
def test_closed_standard_output(command: str, record_file: Path) -> None:
    result = shell(command.format(file=shlex.quote(str(record_file))) + " >&-")
    one_line(result, 2, r"gongzhu: standard output is closed")


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("score -", r"gongzhu: cannot read standard input: it is closed"),
        ("replay --verbose -", r"gongzhu: cannot read standard input: it is closed"),
        ("play --seed 3", r"gongzhu: play reads moves from standard input, which is closed"),
    ],
)
def test_closed_standard_input(command: str, message: str) -> None:
    one_line(shell(command + " <&-"), 2, message)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("flag", ["--help", "--version", "demo --help"])
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
def test_help_on_a_full_disk_is_an_error(flag: str, unbuffered: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:  # each write goes straight to the disk, which argparse would drop
        env["PYTHONUNBUFFERED"] = unbuffered
    result = subprocess.run(
        ["sh", "-c", f"{PYTHON} -m gongzhu {flag} > /dev/full"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    one_line(result, 2, r"gongzhu: cannot write standard output: No space left on device")


def test_with_standard_error_closed_a_message_is_dropped_not_printed_to_the_output() -> None:
    result = shell("demo --rules nope 2>&-")
    assert result.returncode == 1 and result.stdout == "", result


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("demo --seed 1 > /dev/full", 2),  # the message about the output is dropped
        ("demo --rules nope", 1),
        ("--help > /dev/full", 2),
        ("demo --bogus", 2),
    ],
)
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
def test_with_standard_error_on_a_full_disk_the_status_still_says_what_failed(
    command: str, status: int, unbuffered: str
) -> None:
    result = shell(command + " 2> /dev/full", env={"PYTHONUNBUFFERED": unbuffered})
    assert result.returncode == status and result.stdout == "", result


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", ["demo --seed 1", "simulate --hands 20", "variants"])
def test_standard_output_on_a_full_disk(command: str) -> None:
    result = shell(command + " > /dev/full")
    one_line(result, 2, r"gongzhu: cannot write standard output: No space left on device")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
def test_a_read_error_after_output_to_a_full_disk_is_one_line(
    tmp_path: Path, unbuffered: str
) -> None:
    path = tmp_path / "hands.jsonl"
    lines = [json.dumps(finished_record(seed=s)).encode() for s in range(3)]
    path.write_bytes(b"\n".join([*lines, b"\xff"]) + b"\n")
    result = shell(
        f"score {shlex.quote(str(path))} > /dev/full", env={"PYTHONUNBUFFERED": unbuffered}
    )
    one_line(result, 2, r"gongzhu: cannot (read .*: not UTF-8 text .*|write standard output: .*)")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_run_whose_report_cannot_be_written_leaves_the_out_file_as_it_was(
    tmp_path: Path,
) -> None:
    records = tmp_path / "keep.jsonl"
    records.write_bytes(b"ORIGINAL\n")
    out = shlex.quote(str(records))
    result = shell(f"simulate --hands 3 --workers 1 --out {out} > /dev/full")
    one_line(result, 2, r"gongzhu: cannot write standard output: No space left on device")
    assert records.read_bytes() == b"ORIGINAL\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.jsonl"]  # no .part left


def test_out_through_a_symbolic_link_replaces_the_file_and_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "runs.jsonl"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(real)
    result = shell(f"simulate --hands 2 --workers 1 --out {shlex.quote(str(link))}")
    assert result.returncode == 0, result
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert len(real.read_text(encoding="utf-8").splitlines()) == 2
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["runs.jsonl"]


@pytest.mark.skipif(not Path("/dev/stdout").exists(), reason="no /dev/stdout on this system")
@pytest.mark.parametrize("redirect", [">", ">>"])
def test_out_to_standard_output_in_a_file_keeps_the_records_and_earlier_text(
    tmp_path: Path, redirect: str
) -> None:
    saved = tmp_path / "run.txt"
    saved.write_text("earlier\n", encoding="utf-8")
    result = shell(f"simulate --hands 2 --workers 1 --out /dev/stdout {redirect} {saved}")
    assert result.returncode == 0, result
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[:-2] == (["earlier"] if redirect == ">>" else [])
    assert [json.loads(line)["format"] for line in lines[-2:]] == ["gongzhu-hand/1"] * 2
    report = result.stderr.splitlines()  # the records are the output; the report, beside
    assert report[-1] == "records: /dev/stdout" and "2 hands" in report


@pytest.mark.parametrize("out", ["-", "/dev/stdout"])
def test_records_on_standard_output_can_be_piped_to_score(out: str) -> None:
    if out != "-" and not Path(out).exists():
        pytest.skip("no /dev/stdout on this system")
    result = shell(f"simulate --hands 3 --workers 1 --out {out} | {PYTHON} -m gongzhu score -")
    assert result.returncode == 0, result
    assert result.stdout.endswith("3 checked, 0 refused\n")
    where = "standard output" if out == "-" else out
    assert result.stderr.endswith(f"records: {where}\n")  # simulate's report


def test_a_reader_that_goes_away_keeps_the_records(tmp_path: Path) -> None:
    records = tmp_path / "runs.jsonl"
    out = shlex.quote(str(records))
    result = shell(f"simulate --hands 3 --workers 1 --out {out} | true")  # closed at once
    assert result.returncode == 0 and result.stderr == "", result
    assert len(records.read_text(encoding="utf-8").splitlines()) == 3


@pytest.mark.parametrize("command", ["--help", "demo --seed 1", "variants", "simulate --hands 2"])
def test_an_output_encoding_without_chinese_escapes_it(command: str) -> None:
    result = shell(command, env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "\\u62f1\\u732a" in result.stdout or "\\u6ee1" in result.stdout  # 拱猪, 满


@pytest.mark.one_engine
def test_an_address_where_no_ray_cluster_answers_is_a_usage_error() -> None:
    pytest.importorskip("ray")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    command = [
        "simulate",
        "--hands",
        "2",
        "--workers",
        "1",
        "--backend",
        "ray",
        "--address",
        "auto",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", *command],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    if result.returncode == 0:
        pytest.skip("a Ray cluster runs on this machine")
    one_line(result, 2, r"gongzhu: no Ray cluster at auto: Could not find any running Ray .*")


@pytest.mark.one_engine
def test_a_host_and_port_where_nothing_listens_is_refused_at_once() -> None:
    """Ray itself would try it for minutes, printing its own warnings."""
    pytest.importorskip("ray")
    with socket.socket() as bound:  # a port of this machine where nothing listens
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
    result = shell(f"simulate --hands 2 --workers 1 --backend ray --address 127.0.0.1:{port}")
    one_line(result, 2, rf"gongzhu: no Ray cluster at 127\.0\.0\.1:{port}: Connection refused")


@pytest.mark.one_engine
@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("bogus", r"not a Ray address: 'bogus': Invalid address format: bogus"),
        ("''", r"not a Ray address: '': Invalid address format:"),
        ("localhost:abc", r"not a Ray address: 'localhost:abc': Unable to parse port .*"),
    ],
)
def test_an_address_ray_cannot_read_is_a_usage_error(address: str, message: str) -> None:
    pytest.importorskip("ray")
    result = shell(f"simulate --hands 2 --workers 1 --backend ray --address {address}")
    one_line(result, 2, "gongzhu: " + message)


@pytest.mark.one_engine
def test_a_ray_client_address_without_the_ray_client_is_a_usage_error() -> None:
    pytest.importorskip("ray")
    if importlib.util.find_spec("grpc") is not None:
        pytest.skip("the Ray Client is installed")
    result = shell("simulate --hands 2 --workers 1 --backend ray --address ray://127.0.0.1:1")
    one_line(
        result,
        2,
        r"gongzhu: the address ray://127\.0\.0\.1:1 needs the Ray Client: "
        r"pip install 'ray\[client\]'",
    )


# -- a third party's plug-in that cannot be imported --------------------------------------------


@pytest.fixture
def broken_plugin(tmp_path: Path) -> dict[str, str]:
    """A distribution ``brokengz 1.0`` whose plug-in ``broken`` imports a missing module;
    the environment that puts it on the path."""
    info = tmp_path / "brokengz-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: brokengz\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[gongzhu.variants]\nbroken = brokengz_rules\n")
    (tmp_path / "brokengz_rules.py").write_text("import a_module_that_is_not_there\n")
    return {"PYTHONPATH": str(tmp_path)}


def test_variants_lists_the_rest_and_names_the_broken_one(broken_plugin: dict[str, str]) -> None:
    result = shell("variants", env=broken_plugin)
    one_line(
        result,
        1,
        r"gongzhu: the plug-in 'broken' \(installed by brokengz 1\.0\) cannot be loaded: "
        r"ModuleNotFoundError: No module named 'a_module_that_is_not_there'",
    )
    listed = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert "(broken: cannot be loaded)" in listed["broken"]
    assert {"39baobao", "huapai", "anmai", "two-deck"} <= set(listed)  # the rest, listed in full
    assert "base" in listed["huapai"]


def test_loading_the_broken_plugin_names_it(broken_plugin: dict[str, str]) -> None:
    result = shell("demo --rules broken", env=broken_plugin)
    one_line(result, 1, r"gongzhu: the plug-in 'broken' \(installed by brokengz 1\.0\) .*")
    ok = shell("demo --seed 2 --rules huapai", env=broken_plugin)  # others do not notice it
    assert ok.returncode == 0 and ok.stderr == ""


@pytest.mark.parametrize("command", ["variants", "variants broken", "demo --rules broken"])
def test_a_plugin_whose_error_says_several_lines_is_named_in_one(
    tmp_path: Path, broken_plugin: dict[str, str], command: str
) -> None:
    (tmp_path / "brokengz_rules.py").write_text('raise RuntimeError("boom\\n  second line")\n')
    one_line(
        shell(command, env=broken_plugin),
        1,
        r"gongzhu: the plug-in 'broken' .* cannot be loaded: RuntimeError: boom second line",
    )


_RAISING_HOOK = """
from gongzhu.plugin import VariantInfo, hookimpl

@hookimpl
def gongzhu_variant_info():
    return VariantInfo(name="broken", title="Broken")

@hookimpl
def gongzhu_heart_values(options):
    return {rank: options["heart_table"] for rank in range(2, 15)}  # no such option
"""

_RAISING_STAGE = """
from gongzhu.plugin import VariantInfo, hookimpl
from gongzhu.scoring import ScoreStage

@hookimpl
def gongzhu_variant_info():
    return VariantInfo(name="broken", title="Broken")

def bad(ctx):
    return 1 / 0

@hookimpl
def gongzhu_score_stages(stages):
    stages.append(ScoreStage("bad", bad))
"""


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            _RAISING_HOOK,
            r"gongzhu: the plug-in 'broken' failed in gongzhu_heart_values: KeyError: "
            r"\"'heart_table' is no option of this ruleset \(options: zero_sum\)\"",
        ),
        (
            _RAISING_STAGE,
            r"gongzhu: the plug-in 'broken' failed in score stage 'bad': "
            r"ZeroDivisionError: division by zero",
        ),
    ],
)
def test_a_plugin_whose_code_raises_is_named_as_failing_not_gongzhu(
    tmp_path: Path, broken_plugin: dict[str, str], code: str, message: str
) -> None:
    (tmp_path / "brokengz_rules.py").write_text(code)
    one_line(shell("demo --rules broken --seed 1", env=broken_plugin), 1, message)
    if "hook" in message:  # at load: the others are listed all the same, and the status is 1
        listed = shell("variants", env=broken_plugin)
        one_line(listed, 1, message)
        assert "broken                 (broken: cannot be loaded)" in listed.stdout
        assert "huapai" in listed.stdout and "two-deck" in listed.stdout


_UNKNOWN_HOOK = """
from gongzhu.plugin import VariantInfo, hookimpl

@hookimpl
def gongzhu_variant_info():
    return VariantInfo(name="broken", title="Broken")

@hookimpl
def gongzhu_score_stage(stages):  # gongzhu_score_stages, misspelt
    pass
"""


def test_a_plugin_that_fits_no_ruleset_is_listed_as_broken(
    tmp_path: Path, broken_plugin: dict[str, str]
) -> None:
    """Not "cannot load alone": with any other plug-in it would fail the same way."""
    (tmp_path / "brokengz_rules.py").write_text(_UNKNOWN_HOOK)
    listed = shell("variants", env=broken_plugin)
    one_line(listed, 1, r"gongzhu: a plug-in implements an unknown hook: .*gongzhu_score_stage.*")
    assert "broken                 (broken: cannot be loaded)" in listed.stdout


def test_the_library_names_the_broken_plugin(broken_plugin: dict[str, str]) -> None:
    code = (
        "import importlib.metadata, gongzhu\n"  # importlib.metadata's entry points, this time
        "try:\n"
        "    gongzhu.load_rules('broken')\n"
        "except gongzhu.errors.PluginLoadError as exc:\n"
        "    print(exc.name, exc.origin, type(exc.cause).__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **broken_plugin},
        timeout=60,
    )
    assert result.stdout == "broken brokengz 1.0 ModuleNotFoundError\n", result.stderr


# -- play at the end of its input ---------------------------------------------------------------


def test_play_at_the_end_of_input_says_so_on_stderr() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", "play", "--seed", "3", "--ascii"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    one_line(
        result,
        1,
        r"gongzhu: the input ended before the hand was over \(seat 0 to move; seed 3\)",
    )
    assert "bye" not in result.stdout


# -- messages about records ---------------------------------------------------------------------


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gongzhu", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(finished_record()).encode())
    result = run("score", str(path))
    assert result.returncode == 0 and result.stdout.endswith("1 checked, 0 refused\n")
    lines = tmp_path / "hands.jsonl"
    lines.write_bytes(
        b"\xef\xbb\xbf" + b"\n".join(json.dumps(finished_record(seed=s)).encode() for s in (1, 2))
    )
    result = run("score", "-", stdin=lines.read_text(encoding="utf-8"))
    assert result.returncode == 0 and result.stdout.endswith("2 checked, 0 refused\n")


def test_null_and_arrays_are_named_as_json_names_them() -> None:
    result = run("score", "-", stdin="null\n")
    assert result.returncode == 1
    assert result.stderr == "<stdin>:1: a hand record is a JSON object, not null\n"


def test_a_huge_bad_action_is_named_by_its_start_and_length() -> None:
    record = finished_record()
    record["actions"][5]["action"] = "play " + "Z" * 100_000
    result = run("score", "-", stdin=json.dumps(record))
    assert result.returncode == 1
    assert result.stderr == (
        f"<stdin>:1: action 5: not a card: {'Z' * 60!r}… (100,000 characters) "
        "(examples: QS, 10C, TC, ♠Q, 10♣, 黑桃Q)\n"
    )


def test_a_card_dealt_twice_is_named(tmp_path: Path) -> None:
    record = finished_record()
    deal = record["deal"].split() if isinstance(record["deal"], str) else list(record["deal"])
    deal[deal.index("KH")] = "QS"
    record["deal"] = " ".join(deal) if isinstance(record["deal"], str) else deal
    result = run("score", "-", stdin=json.dumps(record))
    assert result.returncode == 1
    assert re.fullmatch(
        r"<stdin>:1: deal: a deal must hold every card of one or two decks exactly once per "
        r"deck \(got 52 cards: QS twice, KH missing\)\n",
        result.stderr,
    ), result.stderr


def test_a_deal_of_two_decks_under_one_deck_rules_is_the_deal_s_fault() -> None:
    record = finished_record(("two-deck",))
    record["rules"] = {"variants": ["39baobao"]}
    result = run("score", "-", stdin=json.dumps(record))
    assert result.returncode == 1
    assert result.stderr == (
        "<stdin>:1: deal: this ruleset plays with 1 deck(s); the deal has 2\n"
    ), result.stderr


def test_wrong_match_totals_are_the_match_s_not_a_hand_s() -> None:
    match = gongzhu.load_rules().new_match(4, hands=2)
    match.play([RandomBot(s) for s in range(4)])
    record = match.to_record()
    record["totals"] = [1, 2, 3, -6]
    result = run("score", "-", stdin=json.dumps(record))
    assert result.returncode == 1
    assert re.fullmatch(
        r"<stdin>:1: match: stored totals \[1, 2, 3, -6\] differ .*\n", result.stderr
    )


def test_replay_verbose_prints_the_deal_and_the_shows() -> None:
    record = finished_record(("huapai", "anmai"), seed=5)
    result = run("replay", "--verbose", "-", stdin=json.dumps(record))
    assert result.returncode == 0, result.stderr
    hand = gongzhu.replay(record)
    lines = result.stdout.splitlines()
    for seat in range(4):
        assert f"  seat {seat}: " in lines[seat + 1]
    assert lines[5] == f"Seat {hand.leader} leads."
    shows = [line for line in lines if " shows " in line]
    assert shows == [f"  seat {s.seat} shows {s.card} ({s.kind.value})" for s in hand.show_records]
    assert shows  # this deal has shows


# -- arguments ----------------------------------------------------------------------------------


def test_out_with_an_empty_name(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gongzhu", "simulate", "--hands", "2", "--out", ""],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    one_line(result, 2, r"gongzhu: --out needs a file name, not an empty one")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "serach:objective=team",
            r"gongzhu: --bot-option serach:\.\.\.: no bot named 'serach'; bots: .*\bsearch\b.*",
        ),
        (
            "search:nope=1",
            r"gongzhu: --bot-option search:nope=\.\.\.: search has no option 'nope'; "
            r"its options: .*\bobjective\b.*",
        ),
        (
            "heuristic:depth=1",
            r"gongzhu: --bot-option heuristic:\.\.\.: heuristic is not playing "
            r"\(A search, B random\)",
        ),
    ],
)
def test_bot_options_name_a_playing_bot_and_an_option_it_takes(option: str, message: str) -> None:
    result = run("arena", "search", "random", "--deals", "1", "--bot-option", option)
    one_line(result, 2, message)
    assert result.stdout == ""


def test_a_search_prior_is_a_bot_name_and_a_wrong_one_is_refused() -> None:
    ok = run(
        "arena",
        "search",
        "first",
        "--deals",
        "1",
        "--bot-option",
        "search:prior=rules",
        "--bot-option",
        "search:budget_ms=2",
    )
    assert ok.returncode == 0, ok.stderr
    result = run("arena", "search", "random", "--deals", "1", "--bot-option", "search:prior=nope")
    one_line(
        result,
        1,
        r"gongzhu: bot 'search' refuses its options: prior: no gongzhu bot named 'nope'; "
        r"installed: .*\brules\b.*",
    )
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("search:playouts=1.5", r"playouts must be a whole number, at least 1, not 1\.5"),
        ("search:budget_ms=Infinity", r"budget_ms must be a positive number of ms, not inf"),
        ("search:budget_ms=1e400", r"budget_ms must be a positive number of ms, not inf"),
        ("search:budget_ms=abc", r"budget_ms must be a positive number of ms, not 'abc'"),
        ("search:margin=abc", r"margin must be a number of standard errors .*, not 'abc'"),
        ("search:prune=abc", r"prune must be a number of standard errors .*, not 'abc'"),
        ("heuristic:rules_order=abc", r"rules_order must be a sequence of rules, not 'abc'"),
        ("heuristic:check=2.5", r"check must be a number of samples, at least 0, not 2\.5"),
    ],
)
def test_a_value_a_bot_refuses_is_one_line_and_status_1(option: str, message: str) -> None:
    bot = option.partition(":")[0]
    result = run("arena", bot, "random", "--deals", "1", "--workers", "1", "--bot-option", option)
    one_line(result, 1, rf"gongzhu: bot '{bot}' refuses its options: {message}")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--hands", "3"], r"gongzhu: --hands needs --match"),
        (["demo", "--hand-limit", "3"], r"gongzhu: --hand-limit needs --match"),
        (["demo", "--target", "300"], r"gongzhu: --target needs --match"),
        (
            ["demo", "--match", "--target", "1000", "--hands", "3"],
            r"gongzhu: --target and --hands: a match plays to a target or for N hands",
        ),
        (["simulate", "--hand-limit", "3"], r"gongzhu: --hand-limit needs --matches"),
        (["simulate", "--target", "3"], r"gongzhu: --target needs --matches"),
        (
            ["demo", "--nope"],
            r"gongzhu demo: error: unrecognized arguments: --nope \(see gongzhu demo --help\)",
        ),
        (
            ["arena", "--rules", "huapai", "heuristic", "random"],
            r"gongzhu arena: error: the following arguments are required: A, B "
            r"\(--rules took heuristic random as variant names: give the bots before --rules\) "
            r"\(see gongzhu arena --help\)",
        ),
    ],
)
def test_options_that_need_another_or_exclude_one(argv: list[str], message: str) -> None:
    result = run(*argv)
    one_line(result, 2, message)
    assert result.stdout == ""


def test_the_bots_before_rules_are_read_as_bots() -> None:
    result = run("arena", "heuristic", "random", "--deals", "1", "--rules", "huapai")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("heuristic vs random (2v2, load_rules('huapai'))")


def test_a_match_of_n_hands_and_a_hand_limit() -> None:
    result = run("demo", "--match", "--hands", "3", "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "match over after 3 hands" in result.stdout
    limited = run("demo", "--match", "--target", "100000", "--hand-limit", "2", "--seed", "1")
    assert limited.returncode == 1
    assert "--hand-limit" in limited.stderr and limited.stderr.count("\n") == 1

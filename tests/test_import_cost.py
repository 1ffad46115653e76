"""What ``import gongzhu`` and ``load_rules()`` import, and what they leave for later.

The records module (and :mod:`json`) loads on first use of a name that needs it
(``gongzhu.replay``...), and the plug-ins' entry points are read without
importing :mod:`importlib.metadata` (and :mod:`email`, :mod:`zipfile`...) where
that gives the same entry points: the tests below compare the two readings.
No test here measures time.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gongzhu
from gongzhu import discovery

LAZY_MODULES = [
    "gongzhu.record",
    "json",
    "gongzhu.hand",
    "gongzhu.match",
    "hashlib",
]
"""Imported by neither ``import gongzhu`` nor ``load_rules()`` (the first hand dealt imports
the hand state machine and :mod:`hashlib`, for the shuffle).  :mod:`gongzhu.view` is not
among them: the play layer names the engines' phases by :class:`~gongzhu.view.Phase`
(:data:`gongzhu.play.ENGINE_PHASES`), so a ruleset imports it (about 1.5 ms; ``import
gongzhu; load_rules()`` measured 2.4x ``import attrs, pluggy`` with it, under the 4x
ceiling of ``benchmarks/import_time.py``)."""

RULES_MODULES = (
    "gongzhu.view",  # Phase, for gongzhu.play.ENGINE_PHASES
    "gongzhu.showphase",  # the show phases, compiled with the ruleset
    "gongzhu.engines.base",  # the Python engines' show phases
)
"""Modules the engine refactor added to what ``load_rules()`` imports; none of them brings a
module from outside the package (checked below)."""

METADATA_MODULES = ["importlib.metadata", "email", "email.message", "zipfile", "csv"]
"""Not imported by ``load_rules()`` where the entry points are read directly."""

FAST_PATH = sys.version_info < (3, 14)  # where discovery reads entry points itself

DEFINED_IN = {
    "HEART_ACE": "gongzhu.cards",
    "PIG": "gongzhu.cards",
    "SHEEP": "gongzhu.cards",
    "TRANSFORMER": "gongzhu.cards",
    "Action": "gongzhu.actions",
    "Card": "gongzhu.cards",
    "Deal": "gongzhu.deal",
    "HandState": "gongzhu.hand",
    "Match": "gongzhu.match",
    "Phase": "gongzhu.view",
    "Play": "gongzhu.actions",
    "Rank": "gongzhu.cards",
    "Rules": "gongzhu.rules",
    "ScoreSheet": "gongzhu.scoring",
    "SeatView": "gongzhu.view",
    "Show": "gongzhu.actions",
    "ShowKind": "gongzhu.actions",
    "Suit": "gongzhu.cards",
    "Trick": "gongzhu.view",
    "errors": "gongzhu.errors",  # the module itself
    "full_deck": "gongzhu.cards",
    "load_rules": "gongzhu.rules",
    "parse_action": "gongzhu.actions",
    "parse_cards": "gongzhu.cards",
    "read_records": "gongzhu.record",
    "replay": "gongzhu.record",
    "replay_match": "gongzhu.record",
    "simulate": "gongzhu.simulate",
    "variant_names": "gongzhu.rules",
}
"""Every public name of the package -> the module that defines it."""


def run_python(code: str, cwd: Path, **env: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter; it prints one JSON object, returned."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    return loaded


# -- the package's names -----------------------------------------------------------------------


def test_every_public_name_has_its_defining_module() -> None:
    assert sorted(DEFINED_IN) == sorted(gongzhu.__all__)


def test_import_leaves_the_records_module_and_metadata_unloaded(tmp_path: Path) -> None:
    found = run_python(
        """
        import sys
        before = set(sys.modules)
        import gongzhu
        imported = set(sys.modules) - before
        gongzhu.load_rules()
        loaded = set(sys.modules) - before
        listed = set(gongzhu.__all__) & set(dir(gongzhu))
        direct = gongzhu.discovery._read_entry_points() is not None
        card_pattern = gongzhu.cards._card_pattern.cache_info().currsize
        import json
        print(json.dumps({
            "before": sorted(before),
            "imported": sorted(imported),
            "loaded": sorted(loaded),
            "listed": sorted(listed),
            "direct": direct,
            "card_pattern": card_pattern,
        }))
        """,
        tmp_path,
    )
    before, imported, loaded, listed = (
        set(found[key]) for key in ("before", "imported", "loaded", "listed")
    )
    assert "gongzhu.rules" in loaded  # the probe works
    # import gongzhu alone: the package's names load on first use
    assert {name for name in imported if name.startswith("gongzhu")} == {
        "gongzhu",
        "gongzhu.errors",
        "gongzhu.simulate",
    }
    for name in LAZY_MODULES:
        if name not in before:
            assert name not in loaded, f"import gongzhu; load_rules() imported {name}"
    assert set(RULES_MODULES) <= loaded
    if FAST_PATH:
        assert found["direct"], "this environment's entry points are left to importlib.metadata"
        for name in METADATA_MODULES:
            if name not in before:
                assert name not in loaded, f"load_rules() imported {name}"
    assert listed == set(gongzhu.__all__)  # dir() lists the names not loaded yet
    assert found["card_pattern"] == 0  # canonical card text is read without the pattern


def test_the_modules_a_ruleset_brings_import_nothing_more(tmp_path: Path) -> None:
    """:mod:`gongzhu.view`, :mod:`gongzhu.showphase` and :mod:`gongzhu.engines.base`, which
    ``load_rules()`` imports, bring no module from outside the package (read from ``python
    -X importtime``: what a module's import imported for the first time is listed before
    it, indented deeper)."""
    result = subprocess.run(
        # gongzhu.rules by an import statement: -X importtime lists only what those import
        # (not a name of the package loaded on first use, by importlib.import_module)
        [sys.executable, "-X", "importtime", "-c", "import gongzhu.rules; gongzhu.load_rules()"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    entries = []  # (depth, module), in the order their imports finished
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rpartition("|")[2]
            if name.strip() != "imported package":
                entries.append((len(name) - len(name.lstrip(" ")), name.strip()))
    modules = [name for _, name in entries]
    brought: dict[str, list[str]] = {}
    for position, (depth, name) in enumerate(entries):
        if name in RULES_MODULES:
            inner = []
            before = position - 1
            while before >= 0 and entries[before][0] > depth:
                inner.append(entries[before][1])
                before -= 1
            brought[name] = [m for m in inner if m.split(".")[0] != "gongzhu"]
    assert "gongzhu.rules" in modules  # the probe works
    assert brought == {name: [] for name in RULES_MODULES}


def test_every_public_name_is_its_defining_modules_object(tmp_path: Path) -> None:
    """``from gongzhu import X`` in a fresh interpreter, lazy names first loaded so."""
    found = run_python(
        f"""
        import importlib, json, sys
        import gongzhu
        defined_in = {DEFINED_IN!r}
        got = {{}}
        for name in gongzhu.__all__:
            namespace = {{}}
            exec(f"from gongzhu import {{name}} as value", namespace)
            got[name] = namespace["value"]
        same = {{}}
        for name, module in defined_in.items():
            owner = importlib.import_module(module)
            expected = owner if name == "errors" else getattr(owner, name)
            same[name] = got[name] is expected and getattr(gongzhu, name) is expected
        star = {{}}
        exec("from gongzhu import *", star)
        print(json.dumps({{
            "same": same,
            "star": sorted(set(gongzhu.__all__) - set(star)),
        }}))
        """,
        tmp_path,
    )
    assert found["same"] == dict.fromkeys(DEFINED_IN, True)
    assert found["star"] == []


def test_the_records_module_is_an_attribute_of_the_package(tmp_path: Path) -> None:
    """``gongzhu.record`` after ``import gongzhu``, as when the package imported it."""
    found = run_python(
        """
        import json, sys
        import gongzhu
        loaded_early = "gongzhu.record" in sys.modules
        record = gongzhu.record
        print(json.dumps({
            "early": loaded_early,
            "module": record is sys.modules["gongzhu.record"],
            "replay": gongzhu.replay is record.replay,
            "hasattr": hasattr(gongzhu, "no_such_name"),
        }))
        """,
        tmp_path,
    )
    assert found == {"early": False, "module": True, "replay": True, "hasattr": False}


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'gongzhu' has no attribute 'no_such_name'"):
        gongzhu.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(ImportError, match="no_such_name"):
        exec("from gongzhu import no_such_name", {})


def test_simulate_is_the_function_after_the_submodule_is_imported(tmp_path: Path) -> None:
    """``gongzhu.simulate`` names both a function and a module: the package's attribute is
    the function, even when the submodule is imported (as gongzhu.runner does) first."""
    found = run_python(
        """
        import json
        import gongzhu.runner
        import gongzhu
        print(json.dumps({"callable": callable(gongzhu.simulate)}))
        """,
        tmp_path,
    )
    assert found == {"callable": True}


# -- entry points read directly, compared with importlib.metadata ------------------------------

GROUP = discovery.ENTRY_POINT_GROUP


def expected(group: str = GROUP) -> list[tuple[str, str]]:
    """importlib.metadata's entry points of ``group``, as discovery keeps them (by name,
    a later one replacing an earlier one of the same name)."""
    importlib.invalidate_caches()
    points = {ep.name: ep for ep in importlib.metadata.entry_points(group=group)}
    return [(name, point.value) for name, point in points.items()]


def direct(group: str = GROUP) -> list[tuple[str, str]] | None:
    found = discovery._read_entry_points(group)
    if found is None:
        return None
    return [(name, point.value) for name, point in found.items()]


def dist_info(
    root: Path, dirname: str, entry_points: str | None, *, name: str | None = None
) -> Path:
    """A metadata directory ``root/dirname`` with an ``entry_points.txt`` (unless None)."""
    path = root / dirname
    path.mkdir(parents=True)
    project = name or dirname.partition("-")[0]
    (path / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project}\nVersion: 1.0\n", encoding="utf-8"
    )
    if entry_points is not None:
        (path / "entry_points.txt").write_text(textwrap.dedent(entry_points), encoding="utf-8")
    return path


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """``sys.path`` for the test: an empty list it fills."""
    extra: list[str] = []
    monkeypatch.setattr(sys, "path", extra)
    yield extra
    importlib.invalidate_caches()


needs_fast_path = pytest.mark.skipif(
    not FAST_PATH, reason="entry points are read by importlib.metadata on this Python"
)


@needs_fast_path
@pytest.mark.parametrize("group", [GROUP, "gongzhu.bots", "console_scripts", "pytest11"])
def test_the_installed_entry_points_are_importlib_metadatas(group: str) -> None:
    assert direct(group) == expected(group)


@needs_fast_path
def test_the_first_distribution_of_a_name_on_the_path_wins(
    tmp_path: Path, paths: list[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    dist_info(first, "Probe_Plugin-2.0.dist-info", "[gongzhu.variants]\nprobe = first:a\n")
    dist_info(second, "probe.plugin-1.0.dist-info", "[gongzhu.variants]\nprobe = second:b\n")
    # the first (an egg-info file: no entry points) hides a later one of the same name
    (first / "hidden-1.0-py3.11.egg-info").write_text("Name: hidden\n", encoding="utf-8")
    dist_info(second, "Hidden-1.0.dist-info", "[gongzhu.variants]\nhidden = second:c\n")
    # a legacy egg-info directory
    dist_info(second, "legacy-0.1-py3.11.egg-info", "[gongzhu.variants]\nlegacy = second:d\n")
    paths += [str(tmp_path / "missing"), str(first), str(second)]
    assert direct() == expected() == [("probe", "first:a"), ("legacy", "second:d")]


@needs_fast_path
def test_a_later_distributions_entry_point_replaces_an_earlier_ones(
    tmp_path: Path, paths: list[str]
) -> None:
    dist_info(tmp_path, "aaa-1.0.dist-info", "[gongzhu.variants]\nsame = aaa:x\nonly = aaa:y\n")
    dist_info(tmp_path, "zzz-1.0.dist-info", "[gongzhu.variants]\nsame = zzz:x\n")
    dist_info(tmp_path, "zzz-2.0.dist-info", "[gongzhu.variants]\nsame = zzz2:x\n")  # hidden
    dist_info(tmp_path, "none-1.0.dist-info", None)
    paths.append(str(tmp_path))
    found = direct()
    assert found == expected()
    assert found is not None and dict(found)["only"] == "aaa:y"


@needs_fast_path
def test_entry_point_files_are_read_as_importlib_metadata_reads_them(
    tmp_path: Path, paths: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dist_info(
        tmp_path,
        "lenient-1.0.dist-info",
        """
        before = any:section
        # a comment
        [gongzhu.variants]

          spaced  =  pkg.mod : obj.attr  [extra1, extra2]
        module = pkg.mod
        ; semi = colon:ok
        [ gongzhu.variants ]
        not_this = spaced:section
        [[gongzhu.variants]]
        brackets = double:brackets
        [other]
        other = other:group
        """,
    )
    dist_info(tmp_path, "dir_points-1.0.dist-info", None)
    (tmp_path / "dir_points-1.0.dist-info" / "entry_points.txt").mkdir()
    monkeypatch.chdir(tmp_path)
    paths.append("")  # the working directory, as python -c puts it first
    found = direct()
    assert found == expected()
    assert found == [
        ("spaced", "pkg.mod : obj.attr  [extra1, extra2]"),
        ("module", "pkg.mod"),
        ("; semi", "colon:ok"),
        ("brackets", "double:brackets"),
    ]


@needs_fast_path
@pytest.mark.parametrize(
    "layout",
    [
        "zip",
        "egg",
        "no-equals",
        "bad-value",
        "name-in-metadata",
        "all-dots",
        "bytes-entry",
        "finder",
    ],
)
def test_what_only_importlib_metadata_reads_is_left_to_it(
    layout: str, tmp_path: Path, paths: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths.append(str(tmp_path))
    if layout == "zip":
        archive = tmp_path / "plugins.zip"
        with zipfile.ZipFile(archive, "w") as zipped:
            zipped.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\n")
            zipped.writestr(
                "zipped-1.0.dist-info/entry_points.txt", "[gongzhu.variants]\nz = zipped:z\n"
            )
        paths.append(str(archive))
    elif layout == "egg":
        egg = tmp_path / "old-1.0-py3.11.egg"
        dist_info(egg, "EGG-INFO", "[gongzhu.variants]\nold = old:plugin\n", name="old")
        paths.append(str(egg))
    elif layout == "no-equals":
        dist_info(tmp_path, "broken-1.0.dist-info", "[console_scripts]\nno equals sign\n")
    elif layout == "bad-value":
        dist_info(tmp_path, "bad-1.0.dist-info", "[gongzhu.variants]\nbad = not a-reference\n")
    elif layout == "name-in-metadata":
        dist_info(tmp_path, "Odd.DIST-INFO", "[gongzhu.variants]\nodd = odd:x\n", name="odd")
    elif layout == "all-dots":  # os.path.splitext finds no extension: named by its metadata
        dist_info(tmp_path, "..dist-info", "[gongzhu.variants]\ndots = dots:x\n", name="foo")
        dist_info(tmp_path, "foo-1.0.dist-info", "[gongzhu.variants]\nfoo = foo:x\n")
    elif layout == "bytes-entry":
        paths.append(os.fsencode(tmp_path))  # type: ignore[arg-type]
    elif layout == "finder":

        class Finder:
            @staticmethod
            def find_spec(*args: object) -> None:
                return None

            @staticmethod
            def find_distributions(*args: object) -> list[object]:
                return []

        monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert direct() is None


@needs_fast_path
def test_an_entry_point_loads_what_importlib_metadata_loads() -> None:
    for value in (
        "gongzhu_variants.baobao39",
        "gongzhu.cards:Card",
        "gongzhu.cards:Suit.SPADES",
        "gongzhu.cards : Suit.HEARTS  [extra]",
    ):
        point = discovery._Point("name", value)
        reference = importlib.metadata.EntryPoint(name="name", value=value, group=GROUP)
        assert point.load() is reference.load(), value


def test_lookups_use_importlib_metadata_once_it_is_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A program that imported importlib.metadata (and perhaps patched it) is answered by it."""
    names = sorted(dict(expected()))
    real = importlib.metadata.entry_points
    calls: list[object] = []

    def counting(**params: str) -> object:
        calls.append(params)
        return real(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", counting)
    try:
        assert gongzhu.variant_names(refresh=True) == names
    finally:
        monkeypatch.undo()
        gongzhu.variant_names(refresh=True)
    assert calls == [{"group": GROUP}]


@needs_fast_path
def test_a_fresh_interpreter_finds_the_same_plugins_without_importlib_metadata(
    tmp_path: Path,
) -> None:
    """In a fresh interpreter: a distribution on PYTHONPATH hides one of the same name in
    the user site (where the user site is on the path: not in a virtualenv); the plug-ins
    found (and loaded) are importlib.metadata's."""
    userbase = tmp_path / "userbase"
    site_code = "import site, sys; print(site.getusersitepackages())"
    user_site = subprocess.run(
        [sys.executable, "-c", site_code],
        env={**os.environ, "PYTHONUSERBASE": str(userbase)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    dist_info(Path(user_site), "gz_probe-1.0.dist-info", "[gongzhu.variants]\nprobe = json:dumps\n")
    dist_info(Path(user_site), "gz_user-1.0.dist-info", "[gongzhu.variants]\nuser = json:loads\n")
    dist_info(tmp_path / "pp", "GZ.Probe-2.0.dist-info", "[gongzhu.variants]\nprobe = json:load\n")
    pythonpath = os.pathsep.join(
        [str(tmp_path / "pp"), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    found = run_python(
        """
        import json, sys
        from gongzhu import discovery
        names = discovery.plugin_names()
        loaded = {name: discovery.load_plugin(name) for name in names}
        fast = "importlib.metadata" not in sys.modules
        import importlib.metadata
        points = {ep.name: ep for ep in importlib.metadata.entry_points(group="gongzhu.variants")}
        import site
        print(json.dumps({
            "fast": fast,
            "names": names,
            "expected": sorted(points),
            "same": all(loaded[name] is points[name].load() for name in names),
            "loaded": {name: getattr(loaded[name], "__name__", "") for name in names},
            "user_site": site.getusersitepackages() in sys.path,
        }))
        """,
        tmp_path,
        PYTHONUSERBASE=str(userbase),
        PYTHONPATH=pythonpath,
    )
    assert found["fast"] is True
    assert found["names"] == found["expected"]
    assert found["same"] is True
    loaded = found["loaded"]
    assert loaded["probe"] == "load"  # PYTHONPATH before the user site and site-packages
    assert loaded.get("user") == ("loads" if found["user_site"] else None)


def test_the_first_hand_imports_what_loading_rules_left_out(tmp_path: Path) -> None:
    """``Rules.new_hand`` and ``Rules.new_match`` work in a fresh interpreter where nothing
    imported the hand state machine, the match or :mod:`hashlib` yet, and the package's
    names and submodules are there on first use."""
    found = run_python(
        """
        import json, sys
        import gongzhu
        rules = gongzhu.load_rules()
        hand = rules.new_hand(seed=7)
        match = rules.new_match(seed=7, hands=1)
        print(json.dumps({
            "hand": type(hand) is gongzhu.HandState,
            "match": type(match) is gongzhu.Match,
            "submodules": [gongzhu.hand is sys.modules["gongzhu.hand"],
                           gongzhu.view is sys.modules["gongzhu.view"],
                           gongzhu.match is sys.modules["gongzhu.match"]],
            "deal": [str(card) for card in hand.deal.order[:4]],
            "pattern": str(gongzhu.Card.parse("10♣")),
        }))
        """,
        tmp_path,
    )
    same_deal = [str(card) for card in gongzhu.load_rules().new_hand(seed=7).deal.order[:4]]
    assert found == {
        "hand": True,
        "match": True,
        "submodules": [True, True, True],
        "deal": same_deal,
        "pattern": "TC",
    }


def test_a_submodule_nothing_imported_yet_is_an_attribute_on_first_use(tmp_path: Path) -> None:
    """``import gongzhu`` imports neither gongzhu.plugin nor gongzhu.scoring, yet
    ``gongzhu.plugin.hookimpl`` works, as it did when ``import gongzhu`` loaded them."""
    found = run_python(
        """
        import json, sys
        import gongzhu
        before = ["gongzhu.plugin" in sys.modules, "gongzhu.scoring" in sys.modules]
        found = [gongzhu.plugin.hookimpl is sys.modules["gongzhu.plugin"].hookimpl,
                 gongzhu.scoring is sys.modules["gongzhu.scoring"]]
        try:
            gongzhu.no_such_module
        except AttributeError as exc:
            missing = str(exc)
        print(json.dumps({"before": before, "found": found, "missing": missing}))
        """,
        tmp_path,
    )
    assert found == {
        "before": [False, False],
        "found": [True, True],
        "missing": "module 'gongzhu' has no attribute 'no_such_module'",
    }


def test_the_command_line_leaves_metadata_and_multiprocessing_for_when_they_are_needed(
    tmp_path: Path,
) -> None:
    """``gongzhu simulate`` with one worker imports neither :mod:`importlib.metadata`
    (bots are found as plug-ins are, by :func:`gongzhu.discovery.entry_points`; only
    ``--version`` reads the distribution's metadata) nor :mod:`multiprocessing` (only a
    pool of workers needs it)."""
    found = run_python(
        """
        import contextlib, io, json, sys
        before = set(sys.modules)
        from gongzhu.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            status = main(["simulate", "--hands", "3", "--bots", "random,first,heuristic,random"])
        loaded = set(sys.modules) - before
        print(json.dumps({"status": status, "before": sorted(before), "loaded": sorted(loaded)}))
        """,
        tmp_path,
    )
    assert found["status"] == 0
    for name in ["multiprocessing", *(METADATA_MODULES if FAST_PATH else [])]:
        if name not in found["before"]:
            assert name not in found["loaded"], f"gongzhu simulate imported {name}"


def test_entry_points_are_read_once_per_group_and_refreshed_on_request(
    tmp_path: Path, paths: list[str]
) -> None:
    """discovery.entry_points keeps what it read, read-only; the bot registry reads its
    group when it is made and again after refresh(), so it sees a bot installed since."""
    from gongzhu.bots import BotRegistry

    group = "gongzhu.bots"
    dist_info(tmp_path, "one-1.0.dist-info", f"[{group}]\none = gongzhu.bots:RandomBot\n")
    paths.append(str(tmp_path))
    importlib.invalidate_caches()
    first = discovery.entry_points(group, refresh=True)
    assert sorted(first) == ["one"]
    with pytest.raises(TypeError):
        first["two"] = first["one"]  # type: ignore[index]
    registry = BotRegistry(group)
    assert list(registry) == ["one"]
    dist_info(tmp_path, "two-1.0.dist-info", f"[{group}]\ntwo = gongzhu.bots:FirstLegalBot\n")
    importlib.invalidate_caches()
    assert sorted(discovery.entry_points(group)) == ["one"]  # kept
    assert list(registry) == ["one"]
    assert list(BotRegistry(group)) == ["one", "two"]  # a new registry reads its group
    registry.refresh()
    assert list(registry) == ["one", "two"]
    assert sorted(discovery.entry_points(group)) == ["one", "two"]

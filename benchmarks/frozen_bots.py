"""The bots of this checkout against a frozen reference revision's, on duplicate 2-vs-2 deals.

    python benchmarks/frozen_bots.py [--match NEW:REF ...] [--reference REV]
                                     [--deals N] [--workers K] [--seed S]
                                     [--budget-ms MS | --samples N] [--shows]
                                     [--rules NAME ...] [--option NAME=VALUE ...]
                                     [--reference-option NAME=VALUE ...]
                                     [--reference-python PY] [--cache-dir DIR]
                                     [--rebuild] [--json]
    python benchmarks/frozen_bots.py --self-test

Issue 41 keeps the bots of commit 1478c10 (``heuristic`` and ``search``, as
they were when the issue was filed) as the reference every new bot is
measured against.  They are not copied into the project: the reference
revision is installed, as ``benchmarks/before_after.py`` installs a revision
(a detached ``git worktree``, ``pip install`` into a venv cached by commit
under ``--cache-dir``, the same cache as ``before_after.py``'s), and its bots
play in a worker process of that venv (this script with ``--worker``, run by
the venv's Python, importing only the reference's gongzhu).  The bots of this
checkout play in the driver, with the gongzhu this script is run with.

A match ``NEW:REF`` (default ``heuristic:heuristic`` and ``search:search``)
plays ``gongzhu arena``'s duplicate 2-vs-2 deals: seats 0 and 2 (this
checkout's bot ``NEW``) against seats 1 and 3 (the reference's bot ``REF``),
then the teams swapped; each bot is told the format ``"2v2"``
(:func:`gongzhu.bots.tell_format`).  The deals, and each seat's bot seed, are
the arena's (deal *i* from ``--seed`` and *i*; the seat's bot seeded
``deal_seed * 4 + seat``), so a bot that has not changed since the reference
scores exactly 0 against it, as in ``gongzhu arena X X``.  Without
``--shows`` no seat shows a card (each takes the legal show with the fewest
cards, as the arena does); with it every bot makes its own shows.  The
result is the new team's mean advantage in raw points a hand (team A − team
B, ``score().raw``) ± one standard error over deals (a deal's value is the
mean of its two hands), as ``benchmarks/bots_duplicate.py`` reports it.

The worker keeps one hand a game: the driver starts a game with the deal's
seed, the ruleset (:meth:`Rules.spec <gongzhu.rules.Rules.spec>`) and the
reference seats' bots (name, seed, options), and at each reference seat's
turn sends the actions played since it last asked, as text (``str(action)``,
found again among the worker's ``legal_actions()``: the text of an action is
stable between revisions, where the order of the legal actions need not
be), then the bot's choice comes back as text.  The worker uses only public
API that both revisions have: ``load_rules``, ``new_hand(seed)``,
``legal_actions``, ``apply``, ``view(seat)``, ``make_bot``, ``tell_format``
and ``choose``.

Budgets: ``--budget-ms MS`` (a time budget a decision; default this
checkout's ``gongzhu.bots.DEFAULT_BUDGET_MS``) or ``--samples N`` (sampled
deals a decision, no time limit: the same result on any machine) is given to
every ``search`` bot of both sides, so the frozen search thinks no longer
than the new one; ``--option`` gives further options to the new
side's bot, ``--reference-option`` to the reference's.  A time budget
depends on the machine's load: the two sides take turns, never thinking at
once, but other programs on the machine take from both.

``--workers K`` plays the deals in K processes, each with its own reference
worker; the result does not depend on K.  ``--reference-python PY`` plays the
reference with a Python that already has it installed (no venv is built).
``--self-test`` plays tiny matches with this Python as the reference (the
tests run it): identical bots must score exactly 0, and different ones
exactly what ``gongzhu.arena.run_arena`` gives.

Status: 0; 2 for a bad command line or an unknown ruleset; 1 for a run that
cannot go on (a reference that does not build, a bot either side does not
have or whose options it refuses, a worker that fails), said in one line
(the worker's traceback after it).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
if str(HERE.parent) not in sys.path:  # the worker runs under ``python -I``: no script folder
    sys.path.insert(0, str(HERE.parent))

import before_after  # noqa: E402  (the venvs, the worker loop and its process)

REFERENCE = "1478c10"
"""The frozen revision of issue 41: today's ``heuristic`` and ``search``."""

DEFAULT_MATCHES = ("heuristic:heuristic", "search:search")
BUDGETED = frozenset({"search"})
"""Bots given ``--budget-ms`` / ``--samples``, on both sides."""


# -- the worker: runs in the reference revision's venv ----------------------------------

_GAMES: dict[int, tuple[Any, dict[int, Any]]] = {}
"""The worker's games under way: id -> (the hand, the reference seats' bots)."""


def _worker_rules(spec: dict[str, Any]) -> Any:
    import gongzhu

    return gongzhu.load_rules(*spec["variants"], **spec["options"])


def _replay(hand: Any, texts: Sequence[str]) -> None:
    """Apply the actions ``texts`` (each ``str(action)``) to ``hand``, each found among its
    legal actions."""
    for text in texts:
        legal = {str(action): action for action in hand.legal_actions()}
        if text not in legal:
            raise ValueError(
                f"{text!r} is not legal in the reference's hand (legal: {sorted(legal)})"
            )
        hand.apply(legal[text])


def worker_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The worker's reply to one request (``check``, ``start``, ``choose`` or ``end``)."""
    try:
        from gongzhu.bots import make_bot, tell_format

        if "check" in request:  # a bot and its options, refused before any deal
            make_bot(request["check"], rules=_worker_rules(request["rules"]), **request["options"])
            return {"ok": True}
        if "start" in request:
            rules = _worker_rules(request["rules"])
            bots = {
                int(seat): tell_format(
                    make_bot(bot["name"], seed=bot["seed"], rules=rules, **bot["options"]),
                    request["format"],
                )
                for seat, bot in request["bots"].items()
            }
            _GAMES[request["start"]] = (rules.new_hand(request["seed"]), bots)
            return {"ok": True}
        if "choose" in request:
            hand, bots = _GAMES[request["choose"]]
            _replay(hand, request["actions"])
            seat = request["seat"]
            if hand.to_move != seat or seat not in bots:
                raise ValueError(f"seat {seat} asked to move; the reference's hand: {hand.to_move}")
            return {"action": str(bots[seat].choose(hand.view(seat)))}
        if "end" in request:
            _GAMES.pop(request["end"], None)
            return {"ok": True}
        raise ValueError(f"no such request: {sorted(request)}")
    except Exception:
        return {"error": traceback.format_exc()}


# -- the driver: this checkout's bots, the deals ----------------------------------------


class _Game:
    """A hand the driver plays with a reference worker: how many of its actions the
    worker has seen."""

    def __init__(self, side: before_after.Side, number: int, hand: Any) -> None:
        self.side = side
        self.number = number
        self.hand = hand
        self.seen = 0


class ReferenceSeat:
    """A seat played by the reference revision's bot, in its worker: a bot to the driver."""

    def __init__(self, game: _Game, seat: int) -> None:
        self.game = game
        self.seat = seat

    def choose(self, view: Any) -> Any:
        """The reference bot's choice, sent the actions played since the worker last asked."""
        game = self.game
        history = game.hand.history
        played = [str(action) for _seat, action in history[game.seen :]]
        game.seen = len(history)
        reply = game.side.ask({"choose": game.number, "seat": self.seat, "actions": played})
        for action in view.legal_actions:
            if str(action) == reply["action"]:
                return action
        raise before_after.Failure(
            f"the reference bot at seat {self.seat} chose {reply['action']!r}, "
            f"not a legal action of this checkout's hand"
        )


def _options(name: str, budget: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {**(budget if name in BUDGETED else {}), **extra}


def play_deal(
    side: before_after.Side, setting: dict[str, Any], rules: Any, deal_seed: int, game: int
) -> float:
    """One duplicate deal, 2 against 2, the teams swapped: the new team's mean advantage
    in raw points a hand.  ``game`` numbers the deal's two hands in the worker."""
    from gongzhu.arena import _play  # the arena's hand: its shows, its loop (as search_ceiling)
    from gongzhu.bots import make_bot

    new, ref = setting["new"], setting["ref"]
    total = 0
    for k, mine in enumerate(((0, 2), (1, 3))):
        hand = rules.new_hand(deal_seed)
        state = _Game(side, game + k, hand)
        bots: list[Any] = []
        theirs: dict[str, dict[str, Any]] = {}
        for seat in range(4):
            seed = deal_seed * 4 + seat  # the arena's seat seeds: unchanged bots score 0
            if seat in mine:
                bots.append(
                    make_bot(new["name"], seed=seed, rules=rules, format="2v2", **new["options"])
                )
            else:
                bots.append(ReferenceSeat(state, seat))
                theirs[str(seat)] = {"name": ref["name"], "seed": seed, "options": ref["options"]}
        side.ask(
            {
                "start": state.number,
                "rules": setting["rules"],
                "seed": deal_seed,
                "format": "2v2",
                "bots": theirs,
            }
        )
        try:
            raw = _play(hand, bots, setting["shows"])
        finally:
            side.ask({"end": state.number})
        ours = sum(raw[s] for s in mine)
        total += ours - (sum(raw) - ours)
    return total / 2


def _start_side(setting: dict[str, Any], cwd: str) -> before_after.Side:
    side = before_after.Side("reference", setting["describe"], Path(setting["python"]), script=HERE)
    side.start(cwd)
    return side


def play_deals(
    setting: dict[str, Any], indices: Sequence[int], progress: bool = False
) -> list[float]:
    """The values of deals ``indices``, with a reference worker of their own (one task);
    ``progress`` counts them on a terminal's standard error as they are played."""
    from gongzhu.arena import _deal_seed
    from gongzhu.rules import load_rules

    rules = load_rules(*setting["rules"]["variants"], **setting["rules"]["options"])
    with tempfile.TemporaryDirectory(prefix="gongzhu-frozen-") as cwd:
        side = _start_side(setting, cwd)
        values: list[float] = []
        try:
            for i in indices:
                values.append(
                    play_deal(side, setting, rules, _deal_seed(setting["seed"], i), 2 * i)
                )
                if progress:
                    _progress(len(values), len(indices))
            return values
        finally:
            side.stop()


def check_bots(setting: dict[str, Any]) -> None:
    """Refuse, before any deal, a bot either side does not have or options it refuses."""
    from gongzhu.bots import make_bot
    from gongzhu.rules import load_rules

    new = setting["new"]
    rules = load_rules(*setting["rules"]["variants"], **setting["rules"]["options"])
    try:
        make_bot(new["name"], rules=rules, **new["options"])
    except Exception as exc:
        raise before_after.Failure(f"this checkout's bot {new['name']!r}: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="gongzhu-frozen-") as cwd:
        side = _start_side(setting, cwd)
        try:
            ref = setting["ref"]
            side.ask({"check": ref["name"], "rules": setting["rules"], "options": ref["options"]})
        except before_after.Failure as error:
            last = str(error).strip().splitlines()[-1]
            raise before_after.Failure(f"the reference's bot {ref['name']!r}: {last}") from None
        finally:
            side.stop()


def run_match(setting: dict[str, Any], deals: int, workers: int) -> dict[str, Any]:
    """Play ``deals`` deals of the match ``setting`` in ``workers`` processes: the result."""
    check_bots(setting)
    start = time.perf_counter()
    workers = max(1, min(workers, deals))
    values: list[float] = []
    if workers == 1:  # one reference worker for every deal
        values = play_deals(setting, range(deals), progress=True)
    else:
        size = max(1, math.ceil(deals / (workers * 4)))
        chunks = [list(range(i, min(deals, i + size))) for i in range(0, deals, size)]
        with concurrent.futures.ProcessPoolExecutor(workers) as pool:
            for batch in pool.map(play_deals, [setting] * len(chunks), chunks):
                values += batch
                _progress(len(values), deals)
    mean, stderr = before_after.mean_stderr(values)
    return {
        "a": setting["new"]["name"],
        "b": f"{setting['ref']['name']}@{setting['reference']}",
        "format": "2v2",
        "deals": deals,
        "hands": 2 * deals,
        "mean": mean,
        "stderr": stderr if deals > 1 else None,
        "z": mean / stderr if stderr else (0.0 if deals > 1 and mean == 0 else None),
        "rules": setting["rules"]["variants"] or ["39baobao"],
        "shows": setting["shows"],
        "options": setting["new"]["options"],
        "reference_options": setting["ref"]["options"],
        "reference": setting["describe"],
        "seed": setting["seed"],
        "seconds": round(time.perf_counter() - start, 1),
        "values": values,
    }


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r{done}/{total} deals", end="" if done < total else "\n", file=sys.stderr)


def describe(result: dict[str, Any]) -> str:
    """One line of a match's result."""
    se = "" if result["stderr"] is None else f" ± {result['stderr']:.1f}"
    options = "".join(
        f"; {who} {', '.join(f'{k}={v}' for k, v in values.items())}"
        for who, values in (("new", result["options"]), ("ref", result["reference_options"]))
        if values
    )
    z = "" if result["z"] is None else f", z {result['z']:+.2f}"
    return (
        f"{result['a']} − {result['b']}: {result['mean']:+.1f}{se} raw points a hand{z} "
        f"({result['deals']} deals, {result['hands']} hands, "
        f"{'+'.join(result['rules'])}{', shows' if result['shows'] else ''}{options}; "
        f"{result['seconds']:.0f} s)"
    )


def _option(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE, not {text!r}")
    try:
        return key, json.loads(raw)
    except ValueError:
        return key, raw


def _match(text: str) -> tuple[str, str]:
    new, sep, ref = text.partition(":")
    if not new or (sep and not ref):
        raise argparse.ArgumentTypeError(
            f"a match is NEW:REF (or NEW, against itself), not {text!r}"
        )
    return new, ref or new


def settings(
    args: argparse.Namespace, python: Path, describe: str, commit: str
) -> list[dict[str, Any]]:
    """One setting a match: what every deal of it shares (picklable, for the processes)."""
    import gongzhu
    from gongzhu.bots import DEFAULT_BUDGET_MS

    # the new search's default budget, given to the frozen one too, unless told otherwise
    budget: dict[str, Any] = {"budget_ms": DEFAULT_BUDGET_MS}
    if args.budget_ms is not None:
        budget["budget_ms"] = args.budget_ms
    if args.samples is not None:
        budget.update(budget_ms=None, samples=args.samples)
    spec = gongzhu.load_rules(*args.rules).spec()
    return [
        {
            "new": {"name": new, "options": _options(new, budget, dict(args.option))},
            "ref": {"name": ref, "options": _options(ref, budget, dict(args.reference_option))},
            "rules": spec,
            "shows": args.shows,
            "seed": args.seed,
            "python": str(python),
            "describe": describe,
            "reference": commit,
        }
        for new, ref in args.match or [_match(m) for m in DEFAULT_MATCHES]
    ]


def reference_python(args: argparse.Namespace) -> tuple[Path, str, str]:
    """The reference's Python (its venv made or found in the cache), how to describe it,
    and its short name."""
    if args.reference_python:
        python = Path(args.reference_python)
        if not python.is_file():
            raise before_after.Failure(f"--reference-python {python}: no such file")
        return python, f"{args.reference_python} (as installed)", "ref"
    repo = Path(before_after._git(HERE.parent, "rev-parse", "--show-toplevel"))
    commit = before_after._git(repo, "rev-parse", "--verify", f"{args.reference}^{{commit}}")
    python = before_after.commit_env(repo, commit, Path(args.cache_dir), args.rebuild)
    subject = before_after._git(repo, "log", "-1", "--format=%s", commit)[:60]
    return python, f"{commit[:9]} {subject}", commit[:7]


# -- the self-test: this Python as the reference -------------------------------------------


def self_test() -> None:
    """Tiny matches, this Python as the reference: exact agreement with the arena."""
    import gongzhu
    from gongzhu.arena import run_arena

    def setting(new: str, ref: str, rules: tuple[str, ...], shows: bool) -> dict[str, Any]:
        return {
            "new": {"name": new, "options": {}},
            "ref": {"name": ref, "options": {}},
            "rules": gongzhu.load_rules(*rules).spec(),
            "shows": shows,
            "seed": 3,
            "python": sys.executable,
            "describe": "this Python",
            "reference": "self",
        }

    same = run_match(setting("rules", "rules", (), False), 2, 1)
    assert same["mean"] == 0 and all(v == 0 for v in same["values"]), same
    print(f"rules against itself: {same['mean']:+.1f} (exactly 0)")
    for rules, shows in (((), False), (("two-deck",), True), (("anmai",), True)):
        mine = run_match(setting("rules", "random", rules, shows), 2, 1)
        arena = run_arena(gongzhu.load_rules(*rules), "rules", "random", 2, seed=3, shows=shows)
        assert mine["mean"] == arena.mean, (rules, shows, mine, arena)
        print(
            f"rules − random, {'+'.join(rules) or '39baobao'}{', shows' if shows else ''}: "
            f"{mine['mean']:+.1f}, as the arena's {arena.mean:+.1f}"
        )
    two = run_match(setting("rules", "random", (), False), 3, 2)
    one = run_match(setting("rules", "random", (), False), 3, 1)
    assert two["values"] == one["values"], (one, two)
    print("two processes: the same deals' values as one")
    try:
        check_bots(setting("rules", "no-such-bot", (), False))
    except before_after.Failure as error:
        assert "no-such-bot" in str(error), error
        print(f"refused: {error}")
    else:
        raise AssertionError("an unknown reference bot was not refused")
    print("self-test passed")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--match",
        action="append",
        type=_match,
        default=None,
        metavar="NEW:REF",
        help="this checkout's bot NEW against the reference's REF "
        f"(default {' and '.join(DEFAULT_MATCHES)}); repeatable",
    )
    parser.add_argument(
        "--reference", default=REFERENCE, help=f"the frozen revision (default {REFERENCE})"
    )
    parser.add_argument(
        "--reference-python",
        default=None,
        metavar="PY",
        help="a Python with the reference's gongzhu installed (no venv is built)",
    )
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (2 hands each)")
    parser.add_argument("--workers", type=int, default=1, help="processes the deals are played in")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (the arena's deals)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--budget-ms",
        type=_budget,
        default=None,
        help="both sides' search bots' time budget (default: this checkout's default)",
    )
    budget.add_argument(
        "--samples",
        type=int,
        default=None,
        help="both sides' search bots' sampled deals a decision, no time limit",
    )
    parser.add_argument(
        "--option",
        action="append",
        type=_option,
        default=[],
        metavar="NAME=VALUE",
        help="an option of this checkout's bot (VALUE read as JSON, else text)",
    )
    parser.add_argument(
        "--reference-option",
        action="append",
        type=_option,
        default=[],
        metavar="NAME=VALUE",
        help="an option of the reference's bot",
    )
    parser.add_argument("--shows", action="store_true", help="the bots make their own shows")
    parser.add_argument("--rules", nargs="*", default=[], metavar="NAME", help="variant names")
    before_after.venv_options(parser)  # --cache-dir (before_after.py's venvs), --rebuild
    parser.add_argument("--json", action="store_true", help="print each result as a JSON line")
    parser.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        before_after.worker(sys.stdin, sys.stdout, worker_answer)
        return 0
    if args.self_test:
        self_test()
        return 0
    from gongzhu.errors import GongzhuError

    if args.deals < 1 or args.workers < 1 or (args.samples is not None and args.samples < 1):
        parser.error("--deals, --workers and --samples must be at least 1")
    try:
        python, describe_ref, commit = reference_python(args)
        plan = settings(args, python, describe_ref, commit)
        if not args.json:
            print(f"reference: {describe_ref}")
        for setting in plan:
            result = run_match(setting, args.deals, args.workers)
            print(json.dumps(result) if args.json else describe(result), flush=True)
    except before_after.Failure as error:
        print(f"frozen_bots: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # our reader left: handled where main is called
        raise
    except OSError as error:  # the worker could not start, say
        print(f"frozen_bots: {error}", file=sys.stderr)
        return 1
    except GongzhuError as error:  # an unknown ruleset, this checkout's own refusal
        print(f"frozen_bots: {error}", file=sys.stderr)
        return 2
    return 0


def _budget(text: str) -> float:
    """``--budget-ms``: a finite number of milliseconds above 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"a positive number of milliseconds, not {text!r}")
    return value


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (| head): nothing more to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)

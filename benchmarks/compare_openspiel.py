"""gongzhu against OpenSpiel's C++ ``hearts`` (``pass_cards=False``), in one process.

    python -m pip install open_spiel
    python benchmarks/compare_openspiel.py [--hands N] [--repeat R]

Measured, each as the best of ``--repeat`` runs of N uniformly random hands
with fixed seeds, on one core, gongzhu's runs alternating with OpenSpiel's (so
that the machine's speed drifting during the run does not skew a ratio):

* OpenSpiel from Python: ``legal_actions()`` + ``apply_action()`` for every
  step, the deal's chance nodes included;
* gongzhu step API (39baobao, random shows included): ``legal_actions()`` +
  ``apply()`` for every step, and ``returns()`` at the end;
* OpenSpiel native: ``pyspiel.evaluate_bots`` with uniform random C++ bots,
  after applying the no-pass chance outcome;
* gongzhu bulk API: :func:`gongzhu.simulate` (with the C accelerator when it
  is built, each hand dealt, played and scored in C; ``GONGZHU_PURE_PYTHON=1``
  measures the pure-Python fallback).

Then ``clone()`` + ``apply()`` per second, memory per ``HandState``, the
time of ``import gongzhu`` + ``load_rules()``, the speed of the ``huapai``
and ``two-deck`` rulesets, and of rulesets with a third party's play rule (the
example distributions' ``hearts-broken`` and ``drop-the-pig``, and a rule asked
at every play) against their bases.  Without OpenSpiel, only gongzhu's numbers
are printed.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

import gongzhu
import gongzhu.engines
from gongzhu import Suit
from gongzhu.play import PlayConfigurator, PlayRule, PlaySituation
from gongzhu.plugin import VariantInfo, hookimpl

OTHER_RULESETS = (("huapai",), ("two-deck",), ("huapai", "two-deck"))
"""The other rulesets whose speed is reported (the issue names 华牌 and two decks)."""

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
"""The example distributions: their play-rule plug-ins are measured as a third party's."""


def _naive_hearts_broken(situation: PlaySituation) -> int:
    """hearts-broken's rule as a plug-in would write it without saying where it can matter."""
    if not situation.leading or situation.played & Suit.HEARTS.mask:
        return 0
    return Suit.HEARTS.mask


class NaiveHeartsBroken:
    """A third party's play rule asked at every play (no ``when``, no ``cards``)."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("naive-hearts-broken", "hearts-broken, asked at every play")

    @hookimpl
    def gongzhu_play_config(self, config: PlayConfigurator) -> None:
        config.add_rule(PlayRule("naive-hearts-broken", _naive_hearts_broken, "{card}: no"))


def play_rule_plugins() -> list[tuple[str, object]]:
    """The play-rule plug-ins measured: the two example distributions (imported from their
    source, as they would be once installed) and a rule asked at every play."""
    out: list[tuple[str, object]] = []
    for folder, module in (("hearts_broken", "hearts_broken"), ("drop_the_pig", "drop_the_pig")):
        sys.path.insert(0, str(EXAMPLES / folder / "src"))
        out.append((module.replace("_", "-"), importlib.import_module(module)))
    out.append(("naive-hearts-broken", NaiveHeartsBroken()))
    return out


def with_plugin(base: gongzhu.Rules, plugin: object) -> gongzhu.Rules:
    """``base`` with one more plug-in (a modifier), built from plug-in objects."""
    return gongzhu.Rules.from_plugins(*[(name, base.plugin(name)) for name in base.names], plugin)


def best_rate(run: Callable[[int], None], hands: int, repeat: int) -> float:
    """Hands per second: the best of ``repeat`` runs of ``run(hands)``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run(hands)
        best = min(best, time.perf_counter() - start)
    return hands / best


def paired_rates(
    reference: Callable[[int], None], other: Callable[[int], None], hands: int, repeat: int
) -> tuple[float, float]:
    """Hands per second of ``reference`` and ``other``, runs alternating, best of ``repeat``.

    Alternating keeps a ratio honest on a machine whose speed drifts during the run.
    """
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for i, run in enumerate((reference, other)):
            start = time.perf_counter()
            run(hands)
            best[i] = min(best[i], time.perf_counter() - start)
    return hands / best[0], hands / best[1]


def gongzhu_steps(
    rules: gongzhu.Rules, *, end: str = "returns", engine: str | None = None
) -> Callable[[int], None]:
    """The step API: random legal actions, then ``returns()`` (or ``score()``) at the end."""

    def run(hands: int) -> None:
        rng = random.Random(1)
        choice = rng.choice
        for i in range(hands):
            state = rules.new_hand(i, engine=engine)
            while not state.is_over:
                state.apply(choice(state.legal_actions()))
            getattr(state, end)()

    return run


def gongzhu_bulk(rules: gongzhu.Rules) -> Callable[[int], None]:
    def run(hands: int) -> None:
        gongzhu.simulate(rules, hands, seed=1)

    return run


def openspiel_steps(game) -> Callable[[int], None]:  # type: ignore[no-untyped-def]
    def run(hands: int) -> None:
        rng = random.Random(1)
        choice = rng.choice
        for _ in range(hands):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
            state.returns()

    return run


def openspiel_native(game, pyspiel) -> Callable[[int], None]:  # type: ignore[no-untyped-def]
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(4)]

    def run(hands: int) -> None:
        for i in range(hands):
            state = game.new_initial_state()
            state.apply_action(0)  # the no-pass chance outcome
            pyspiel.evaluate_bots(state, bots, i)

    return run


def clone_apply_rate(rules: gongzhu.Rules, count: int) -> float:
    """clone() + apply() pairs per second, from mid-hand states (what search does)."""
    rng = random.Random(2)
    states = []
    for i in range(50):
        state = rules.new_hand(i)
        for _ in range(rng.randrange(4, 40)):
            state.apply(rng.choice(state.legal_actions()))
        states.append((state, state.legal_actions()))
    start = time.perf_counter()
    done = 0
    while done < count:
        for state, legal in states:
            for action in legal:
                state.clone().apply(action)
                done += 1
    return done / (time.perf_counter() - start)


def memory_per_state(rules: gongzhu.Rules) -> tuple[float, float]:
    """Bytes per fresh HandState, and per state 20 plays in (tracemalloc)."""
    results = []
    for plays in (0, 24):
        keep = []
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(200):
            state = rules.new_hand(i)
            for _ in range(plays):
                state.apply(state.legal_actions()[0])
            keep.append(state)
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        results.append((after - before) / len(keep))
    return results[0], results[1]


def startup_times(codes: Sequence[str], runs: int = 7) -> list[float]:
    """Seconds for each of ``codes`` in a fresh interpreter (best of ``runs``, the codes
    alternating run for run), as an installed package runs: with its bytecode cached (a
    first, unmeasured round writes it, even where ``PYTHONDONTWRITEBYTECODE`` is set)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def once(code: str) -> float:
        timed = f"import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"
        command = [sys.executable, "-c", timed]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        return float(done.stdout)

    rounds = [[once(code) for code in codes] for _ in range(runs + 1)]
    return [min(times) for times in zip(*rounds[1:], strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    hands, repeat = args.hands, args.repeat
    rules = gongzhu.load_rules()

    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}"
    print(f"machine: {machine}, Python {platform.python_version()}")
    accelerator = "on" if gongzhu.engines.ACCELERATED else "off"
    print(f"gongzhu {gongzhu.__version__}, C accelerator: {accelerator}")
    print(f"{hands} random hands per run, best of {repeat}\n")

    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("open_spiel is not installed: gongzhu's numbers only\n")

    rows: dict[str, float] = {}
    if pyspiel is not None:  # each of gongzhu's rows alternates with OpenSpiel's
        game = pyspiel.load_game("hearts", {"pass_cards": False})
        (
            rows["OpenSpiel hearts from Python"],
            rows["gongzhu step API (39baobao)"],
        ) = paired_rates(openspiel_steps(game), gongzhu_steps(rules), hands, repeat)
        (
            rows["OpenSpiel hearts native (evaluate_bots)"],
            rows["gongzhu bulk API (simulate)"],
        ) = paired_rates(openspiel_native(game, pyspiel), gongzhu_bulk(rules), hands * 4, repeat)
    else:
        rows["gongzhu step API (39baobao)"] = best_rate(gongzhu_steps(rules), hands, repeat)
        rows["gongzhu bulk API (simulate)"] = best_rate(gongzhu_bulk(rules), hands * 4, repeat)

    width = max(map(len, rows))
    for name, rate in rows.items():
        print(f"{name:<{width}}  {rate:>10,.0f} hands/s")
    if pyspiel is not None:
        step = rows["gongzhu step API (39baobao)"] / rows["OpenSpiel hearts from Python"]
        bulk = rows["gongzhu bulk API (simulate)"] / rows["OpenSpiel hearts native (evaluate_bots)"]
        print(f"\nstep API / OpenSpiel from Python: {step:.2f}x  (required 1.0x, aim 1.5x)")
        print(f"bulk API / OpenSpiel native:      {bulk:.2f}x  (required 0.5x, aim 1.5x)")

    clone_rate = max(clone_apply_rate(rules, 100_000) for _ in range(repeat))
    print(f"\nclone() + apply():                 {clone_rate:>10,.0f} per s")
    fresh, midway = memory_per_state(rules)
    label = "memory per HandState:"
    print(f"{label:<34} {fresh:>10,.0f} bytes fresh, {midway:,.0f} after 24 plays")
    startup = {
        "import gongzhu + load_rules():": "import gongzhu; gongzhu.load_rules()",
        "import attrs, pluggy (its dependencies):": "import attrs, pluggy",
    }
    if pyspiel is not None:
        startup["import pyspiel:"] = "import pyspiel"
    for label, seconds in zip(startup, startup_times(list(startup.values())), strict=True):
        print(f"{label:<41}{seconds * 1000:>5.1f} ms")

    returns_rate, score_rate = paired_rates(
        gongzhu_steps(rules), gongzhu_steps(rules, end="score"), hands, repeat
    )
    print(
        f"\nstep API ending in score():        {returns_rate / score_rate:>10.2f}x the time of "
        "ending in returns() (aim: at most 1.25x)"
    )
    python_engine = next((e.name for e in rules.engines if e.name.endswith("python")), None)
    if python_engine is not None and rules.engine_spec.name != python_engine:
        c_rate, py_rate = paired_rates(
            gongzhu_steps(rules), gongzhu_steps(rules, engine=python_engine), hands, repeat
        )
        print(
            f"pure-Python engine ({python_engine}):  {c_rate / py_rate:>10.2f}x the time of "
            f"{rules.engine_spec.name}, step API (aim: within 2x)"
        )

    print()
    for names in OTHER_RULESETS:
        if not set(names) <= set(gongzhu.variant_names()):
            print(f"{' + '.join(names)}: not installed")
            continue
        other = gongzhu.load_rules(*names)
        base_step, step_rate = paired_rates(
            gongzhu_steps(rules), gongzhu_steps(other), hands, repeat
        )
        base_bulk, bulk_rate = paired_rates(
            gongzhu_bulk(rules), gongzhu_bulk(other), hands * 2, repeat
        )
        step_ratio = step_rate / base_step
        bulk_ratio = bulk_rate / base_bulk
        print(
            f"{other!r:<38} [{other.engine_spec.name}] step {step_rate:>8,.0f} hands/s "
            f"({step_ratio:.2f}x 39baobao), bulk {bulk_rate:>8,.0f} hands/s ({bulk_ratio:.2f}x)"
        )
    print("\n(ratios: each ruleset's runs alternate with 39baobao's in the same run;")
    print(" bulk: aim at least 0.9x the 39baobao rate for huapai, 0.8x for two-deck)")

    print("\nplug-in play rules, each ruleset against its base, runs alternating (aim: 0.5x):")
    for names in ((), ("two-deck",)):
        base = gongzhu.load_rules(*names)
        for name, plugin in play_rule_plugins():
            ruled = with_plugin(base, plugin)
            base_step, step_rate = paired_rates(
                gongzhu_steps(base), gongzhu_steps(ruled), hands, repeat
            )
            base_bulk, bulk_rate = paired_rates(
                gongzhu_bulk(base), gongzhu_bulk(ruled), hands * 2, repeat
            )
            print(
                f"{' + '.join(base.names)} + {name:<20} [{ruled.engine_spec.name}] "
                f"step {step_rate / base_step:.2f}x, bulk {bulk_rate / base_bulk:.2f}x"
            )


if __name__ == "__main__":
    main()

"""The batched engine (:class:`gongzhu.batch.HandBatch`) against OpenSpiel's C++ ``hearts``.

    python -m pip install -e '.[openspiel]'
    python benchmarks/batch_speed.py [--decisions D] [--repeat R] [--rules NAMES]

Every rate is decisions per second (a seat's action: a show or a play), each the best of
``--repeat`` runs of about D decisions, the rows' runs interleaved so that the machine's
speed drifting during the run does not skew a ratio.  One core, one process.

* OpenSpiel ``hearts`` (``pass_cards=False``) from Python: ``legal_actions()`` +
  ``apply_action()`` with a uniformly random choice, chance nodes included; then the
  same writing the perfect-recall information state through its numpy observer
  (``open_spiel.python.observation.make_observation(game,
  IIGObservationType(perfect_recall=True))``, ``set_from``)
  before every decision;
* ``HandBatch.random_step`` at N = 1, 64, 1024: the random legal choice made in C (a
  uniform per hand from numpy, the ``int(u * n)``-th legal action);
* ``HandBatch.legal_mask`` + a choice made in numpy from the mask (the largest of
  ``uniform × mask`` per row) + ``HandBatch.step``, at the same N;
* ``HandBatch.observe`` into a preallocated ``float32`` array (the seat to move's
  compact observation, then with ``history=True`` the perfect-recall information
  state, :func:`gongzhu.envs.fast.batch_observations`) before every ``random_step``,
  at N = 64 and 1024.

Both gongzhu rows auto-reset the hands that finish (a new deal, its opening lead, and
the finished hand scored, in Python), so the deal's and the scoring's time count, as
the chance nodes and ``returns()`` count for OpenSpiel.  The ruleset is 39baobao with
its random shows (``--rules`` for another, e.g. ``huapai+two-deck``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np

import gongzhu
from gongzhu.batch import HandBatch
from gongzhu.envs.encoding import resolve_rules
from gongzhu.envs.fast import batch_observations

Run = Callable[[int], int]  # takes about N decisions, returns how many it took


def openspiel_steps(game: object, observer: object | None) -> Run:
    def run(decisions: int) -> int:
        rng = random.Random(1)
        choice = rng.choice
        taken = 0
        while taken < decisions:
            state = game.new_initial_state()  # type: ignore[attr-defined]
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.legal_actions()))
                    continue
                if observer is not None:
                    observer.set_from(state, state.current_player())  # type: ignore[attr-defined]
                state.apply_action(choice(state.legal_actions()))
                taken += 1
            state.returns()
        return taken

    return run


def batch_random(rules: gongzhu.Rules, size: int) -> Run:
    batch = HandBatch(rules, size, seeds=0)
    rng = np.random.default_rng(1)

    def run(decisions: int) -> int:
        steps = max(1, decisions // size)
        for _ in range(steps):
            batch.random_step(rng)
        return steps * size

    return run


def batch_observed(rules: gongzhu.Rules, size: int, history: bool) -> Run:
    table = batch_observations(rules)
    batch = HandBatch(rules, size, seeds=0, observations=table)
    rng = np.random.default_rng(1)
    width = table.information_state_size if history else table.observation_size
    out = np.zeros((size, width), dtype=np.float32)

    def run(decisions: int) -> int:
        steps = max(1, decisions // size)
        for _ in range(steps):
            batch.observe(out, history=history)
            batch.random_step(rng)
        return steps * size

    return run


def batch_numpy(rules: gongzhu.Rules, size: int) -> Run:
    batch = HandBatch(rules, size, seeds=0)
    rng = np.random.default_rng(1)
    mask = np.zeros((size, batch.action_size), dtype=np.bool_)
    noise = np.empty((size, batch.action_size))

    def run(decisions: int) -> int:
        steps = max(1, decisions // size)
        for _ in range(steps):
            batch.legal_mask(mask)
            rng.random(out=noise)
            np.multiply(noise, mask, out=noise)
            batch.step(noise.argmax(axis=1))
        return steps * size

    return run


def best_rates(rows: dict[str, Run], decisions: int, repeat: int) -> dict[str, float]:
    best = dict.fromkeys(rows, 0.0)
    for run in rows.values():  # warm up: tables, caches
        run(min(decisions, 2000))
    for _ in range(repeat):
        for name, run in rows.items():
            start = time.perf_counter()
            taken = run(decisions)
            rate = taken / (time.perf_counter() - start)
            best[name] = max(best[name], rate)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decisions", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default="39baobao")
    args = parser.parse_args()
    rules = resolve_rules(args.rules)
    rows: dict[str, Run] = {}
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("OpenSpiel is not installed: gongzhu's numbers only")
    if pyspiel is not None:
        from open_spiel.python.observation import make_observation

        hearts = pyspiel.load_game("hearts", {"pass_cards": False})
        observer = make_observation(hearts, pyspiel.IIGObservationType(perfect_recall=True))
        rows["OpenSpiel hearts from Python"] = openspiel_steps(hearts, None)
        rows["OpenSpiel hearts + perfect-recall tensor (numpy observer)"] = openspiel_steps(
            hearts, observer
        )
    for size in (1, 64, 1024):
        rows[f"HandBatch.random_step, N={size} (choice in C)"] = batch_random(rules, size)
        rows[f"HandBatch mask + numpy choice + step, N={size}"] = batch_numpy(rules, size)
    for size in (64, 1024):
        rows[f"HandBatch observe + random_step, N={size}"] = batch_observed(rules, size, False)
        rows[f"HandBatch observe(history=True) + random_step, N={size}"] = batch_observed(
            rules, size, True
        )
    in_c = HandBatch(rules, 1).in_c
    print(
        f"ruleset {' + '.join(rules.names)}; batch held in {'C' if in_c else 'Python'};"
        f" best of {args.repeat} runs of ~{args.decisions} decisions"
    )
    rates = best_rates(rows, args.decisions, args.repeat)
    base = rates.get("OpenSpiel hearts from Python")
    tensor = rates.get("OpenSpiel hearts + perfect-recall tensor (numpy observer)")
    width = max(map(len, rates))
    for name, rate in rates.items():
        ratio = f"  {rate / base:6.2f}× OpenSpiel" if base else ""
        if tensor and "history" in name:
            ratio += f"  {rate / tensor:6.2f}× OpenSpiel with its tensor"
        print(f"{name:<{width}}  {rate:>12,.0f} decisions/s{ratio}")


if __name__ == "__main__":
    main()

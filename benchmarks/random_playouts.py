"""Random playouts through the step API: hands per second.

    python benchmarks/random_playouts.py [--hands N] [--rules NAME ...] [--repeat R]

Each hand is dealt from a fixed seed and played by uniformly random choices
(random shows included) through ``legal_actions()`` / ``apply()``, as a
search or learning program would.  Prints the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import gongzhu


def playouts(rules: gongzhu.Rules, hands: int, seed: int) -> float:
    rng = random.Random(seed)
    choice = rng.choice
    start = time.perf_counter()
    for i in range(hands):
        state = rules.new_hand(seed + i)
        while not state.is_over:
            state.apply(choice(state.legal_actions()))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--rules", nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = gongzhu.load_rules(*args.rules)
    best = min(playouts(rules, args.hands, args.seed) for _ in range(args.repeat))
    print(f"python {platform.python_version()} on {platform.machine()}, rules {rules!r}")
    print(f"{args.hands} random hands in {best:.3f} s: {args.hands / best:,.0f} hands/s")


if __name__ == "__main__":
    main()

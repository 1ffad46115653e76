"""The spread of the adapters' rewards, per ruleset: what docs/envs.rst tabulates.

    python benchmarks/envs_rewards.py [--hands N]

For each ruleset, N hands of uniformly random legal actions (seeded): the
standard deviation of a seat's raw and final scores, the same at the default
scales (:data:`gongzhu.envs.encoding.DEFAULT_SCALES`: raw × 0.01, final × 0.001),
the default illegal-action reward (five spreads of 1000 hands below zero, on the
same scale) and how many of this run's standard deviations it lies below zero.
"""

from __future__ import annotations

import argparse
import random
import statistics

import gongzhu
from gongzhu.envs.encoding import DEFAULT_SCALES, default_illegal_reward

RULESETS = (
    ("39baobao",),
    ("huapai",),
    ("huapai", "anmai"),
    ("anmai",),
    ("two-deck",),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--hands", type=int, default=4000)
    args = parser.parse_args()
    print(
        f"{'ruleset':<16} {'raw SD':>8} {'final SD':>9} {'raw×0.01':>9} {'final×0.001':>12} "
        f"{'illegal (raw)':>14} {'in SDs':>7}"
    )
    for names in RULESETS:
        rules = gongzhu.load_rules(*names)
        raw: list[int] = []
        final: list[int] = []
        for seed in range(args.hands):
            hand = rules.new_hand(seed)
            hand.play_out(random.Random(seed).random)
            raw.extend(hand.raw_scores())
            final.extend(hand.returns())
        raw_sd, final_sd = statistics.pstdev(raw), statistics.pstdev(final)
        scaled = raw_sd * DEFAULT_SCALES["raw"]
        illegal = default_illegal_reward(rules)
        print(
            f"{'+'.join(names):<16} {raw_sd:>8.0f} {final_sd:>9.0f} {scaled:>9.2f} "
            f"{final_sd * DEFAULT_SCALES['final']:>12.2f} {illegal:>14.2f} "
            f"{abs(illegal) / scaled:>7.1f}"
        )


if __name__ == "__main__":
    main()

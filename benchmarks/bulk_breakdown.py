"""Where a bulk hand's time goes: RandomHands' steps taken one at a time.

    python benchmarks/bulk_breakdown.py [--hands N] [--repeat R] [--rules NAME ...]

For each ruleset (by default 39baobao and two-deck), N seeded random hands are
played as :meth:`gongzhu.bulk.RandomHands.outcome` plays them, each run
stopping after one more step than the run before: the deal, the opening
lead, the engine's set-up, the random play (shows and tricks), the facts for
scoring, the scores.  The difference between two runs is the cost of a step;
each is the best of ``--repeat`` runs, the rulesets' runs alternating.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import gongzhu
from gongzhu.bulk import facts_of
from gongzhu.deal import SEATS, Deal

STEPS = ("deal", "opening lead", "engine set-up", "play", "facts", "scores")


def run(rules: gongzhu.Rules, steps: int, hands: int) -> float:
    """Microseconds a hand for the first ``steps`` steps of ``hands`` seeded hands."""
    rng = random.Random(1)
    draw = rng.random
    seeds = [rng.getrandbits(63) for _ in range(hands)]
    copies = rules.table.copies
    make, spec, lead_of = rules.make_engine, rules.engine_spec, rules.opening_lead
    shows, outcome = rules.show_phase, rules.scorer.outcome
    start = time.perf_counter()
    for seed in seeds:
        deal, dealt = Deal.shuffled_with_masks(seed, copies)
        if steps < 2:
            continue
        lead = lead_of(deal)
        if steps < 3:
            continue
        order, first = deal.order, deal.first_seat
        firsts = [order[(seat - first) & 3].index for seat in range(SEATS)]
        forced = 0 if lead.card is None else 1 << lead.card.index
        engine = make(spec, dealt, lead.seat, forced, first, firsts)
        if steps < 4:
            continue
        engine.random_playout(draw)
        if steps < 5:
            continue
        facts = facts_of(engine, dealt, shows)
        if steps < 6:
            continue
        outcome(facts)
    return (time.perf_counter() - start) / hands * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rules", nargs="*", default=None, help="one ruleset's plug-ins")
    args = parser.parse_args()
    rulesets = (
        [gongzhu.load_rules(*args.rules)]
        if args.rules is not None
        else [
            gongzhu.load_rules(),
            gongzhu.load_rules("two-deck"),
        ]
    )
    best = {id(rules): [float("inf")] * (len(STEPS) + 1) for rules in rulesets}
    for _ in range(args.repeat):
        for steps in range(1, len(STEPS) + 1):
            for rules in rulesets:
                times = best[id(rules)]
                times[steps] = min(times[steps], run(rules, steps, args.hands))
    print(f"python {platform.python_version()} on {platform.machine()}, {args.hands} hands")
    for rules in rulesets:
        times = best[id(rules)]
        parts = [
            f"{name} {times[i + 1] - (times[i] if i else 0.0):.1f}" for i, name in enumerate(STEPS)
        ]
        print(
            f"{rules!r} [{rules.engine_spec.name}]: {', '.join(parts)}; "
            f"total {times[len(STEPS)]:.1f} us a hand"
        )


if __name__ == "__main__":
    main()

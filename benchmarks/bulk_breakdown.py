"""Where a bulk hand's time goes: the steps of RandomHands, one at a time.

    python benchmarks/bulk_breakdown.py [--hands N] [--repeat R] [--rules NAME ...]

For each ruleset (by default 39baobao, huapai and two-deck), N seeded random
hands are played as :func:`gongzhu.simulate` plays them, each step timed on
its own (microseconds a hand, the best of ``--repeat`` runs, the rulesets'
runs alternating):

* where the engine plays whole hands (:meth:`RandomHands.outcomes
  <gongzhu.bulk.RandomHands.outcomes>`): the seed's digest (Python,
  SHAKE-256), the hand in C (deal, opening lead, shows and play with one
  ``random()`` call a decision, scoring: ``random_hands``), of which the play
  alone (``random_playout`` on engines set up beforehand) and the scoring alone
  (``score``), then the rest (the normalisation, the outcome, the generator);
  ``random()`` alone, as many draws as a hand has cards, for scale;
* the hand-by-hand path of before (:meth:`RandomHands.outcome
  <gongzhu.bulk.RandomHands.outcome>` with the facts scored in Python:
  the deal, the opening lead and the engine made in Python, the facts and
  the pipeline's compiled scorer);
* ``simulate`` itself (the outcomes and their running statistics).
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable

import gongzhu
from gongzhu.bulk import RandomHands
from gongzhu.deal import Deal, seed_digest

STEPS = (
    "digest",
    "hand in C",
    "of which play",
    "of which score",
    "rest",
    "outcomes",
    "draws alone",
    "hand by hand, facts in Python",
    "simulate",
)


def timed(run: Callable[[], object], hands: int) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) / hands * 1e6


def measure(rules: gongzhu.Rules, hands: int) -> dict[str, float]:
    """Microseconds a hand for each step, over ``hands`` seeded hands."""
    rng = random.Random(1)
    seeds = [rng.getrandbits(63) for _ in range(hands)]
    cards = 52 * rules.table.copies
    fast = RandomHands(rules)
    slow = RandomHands(rules)
    slow._native = slow._lead = None  # the hand-by-hand path, the facts scored in Python
    out: dict[str, float] = {}
    out["digest"] = timed(lambda: [seed_digest(seed, cards) for seed in seeds], hands)
    out["outcomes"] = timed(
        lambda: list(fast.outcomes(hands, iter(seeds).__next__, rng.random)), hands
    )
    engine, lead, native = fast._scratch, fast._lead, rules.scorer.native
    if engine is not None:
        digests = [seed_digest(seed, cards) for seed in seeds]
        out["hand in C"] = timed(
            lambda: engine.random_hands(native, hands, iter(digests).__next__, rng.random, lead),
            hands,
        )
        engines = []
        for seed in seeds:
            deal, dealt = Deal.shuffled_with_masks(seed, rules.table.copies)
            opening = rules.opening_lead(deal)
            forced = 0 if opening.card is None else 1 << opening.card.index
            firsts = [card.index for card in deal.order[:4]]
            engines.append(
                rules.make_engine(rules.engine_spec, dealt, opening.seat, forced, 0, firsts)
            )
        out["of which play"] = timed(lambda: [e.random_playout(rng.random) for e in engines], hands)
        out["of which score"] = timed(lambda: [e.score(native) for e in engines], hands)
        out["rest"] = out["outcomes"] - out["hand in C"] - out["digest"]
    out["draws alone"] = timed(lambda: [rng.random() for _ in range(cards * hands)], hands)
    out["hand by hand, facts in Python"] = timed(
        lambda: [slow.outcome(seed, rng.random) for seed in seeds], hands
    )
    out["simulate"] = timed(lambda: gongzhu.simulate(rules, hands, seed=1), hands)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rules", nargs="*", default=None, help="one ruleset's plug-ins")
    args = parser.parse_args()
    rulesets = (
        [gongzhu.load_rules(*args.rules)]
        if args.rules is not None
        else [gongzhu.load_rules(), gongzhu.load_rules("huapai"), gongzhu.load_rules("two-deck")]
    )
    best: dict[int, dict[str, float]] = {id(rules): {} for rules in rulesets}
    for _ in range(args.repeat):
        for rules in rulesets:
            kept = best[id(rules)]
            for step, value in measure(rules, args.hands).items():
                kept[step] = min(kept.get(step, float("inf")), value)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.hands} hands")
    for rules in rulesets:
        kept = best[id(rules)]
        parts = [f"{step} {kept[step]:.1f}" for step in STEPS if step in kept]
        print(f"{rules!r} [{rules.engine_spec.name}]: {'; '.join(parts)} (us a hand)")


if __name__ == "__main__":
    main()

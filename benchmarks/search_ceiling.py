"""How far better inference could take the search bot: the search told the true deal.

    python benchmarks/search_ceiling.py [--against B] [--deals N] [--workers K] [--seed S]
                                        [--playout greedy|rules] [--blind]
                                        [--budget-ms MS | --samples N] [--json]

Plays the ``search`` bot's team against bot B's (default: ``heuristic``) on
duplicate 2-vs-2 deals, as ``benchmarks/bots_duplicate.py`` does (the same
deals for the same seed), except that every deal the search samples is the
real one: it knows every seat's cards, which no inference from the play can
do better than (for this search and playout).  The gap between this and the
honest search − B (``--blind``) is about the most that better sampling
(reading voids, shows and the opponents' habits) could add.

``--playout greedy`` (default) is the search as shipped, at 50 ms a decision
of processor time, playouts by the greedy policy in the engine.  ``--playout
rules`` plays each action out with the ``rules`` bot in every seat instead
(in Python; seeing, by default once on the one real deal with no time
limit): the same search with a playout policy that plays as the heuristic's
rules do.
``--budget-ms`` and ``--samples`` budget a decision in processor time or in
samples.  ``--blind`` deals the samples from the view as the shipped search
does, for the honest row to compare with (``--blind --playout rules
--budget-ms 400``: the rules as the playout on sampled deals).

The bots never look at another seat's cards themselves: the script replaces
the sampler's deal (:class:`gongzhu.bots.sampler.Determinizer`) while a search
seat decides, and only then.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing import Pool
from typing import Any, NamedTuple

import gongzhu
from gongzhu import HandState, Phase, Show
from gongzhu.actions import Action
from gongzhu.arena import _deal_seed  # the arena's deals, so that the runs can be compared
from gongzhu.bots import Bot, RulesBot, SearchBot, bot_names, make_bot
from gongzhu.bots.sampler import Determinizer

_TRUE: list[HandState] = []
"""The real hand, while a search seat decides."""

_SAMPLE = Determinizer.sample


def _true_sample(self: Determinizer, rng: random.Random) -> HandState:
    """A copy of the real hand while a search seat decides, else a sampled one.

    :meth:`Determinizer.sample_engine <gongzhu.bots.sampler.Determinizer.sample_engine>`
    re-deals a template that only this method makes; this one never makes it, so
    every sample, engine or state, comes from here.
    """
    return _TRUE[0].clone() if _TRUE else _SAMPLE(self, rng)


Determinizer.sample = _true_sample  # type: ignore[method-assign]


@contextmanager
def _seeing(hand: HandState) -> Iterator[None]:
    _TRUE.append(hand)
    try:
        yield
    finally:
        _TRUE.clear()


def _rules_playout(rules: gongzhu.Rules) -> Any:
    """A playout policy: the ``rules`` bot in every seat, told the 2-vs-2 format."""
    bots = [RulesBot(rules=rules, format="2v2") for _ in range(4)]

    def policy(state: HandState, rng: random.Random) -> Action:
        seat = state.to_move
        assert seat is not None
        return bots[seat].choose(state.view(seat))

    return policy


def _search(seed: int, rules: gongzhu.Rules, job: Job) -> Bot:
    budget: dict[str, Any]
    if job.samples is not None:
        budget = {"budget_ms": None, "samples": job.samples}
    elif job.budget_ms is not None:
        budget = {"budget_ms": job.budget_ms}
    elif job.playout == "rules" and not job.blind:
        budget = {"budget_ms": None, "samples": 1}  # the real deal and rules: one is enough
    else:
        budget = {}  # the search's default, 50 ms
    policy = {"rollout": _rules_playout(rules)} if job.playout == "rules" else {}
    return SearchBot(seed, rules=rules, format="2v2", clock="cpu", **budget, **policy)


class Job(NamedTuple):
    """One deal to play, and how."""

    deal_seed: int
    against: str
    playout: str
    samples: int | None
    budget_ms: float | None
    blind: bool


class DealResult(NamedTuple):
    """What one deal gave."""

    advantage: float
    """The search team's mean advantage a hand (raw points)."""
    samples: int
    """The samples its search seats drew, over all their decisions with a choice."""
    searches: int
    """Those decisions."""


def play_deal(job: Job) -> DealResult:
    """One deal, both seatings: the search team's mean advantage a hand, and its sampling."""
    deal_seed, against = job.deal_seed, job.against
    rules = gongzhu.load_rules()
    total = samples = searches = 0
    for mine in ((0, 2), (1, 3)):
        bots = [
            _search(deal_seed * 4 + seat, rules, job)
            if seat in mine
            else make_bot(against, seed=deal_seed * 4 + seat, rules=rules, format="2v2")
            for seat in range(4)
        ]
        hand = rules.new_hand(deal_seed)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            if hand.phase is not Phase.PLAY:  # no shows, as bots_duplicate.py plays by default
                shows = [a for a in hand.legal_actions() if isinstance(a, Show)]
                hand.apply(min(shows, key=lambda a: len(a.cards)))
                continue
            view = hand.view(seat)
            if seat in mine and not job.blind:
                with _seeing(hand):
                    action = bots[seat].choose(view)
            else:
                action = bots[seat].choose(view)
            if seat in mine and len(view.legal_actions) > 1:
                samples += int(bots[seat].last_stats["samples"])  # type: ignore[attr-defined]
                searches += 1
            hand.apply(action)
        raw = hand.score().raw
        ours = sum(raw[s] for s in mine)
        total += ours - (sum(raw) - ours)
    return DealResult(total / 2, samples, searches)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--against", default="heuristic", help="bot B (default: heuristic)")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (2 hands each)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=500000)
    parser.add_argument("--playout", choices=("greedy", "rules"), default="greedy")
    parser.add_argument(
        "--blind",
        action="store_true",
        help="deal the samples from the view, as the shipped search does (for comparison)",
    )
    budgets = parser.add_mutually_exclusive_group()
    budgets.add_argument(
        "--budget-ms", type=float, default=None, help="a decision's budget in processor time"
    )
    budgets.add_argument(
        "--samples",
        type=int,
        default=None,
        help="samples a decision, no time limit (default: 50 ms; seeing, 1 with rules playouts)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON line")
    args = parser.parse_args(argv)
    if args.deals < 2 or args.workers < 1:
        parser.error("--deals must be at least 2 and --workers at least 1")
    if args.against not in bot_names():
        parser.error(f"no bot named {args.against!r}; installed: {', '.join(bot_names())}")
    if args.budget_ms is not None and not 0 < args.budget_ms < math.inf:
        parser.error("--budget-ms must be a positive number of milliseconds")
    if args.samples is not None and args.samples < 1:
        parser.error("--samples must be at least 1")
    jobs = [
        Job(
            _deal_seed(args.seed, i),
            args.against,
            args.playout,
            args.samples,
            args.budget_ms,
            args.blind,
        )
        for i in range(args.deals)
    ]
    who = "blind: samples dealt from the view" if args.blind else "seeing every card"
    if args.samples is not None:
        budget = f"{args.samples} sample{'' if args.samples == 1 else 's'}"
    elif args.budget_ms is not None:
        budget = f"{args.budget_ms:g} ms (processor time)"
    elif args.playout == "rules" and not args.blind:
        budget = "1 sample"
    else:
        budget = "50 ms (processor time)"
    start = time.perf_counter()
    workers = min(args.workers, args.deals)
    with Pool(workers) as pool:
        deals = pool.map(play_deal, jobs, chunksize=max(1, args.deals // (workers * 8)))
    results = [deal.advantage for deal in deals]
    mean = sum(results) / len(results)
    stderr = math.sqrt(sum((x - mean) ** 2 for x in results) / (len(results) - 1) / len(results))
    searches = sum(deal.searches for deal in deals)
    per_search = sum(deal.samples for deal in deals) / searches if searches else 0.0
    out = {
        "a": f"search ({who})",
        "b": args.against,
        "playout": args.playout,
        "budget": budget,
        "samples_a_search": per_search,
        "deals": args.deals,
        "hands": 2 * args.deals,
        "mean": mean,
        "stderr": stderr,
        "seed": args.seed,
        "seconds": time.perf_counter() - start,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"search {who} ({args.playout} playouts, {budget}, {per_search:.1f} samples a "
            f"search) − {args.against}: {mean:+.1f} ± {stderr:.1f} a hand over "
            f"{2 * args.deals} hands ({out['seconds']:.0f} s)"
        )


if __name__ == "__main__":
    main()

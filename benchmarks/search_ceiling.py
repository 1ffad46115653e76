"""How far better inference could take the search bot: the search told the true deal.

    python benchmarks/search_ceiling.py [--against B] [--deals N] [--workers K] [--seed S]
                                        [--playout greedy|rules] [--blind]
                                        [--know CARDS [--know-from N]]
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

``--know CARDS`` (``--know JD,TC``) deals the samples from the view, as
``--blind`` does, except that each of CARDS lies with the seat that truly
holds it: how much knowing where those cards are is worth; with
``--know-from N``, only once N tricks are over.

The bots never look at another seat's cards themselves: the script replaces
the sampler's deal (:class:`gongzhu.implied.Determinizer`) while a search
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
from gongzhu import HandState, SeatView
from gongzhu.actions import Action
from gongzhu.arena import _deal_seed, _play  # the arena's deals and play: runs compare
from gongzhu.bots import Bot, RulesBot, SearchBot, bot_names, make_bot
from gongzhu.bots import search as search_module
from gongzhu.bots.sampler import Inference
from gongzhu.cards import Card
from gongzhu.implied import Determinizer

_TRUE: list[HandState] = []
"""The real hand, while a search seat decides."""

_SAMPLE = Determinizer.sample


def _true_sample(self: Determinizer, rng: random.Random) -> HandState:
    """A copy of the real hand while a search seat decides, else a sampled one.

    :meth:`Determinizer.sample_engine <gongzhu.implied.Determinizer.sample_engine>`
    re-deals a template that only this method makes; this one never makes it, so
    every sample, engine or state, comes from here.
    """
    return _TRUE[0].clone() if _TRUE else _SAMPLE(self, rng)


Determinizer.sample = _true_sample  # type: ignore[method-assign]


_KNOWN: list[tuple[HandState, tuple[Card, ...], int]] = []
"""While a ``--know`` seat decides: the real hand, the cards placed where they truly lie,
and the tricks that must be over first."""

_INFER = search_module.infer


def _infer_knowing(view: SeatView, rules: gongzhu.Rules, *args: Any, **kwargs: Any) -> Inference:
    """The search's inference, and while a ``--know`` seat decides: each known card with its
    true holder (every other seat's factor next to nothing)."""
    inference = _INFER(view, rules, *args, **kwargs)
    if not _KNOWN:
        return inference
    hand, cards, after = _KNOWN[0]
    if len(view.tricks) < after:
        return inference
    factors = dict(inference.factors)
    for card in cards:
        holder = next((s for s in range(4) if card in hand.holding(s)), None)
        if holder is not None and holder != view.seat:
            factors[card] = tuple(1.0 if s == holder else 1e-9 for s in range(4))
    return Inference(factors)


search_module.infer = _infer_knowing


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


class Job(NamedTuple):
    """One deal to play, and how."""

    deal_seed: int
    against: str
    playout: str
    samples: int | None
    budget_ms: float | None
    blind: bool
    know: tuple[Card, ...] = ()
    know_from: int = 0


def _budget(job: Job) -> tuple[dict[str, Any], str]:
    """The search's budget options for ``job``, and how to name them."""
    if job.samples is not None:
        label = f"{job.samples} sample{'' if job.samples == 1 else 's'}"
        return {"budget_ms": None, "samples": job.samples}, label
    if job.budget_ms is not None:
        return {"budget_ms": job.budget_ms}, f"{job.budget_ms:g} ms (processor time)"
    if job.playout == "rules" and not job.blind:
        return {"budget_ms": None, "samples": 1}, "1 sample"  # the real deal and rules: one
    return {}, "50 ms (processor time)"  # the search's default


class _SearchSeat:
    """A search seat: decides seeing the real hand (unless blind), and counts its samples."""

    def __init__(
        self,
        bot: SearchBot,
        hand: HandState,
        blind: bool,
        know: tuple[Card, ...] = (),
        know_from: int = 0,
    ) -> None:
        self.bot = bot
        self.hand = hand
        """The real hand, which the arena's play loop plays."""
        self.blind = blind
        self.know = know
        self.know_from = know_from
        self.samples = self.searches = 0

    def choose(self, view: SeatView) -> Action:
        if self.know:
            _KNOWN.append((self.hand, self.know, self.know_from))
            try:
                action = self.bot.choose(view)
            finally:
                _KNOWN.clear()
        elif self.blind:
            action = self.bot.choose(view)
        else:
            with _seeing(self.hand):
                action = self.bot.choose(view)
        if self.bot.last_stats["samples"]:  # (not where every legal card is alike)
            self.samples += int(self.bot.last_stats["samples"])
            self.searches += 1
        return action


class DealResult(NamedTuple):
    """What one deal gave."""

    advantage: float
    """The search team's mean advantage a hand (raw points)."""
    samples: int
    """The samples its search seats drew, over all their decisions with a choice."""
    searches: int
    """Those decisions."""


def play_deal(job: Job) -> DealResult:
    """One deal, both seatings: the search team's mean advantage a hand, and its sampling.

    The hands are played as the arena plays them, with no shows.
    """
    rules = gongzhu.load_rules()
    options = _budget(job)[0]
    if job.playout == "rules":
        options["rollout"] = _rules_playout(rules)
    total = 0.0
    seats: list[_SearchSeat] = []
    for mine in ((0, 2), (1, 3)):
        hand = rules.new_hand(job.deal_seed)
        bots: list[Bot] = []
        for seat in range(4):
            seed = job.deal_seed * 4 + seat
            if seat in mine:
                search = SearchBot(seed, rules=rules, format="2v2", clock="cpu", **options)
                seats.append(_SearchSeat(search, hand, job.blind, job.know, job.know_from))
                bots.append(seats[-1])
            else:
                bots.append(make_bot(job.against, seed=seed, rules=rules, format="2v2"))
        raw = _play(hand, bots, shows=False)
        ours = sum(raw[s] for s in mine)
        total += ours - (sum(raw) - ours)
    return DealResult(
        total / 2, sum(seat.samples for seat in seats), sum(seat.searches for seat in seats)
    )


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
    parser.add_argument(
        "--know",
        default="",
        metavar="CARDS",
        help="deal the samples from the view, but these cards (JD,TC) where they truly lie",
    )
    parser.add_argument(
        "--know-from",
        type=int,
        default=0,
        metavar="N",
        help="place the --know cards only once N tricks are over (default: 0)",
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
    try:
        know = tuple(Card.parse(text) for text in args.know.split(",") if text.strip())
    except ValueError as exc:
        parser.error(f"--know: {exc}")
    if not 0 <= args.know_from <= 13 or (args.know_from and not know):
        parser.error("--know-from takes a number of tricks, 0 to 13, and needs --know")
    if know and args.playout != "greedy":
        parser.error("--know places cards in the greedy playout's samples only")
    blind = args.blind or bool(know)
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
            blind,
            know,
            args.know_from,
        )
        for i in range(args.deals)
    ]
    who = "blind: samples dealt from the view" if blind else "seeing every card"
    if know:
        who += f", but {', '.join(str(card) for card in know)} where they lie"
        if args.know_from:
            who += f" once {args.know_from} tricks are over"
    budget = _budget(jobs[0])[1]
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

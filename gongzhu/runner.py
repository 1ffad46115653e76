"""Simulation at scale: many hands (or matches) between bots, over several processes.

This is the engine of ``gongzhu simulate``; it sits above the core (it uses
:mod:`gongzhu.bots`).  Hand (or match) ``i`` of a run is played from its own
seed, derived from the run's seed and ``i`` alone, so a run gives the same
results whatever the number of worker processes, and any single hand can be
replayed from its record.  Four ``random`` bots take the bulk path
(:meth:`HandState._random_playout <gongzhu.hand.HandState._random_playout>`).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import random
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import attrs

from .bots import BOTS, make_bot, play_hand
from .rules import load_rules
from .simulate import ScoreStats

__all__ = ["Job", "RunSummary", "hand_seed", "run"]


def hand_seed(seed: int, index: int) -> int:
    """The seed of hand (or match) ``index`` of a run seeded ``seed``."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


@attrs.frozen
class Job:
    """What a run plays: the ruleset (by name), the bots (by name), matches or hands."""

    variants: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    bots: tuple[str, str, str, str] = attrs.field()
    seed: int = attrs.field()
    matches: bool = False
    target: int | None = None

    @bots.validator
    def _check_bots(self, _attribute: object, value: tuple[str, ...]) -> None:
        unknown = [name for name in value if name not in BOTS]
        if len(value) != 4 or unknown:
            raise ValueError(
                f"four bots are needed, from {', '.join(sorted(BOTS))}; got {','.join(value)}"
            )


Outcome = tuple[tuple[int, ...], bool, bool, tuple[int, ...], dict[str, Any]]
"""One played unit: final scores (or match totals), full hearts, slam, losers, record."""


def _play_one(job: Job, index: int) -> Outcome:
    rules = load_rules(*job.variants, **dict(job.options))  # load_rules keeps equal rulesets
    seed = hand_seed(job.seed, index)
    if job.matches:
        match = rules.new_match(seed, target=job.target)
        match.play([make_bot(name, seed + seat) for seat, name in enumerate(job.bots)])
        outcomes = [hand._outcome() for hand in match.hands]
        full = any(hearts for _final, hearts, _slam in outcomes)
        slam = any(slam for _final, _hearts, slam in outcomes)
        return tuple(match.totals), full, slam, match.losers, match.to_record()
    hand = rules.new_hand(seed)
    if all(name == "random" for name in job.bots):
        hand._random_playout(random.Random(seed).random)
    else:
        play_hand(hand, [make_bot(name, seed + seat) for seat, name in enumerate(job.bots)])
    final, full, slam = hand._outcome()
    return final, full, slam, (), hand.to_record()


def _play_chunk(args: tuple[Job, int, int]) -> list[Outcome]:
    job, start, count = args
    return [_play_one(job, index) for index in range(start, start + count)]


def _ignore_interrupts() -> None:  # pragma: no cover - runs in worker processes
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@attrs.define
class RunSummary(ScoreStats):
    """Running statistics of a run: :class:`~gongzhu.simulate.ScoreStats`, and match losses."""

    losses: list[int] = attrs.field(factory=lambda: [0] * 4)

    def add(self, outcome: Outcome) -> None:
        """Count one played hand (or match)."""
        scores, full, slam, losers, _record = outcome
        self.add_scores(scores, full, slam)
        for seat in losers:
            self.losses[seat] += 1


def _chunks(total: int, workers: int) -> Iterator[tuple[int, int]]:
    size = max(1, min(250, total // (workers * 8) or 1))
    for start in range(0, total, size):
        yield start, min(size, total - start)


def run(
    job: Job,
    count: int,
    *,
    workers: int = 1,
    out: IO[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunSummary:
    """Play ``count`` hands (or matches) of ``job`` over ``workers`` processes.

    Records go to ``out`` as JSON Lines, in order, written and flushed chunk
    by chunk.  ``progress(done, count)`` is called as chunks finish.  An
    interrupt (SIGINT, in the main thread) is held until the chunk in hand is
    written, so the records and the summary always agree and no line is cut;
    then the workers are stopped and :class:`KeyboardInterrupt` is raised,
    with the summary of what finished in ``exc.summary``.
    """
    if count < 1:
        raise ValueError(f"nothing to play: {count} hands")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    load_rules(*job.variants, **dict(job.options))  # refuse a bad ruleset before forking
    summary = RunSummary()
    tasks = [(job, start, size) for start, size in _chunks(count, workers)]

    interrupted = False

    def hold(_signum: int, _frame: object) -> None:
        nonlocal interrupted
        interrupted = True

    def take(outcomes: Sequence[Outcome]) -> None:
        if out is not None:
            out.write("".join(json.dumps(o[4], ensure_ascii=False) + "\n" for o in outcomes))
            out.flush()
        for outcome in outcomes:
            summary.add(outcome)
        if progress is not None:
            progress(summary.played, count)

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, hold) if main_thread else None
    try:
        if workers == 1:
            for task in tasks:
                take(_play_chunk(task))
                if interrupted:
                    break
        else:
            context = multiprocessing.get_context("spawn")
            with context.Pool(workers, initializer=_ignore_interrupts) as pool:
                for outcomes in pool.imap(_play_chunk, tasks):
                    take(outcomes)
                    if interrupted:
                        pool.terminate()
                        break
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
    if interrupted:
        stop = KeyboardInterrupt()
        stop.summary = summary  # type: ignore[attr-defined]
        raise stop
    return summary

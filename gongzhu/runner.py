"""Simulation at scale: many hands (or matches) between bots, over several processes.

This is the engine of ``gongzhu simulate``; it sits above the core (it uses
:mod:`gongzhu.bots`).  Hand (or match) ``i`` of a run is played from its own
seed, derived from the run's seed and ``i`` alone, so a run gives the same
results whatever the number of worker processes, and any single hand can be
replayed from its record.  Four ``random`` bots take the bulk path: hand ``i``
plays as :meth:`HandState.play_out <gongzhu.hand.HandState.play_out>` would,
drawing from ``random.Random`` seeded with the hand's seed, and a run that
builds no records plays it without a :class:`~gongzhu.hand.HandState`
(:class:`~gongzhu.bulk.RandomHands`, the engine of :func:`gongzhu.simulate`).
"""

from __future__ import annotations

import hashlib
import json
import random
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

import attrs

from . import backends
from .bots import BOTS, QUICK_BOTS, TABLE_FORMATS, Bot, make_bot, play_hand
from .bulk import RandomHands
from .errors import HandLimitReached
from .match import HAND_LIMIT, Match
from .rules import Rules, load_rules
from .simulate import ScoreStats

__all__ = [
    "HAND_LIMIT",
    "MAX_WORKERS",
    "Chunk",
    "Job",
    "RunInterrupted",
    "RunSummary",
    "Writer",
    "hand_seed",
    "play_match",
    "run",
    "task_size",
]

MAX_WORKERS = 64
"""The most worker processes a run starts (and never more than it has hands)."""


def hand_seed(seed: int, index: int) -> int:
    """The seed of hand (or match) ``index`` of a run seeded ``seed``."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


@attrs.frozen
class Job:
    """What a run plays: the ruleset (by name), the bots (by name), matches or hands.

    :ivar records: whether to build each hand's (or match's) record; only a
        run that writes them needs them, and they cost more than the play.
    :ivar hand_limit: the most hands a match may take
        (:class:`HandLimitReached` beyond it).
    :ivar format: the table's format, told to every bot
        (:data:`~gongzhu.bots.TABLE_FORMATS`: ``"solo"``, the default, or ``"2v2"``).
    """

    variants: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    bots: tuple[str, str, str, str] = attrs.field()
    seed: int = attrs.field()
    matches: bool = False
    target: int | None = None
    records: bool = False
    hand_limit: int = HAND_LIMIT
    format: str = attrs.field(default="solo")

    @format.validator
    def _check_format(self, _attribute: object, value: str) -> None:
        if value not in TABLE_FORMATS:
            raise ValueError(
                f"a table's format is one of {', '.join(TABLE_FORMATS)}, not {value!r}"
            )

    @bots.validator
    def _check_bots(self, _attribute: object, value: tuple[str, ...]) -> None:
        unknown = [name for name in value if name not in BOTS]
        if len(value) != 4 or unknown:
            raise ValueError(
                f"four bots are needed, from {', '.join(sorted(BOTS))}; got {','.join(value)}"
            )


def play_match(match: Match, bots: Sequence[Bot], hand_limit: int = HAND_LIMIT) -> Iterator[int]:
    """Play ``match`` with ``bots`` to its end, yielding after each hand (its number, from 1).

    :raises HandLimitReached: when the match is not over after ``hand_limit`` hands.
    """
    while not match.is_over:
        match.check_hand_limit(hand_limit)
        match.record_hand(play_hand(match.new_hand(), bots))
        yield len(match.hands)


class Chunk(NamedTuple):
    """What a worker sends back for a run of consecutive hands (or matches)."""

    summary: RunSummary
    lines: list[str]
    """Their records as JSON lines (empty unless :attr:`Job.records`)."""


def _seated(job: Job, seed: int, rules: Rules) -> list[Bot]:
    """The job's bots for the hand (or match) seeded ``seed``, told the table's format."""
    return [
        make_bot(name, seed + seat, rules=rules, format=job.format)
        for seat, name in enumerate(job.bots)
    ]


def _play_chunk(args: tuple[Job, int, int]) -> Chunk:
    job, start, count = args
    rules = load_rules(*job.variants, **dict(job.options))  # load_rules keeps equal rulesets
    summary = RunSummary()
    lines: list[str] = []
    bulk = all(name == "random" for name in job.bots)
    # random hands and no record to build: the outcome without a HandState, drawn as
    # play_out draws it
    quick = bulk and not job.records and not job.matches
    if quick:
        seeds = [hand_seed(job.seed, index) for index in range(start, start + count)]
        for outcome in RandomHands(rules).seeded_outcomes(seeds):
            summary.add_scores(*outcome)
        return Chunk(summary, lines)
    for index in range(start, start + count):
        seed = hand_seed(job.seed, index)
        if job.matches:
            match = rules.new_match(seed, target=job.target)
            bots = _seated(job, seed, rules)
            try:
                for _ in play_match(match, bots, job.hand_limit):
                    pass
            except HandLimitReached as exc:
                raise HandLimitReached(f"match {index}: {exc}", exc.target) from None
            outcomes = [hand.outcome() for hand in match.hands]
            summary.add_scores(
                match.totals,
                any(hearts for _final, hearts, _slam in outcomes),
                any(slam for _final, _hearts, slam in outcomes),
            )
            for seat in match.losers:
                summary.losses[seat] += 1
            if job.records:
                lines.append(json.dumps(match.to_record(), ensure_ascii=False))
            continue
        hand = rules.new_hand(seed)
        if bulk:
            hand.play_out(random.Random(seed).random)
        else:
            bots = _seated(job, seed, rules)
            play_hand(hand, bots)
        summary.add_scores(*hand.outcome())
        if job.records:
            lines.append(json.dumps(hand.to_record(), ensure_ascii=False))
    return Chunk(summary, lines)


def _ignore_interrupts() -> None:  # pragma: no cover - runs in worker processes
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@attrs.define
class RunSummary(ScoreStats):
    """Running statistics of a run: :class:`~gongzhu.simulate.ScoreStats`, and match losses."""

    losses: list[int] = attrs.field(factory=lambda: [0] * 4)

    def merge(self, other: ScoreStats) -> None:
        """Add another summary's hands (or matches) to this one."""
        super().merge(other)
        if isinstance(other, RunSummary):
            for seat in range(4):
                self.losses[seat] += other.losses[seat]


def task_size(bots: Iterable[str], total: int, workers: int) -> int:
    """How many hands (or an arena's deals) of ``bots`` one task of a run of ``total``
    over ``workers`` plays.

    Hands of bots that do not think (:data:`~gongzhu.bots.QUICK_BOTS`) take well
    under a millisecond: up to 250 a task, a fraction of a second, so that the
    pipe to the workers is not the bottleneck.  A bot that thinks takes
    milliseconds or more: one a task, so that a Ctrl-C loses no finished one
    and the finished work is written as it comes.  (A match is a task of its
    own too.)
    """
    if any(name not in QUICK_BOTS for name in bots):
        return 1
    return max(1, min(250, total // (workers * 8) or 1))


class Writer(Protocol):
    """Where :func:`run` writes records: a text file, or anything with ``write`` and ``flush``."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


def run(
    job: Job,
    count: int,
    *,
    workers: int = 1,
    out: Writer | None = None,
    progress: Callable[[int, int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> RunSummary:
    """Play ``count`` hands (or matches) of ``job`` over ``workers`` processes.

    ``backend="ray"`` plays the chunks as Ray tasks instead, on the cluster
    at ``address`` or a local Ray instance (:func:`gongzhu.backends.imap`):
    the same seeds give the same summary and records as locally.

    Records go to ``out`` as JSON Lines, in order, written and flushed chunk
    by chunk (when :attr:`Job.records` has them built).  ``progress(done,
    count)`` is called as chunks finish.  ``workers`` is at most
    :data:`MAX_WORKERS`; no more than ``count`` are started.  An interrupt
    (SIGINT, in the main thread) stops the run at once: the hands under way
    are dropped, the workers stopped, and :class:`RunInterrupted` (a
    :class:`KeyboardInterrupt`) is raised with the summary of what was written
    in ``exc.summary`` (the hands finished in order; one that arrives while a
    chunk is being written waits for it, so the records and the summary
    always agree and no line is cut).  A bot that thinks, or a match, is one task of its own, so no
    finished one is lost; the hands of bots that do not think come in chunks
    of up to 250, a fraction of a second's work.

    :raises HandLimitReached: a match that did not end within
        :attr:`Job.hand_limit` hands.
    """
    if count < 1:
        raise ValueError(f"nothing to play: {count} hands")
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {workers}")
    workers = min(workers, count)
    load_rules(*job.variants, **dict(job.options))  # refuse a bad ruleset before forking
    summary = RunSummary()
    size = 1 if job.matches else task_size(job.bots, count, workers)
    tasks = backends.Chunks(job, count, size)

    interrupted = False
    writing = False

    def hold(_signum: int, _frame: object) -> None:
        nonlocal interrupted
        interrupted = True
        if not writing:  # nothing half written: stop now (the hands under way are dropped)
            raise KeyboardInterrupt

    def take(chunk: Chunk) -> None:
        nonlocal writing
        writing = True  # a Ctrl-C now waits for the chunk's lines and summary
        try:
            if out is not None and chunk.lines:
                out.write("".join(line + "\n" for line in chunk.lines))
                out.flush()
            summary.merge(chunk.summary)
        finally:
            writing = False
        if progress is not None:
            progress(summary.played, count)

    # (in the main thread, and not where Ctrl-C is ignored already: a background job's)
    main_thread = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    )
    previous = signal.signal(signal.SIGINT, hold) if main_thread else None
    try:
        chunks = backends.imap(
            _play_chunk,
            tasks,
            backend=backend,
            workers=workers,
            address=address,
            initializer=_ignore_interrupts,
        )
        try:
            for chunk in chunks:
                take(chunk)
                if interrupted:
                    break
        finally:
            chunks.close()  # stops the workers (a local pool, pending Ray tasks)
    except KeyboardInterrupt:
        if not main_thread or not interrupted:
            raise  # not ours (a Ctrl-C taken elsewhere): as it came
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise RunInterrupted(summary)
    return summary


class RunInterrupted(KeyboardInterrupt):
    """The :class:`KeyboardInterrupt` that :func:`run` raises once it has stopped the
    workers, with the summary of the hands (or matches) that finished."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__()
        self.summary = summary
        """What finished before the interrupt."""

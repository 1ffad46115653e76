"""Many hands at once: uniformly random playouts, summarised (the bulk API)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["ScoreStats", "SimulationSummary", "simulate"]


@attrs.frozen
class SimulationSummary:
    """What :func:`simulate` found.

    :ivar hands: how many hands were played.
    :ivar mean_final: per seat, the mean final (normalised) score.
    :ivar stderr_final: per seat, the standard error of ``mean_final``.
    :ivar full_hearts: how many hands had a 满红 (full hearts) seat.
    :ivar slams: how many hands had a 满贯 (slam) seat.
    """

    hands: int
    mean_final: tuple[float, ...]
    stderr_final: tuple[float, ...]
    full_hearts: int
    slams: int


@attrs.define
class ScoreStats:
    """Running per-seat statistics of many hands: mean and standard error, 满红 and 满贯 counts."""

    played: int = 0
    sums: list[int] = attrs.field(factory=lambda: [0] * 4)
    squares: list[int] = attrs.field(factory=lambda: [0] * 4)
    full_hearts: int = 0
    slams: int = 0

    def add_scores(self, scores: Sequence[int], full_hearts: bool, slam: bool) -> None:
        """Count one hand (or match) with these scores."""
        self.played += 1
        for seat in range(4):
            self.sums[seat] += scores[seat]
            self.squares[seat] += scores[seat] * scores[seat]
        self.full_hearts += full_hearts
        self.slams += slam

    def merge(self, other: ScoreStats) -> None:
        """Add the hands (or matches) counted in ``other``: as if each were added here."""
        self.played += other.played
        for seat in range(4):
            self.sums[seat] += other.sums[seat]
            self.squares[seat] += other.squares[seat]
        self.full_hearts += other.full_hearts
        self.slams += other.slams

    def mean(self, seat: int) -> float:
        """The mean score of ``seat`` (NaN before any hand)."""
        return self.sums[seat] / self.played if self.played else math.nan

    def stderr(self, seat: int) -> float:
        """The standard error of :meth:`mean` (NaN with fewer than two hands)."""
        n = self.played
        if n < 2:
            return math.nan
        mean = self.sums[seat] / n
        variance = max(0.0, (self.squares[seat] - n * mean * mean) / (n - 1))
        return math.sqrt(variance / n)


def simulate(rules: Rules, hands: int, *, seed: int = 0) -> SimulationSummary:
    """Play ``hands`` uniformly random hands (random shows included) and summarise them.

    No :class:`~gongzhu.hand.HandState` is made: a
    :class:`~gongzhu.bulk.RandomHands` deals, shows and scores each hand
    from card masks, and the play engine plays the cards inside itself (no
    action objects, no per-card calls from here), which makes this the
    fastest way to play many hands.  With the C engines, a ruleset whose
    scoring and opening lead are data has each hand dealt, played and scored
    in C (:meth:`RandomHands.outcomes <gongzhu.bulk.RandomHands.outcomes>`):
    Python only hashes the seed and normalises the scores.  Hand ``i`` is dealt from the ``i``-th
    seed drawn from ``random.Random(seed)``, and every choice comes from
    that generator (as :meth:`HandState.play_out
    <gongzhu.hand.HandState.play_out>` draws), so equal arguments give equal
    results, the same as playing each hand with ``play_out``.
    """
    from .bulk import RandomHands  # here: ``import gongzhu`` imports this module, kept light

    if hands < 1:
        raise ValueError(f"simulate needs at least one hand, not {hands!r}")
    rng = random.Random(seed)
    add = ScoreStats.add_scores
    stats = ScoreStats()
    for outcome in RandomHands(rules).outcomes(hands, partial(rng.getrandbits, 63), rng.random):
        add(stats, *outcome)
    return SimulationSummary(
        hands,
        tuple(stats.mean(seat) for seat in range(4)),
        tuple(stats.stderr(seat) for seat in range(4)),
        stats.full_hearts,
        stats.slams,
    )

"""Many hands at once: uniformly random playouts, summarised (the bulk API)."""

from __future__ import annotations

import math
import random

import attrs

from .rules import Rules

__all__ = ["SimulationSummary", "simulate"]


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


def simulate(rules: Rules, hands: int, *, seed: int = 0) -> SimulationSummary:
    """Play ``hands`` uniformly random hands (random shows included) and summarise them.

    The whole hand runs inside the engine (no action objects, no per-card
    calls from here), which makes this the fastest way to play many hands.
    Hand ``i`` is dealt from the ``i``-th seed drawn from
    ``random.Random(seed)``, and every choice comes from that generator, so
    equal arguments give equal results.
    """
    if hands < 1:
        raise ValueError(f"simulate needs at least one hand, not {hands!r}")
    rng = random.Random(seed)
    draw = rng.random
    seeds = rng.getrandbits
    new_hand = rules.new_hand
    totals = [0, 0, 0, 0]
    squares = [0, 0, 0, 0]
    full = slams = 0
    for _ in range(hands):
        state = new_hand(seeds(63))
        state._random_playout(draw)
        final, full_hearts, slam = state._outcome()
        for seat in range(4):
            totals[seat] += final[seat]
            squares[seat] += final[seat] * final[seat]
        full += full_hearts
        slams += slam
    mean = tuple(t / hands for t in totals)
    if hands > 1:
        stderr = tuple(
            math.sqrt(max(0.0, (sq - hands * m * m) / (hands - 1)) / hands)
            for sq, m in zip(squares, mean, strict=True)
        )
    else:
        stderr = (math.nan,) * 4
    return SimulationSummary(hands, mean, stderr, full, slams)

"""Many hands at once: uniformly random playouts, summarised."""

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
    :ivar mean_raw: per seat, the mean raw score.
    :ivar mean_final: per seat, the mean final (normalised) score.
    :ivar stderr_final: per seat, the standard error of ``mean_final``.
    :ivar full_hearts: how many hands had a 满红 (full hearts) seat.
    :ivar slams: how many hands had a 满贯 (slam) seat.
    """

    hands: int
    mean_raw: tuple[float, ...]
    mean_final: tuple[float, ...]
    stderr_final: tuple[float, ...]
    full_hearts: int
    slams: int


def simulate(rules: Rules, hands: int, *, seed: int = 0) -> SimulationSummary:
    """Play ``hands`` uniformly random hands (random shows included) and summarise them.

    Hand ``i`` is dealt from a seed drawn from ``random.Random(seed)``, and
    every choice comes from that same generator, so equal arguments give
    equal results.
    """
    if hands < 1:
        raise ValueError(f"simulate needs at least one hand, not {hands!r}")
    rng = random.Random(seed)
    choice = rng.choice
    raw_sum = [0.0] * 4
    final_sum = [0.0] * 4
    final_sq = [0.0] * 4
    full = slams = 0
    for _ in range(hands):
        state = rules.new_hand(rng.randrange(2**63))
        legal_actions = state.legal_actions
        apply = state.apply
        while state.seat_to_move is not None:
            apply(choice(legal_actions()))
        sheet = state.score()
        for seat in range(4):
            raw_sum[seat] += sheet.raw[seat]
            final_sum[seat] += sheet.final[seat]
            final_sq[seat] += sheet.final[seat] ** 2
        full += any(sheet.full_hearts)
        slams += any(sheet.slam)
    mean_final = tuple(s / hands for s in final_sum)
    if hands > 1:
        stderr = tuple(
            math.sqrt(max(0.0, (sq - hands * m * m) / (hands - 1)) / hands)
            for sq, m in zip(final_sq, mean_final, strict=True)
        )
    else:
        stderr = (math.nan,) * 4
    return SimulationSummary(
        hands=hands,
        mean_raw=tuple(s / hands for s in raw_sum),
        mean_final=mean_final,
        stderr_final=stderr,
        full_hearts=full,
        slams=slams,
    )

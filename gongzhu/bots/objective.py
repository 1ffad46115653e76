"""What a played-out hand is worth to a searching seat, and scoring played-out engines fast.

An objective turns the four raw scores of a finished hand into one number
for the seat that searches (:func:`seat_objective`):

``"final"``
    the seat's final score under the ruleset (39baobao: its raw points less
    the mean of the other three, ×12; huapai: its raw points);
``"raw"``
    its own raw points alone;
``"team"``
    its team's raw points less the other team's, each side by its mean
    (2-vs-2: half the team difference the arena measures).  The team is the
    format's; at a table without partners it is the seat and the seat
    opposite, as in 2-vs-2.

:func:`default_objective` picks ``"team"`` when the seat has partners and
``"final"`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, cast

import attrs

from ..bulk import facts_of
from ..deal import SEATS
from ..errors import GongzhuError
from ..masks import CardMask
from ..play import Capability, HandEngine, ScoreEngine
from ..rules import Rules
from ..scoring import ShowRecord
from .teams import PARTNERS, TableFormat

__all__ = ["OBJECTIVES", "EngineScorer", "Objective", "default_objective", "seat_objective"]

OBJECTIVES: Final = ("final", "raw", "team")
"""The objectives by name."""


def default_objective(format: TableFormat) -> str:
    """``"team"`` where ``format`` gives some seat a partner, else ``"final"``."""
    return "team" if format.has_teams else "final"


@attrs.frozen
class Objective:
    """One seat's objective: raw scores -> a number (see the module).

    :ivar name: one of :data:`OBJECTIVES`.
    :ivar seat: the seat it is for.
    :ivar weights: the weight of each seat's raw points (``None``: the final score).
    """

    name: str
    seat: int
    weights: tuple[float, ...] | None
    _normalise: Callable[[tuple[int, ...]], Sequence[int]] | None = attrs.field(
        default=None, alias="normalise"
    )

    def __call__(self, raw: tuple[int, ...]) -> float:
        """The objective's value of the raw scores ``raw``."""
        weights = self.weights
        if weights is None:
            assert self._normalise is not None
            return self._normalise(raw)[self.seat]
        return weights[0] * raw[0] + weights[1] * raw[1] + weights[2] * raw[2] + weights[3] * raw[3]


def seat_objective(name: str, seat: int, format: TableFormat, rules: Rules) -> Objective:
    """The objective ``name`` of ``seat`` at a table of ``format`` under ``rules``.

    :raises GongzhuError: an unknown name.
    """
    if name == "final":
        return Objective(name, seat, None, normalise=rules.scorer.normalise)
    if name == "raw":
        return Objective(name, seat, tuple(float(s == seat) for s in range(SEATS)))
    if name == "team":
        if not format.partners(seat):
            format = PARTNERS
        team = (seat, *format.partners(seat))
        rivals = format.opponents(seat)
        return Objective(
            name,
            seat,
            tuple(1 / len(team) if s in team else -1 / len(rivals) for s in range(SEATS)),
        )
    raise GongzhuError(f"objective must be one of {', '.join(map(repr, OBJECTIVES))}, not {name!r}")


class EngineScorer:
    """Raw scores of finished hand engines of one ruleset, through its
    :class:`~gongzhu.scoring.Scorer`, by the fastest path that fits.

    Where the ruleset's engine scores a hand itself from the compiled score data
    (:attr:`Capability.SCORE <gongzhu.play.Capability.SCORE>` and :attr:`Scorer.native
    <gongzhu.scoring.Scorer.native>`), the engine scores it, as bulk play does;
    else, where the taken cards and the shows decide the scores
    (:attr:`Scorer.masks_suffice <gongzhu.scoring.Scorer.masks_suffice>`: one deck,
    no stage that reads the deal), a hand is scored from its engine's taken cards
    and the shows' factors, worked out once for many hands (:meth:`Scorer.raw_of_masks
    <gongzhu.scoring.Scorer.raw_of_masks>`); anything else is scored from the
    hand's facts (:meth:`Scorer.raw <gongzhu.scoring.Scorer.raw>`).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.scorer = rules.scorer
        self._masks = self.scorer.masks_suffice
        self._raw_of_masks = self.scorer.raw_of_masks
        native = self.scorer.native if rules.engine_spec.offers(Capability.SCORE) else None
        self._native: Any = native

    def shows(self, engine: HandEngine) -> tuple[ShowRecord, ...]:
        """Every shown card of ``engine``'s hand so far."""
        return self.rules.show_phase.records_of(engine.show_log)

    def factors(self, shows: Sequence[ShowRecord]) -> dict[int, int]:
        """Card bit -> the product of its shows' factors (:meth:`Scorer.show_factors
        <gongzhu.scoring.Scorer.show_factors>`; what the fast path reads)."""
        return self.scorer.show_factors(shows)

    def raw(
        self, engine: HandEngine, dealt: Sequence[CardMask], factors: dict[int, int]
    ) -> tuple[int, ...]:
        """The raw scores of ``engine``'s finished hand.

        :param dealt: each seat's dealt cards (scoring stages such as 自得 read them).
        :param factors: :meth:`factors` of the hand's shows (read by the fast path only).
        """
        native = self._native
        if native is not None:
            try:
                return cast(ScoreEngine, engine).score(native)[0]
            except OverflowError:  # a score beyond 64 bits: Python's ints score it
                pass
        if self._masks:
            return self._raw_of_masks(engine.taken, factors)
        return self.scorer.raw(facts_of(engine, dealt, self.rules.show_phase))

"""The score sheet: a finished hand's result, and how score sheets print numbers and shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from ..actions import ShowKind
from ..cards import Card
from .table import ShowRecord

__all__ = ["SHOWN_WORDS", "Lines", "ScoreSheet", "signed"]

Lines = tuple[tuple[str, ...], ...]
"""Per seat, the readable steps of a score sheet."""


def signed(n: int) -> str:
    """A score as score sheets print it: ``+200``, ``−100`` (a minus sign), ``0``."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


SHOWN_WORDS: Final = {
    ShowKind.OPEN: "shown",
    ShowKind.FIRST: "first-shown 首明",
    ShowKind.SECRET: "sold 暗卖",
}
"""How score sheets name each kind of show."""


@attrs.frozen(eq=False)
class ScoreSheet:
    """The result of one hand.

    :ivar raw: each seat's score before normalisation.
    :ivar final: each seat's result after the ruleset's normalisation.
    :ivar captured: the scoring cards each seat took.
    :ivar shows: every shown card, with who showed it and how.
    :ivar full_hearts: which seats took every heart (满红).
    :ivar slam: which seats took every scoring card (满贯).
    :ivar lines: per seat, the readable steps that give its raw score, in
        order.  They are steps, not addends: a later line can restate an
        earlier value (自得 doubles a card already listed, 满红 turns the
        hearts' sign, the transformer multiplies the subtotal), so the raw
        score is where the steps end, not the sum of the lines.  Pass the
        lines, or a function that builds them: it is called once, when they
        are first read (:meth:`Scorer.sheet <gongzhu.scoring.Scorer.sheet>`
        explains lazily when the compiled scorer gives the numbers, so a sheet
        read only for its numbers costs little).
    :ivar normalisation: a sentence saying how ``final`` follows from ``raw``.
    """

    raw: tuple[int, ...]
    final: tuple[int, ...]
    captured: tuple[tuple[Card, ...], ...]
    shows: tuple[ShowRecord, ...]
    full_hearts: tuple[bool, ...]
    slam: tuple[bool, ...]
    _lines: Lines | Callable[[], Lines] = attrs.field(alias="lines", repr=False)
    normalisation: str = ""

    @property
    def lines(self) -> Lines:
        """Per seat, the readable steps that give its raw score (built on first use)."""
        lines = self._lines
        if callable(lines):
            lines = lines()
            object.__setattr__(self, "_lines", lines)
        return lines

    def _key(self) -> tuple[object, ...]:
        return (
            self.raw,
            self.final,
            self.captured,
            self.shows,
            self.full_hearts,
            self.slam,
            self.lines,
            self.normalisation,
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ScoreSheet)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the lines built (a function that builds them may not pickle)."""
        return (ScoreSheet, self._key())

    def explain(self, seat: int) -> list[str]:
        """Readable lines that show how ``seat``'s score came about."""
        lines = list(self.lines[seat]) or ["no scoring cards"]
        lines.append(f"raw {signed(self.raw[seat])}")
        if self.final != self.raw:
            lines.append(f"final {signed(self.final[seat])} ({self.normalisation})")
        return lines

    def __str__(self) -> str:
        rows = ["seat  raw     final   how"]
        for seat, (raw, final) in enumerate(zip(self.raw, self.final, strict=True)):
            how = "; ".join(self.lines[seat]) or "no scoring cards"
            rows.append(f"{seat:<5} {raw:<7} {final:<7} {how}")
        return "\n".join(rows)

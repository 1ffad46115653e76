"""Bots: anything with ``choose(view) -> action``.

A bot sees only a :class:`~gongzhu.view.SeatView`, never the full state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from .actions import Action
from .hand import HandState
from .view import SeatView

__all__ = ["BOTS", "Bot", "FirstLegalBot", "RandomBot", "make_bot", "play_hand"]


class Bot(Protocol):
    """The bot interface."""

    def choose(self, view: SeatView) -> Action:
        """Pick one of ``view.legal_actions``."""
        ...


class RandomBot:
    """Chooses uniformly among the legal actions (reproducibly, from ``seed``)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Action:
        return self._rng.choice(view.legal_actions)


class FirstLegalBot:
    """Always takes the first legal action: deterministic, for tests."""

    def choose(self, view: SeatView) -> Action:
        return view.legal_actions[0]


BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "first": lambda seed: FirstLegalBot(),
}
"""Bots by name, each built from a seed."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """The bot called ``name`` (see :data:`BOTS`)."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"no bot named {name!r}; bots: {', '.join(sorted(BOTS))}") from None


def play_hand(hand: HandState, bots: Sequence[Bot]) -> HandState:
    """Let ``bots`` (one per seat) play ``hand`` to the end; return it."""
    if len(bots) != 4:
        raise ValueError("play_hand needs four bots, one per seat")
    while not hand.is_over:
        seat = hand.current_seat
        assert seat is not None
        hand.apply(bots[seat].choose(hand.view(seat)))
    return hand

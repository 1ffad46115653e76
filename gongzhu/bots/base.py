"""The bot interface, the two simplest bots and :func:`play_hand`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from ..actions import Action
from ..hand import HandState
from ..rules import Rules
from ..view import SeatView

__all__ = ["Bot", "FirstLegalBot", "RandomBot", "play_hand"]


@runtime_checkable
class Bot(Protocol):
    """The bot interface: pick one of ``view.legal_actions``."""

    def choose(self, view: SeatView) -> Action:
        """Pick one of ``view.legal_actions`` (the view of the seat to move)."""
        ...


class RandomBot:
    """Chooses uniformly among the legal actions (reproducibly, from ``seed``).

    ``rules`` is accepted (and unused) like every shipped bot's.
    """

    def __init__(self, seed: int | None = None, *, rules: Rules | None = None) -> None:
        del rules
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Action:
        """A uniformly random legal action."""
        return self._rng.choice(view.legal_actions)


class FirstLegalBot:
    """Always takes the first legal action: deterministic, for tests.

    ``seed`` and ``rules`` are accepted (and ignored) so that every shipped
    bot is built the same way.
    """

    def __init__(self, seed: int | None = None, *, rules: Rules | None = None) -> None:
        del seed, rules

    def choose(self, view: SeatView) -> Action:
        """The first legal action."""
        return view.legal_actions[0]


def play_hand(hand: HandState, bots: Sequence[Bot]) -> HandState:
    """Let ``bots`` (one per seat) play ``hand`` to the end; return it.

    Each bot is shown only its seat's view.
    """
    if len(bots) != 4:
        raise ValueError("play_hand needs four bots, one per seat")
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        hand.apply(bots[seat].choose(hand.view(seat)))
    return hand

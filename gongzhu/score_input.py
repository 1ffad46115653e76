"""Scoring from lists of cards: now :mod:`gongzhu.scoring.cards_input`, whose names this
module re-exports (they are also names of :mod:`gongzhu.scoring`)."""

from __future__ import annotations

from .scoring.cards_input import (
    CardsBySeat,
    ShownCopiesBySeat,
    attribute_shown_copies,
    cards_by_seat,
    score_cards,
)

__all__ = [
    "CardsBySeat",
    "ShownCopiesBySeat",
    "attribute_shown_copies",
    "cards_by_seat",
    "score_cards",
]

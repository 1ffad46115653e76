"""The core's scoring stages: ``values``, ``full-hearts``, ``slam``, ``total``.

Each is a function of a :class:`~gongzhu.scoring.ScoringContext`;
:func:`core_stages` lists them, in order, as every ruleset's pipeline starts
before its plug-ins edit it.
"""

from __future__ import annotations

from typing import Final

from ..cards import PIG, SHEEP, TRANSFORMER, Card, Suit
from .pipeline import ScoreStage, ScoringContext, StageList
from .sheet import SHOWN_WORDS, signed
from .table import TRANSFORMER_ALONE, TRANSFORMER_MULTIPLIER

__all__ = [
    "core_stages",
    "stage_full_hearts",
    "stage_slam",
    "stage_total",
    "stage_values",
]

_CARD_NAMES: Final = {PIG: "pig", SHEEP: "sheep"}


def _factor_note(factor: int, what: str) -> str:
    return "" if factor == 1 else f" ×{factor} ({what})"


def _shown(ctx: ScoringContext, card: Card) -> str:
    kind = ctx.shown_kind(card)
    return SHOWN_WORDS[kind] if kind is not None else "shown"


def stage_values(ctx: ScoringContext) -> None:
    """Base value × show factor for each card; the transformer's multiplier and alone-value."""
    table = ctx.table
    hearts_factor = ctx.hearts_factor
    explain = ctx.explain
    heart = table.showable_heart
    copies_known = ctx.shown_taken is not None  # two decks: which copy is which
    showable = table.showable
    if explain:
        heart_word = _shown(ctx, heart) if heart is not None else "shown"
        heart_note = _factor_note(hearts_factor, f"{heart.symbol if heart else '♥'} {heart_word}")
    for tally in ctx.seats:
        hearts_base = 0
        for entry in tally.entries:
            base = table.base_value(entry.card)
            if entry.card.suit is Suit.HEARTS:
                hearts_base += base
                entry.value = base * hearts_factor
                if copies_known and entry.card in showable:  # its show, for later stages
                    entry.shown = ctx.pop_copy_record(tally.seat, entry.card)
            else:
                entry.shown, factor = ctx.pop_copy(tally.seat, entry.card)
                entry.value = base * factor
                if explain:
                    name = _CARD_NAMES.get(entry.card, "card")
                    copy = entry.shown  # two decks: this copy's own show, if it had one
                    word = _shown(ctx, entry.card) if copy is None else SHOWN_WORDS[copy.kind]
                    note = _factor_note(factor, word)
                    tally.lines.append(f"{name} {entry.card.symbol} {signed(base)}{note}")
        hearts = tally.hearts() if explain else None
        if hearts:
            tally.lines.append(
                f"hearts ×{len(hearts)} {signed(hearts_base)}{heart_note}"
                + (f" = {signed(tally.sum_of(hearts))}" if hearts_factor != 1 else "")
            )
        shown = False
        for card in tally.transformers:
            record, factor = ctx.pop_copy(tally.seat, card)
            if copies_known:
                tally.transformer_shows.append(record)
            shown = shown or factor != 1
            tally.multiplier *= TRANSFORMER_MULTIPLIER * factor
            tally.transformer_alone.append(TRANSFORMER_ALONE * factor)
            tally.alone += TRANSFORMER_ALONE * factor
        if tally.transformers and explain:
            note = f" ({_shown(ctx, TRANSFORMER)})" if shown else ""
            tally.lines.append(f"transformer ♣10 ×{tally.multiplier}{note}")


def stage_full_hearts(ctx: ScoringContext) -> None:
    """满红: every heart taken by one seat: the hearts' sum changes sign."""
    need = 13 * ctx.table.copies
    for tally in ctx.seats:
        hearts = tally.hearts()
        if len(hearts) == need:
            tally.full_hearts = True
            for entry in hearts:
                entry.value = -entry.value
            tally.note(ctx, f"满红 full hearts: hearts count {signed(tally.sum_of(hearts))}")


def stage_slam(ctx: ScoringContext) -> None:
    """满贯: every scoring card taken by one seat: the pig changes sign too."""
    need = ctx.table.scoring_count
    for tally in ctx.seats:
        if len(tally.entries) + len(tally.transformers) == need:
            tally.slam = True
            for entry in tally.entries:
                if entry.card == PIG:
                    entry.value = -entry.value
            pigs = [e for e in tally.entries if e.card == PIG]
            tally.note(ctx, f"满贯 slam: the pig counts {signed(tally.sum_of(pigs))}")


def stage_total(ctx: ScoringContext) -> None:
    """Sum the values; apply the transformer (or its alone-value)."""
    for tally in ctx.seats:
        subtotal = tally.sum_of(tally.entries)
        if not tally.transformers:
            tally.total = subtotal
        elif tally.entries:
            tally.total = subtotal * tally.multiplier
            if ctx.explain:
                tally.lines.append(
                    f"transformer: {signed(subtotal)} ×{tally.multiplier} = {signed(tally.total)}"
                )
        else:
            tally.total = tally.alone
            tally.note(ctx, f"transformer alone: {signed(tally.alone)}")


def core_stages() -> StageList:
    """A fresh copy of the core pipeline: ``values``, ``full-hearts``, ``slam``, ``total``."""
    return StageList(
        [
            ScoreStage("values", stage_values),
            ScoreStage("full-hearts", stage_full_hearts),
            ScoreStage("slam", stage_slam),
            ScoreStage("total", stage_total),
        ]
    )

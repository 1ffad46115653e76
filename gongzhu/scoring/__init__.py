"""Scoring a finished hand: a pipeline of stages that ends in a :class:`ScoreSheet`.

The core pipeline, in order (each stage is a function of a
:class:`ScoringContext`, named so plug-ins can insert, replace or remove it
through :func:`~gongzhu.hookspecs.gongzhu_score_stages`):

``values``
    each scoring card taken gets its base value times its show factor; the
    hearts share the factor of the showable heart; each transformer taken sets
    the seat's multiplier (×2, ×4 shown) and its value when alone (+50, +100).
``full-hearts``
    满红: a seat with every heart has the hearts' sum change sign.
``slam``
    满贯: a seat with every scoring card has the pig change sign too.
``total``
    the sum of the values; with a transformer, times the multiplier, or its
    alone-value when it is the only scoring card taken (a sum of 0 stays 0).

Then the ruleset's normalisation (:func:`~gongzhu.hookspecs.gongzhu_normalise`)
turns the raw totals into the hand's result.

A finished hand is scored in one way: it gives its :class:`HandFacts` to its
ruleset's :class:`Scorer`, which uses the :class:`CompiledScorer` (the core
pipeline as card-mask arithmetic) when the ruleset's pipeline fits it, else
runs the pipeline.  The package has one module per job, and every name is
also here:

``table``
    :class:`ScoreTable` (a ruleset's scoring data), the core's tables and
    values, :class:`ShowRecord`.
``sheet``
    :class:`ScoreSheet`, and how sheets print numbers (:func:`signed`).
``pipeline``
    what stages read and change (:class:`ScoringContext`,
    :class:`SeatTally`, :class:`Entry`), :class:`ScoreStage`,
    :class:`StageList`, :func:`run_pipeline`.
``stages``
    the core's stages (:func:`core_stages`).
``copies``
    per-copy stages (:meth:`ScoreStage.copy_factor`): :class:`TakenCopy`,
    :class:`CopyFactors`, and which copy is a seat's own.
``compiled``
    :class:`CompiledScorer`, and :class:`MaskScoring`, what the mask form of
    a stage works on.
``scorer``
    :class:`Scorer`, :class:`HandFacts`, :class:`Outcome`.
``cards_input``
    scoring from lists of cards (:meth:`Rules.score <gongzhu.rules.Rules.score>`):
    :func:`score_cards`.
"""

from __future__ import annotations

from .cards_input import (
    CardsBySeat,
    ShownCopiesBySeat,
    attribute_shown_copies,
    cards_by_seat,
    score_cards,
)
from .compiled import CompiledScorer, MaskScoring
from .copies import CopyFactor, CopyFactors, TakenCopy, seat_copies
from .pipeline import (
    Entry,
    MaskStageFunc,
    ScoreStage,
    ScoringContext,
    SeatTally,
    StageFunc,
    StageList,
    run_pipeline,
)
from .scorer import HandFacts, Outcome, Scorer
from .sheet import SHOWN_WORDS, Lines, ScoreSheet, signed
from .stages import core_stages, stage_full_hearts, stage_slam, stage_total, stage_values
from .table import (
    DEFAULT_CARD_VALUES,
    DEFAULT_HEART_VALUES,
    DEFAULT_SHOW_FACTORS,
    PIG_VALUE,
    SHEEP_VALUE,
    TRANSFORMER_ALONE,
    TRANSFORMER_MULTIPLIER,
    ScoreTable,
    ShowRecord,
    show_record,
)

__all__ = [
    "DEFAULT_CARD_VALUES",
    "DEFAULT_HEART_VALUES",
    "DEFAULT_SHOW_FACTORS",
    "PIG_VALUE",
    "SHEEP_VALUE",
    "SHOWN_WORDS",
    "TRANSFORMER_ALONE",
    "TRANSFORMER_MULTIPLIER",
    "CardsBySeat",
    "CompiledScorer",
    "CopyFactor",
    "CopyFactors",
    "Entry",
    "HandFacts",
    "Lines",
    "MaskScoring",
    "MaskStageFunc",
    "Outcome",
    "ScoreSheet",
    "ScoreStage",
    "ScoreTable",
    "Scorer",
    "ScoringContext",
    "SeatTally",
    "ShowRecord",
    "ShownCopiesBySeat",
    "StageFunc",
    "StageList",
    "TakenCopy",
    "attribute_shown_copies",
    "cards_by_seat",
    "core_stages",
    "run_pipeline",
    "score_cards",
    "seat_copies",
    "show_record",
    "signed",
    "stage_full_hearts",
    "stage_slam",
    "stage_total",
    "stage_values",
]

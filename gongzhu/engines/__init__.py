"""The core's engines, registered through :func:`~gongzhu.hookspecs.gongzhu_play_engines`.

This package is a plug-in like any other: every ruleset's plugin manager
registers it (as it registers :mod:`gongzhu.defaults`), and it adds its
engines through the public hook, exactly as a third party's would.  Each
engine plays a whole hand (:class:`~gongzhu.play.HandEngine`): the show
phases, from the ruleset's compiled :class:`~gongzhu.showphase.ShowPhase`,
then the tricks.

========================  ======  =================================================
engine                    speed   features
========================  ======  =================================================
``single-c``              100     one deck, shown-card lock, discard rules, play rules
``single-python``         10      the same
``pairs-c``               100     two decks with pairs, shown-card lock, play rules
``pairs-python``          10      the same
========================  ======  =================================================

The Python engines are the references (:mod:`gongzhu.engines.base` for the
show phases both share, :mod:`gongzhu.engines.single` and
:mod:`gongzhu.engines.pairs` for the tricks); the C engines
(``gongzhu._speedups``) are their twins, and the tests require identical
hands from both.  The C engines exist when a C compiler was available at
install time; setting the environment variable ``GONGZHU_PURE_PYTHON`` (to
anything) before import leaves them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .._accel import accelerator
from ..actions import SINGLE_PLAYS, play_of_key
from ..masks import CardMask, add_copy
from ..play import (
    Capability,
    EngineRegistry,
    EngineSetup,
    EngineSpec,
    HandEngine,
    PlayMoment,
    PlaySituation,
)
from ..plugin import hookimpl
from .pairs import PairsEngine
from .single import SingleEngine

__all__ = ["ACCELERATED", "NAME", "PairsEngine", "SingleEngine"]

NAME: Final = "gongzhu.engines"
"""The name this plug-in is registered under in each plugin manager."""

_speedups: Any = accelerator("_speedups")

ACCELERATED: Final = _speedups is not None
"""Whether the C engines were built (and not switched off by ``GONGZHU_PURE_PYTHON``)."""

_SINGLE: Final = frozenset(
    {
        "one-deck",
        "singles",
        "shown-card-lock",
        "discard-rule-strict",
        "discard-rule-penalty",
        "play-rules",
    }
)
_PAIRS: Final = frozenset({"two-decks", "pairs", "shown-card-lock", "play-rules"})

if _speedups is not None:
    _speedups.set_plays(SINGLE_PLAYS, play_of_key)

    def _prepare_c(setup: EngineSetup) -> Any:
        """The C engines' tables of a ruleset, made once: its show phases and play rules."""
        return _speedups.Tables(*_c_tables(setup))

    def _single_c(
        tables: Any,
        holdings: Sequence[CardMask],
        leader: int,
        forced: CardMask,
        first_seat: int,
        first_cards: Sequence[int],
    ) -> HandEngine:
        engine: HandEngine = _speedups.SingleEngine(
            tables, holdings, leader, forced, first_seat, first_cards
        )
        return engine

    def _pairs_c(
        tables: Any,
        holdings: Sequence[CardMask],
        leader: int,
        forced: CardMask,
        first_seat: int,
        first_cards: Sequence[int],
    ) -> HandEngine:
        engine: HandEngine = _speedups.PairsEngine(
            tables, holdings, leader, forced, first_seat, first_cards
        )
        return engine


@hookimpl
def gongzhu_play_engines(engines: EngineRegistry) -> None:
    if _speedups is not None:
        engines.add(
            EngineSpec(
                "single-c",
                _single_c,
                _SINGLE,
                100,
                "single-deck hands in C",
                Capability.REDEAL
                | Capability.GREEDY_PLAYOUT
                | Capability.SCORE
                | Capability.RANDOM_HANDS
                | Capability.PLAYOUTS
                | Capability.ENDGAME
                | Capability.MISMATCHES,
                _prepare_c,
            )
        )
        engines.add(
            EngineSpec(
                "pairs-c",
                _pairs_c,
                _PAIRS,
                100,
                "two-deck hands with pairs in C",
                Capability.REDEAL
                | Capability.GREEDY_PLAYOUT
                | Capability.LEGAL_KEYS
                | Capability.SCORE
                | Capability.RANDOM_HANDS
                | Capability.PLAYOUTS,
                _prepare_c,
            )
        )
    engines.add(
        EngineSpec(
            "single-python",
            SingleEngine,
            _SINGLE,
            10,
            "single-deck hands in Python (the reference)",
            Capability.REDEAL,
        )
    )
    engines.add(
        EngineSpec(
            "pairs-python",
            PairsEngine,
            _PAIRS,
            10,
            "two-deck hands with pairs in Python (the reference)",
            Capability.REDEAL | Capability.LEGAL_KEYS,
        )
    )


def _c_tables(setup: EngineSetup) -> tuple[Any, ...]:
    """A ruleset's show phases and play rules as the C engines' ``Tables`` read them: plain
    tuples, a holding's row numbered by the copies of each showable card (digits in base
    ``copies + 1``, the first showable card lowest)."""
    shows, play = setup.shows, setup.play
    base = shows.copies + 1
    held, forced = [], []
    for row in range(base ** len(shows.cards)):
        holding, digits = 0, row
        for index in shows.cards:
            for _ in range(digits % base):
                holding = add_copy(holding, index)
            digits //= base
        held.append((shows.held[holding], shows.held_shows(holding)))
        forced.append(shows.forced.get(holding, -1))
    first = None
    if shows.first_shows:
        first = tuple(
            (shows.first[index], shows.first_shows_of(index)) if index in shows.first else None
            for index in range(52)
        )
    strict, penalty, last_offender = play.discard_flags
    preferred = play.preferred_discard_masks
    return (
        shows.copies,
        shows.cards,
        tuple(held),
        first,
        tuple(forced),
        shows.auto_show,
        tuple((c.copies, c.kind_code, c.locks) for c in shows.choices),
        (
            *play.lock_flags,
            preferred is not None,
            strict,
            penalty,
            last_offender,
            preferred,
            play.pair_beats_unmatched,
        ),
        tuple(
            (rule.when.value, rule.cards, rule.refuse, rule.require, rule.name, rule.owner)
            for rule in play.rules
        ),
        PlaySituation,
        (PlayMoment.LEAD.value, PlayMoment.FOLLOW.value, PlayMoment.DISCARD.value),
    )

"""The core's play engines, registered through :func:`~gongzhu.hookspecs.gongzhu_play_engines`.

This module is a plug-in like any other: every ruleset's plugin manager
registers it (as it registers :mod:`gongzhu.defaults`), and it adds its
engines through the public hook, exactly as a third party's would.

========================  ======  =================================================
engine                    speed   features
========================  ======  =================================================
``single-c``              100     one deck, shown-card lock, discard rules
``single-python``         10      the same, and plug-ins' play rules
``pairs-c``               100     two decks with pairs, shown-card lock
``pairs-python``          10      the same, and plug-ins' play rules
========================  ======  =================================================

The C engines (``gongzhu._speedups`` and ``gongzhu._pairs``) exist when a C
compiler was available at install time; setting the environment variable
``GONGZHU_PURE_PYTHON`` (to anything) before import leaves them out.  The
Python engines are the references: the tests require identical hands from
both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ._accel import accelerator
from .actions import SINGLE_PLAYS, Play
from .engine import PlayCore
from .play import EngineRegistry, EngineSpec, PlayConfig, PlayEngine, Refusal
from .plugin import hookimpl
from .scoring import ShowRecord

__all__ = ["ACCELERATED", "NAME"]

NAME: Final = "gongzhu.engines"
"""The name this plug-in is registered under in each plugin manager."""


_speedups: Any = accelerator("_speedups")
_pairs: Any = accelerator("_pairs")

ACCELERATED: Final = _speedups is not None and _pairs is not None
"""Whether the C engines were built (and not switched off by ``GONGZHU_PURE_PYTHON``)."""

_SINGLE: Final = frozenset(
    {"one-deck", "singles", "shown-card-lock", "discard-rule-strict", "discard-rule-penalty"}
)
_PAIRS: Final = frozenset({"two-decks", "pairs", "shown-card-lock"})


def _single_python(
    config: PlayConfig, hands: Sequence[int], history: list[Any], tricks: list[Any]
) -> PlayEngine:
    return PlayCore(config, hands, history, tricks)


def _pairs_python(
    config: PlayConfig, hands: Sequence[int], history: list[Any], tricks: list[Any]
) -> PlayEngine:
    from .engine_pairs import PairsCore  # imported when two decks are played

    return PairsCore(config, hands, history, tricks)


def _snapshot(cls: Any, state: Any) -> Any:
    """A Python reference engine holding a C engine's state, to explain a refusal."""
    twin = cls(state.config, state.hands, [], [])
    twin.start(state.trick_leader, state.forced, state.locked)
    for name in ("trick", "lifted"):
        setattr(twin, name, list(getattr(state, name)))
    for name in ("unled", "first_of_suit", "seat"):
        setattr(twin, name, getattr(state, name))
    twin.played = getattr(state, "played", 0)
    return twin


def _single_c(
    config: PlayConfig, hands: Sequence[int], history: list[Any], tricks: list[Any]
) -> PlayEngine:
    _strict, penalty, last_offender = config.discard_flags
    flags = (*config.lock_flags, penalty, last_offender)
    engine: PlayEngine = CPlayCore(
        hands, flags, config.preferred_discard_masks, history, tricks, config
    )
    return engine


def _pairs_c(
    config: PlayConfig, hands: Sequence[int], history: list[Any], tricks: list[Any]
) -> PlayEngine:
    engine: PlayEngine = CPairsCore(
        hands,
        *config.lock_flags,
        config.pair_beats_unmatched,
        history,
        tricks,
        config,
    )
    return engine


if _speedups is not None:

    class CPlayCore(_speedups.PlayCore):
        """``single-c``: the C single-deck engine, explained by its Python reference."""

        __slots__ = ()

        def refusal(self, play: Play) -> Refusal | None:
            return _snapshot(PlayCore, self).refusal(play)

        def shown_taken(self) -> None:
            return None

        # the bulk path (gongzhu.bulk.RandomHands): random_hand(table, ...) plays a
        # whole hand, shows included, from the show phases as data
        show_table = _speedups.ShowTable

    _speedups.set_plays(SINGLE_PLAYS)


if _pairs is not None:

    class CPairsCore(_pairs.PairsCore):
        """``pairs-c``: the C two-deck engine, explained by its Python reference."""

        __slots__ = ()

        def start(
            self,
            leader: int,
            forced: int,
            locked: Sequence[int],
            shows: Sequence[ShowRecord] = (),
        ) -> None:
            # the C engine keeps each ShowRecord as the opaque "kind" of its copy
            super().start(leader, forced, locked, [(r.seat, r.card.index, r) for r in shows])

        def shown_taken(self) -> list[list[ShowRecord]]:
            return [[record for _index, record in seat] for seat in self.shown_taken_raw()]

        def refusal(self, play: Play) -> Refusal | None:
            from .engine_pairs import PairsCore

            return _snapshot(PairsCore, self).refusal(play)


@hookimpl
def gongzhu_play_engines(engines: EngineRegistry) -> None:
    if _speedups is not None:
        engines.add(EngineSpec("single-c", _single_c, _SINGLE, 100, "single-deck play in C"))
    if _pairs is not None:
        engines.add(EngineSpec("pairs-c", _pairs_c, _PAIRS, 100, "two-deck play with pairs in C"))
    engines.add(
        EngineSpec(
            "single-python",
            _single_python,
            _SINGLE | {"play-rules"},
            10,
            "single-deck play in Python (the reference)",
        )
    )
    engines.add(
        EngineSpec(
            "pairs-python",
            _pairs_python,
            _PAIRS | {"play-rules"},
            10,
            "two-deck play with pairs in Python (the reference)",
        )
    )

"""gongzhu: the rules of 拱猪 (Gong Zhu, "Chase the Pig") as a library, with variant plug-ins.

>>> import gongzhu
>>> rules = gongzhu.load_rules()                  # the 39baobao rules
>>> hand = rules.new_hand(seed=7)
>>> while not hand.is_over:
...     hand.apply(hand.legal_actions()[0])
>>> sheet = hand.score()
>>> sum(sheet.final) in range(-24, 25)           # zero-sum up to rounding
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import errors
from .simulate import simulate

if TYPE_CHECKING:
    from . import record as record
    from .actions import Action, Play, Show, ShowKind, parse_action
    from .cards import (
        HEART_ACE,
        PIG,
        SHEEP,
        TRANSFORMER,
        Card,
        Rank,
        Suit,
        full_deck,
        parse_cards,
    )
    from .deal import Deal
    from .hand import HandState
    from .match import Match
    from .record import read_records, replay, replay_match
    from .rules import Rules, load_rules, variant_names
    from .scoring import ScoreSheet
    from .view import Phase, SeatView, Trick

__version__ = "0.1.0"  # the one place: pyproject.toml and `gongzhu --version` read it

__all__ = [
    "HEART_ACE",
    "PIG",
    "SHEEP",
    "TRANSFORMER",
    "Action",
    "Card",
    "Deal",
    "HandState",
    "Match",
    "Phase",
    "Play",
    "Rank",
    "Rules",
    "ScoreSheet",
    "SeatView",
    "Show",
    "ShowKind",
    "Suit",
    "Trick",
    "errors",
    "full_deck",
    "load_rules",
    "parse_action",
    "parse_cards",
    "read_records",
    "replay",
    "replay_match",
    "simulate",
    "variant_names",
]

# Imported on first use (PEP 562), not by ``import gongzhu``: name -> its module.  So
# ``import gongzhu`` is quick (the command line catches a Ctrl-C only once it runs, and
# a program that reads a record file needs no ruleset); the first name used loads what it
# needs.  Loading rules needs neither the hand state machine (the first
# ``Rules.new_hand`` imports it) nor matches nor the records module (and json).
# ``simulate`` stays eager (its module imports the rest on the first call): the submodule
# gongzhu.simulate shares its name, and importing the submodule (gongzhu.runner does)
# would bind the module over a lazily loaded function.
_LAZY: dict[str, str] = {
    "Action": "actions",
    "Play": "actions",
    "Show": "actions",
    "ShowKind": "actions",
    "parse_action": "actions",
    "HEART_ACE": "cards",
    "PIG": "cards",
    "SHEEP": "cards",
    "TRANSFORMER": "cards",
    "Card": "cards",
    "Rank": "cards",
    "Suit": "cards",
    "full_deck": "cards",
    "parse_cards": "cards",
    "Deal": "deal",
    "HandState": "hand",
    "Match": "match",
    "Phase": "view",
    "SeatView": "view",
    "Trick": "view",
    "read_records": "record",
    "replay": "record",
    "replay_match": "record",
    "Rules": "rules",
    "load_rules": "rules",
    "variant_names": "rules",
    "ScoreSheet": "scoring",
}

_SUBMODULES: frozenset[str] = frozenset(
    {
        "actions", "bulk", "cards", "compile", "deal", "defaults", "discovery", "engines",
        "hand", "hookspecs", "masks", "match", "play", "plugin", "record", "registry",
        "rules", "scoring", "showphase", "view",
    }
)  # fmt: skip
"""The submodules ``import gongzhu`` loaded before its names were lazy: attributes on first
use (``gongzhu.cards``), as they were; the others (``gongzhu.web``...) are imported."""

if not TYPE_CHECKING:  # type checkers see the imports above, and no catch-all attribute

    def __getattr__(name: str) -> Any:
        from importlib import import_module

        module_name = _LAZY.get(name)
        if module_name is None:
            if name not in _SUBMODULES:
                raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
            module_name = name
        module = import_module(f"{__name__}.{module_name}")
        value = module if name == module_name else getattr(module, name)
        globals()[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_LAZY))

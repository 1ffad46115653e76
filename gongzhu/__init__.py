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

from . import errors
from .actions import Action, Play, Show, ShowKind, parse_action
from .cards import HEART_ACE, PIG, SHEEP, TRANSFORMER, Card, Rank, Suit, full_deck, parse_cards
from .deal import Deal
from .hand import HandState
from .match import Match
from .record import read_records, replay, replay_match
from .rules import Rules, load_rules, variant_names
from .scoring import ScoreSheet
from .simulate import simulate
from .view import Phase, SeatView, Trick

__version__ = "0.1.0"

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

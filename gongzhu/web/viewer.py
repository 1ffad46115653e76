"""What the hand viewer shows: a hand or match record, checked by replaying it.

The viewer page posts a record (``docs/records.rst``) to ``/api/replay``;
:func:`viewer_data` replays it with :func:`gongzhu.replay` (so a record that
is not a legal hand is refused with the reason) and returns every hand's
deal, shows and tricks, and its explained score sheet, for the page to
step through trick by trick.

>>> import gongzhu
>>> from gongzhu.bots import make_bot, play_hand
>>> hand = play_hand(gongzhu.load_rules().new_hand(seed=5), [make_bot("first")] * 4)
>>> data = viewer_data(hand.to_record())
>>> data["kind"], len(data["hands"][0]["tricks"]), data["hands"][0]["sheet"]["final"]
('hand', 13, [600, 120, 2196, -2916])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions import ShowKind
from ..cards import Card
from ..errors import InvalidRecord
from ..hand import RECORD_FORMAT, HandState
from ..match import MATCH_FORMAT
from ..record import replay, replay_match
from ..view import PublicShow
from .protocol import encode_cards, encode_plays, encode_sheet, encode_show, encode_trick

__all__ = ["encode_hand", "viewer_data"]


def encode_hand(hand: HandState) -> dict[str, Any]:
    """Everything about a (replayed) hand: deal, shows, tricks, the sheet when over.

    The seed is given as a decimal string (or ``None``): a 64-bit seed does not
    fit a JavaScript number.
    """
    return {
        "rules": hand.rules.describe(),
        "seed": None if hand.seed is None else str(hand.seed),
        "leader": hand.leader,
        "dealt": [encode_cards(hand.dealt(seat)) for seat in range(4)],
        "shows": [encode_show(show) for show in _shows(hand)],
        "tricks": [encode_trick(trick) for trick in hand.tricks],
        "current_trick": encode_plays(hand.current_trick),
        "phase": hand.phase.value,
        "to_move": hand.to_move,
        "sheet": encode_sheet(hand.score()) if hand.is_over else None,
    }


def _shows(hand: HandState) -> list[PublicShow]:
    """The hand's shows, a seat's cards of one kind together (every card is visible)."""
    shows: dict[tuple[int, ShowKind], list[Card]] = {}
    for record in hand.show_records:
        shows.setdefault((record.seat, record.kind), []).append(record.card)
    return [
        PublicShow(seat, kind, len(cards), tuple(cards)) for (seat, kind), cards in shows.items()
    ]


def viewer_data(record: Any) -> dict[str, Any]:
    """The viewer's data for a hand record or a match record.

    :return: ``{"kind": "hand" | "match", "hands": [...], "totals": ...,
        "losers": ...}``, one :func:`encode_hand` per hand.
    :raises InvalidRecord: the record is not a hand or match record that replays.
    """
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"a record is a JSON object, not {type(record).__name__}")
    if record.get("format") == MATCH_FORMAT:
        match = replay_match(record)
        return {
            "kind": "match",
            "hands": [encode_hand(hand) for hand in match.hands],
            "totals": list(match.totals),
            "losers": list(match.losers) if match.is_over else None,
        }
    if record.get("format") != RECORD_FORMAT:
        raise InvalidRecord(
            f"not a hand or match record (format {record.get('format')!r}; "
            f"expected {RECORD_FORMAT!r} or {MATCH_FORMAT!r})"
        )
    hand = replay(record)
    return {"kind": "hand", "hands": [encode_hand(hand)], "totals": None, "losers": None}

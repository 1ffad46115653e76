"""The JSON messages of a table's websocket (``docs/web.rst`` documents each one).

Every message is a JSON object with a ``type``.  Cards are written as in
records (``"QS"``, ``"TC"``), actions in their text form (``"play QS"``,
``"show QS AH"``, ``"show -"``, ``"sell QS"``).  This module turns the
engine's values into messages and reads what a client sends; it holds no
state and needs nothing beyond the core.

>>> import gongzhu
>>> hand = gongzhu.load_rules().new_hand(seed=1)
>>> message = encode_view(hand.view(hand.to_move))
>>> message["phase"], len(message["holding"]), message["legal"][:2]
('show', 13, ['show -', 'show QS'])
>>> parse_client_message('{"type": "action", "action": "play QS"}')
ClientMessage(type='action', action='play QS', hand=None)
>>> try:
...     parse_client_message('{"type": "dance"}')
... except ProtocolError as exc:
...     print(exc.code, "-", exc.message)
bad-message - unknown message type 'dance': expected action, next, ping
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Final

import attrs

from ..cards import Card
from ..errors import GongzhuError
from ..scoring import ScoreSheet
from ..view import PublicShow, SeatView, Trick

__all__ = [
    "CLIENT_TYPES",
    "MAX_MESSAGE",
    "ClientMessage",
    "ProtocolError",
    "encode_cards",
    "encode_plays",
    "encode_sheet",
    "encode_show",
    "encode_trick",
    "encode_view",
    "error_message",
    "parse_client_message",
]

MAX_MESSAGE: Final = 4096
"""The longest message (in characters) a client may send."""

CLIENT_TYPES: Final = ("action", "next", "ping")
"""The ``type`` of every message a client may send."""


class ProtocolError(GongzhuError):
    """A message the server refuses: sent to that client as an ``error`` message.

    :ivar code: a short stable name (``bad-message``, ``not-your-turn``,
        ``illegal-action``...; ``docs/web.rst`` lists them).
    :ivar message: a sentence for people.
    :ivar details: extra fields of the ``error`` message (``rule``, ``refusal``).
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        self.code = code
        self.message = message
        self.details = details
        super().__init__(f"{code}: {message}")


def error_message(code: str, message: str, **details: Any) -> dict[str, Any]:
    """An ``error`` message: ``{"type": "error", "code": ..., "message": ...}``."""
    return {"type": "error", "code": code, "message": message, **details}


@attrs.frozen
class ClientMessage:
    """A message read from a client.

    :ivar type: one of :data:`CLIENT_TYPES`.
    :ivar action: for ``action``: the action's text.
    :ivar hand: for ``action``, optionally: the hand number (from 1) the
        action was meant for; an action meant for another hand is refused.
    """

    type: str
    action: str | None = None
    hand: int | None = None


def parse_client_message(text: str | bytes | None) -> ClientMessage:
    """Read one websocket message from a client.

    :raises ProtocolError: ``bad-message`` for anything that is not a JSON
        object of a known ``type`` with the fields that type needs.
    """
    if not isinstance(text, str):
        raise ProtocolError("bad-message", "messages are JSON text, not binary")
    if len(text) > MAX_MESSAGE:
        raise ProtocolError("bad-message", f"message longer than {MAX_MESSAGE} characters")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError("bad-message", f"not JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError):
        raise ProtocolError("bad-message", "not JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError(
            "bad-message", f'a message is a JSON object with a "type", not {type(data).__name__}'
        )
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "bad-message", f"unknown message type {kind!r}: expected {', '.join(CLIENT_TYPES)}"
        )
    if kind != "action":
        return ClientMessage(kind)
    action = data.get("action")
    if not isinstance(action, str) or not action.strip():
        raise ProtocolError(
            "bad-message", 'an action message has an "action" text, such as "play QS"'
        )
    hand = data.get("hand")
    if hand is not None and (not isinstance(hand, int) or isinstance(hand, bool)):
        raise ProtocolError("bad-message", '"hand" is the hand number, a whole number')
    return ClientMessage(kind, action.strip(), hand)


def encode_cards(cards: Iterable[Card]) -> list[str]:
    """Cards as record text: ``["QS", "TC"]``."""
    return [str(card) for card in cards]


def encode_plays(plays: Sequence[tuple[int, tuple[Card, ...]]]) -> list[dict[str, Any]]:
    """``(seat, cards)`` plays as ``[{"seat": 3, "cards": ["2C"]}, ...]``."""
    return [{"seat": seat, "cards": encode_cards(cards)} for seat, cards in plays]


def encode_trick(trick: Trick) -> dict[str, Any]:
    """A completed trick: its leader, plays, winner and taker (``docs/web.rst``)."""
    return {
        "leader": trick.leader,
        "plays": encode_plays(trick.plays),
        "winner": trick.winner,
        "taker": trick.taker,
    }


def encode_show(show: PublicShow) -> dict[str, Any]:
    """A show as the viewer sees it: ``cards`` is ``null`` for another seat's secret sale."""
    return {
        "seat": show.seat,
        "kind": show.kind.value,
        "count": show.count,
        "cards": None if show.cards is None else encode_cards(show.cards),
        "forced": show.forced,
    }


def encode_view(view: SeatView) -> dict[str, Any]:
    """The hand as one seat may see it: the view's fields of a ``state`` message.

    Built from the :class:`~gongzhu.view.SeatView` alone, so it holds the
    viewer's own cards and nobody else's.
    """
    return {
        "phase": view.phase.value,
        "to_move": view.to_move,
        "leader": view.leader,
        "holding": encode_cards(view.holding),
        "holding_sizes": list(view.holding_sizes),
        "shows": [encode_show(show) for show in view.shows],
        "tricks": [encode_trick(trick) for trick in view.tricks],
        "current_trick": encode_plays(view.current_trick),
        "legal": [str(action) for action in view.legal_actions],
    }


def encode_sheet(sheet: ScoreSheet) -> dict[str, Any]:
    """A finished hand's score sheet, with each seat's explanation
    (:meth:`ScoreSheet.explain <gongzhu.scoring.ScoreSheet.explain>`)."""
    return {
        "raw": list(sheet.raw),
        "final": list(sheet.final),
        "explain": [sheet.explain(seat) for seat in range(len(sheet.raw))],
        "normalisation": sheet.normalisation,
        "captured": [encode_cards(cards) for cards in sheet.captured],
        "full_hearts": list(sheet.full_hearts),
        "slam": list(sheet.slam),
    }

"""A table: four seats (people or bots), the match under way, and who is connected.

The table is the referee.  People act through their seat's connection; the
table checks that it is their turn, hands the action to the engine (which
explains a refusal), plays the bots' turns itself and sends every connected
seat its own ``state`` message after each action.  It needs no web
framework: a connection is anything with ``send_json`` and ``close``
(:class:`Connection`), as a Starlette websocket has.

All of a table's methods run on one event loop; a bot thinks in a worker
thread (:func:`asyncio.to_thread`) on a copy of its seat's view.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from typing import Any, Final, Protocol

from ..actions import Action, parse_action
from ..bots import BOTS, Bot, make_bot
from ..errors import GongzhuError, IllegalAction, InvalidCard
from ..hand import HandState
from ..match import Match
from ..rules import Rules
from .protocol import ClientMessage, ProtocolError, encode_sheet, encode_view, error_message

__all__ = ["PERSON", "Connection", "Seat", "Table"]

PERSON: Final = "human"
"""The player name of a seat taken by a person (any other name is a bot's)."""

_log = logging.getLogger(__name__)


class Connection(Protocol):
    """One client's link to its seat (a Starlette ``WebSocket`` is one)."""

    async def send_json(self, data: Any) -> None:
        """Send one JSON message."""

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the link."""


class Seat:
    """One seat of a table.

    :ivar index: the seat, 0-3.
    :ivar player: :data:`PERSON`, or the name of the bot that plays it.
    :ivar token: the secret in the seat's link.
    :ivar bot: the bot, for a bot's seat.
    :ivar connection: the person's live connection, if any.
    """

    def __init__(self, index: int, player: str, bot: Bot | None) -> None:
        self.index = index
        self.player = player
        self.bot = bot
        self.token = secrets.token_urlsafe(16)
        self.connection: Connection | None = None

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays this seat."""
        return self.bot is not None

    def describe(self) -> dict[str, Any]:
        """The seat as every client sees it: who plays it and whether they are here."""
        return {
            "seat": self.index,
            "player": "bot" if self.is_bot else PERSON,
            "bot": self.player if self.is_bot else None,
            "connected": self.is_bot or self.connection is not None,
        }


class Table:
    """Four seats playing a match (one hand, N hands, or to a target).

    :param rules: the ruleset.
    :param players: four names, seat 0 first: :data:`PERSON` for a person,
        else a bot's name (:func:`gongzhu.bots.bot_names`).
    :param seed: the match's seed (each hand's deal derives from it; the bots
        of seat *s* get ``seed + 1 + s``); ``None`` for a random one.
    :param hands: end after this many hands (``None``: no limit).
    :param target: end when a total reaches ``±target``.
    :param bot_delay: seconds a bot waits before acting, so people can follow.
    :raises GongzhuError: for a bad player list or a match that cannot end.
    """

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        *,
        table_id: str | None = None,
        seed: int | None = None,
        hands: int | None = 1,
        target: int | None = None,
        bot_delay: float = 0.0,
    ) -> None:
        players = list(players)
        if len(players) != 4:
            raise GongzhuError(f"a table has four seats, not {len(players)}")
        unknown = [name for name in players if name != PERSON and name not in BOTS]
        if unknown:
            raise GongzhuError(
                f"no gongzhu bot named {unknown[0]!r}: a seat is {PERSON!r} or one of "
                f"{', '.join(sorted(BOTS))}"
            )
        if PERSON not in players:
            raise GongzhuError(f"a table needs at least one person ({PERSON!r}) at it")
        if hands is None and target is None and not rules.decides_match_end:
            raise GongzhuError(
                f"{' + '.join(rules.names)} matches have no end of their own: "
                "give a number of hands or a target"
            )
        self.id = table_id or secrets.token_hex(4)
        self.rules = rules
        self.bot_delay = bot_delay
        self.match: Match = rules.new_match(seed, target=target, hands=hands)
        self.seats = [
            Seat(
                index,
                name,
                None
                if name == PERSON
                else make_bot(name, None if seed is None else seed + 1 + index, rules=rules),
            )
            for index, name in enumerate(players)
        ]
        self.hand: HandState = self.match.new_hand()
        self.number = 1
        """The number of the hand under way (or just finished), from 1."""
        self._driver: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"<Table {self.id} {self.rules!r} hand {self.number}>"

    # -- what clients see ------------------------------------------------------------------

    def state(self, seat: int) -> dict[str, Any]:
        """The ``state`` message for ``seat``: its view of the hand and the table."""
        match = self.match
        over = self.hand.is_over
        return {
            "type": "state",
            "table": self.id,
            "seat": seat,
            "rules": self.rules.describe(),
            "seats": [s.describe() for s in self.seats],
            "number": self.number,
            **encode_view(self.hand.view(seat)),
            "sheet": encode_sheet(self.hand.score()) if over else None,
            "match": {
                "totals": list(match.totals),
                "hands": len(match.hands),
                "max_hands": match.max_hands,
                "target": match.target,
                "over": match.is_over,
                "losers": list(match.losers) if match.is_over else None,
            },
            "records": len(match.hands),
            "can_deal": over and not match.is_over,
        }

    def record(self, number: int) -> dict[str, Any]:
        """The record of finished hand ``number`` (from 1).

        :raises ProtocolError: ``no-record`` when that hand is not finished.
        """
        hands = self.match.hands
        if not 1 <= number <= len(hands):
            raise ProtocolError(
                "no-record", f"hand {number} is not finished ({len(hands)} finished so far)"
            )
        return hands[number - 1].to_record()

    def match_record(self) -> dict[str, Any]:
        """The match's record so far (:meth:`Match.to_record <gongzhu.match.Match.to_record>`)."""
        return self.match.to_record()

    # -- connections -------------------------------------------------------------------------

    async def connect(self, seat: int, connection: Connection, *, takeover: bool = False) -> None:
        """Seat a person's ``connection``, and send everyone the new state.

        :raises ProtocolError: ``bot-seat`` for a bot's seat; ``seat-taken``
            when the seat is connected elsewhere and ``takeover`` is false (with
            ``takeover`` the old connection is told and closed).
        """
        place = self.seats[seat]
        if place.is_bot:
            raise ProtocolError("bot-seat", f"seat {seat} is played by a bot")
        old = place.connection
        if old is not None and old is not connection:
            if not takeover:
                raise ProtocolError(
                    "seat-taken",
                    f"seat {seat} is already open in another window or tab: close it there, "
                    "or take the seat over",
                )
            place.connection = None
            await _quietly(
                old.send_json(
                    error_message("taken-over", f"seat {seat} was taken over from another window")
                )
            )
            await _quietly(old.close(4001, "taken over"))
        place.connection = connection
        await self.broadcast()
        self._start_bots()

    async def disconnect(self, seat: int, connection: Connection) -> None:
        """Forget ``connection`` (if it still holds ``seat``); tell the others."""
        place = self.seats[seat]
        if place.connection is connection:
            place.connection = None
            await self.broadcast()

    async def broadcast(self) -> None:
        """Send every connected seat its state; a connection that fails is dropped."""
        for place in self.seats:
            connection = place.connection
            if connection is None:
                continue
            try:
                await connection.send_json(self.state(place.index))
            except Exception:  # a closed socket mid-hand: the table goes on without it
                _log.debug("table %s: dropping seat %d's connection", self.id, place.index)
                if place.connection is connection:
                    place.connection = None

    # -- what clients do ---------------------------------------------------------------------

    async def handle(self, seat: int, message: ClientMessage) -> dict[str, Any] | None:
        """Carry out a client's message; return a reply for that client alone, if any.

        :raises ProtocolError: the message is refused (the table is unchanged).
        """
        if message.type == "ping":
            return {"type": "pong"}
        if message.type == "next":
            await self.deal_next()
            return None
        assert message.action is not None
        await self.act(seat, message.action, message.hand)
        return None

    async def act(self, seat: int, text: str, number: int | None = None) -> None:
        """Apply the action ``text`` for ``seat``, checked by the engine.

        :raises ProtocolError: ``stale-hand``, ``hand-over``, ``not-your-turn``,
            ``bad-action`` (unreadable) or ``illegal-action`` (with the engine's
            explanation, its ``rule`` and, for a card play, the ``refusal`` rule).
        """
        if number is not None and number != self.number:
            raise ProtocolError(
                "stale-hand", f"that action was for hand {number}; this is hand {self.number}"
            )
        hand = self.hand
        if hand.is_over:
            raise ProtocolError("hand-over", "the hand is over: deal the next hand")
        if hand.to_move != seat:
            raise ProtocolError(
                "not-your-turn", f"it is seat {hand.to_move}'s turn, not yours (seat {seat})"
            )
        try:
            action = parse_action(text)
        except InvalidCard as exc:
            raise ProtocolError("bad-action", str(exc)) from None
        self._apply(action)
        await self.broadcast()
        self._start_bots()

    async def deal_next(self) -> None:
        """Deal the next hand of the match.

        :raises ProtocolError: ``hand-not-over`` or ``match-over``.
        """
        if not self.hand.is_over:
            raise ProtocolError("hand-not-over", "the hand is still being played")
        if self.match.is_over:
            raise ProtocolError("match-over", "the match is over")
        self.hand = self.match.new_hand()
        self.number += 1
        await self.broadcast()
        self._start_bots()

    def _apply(self, action: Action) -> None:
        try:
            self.hand.apply(action)
        except IllegalAction as exc:
            refusal = getattr(exc.refusal, "rule", None)
            raise ProtocolError(
                "illegal-action", str(exc), rule=exc.rule, refusal=refusal
            ) from None
        if self.hand.is_over:
            self.match.record_hand(self.hand)

    # -- the bots ----------------------------------------------------------------------------

    def _bot_to_move(self) -> Seat | None:
        seat = self.hand.to_move
        return None if seat is None or not self.seats[seat].is_bot else self.seats[seat]

    def _start_bots(self) -> None:
        """Let the bots play their turns, unless they are already at it."""
        if self._bot_to_move() is None or (self._driver and not self._driver.done()):
            return
        self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        while (place := self._bot_to_move()) is not None:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            hand = self.hand
            view = hand.view(place.index)
            bot = place.bot
            assert bot is not None
            try:
                action = await asyncio.to_thread(bot.choose, view)
            except Exception:
                _log.exception("table %s: the %s bot failed", self.id, place.player)
                action = view.legal_actions[0]
            if hand is not self.hand or hand.to_move != place.index:
                continue  # the table moved on meanwhile
            try:
                self._apply(action)
            except ProtocolError as exc:
                _log.error("table %s: the %s bot: %s", self.id, place.player, exc.message)
                self._apply(view.legal_actions[0])
            await self.broadcast()

    async def wait_for_bots(self) -> None:
        """Wait until the bots have played every turn they have now (for tests)."""
        while self._driver is not None and not self._driver.done():
            await asyncio.shield(self._driver)

    async def close(self) -> None:
        """Stop the bots (when the server shuts down)."""
        if self._driver is not None:
            self._driver.cancel()


async def _quietly(step: Any) -> None:
    """Await ``step``, ignoring a connection that is already gone."""
    try:
        await step
    except Exception:
        _log.debug("ignoring a failure on a closed connection", exc_info=True)

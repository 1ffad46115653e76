"""A table: four seats (people or bots), the match under way, and who is connected.

The table is the referee.  People act through their seat's connection; the
table checks that it is their turn, hands the action to the engine (which
explains a refusal), plays the bots' turns itself and sends every connected
seat its own ``state`` message after each action.  It needs no web
framework: a connection is anything with ``send_json`` and ``close``
(:class:`~gongzhu.web.outbox.Connection`), as a Starlette websocket has.

All of a table's methods run on one event loop, and none waits for a client:
each connection has an :class:`~gongzhu.web.outbox.Outbox` that sends its
messages in order and drops a client that does not read them.  A bot thinks
in a worker process (:class:`~gongzhu.web.pool.Pool`) on its seat's view.

Every action, and each finished hand's record, is written to the table's
:class:`Journal` (the server's database, :mod:`gongzhu.web.store`) before the
seats are told of it, so a table can be rebuilt after a restart
(:meth:`Table.rebuild`): the match's seed gives the same deals, and the
actions replay exactly.

Nothing a seat is sent reveals a deal before the match is over: the
``state`` holds the seat's own view, and the records of finished hands are
given without their seeds (:func:`shareable`) until the match ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from ..actions import Action, parse_action
from ..bots import BOTS, TABLE_FORMATS
from ..errors import GongzhuError, IllegalAction, InvalidCard, InvalidRecord
from ..hand import HandState
from ..match import MATCH_FORMAT, Match
from ..rules import Rules
from .outbox import Connection, Outbox
from .pool import BotTurn, JobFailed, Pool, decision_seed
from .protocol import ClientMessage, ProtocolError, encode_sheet, encode_view, error_message
from .settings import Settings

__all__ = [
    "CLOSE_TABLE_CLOSED",
    "NEXT",
    "PERSON",
    "Connection",
    "Journal",
    "Seat",
    "Table",
    "encode_json",
    "shareable",
    "splice_hands",
]

PERSON: Final = "human"
"""The player name of a seat taken by a person (any other name is a bot's)."""

NEXT: Final = "next"
"""The journal's entry for dealing the next hand (its other entries are actions)."""

CLOSE_TABLE_CLOSED: Final = 4410
"""The close code sent to the seats of a table the server closes (finished or idle)."""

_log = logging.getLogger(__name__)


def shareable(record: Mapping[str, Any], match_over: bool) -> dict[str, Any]:
    """A hand or match record as a seat may have it: without seeds until the match is over.

    A finished hand's deal is no secret, but its seed, and the match's, come
    from the generator every later deal of the match comes from.

    >>> shareable({"format": "gongzhu-hand/1", "seed": 5}, match_over=False)["seed"] is None
    True
    """
    if match_over:
        return dict(record)
    shared = {**record, "seed": None}
    if record.get("format") == MATCH_FORMAT:
        shared["hands"] = [{**hand, "seed": None} for hand in record.get("hands", ())]
    return shared


def encode_json(data: Any) -> bytes:
    """``data`` as compact JSON (UTF-8), as the server's JSON responses are written."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def splice_hands(head: Mapping[str, Any], hands: Sequence[bytes]) -> bytes:
    """A match record's JSON from the rest of it (``head``) and its hands' JSON.

    >>> splice_hands({"format": "m", "hands": [], "totals": [1]}, [b'{"n":1}', b'{"n":2}'])
    b'{"format":"m","totals":[1],"hands":[{"n":1},{"n":2}]}'
    """
    rest = encode_json({**{k: v for k, v in head.items() if k != "hands"}, "hands": None})
    tail = b'"hands":null}'
    assert rest.endswith(tail)
    return rest[: -len(tail)] + b'"hands":[' + b",".join(hands) + b"]}"


class Journal(Protocol):
    """Where a table writes what happens at it (the server's database)."""

    def step(
        self,
        table: Table,
        seat: int | None,
        action: str,
        *,
        record: Mapping[str, Any] | None = None,
        match: Mapping[str, Any] | None = None,
        step: int | None = None,
        hand: int | None = None,
        at: float | None = None,
    ) -> None:
        """Step number ``step`` of ``table``, in hand ``hand``, taken at ``at``: an
        action of ``seat``, or :data:`NEXT`; with the record of the hand it
        finished, and the match's record when it finished the match.  Writing a
        step already written changes nothing."""

    def close_table(self, table: Table) -> None:
        """The server closed ``table`` (finished or idle for too long)."""

    def join(self, table: Table) -> None:
        """A person connected to ``table`` for the first time (:attr:`Table.joined`), so a
        restart does not take it for a table nobody joined."""


class Seat:
    """One seat of a table.

    :ivar index: the seat, 0-3.
    :ivar player: :data:`PERSON`, or the name of the bot that plays it.
    :ivar token: the secret in the seat's link.
    :ivar link: the outbox of the person's live connection, if any.
    :ivar page: the page that connection says it comes from (its ``client``), if any.
    """

    def __init__(self, index: int, player: str, token: str | None = None) -> None:
        self.index = index
        self.player = player
        self.token = token or secrets.token_urlsafe(16)
        self.link: Outbox | None = None
        self.page: str | None = None

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays this seat."""
        return self.player != PERSON

    @property
    def connection(self) -> Connection | None:
        """The person's live connection, if any."""
        return None if self.link is None else self.link.connection

    def describe(self) -> dict[str, Any]:
        """The seat as every client sees it: who plays it and whether they are here."""
        return {
            "seat": self.index,
            "player": "bot" if self.is_bot else PERSON,
            "bot": self.player if self.is_bot else None,
            "connected": self.is_bot or self.link is not None,
        }


class Table:
    """Four seats playing a match (one hand, N hands, or to a target).

    :param rules: the ruleset.
    :param players: four names, seat 0 first: :data:`PERSON` for a person,
        else a bot's name (:func:`gongzhu.bots.bot_names`, or one of
        :attr:`Settings.bots <gongzhu.web.settings.Settings.bots>`).
    :param seed: the match's seed (each hand's deal derives from it, and each
        bot decision's seed, :func:`~gongzhu.web.pool.decision_seed`); ``None``
        for a random one.
    :param hands: end after this many hands (``None``: no limit).
    :param target: end when a total reaches ``±target``.
    :param bot_delay: seconds a bot waits before acting, so people can follow
        (default: the settings').
    :param settings: the server's settings (send queues, bots).
    :param pool: where the bots think (default: threads of this process).
    :param journal: where every step is written (default: nowhere).
    :param tokens: the seats' link tokens, for a table rebuilt after a restart.
    :param client: the address of the client that opened the table.
    :param format: the table's format (:data:`~gongzhu.bots.TABLE_FORMATS`): ``"solo"``
        (the default: each seat for itself) or ``"2v2"`` (partners opposite), told to
        every bot at each decision (:func:`~gongzhu.bots.tell_format`).
    :raises GongzhuError: for a bad player list or format, or a match that cannot end.
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
        bot_delay: float | None = None,
        settings: Settings | None = None,
        pool: Pool | None = None,
        journal: Journal | None = None,
        tokens: Sequence[str] | None = None,
        client: str | None = None,
        format: str = "solo",
    ) -> None:
        settings = settings if settings is not None else Settings()
        if format not in TABLE_FORMATS:
            raise GongzhuError(
                f"a table's format is one of {', '.join(TABLE_FORMATS)}, not {format!r}"
            )
        players = list(players)
        if len(players) != 4:
            raise GongzhuError(f"a table has four seats, not {len(players)}")
        unknown = [
            name
            for name in players
            if not isinstance(name, str)
            or (name != PERSON and name not in BOTS and name not in settings.bots)
        ]
        if unknown:
            raise GongzhuError(
                f"no gongzhu bot named {unknown[0]!r}: a seat is {PERSON!r} or one of "
                f"{', '.join(sorted({*BOTS, *settings.bots}))}"
            )
        if PERSON not in players:
            raise GongzhuError(f"a table needs at least one person ({PERSON!r}) at it")
        if hands is None and target is None and not rules.decides_match_end:
            raise GongzhuError(
                f"{' + '.join(rules.names)} matches have no end of their own: "
                "give a number of hands or a target"
            )
        if tokens is not None and len(tokens) != 4:
            raise GongzhuError("a table has four seat tokens")
        self.id = table_id or secrets.token_hex(4)
        self.rules = rules
        self.settings = settings
        self.bot_delay = settings.bot_delay if bot_delay is None else bot_delay
        self.pool = pool if pool is not None else Pool(0, bots=settings.bots)
        self.journal = journal
        self.client = client
        self.format = format
        """The table's format, ``"solo"`` or ``"2v2"``: what its bots are told."""
        self.match: Match = rules.new_match(seed, target=target, hands=hands)
        self.seats = [
            Seat(index, name, None if tokens is None else tokens[index])
            for index, name in enumerate(players)
        ]
        self.hand: HandState = self.match.new_hand()
        self._deal_text = tuple(str(card) for card in self.hand.deal.order)
        self._actions: list[str] = []
        """The current hand's actions, as text (as in its record)."""
        self.number = 1
        """The number of the hand under way (or just finished), from 1."""
        self.steps = 0
        """How many steps were taken: actions, and deals of a next hand."""
        self.records: list[dict[str, Any]] = []
        """The full records of the finished hands (with their seeds: not for the seats)."""
        self.created = self.updated = time.time()
        """When the table was opened, and when something last happened at it (``time.time()``)."""
        self.finished: float | None = None
        """When the match ended, if it did."""
        self.joined = False
        """Whether a person has ever connected to the table (or it has taken a step)."""
        self.closed = False
        self._driver: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.moved = self.created
        """When the table's last step was taken (or it was opened): a person's turn
        counts from it (:attr:`Settings.turn_timeout
        <gongzhu.web.settings.Settings.turn_timeout>`)."""
        self._hands_json: dict[bool, list[bytes]] = {False: [], True: []}
        self.unwritten: list[dict[str, Any]] = []
        """Steps the journal could not write yet (a full disk), oldest first: they are
        written, in order, before any later one, so the journal never has a gap."""
        self._said_unwritten = False

    def __repr__(self) -> str:
        return f"<Table {self.id} {self.rules!r} hand {self.number}>"

    @property
    def players(self) -> list[str]:
        """The four players' names, seat 0 first."""
        return [seat.player for seat in self.seats]

    @property
    def is_over(self) -> bool:
        """Whether the match is over."""
        return self.match.is_over

    @property
    def waits_for_person(self) -> bool:
        """Whether the match waits for a person: to act, or to deal the next hand."""
        if self.match.is_over:
            return False
        if self.hand.is_over:
            return True
        seat = self.hand.to_move
        return seat is not None and not self.seats[seat].is_bot

    @property
    def people_connected(self) -> int:
        """How many people are connected."""
        return sum(seat.link is not None for seat in self.seats)

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
            "format": self.format,
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
        """The record of finished hand ``number`` (from 1), as a seat may have it
        (:func:`shareable`: without its seed until the match is over).

        :raises ProtocolError: ``no-record`` when that hand is not finished.
        """
        records = self.records
        if not 1 <= number <= len(records):
            raise ProtocolError(
                "no-record", f"hand {number} is not finished ({len(records)} finished so far)"
            )
        return shareable(records[number - 1], self.match.is_over)

    def match_record(self) -> dict[str, Any]:
        """The match's record so far, as a seat may have it (:func:`shareable`)."""
        return shareable(self.full_match_record(), self.match.is_over)

    def match_json(self) -> bytes:
        """:meth:`match_record` as JSON, made from each finished hand's JSON, kept once
        made: a download of a long match costs the joining of its hands, not their
        encoding on the server's event loop each time."""
        over = self.match.is_over
        made = self._hands_json[over]
        while len(made) < len(self.records):
            made.append(encode_json(shareable(self.records[len(made)], over)))
        head = shareable({**self.full_match_record(), "hands": []}, over)
        return splice_hands(head, made)

    def full_match_record(self) -> dict[str, Any]:
        """The match's record so far, seeds included (what
        :func:`gongzhu.record.match_record` writes, from the records kept)."""
        match = self.match
        return {
            "format": MATCH_FORMAT,
            "rules": self.rules.spec(),
            "seed": match.seed,
            "target": match.target,
            "max_hands": match.max_hands,
            "hands": list(self.records),
            "totals": list(match.totals),
            "losers": list(match.losers) if match.is_over else None,
        }

    # -- connections -------------------------------------------------------------------------

    async def connect(
        self,
        seat: int,
        connection: Connection,
        *,
        takeover: bool = False,
        page: str | None = None,
    ) -> None:
        """Seat a person's ``connection``, and send everyone the new state.

        :param takeover: take the seat from another connection (which is told).
        :param page: the id of the page connecting (its ``client``): a page
            that reconnects while its old connection still holds the seat (a
            network change) takes the seat back without asking.
        :raises ProtocolError: ``bot-seat`` for a bot's seat; ``seat-taken``
            when the seat is connected elsewhere and ``takeover`` is false (with
            ``takeover`` the old connection is told and closed); ``table-closed``.
        """
        if self.closed:
            raise ProtocolError("table-closed", "this table is closed")
        place = self.seats[seat]
        if place.is_bot:
            raise ProtocolError("bot-seat", f"seat {seat} is played by a bot")
        old = place.link
        if old is not None and old.connection is not connection:
            same_page = page is not None and page == place.page
            if not (takeover or same_page):
                raise ProtocolError(
                    "seat-taken",
                    f"seat {seat} is already open in another window or tab: close it there, "
                    "or take the seat over",
                )
            place.link = None
            last = (
                None
                if same_page
                else error_message("taken-over", f"seat {seat} was taken over from another window")
            )
            self._background(old.close(4001, "taken over", last=last))
        place.link = Outbox(
            connection,
            limit=self.settings.send_queue,
            timeout=self.settings.send_timeout,
            on_drop=lambda box: self._dropped(seat, box),
            state=lambda: self.state(seat),
        )
        place.page = page
        self.updated = time.time()
        if not self.joined:
            self.joined = True
            self._write_join()
        self.broadcast()
        self._start_bots()

    async def disconnect(self, seat: int, connection: Connection) -> None:
        """Forget ``connection`` (if it still holds ``seat``); tell the others."""
        place = self.seats[seat]
        if place.link is not None and place.link.connection is connection:
            place.link.forget()
            place.link = None
            place.page = None
            self.updated = time.time()
            self.broadcast()

    def holds(self, seat: int, connection: Connection) -> bool:
        """Whether ``connection`` holds ``seat``."""
        link = self.seats[seat].link
        return link is not None and link.connection is connection

    def reply(self, seat: int, connection: Connection, message: dict[str, Any]) -> None:
        """Send ``message`` to ``seat`` alone, if ``connection`` still holds it."""
        link = self.seats[seat].link
        if link is not None and link.connection is connection:
            link.put(message)

    def broadcast(self) -> None:
        """Queue every connected seat's state, made when it is sent (the latest then);
        a seat that does not read is dropped."""
        for place in self.seats:
            if place.link is not None:
                place.link.put_state()

    async def kick(
        self,
        seat: int,
        connection: Connection,
        code: int,
        reason: str,
        last: dict[str, Any] | None = None,
    ) -> None:
        """Close ``connection`` (if it still holds ``seat``) with ``code``, after sending it
        ``last`` (the messages waiting are not sent); tell the others it went."""
        place = self.seats[seat]
        link = place.link
        if link is None or link.connection is not connection:
            return
        place.link = None
        place.page = None
        self.broadcast()
        await link.close(code, reason, last=last)

    def _dropped(self, seat: int, box: Outbox) -> None:
        place = self.seats[seat]
        if place.link is box:
            _log.info("table %s: seat %d dropped (%s)", self.id, seat, box.dropped)
            place.link = None
            place.page = None
            self.broadcast()

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
        self._apply(seat, action)
        self.broadcast()
        self._start_bots()

    async def deal_next(self) -> None:
        """Deal the next hand of the match.

        :raises ProtocolError: ``hand-not-over`` or ``match-over``.
        """
        self._deal()
        self.broadcast()
        self._start_bots()

    def _deal(self) -> None:
        if not self.hand.is_over:
            raise ProtocolError("hand-not-over", "the hand is still being played")
        if self.match.is_over:
            raise ProtocolError("match-over", "the match is over")
        self.hand = self.match.new_hand()
        self._deal_text = tuple(str(card) for card in self.hand.deal.order)
        self._actions = []
        self.number += 1
        self.steps += 1
        self.updated = self.moved = time.time()
        self._write(None, NEXT)

    def _apply(self, seat: int, action: Action) -> None:
        try:
            self.hand.apply(action)
        except IllegalAction as exc:
            refusal = getattr(exc.refusal, "rule", None)
            raise ProtocolError(
                "illegal-action", str(exc), rule=exc.rule, refusal=refusal
            ) from None
        text = str(action)
        self._actions.append(text)
        self.steps += 1
        self.updated = self.moved = time.time()
        record = match = None
        if self.hand.is_over:
            self.match.record_hand(self.hand)
            record = self.hand.to_record()
            self.records.append(record)
            if self.match.is_over:
                self.finished = self.updated
                match = self.full_match_record()
        self._write(seat, text, record, match)

    def _write(
        self,
        seat: int | None,
        text: str,
        record: Mapping[str, Any] | None = None,
        match: Mapping[str, Any] | None = None,
    ) -> None:
        """Write a step to the journal, after those it could not take yet; if it cannot
        be written (a full disk), keep it to write later (:meth:`flush_journal`), say
        so and play on."""
        if self.journal is None:
            return
        self.unwritten.append(
            {
                "seat": seat,
                "action": text,
                "record": record,
                "match": match,
                "step": self.steps,
                "hand": self.number,
                "at": self.updated,
            }
        )
        self.flush_journal()

    def flush_journal(self) -> bool:
        """Write the steps the journal could not take yet, oldest first, stopping at the
        first that fails; whether none is left.  The server retries at every step
        and every sweep, so a disk full for a while loses nothing but what a
        restart during that while would."""
        journal = self.journal
        if journal is None or not self.unwritten:
            return True
        pending = self.unwritten
        while pending:
            entry = pending[0]
            try:
                journal.step(
                    self,
                    entry["seat"],
                    entry["action"],
                    record=entry["record"],
                    match=entry["match"],
                    step=entry["step"],
                    hand=entry["hand"],
                    at=entry["at"],
                )
            except Exception as exc:
                if not self._said_unwritten:
                    _log.error(
                        "table %s: step %d could not be written, %d waiting "
                        "(the table plays on; they are written when the database can be): %s",
                        self.id,
                        entry["step"],
                        len(pending),
                        exc,
                    )
                    self._said_unwritten = True
                return False
            pending.pop(0)
        if self._said_unwritten:
            _log.warning("table %s: the steps waiting are written", self.id)
            self._said_unwritten = False
        return True

    def _write_join(self) -> None:
        """Write the first join to the journal; if it cannot be (a full disk), play on."""
        if self.journal is None:
            return
        try:
            self.journal.join(self)
        except Exception as exc:
            _log.warning("table %s: the first join could not be written: %s", self.id, exc)

    # -- a restart -------------------------------------------------------------------------

    def replay_steps(self, steps: Sequence[tuple[int | None, str]]) -> None:
        """Take ``steps`` again, ``(seat, action)`` or ``(None, NEXT)``, as after a restart.

        Nothing is written to the journal, and nobody is told.

        :raises InvalidRecord: a step the table refuses (naming it).
        """
        journal, self.journal = self.journal, None
        try:
            for index, (seat, text) in enumerate(steps):
                try:
                    if text == NEXT:
                        self._deal()
                        continue
                    if seat is None or seat != self.hand.to_move:
                        raise InvalidRecord(
                            f"step by seat {seat}, but seat {self.hand.to_move} is to move"
                        )
                    self._apply(seat, parse_action(text))
                except (ProtocolError, InvalidCard) as exc:
                    raise InvalidRecord(f"table {self.id}, step {index}: {exc}") from None
                except InvalidRecord as exc:
                    raise InvalidRecord(f"table {self.id}, step {index}: {exc}") from None
        finally:
            self.journal = journal

    # -- the bots ----------------------------------------------------------------------------

    def _bot_to_move(self) -> Seat | None:
        seat = self.hand.to_move
        return None if seat is None or not self.seats[seat].is_bot else self.seats[seat]

    def _start_bots(self) -> None:
        """Let the bots play their turns, unless they are already at it."""
        if self.closed or self._bot_to_move() is None or (self._driver and not self._driver.done()):
            return
        self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        while (place := self._bot_to_move()) is not None and not self.closed:
            # The bot thinks during its delay, and its action is taken when both are over:
            # a quick decision (one legal card) is not told by a quicker answer.
            pause = asyncio.sleep(self.bot_delay) if self.bot_delay else None
            hand = self.hand
            step = len(self._actions)
            turn = BotTurn(
                place.player,
                decision_seed(self.match.seed, place.index, self.number, step),
                place.index,
                (self.id, self.number),
                self._deal_text,
                hand.deal.first_seat,
                hand.explicit_leader,
                tuple(self._actions),
                self.format,
            )
            action: Action | None
            try:
                if pause is None:
                    chosen = await self.pool.choose(self.rules, turn)
                else:
                    chosen, _ = await asyncio.gather(self.pool.choose(self.rules, turn), pause)
                action = parse_action(chosen)
            except (JobFailed, InvalidCard) as exc:
                _log.error("table %s: the %s bot: %s", self.id, place.player, exc)
                action = None
            if self.closed or hand is not self.hand or len(self._actions) != step:
                continue  # the table moved on meanwhile
            fallback = hand.legal_actions()[0]
            try:
                self._apply(place.index, fallback if action is None else action)
            except ProtocolError as exc:
                _log.error("table %s: the %s bot: %s", self.id, place.player, exc.message)
                self._apply(place.index, fallback)
            self.broadcast()

    async def wait_for_bots(self) -> None:
        """Wait until the bots have played every turn they have now (for tests)."""
        while self._driver is not None and not self._driver.done():
            await asyncio.shield(self._driver)

    def _background(self, step: Any) -> None:
        task = asyncio.get_running_loop().create_task(step)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, *, evicted: bool = False) -> None:
        """Stop the bots; with ``evicted``, tell the connected seats the table is closed
        and close their connections (the server closed the table)."""
        self.closed = True
        if self._driver is not None:
            self._driver.cancel()
        if evicted:
            last = error_message("table-closed", "this table is closed: the server keeps no more")
            for place in self.seats:
                if place.link is not None:
                    link, place.link = place.link, None
                    await link.close(CLOSE_TABLE_CLOSED, "table closed", last=last)

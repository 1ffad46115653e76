"""What the server sends one connection: a bounded queue and the task that sends it.

A table never waits for a client: it puts each message in the client's
:class:`Outbox` and goes on, and the outbox's own task sends them, one at a
time, each within a time limit.  A client that does not read its socket
(its sends stall past the limit, or more than the queue's limit of messages
pile up) is dropped: the outbox calls its ``on_drop`` and closes the
connection; the table goes on without that seat.  A newer ``state``
message replaces one still waiting (each holds all the seat may know), so a
slow reader gets the latest state rather than every one; a ``pong`` is not
queued while another waits (one answer to a burst of pings), nor an error
while the same one waits (one answer to a burst of the same refused message).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Final, Protocol

__all__ = ["CLOSE_TOO_SLOW", "Connection", "Outbox"]

CLOSE_TOO_SLOW: Final = 4408
"""The close code of a connection dropped because it does not read its messages."""

_CLOSE_WAIT: Final = 2.0
"""Seconds to wait for a dropped connection's close (the server aborts one that does not drain)."""

_log = logging.getLogger(__name__)

_STATE: Final[dict[str, Any]] = {"type": "state"}
"""In the queue: the seat's latest state, made when it is sent (:meth:`Outbox.put_state`)."""

_TASKS: set[asyncio.Task[None]] = set()
"""The outboxes' tasks, and those closing dropped connections (kept until done)."""


class Connection(Protocol):
    """One client's link to its seat (a Starlette ``WebSocket`` is one)."""

    async def send_json(self, data: Any) -> None:
        """Send one JSON message."""

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the link."""


class Outbox:
    """The messages waiting for one connection, sent in order by a task of their own.

    Made on a running event loop.

    :param connection: where the messages go.
    :param limit: messages waiting at most; one more drops the connection.
    :param timeout: seconds one send may take; a longer one drops the connection.
    :param on_drop: called once when the connection is dropped (a stalled or
        failed send, or a full queue), not when it is closed by :meth:`close`.
    """

    def __init__(
        self,
        connection: Connection,
        *,
        limit: int = 32,
        timeout: float = 10.0,
        on_drop: Callable[[Outbox], None] | None = None,
        state: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.connection = connection
        self.limit = limit
        self.timeout = timeout
        self.on_drop = on_drop
        self.state = state
        """Makes the seat's latest ``state`` message, for :meth:`put_state`."""
        self._state_waiting = False
        self.closed = False
        """Whether nothing more is sent: dropped, or closed."""
        self.dropped: str | None = None
        """Why the connection was dropped (``"stalled"``, ``"full"``, ``"failed"``), if it was."""
        self._queue: deque[dict[str, Any]] = deque()
        self._ready = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._send_all())
        _TASKS.add(self._task)
        self._task.add_done_callback(_TASKS.discard)

    def __len__(self) -> int:
        return len(self._queue)

    def put(self, message: dict[str, Any]) -> bool:
        """Queue ``message``; ``False`` if the connection is closed or was just dropped."""
        if self.closed:
            return False
        queue = self._queue
        kind = message.get("type")
        if kind == "pong" and any(waiting.get("type") == "pong" for waiting in queue):
            return True  # one answer to a burst of pings
        if kind == "error" and message in queue:
            return True  # one answer to a burst of the same refused message
        if kind == "state":
            for index, waiting in enumerate(queue):
                if waiting.get("type") == "state" and waiting is not _STATE:
                    del queue[index]
                    break
        if len(queue) >= self.limit:
            self._drop("full")
            return False
        queue.append(message)
        self._ready.set()
        return True

    def put_state(self) -> bool:
        """Queue the seat's latest state, made by :attr:`state` when its turn to be sent
        comes (so a state waiting is not made twice, and is the latest when sent);
        ``False`` if the connection is closed or was just dropped."""
        if self.closed:
            return False
        if self._state_waiting:
            return True
        if len(self._queue) >= self.limit:
            self._drop("full")
            return False
        self._queue.append(_STATE)
        self._state_waiting = True
        self._ready.set()
        return True

    async def _send_all(self) -> None:
        queue = self._queue
        while True:
            while not queue and not self.closed:
                self._ready.clear()
                await self._ready.wait()
            if self.closed:  # closed by close(): the send under way, if any, is done
                return
            message = queue.popleft()
            if message is _STATE:
                self._state_waiting = False
                try:
                    assert self.state is not None
                    message = self.state()
                except Exception:  # a bug: this state is not sent, the connection stays
                    _log.exception("making a state message")
                    continue
            try:  # asyncio.timeout, not wait_for: that can swallow a cancellation (3.11)
                async with asyncio.timeout(self.timeout):
                    await self.connection.send_json(message)
            except TimeoutError:
                self._drop("stalled")
                return
            except Exception:  # the socket is gone
                self._drop("failed")
                return

    def _drop(self, why: str) -> None:
        if self.closed:
            return
        self.dropped = why
        _log.info("dropping a connection: %s", why)
        self._finish()
        closing = asyncio.get_running_loop().create_task(
            self._close_connection(CLOSE_TOO_SLOW, "messages not read")
        )
        _TASKS.add(closing)
        closing.add_done_callback(_TASKS.discard)
        if self.on_drop is not None:
            self.on_drop(self)

    def _finish(self, cancel: bool = True) -> None:
        self.closed = True
        self._queue.clear()
        self._state_waiting = False
        self._ready.set()  # a task waiting for a message wakes and ends
        if cancel and self._task is not asyncio.current_task():
            self._task.cancel()

    async def _end_sending(self) -> None:
        """Let the send under way end (within the time limit), so that nothing more is
        written on the connection by the outbox's task; cancel it past the limit."""
        task = self._task
        if task is asyncio.current_task() or task.done():
            return
        done, _ = await asyncio.wait({task}, timeout=min(self.timeout, _CLOSE_WAIT))
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=_CLOSE_WAIT)  # (raises nothing here)

    async def _close_connection(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(_CLOSE_WAIT):
                await self.connection.close(code, reason)

    async def close(
        self, code: int = 1000, reason: str = "", *, last: dict[str, Any] | None = None
    ) -> None:
        """Stop sending; send ``last`` (within the time limit) and close the connection.

        A message being sent is sent to its end first (within the time limit): a send cut
        off half way would leave the connection with half a message, and ``last`` and the
        close frame written after it would not be read as such."""
        if self.closed:
            return
        self._finish(cancel=False)
        await self._end_sending()
        if last is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(min(self.timeout, _CLOSE_WAIT)):
                    await self.connection.send_json(last)
        await self._close_connection(code, reason)

    def forget(self) -> None:
        """Stop sending, leaving the connection as it is (its client went away)."""
        if not self.closed:
            self._finish()

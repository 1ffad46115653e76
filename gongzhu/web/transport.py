"""uvicorn's HTTP and websocket protocols, with the two limits uvicorn lacks.

- :class:`HeaderTimeoutH11Protocol`: a client has
  :attr:`Settings.header_timeout <gongzhu.web.settings.Settings.header_timeout>`
  seconds to send a request's headers (uvicorn waits forever for a
  half-sent request; its keep-alive timeout starts only after a response);
  the headers are at most ``max_header_bytes`` bytes however they arrive
  (h11's own limit holds only for headers that come in pieces: 431); and a
  connection past :attr:`Settings.max_connections
  <gongzhu.web.settings.Settings.max_connections>` is answered 503 and closed
  at once, so its file is free again (uvicorn's ``limit_concurrency`` keeps
  the connection open, and lets websockets by);
- :class:`AbortingWebSocketProtocol`: a websocket closed (by the
  application, or when it returns), or timed out by the keep-alive ping,
  while its client does not read is aborted at once (uvicorn's close waits
  for the socket's buffer to drain, which a client that does not read never
  lets happen); one whose buffer is still not empty a close timeout later is
  aborted then.  It also answers the client's ping frames with care: uvicorn
  writes a pong for every ping, read or not, so a client that pings and never
  reads grew the server's memory without bound; here a connection whose
  unsent data passes :data:`PONG_BUFFER` bytes, or that pings more than
  :data:`PING_RATE` times a second (:data:`PING_BURST` at once), is closed
  (1008, or aborted when it does not read).

Imported only when serving (it needs uvicorn): :func:`protocols` makes the
two classes for a server's settings.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Final, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .limits import Bucket

__all__ = [
    "AFTER_CLOSE",
    "PING_BURST",
    "PING_RATE",
    "PONG_BUFFER",
    "AbortingWebSocketProtocol",
    "AcceptErrors",
    "HeaderTimeoutH11Protocol",
    "protocols",
    "quiet_accept_errors",
]

PONG_BUFFER: Final = 64 * 1024
"""Bytes a websocket's unsent data may reach when a ping comes; past it, the connection
is aborted (its client does not read)."""

PING_RATE: Final = 5.0
"""Ping frames a websocket client may send a second, on average."""

PING_BURST: Final = 20
"""Ping frames a websocket client may send at once."""

AFTER_CLOSE: Final = 16
"""Messages a client may send after the server closed its websocket (before it has
read the close): past them, nothing more is read from it, and a client that does
not read either is cut at once."""

_log = logging.getLogger("gongzhu.web")

_BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 5\r\nconnection: close\r\ncontent-length: 40\r\n"
    b"x-content-type-options: nosniff\r\n\r\n"
    b"the server has too many connections now\n"
)

_HEADERS_TOO_LARGE: Final = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\nconnection: close\r\ncontent-length: 33\r\n"
    b"x-content-type-options: nosniff\r\n\r\n"
    b"the request's headers are too big"
)


class _Once:
    """Says a thing in the log at most once a minute, with how often it happened since."""

    def __init__(self, every: float = 60.0) -> None:
        self.every = every
        self.last = -float("inf")
        self.count = 0

    def say(self, message: str) -> None:
        now = time.monotonic()
        if now - self.last >= self.every:
            more = f" ({self.count} more times since it was last said)" if self.count else ""
            _log.warning("%s%s", message, more)
            self.last = now
            self.count = 0
        else:
            self.count += 1


_REFUSED = _Once()
_ACCEPT_FAILED = _Once()


class AcceptErrors(logging.Filter):
    """On asyncio's logger: an ``accept()`` that fails for want of files (``EMFILE``) is
    one line a minute at most, not a traceback per attempt (which filled a disk); any
    other error asyncio logs is one line too (its exception, without the traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if str(record.msg).startswith("socket.accept() out of system resource"):
            why = getattr(error, "strerror", None) or error or "no file left"
            _ACCEPT_FAILED.say(f"connections cannot be accepted now: {why}")
            return False
        if "_start_serving" in str(record.msg) and isinstance(error, ValueError):
            return False  # a retry of accept() after the listening socket was closed: stopping
        if error is not None:
            said = record.getMessage().splitlines()[0][:200]
            record.msg = f"{said}: {type(error).__name__}: {error}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


def quiet_accept_errors() -> None:
    """Put :class:`AcceptErrors` on asyncio's logger (once)."""
    log = logging.getLogger("asyncio")
    if not any(isinstance(found, AcceptErrors) for found in log.filters):
        log.addFilter(AcceptErrors())


class HeaderTimeoutH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers do not
    arrive within :attr:`header_timeout` seconds of its first byte (or of the
    connection, for a client that sends nothing)."""

    header_timeout: float = 10.0
    max_connections: int = 1000
    max_header_bytes: int = 16 * 1024

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(cast(asyncio.Transport, transport))
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        if len(self.connections) > self.max_connections:
            _REFUSED.say(
                f"a connection was refused: {self.max_connections} connections are open "
                "(--max-connections)"
            )
            self.transport.write(_BUSY)
            self.transport.close()
            return
        self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        if getattr(self, "_header_timer", None) is None:
            self._header_timer = self.loop.call_later(self.header_timeout, self._header_timed_out)

    def _disarm_header_timer(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.IDLE:
            end = data.find(b"\r\n\r\n")
            size = self._header_bytes + (len(data) if end < 0 else end + 4)
            if size > self.max_header_bytes:
                self._disarm_header_timer()
                self.transport.write(_HEADERS_TOO_LARGE)
                self.transport.close()
                return
            self._header_bytes = size if end < 0 else 0
        else:
            self._header_bytes = 0
        super().data_received(data)
        if self.transport.is_closing():
            self._disarm_header_timer()
        elif self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # a request has begun, or is yet to: its headers are due
        else:
            self._disarm_header_timer()  # the headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm_header_timer()  # the keep-alive timeout watches an idle connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


class AbortingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol, aborting a socket whose client does not read
    when the application closes it, or when the keep-alive ping times out."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._pings = Bucket(PING_RATE, PING_BURST)
        self._after_close = 0

    def send_receive_event_to_app(self) -> None:
        if self.close_sent:  # uvicorn reads on until the client answers the close, and drops
            self._after_close += 1  # what it reads: a client that floods on is stopped
            if self._after_close > AFTER_CLOSE:
                self.frames = []
                if self._stalled():
                    self.transport.abort()  # it does not read either: cut
                elif not self.read_paused:
                    # it reads: it gets the close frame (an abort now could lose it in
                    # its socket), and nothing more of it is read; the close timer ends it
                    self.read_paused = True
                    self.transport.pause_reading()
                return
        super().send_receive_event_to_app()

    def handle_ping(self) -> None:
        if self.transport.is_closing():
            self.conn.data_to_send()  # the pong is not sent
            return
        if self.transport.get_write_buffer_size() >= PONG_BUFFER:
            self.conn.data_to_send()
            self.transport.abort()  # it pings and does not read
            return
        if not self._pings.take():
            self.conn.data_to_send()
            if not self.close_sent:
                self.conn.fail(1008, "too many pings")
                self.transport.write(b"".join(self.conn.data_to_send()))
                self.close_sent = True
                self.queue.put_nowait({"type": "websocket.disconnect", "code": 1008})
            self.transport.close()
            self.loop.call_later(self.close_timeout, self.transport.abort)
            return
        super().handle_ping()

    def _stalled(self) -> bool:
        return not self.writable.is_set() or self.transport.get_write_buffer_size() > 0

    async def send(self, message: Any) -> None:
        if (
            message.get("type") == "websocket.close"
            and self.handshake_complete
            and not self.writable.is_set()
        ):
            # the client does not read: nothing more will reach it (and a transport
            # already closing would wait for ever to flush its buffer)
            self.transport.abort()
            return
        await super().send(message)
        if self.close_timer is not None and message.get("type") == "websocket.close":
            self.close_timer.cancel()
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)

    async def run_asgi(self) -> None:
        await super().run_asgi()
        # The application returned and uvicorn closed the transport, which waits until
        # its buffer is flushed: never, for a client that does not read.
        if self.transport.is_closing():
            if not self.writable.is_set():
                self.transport.abort()
            elif self.transport.get_write_buffer_size():
                self.loop.call_later(self.close_timeout, self.transport.abort)

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        if self._stalled():
            self.transport.abort()


def protocols(
    header_timeout: float, max_connections: int = 1000, max_header_bytes: int = 16 * 1024
) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """The HTTP and websocket protocol classes for uvicorn's ``http`` and ``ws`` settings."""
    http = type(
        "HeaderTimeoutH11Protocol",
        (HeaderTimeoutH11Protocol,),
        {
            "header_timeout": header_timeout,
            "max_connections": max_connections,
            "max_header_bytes": max_header_bytes,
            "__module__": __name__,
        },
    )
    return http, AbortingWebSocketProtocol

"""uvicorn's HTTP and websocket protocols, with the two limits uvicorn lacks.

- :class:`HeaderTimeoutH11Protocol`: a client has
  :attr:`Settings.header_timeout <gongzhu.web.settings.Settings.header_timeout>`
  seconds to send a request's headers (uvicorn waits forever for a
  half-sent request; its keep-alive timeout starts only after a response);
- :class:`AbortingWebSocketProtocol`: a websocket closed (by the
  application, or when it returns), or timed out by the keep-alive ping,
  while its client does not read is aborted at once (uvicorn's close waits
  for the socket's buffer to drain, which a client that does not read never
  lets happen); one whose buffer is still not empty a close timeout later is
  aborted then.

Imported only when serving (it needs uvicorn): :func:`protocols` makes the
two classes for a server's settings.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["AbortingWebSocketProtocol", "HeaderTimeoutH11Protocol", "protocols"]


class HeaderTimeoutH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers do not
    arrive within :attr:`header_timeout` seconds of its first byte (or of the
    connection, for a client that sends nothing)."""

    header_timeout: float = 10.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(cast(asyncio.Transport, transport))
        self._header_timer: asyncio.TimerHandle | None = None
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


def protocols(header_timeout: float) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """The HTTP and websocket protocol classes for uvicorn's ``http`` and ``ws`` settings."""
    http = type(
        "HeaderTimeoutH11Protocol",
        (HeaderTimeoutH11Protocol,),
        {"header_timeout": header_timeout, "__module__": __name__},
    )
    return http, AbortingWebSocketProtocol

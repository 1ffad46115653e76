"""Rate limits: token buckets per connection and per client, on an injectable clock.

A :class:`Bucket` holds up to ``burst`` tokens and gains ``rate`` of them a
second; each message (or request) takes one.  A client whose bucket is
empty is refused: a websocket is closed (code :data:`CLOSE_RATE_LIMITED`,
with a close frame, after an ``error`` message ``rate-limited``), an HTTP
request is answered 429 with ``Retry-After``.  :class:`Buckets` keeps one
bucket per client key (:func:`~gongzhu.web.lobby.client_key`), and forgets
those full again, so it holds only the clients active lately.

>>> clock = [0.0]
>>> bucket = Bucket(rate=1.0, burst=2, clock=lambda: clock[0])
>>> [bucket.take() for _ in range(3)]
[True, True, False]
>>> clock[0] = 1.0
>>> bucket.take(), bucket.take()
(True, False)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

__all__ = ["CLOSE_RATE_LIMITED", "Bucket", "Buckets"]

CLOSE_RATE_LIMITED: Final = 4429
"""The close code of a websocket that sent messages faster than its limits allow."""

Clock = Callable[[], float]


class Bucket:
    """``burst`` tokens at most, ``rate`` more a second (``clock`` gives seconds)."""

    __slots__ = ("burst", "clock", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, count: float = 1.0) -> bool:
        """Take ``count`` tokens if there are as many; whether there were."""
        self._refill()
        if self.tokens >= count:
            self.tokens -= count
            return True
        return False

    def wait(self, count: float = 1.0) -> float:
        """Seconds until ``count`` tokens are there (0 if they are now)."""
        self._refill()
        missing = count - self.tokens
        return 0.0 if missing <= 0 or self.rate <= 0 else missing / self.rate

    @property
    def full(self) -> bool:
        """Whether the bucket is full again (its client has been quiet)."""
        self._refill()
        return self.tokens >= self.burst


class Buckets:
    """One :class:`Bucket` per key (a client), made when first needed.

    :param most: keys held at most; past it, the full buckets are forgotten
        (and if none is full, the oldest).
    """

    def __init__(
        self, rate: float, burst: int, *, clock: Clock = time.monotonic, most: int = 65536
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.most = most
        self._buckets: dict[str, Bucket] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def get(self, key: str) -> Bucket:
        """The bucket of ``key``."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.most:
                self._forget()
            bucket = self._buckets[key] = Bucket(self.rate, self.burst, self.clock)
        return bucket

    def take(self, key: str, count: float = 1.0) -> bool:
        """Take ``count`` tokens from ``key``'s bucket; whether there were as many."""
        return self.get(key).take(count)

    def _forget(self) -> None:
        for key in [key for key, bucket in self._buckets.items() if bucket.full]:
            del self._buckets[key]
        while len(self._buckets) >= self.most:
            del self._buckets[next(iter(self._buckets))]

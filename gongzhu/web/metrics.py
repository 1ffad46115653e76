"""What a server counts, and its answer to ``GET /metrics`` (Prometheus's text format).

:class:`Metrics` holds the counters the application adds to (requests by
status, websocket messages, refusals by rate limit...); :func:`render`
writes them with the lobby's gauges (tables, people connected, bot
decisions waiting and their times, steps the database has not taken yet)
in the `Prometheus text format
<https://prometheus.io/docs/instrumenting/exposition_formats/>`_, version
0.0.4.

>>> from gongzhu.web.lobby import Lobby
>>> metrics = Metrics()
>>> metrics.count("http_requests", status="2xx")
>>> text = render(Lobby(), metrics)
>>> 'gongzhu_http_requests_total{status="2xx"} 1' in text
True
>>> "gongzhu_tables{state=\\"unfinished\\"} 0" in text
True
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .lobby import Lobby

__all__ = ["CONTENT_TYPE", "COUNTERS", "Metrics", "render"]

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The content type of ``GET /metrics``."""

COUNTERS: Final = {
    "http_requests": "HTTP requests answered, by status class",
    "ws_connections": "websocket connections seated",
    "ws_messages": "websocket messages read from clients",
    "rate_limited": "requests and websockets refused by a rate limit, by kind",
    "tables_opened": "tables opened",
    "tables_refused": "table requests refused, by code",
}
"""The counters, each ``gongzhu_NAME_total``, and what they count."""


class Metrics:
    """Counters, by name and labels (every name one of :data:`COUNTERS`)."""

    def __init__(self) -> None:
        self.counters: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()

    def count(self, name: str, amount: int = 1, **labels: str) -> None:
        """Add ``amount`` to counter ``name`` with ``labels``."""
        self.counters[name, tuple(sorted(labels.items()))] += amount

    def value(self, name: str, **labels: str) -> int:
        """Counter ``name``'s value with ``labels``."""
        return self.counters[name, tuple(sorted(labels.items()))]


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    inner = ",".join(
        f'{key}="{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for key, value in labels
    )
    return "{" + inner + "}"


def render(lobby: Lobby, metrics: Metrics) -> str:
    """The answer to ``GET /metrics``: ``metrics``' counters and ``lobby``'s gauges."""
    lines: list[str] = []

    def gauge(name: str, help_text: str, values: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP gongzhu_{name} {help_text}")
        lines.append(f"# TYPE gongzhu_{name} gauge")
        lines.extend(f"gongzhu_{name}{labels} {value:g}" for labels, value in values)

    for name, help_text in COUNTERS.items():
        lines.append(f"# HELP gongzhu_{name}_total {help_text}")
        lines.append(f"# TYPE gongzhu_{name}_total counter")
        for (found, labels), value in sorted(metrics.counters.items()):
            if found == name:
                lines.append(f"gongzhu_{name}_total{_labels(labels)} {value}")
    tables = list(lobby.tables.values())
    finished = sum(table.is_over for table in tables)
    gauge(
        "tables",
        "tables in memory",
        [('{state="unfinished"}', len(tables) - finished), ('{state="finished"}', finished)],
    )
    gauge(
        "people_connected",
        "people connected to a seat",
        [("", sum(table.people_connected for table in tables))],
    )
    gauge(
        "unwritten_steps",
        "steps the database could not take yet (a full disk)",
        [("", sum(len(table.unwritten) for table in tables))],
    )
    pool = lobby.pool
    gauge("bot_queue", "bot decisions waiting for a worker", [("", pool.waiting("bot"))])
    gauge("replay_queue", "replays waiting for a worker", [("", pool.waiting("replay"))])
    quantiles = []
    for quantile in (0.5, 0.9, 0.99):
        took = pool.decision_time(quantile)
        if took is not None:
            quantiles.append((f'{{quantile="{quantile}"}}', took))
    gauge(
        "bot_decision_seconds",
        "bot decisions' time in the last minute, asked to answered",
        quantiles,
    )
    gauge(
        "bots_busy",
        "1 when new tables with bots are refused",
        [("", lobby.bots_busy() is not None)],
    )
    lines.append("# HELP gongzhu_bot_decisions_total bot decisions made")
    lines.append("# TYPE gongzhu_bot_decisions_total counter")
    lines.append(f"gongzhu_bot_decisions_total {pool.decisions}")
    return "\n".join(lines) + "\n"

"""How a command stops early: a Ctrl-C (SIGINT) and a SIGTERM.

A Ctrl-C stops a command where it can keep what finished (``simulate``
keeps the whole records written, status 130); a SIGTERM (``timeout``,
``kill``) stops it at once, as an error would (status 143).  Light to import:
:func:`gongzhu.cli.main` catches both before it loads the commands.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import IO

__all__ = ["Terminated", "interrupted_line", "sigterm_stops"]


def interrupted_line(stream: IO[str] | None, after: str = "") -> str:
    """``gongzhu: interrupted`` (and ``after``), on a line of its own on a terminal, where
    ``^C`` was echoed."""
    try:
        fresh = stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        fresh = False
    return ("\n" if fresh else "") + "gongzhu: interrupted" + after


class Terminated(BaseException):
    """A SIGTERM came: the command stops where it is (not an error of the command's)."""


@contextlib.contextmanager
def sigterm_stops() -> Iterator[None]:
    """While inside, a SIGTERM (``timeout``, ``kill``) raises :class:`Terminated`, so the
    command stops as on an error: the workers are stopped and an ``--out`` file is left as
    it was, with no temporary file behind (a Ctrl-C keeps what finished instead)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

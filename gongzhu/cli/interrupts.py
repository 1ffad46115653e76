"""How a command stops early: a Ctrl-C (SIGINT) and a SIGTERM.

A Ctrl-C stops a command where it can keep what finished (``simulate``
keeps the whole records written, status 130); a SIGTERM (``timeout``,
``kill``) stops it at once, as an error would (status 143).  Light to import:
:func:`gongzhu.cli.main` catches both before it loads the commands.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any, NoReturn

__all__ = ["TEMPORARY", "Terminated", "interrupted_line", "sigterm_stops"]

TEMPORARY: set[str] = set()
"""The temporary files the command is writing (``simulate --out``'s ``.part``): removed
when a SIGTERM ends the process at once."""


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
    it was, with no temporary file behind (a Ctrl-C keeps what finished instead).

    Where a pool of worker processes was made, the process ends at once instead
    (:func:`_end_now`): a worker that the same SIGTERM killed (``timeout`` signals
    the whole group) may hold a lock of the pool's, which stopping the pool in
    order would wait for, for ever."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one is enough: cleaning up goes on
        if "multiprocessing.pool" in sys.modules:  # a pool of workers, maybe dead already
            _end_now(sys.modules["multiprocessing"].active_children())
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _end_now(workers: list[Any]) -> NoReturn:
    """Remove the temporary files, say so in one line, kill the workers, and exit 143."""
    for path in list(TEMPORARY):
        with contextlib.suppress(OSError):
            os.unlink(path)
    with contextlib.suppress(OSError):
        os.write(2, b"gongzhu: terminated\n")
    for worker in workers:
        with contextlib.suppress(OSError, ValueError):
            worker.kill()
    os._exit(143)

"""Where many independent jobs run: local processes, or tasks on a Ray cluster.

:func:`imap` maps a job function over a list of tasks and yields the
results in task order, whichever backend runs them, so a run that derives
each task's seed from its index alone gives the same results on every
backend and any number of workers.  ``gongzhu simulate`` and
``gongzhu arena`` use it (``--backend``, ``--address``).

``"local"``
    the calling process (one worker) or a pool of spawned processes.
``"ray"``
    Ray remote tasks (extra ``gongzhu[ray]``): on the cluster at
    ``address`` (``"auto"``, ``"ray://head:10001"``…), else on a Ray
    instance started on this machine, or the one already initialised in
    this process.  Ray is imported only here, when the backend is used:
    ``import gongzhu`` never imports it.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.util
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from typing import Any, Final, TypeVar, overload

from .errors import GongzhuError

__all__ = ["BACKENDS", "BackendUnavailable", "Chunks", "imap"]

BACKENDS: Final = ("local", "ray")
"""The backends :func:`imap` knows."""

T = TypeVar("T")
P = TypeVar("P")
R = TypeVar("R")

_CONNECT_S: Final = 10.0
"""How long a Ray address given as ``host:port`` is tried before it is refused, in seconds."""


class BackendUnavailable(GongzhuError, ImportError):
    """A backend that cannot run here: its optional dependency is not installed (the
    message names the extra), or no Ray cluster answers at the address given."""


class Chunks(Sequence[tuple[P, int, int]]):
    """The tasks of a run cut into chunks, each ``(payload, start, count)``: ``count``
    items from item ``start``, the last chunk shorter.  A chunk is made when it is
    asked for, so a run of any length holds none of them (a list of them for
    ``gongzhu simulate --hands 10**12`` would not fit in memory), and the whole
    sequence pickles to a few bytes beside the payload.

    >>> chunks = Chunks("job", 10, 4)
    >>> len(chunks), chunks[0], chunks[-1], chunks[1:]
    (3, ('job', 0, 4), ('job', 8, 2), [('job', 4, 4), ('job', 8, 2)])
    """

    def __init__(self, payload: P, total: int, size: int) -> None:
        if total < 0 or size < 1:
            raise ValueError(f"chunks of {size} of {total} items")
        self.payload, self.total, self.size = payload, total, size

    def __len__(self) -> int:
        return -(-self.total // self.size)

    @overload
    def __getitem__(self, index: int) -> tuple[P, int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[P, int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[P, int, int] | list[tuple[P, int, int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        start = index * self.size
        return (self.payload, start, min(self.size, self.total - start))


def imap(
    function: Callable[[T], R],
    tasks: Sequence[T],
    *,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    initializer: Callable[[], None] | None = None,
    chunksize: int = 1,
) -> Generator[R, None, None]:
    """``function(task)`` for each task, yielded in task order.

    :param function: a module-level function (it is pickled to the workers).
    :param backend: one of :data:`BACKENDS`.
    :param workers: local: processes (1 runs in this process); Ray: the most
        tasks in flight at once (and the CPUs of a Ray instance started here).
    :param address: the Ray cluster to attach to (Ray only); ``None`` starts
        a local instance unless this process has initialised Ray already.
    :param initializer: called once in each local worker process.
    :param chunksize: tasks sent to a worker at a time (one Ray task each).
    :raises GongzhuError: an unknown backend, or an address without Ray.
    :raises BackendUnavailable: Ray is not installed, or no Ray cluster answers at
        ``address`` (a ``host:port`` where nothing listens is refused within
        ten seconds, before Ray is started).

    ``tasks`` may be a lazy sequence (``len`` and indexing, slices for Ray,
    as :class:`Chunks`): a few chunks are in flight at a time, so a run of any
    length holds only those in memory.

    Closing the iterator early (``break``) stops the workers: the local
    pool is terminated, Ray tasks still pending are cancelled.  Each local
    worker is given the function and every task once, as it starts, and
    runs the ranges of tasks it is sent; it leaves Ctrl-C (SIGINT) to the
    calling process, which stops the pool.
    """
    if backend not in BACKENDS:
        raise GongzhuError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if workers < 1 or chunksize < 1:
        raise GongzhuError("imap needs at least one worker and a chunk size of at least one")
    if backend == "ray":
        return _ray_imap(function, tasks, workers, address, chunksize)
    if address is not None:
        raise GongzhuError("a cluster address is only for the ray backend")
    return _local_imap(function, tasks, workers, initializer, chunksize)


def _local_imap(
    function: Callable[[T], R],
    tasks: Sequence[T],
    workers: int,
    initializer: Callable[[], None] | None,
    chunksize: int,
) -> Generator[R, None, None]:
    if workers == 1:
        for task in tasks:
            yield function(task)
        return
    import multiprocessing  # only for a pool: one worker runs here without it

    # Each worker gets the function and the tasks once, as it starts; what goes through the
    # pool's pipe is ranges of task numbers, a few bytes each, and never more than a small
    # window of them at once: a pipe never fills, so a pool stopped early (a Ctrl-C) cannot
    # hang on a task being sent to a worker that is gone (multiprocessing's terminate waits
    # for its feeder thread), and a run of any length holds a few ranges in memory, not one
    # per chunk (the tasks themselves may be a lazy sequence, as a run's chunks are).
    count = len(tasks)
    window = 2 * workers
    with contextlib.ExitStack() as stack:
        with _interrupts_held():  # the workers start with Ctrl-C blocked: it is ours to handle;
            # one that arrives meanwhile is raised on the way out...
            spawn = multiprocessing.get_context("spawn")
            pool = stack.enter_context(
                spawn.Pool(workers, _start_worker, (function, tasks, initializer))
            )
        pending: collections.deque[Any] = collections.deque()
        start = 0
        while start < count or pending:
            while start < count and len(pending) < window:
                stop = min(start + chunksize, count)
                pending.append(pool.apply_async(_run_range, ((start, stop),)))
                start = stop
            yield from pending.popleft().get()
    # ...and leaving the stack (normally, by close() or by that Ctrl-C) terminates the pool


_WORK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None
"""In a local worker process: the function and the tasks of its pool."""


def _start_worker(  # pragma: no cover - runs in worker processes
    function: Callable[[Any], Any],
    tasks: Sequence[Any],
    initializer: Callable[[], None] | None,
) -> None:
    global _WORK
    _WORK = (function, tasks)
    unblock = getattr(signal, "pthread_sigmask", None)
    if unblock is not None:  # started with SIGINT blocked (_interrupts_held): ignore it
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # instead, as must what it starts;
        unblock(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # SIGTERM ends it
    if initializer is not None:
        initializer()


def _run_range(bounds: tuple[int, int]) -> list[Any]:  # pragma: no cover - in workers
    """The results of the worker's tasks ``bounds[0]`` to ``bounds[1]`` (excluded)."""
    assert _WORK is not None
    function, tasks = _WORK
    return _run_batch(function, tasks[bounds[0] : bounds[1]])


@contextlib.contextmanager
def _interrupts_held() -> Generator[None, None, None]:
    """Block SIGINT and SIGTERM while inside (POSIX): the processes and threads started
    here inherit the blocked signals.

    A terminal's Ctrl-C goes to every process of its group: the pool's
    workers, even one still starting, must leave it to the process that
    runs the pool, which stops them.  The pool's own threads keep both
    blocked for life, so both reach the main thread, which may be waiting for
    a result that dead workers will never send (``timeout`` signals the whole
    group): a signal taken by another thread would not wake it.  A signal
    that arrives while inside is held, not lost: it is delivered here on the
    way out.
    """
    block = getattr(signal, "pthread_sigmask", None)  # POSIX (Windows has no signal mask)
    if block is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    from multiprocessing import resource_tracker

    # started now: later would unblock SIGINT here; and told (by a -W option, which it is
    # started with) to clean up after a run ended at once (gongzhu.cli.interrupts, a
    # SIGTERM) without warning of the pool's semaphores it cleans
    flags = sys.warnoptions[:]
    sys.warnoptions.append("ignore::UserWarning:multiprocessing.resource_tracker")
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions[:] = flags
    previous = block(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        block(signal.SIG_SETMASK, previous)


def _answers(address: str | None) -> None:
    """Refuse at once a ``host:port`` (or ``ray://host:port``) where nothing listens.

    Ray would try it for minutes, printing its own warnings; other addresses
    (``"auto"``, ``None``) are Ray's to resolve.

    :raises BackendUnavailable: the connection was refused or timed out.
    """
    if address is None:
        return
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_S).close()
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
        raise BackendUnavailable(f"no Ray cluster at {address}: {reason}") from None


def _run_batch(function: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    """One Ray task: a batch of tasks, run in order."""
    return [function(task) for task in batch]


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendUnavailable(
            "the ray backend needs Ray: python -m pip install 'gongzhu[ray]'"
        ) from None
    return ray


def _ray_imap(
    function: Callable[[T], R],
    tasks: Sequence[T],
    workers: int,
    address: str | None,
    chunksize: int,
) -> Generator[R, None, None]:
    import logging

    ray = _ray()
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.WARNING,
        }
        if address is None:
            options["num_cpus"] = workers
        elif address.startswith("ray://") and importlib.util.find_spec("grpc") is None:
            raise BackendUnavailable(
                f"the address {address} needs the Ray Client: pip install 'ray[client]'"
            )
        given = address if address is not None else os.environ.get("RAY_ADDRESS")
        _answers(given or None)
        try:
            ray.init(address=address, **options)
        except ConnectionError as exc:  # no cluster at the address ("auto": none running)
            raise BackendUnavailable(
                f"no Ray cluster at {given or 'the address given'}: {exc}"
            ) from None
        except ValueError as exc:  # an address Ray cannot read ("bogus", "host:abc")
            raise BackendUnavailable(f"not a Ray address: {given!r}: {exc}") from None
    remote = ray.remote(_run_batch)
    count = len(tasks)
    pending: list[Any] = []
    start = 0
    try:
        while start < count or pending:
            while start < count and len(pending) < 2 * workers:  # a batch is sliced when sent
                pending.append(remote.remote(function, tasks[start : start + chunksize]))
                start += chunksize
            ref = pending.pop(0)
            try:
                results = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:
                cause = exc.cause if isinstance(exc.cause, BaseException) else None
                if cause is None:
                    raise
                raise cause from None
            yield from results
    finally:
        for ref in pending:
            ray.cancel(ref)

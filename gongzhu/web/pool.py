"""Bots and record replays in worker processes, off the server's event loop.

A bot's decision and ``/api/replay``'s replay of a record are the server's
only long pieces of work.  A :class:`Pool` runs them in worker processes
(``python -m gongzhu.web.pool``, talking over their standard input and
output), so the event loop that answers every table never waits for them,
and the workers' Python does not compete with the loop's for one
interpreter lock.  Each job goes to an idle worker, or waits for one; a
replay may take every worker but one, so bots always have one.  The workers
run at a lower priority than the server (``nice``), so the loop gets a
core when it needs one.

A bot is made afresh for each decision, from its name, the ruleset and a
seed the table derives from its match's seed, the hand and the step
(:func:`decision_seed`): a decision does not depend on which worker made it,
nor on a restart of the server.  Bots decide from their view alone.

With no workers (``Pool(0)``) the same jobs run on threads of the server's
process, as tests do.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import json
import logging
import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, NamedTuple

from ..actions import Action, parse_action
from ..bots import make_bot, tell_format
from ..deal import Deal
from ..errors import GongzhuError
from ..hand import HandState
from ..rules import Rules
from ..view import SeatView
from .viewer import viewer_data

__all__ = [
    "DECISIONS_KEPT",
    "DECISIONS_LEAST",
    "DECISIONS_WINDOW",
    "NICE",
    "BotTurn",
    "JobFailed",
    "Pool",
    "decision_seed",
    "run_job",
]

NICE: Final = 10
"""How much lower the workers' priority is than the server's (``os.nice``)."""

DECISIONS_KEPT: Final = 200
"""Bot decisions whose times :meth:`Pool.decision_time` looks at, at most."""

DECISIONS_LEAST: Final = 10
"""Bot decisions :meth:`Pool.decision_time` needs in its window to say anything (a few
slow decisions of a quiet server are not a saturated one)."""

DECISIONS_WINDOW: Final = 60.0
"""Seconds for which a bot decision's time counts in :meth:`Pool.decision_time`."""

_HEADER: Final = 8
"""Bytes of a message's length, before the message (a pickle)."""

_log = logging.getLogger(__name__)


class JobFailed(GongzhuError):
    """A job failed in its worker (the worker says why), or the worker died.

    :ivar kind: ``"refused"`` for a record the replay refuses (the message
        says why), ``"error"`` for anything else.
    """

    def __init__(self, message: str, kind: str = "error") -> None:
        self.kind = kind
        super().__init__(message)


class BotTurn(NamedTuple):
    """A bot's turn, as a worker is sent it: small, and quick to pickle.

    The worker rebuilds the hand from its deal and actions (keeping the hands
    it rebuilt, so that the next turn of a hand costs only the new actions)
    and gives the bot its seat's view.

    :ivar bot: the bot's name.
    :ivar seed: the decision's seed (:func:`decision_seed`).
    :ivar seat: the bot's seat.
    :ivar hand: the hand's key (table id and hand number).
    :ivar deal: the cards in dealing order, as record text.
    :ivar first_seat: the seat dealt the first card.
    :ivar leader: the hand's explicit leader (``None``: the ruleset's rule).
    :ivar actions: every action so far, as text.
    :ivar format: the table's format, told to the bot (``"solo"``: each for itself).
    """

    bot: str
    seed: int
    seat: int
    hand: tuple[str, int]
    deal: tuple[str, ...]
    first_seat: int
    leader: int | None
    actions: tuple[str, ...]
    format: str = "solo"


def decision_seed(match_seed: int, seat: int, hand: int, step: int) -> int:
    """The seed of a bot's decision: from the match's seed, its seat, the hand and the step.

    A one-way hash: the decisions a seat sees do not reveal the match's seed.

    >>> decision_seed(1, 2, 1, 0) == decision_seed(1, 2, 1, 0) != decision_seed(1, 2, 1, 1)
    True
    """
    text = f"gongzhu-bot:{match_seed}:{seat}:{hand}:{step}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


# -- the jobs, as a worker runs them ---------------------------------------------------------

_RULES: dict[bytes, Rules] = {}
_FACTORIES: dict[str, Callable[..., Any]] = {}


def _factory(name: str, extra: Mapping[str, str]) -> Callable[..., Any] | None:
    target = extra.get(name)
    if target is None:
        return None
    factory = _FACTORIES.get(target)
    if factory is None:
        module, _, attribute = target.partition(":")
        factory = _FACTORIES[target] = getattr(importlib.import_module(module), attribute)
    return factory


def _rules(rules: Rules | bytes) -> Rules:
    if isinstance(rules, Rules):
        return rules
    found = _RULES.get(rules)
    if found is None:
        if len(_RULES) > 64:
            _RULES.clear()
        found = _RULES[rules] = pickle.loads(rules)
    return found


_HANDS: OrderedDict[tuple[str, int], tuple[tuple[str, ...], HandState, int]] = OrderedDict()
"""The hands rebuilt for bots' turns, by key: their deal, the hand, its actions applied."""
_HANDS_KEPT: Final = 256
_HANDS_LOCK = threading.Lock()


def _view(rules: Rules, turn: BotTurn) -> SeatView:
    """The view of ``turn``'s seat, rebuilt from the deal and the actions."""
    with _HANDS_LOCK:
        kept = _HANDS.pop(turn.hand, None)
    if kept is not None and kept[0] == turn.deal and kept[2] <= len(turn.actions):
        _deal, hand, applied = kept
    else:
        deal = Deal(turn.deal, turn.first_seat)
        hand, applied = rules.new_hand(None, deal=deal, leader=turn.leader), 0
    for text in turn.actions[applied:]:
        hand.apply(parse_action(text))
    with _HANDS_LOCK:
        _HANDS[turn.hand] = (turn.deal, hand, len(turn.actions))
        while len(_HANDS) > _HANDS_KEPT:
            _HANDS.popitem(last=False)
    return hand.view(turn.seat)


def run_job(kind: str, payload: Any, extra: Mapping[str, str] | None = None) -> Any:
    """Do one job where it is called (a worker calls this for each job it is sent).

    ``("bot", (rules, turn))`` (a ruleset or its pickle, and a :class:`BotTurn`)
    gives the text of the bot's action; ``("replay", body)`` gives the viewer's
    data of a record as JSON bytes.

    :raises JobFailed: ``refused`` for a record that does not replay (or is
        not JSON), ``error`` for a bot that fails.
    """
    if kind == "bot":
        rules, turn = payload
        ruleset = _rules(rules)
        name = turn.bot
        factory = _factory(name, extra or {})
        try:
            view = _view(ruleset, turn)
        except GongzhuError as exc:
            raise JobFailed(f"the hand of the {name} bot's turn: {exc}") from None
        try:
            bot = tell_format(
                make_bot(name, turn.seed, rules=ruleset)
                if factory is None
                else factory(seed=turn.seed, rules=ruleset),
                turn.format,
            )
            action: Action = bot.choose(view)
        except Exception as exc:
            raise JobFailed(f"the {name} bot failed: {type(exc).__name__}: {exc}") from None
        return str(action)
    if kind == "replay":
        try:
            record = json.loads(payload)
        except (ValueError, RecursionError):
            raise JobFailed("the file is not JSON", "refused") from None
        try:
            data = viewer_data(record)
        except GongzhuError as exc:
            raise JobFailed(str(exc), "refused") from None
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    raise JobFailed(f"no such job: {kind!r}")


def _worker_main() -> None:  # pragma: no cover - runs in the worker processes
    """A worker: read jobs from standard input, write each result to standard output."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    with contextlib.suppress(AttributeError, OSError):
        os.nice(NICE)
    warnings.simplefilter("ignore")  # the server's standard error is its users'
    source = sys.stdin.buffer
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # what a bot prints goes to stderr
    extra: Mapping[str, str] = {}
    first = True
    while True:
        header = source.read(_HEADER)
        if len(header) < _HEADER:
            return  # the server is gone
        body = source.read(int.from_bytes(header, "big"))
        kind, payload = pickle.loads(body)
        if first and kind == "init":
            first = False
            for entry in reversed(payload["path"]):
                if entry not in sys.path:
                    sys.path.insert(0, entry)
            extra = payload["bots"]
            continue
        try:
            answer: tuple[str, Any] = ("ok", run_job(kind, payload, extra))
        except JobFailed as exc:
            answer = (exc.kind, str(exc))
        except BaseException as exc:
            answer = ("error", f"{type(exc).__name__}: {exc}")
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            sink.write(len(data).to_bytes(_HEADER, "big") + data)
            sink.flush()
        except OSError:  # the server is gone (killed): so is this worker, quietly
            return


# -- the pool, on the server's side ---------------------------------------------------------


class _Worker:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.job: str | None = None


class Pool:
    """Worker processes for the bots' decisions and the replays of ``/api/replay``.

    The workers are started when the first job comes, and stopped by
    :meth:`close`.  Every method is called on the server's event loop.

    :param workers: how many worker processes (0: threads of this process instead).
    :param bots: more bots by name, as :attr:`Settings.bots <gongzhu.web.settings.Settings.bots>`.
    """

    def __init__(self, workers: int, *, bots: Mapping[str, str] | None = None) -> None:
        self.size = workers
        self.bots = dict(bots or {})
        self.started = 0
        """How many worker processes were started in all (a dead one is replaced)."""
        self._workers: list[_Worker] = []
        self._starting = 0
        self._waiting: dict[str, deque[tuple[Any, asyncio.Future[Any]]]] = {
            "bot": deque(),
            "replay": deque(),
        }
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._rules_data: dict[int, tuple[Rules, bytes]] = {}
        self._decisions: deque[tuple[float, float]] = deque(maxlen=DECISIONS_KEPT)
        self.decisions = 0
        """How many bot decisions were made in all."""

    def __repr__(self) -> str:
        busy = sum(worker.job is not None for worker in self._workers)
        return f"<Pool {len(self._workers)}/{self.size} workers, {busy} busy>"

    def waiting(self, kind: str) -> int:
        """How many jobs of ``kind`` (``"bot"``, ``"replay"``) wait for a worker."""
        return len(self._waiting[kind])

    def decision_time(self, quantile: float = 0.9, *, now: float | None = None) -> float | None:
        """The ``quantile`` of the time the bot decisions of the last
        :data:`DECISIONS_WINDOW` seconds took, from being asked to being answered
        (waiting for a worker included); ``None`` if there were fewer than
        :data:`DECISIONS_LEAST`."""
        now = time.monotonic() if now is None else now
        times = self._decisions
        while times and now - times[0][0] > DECISIONS_WINDOW:
            times.popleft()
        if len(times) < DECISIONS_LEAST:
            return None
        found = sorted(took for _at, took in times)
        return found[min(len(found) - 1, int(quantile * len(found)))]

    def note_decision(self, took: float, *, at: float | None = None) -> None:
        """Count a bot decision that took ``took`` seconds (:meth:`decision_time`)."""
        self._decisions.append((time.monotonic() if at is None else at, took))
        self.decisions += 1

    async def choose(self, rules: Rules, turn: BotTurn) -> str:
        """The text of the action the bot of ``turn`` takes, under ``rules``.

        :raises JobFailed: the bot failed, or its worker died.
        """
        began = time.monotonic()
        try:
            return await self._choose(rules, turn)
        finally:
            self.note_decision(time.monotonic() - began)

    async def _choose(self, rules: Rules, turn: BotTurn) -> str:
        if self.size == 0:
            return str(await asyncio.to_thread(run_job, "bot", (rules, turn), self.bots))
        data = self._rules_data.get(id(rules))
        if data is None or data[0] is not rules:
            if len(self._rules_data) > 256:
                self._rules_data.clear()
            data = self._rules_data[id(rules)] = (
                rules,
                pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL),
            )
        return str(await self._submit("bot", (data[1], turn)))

    async def replay(self, body: bytes) -> bytes:
        """The viewer's data (JSON) of the record ``body``, replayed in a worker.

        :raises JobFailed: ``refused`` with the reason for a record that does not replay.
        """
        if self.size == 0:
            return bytes(await asyncio.to_thread(run_job, "replay", body))
        return bytes(await self._submit("replay", body))

    async def close(self) -> None:
        """Stop the workers; jobs still waiting fail."""
        self._closed = True
        for queue in self._waiting.values():
            while queue:
                _payload, future = queue.popleft()
                if not future.done():
                    future.set_exception(JobFailed("the server is stopping"))
        for worker in self._workers:
            with contextlib.suppress(Exception):
                if worker.process.stdin is not None:
                    worker.process.stdin.close()
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()
        for worker in self._workers:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await worker.process.wait()
        self._workers.clear()
        for task in list(self._tasks):
            task.cancel()

    # -- the dispatcher ------------------------------------------------------------------

    def _submit(self, kind: str, payload: Any) -> asyncio.Future[Any]:
        if self._closed:
            raise JobFailed("the server is stopping")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[kind].append((payload, future))
        self._dispatch()
        return future

    def _dispatch(self) -> None:
        if self._closed:
            return
        idle = deque(worker for worker in self._workers if worker.job is None)
        replays = sum(worker.job == "replay" for worker in self._workers)
        replay_slots = max(1, self.size - 1)
        while idle:
            if self._waiting["bot"]:
                kind = "bot"
            elif self._waiting["replay"] and replays < replay_slots:
                kind = "replay"
            else:
                break
            payload, future = self._waiting[kind].popleft()
            if future.done():  # its caller gave up
                continue
            worker = idle.popleft()
            worker.job = kind
            replays += kind == "replay"
            self._spawn(self._run(worker, kind, payload, future))
        waiting = len(self._waiting["bot"]) + len(self._waiting["replay"])
        free = self.size - len(self._workers) - self._starting
        for _ in range(min(waiting, free)):
            self._starting += 1
            self._spawn(self._start_worker())

    def _spawn(self, step: Any) -> None:
        task = asyncio.get_running_loop().create_task(step)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start_worker(self) -> None:
        try:
            here = str(Path(__file__).resolve().parent.parent.parent)
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "gongzhu.web.pool",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                env=env,
            )
            assert process.stdin is not None
            init = {"path": [entry for entry in sys.path if entry], "bots": self.bots}
            _write(process.stdin, ("init", init))
            await process.stdin.drain()
        except Exception:
            _log.exception("cannot start a worker process")
            self._starting -= 1
            self._fail_waiting("cannot start a worker process")
            return
        self._starting -= 1
        self.started += 1
        if self._closed:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            return
        self._workers.append(_Worker(process))
        self._dispatch()

    def _fail_waiting(self, message: str) -> None:
        if self._workers or self._starting:
            return
        for queue in self._waiting.values():
            while queue:
                _payload, future = queue.popleft()
                if not future.done():
                    future.set_exception(JobFailed(message))

    async def _run(
        self, worker: _Worker, kind: str, payload: Any, future: asyncio.Future[Any]
    ) -> None:
        process = worker.process
        assert process.stdin is not None and process.stdout is not None
        try:
            _write(process.stdin, (kind, payload))
            await process.stdin.drain()
            header = await process.stdout.readexactly(_HEADER)
            body = await process.stdout.readexactly(int.from_bytes(header, "big"))
            status, value = pickle.loads(body)
        except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError) as exc:
            if self._closed:  # stopped by close()
                if not future.done():
                    future.set_exception(JobFailed("the server is stopping"))
                return
            _log.error("a worker process died (%s): starting another", type(exc).__name__)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            self._workers.remove(worker)
            if not future.done():
                future.set_exception(JobFailed("the worker process died"))
            self._dispatch()
            return
        worker.job = None
        if not future.done():
            if status == "ok":
                future.set_result(value)
            else:
                future.set_exception(JobFailed(str(value), status))
        self._dispatch()


def _write(stream: asyncio.StreamWriter, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(_HEADER, "big") + data)


if __name__ == "__main__":  # pragma: no cover - the worker processes
    _worker_main()

"""Load on ``gongzhu serve``: tables of websocket clients playing whole hands, on 127.0.0.1.

Starts ``gongzhu serve`` in a subprocess (no table of its own, ``--bot-delay
0``, its database in a temporary folder as by default persistence is on, the
limits on tables raised), opens T tables through ``POST /api/tables`` (seat 0
a person, this script; seats 1-3 bots), and connects T websocket clients.
Once every client is connected (the handshakes are not timed), the tables
start one after another over ``--stagger`` seconds (1 by default: 200 first
actions in the same millisecond would measure a queue of 200, not a server
at work), and each client plays H hands as fast as the server lets it: at each of its turns
it sends its first legal action and times how long the state answering it
takes to arrive.  Prints the latency per action (p50, p99, max), the
turnaround (the time a person waits from sending an action until it is their
turn again, the three bots' moves included: p50, p90, max) and the actions
answered per second, for each number of tables and kind of bot.  The
latency is the server's answer; the turnaround is what a person feels when
the bots are busy.

The server's rate limits are raised (every client here is 127.0.0.1), and its
bots' admission control is left on: tables it refuses (``bots-busy``) are
counted, not played.

``--attack`` runs issue 39's hostile clients against the same server while the
tables play, on their own table of people: one sends websocket ping frames and
never reads, one floods messages while reading (each reconnects when the server
cuts it), one opens websockets with a token no seat has and pings them; with
it the run also prints the server's peak memory (Linux).  The per-connection
message rate is left at its default then, so the flooder is the server's to
stop (the tables' clients act well under it).

The default run is quick (10 tables of heuristic bots, one hand each)::

    python benchmarks/web_load.py
    python benchmarks/web_load.py --full          # 10, 50, 200 tables x heuristic, search
    python benchmarks/web_load.py --tables 200 --bots search --hands 2

The numbers in ``docs/web.rst`` come from ``--full``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect


def machine() -> str:
    """The CPU, its cores and the Python this runs on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


class Server:
    """``gongzhu serve`` in a subprocess, with its database in ``folder``."""

    def __init__(
        self,
        folder: str,
        workers: int | None,
        db: str | None,
        more: list[str] | None = None,
        attack: bool = False,
    ) -> None:
        rates = ["--client-rate", "1000000"]
        if not attack:
            rates += ["--message-rate", "1000000"]
        args = [
            sys.executable, "-m", "gongzhu", "serve", "--port", "0", "--no-table",
            "--bot-delay", "0", "--max-tables", "1000", "--tables-per-client", "1000",
            *rates,
            "--db", db or str(Path(folder) / "serve.sqlite3"),
        ]  # fmt: skip
        if workers is not None:
            args += ["--workers", str(workers)]
        args += more or []
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        if not first.startswith("gongzhu serving on"):
            raise SystemExit(f"the server did not start: {first!r}")
        self.url = first.split()[3]

    def rss_mb(self) -> float | None:
        """The server's resident memory, in MB (Linux), or ``None``."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return None

    def open_people(self) -> list[str]:
        """Open a table of four people; its seats' tokens."""
        body = json.dumps({"seats": ["human"] * 4}).encode()
        request = urllib.request.Request(
            self.url + "/api/tables",
            data=body,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return [seat["link"].rsplit("/", 1)[1] for seat in json.load(answer)["seats"]]

    def open_table(self, bot: str) -> str | None:
        """Open a table; its seat 0's token, or ``None`` if the server refused it (busy)."""
        body = json.dumps({"seats": ["human", bot, bot, bot], "hands": 100}).encode()
        request = urllib.request.Request(
            self.url + "/api/tables",
            data=body,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                link: str = json.load(answer)["seats"][0]["link"]
        except urllib.error.HTTPError as exc:
            if exc.code == 503:
                return None
            raise
        return link.rsplit("/", 1)[1]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Barrier:
    """Every client waits here once connected, so the actions timed are those of
    tables playing, not of 200 websocket handshakes at once."""

    def __init__(self, parties: int) -> None:
        self.waiting = parties
        self.event = asyncio.Event()

    async def wait(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.event.set()
        await self.event.wait()


async def play(
    url: str,
    token: str,
    hands: int,
    latencies: list[float],
    turnarounds: list[float],
    barrier: Barrier,
    start: float,
) -> int:
    """Connect seat 0, wait for the other tables' clients and then ``start`` seconds,
    and play ``hands`` hands there; note each action's latency and turnaround (until
    seat 0 is to act again, or the hand is over); return the actions."""
    socket_url = f"{url.replace('http', 'ws')}/ws/{token}"
    actions = 0
    async with connect(socket_url, max_size=None, compression=None) as ws:
        await barrier.wait()
        await asyncio.sleep(start)
        sent: float | None = None
        acted: float | None = None
        while True:
            message = json.loads(await ws.recv())
            if message["type"] != "state":
                continue
            now = time.perf_counter()
            if sent is not None:
                latencies.append(now - sent)
                sent = None
            if acted is not None and (message["to_move"] == 0 or message["phase"] == "over"):
                turnarounds.append(now - acted)
                acted = None
            if message["phase"] == "over":
                if message["match"]["hands"] >= hands:
                    return actions
                if message["can_deal"]:
                    await ws.send(json.dumps({"type": "next"}))
                continue
            if message["to_move"] == 0:
                action = {
                    "type": "action",
                    "action": message["legal"][0],
                    "hand": message["number"],
                }
                sent = acted = time.perf_counter()
                await ws.send(json.dumps(action))
                actions += 1


class Attack:
    """Issue 39's hostile clients against ``server``, on threads, until :meth:`stop`."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.tokens = server.open_people()
        self.halt = threading.Event()
        self.cuts = 0
        self.peak_mb = server.rss_mb() or 0.0
        self.threads = [
            threading.Thread(target=self.ping_flood, args=(self.tokens[0],), daemon=True),
            threading.Thread(target=self.message_flood, daemon=True),
            threading.Thread(target=self.ping_flood, args=("no-such-seat",), daemon=True),
            threading.Thread(target=self.watch, daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _url(self, token: str) -> str:
        return f"{self.server.url.replace('http', 'ws')}/ws/{token}"

    def ping_flood(self, token: str) -> None:
        """Ping frames, never reading; again when cut."""
        from websockets.sync.client import connect as sync_connect

        frame = bytes([0x89, 0x80 | 125]) + b"\0\0\0\0" + b"p" * 125
        host, port = self.server.url.removeprefix("http://").split(":")
        while not self.halt.is_set():
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            try:
                sock.connect((host, int(port)))
                with sync_connect(self._url(token), sock=sock, max_queue=1, compression=None):
                    while not self.halt.is_set():
                        sock.sendall(frame * 100)
            except Exception:
                self.cuts += 1
                time.sleep(0.05)
            finally:
                sock.close()

    def message_flood(self) -> None:
        """Refused messages as fast as it can, reading the answers; again when closed."""
        from websockets.sync.client import connect as sync_connect

        while not self.halt.is_set():
            try:
                with sync_connect(self._url(self.tokens[1]), max_queue=None) as ws:

                    def drain() -> None:
                        with contextlib.suppress(Exception):
                            while True:
                                ws.recv()

                    threading.Thread(target=drain, daemon=True).start()
                    count = 0
                    while not self.halt.is_set():
                        ws.send(json.dumps({"type": f"flood-{count}"}))
                        count += 1
            except Exception:
                self.cuts += 1
                time.sleep(0.05)

    def watch(self) -> None:
        while not self.halt.wait(0.1):
            self.peak_mb = max(self.peak_mb, self.server.rss_mb() or 0.0)

    def stop(self) -> None:
        self.halt.set()
        for thread in self.threads:
            thread.join(10)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def arrive(
    server: Server,
    bot: str,
    hands: int,
    latencies: list[float],
    turnarounds: list[float],
    delay: float,
) -> int | None:
    """Open a table ``delay`` seconds from now and play it; ``None`` if it is refused."""
    await asyncio.sleep(delay)
    token = await asyncio.to_thread(server.open_table, bot)
    if token is None:
        return None
    return await play(server.url, token, hands, latencies, turnarounds, Barrier(1), 0.0)


async def run(
    server: Server, tables: int, bot: str, hands: int, stagger: float, open_over: float = 0.0
) -> dict[str, Any]:
    latencies: list[float] = []
    turnarounds: list[float] = []
    if open_over > 0:  # people arrive while the others play: the server may turn some away
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        try:
            found = await asyncio.gather(
                *(
                    arrive(server, bot, hands, latencies, turnarounds, open_over * i / tables)
                    for i in range(tables)
                )
            )
        finally:
            gc.enable()
        counts = [count for count in found if count is not None]
        refused = tables - len(counts)
    else:
        opened = [server.open_table(bot) for _ in range(tables)]
        tokens = [token for token in opened if token is not None]
        refused = tables - len(tokens)
        starts = random.Random(tables).sample(range(len(tokens)), len(tokens))
        gc.collect()
        gc.disable()  # this client's own collections are not the server's latency
        barrier = Barrier(len(tokens))
        start = time.perf_counter()
        try:
            counts = await asyncio.gather(
                *(
                    play(
                        server.url,
                        t,
                        hands,
                        latencies,
                        turnarounds,
                        barrier,
                        stagger * starts[i] / max(1, len(tokens)),
                    )
                    for i, t in enumerate(tokens)
                )
            )
        finally:
            gc.enable()
    elapsed = time.perf_counter() - start
    return {
        "tables": tables,
        "refused": refused,
        "bots": bot,
        "hands": hands,
        "actions": sum(counts),
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "max_ms": 1000 * max(latencies),
        "wait_p50_s": statistics.median(turnarounds),
        "wait_p90_s": percentile(turnarounds, 0.9),
        "wait_max_s": max(turnarounds),
        "actions_per_s": sum(counts) / elapsed,
        "seconds": elapsed,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="10", help="tables at once; a comma list (10)")
    parser.add_argument("--bots", default="heuristic", help="the bots; a comma list (heuristic)")
    parser.add_argument("--hands", type=int, default=1, help="hands per table (1)")
    parser.add_argument("--full", action="store_true", help="10,50,200 tables x heuristic,search")
    parser.add_argument("--workers", type=int, default=None, help="the server's --workers")
    parser.add_argument("--db", default=None, help="the server's --db (default: a temporary file)")
    parser.add_argument(
        "--stagger",
        type=float,
        default=1.0,
        help="seconds over which the tables start, evenly spread (1.0; 0: all at once)",
    )
    parser.add_argument(
        "--open-over",
        type=float,
        default=0.0,
        help="open the tables one by one over these seconds while the others play, so the "
        "server's bot admission may refuse some (0: open all first)",
    )
    parser.add_argument(
        "--server-args",
        default="",
        help="more options for gongzhu serve, as one string ('--bot-wait 0.3')",
    )
    parser.add_argument(
        "--attack",
        action="store_true",
        help="run issue 39's hostile clients against the server meanwhile; print its peak memory",
    )
    parser.add_argument("--json", action="store_true", help="print each result as JSON too")
    args = parser.parse_args(argv)
    sizes = [10, 50, 200] if args.full else [int(n) for n in args.tables.split(",")]
    bots = ["heuristic", "search"] if args.full else args.bots.split(",")
    print(f"# {machine()}")
    print(f"# {' '.join(['python', 'benchmarks/web_load.py', *sys.argv[1:]])}")
    print(f"{'bots':<10} {'tables':>6} {'refused':>7} {'actions':>8} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'max ms':>8} {'wait p50 s':>10} {'wait p90 s':>10} "
          f"{'wait max s':>10} {'actions/s':>10}")  # fmt: skip
    for bot in bots:
        for tables in sizes:
            with tempfile.TemporaryDirectory() as folder:
                server = Server(
                    folder, args.workers, args.db, args.server_args.split(), args.attack
                )
                attack = Attack(server) if args.attack else None
                try:
                    if attack is not None:
                        time.sleep(2)  # the attack under way first
                    result = asyncio.run(
                        run(server, tables, bot, args.hands, args.stagger, args.open_over)
                    )
                finally:
                    if attack is not None:
                        attack.stop()
                        result["attack_cuts"] = attack.cuts
                        result["server_peak_mb"] = attack.peak_mb
                    server.stop()
            print(
                f"{bot:<10} {tables:>6} {result['refused']:>7} {result['actions']:>8} "
                f"{result['p50_ms']:>8.1f} {result['p99_ms']:>8.1f} {result['max_ms']:>8.1f} "
                f"{result['wait_p50_s']:>10.2f} {result['wait_p90_s']:>10.2f} "
                f"{result['wait_max_s']:>10.2f} {result['actions_per_s']:>10.0f}",
                flush=True,
            )
            if attack is not None:
                print(
                    f"  under attack: the server cut an attacker off {result['attack_cuts']} "
                    f"times; its memory peaked at {result['server_peak_mb']:.0f} MB",
                    flush=True,
                )
            if args.json:
                print(json.dumps(result))


if __name__ == "__main__":
    main()

"""The ``gongzhu`` command line (also ``python -m gongzhu``).

Every failure is one line on standard error, and the exit status says which
kind it was (:data:`EXIT_CODES`; ``docs/cli.rst`` lists them with examples).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

from .arena import FORMATS, run_arena
from .backends import BACKENDS, BackendUnavailable
from .bots import BOTS, Bot, make_bot, play_hand
from .errors import GongzhuError, InvalidRecord
from .match import MATCH_FORMAT
from .record import replay, replay_match, scan_records
from .rules import Rules, load_rules, variant_names
from .runner import HAND_LIMIT, MAX_WORKERS, HandLimitReached, Job, RunSummary, play_match, run
from .terminal import Style, colour_wanted, play_in_terminal, plural, print_sheet

__all__ = ["EXIT_CODES", "build_parser", "main"]

EXIT_CODES: dict[int, str] = {
    0: "success (also when the reader of the output stops early, as `| head` does)",
    1: "invalid input: a refused record, an unknown variant, an option a ruleset refuses, "
    "a match that reaches --hand-limit; `play`: end of input",
    2: "usage error: a bad command line, an unreadable input file, an --out file "
    "that cannot be written (missing folder, a folder, no permission, disk full); "
    "`serve`: the web extra is not installed, or the address cannot be listened on; "
    "`simulate`, `arena`: --backend ray without Ray installed",
    3: "internal error: a bug in gongzhu (please report it)",
    130: "interrupted (Ctrl-C)",
}
"""Every exit status of the ``gongzhu`` command, and what it means."""


def _pad(text: str, width: int) -> str:
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - shown)


class _UsageError(Exception):
    """A command-line mistake or a file that cannot be read or written: exit status 2."""


def _rules(args: argparse.Namespace) -> Rules:
    """The ruleset of ``--rules`` and ``--option NAME=VALUE``."""
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise _UsageError(f"--option takes NAME=VALUE, not {item!r}")
        try:
            options[name] = json.loads(text)
        except (json.JSONDecodeError, RecursionError, ValueError):
            options[name] = text
    return load_rules(*args.rules, **options)


def _bot_options(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``--bot-option BOT:NAME=VALUE`` (VALUE read as JSON, else text), by bot name."""
    options: dict[str, dict[str, Any]] = {}
    for item in items:
        bot, colon, rest = item.partition(":")
        name, sep, text = rest.partition("=")
        if not colon or not sep or not bot or not name:
            raise _UsageError(f"--bot-option takes BOT:NAME=VALUE, not {item!r}")
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError, ValueError):
            value = text
        options.setdefault(bot, {})[name] = value
    return options


def _bots(names: tuple[str, ...], seed: int | None, rules: Rules) -> list[Bot]:
    """One bot per seat, each told the ruleset (bots that search or sample need it)."""
    return [
        make_bot(name, None if seed is None else seed + 1 + seat, rules=rules)
        for seat, name in enumerate(names)
    ]


# -- demo, variants --


def _run_demo(args: argparse.Namespace, out: IO[str]) -> int:
    rules = _rules(args)
    bots = _bots(args.bots, args.seed, rules)
    if args.match:
        match = rules.new_match(
            args.seed, target=args.target, hands=None if args.target else args.hands
        )
        try:
            for number in play_match(match, bots, args.hand_limit):
                final = match.hands[-1].score().final
                print(f"hand {number}: final {list(final)}  totals {match.totals}", file=out)
        except HandLimitReached as exc:
            raise HandLimitReached(f"{exc}: lower --target or raise --hand-limit") from None
        print(
            f"match over after {plural(len(match.hands), 'hand')}; "
            f"losers (当猪): {list(match.losers)}",
            file=out,
        )
        return 0
    style = Style(ascii_only=True)
    hand = rules.new_hand(args.seed)
    print(f"Rules: {rules.describe()}", file=out)
    print(f"Seed:  {hand.seed}", file=out)
    for seat in range(4):
        print(f"  seat {seat}: {style.holding(hand.dealt(seat), set())}", file=out)
    print(f"Seat {hand.leader} leads.", file=out)
    play_hand(hand, bots)
    for record in hand.show_records:
        print(f"  seat {record.seat} shows {record.card} ({record.kind.value})", file=out)
    for number, trick in enumerate(hand.tricks, 1):
        print(f"trick {number:>2}: {trick}", file=out)
    print(file=out)
    print_sheet(hand.score(), out)
    return 0


def _run_variants(out: IO[str]) -> int:
    for name in variant_names():
        try:
            infos = load_rules(name).variants
        except GongzhuError as exc:
            print(f"{name:<22} (cannot load alone: {exc})", file=out)
            continue
        mine = next(i for i in infos if i.name == name)
        kind = "base" if mine.base else "modifier"
        print(f"{name:<22} {_pad(mine.title_zh, 22)} {kind:<9} {mine.summary}", file=out)
    return 0


def _as_json(value: Any) -> str:
    """A value as ``--option`` reads it (JSON), or its ``repr`` when it has no JSON form."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _run_variant(name: str, out: IO[str]) -> int:
    """``gongzhu variants NAME``: one plug-in's description, options and defaults."""
    names = variant_names()
    if name not in names:
        raise _UsageError(f"no variant named {name!r}; installed: {', '.join(names)}")
    rules = load_rules(name)
    mine = next(i for i in rules.variants if i.name == name)
    title = " ".join(t for t in (mine.title_zh, f"({mine.title})" if mine.title else "") if t)
    print(f"{name}: {title}", file=out)
    kind = "base ruleset" if mine.base else f"modifier (loaded here with {rules.names[0]})"
    print(f"  kind: {kind}", file=out)
    if mine.summary:
        print(f"  {mine.summary}", file=out)
    if mine.normalisation:
        print(f"  results: {mine.normalisation}", file=out)
    if mine.conflicts:
        print(f"  cannot be combined with: {', '.join(sorted(mine.conflicts))}", file=out)
    own = [o for o in rules.option_specs if o.owner == name]
    if not own:
        print("  options: none", file=out)
    for option in own:
        choices = (
            ""
            if option.choices is None
            else f" (one of {', '.join(map(_as_json, option.choices))})"
        )
        print(
            f"  --option {option.name}=VALUE  default {_as_json(option.default)}{choices}",
            file=out,
        )
        print(f"      {option.help}", file=out)
    return 0


# -- play --


def _run_play(args: argparse.Namespace, inp: IO[str], out: IO[str]) -> int:
    rules = _rules(args)
    style = Style(ascii_only=args.ascii, colour=colour_wanted(out))
    hand = rules.new_hand(args.seed)
    return play_in_terminal(hand, args.seat, _bots(args.bots, args.seed, rules), inp, out, style)


# -- score, replay --


def _read_input(path: str, stdin: IO[str] | None) -> str:
    """The text of FILE, or of standard input for ``-``."""
    try:
        if path == "-":
            if stdin is not None:
                return stdin.read()
            return sys.stdin.buffer.read().decode("utf-8")
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise _UsageError(
            f"cannot read {path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise _UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _refusal(exc: InvalidRecord, in_match: bool) -> str:
    """``action 20: illegal action ...`` (``hand 2, action 20: ...`` within a match)."""
    where = [f"hand {exc.hand}"] if in_match else []
    if exc.index is not None:
        where.append(f"action {exc.index}")
    return ", ".join(where) + (": " if where else "") + exc.reason


def _run_check(
    args: argparse.Namespace, stdin: IO[str] | None, out: IO[str], err: IO[str], *, verbose: bool
) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    text = _read_input(args.file, stdin)
    checked = refused = hands = 0
    try:
        entries = list(scan_records(text))
    except InvalidRecord as exc:
        print(f"{name}: {exc.reason}", file=err)
        print("0 checked, 0 refused", file=out)
        return 1
    for entry in entries:
        checked += 1
        where = (
            f"{name}:{entry.line}" if entry.line is not None else f"{name}: record {entry.index}"
        )
        record = entry.record
        in_match = isinstance(record, dict) and record.get("format") == MATCH_FORMAT
        try:
            if entry.error is not None:
                raise entry.error
            if in_match:
                match = replay_match(record)
                found = list(match.hands)
            else:
                found = [replay(record)]
        except InvalidRecord as exc:
            refused += 1
            print(f"{where}: {_refusal(exc, in_match)}", file=err)
            continue
        if in_match:
            losers = list(match.losers) if match.is_over else "-"
            print(
                f"{where}: match of {plural(len(found), 'hand')}, totals {match.totals}, "
                f"losers {losers}",
                file=out,
            )
        for number, hand in enumerate(found):
            hands += 1
            label = f"{where}: hand {number}" if in_match else where
            if verbose:
                print(f"{label}: {hand.rules.describe()}", file=out)
                for index, trick in enumerate(hand.tricks, 1):
                    print(f"  trick {index:>2}: {trick}", file=out)
            if not hand.is_over:
                print(f"{label}: unfinished, seat {hand.to_move} to move", file=out)
            elif verbose:
                print_sheet(hand.score(), out)
            else:
                sheet = hand.score()
                print(f"{label}: raw {list(sheet.raw)}  final {list(sheet.final)}", file=out)
    print(f"{checked} checked, {refused} refused", file=out)
    return 1 if refused else 0


# -- simulate --


def _progress_bar(stream: IO[str]) -> Callable[[int, int], None]:
    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // total
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def _check_backend(args: argparse.Namespace) -> None:
    """``--address`` needs ``--backend ray``."""
    if args.address is not None and args.backend != "ray":
        raise _UsageError("--address needs --backend ray")


def _maybe(value: float | None, spec: str) -> str:
    """``value`` formatted, or ``n/a`` when it is not defined."""
    return "n/a" if value is None else format(value, spec)


def _run_arena(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    _check_backend(args)
    rules = _rules(args)
    try:
        result = run_arena(
            rules,
            args.a,
            args.b,
            args.deals,
            format=args.format,
            seed=args.seed,
            workers=min(args.workers, args.deals),
            shows=args.shows,
            options=_bot_options(args.bot_option),
            progress=_progress_bar(err) if err.isatty() else None,
            backend=args.backend,
            address=args.address,
        )
    except BackendUnavailable as exc:
        raise _UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_json(), allow_nan=False), file=out)
        return 0
    print(
        f"{result.a} vs {result.b} ({result.format}, {rules!r}): "
        f"{plural(result.deals, 'deal')}, {plural(result.hands, 'hand')}",
        file=out,
    )
    print(
        f"{result.a} advantage: {result.mean:+.1f} raw points per hand "
        f"(standard error {_maybe(result.stderr, '.1f')}, z {_maybe(result.z, '+.2f')})",
        file=out,
    )
    return 0


def _print_summary(summary: RunSummary, job: Job, out: IO[str]) -> None:
    unit = "match" if job.matches else "hand"
    what = "total" if job.matches else "final score"

    def units(count: int) -> str:
        return plural(count, unit, "matches" if job.matches else "hands")

    print(units(summary.played), file=out)
    for seat in range(4):
        error = "n/a" if summary.played < 2 else f"{summary.stderr(seat):.1f}"
        line = (
            f"seat {seat} ({job.bots[seat]}): mean {what} {summary.mean(seat):+.1f} "
            f"(standard error {error})"
        )
        if job.matches:
            line += f", lost {summary.losses[seat]}"
        print(line, file=out)
    print(f"full hearts (满红) in {units(summary.full_hearts)}", file=out)
    print(f"slams (满贯) in {units(summary.slams)}", file=out)


class _OutError(Exception):
    """Writing the --out file failed (the OSError is the cause)."""


class _Records:
    """``--out FILE``: records go to a temporary file beside FILE, renamed onto it at the end.

    A device or a pipe (``/dev/stdout``) is written in place.  Until
    :meth:`commit`, an existing FILE is untouched; :meth:`discard` removes
    the temporary file.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        target = Path(path)
        folder = target.parent
        if target.is_dir():
            raise _UsageError(f"cannot write {path}: it is a folder")
        if not folder.exists():
            raise _UsageError(f"cannot write {path}: no folder {str(folder)!r}")
        if not folder.is_dir():
            raise _UsageError(f"cannot write {path}: {str(folder)!r} is not a folder")
        self.temp: str | None = None
        try:
            if target.exists() and not target.is_file():
                self.file: IO[str] = open(target, "w", encoding="utf-8")  # noqa: SIM115
                return
            if target.exists() and not os.access(target, os.W_OK):
                raise PermissionError(13, "Permission denied")
            fd, self.temp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
            self.file = os.fdopen(fd, "w", encoding="utf-8")
            if target.exists():
                mode = target.stat().st_mode & 0o7777
            else:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(self.temp, mode)
        except OSError as exc:
            self.discard()
            raise _UsageError(f"cannot write {path}: {exc.strerror or exc}") from None

    def write(self, text: str) -> None:
        """Write records (an error becomes :class:`_OutError`)."""
        try:
            self.file.write(text)
        except OSError as exc:
            raise _OutError() from exc

    def flush(self) -> None:
        """Flush them to the file (an error becomes :class:`_OutError`)."""
        try:
            self.file.flush()
        except OSError as exc:
            raise _OutError() from exc

    def commit(self) -> None:
        """Close the temporary file and rename it onto FILE."""
        try:
            self.file.close()
            if self.temp is not None:
                os.replace(self.temp, self.path)
                self.temp = None
        except OSError as exc:
            self.discard()
            raise _UsageError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def discard(self) -> None:
        """Close and remove the temporary file; FILE is left as it was."""
        with contextlib.suppress(OSError, AttributeError):
            self.file.close()
        if self.temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.temp)
            self.temp = None


def _run_simulate(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    if args.target is not None and not args.matches:
        raise _UsageError("--target needs --matches")
    _check_backend(args)
    rules = _rules(args)
    if args.matches and args.target is None and not rules.decides_match_end:
        raise _UsageError(
            f"{' + '.join(rules.names)} matches have no end of their own: give --target"
        )
    job = Job(
        variants=rules.names,
        options=tuple(sorted(rules.options.items())),
        bots=args.bots,
        seed=args.seed,
        matches=args.matches,
        target=args.target,
        records=args.out is not None,
        hand_limit=args.hand_limit,
    )
    workers = min(args.workers, args.hands)
    progress = _progress_bar(err) if err.isatty() else None
    sink = _Records(args.out) if args.out is not None else None  # every check is done
    committed = False
    try:
        try:
            summary = run(
                job,
                args.hands,
                workers=workers,
                out=sink,
                progress=progress,
                backend=args.backend,
                address=args.address,
            )
        except BackendUnavailable as exc:
            raise _UsageError(str(exc)) from None
        except KeyboardInterrupt as exc:
            partial: RunSummary = getattr(exc, "summary", RunSummary())
            if sink is not None:
                sink.commit()  # the whole records written so far
                committed = True
            done = plural(partial.played, "match", "matches") if job.matches else None
            done = done or plural(partial.played, "hand")
            print(f"\ninterrupted after {done}", file=err)
            if partial.played:
                _print_summary(partial, job, out)
            return 130
        except _OutError as exc:
            cause = exc.__cause__
            if isinstance(cause, BrokenPipeError):  # --out /dev/stdout | head
                raise cause from None
            reason = getattr(cause, "strerror", None) or str(cause)
            raise _UsageError(f"cannot write {args.out}: {reason}") from None
        except HandLimitReached as exc:
            raise HandLimitReached(f"{exc}: lower --target or raise --hand-limit") from None
        if sink is not None:
            sink.commit()
            committed = True
    finally:
        if sink is not None and not committed:
            sink.discard()
    print(
        f"rules {rules!r}, bots {','.join(args.bots)}, seed {args.seed}, "
        f"{plural(workers, 'worker')}" + (" (ray)" if args.backend == "ray" else ""),
        file=out,
    )
    _print_summary(summary, job, out)
    if args.out:
        print(f"records: {args.out}", file=out)
    return 0


# -- serve --


def _run_serve(args: argparse.Namespace, out: IO[str]) -> int:
    """``gongzhu serve``: open a table, print its links, serve until Ctrl-C.

    The web modules are imported here, so other commands never load them.
    """
    from .web import MissingExtra, require_extra

    try:
        require_extra()
    except MissingExtra as exc:
        raise _UsageError(str(exc)) from None
    from .web.lobby import Lobby
    from .web.serve import base_url, open_socket, print_links, serve

    if args.target is not None and args.match:
        raise _UsageError("--target already plays a match: drop --match")
    lobby = Lobby(bot_delay=args.bot_delay)
    table = None
    if not args.no_table:
        table = lobby.open_table(
            _rules(args),
            args.seats,
            seed=args.seed,
            hands=None if args.match or args.target else args.hands,
            target=args.target,
        )
    try:
        sock = open_socket(args.host, args.port)
    except OSError as exc:
        raise _UsageError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        ) from None
    url = base_url(sock)
    print(f"gongzhu serving on {url} (Ctrl-C stops it)", file=out)
    print(f"  open a table: {url}/   hand viewer: {url}/viewer", file=out)
    if table is not None:
        print_links(table, url, out)
    out.flush()
    serve(lobby, sock)
    return 0


def _seat_players(text: str) -> tuple[str, ...]:
    """``--seats``: four comma-separated players, seat 0 first: ``human`` or a bot's name."""
    names = tuple(name.strip() for name in text.split(","))
    unknown = [name for name in names if name != "human" and name not in BOTS]
    if unknown or len(names) != 4 or "human" not in names:
        problem = (
            f"no bot named {unknown[0]!r}"
            if unknown
            else f"{len(names)} names"
            if len(names) != 4
            else "no person"
        )
        raise argparse.ArgumentTypeError(
            f"{problem}: give four players, comma-separated, at least one 'human', "
            f"the others from {', '.join(sorted(BOTS))}"
        )
    return names


def _bounded(
    convert: Callable[[str], Any], low: float, high: float, expected: str, out_of_range: str
) -> Callable[[str], Any]:
    """An argparse type: ``convert(text)`` from ``low`` to ``high``, with the messages given
    (``expected`` ends "not <text>", ``out_of_range`` "not <value>")."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{expected}, not {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{out_of_range}, not {value}")
        return value

    return parse


_port = _bounded(int, 0, 65535, "expected a port number", "a port is 0-65535")
"""``--port``: 0 (any free port) to 65535."""

_delay = _bounded(float, 0, 10, "expected seconds", "must be from 0 to 10 seconds")
"""``--bot-delay``: seconds, 0 to 10."""


def _add_serve_options(
    serve: argparse.ArgumentParser, rules_option: Callable[[argparse.ArgumentParser], None]
) -> None:
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="port to listen on; 0 for any free one (default 8000)",
    )
    rules_option(serve)
    serve.add_argument(
        "--seats",
        type=_seat_players,
        default=("human", "heuristic", "heuristic", "heuristic"),
        metavar="P,P,P,P",
        help="the table's players, seat 0 first: human (a link is printed) or a bot's name "
        "(default human,heuristic,heuristic,heuristic)",
    )
    serve.add_argument("--hands", type=_positive, default=1, help="hands to play (default 1)")
    serve.add_argument("--target", type=_positive, default=None, help="play a match to ±T")
    serve.add_argument(
        "--match", action="store_true", help="play a match until the ruleset ends it"
    )
    serve.add_argument("--seed", type=int, default=None, help="seed for the deals and the bots")
    serve.add_argument(
        "--bot-delay",
        type=_delay,
        default=0.6,
        metavar="SECONDS",
        help="how long a bot waits before acting (default 0.6)",
    )
    serve.add_argument(
        "--no-table", action="store_true", help="open no table: tables are opened from the page"
    )


# -- the parser --


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``gongzhu demo: error: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive(text: str) -> int:
    """An argument that is a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _workers(text: str) -> int:
    """``--workers``: from 1 to :data:`~gongzhu.runner.MAX_WORKERS`."""
    value = _positive(text)
    if value > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_WORKERS}, not {value}")
    return value


def _backend_options(p: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--address`` (simulate, arena)."""
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local processes (default) or Ray tasks (needs gongzhu[ray])",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDRESS",
        help="the Ray cluster to run on (auto, ray://HOST:10001); default: a local Ray",
    )


def _bot_names(text: str) -> tuple[str, str, str, str]:
    """``--bots``: one bot name for every seat, or four, comma-separated (seat 0 first)."""
    names = tuple(name.strip() for name in text.split(","))
    unknown = [name for name in names if name not in BOTS]
    if unknown or len(names) not in (1, 4):
        problem = f"no bot named {unknown[0]!r}" if unknown else f"{len(names)} names"
        raise argparse.ArgumentTypeError(
            f"{problem}: give one bot name or four, comma-separated, from {', '.join(sorted(BOTS))}"
        )
    if len(names) == 1:
        names = names * 4
    return names  # type: ignore[return-value]


def _bot_name(text: str) -> str:
    """An arena side: one registered bot name."""
    if text not in BOTS:
        raise argparse.ArgumentTypeError(
            f"no bot named {text!r}: choose from {', '.join(sorted(BOTS))}"
        )
    return text


def _version() -> str:
    try:
        return importlib.metadata.version("gongzhu")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        from . import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gongzhu`` command."""
    parser = _Parser(prog="gongzhu", description="拱猪 (Gong Zhu) rules engine")
    parser.add_argument("--version", action="version", version=f"gongzhu {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bot_help = (
        f"the bots: one name for every seat, or four comma-separated (seat 0 first); "
        f"bots: {', '.join(sorted(BOTS))} (default: random)"
    )

    def rules_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", nargs="*", default=[], metavar="NAME", help="variant names")
        p.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a ruleset option (VALUE read as JSON, else text): --option match_target=800",
        )

    def bots_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--bots",
            type=_bot_names,
            default=("random",) * 4,
            metavar="NAME[,NAME,NAME,NAME]",
            help=bot_help,
        )
        p.add_argument(
            "--bot", type=_bot_names, dest="bots", help=argparse.SUPPRESS
        )  # old spelling

    def limit_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--hand-limit",
            type=_positive,
            default=HAND_LIMIT,
            metavar="N",
            help=f"give up (status 1) on a match not over after N hands (default {HAND_LIMIT})",
        )

    demo = sub.add_parser("demo", help="four bots play a hand (or a match); print it")
    rules_option(demo)
    demo.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    bots_option(demo)
    demo.add_argument("--match", action="store_true", help="play a match rather than one hand")
    demo.add_argument("--target", type=_positive, default=None, help="match target (e.g. 1000)")
    demo.add_argument(
        "--hands", type=_positive, default=4, help="hands in a match without target (default 4)"
    )
    limit_option(demo)

    variants = sub.add_parser("variants", help="list the installed variant plug-ins, or show one")
    variants.add_argument(
        "name", nargs="?", metavar="NAME", help="a plug-in: its summary, options and defaults"
    )

    play = sub.add_parser("play", help="play a hand in the terminal against three bots")
    rules_option(play)
    play.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat")
    bots_option(play)
    play.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    play.add_argument("--ascii", action="store_true", help="no colour: S H D C, T for ten")

    for name, text in (
        ("score", "check and score records"),
        ("replay", "check and replay records"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument(
            "file",
            metavar="FILE",
            help="a hand or match record (JSON), or hands (JSON Lines); - for standard input",
        )
        if name == "replay":
            cmd.add_argument("--verbose", action="store_true", help="print every trick")

    sim = sub.add_parser("simulate", help="play many hands between bots")
    rules_option(sim)
    bots_option(sim)
    sim.add_argument(
        "--hands", type=_positive, default=1000, help="how many hands (or matches); default 1000"
    )
    sim.add_argument("--matches", action="store_true", help="play whole matches")
    sim.add_argument("--target", type=_positive, default=None, help="match target")
    limit_option(sim)
    sim.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="K",
        help=f"processes, at most {MAX_WORKERS} (never more than --hands)",
    )
    sim.add_argument("--seed", type=int, default=0, help="the run's seed")
    _backend_options(sim)
    sim.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write every record to FILE (JSON Lines), replacing it only when the run ends",
    )

    arena = sub.add_parser("arena", help="measure bot A against bot B on duplicate deals")
    arena.add_argument("a", type=_bot_name, metavar="A", help="bot A (its advantage is measured)")
    arena.add_argument("b", type=_bot_name, metavar="B", help="bot B")
    rules_option(arena)
    arena.add_argument(
        "--format", choices=FORMATS, default="2v2", help="2v2 (partners opposite) or 1v3"
    )
    arena.add_argument("--deals", type=_positive, default=100, help="duplicate deals; default 100")
    arena.add_argument(
        "--workers", type=_workers, default=1, metavar="K", help=f"processes, at most {MAX_WORKERS}"
    )
    arena.add_argument("--seed", type=int, default=0, help="the run's seed")
    _backend_options(arena)
    arena.add_argument(
        "--shows", action="store_true", help="let the bots show cards (default: none)"
    )
    arena.add_argument(
        "--bot-option",
        action="append",
        default=[],
        metavar="BOT:NAME=VALUE",
        help="an option for every bot of that name (VALUE read as JSON, else text): "
        "--bot-option search:objective=team",
    )
    arena.add_argument("--json", action="store_true", help="print the result as one JSON object")

    serve = sub.add_parser("serve", help="play in the browser (extra gongzhu[web])")
    _add_serve_options(serve, rules_option)
    return parser


def _run(args: argparse.Namespace, stdin: IO[str] | None, out: IO[str], err: IO[str]) -> int:
    if args.command == "demo":
        if args.target is not None and not args.match:
            raise _UsageError("--target needs --match")
        return _run_demo(args, out)
    if args.command == "variants":
        return _run_variants(out) if args.name is None else _run_variant(args.name, out)
    if args.command == "play":
        return _run_play(args, stdin or sys.stdin, out)
    if args.command in ("score", "replay"):
        verbose = args.command == "replay" and args.verbose
        return _run_check(args, stdin, out, err, verbose=verbose)
    if args.command == "simulate":
        return _run_simulate(args, out, err)
    if args.command == "arena":
        return _run_arena(args, out, err)
    if args.command == "serve":
        return _run_serve(args, out)
    raise _UsageError(f"unknown command {args.command}")  # pragma: no cover


def _quiet_stdout() -> None:
    """After a broken pipe: send what is left of stdout to /dev/null (as the Python docs advise)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None, *, stdin: IO[str] | None = None) -> int:
    """Run the command line; return the exit status (:data:`EXIT_CODES`).

    A bad command line raises :class:`SystemExit` (status 2), as argparse does.
    """
    args = build_parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        status = _run(args, stdin, out, err)
        out.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except _UsageError as exc:
        print(f"gongzhu: {exc}", file=err)
        return 2
    except (GongzhuError, ValueError) as exc:
        print(f"gongzhu: {exc}", file=err)
        return 1
    except KeyboardInterrupt:
        print("\ngongzhu: interrupted", file=err)
        return 130
    except Exception as exc:  # no traceback reaches a user
        if os.environ.get("GONGZHU_DEBUG"):
            raise
        print(
            f"gongzhu: internal error: {type(exc).__name__}: {exc} "
            "(please report it; GONGZHU_DEBUG=1 shows the traceback)",
            file=err,
        )
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

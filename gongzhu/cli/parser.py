"""The command line's grammar: the parser, the argument types, and usage errors.

A bad command line is refused by the parser itself (one line, status 2).
What can be checked only when a command runs (``--option NAME=VALUE``,
``--bot-option BOT:NAME=VALUE``, combinations of options, files) raises
:class:`UsageError`, which :func:`gongzhu.cli.main` reports the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from ..arena import FORMATS
from ..backends import BACKENDS
from ..bots import BOTS, TABLE_FORMATS, UnknownBot
from ..errors import HandLimitReached
from ..rules import Rules, load_rules
from ..runner import HAND_LIMIT, MAX_WORKERS

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["UsageError", "bot_options", "build_parser", "ruleset"]

DEMO_MATCH_HANDS = 4
"""How many hands ``demo --match`` plays when there is no ``--target``."""


class UsageError(Exception):
    """A command-line mistake or a file that cannot be read or written: exit status 2."""


def ruleset(args: argparse.Namespace) -> Rules:
    """The ruleset of ``--rules`` and ``--option NAME=VALUE``."""
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, not {item!r}")
        if name in options:
            raise UsageError(f"--option {name} is given twice")
        try:
            options[name] = json.loads(text)
        except (json.JSONDecodeError, RecursionError, ValueError):
            options[name] = text
    return load_rules(*args.rules, **options)


def with_hint(exc: HandLimitReached) -> HandLimitReached:
    """``exc`` saying what a user can do about a match that reached ``--hand-limit``."""
    hint = "raise --hand-limit" + (" or lower --target" if exc.target is not None else "")
    return HandLimitReached(f"{exc}: {hint}", exc.target)


def bot_options(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``--bot-option BOT:NAME=VALUE`` (VALUE read as JSON, else text), by bot name."""
    options: dict[str, dict[str, Any]] = {}
    for item in items:
        bot, colon, rest = item.partition(":")
        name, sep, text = rest.partition("=")
        if not colon or not sep or not bot or not name:
            raise UsageError(f"--bot-option takes BOT:NAME=VALUE, not {item!r}")
        if name in options.get(bot, {}):
            raise UsageError(f"--bot-option {bot}:{name} is given twice")
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError, ValueError):
            value = text
        options.setdefault(bot, {})[name] = value
    return options


# -- argument types --


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``gongzhu demo: error: ...``.

    An unknown argument is named by the command it was given to, and a
    ``--rules`` that took a command's bots as variant names says so.
    """

    commands: dict[str, argparse.ArgumentParser]
    """The subcommands' parsers, by name (set on the top parser by :func:`build_parser`)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse drops a write that fails; help asked for on standard output must
        # reach it or fail the command (main says so: status 2, a full disk)
        if file is not None and file is sys.stdout:
            if message:
                file.write(message)
            return
        if file is None and sys.stdout is None:  # help or version, standard output closed
            if sys.stderr is not None:  # (both closed: a usage error comes here too)
                sys.stderr.write("gongzhu: standard output is closed\n")
            raise SystemExit(2)
        super()._print_message(message, file)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            commands = getattr(self, "commands", {})
            command = commands.get(getattr(parsed, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _bots_after_rules(self) -> list[str]:
        """Bot names that ``--rules NAME ...`` took as variant names."""
        given = getattr(self, "_given", [])
        if "--rules" not in given:
            return []
        names = []
        for word in given[given.index("--rules") + 1 :]:
            if word.startswith("-"):
                break
            names.append(word)
        return [name for name in names if name in BOTS]

    def error(self, message: str) -> NoReturn:
        swallowed = self._bots_after_rules() if "arguments are required" in message else []
        if swallowed:
            message += (
                f" (--rules took {' '.join(swallowed)} as variant names: "
                "give the bots before --rules)"
            )
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


def _bot_names(text: str) -> tuple[str, str, str, str]:
    """``--bots``: one bot name for every seat, or four, comma-separated (seat 0 first)."""
    names = tuple(name.strip() for name in text.split(","))
    unknown = [name for name in names if name not in BOTS]
    if unknown or len(names) not in (1, 4):
        problem = f"no gongzhu bot named {unknown[0]!r}" if unknown else f"{len(names)} names"
        raise argparse.ArgumentTypeError(
            f"{problem}: give one bot name or four, comma-separated, from {', '.join(sorted(BOTS))}"
        )
    if len(names) == 1:
        names = names * 4
    return names  # type: ignore[return-value]


def _bot_name(text: str) -> str:
    """An arena side: one registered bot name."""
    if text not in BOTS:
        raise argparse.ArgumentTypeError(str(UnknownBot(text, BOTS)))
    return text


def _seat_players(text: str) -> tuple[str, ...]:
    """``--seats``: four comma-separated players, seat 0 first: ``human`` or a bot's name."""
    names = tuple(name.strip() for name in text.split(","))
    unknown = [name for name in names if name != "human" and name not in BOTS]
    if unknown or len(names) != 4 or "human" not in names:
        problem = (
            f"no gongzhu bot named {unknown[0]!r}"
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


# -- options shared by commands --


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


_serve_seconds = _bounded(
    float, 0, 10**8, "expected seconds", "must be from 0 to 100000000 seconds"
)
"""``serve --keep-finished``, ``--keep-idle``, ``--keep-unjoined``: seconds."""

_serve_workers = _bounded(int, 0, 64, "expected a whole number", "must be from 0 to 64")
"""``serve --workers``: 0 (threads) to 64 processes."""


_serve_rate = _bounded(
    float, 0.001, 10**6, "expected a number a second", "must be from 0.001 to 1000000 a second"
)
"""``serve --message-rate``, ``--client-rate``: a rate, a second."""

_serve_timeout = _bounded(
    float, 1, 10**8, "expected seconds", "must be from 1 to 100000000 seconds"
)
"""``serve --turn-timeout``: seconds."""

_serve_wait = _bounded(float, 0.01, 3600, "expected seconds", "must be from 0.01 to 3600 seconds")
"""``serve --bot-wait``: seconds."""

_serve_connections = _bounded(int, 1, 10**6, "expected a whole number", "must be from 1 to 1000000")
"""``serve --max-connections``, ``--bot-queue``: a count."""


def _proxy(text: str) -> str:
    """``serve --trusted-proxy``: an address or a network."""
    import ipaddress

    try:
        return str(ipaddress.ip_network(text.strip(), strict=False))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an address or a network (10.0.0.5, 10.0.0.0/8, ::1), not {text!r}"
        ) from None


def _db_path(text: str) -> str:
    """``serve --db``: a file's path, or ``:memory:``; not empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give the database's path, or :memory: to keep nothing")
    return text


def _format_option(p: argparse.ArgumentParser) -> None:
    """``--format``: a table's format, told to every bot it seats (default ``solo``)."""
    p.add_argument(
        "--format",
        choices=TABLE_FORMATS,
        default="solo",
        help="solo (each seat for itself; default) or 2v2 (partners opposite: seats 0 and 2 "
        "against 1 and 3); the bots are told it",
    )


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
    _format_option(serve)
    serve.add_argument(
        "--seats",
        type=_seat_players,
        default=("human", "heuristic", "heuristic", "heuristic"),
        metavar="P,P,P,P",
        help="the table's players, seat 0 first: human (a link is printed) or a bot's name "
        "(default human,heuristic,heuristic,heuristic)",
    )
    length = serve.add_mutually_exclusive_group()
    length.add_argument("--hands", type=_positive, default=None, help="hands to play (default 1)")
    length.add_argument("--target", type=_positive, default=None, help="play a match to ±T")
    length.add_argument(
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
    serve.add_argument(
        "--db",
        type=_db_path,
        default=None,
        metavar="PATH",
        help="the database the tables are kept in, so a restart loses none (default "
        "gongzhu/serve.sqlite3 in your data folder); :memory: keeps nothing",
    )
    serve.add_argument(
        "--workers",
        type=_serve_workers,
        default=None,
        metavar="N",
        help="processes the bots and replays run in (default one per CPU; 0: threads)",
    )
    serve.add_argument(
        "--max-tables",
        type=_positive,
        default=200,
        metavar="N",
        help="tables the server holds at most (default 200)",
    )
    serve.add_argument(
        "--tables-per-client",
        type=_positive,
        default=10,
        metavar="N",
        help="unfinished tables one client address may open (default 10)",
    )
    serve.add_argument(
        "--max-hands",
        type=_positive,
        default=100,
        metavar="N",
        help="hands a match has at most (default 100)",
    )
    serve.add_argument(
        "--keep-finished",
        type=_serve_seconds,
        default=3600.0,
        metavar="SECONDS",
        help="how long a finished table stays open (default 3600)",
    )
    serve.add_argument(
        "--keep-idle",
        type=_serve_seconds,
        default=86400.0,
        metavar="SECONDS",
        help="how long a table nobody is at, and nobody plays, stays open (default 86400)",
    )
    serve.add_argument(
        "--keep-unjoined",
        type=_serve_seconds,
        default=600.0,
        metavar="SECONDS",
        help="how long a table nobody has joined yet stays open (default 600)",
    )
    serve.add_argument(
        "--origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin (https://example.org) whose pages may use this server; repeatable",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        type=_proxy,
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy (address or network) whose X-Forwarded-For names the client; "
        "repeatable (default none: the header is ignored)",
    )
    serve.add_argument(
        "--max-connections",
        type=_serve_connections,
        default=None,
        metavar="N",
        help="connections served at once (default 1000, or 64 fewer than the open-file limit)",
    )
    serve.add_argument(
        "--message-rate",
        type=_serve_rate,
        default=10.0,
        metavar="PER_SECOND",
        help="websocket messages one connection may send a second (default 10; 30 at once)",
    )
    serve.add_argument(
        "--client-rate",
        type=_serve_rate,
        default=30.0,
        metavar="PER_SECOND",
        help="requests, and websocket messages, one client address may send a second "
        "(default 30; 90 at once)",
    )
    serve.add_argument(
        "--turn-timeout",
        type=_serve_timeout,
        default=900.0,
        metavar="SECONDS",
        help="an unfinished table whose person has not acted for this long is closed (default 900)",
    )
    serve.add_argument(
        "--bot-queue",
        type=_serve_connections,
        default=None,
        metavar="N",
        help="bot decisions waiting at most before new bot tables are refused "
        "(default 4 per worker)",
    )
    serve.add_argument(
        "--bot-tables",
        type=_serve_connections,
        default=None,
        metavar="N",
        help="unfinished tables with bots at most; more are refused (default 8 per worker)",
    )
    serve.add_argument(
        "--bot-wait",
        type=_serve_wait,
        default=1.0,
        metavar="SECONDS",
        help="new bot tables are refused while a tenth of the bots' decisions take longer "
        "(default 1.0)",
    )
    serve.add_argument(
        "--prune-after",
        type=_serve_seconds,
        default=30 * 86400.0,
        metavar="SECONDS",
        help="closed tables are deleted from the database after this long; 0 keeps them "
        "(default 2592000, 30 days)",
    )
    serve.add_argument(
        "--access-log",
        default=None,
        metavar="FILE",
        help="write a line per request to FILE (- for standard error; seat tokens hidden)",
    )


# -- the parser --


def _version() -> str:
    from .. import __version__  # the one place the version is written (pyproject.toml reads it)

    return __version__


class _VersionAction(argparse.Action):
    """``--version``, as argparse's, with the version read only when it is asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        text = f"gongzhu {_version()}\n"
        # as argparse prints its own version (on stderr when there is no stdout), except
        # that a write that fails is main's to report (a full disk: status 2)
        parser._print_message(text, sys.stdout)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gongzhu`` command."""
    parser = _Parser(prog="gongzhu", description="拱猪 (Gong Zhu) rules engine")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bot_help = (
        f"the bots: one name for every seat, or four comma-separated (seat 0 first); "
        f"bots: {', '.join(sorted(BOTS))} (default: random)"
    )

    def rules_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--rules",
            nargs="*",
            action="extend",
            default=[],
            metavar="NAME",
            help="variant names (--rules A B and --rules A --rules B are the same)",
        )
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
            default=None,
            metavar="N",
            help=f"give up (status 1) on a match not over after N hands (default {HAND_LIMIT})",
        )

    demo = sub.add_parser("demo", help="four bots play a hand (or a match); print it")
    rules_option(demo)
    demo.add_argument("--seed", type=int, default=None, help="seed for the deal and the bots")
    bots_option(demo)
    _format_option(demo)
    demo.add_argument("--match", action="store_true", help="play a match rather than one hand")
    demo.add_argument("--target", type=_positive, default=None, help="match target (e.g. 1000)")
    demo.add_argument(
        "--hands",
        type=_positive,
        default=None,
        help=f"hands in a match without a target (default {DEMO_MATCH_HANDS})",
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
    _format_option(play)
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
    _format_option(sim)
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
    parser.commands = dict(sub.choices)
    return parser

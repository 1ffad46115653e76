"""The ``gongzhu`` command line (also ``python -m gongzhu``).

Every failure is one line on standard error, and the exit status says which
kind it was (:data:`EXIT_CODES`; ``docs/cli.rst`` lists them with examples).

The package holds one job per module; :func:`main` runs a command:

- ``gongzhu.cli.parser``: the argument parser (:func:`build_parser`), the
  argument types and usage errors (status 2);
- ``gongzhu.cli.variants``: ``variants``, the installed plug-ins;
- ``gongzhu.cli.play``: ``demo`` and ``play``, a hand played out on the terminal;
- ``gongzhu.cli.records``: ``score`` and ``replay``, which check record files,
  and the ``--out`` file ``simulate`` writes;
- ``gongzhu.cli.runs``: ``simulate`` and ``arena``, many hands over processes or Ray;
- ``gongzhu.cli.serve``: ``serve``, play in the browser (:mod:`gongzhu.web`,
  imported only by this command);
- ``gongzhu.cli.interrupts``: how a command stops on Ctrl-C and on SIGTERM.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from ..errors import GongzhuError, one_line
from .interrupts import Terminated, interrupted_line, sigterm_stops

# The commands' modules (and through them the rules, the bots...) are imported by main,
# where a Ctrl-C is caught: ``import gongzhu.cli`` itself is quick.
if TYPE_CHECKING:
    import argparse

__all__ = ["EXIT_CODES", "build_parser", "main"]

EXIT_CODES: dict[int, str] = {
    0: "success (also when the reader of the output stops early, as `| head` does)",
    1: "invalid input: a refused record (or a file with none), an unknown variant, "
    "an option a ruleset refuses, a plug-in that cannot be loaded or whose code fails "
    "(`variants` lists the others), "
    "a match that reaches --hand-limit; `play`: end of input before the hand is over",
    2: "usage error: a bad command line, an unreadable input file, an --out file "
    "that cannot be written (missing folder, a folder, no permission, disk full); "
    "standard input or output closed, or standard output that cannot be written (disk full); "
    "`serve`: the web extra is not installed, or the address cannot be listened on; "
    "`simulate`, `arena`: --backend ray without Ray installed, or no Ray cluster at --address",
    3: "internal error: a bug in gongzhu (please report it)",
    130: "interrupted (Ctrl-C)",
    143: "terminated (SIGTERM, as `timeout` sends): the run is stopped and an --out file "
    "left as it was",
}
"""Every exit status of the ``gongzhu`` command, and what it means."""


class OutputError(Exception):
    """Standard output cannot be written (the :class:`OSError` is the cause)."""


class _Output:
    """Standard output for a command: a failed write (a full disk) is an
    :class:`OutputError`; a reader that went away is still a :class:`BrokenPipeError`."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError() from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError() from exc

    def __getattr__(self, name: str) -> object:  # isatty, fileno, encoding...
        return getattr(self._stream, name)


class _Messages:
    """Standard error for messages: a message that cannot be written (a full disk) is
    dropped, so the exit status stays the one the message was about."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            written = self._stream.write(text)
            self._stream.flush()
        except UnicodeError:
            raise
        except (OSError, ValueError):  # a full disk; a closed file
            self._drop()
            return len(text)
        return written

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            self._drop()

    def _drop(self) -> None:
        """What could not be written is not tried again at exit (which would fail the run)."""
        _to_devnull(self._stream)
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str) -> object:  # isatty, fileno, encoding...
        return getattr(self._stream, name)


def _messages() -> IO[str]:
    """Where a command's messages go: standard error, or nowhere when it is closed (``2>&-``;
    never into standard output, where Python's ``print`` would send them)."""
    if sys.stderr is None:
        return io.StringIO()
    return _Messages(sys.stderr)  # type: ignore[return-value]


def build_parser() -> argparse.ArgumentParser:
    """The ``gongzhu`` argument parser (:func:`gongzhu.cli.parser.build_parser`)."""
    from .parser import build_parser

    return build_parser()


def _input(stdin: IO[str] | None) -> IO[str]:
    """The stream ``play`` reads moves from (a usage error when standard input is closed)."""
    from .parser import UsageError

    stream = stdin or sys.stdin
    if stream is None:
        raise UsageError("play reads moves from standard input, which is closed")
    return stream


def _check_together(args: argparse.Namespace, flag: str, given: bool, *needing: str) -> None:
    """Options that mean something only with ``flag`` are refused without it."""
    from .parser import UsageError

    if given:
        return
    for option in needing:
        if getattr(args, option.lstrip("-").replace("-", "_")) is not None:
            raise UsageError(f"{option} needs {flag}")


def _run(args: argparse.Namespace, stdin: IO[str] | None, out: IO[str], err: IO[str]) -> int:
    from .parser import UsageError

    if args.command == "demo":
        from .play import run_demo

        _check_together(args, "--match", args.match, "--target", "--hands", "--hand-limit")
        if args.target is not None and args.hands is not None:
            raise UsageError("--target and --hands: a match plays to a target or for N hands")
        return run_demo(args, out)
    if args.command == "variants":
        from .variants import run_variant, run_variants

        return run_variants(out, err) if args.name is None else run_variant(args.name, out)
    if args.command == "play":
        from .play import run_play

        return run_play(args, _input(stdin), out, err)
    if args.command in ("score", "replay"):
        from .records import run_check

        verbose = args.command == "replay" and args.verbose
        return run_check(args, stdin, out, err, verbose=verbose)
    if args.command == "simulate":
        from .runs import run_simulate

        _check_together(args, "--matches", args.matches, "--target", "--hand-limit")
        return run_simulate(args, out, err)
    if args.command == "arena":
        from .runs import run_arena

        return run_arena(args, out, err)
    if args.command == "serve":
        from .serve import run_serve

        return run_serve(args, out)
    raise UsageError(f"unknown command {args.command}")  # pragma: no cover


def _to_devnull(stream: IO[str] | None) -> None:
    """Send what is left of ``stream`` to /dev/null (as the Python docs advise after a
    broken pipe): what could not be written is not tried again at exit."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())  # type: ignore[union-attr]
        finally:
            os.close(devnull)


def _quiet_stdout() -> None:
    """After a broken pipe or a failed write: the rest of standard output goes nowhere."""
    _to_devnull(sys.stdout)


def _settle_stdout() -> None:
    """Before a failing command's message: what it printed reaches its reader, or is dropped
    if it cannot be written (the status says what failed, not the failed flush at exit)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        _quiet_stdout()


def _failed(message: str, status: int, err: IO[str]) -> int:
    """Print ``message`` as one line (a plug-in's error may say more) and return ``status``."""
    _settle_stdout()
    fresh = "\n" if message.startswith("\n") else ""  # after ^C on a terminal
    print(fresh + one_line(message), file=err)
    return status


def _stdout_failed(cause: BaseException | None, err: IO[str] | None) -> int:
    """Standard output cannot be written (a full disk): say so in one line; the status, 2."""
    _quiet_stdout()  # what could not be written is not tried again at exit
    reason = getattr(cause, "strerror", None) or str(cause)
    if err is not None:
        print(f"gongzhu: cannot write standard output: {reason}", file=err)
    return 2


def _flush_or_exit() -> None:
    """Flush standard output; if it cannot be written (a full disk), say so and exit 2."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
    except OSError as exc:
        raise SystemExit(_stdout_failed(exc, _messages())) from None


def _escape_what_cannot_be_encoded() -> None:
    """Standard output and error in an encoding without the cards' and rules' Chinese names
    (``PYTHONIOENCODING=ascii``, a C locale without UTF-8 mode): such characters are
    written as ``\\u62f1`` escapes instead of failing the command."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None, *, stdin: IO[str] | None = None) -> int:
    """Run the command line; return the exit status (:data:`EXIT_CODES`).

    A bad command line raises :class:`SystemExit` (status 2), as argparse does.
    """
    _escape_what_cannot_be_encoded()
    try:
        with sigterm_stops():
            return _main(argv, stdin)
    except KeyboardInterrupt:  # while the commands are loaded or the command line read
        return _failed(interrupted_line(sys.stderr), 130, _messages())
    except Terminated:
        return _failed("gongzhu: terminated", 143, _messages())


def _main(argv: Sequence[str] | None, stdin: IO[str] | None) -> int:
    from .parser import UsageError

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        if exc.code == 0:  # --help, --version: printed, and it must reach its reader
            _flush_or_exit()
        else:  # the usage error's message reaches stderr, or is dropped (2>/dev/full)
            _messages().flush()
        raise
    except BrokenPipeError:  # --help | head -1, unbuffered
        _quiet_stdout()
        return 0
    except OSError as exc:  # --help > /dev/full, unbuffered
        return _stdout_failed(exc, _messages())
    err = _messages()
    if sys.stdout is None:  # started with stdout closed (`gongzhu demo >&-`)
        print("gongzhu: standard output is closed", file=err)
        return 2
    out: IO[str] = _Output(sys.stdout)  # type: ignore[assignment]
    try:
        status = _run(args, stdin, out, err)
        out.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except OutputError as exc:
        return _stdout_failed(exc.__cause__, err)
    except UsageError as exc:
        return _failed(f"gongzhu: {exc}", 2, err)
    except (GongzhuError, ValueError) as exc:
        return _failed(f"gongzhu: {exc}", 1, err)
    except KeyboardInterrupt:
        return _failed(interrupted_line(err), 130, err)
    except Exception as exc:  # no traceback reaches a user
        if os.environ.get("GONGZHU_DEBUG"):
            raise
        return _failed(
            f"gongzhu: internal error: {type(exc).__name__}: {exc} "
            "(please report it; GONGZHU_DEBUG=1 shows the traceback)",
            3,
            err,
        )

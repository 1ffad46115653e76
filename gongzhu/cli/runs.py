"""``gongzhu simulate`` and ``gongzhu arena``: many hands over processes or Ray."""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable, Mapping
from typing import IO, Any

from .. import arena
from ..backends import BackendUnavailable
from ..bots import BOTS
from ..errors import HandLimitReached
from ..rules import Rules
from ..runner import HAND_LIMIT, Job, RunInterrupted, RunSummary, run
from ..terminal import plural
from .interrupts import interrupted_line
from .parser import UsageError, bot_options, ruleset, with_hint
from .records import OutError, Records

__all__ = ["run_arena", "run_simulate"]


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
        raise UsageError("--address needs --backend ray")


def _maybe(value: float | None, spec: str) -> str:
    """``value`` formatted, or ``n/a`` when it is not defined."""
    return "n/a" if value is None else format(value, spec)


_NOT_OPTIONS = frozenset({"self", "seed", "rules"})
"""Parameters of a bot's factory that the command line gives, not ``--bot-option``."""


def _bot_option_names(name: str) -> list[str] | None:
    """The keyword options bot ``name`` takes, or ``None`` when its factory takes any."""
    try:
        parameters = inspect.signature(BOTS[name]).parameters.values()
    except (TypeError, ValueError):  # a factory with no signature to read
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return sorted(
        p.name
        for p in parameters
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in _NOT_OPTIONS
    )


def _check_bot_options(options: Mapping[str, Mapping[str, Any]], playing: list[str]) -> None:
    """Every ``--bot-option`` names a bot that plays, and an option that bot takes."""
    for name, values in options.items():
        if name not in playing:
            if name not in BOTS:
                raise UsageError(
                    f"--bot-option {name}:...: no bot named {name!r}; bots: {', '.join(BOTS)}"
                )
            raise UsageError(
                f"--bot-option {name}:...: {name} is not playing (A {playing[0]}, B {playing[1]})"
            )
        known = _bot_option_names(name)
        for option in values:
            if known is not None and option not in known:
                listed = ", ".join(known) or "none"
                raise UsageError(
                    f"--bot-option {name}:{option}=...: {name} has no option {option!r}; "
                    f"its options: {listed}"
                )


def run_arena(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``gongzhu arena A B``: bot A against bot B on duplicate deals."""
    _check_backend(args)
    options = bot_options(args.bot_option)
    _check_bot_options(options, [args.a, args.b])
    rules = ruleset(args)
    try:
        result = arena.run_arena(
            rules,
            args.a,
            args.b,
            args.deals,
            format=args.format,
            seed=args.seed,
            workers=min(args.workers, args.deals),
            shows=args.shows,
            options=options,
            progress=_progress_bar(err) if err.isatty() else None,
            backend=args.backend,
            address=args.address,
        )
    except BackendUnavailable as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt as exc:  # the deals finished so far are still a result
        partial: arena.ArenaResult | None = getattr(exc, "result", None)
        done = f" after {plural(partial.deals, 'deal')}" if partial is not None else ""
        print(interrupted_line(err, done), file=err)
        if partial is not None:
            _print_arena(partial, rules, args.json, out, requested=args.deals)
        return 130
    _print_arena(result, rules, args.json, out)
    return 0


def _print_arena(
    result: arena.ArenaResult,
    rules: Rules,
    as_json: bool,
    out: IO[str],
    requested: int | None = None,
) -> None:
    """What ``arena`` prints: the result, as text or JSON; ``requested``, the deals asked
    for, where a Ctrl-C cut the run short (it says so)."""
    if as_json:
        found = result.to_json()
        if requested is not None:
            found.update(interrupted=True, requested=requested)
        print(json.dumps(found, allow_nan=False), file=out)
        return
    cut = "" if requested is None else f" (of {requested:,}, interrupted)"
    print(
        f"{result.a} vs {result.b} ({result.format}, {rules!r}): "
        f"{plural(result.deals, 'deal')}{cut}, {plural(result.hands, 'hand')}",
        file=out,
    )
    print(
        f"{result.a} advantage: {result.mean:+.1f} raw points per hand "
        f"(standard error {_maybe(result.stderr, '.1f')}, z {_maybe(result.z, '+.2f')})",
        file=out,
    )


def _print_summary(
    summary: RunSummary, job: Job, out: IO[str], requested: int | None = None
) -> None:
    unit = "match" if job.matches else "hand"
    what = "total" if job.matches else "final score"

    def units(count: int) -> str:
        return plural(count, unit, "matches" if job.matches else "hands")

    cut = "" if requested is None else f" (of {requested:,}, interrupted)"
    print(units(summary.played) + cut, file=out)
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


def run_simulate(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``gongzhu simulate``: many hands (or matches) between bots; their scores."""
    _check_backend(args)
    rules = ruleset(args)
    if args.matches and args.target is None and not rules.decides_match_end:
        raise UsageError(
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
        hand_limit=HAND_LIMIT if args.hand_limit is None else args.hand_limit,
        format=args.format,
    )
    workers = min(args.workers, args.hands)
    header = (
        f"rules {rules!r}, bots {','.join(args.bots)}"
        f"{'' if args.format == 'solo' else f' ({args.format})'}, seed {args.seed}, "
        f"{plural(workers, 'worker')}" + (" (ray)" if args.backend == "ray" else "")
    )
    progress = _progress_bar(err) if err.isatty() else None
    sink = Records(args.out) if args.out is not None else None  # every check is done
    # records on standard output are the output (`--out - | gongzhu score -`): the report
    # goes to standard error
    report = err if sink is not None and sink.to_stdout else out
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
            raise UsageError(str(exc)) from None
        except KeyboardInterrupt as exc:
            partial = exc.summary if isinstance(exc, RunInterrupted) else RunSummary()
            done = plural(partial.played, "match", "matches") if job.matches else None
            done = done or plural(partial.played, "hand")
            kept = None
            if sink is not None:  # the whole records written so far, kept before anything
                kept = sink.keep_partial(bool(partial.played))  # else, never onto an old file
                committed = True
            where = ""
            if kept is not None and kept != args.out:
                where = f"; {args.out} is unchanged, the records so far are in {kept}"
            print(interrupted_line(err, f" after {done}{where}"), file=err)
            if partial.played:
                _print_report(partial, job, header, kept, report, requested=args.hands)
            return 130
        except OutError as exc:
            cause = exc.__cause__
            if isinstance(cause, BrokenPipeError):  # --out /dev/stdout | head
                raise cause from None
            reason = getattr(cause, "strerror", None) or str(cause)
            raise UsageError(f"cannot write {args.out}: {reason}") from None
        except HandLimitReached as exc:
            raise with_hint(exc) from None
        _commit_after(lambda: _print_report(summary, job, header, args.out, report), report, sink)
        committed = True
    finally:
        if sink is not None and not committed:
            sink.discard()
    return 0


def _commit_after(report: Callable[[], None], out: IO[str], sink: Records | None) -> None:
    """Print the report and flush it, then rename the records onto the ``--out`` file: a
    run whose report cannot be written (a full disk) fails and leaves the file as it was.
    A reader that went away (``| head``) is not a failure: the records are kept."""
    try:
        report()
        out.flush()
    except BrokenPipeError:
        if sink is not None:
            sink.commit()
        raise
    if sink is not None:
        sink.commit()


def _print_report(
    summary: RunSummary,
    job: Job,
    header: str,
    path: str | None,
    out: IO[str],
    requested: int | None = None,
) -> None:
    """What ``simulate`` prints, also when interrupted: the run, the summary, where the
    records are."""
    print(header, file=out)
    _print_summary(summary, job, out, requested)
    if path:
        print(f"records: {'standard output' if path == '-' else path}", file=out)

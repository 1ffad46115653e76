"""Record files: checking them (``score``, ``replay``) and writing them (``simulate --out``)."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import itertools
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO, Final

from ..errors import InvalidRecord
from ..match import MATCH_FORMAT
from ..record import replay, replay_match, scan_record_lines
from ..terminal import plural, print_deal, print_sheet
from .interrupts import TEMPORARY
from .parser import UsageError

__all__ = ["OutError", "Records", "read_lines", "run_check"]


# -- score, replay --


MAX_LINE: Final = 1 << 30
"""The longest line ``score`` and ``replay`` read, and the longest JSON document written
over several lines, in characters (1 GiB of ASCII); JSON Lines files may be of any length."""

_CHUNK: Final = 1 << 20


def read_lines(path: str, stdin: IO[str] | None) -> Iterator[str]:
    """The lines of FILE, or of standard input for ``-``, each without its ``\\n``, as read.

    It is read a MiB at a time (so Ctrl-C stops it, and a file of JSON Lines
    of any length is read in little memory) and refused as soon as it
    cannot be a file of records: bytes that are not UTF-8, a NUL byte
    (records are JSON text), or a line longer than :data:`MAX_LINE`.

    :raises UsageError: the file cannot be read, or cannot be one of records.
    """
    if not path:
        raise UsageError("cannot read a file with an empty name")
    try:
        if path == "-":
            if stdin is not None:
                yield from (line.removesuffix("\n") for line in stdin)
                return
            if sys.stdin is None:  # started with stdin closed (`gongzhu score - <&-`)
                raise UsageError("cannot read standard input: it is closed")
            if _written_here(sys.stdin.buffer):  # `gongzhu score - < F >> F`
                raise UsageError(
                    "cannot read standard input: it is where this command writes "
                    "(its output or errors)"
                )
            yield from _text_lines(sys.stdin.buffer, path)
            return
        with open(path, "rb") as stream:
            if _written_here(stream):
                raise UsageError(
                    f"cannot read {path}: it is where this command writes (its output or errors)"
                )
            yield from _text_lines(stream, path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _written_here(stream: BinaryIO) -> bool:
    """Whether ``stream`` is a file this process writes to (``score F >> F``): reading it
    would read back what the command writes, without end."""
    try:
        mine = os.fstat(stream.fileno())
    except (OSError, ValueError):  # no file behind it (a stream in memory)
        return False
    return stat.S_ISREG(mine.st_mode) and any(
        _open_as(mine, out) for out in (sys.stdout, sys.stderr)
    )


def _open_as(file: os.stat_result, stream: IO[str] | None) -> bool:
    """Whether ``stream`` (standard output or error, maybe closed) is open on ``file``."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        return os.path.samestat(file, os.fstat(stream.fileno()))  # type: ignore[union-attr]
    return False


def _check_length(size: int, path: str) -> None:
    if size > MAX_LINE:
        raise UsageError(
            f"cannot read {path}: a line longer than {MAX_LINE:,} characters, the most read"
        )


def _text_lines(stream: BinaryIO, path: str) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")()
    line: list[str] = []  # the parts of the line begun
    size = 0  # its length
    number = 0  # the lines read
    start = 0  # the offset of the chunk in the file
    read = getattr(stream, "read1", stream.read)  # what a pipe has, without waiting for more
    while chunk := read(_CHUNK):
        pending = decoder.getstate()[0]  # bytes of a character begun in the last chunk
        nul = chunk.find(b"\0")
        data = chunk if nul < 0 else chunk[:nul]
        problem = None if nul < 0 else f"not text (a NUL byte at byte {start + nul}"
        try:
            text = decoder.decode(data)
        except UnicodeDecodeError as exc:
            text = (pending + data)[: exc.start].decode("utf-8")
            at = start - len(pending) + exc.start
            problem = f"not UTF-8 text ({exc.reason} at byte {at}"
        *ended, begun = text.split("\n")
        for piece in ended:  # the end of the line begun, then whole lines
            line.append(piece)
            _check_length(size + len(piece), path)
            yield "".join(line)  # every line before a bad byte is checked
            number += 1
            line, size = [], 0
        line.append(begun)
        size += len(begun)
        _check_length(size, path)
        if problem is not None:
            raise UsageError(f"cannot read {path}: {problem}, line {number + 1})")
        start += len(chunk)
    try:
        line.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"cannot read {path}: not UTF-8 text ({exc.reason} at the end, line {number + 1})"
        ) from None
    yield "".join(line)


def _refusal(exc: InvalidRecord, in_match: bool) -> str:
    """``action 20: illegal action ...`` (``hand 2, action 20: ...`` within a match;
    ``match: ...`` for what is wrong with the match record itself)."""
    where = [] if not in_match else ["match"] if exc.hand is None else [f"hand {exc.hand}"]
    if exc.index is not None:
        where.append(f"action {exc.index}")
    return ", ".join(where) + (": " if where else "") + exc.reason


def run_check(
    args: argparse.Namespace, stdin: IO[str] | None, out: IO[str], err: IO[str], *, verbose: bool
) -> int:
    """``gongzhu score FILE`` and ``gongzhu replay FILE``: replay every record, print its scores."""
    name = "<stdin>" if args.file == "-" else args.file
    checked = refused = hands = 0
    entries = scan_record_lines(read_lines(args.file, stdin), max_document=MAX_LINE)
    try:
        first = next(entries, None)
    except InvalidRecord as exc:  # no record at all
        print(f"{name}: {exc.reason}", file=err)
        print("0 checked, 0 refused", file=out)
        return 1
    for entry in itertools.chain((first,) if first is not None else (), entries):
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
                print_deal(hand, out)
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


# -- simulate --out --


class OutError(Exception):
    """Writing the --out file failed (the OSError is the cause)."""


def _is_stdout(path: Path) -> bool:
    """Whether ``path`` is the file open as standard output (``/dev/stdout``)."""
    try:
        return _open_as(path.stat(), sys.stdout)
    except OSError:
        return False


class Records:
    """``--out FILE``: records go to a temporary file beside FILE, renamed onto it at the end.

    A device or a pipe (``/dev/stdout``) is written in place, and ``-`` is standard
    output.  Until
    :meth:`commit`, an existing FILE is untouched; :meth:`discard` removes
    the temporary file.  A symbolic link to a file is followed: the file it
    names is replaced, and the link kept.
    """

    temp: str | None
    """The temporary file, until it is renamed or removed (``None``: written in place)."""
    existed = False
    """Whether FILE existed when the run began (an interrupted run leaves it as it was)."""
    file: IO[str]
    _owned = True  # closed here (not standard output)

    @property
    def to_stdout(self) -> bool:
        """Whether the records go to standard output (``-``, ``/dev/stdout``)."""
        return self.file is sys.stdout

    def __init__(self, path: str) -> None:
        self.path = path
        if not path:
            raise UsageError("--out needs a file name, not an empty one")
        if path == "-":  # standard output, as ``score -`` reads standard input
            self.temp, self._target, self.file, self._owned = None, path, sys.stdout, False
            return
        target = Path(path)
        # /dev/stdout and its kind (/proc/self/fd/N) name an open file: written in place,
        # even when that file is a regular one (`> res.txt`), appending as a shell would
        special = str(target.absolute()).startswith(("/dev/", "/proc/"))
        if special and target.exists():
            self.temp = None
            self._target = path
            if _is_stdout(target):  # one stream, one offset: written through sys.stdout
                self.file = sys.stdout
                self._owned = False
                return
            try:
                self.file = open(target, "a", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
            return
        if target.is_symlink() and target.is_file():  # a link to a file: kept
            target = Path(os.path.realpath(path))  # the temporary file goes beside that file
        self._target = str(target)
        folder = target.parent
        if target.is_dir():
            raise UsageError(f"cannot write {path}: it is a folder")
        if not folder.exists():
            raise UsageError(f"cannot write {path}: no folder {str(folder)!r}")
        if not folder.is_dir():
            raise UsageError(f"cannot write {path}: {str(folder)!r} is not a folder")
        self.temp = None
        self.existed = target.exists()
        try:
            if target.exists() and not target.is_file():
                self.file = open(target, "w", encoding="utf-8")  # noqa: SIM115
                return
            if target.exists() and not os.access(target, os.W_OK):
                raise PermissionError(13, "Permission denied")
            fd, self.temp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
            TEMPORARY.add(self.temp)
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
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None

    def write(self, text: str) -> None:
        """Write records (an error becomes :class:`OutError`)."""
        try:
            self.file.write(text)
        except OSError as exc:
            raise OutError() from exc

    def flush(self) -> None:
        """Flush them to the file (an error becomes :class:`OutError`)."""
        try:
            self.file.flush()
        except OSError as exc:
            raise OutError() from exc

    def commit(self) -> None:
        """Close the temporary file and rename it onto FILE."""
        try:
            if self._owned:
                self.file.close()
            else:
                self.file.flush()
            if self.temp is not None:
                os.replace(self.temp, self._target)
                TEMPORARY.discard(self.temp)
                self.temp = None
        except OSError as exc:
            self.discard()
            raise UsageError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def keep_partial(self, written: bool) -> str | None:
        """After an interrupted run: keep the records written so far, never in place of a
        FILE that existed before the run.

        :param written: whether any record was written.
        :return: where the records are: FILE, when it did not exist (or is written
            in place: standard output, a device); beside an existing FILE, the
            first free name of ``FILE.interrupted``, ``FILE.interrupted.2``…;
            ``None`` when none was written (nothing is left behind).
        """
        if self.temp is None:
            self.commit()
            return self.path
        if not written:
            self.discard()
            return None
        if not self.existed:
            self.commit()
            return self.path
        with contextlib.suppress(OSError, AttributeError):
            self.file.close()
        number = 1
        while True:
            kept = f"{self._target}.interrupted" + (f".{number}" if number > 1 else "")
            try:
                os.link(self.temp, kept)  # never onto a file that exists
            except FileExistsError:
                number += 1
                continue
            except OSError:  # no hard links here (exFAT, some network mounts): claim the
                try:  # name, then move the records onto it; never lose them
                    os.close(os.open(kept, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    number += 1
                    continue
                except OSError as exc:
                    raise UsageError(
                        f"cannot write {kept}: {exc.strerror or exc}; the records so far "
                        f"are in {self.temp}"
                    ) from None
                os.replace(self.temp, kept)
                TEMPORARY.discard(self.temp)
                self.temp = None
                return kept
            self.discard()
            return kept

    def discard(self) -> None:
        """Close and remove the temporary file; FILE is left as it was."""
        with contextlib.suppress(OSError, AttributeError):
            if self._owned:
                self.file.close()
        if self.temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.temp)
            TEMPORARY.discard(self.temp)
            self.temp = None

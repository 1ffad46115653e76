"""The server's database: every table, seat token, action and finished record, in SQLite.

``gongzhu serve`` keeps its tables in an SQLite file in the user's data
folder (:func:`default_path`; ``--db PATH`` chooses another, ``--db
:memory:`` keeps nothing).  Each step of a table (an action, or the deal of
the next hand) is committed before anyone is told of it, with the record of
the hand it finished and the match's record when it finished the match, in
one transaction.  The database is in WAL mode with ``synchronous=NORMAL``: a
commit survives the server being killed (``SIGKILL``, a crash), though not
necessarily a power cut.

A restart rebuilds every table that was not closed (:meth:`Store.open_tables`
and :meth:`Table.rebuild <gongzhu.web.table.Table.replay_steps>`): the match's
seed gives the same deals and the actions replay exactly, so the players'
links work again as they were.  A closed table's records stay in the
database, and its links still download them.

The database holds every open table's seed and seat tokens, so a new file
is made readable by its owner only (mode 0600), and a folder made for it
0700.  The file is held by one server at a time (SQLite's exclusive locking mode),
and a file that is not a database of ``gongzhu serve`` is refused without
being touched.

>>> store = Store.open(":memory:")
>>> store.find("no-such-token") is None
True
>>> store.close()
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from ..errors import GongzhuError

if TYPE_CHECKING:
    from .table import Table

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "Store", "StoreError", "StoredTable", "default_path"]

APPLICATION_ID: Final = 0x677A_7762
"""SQLite's ``application_id`` of a ``gongzhu serve`` database ("gzwb")."""

SCHEMA_VERSION: Final = 1
"""The database's layout (SQLite's ``user_version``); a newer one is refused."""

FILE_NAME: Final = "serve.sqlite3"
"""The database's name in the user's data folder."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    client TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    token TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_of_table ON seats (table_id);
CREATE TABLE IF NOT EXISTS steps (
    table_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    hand INTEGER NOT NULL,
    seat INTEGER,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, step)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
    table_id TEXT NOT NULL,
    hand INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (table_id, hand)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS matches (
    table_id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
"""

OPEN, OVER, CLOSED = "open", "over", "closed"


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """A write transaction: committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class StoreError(GongzhuError):
    """The database cannot be used: not one of ``gongzhu serve``, in use, unreadable..."""


def default_path() -> Path:
    """Where the database is by default: ``gongzhu/serve.sqlite3`` in the user's data folder.

    ``$XDG_DATA_HOME`` (else ``~/.local/share``) on Linux and other Unixes,
    ``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on Windows.
    """
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "gongzhu" / FILE_NAME


@attrs.frozen
class StoredTable:
    """A table as the database holds it, to be rebuilt.

    :ivar spec: ``rules`` (:meth:`Rules.spec <gongzhu.rules.Rules.spec>`),
        ``players``, ``seed``, ``hands``, ``target``, ``format`` (absent from a table
        written before tables had one: ``"solo"``) (as the database holds it: checked
        when the table is rebuilt).
    :ivar tokens: the seats' link tokens, seat 0 first.
    :ivar steps: ``(seat, action)`` in order; ``(None, "next")`` deals a hand.
    """

    id: str
    spec: Any
    tokens: tuple[str, ...]
    client: str | None
    created: float
    updated: float
    status: str
    steps: tuple[tuple[int | None, str], ...]
    moved: float | None = None
    """When its last step was taken (``None``: it took none)."""

    @property
    def joined(self) -> bool:
        """Whether a person joined the table or it took a step (:meth:`Store.join`)."""
        return bool(self.steps) or self.updated > self.created


def _check_file(path: Path) -> None:
    """Refuse a file that is not a ``gongzhu serve`` database, without writing to it."""
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot read the database {path}: {exc.strerror or exc}") from None
    if not header:
        return  # an empty file: a new database
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise StoreError(f"{path} is not a gongzhu serve database (not SQLite): left as it is")
    application = int.from_bytes(header[68:72], "big")
    version = int.from_bytes(header[60:64], "big")
    if application != APPLICATION_ID and not _empty_database(path):
        raise StoreError(f"{path} is another program's SQLite database: left as it is")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer gongzhu (layout {version}; this one reads "
            f"{SCHEMA_VERSION}): left as it is"
        )


def _create_private(path: Path) -> None:
    """Create ``path`` empty, readable by its owner only, unless it exists (SQLite gives
    its write-ahead log the database's permissions): the database holds every open
    table's seed and seat tokens."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return
    except OSError as exc:
        raise StoreError(f"cannot create the database {path}: {exc.strerror or exc}") from None


def _empty_database(path: Path) -> bool:
    """Whether the SQLite file at ``path`` holds nothing at all (read without writing)."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0)
    except sqlite3.Error:
        return False
    try:
        return bool(db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0)
    except sqlite3.Error:
        return False
    finally:
        db.close()


class Store:
    """A ``gongzhu serve`` database; open it with :meth:`open`.

    Its methods are called from one thread at a time (the server's event loop).
    """

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self.path = path
        """The database's file (``":memory:"`` for one in memory)."""

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Store:
        """Open (or create) the database at ``path``; ``":memory:"`` for one in memory.

        :raises StoreError: the file is not a ``gongzhu serve`` database, is
            newer, is in use by another server, or cannot be read or created.
        """
        name = os.fspath(path)
        if name != ":memory:":
            file = Path(name)
            _check_file(file)
            try:
                file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot make the folder of the database {file}: {exc.strerror or exc}"
                ) from None
            _create_private(file)
        try:
            db = sqlite3.connect(name, timeout=0, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the database {name}: {exc}") from None
        try:
            db.execute("PRAGMA locking_mode=EXCLUSIVE")  # one server at a time: held until closed
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:  # written since the file's header was (WAL)
                raise StoreError(
                    f"{name} was written by a newer gongzhu (layout {version}; this one reads "
                    f"{SCHEMA_VERSION}): left as it is"
                )
            db.executescript(
                "BEGIN IMMEDIATE;"
                + _SCHEMA
                + f"PRAGMA application_id={APPLICATION_ID};"
                + f"PRAGMA user_version={SCHEMA_VERSION};"
                + "COMMIT;"
            )
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file says what it is at once
        except sqlite3.OperationalError as exc:
            db.close()
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreError(
                    f"the database {name} is in use by another gongzhu serve"
                ) from None
            raise StoreError(f"cannot use the database {name}: {exc}") from None
        except sqlite3.Error as exc:
            db.close()
            raise StoreError(f"cannot use the database {name}: {exc}") from None
        except StoreError:
            db.close()
            raise
        return cls(db, name)

    def __repr__(self) -> str:
        return f"<Store {self.path}>"

    def close(self) -> None:
        """Close the database (every write is already committed)."""
        self._db.close()

    # -- writing -------------------------------------------------------------------------

    def add_table(self, table: Table) -> None:
        """Write a new table: its ruleset, players, seed, length, client and seat tokens.

        :raises StoreError: a table of that id is already in the database, or the
            database cannot be written (a full disk).
        """
        match = table.match
        spec = {
            "rules": table.rules.spec(),
            "players": table.players,
            "seed": match.seed,
            "hands": match.max_hands,
            "target": match.target,
            "format": table.format,
        }
        db = self._db
        try:
            db.execute("BEGIN")
            db.execute(
                "INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?)",
                (table.id, json.dumps(spec), table.client, table.created, table.updated, OPEN),
            )
            db.executemany(
                "INSERT INTO seats VALUES (?, ?, ?)",
                [(seat.token, table.id, seat.index) for seat in table.seats],
            )
            db.execute("COMMIT")
        except sqlite3.IntegrityError:
            db.execute("ROLLBACK")
            raise StoreError(f"the database already has a table {table.id}") from None
        except sqlite3.Error as exc:  # a full disk, a file gone read-only...
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StoreError(f"cannot write a new table to the database: {exc}") from None

    def has_table(self, table_id: str) -> bool:
        """Whether the database has a table of this id (open or closed)."""
        row = self._db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None

    def step(
        self,
        table: Table,
        seat: int | None,
        action: str,
        *,
        record: Mapping[str, Any] | None = None,
        match: Mapping[str, Any] | None = None,
        step: int | None = None,
        hand: int | None = None,
        at: float | None = None,
    ) -> None:
        """Write step number ``step`` (by default :attr:`table.steps
        <gongzhu.web.table.Table.steps>`) of hand ``hand`` (:attr:`table.number
        <gongzhu.web.table.Table.number>`), taken at ``at`` (:attr:`table.updated
        <gongzhu.web.table.Table.updated>`), with the hand's record when it
        finished one and the match's when it finished the match: one
        transaction, committed when this returns.

        A step already written (the same number) is left as it is, so a step can be
        written again after a failure without doubt.

        :raises StoreError: the database cannot be written (a full disk).
        """
        db = self._db
        number = table.number if hand is None else hand
        when = table.updated if at is None else at
        row = (table.id, table.steps if step is None else step, number, seat, action, when)
        try:
            with _transaction(db):
                db.execute("INSERT OR IGNORE INTO steps VALUES (?, ?, ?, ?, ?, ?)", row)
                if record is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO records VALUES (?, ?, ?)",
                        (table.id, number, json.dumps(record)),
                    )
                if match is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO matches VALUES (?, ?)",
                        (table.id, json.dumps(match)),
                    )
                if record is not None or match is not None:
                    db.execute(
                        "UPDATE tables SET updated = ?, status = ? WHERE id = ?",
                        (when, OPEN if match is None else OVER, table.id),
                    )
        except sqlite3.Error as exc:  # a full disk, a file gone read-only...
            raise StoreError(f"cannot write a step of table {table.id}: {exc}") from None

    def join(self, table: Table) -> None:
        """Mark ``table`` joined: its ``updated`` time, written now, is past its ``created``
        one (which a table nobody joined and that took no step keeps), so that a restart
        rebuilds it as joined (:attr:`StoredTable.joined`)."""
        try:
            self._db.execute(
                "UPDATE tables SET updated = ? WHERE id = ?",
                (max(table.updated, math.nextafter(table.created, math.inf)), table.id),
            )
        except sqlite3.Error as exc:  # a full disk, a file gone read-only...
            raise StoreError(f"cannot write that table {table.id} was joined: {exc}") from None

    def close_table(self, table: Table) -> None:
        """Mark ``table`` closed: it is not rebuilt again; its records stay, and the
        match's record so far (:meth:`~gongzhu.web.table.Table.full_match_record`)."""
        db = self._db
        try:
            with _transaction(db):
                if table.records:
                    db.execute(
                        "INSERT OR REPLACE INTO matches VALUES (?, ?)",
                        (table.id, json.dumps(table.full_match_record())),
                    )
                db.execute(
                    "UPDATE tables SET status = ?, updated = ? WHERE id = ?",
                    (CLOSED, time.time(), table.id),
                )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write that table {table.id} is closed: {exc}") from None

    def prune(self, before: float) -> int:
        """Delete the tables closed before ``before`` (``time.time()`` seconds), with their
        seats, steps and records; return how many.

        :raises StoreError: the database cannot be written.
        """
        db = self._db
        try:
            ids = [
                row[0]
                for row in db.execute(
                    "SELECT id FROM tables WHERE status = ? AND updated < ?", (CLOSED, before)
                )
            ]
            if not ids:
                return 0
            with _transaction(db):
                for table_id in ids:
                    for name, column in (
                        ("seats", "table_id"),
                        ("steps", "table_id"),
                        ("records", "table_id"),
                        ("matches", "table_id"),
                        ("tables", "id"),
                    ):
                        db.execute(f"DELETE FROM {name} WHERE {column} = ?", (table_id,))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot prune the database: {exc}") from None
        return len(ids)

    # -- reading -------------------------------------------------------------------------

    def open_tables(self) -> list[StoredTable]:
        """Every table not closed, oldest first, with its steps."""
        db = self._db
        tables = []
        rows = db.execute(
            "SELECT id, spec, client, created, updated, status FROM tables "
            "WHERE status != ? ORDER BY created",
            (CLOSED,),
        ).fetchall()
        for table_id, spec, client, created, updated, status in rows:
            tokens = [
                token
                for (token,) in db.execute(
                    "SELECT token FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
                )
            ]
            rows = db.execute(
                "SELECT seat, action, at FROM steps WHERE table_id = ? ORDER BY step",
                (table_id,),
            ).fetchall()
            steps = tuple((seat, action) for seat, action, _at in rows)
            updated = max([updated, *(at for _seat, _action, at in rows)])
            moved = max((at for _seat, _action, at in rows), default=None)
            try:
                parsed = json.loads(spec)
            except (ValueError, RecursionError):
                parsed = spec  # the table is refused when it is rebuilt, the others are not
            tables.append(
                StoredTable(
                    table_id,
                    parsed,
                    tuple(tokens),
                    client,
                    created,
                    updated,
                    status,
                    steps,
                    moved,
                )
            )
        return tables

    def find(self, token: str) -> tuple[str, int, str] | None:
        """The table id, seat and status (``open``, ``over``, ``closed``) of a seat token."""
        row = self._db.execute(
            "SELECT seats.table_id, seats.seat, tables.status FROM seats "
            "JOIN tables ON tables.id = seats.table_id WHERE seats.token = ?",
            (token,),
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def hand_records(self, table_id: str) -> list[dict[str, Any]]:
        """The full records of a table's finished hands, in order."""
        return [
            json.loads(text)
            for (text,) in self._db.execute(
                "SELECT record FROM records WHERE table_id = ? ORDER BY hand", (table_id,)
            )
        ]

    def match_record(self, table_id: str) -> dict[str, Any] | None:
        """The full record of a table's match: finished, or as far as it went when the
        table was closed (``losers`` is ``null``); ``None`` if it has no finished hand."""
        row = self._db.execute(
            "SELECT record FROM matches WHERE table_id = ?", (table_id,)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def counts(self) -> dict[str, int]:
        """How many tables of each status, steps and records the database holds."""
        db = self._db
        found = {status: 0 for status in (OPEN, OVER, CLOSED)}
        for status, count in db.execute("SELECT status, count(*) FROM tables GROUP BY status"):
            found[status] = count
        found["steps"] = db.execute("SELECT count(*) FROM steps").fetchone()[0]
        found["records"] = db.execute("SELECT count(*) FROM records").fetchone()[0]
        return found

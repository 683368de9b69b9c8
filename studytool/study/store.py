"""The progress store: one SQLite file with each card's schedule and the review log.

Progress is keyed by `deck/id`, never by card text, so editing a card keeps its
schedule and a removed card keeps its history. Times are stored as UTC text in
one fixed format (`2026-01-31T09:05:00.000000Z`), which sorts like time itself
and is read by SQLite's date functions.

Safety: an existing file is first opened read-only and checked (integrity,
schema version); only then is it opened for writing. A file that fails the
check is never modified: every process checks the file in full before its
first write (`guard.py`), and the day's first write takes a backup first
(`backup.py`). A read-only check
leaves no -wal/-shm files. Every write is one `BEGIN IMMEDIATE` transaction, so
two sessions at once queue on `busy_timeout` instead of failing with
"database is locked".

The schema and the read-only check are in `migrations.py`; the rows as Python in `records.py`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from studytool.config import now as clock_now
from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.migrations import check_database, unreadable
from studytool.study.schema import BUSY_TIMEOUT_S, MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION, is_damage, read_only_uri
from studytool.study.records import (Answer, BadRow, LogRow, Schedule, format_time, params_of, parse_time, rating_of,
                                     schedule_from_row, schedule_row)


def _storable(text: str) -> str:
    """Text SQLite can hold: each byte that was not UTF-8 (read from stdin as a lone surrogate) becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


class AnsweredSince(StudytoolError):
    """`Store.undo` of an answer whose card was answered again since, elsewhere: nothing was taken back."""


class Store:
    """An open progress database. Use `open_store`; close with `close()` or `with`."""

    def __init__(self, con: sqlite3.Connection, path: Path):
        self.con = con
        self.path = path
        self.batching = False   # inside `batch()`: transactions join it, one commit at its end
        self.guard: Any = None   # guard.Guard, set by open_store: the full check before the first write
        self.opened: tuple[int, int] | None = None   # the file's (device, inode) as opened; None: held in memory

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        """Close; damage SQLite met mid-command (after the open-time check passed) is the open-time error's line,
        naming the backup to restore, and the file is not noted as checked: the next writer checks it in full.
        A row holding what studytool never writes (`records.BadRow`) is said in that line too."""
        failed = self._failed(error) if is_damage(error) else None
        if isinstance(error, BadRow):   # a value studytool never writes: the same line as damage, naming the backup
            from studytool.study.backup import damaged

            failed = damaged(self.path, [error.reason])
        self.close()
        if failed is not None:
            raise failed from None

    def _failed(self, error: sqlite3.Error) -> StudytoolError:
        """The one-line error for what SQLite reported; damage also keeps the file from being noted as checked."""
        if is_damage(error) and self.guard is not None:
            self.guard.distrust()
        return unreadable(self.path, error)

    def close(self) -> None:
        if self.guard is None:
            self.con.close()
        else:
            self.guard.close(self.con)   # stops a check nobody waits for; notes the file as left if it passed

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers wait instead of failing."""
        if self.batching:
            yield self.con
            return
        if self.guard is not None:
            self.guard.wait()   # a database that fails the full integrity check is never written (guard.py)
        try:
            self.con.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self._failed(error) from None
        if self._replaced():
            self.con.rollback()
            raise StudytoolError(_("{path} was replaced while this command ran (by 'studytool backup restore'?): "
                                   "nothing more was written to it; run the command again").format(path=self.path))
        try:
            yield self.con
            self.con.execute("COMMIT")
        except sqlite3.Error as error:  # disk full, I/O error ...: nothing half-written, one line for the user
            self.con.rollback()
            raise self._failed(error) from None
        except BaseException:
            self.con.rollback()
            raise

    def _replaced(self) -> bool:
        """Whether another file now stands where this store opened its file (a restore moved that one aside: what
        this connection writes would go there, unseen by every later command)."""
        if self.opened is None:
            return False
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return True
        return (found.st_dev, found.st_ino) != self.opened

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes, one transaction and one commit (to disk once): all of them, or, on an error, none."""
        with self.transaction():
            self.batching = True
            try:
                yield
            finally:
                self.batching = False

    # --- schema -------------------------------------------------------------

    def version(self) -> int:
        has_table = self.con.execute("SELECT 1 FROM sqlite_master WHERE name = 'migrations'").fetchone()
        if not has_table:
            return 0
        return self.con.execute("SELECT max(version) FROM migrations").fetchone()[0] or 0

    def migrate(self, target: int = SCHEMA_VERSION) -> None:
        """Apply the pending migrations up to `target`, each recorded with its time."""
        with self.transaction() as con:
            con.execute(MIGRATIONS_TABLE)
            for version in range(self.version() + 1, target + 1):
                for statement in MIGRATIONS[version - 1]:
                    con.execute(statement)
                con.execute(
                    "INSERT INTO migrations (version, applied) VALUES (?, ?)",
                    (version, format_time(clock_now())),
                )

    # --- settings -----------------------------------------------------------

    def setting(self, name: str, default: str) -> str:
        row = self.con.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
        return row[0] if row else default

    def set_setting(self, name: str, value: str) -> None:
        with self.transaction() as con:
            con.execute("INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)", (name, value))

    # --- schedules ----------------------------------------------------------

    def schedule(self, key: str) -> Schedule | None:
        row = self.con.execute("SELECT * FROM cards WHERE key = ?", (key,)).fetchone()
        return schedule_from_row(row) if row else None

    def schedules(self) -> dict[str, Schedule]:
        """Every scheduled card (one row per card, not the log)."""
        return {row["key"]: schedule_from_row(row) for row in self.con.execute("SELECT * FROM cards")}

    def scheduled_keys(self) -> set[str]:
        return {row[0] for row in self.con.execute("SELECT key FROM cards")}

    def due(self, until: datetime) -> list[tuple[str, Schedule]]:
        """Cards due at or before `until`, most overdue first (uses the `due` index)."""
        rows = self.con.execute("SELECT * FROM cards WHERE due <= ? ORDER BY due", (format_time(until),))
        return [(row["key"], schedule_from_row(row)) for row in rows]

    # --- answers ------------------------------------------------------------

    def record(self, answer: Answer, reschedule: Callable[[Schedule | None], Schedule] | None = None) -> int:
        """Log one answer and, in review mode, move the card's schedule; one commit.

        `reschedule` gets the card's current schedule (None when new) read inside
        the same transaction. Returns the log row id (for `undo`).
        """
        with self.transaction() as con:
            row = con.execute("SELECT * FROM cards WHERE key = ?", (answer.card,)).fetchone()
            prior = {name: row[name] for name in row.keys() if name != "key"} if row else None
            cursor = con.execute(
                "INSERT INTO reviews (card, topic, time, mode, rating, correct, answer, seed, params, duration_ms, prior,"
                " prior_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    answer.card, answer.topic, format_time(answer.time), answer.mode, answer.rating,
                    int(answer.correct), _storable(answer.answer), answer.seed, json.dumps(answer.params, ensure_ascii=False),
                    answer.duration_ms, json.dumps(prior) if prior else None, prior["state"] if prior else None,
                ),
            )
            if reschedule is not None:
                schedule = reschedule(schedule_from_row(row) if row else None)
                deck = answer.card.split("/", 1)[0]
                con.execute(
                    "INSERT OR REPLACE INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
                    " VALUES (:key, :deck, :state, :step, :stability, :difficulty, :due, :last_review)",
                    {"key": answer.card, "deck": deck, **schedule_row(schedule)},
                )
            return cursor.lastrowid

    def undo(self, review_id: int) -> None:
        """Delete one log row and put the card's schedule back exactly as it was before it.

        Raises `AnsweredSince` (and changes nothing) when the card's schedule moved again after it (another
        session answered it): putting back the schedule from before would erase that answer's.
        """
        moving = ("review", "implicit")   # the modes that move a schedule (implicit.py's credits)
        with self.transaction() as con:
            row = con.execute("SELECT card, mode, prior FROM reviews WHERE id = ?", (review_id,)).fetchone()
            if row is None:
                return
            if row["mode"] in moving and con.execute(
                    "SELECT 1 FROM reviews WHERE card = ? AND id > ? AND mode IN (?, ?)",
                    (row["card"], review_id, *moving)).fetchone():
                raise AnsweredSince(_("Not taken back: {card} was answered in another session since, and its "
                                      "schedule is that answer's now.").format(card=row["card"]))
            con.execute("DELETE FROM reviews WHERE id = ?", (review_id,))
            if row["mode"] not in moving:
                return
            if row["prior"] is None:
                con.execute("DELETE FROM cards WHERE key = ?", (row["card"],))
            else:
                prior = json.loads(row["prior"])
                con.execute(
                    "INSERT OR REPLACE INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
                    " VALUES (:key, :deck, :state, :step, :stability, :difficulty, :due, :last_review)",
                    {"key": row["card"], **prior},
                )

    def new_cards_since(self, since: datetime) -> int:
        """How many cards were seen for the first time in review since `since` (the daily new limit)."""
        return self.con.execute(
            "SELECT count(*) FROM reviews WHERE time >= ? AND mode = 'review' AND prior IS NULL",
            (format_time(since),),
        ).fetchone()[0]

    def new_cards_by_deck(self, since: datetime) -> dict[str, int]:
        """Cards first seen in review since `since`, per deck (each deck's daily new limit)."""
        return self._count_by_deck("prior IS NULL", since)

    def reviews_by_deck(self, since: datetime) -> dict[str, int]:
        """Review-card answers since `since`, per deck (each deck's daily review cap, as Anki counts it)."""
        return self._count_by_deck("prior_state = 2", since)

    def _count_by_deck(self, condition: str, since: datetime) -> dict[str, int]:
        rows = self.con.execute(   # today's rows by time; reviews_recall would walk every review ever logged
            "SELECT substr(card, 1, instr(card, '/') - 1) AS deck, count(*) FROM reviews INDEXED BY reviews_time"
            f" WHERE time >= ? AND mode = 'review' AND {condition} GROUP BY deck",
            (format_time(since),),
        )
        return {deck: count for deck, count in rows}

    def reps(self, key: str) -> int:
        """How many review answers a card has had (seeds its fuzz, as Anki's card id + reps)."""
        return self.con.execute(
            "SELECT count(*) FROM reviews WHERE card = ? AND mode = 'review'", (key,)).fetchone()[0]

    def due_times(self) -> list[tuple[str, str]]:
        """Every scheduled card's key and due time as stored (UTC text, which sorts like time)."""
        return self.con.execute("SELECT key, due FROM cards").fetchall()

    def answers_total(self) -> int:
        return self.con.execute("SELECT count(*) FROM reviews").fetchone()[0]

    def answers_log(self) -> list[dict[str, Any]]:
        """Every logged answer in time order: card, correct, duration_ms, params (for `decks audit`'s item stats)."""
        rows = self.con.execute("SELECT card, correct, duration_ms, params FROM reviews ORDER BY time, id")
        return [{"card": row["card"], "correct": bool(row["correct"]), "duration_ms": row["duration_ms"],
                 "params": params_of(row["params"])} for row in rows]

    def log_since(self, since: datetime) -> list[LogRow]:
        """The review log from `since` on (a bounded window, via the time index)."""
        rows = self.con.execute(
            "SELECT card, topic, time, mode, rating, correct, json_extract(prior, '$.state') AS prior_state"
            " FROM reviews WHERE time >= ? ORDER BY time",
            (format_time(since),),
        )
        return [
            LogRow(row["card"], row["topic"], parse_time(row["time"]), row["mode"], rating_of(row["rating"]),
                   bool(row["correct"]), row["prior_state"])
            for row in rows
        ]


SQLITE_BUSY, SQLITE_LOCKED = 5, 6   # another session has the file: worth waiting for


def _use_wal(con: sqlite3.Connection) -> None:
    """Switch a new database to WAL. The switch needs the file to itself and SQLite reports
    "locked" at once rather than waiting, so when two sessions create the file together, retry."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as error:
            if (error.sqlite_errorcode or 0) & 0xFF not in (SQLITE_BUSY, SQLITE_LOCKED):
                raise sqlite3.OperationalError(f"cannot switch to WAL ({error})") from None   # waiting will not help
            mode = str(error)
        if mode == "wal":
            return
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError(f"cannot switch to WAL ({mode})")
        time.sleep(0.02)


def _check_folders(path: Path) -> None:
    """Name a file that stands where a folder of `path` must be (mkdir alone says only "File exists")."""
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise StudytoolError(_("{folder} is a file, not a folder").format(folder=folder))
            return


def _writable(path: Path) -> bool:
    """Whether the database and its folder may be written (SQLite needs the folder for its -wal and -shm)."""
    if path.exists():
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    folder = next(parent for parent in path.parents if parent.exists())   # where mkdir would start
    return os.access(folder, os.W_OK)


def cannot_write(path: Path, error: object) -> StudytoolError:
    """The one-line error for a database this process could not open for writing: read-only, or what SQLite said."""
    if _writable(path):
        return unreadable(path, error)
    return StudytoolError(_("{path}: the database or its folder is read-only, so nothing can be written; "
                            "'studytool stats', 'cards list' and 'backup list' still read it").format(path=path))


def _read_only_store(path: Path, version: int) -> Store:
    """The file read without writing; an older schema is brought up to date in a copy in memory."""
    try:
        con = sqlite3.connect(read_only_uri(path), uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        if version < SCHEMA_VERSION:
            memory = sqlite3.connect(":memory:", isolation_level=None)
            con.backup(memory)
            con.close()
            con = memory
        con.row_factory = sqlite3.Row
        store = Store(con, path)
        if version < SCHEMA_VERSION:
            store.migrate()
    except sqlite3.Error as error:
        raise unreadable(path, error) from None
    return store


def _empty_store(path: Path) -> Store:
    """A fresh schema in memory: what a read-only command sees where no database exists yet."""
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.row_factory = sqlite3.Row
    store = Store(con, path)
    store.migrate()
    return store


def open_store(path: Path, *, create: bool = True, backups: bool = True) -> Store:
    """Open (creating parent folders and the schema if needed) the progress database at `path`.

    With `create=False` (read-only commands) nothing is created: where no
    database exists yet, an empty one in memory stands in for it, and a file
    that may not be written (a read-only folder) is read as it is.
    An existing file is checked in full before this process first writes to
    it (`studytool.study.guard`: in the background from here when `create`),
    and with `backups` the day's first write takes a backup first.
    """
    if create:
        clock_now()   # every write stamps it: a bad STUDYTOOL_NOW is refused before a file is created
    _check_folders(path)
    version = check_database(path)
    if not create and not path.exists():
        return _empty_store(path)
    if not create and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return _read_only_store(path, version)
    if create and path.exists() and not _writable(path):   # SQLite would open it read-only and fail at the first write
        raise cannot_write(path, "read-only")
    guard = None
    if version:   # stats reads: no check unless it must upgrade the schema, which writes
        from studytool.study.guard import Guard

        guard = Guard(path, backups=backups, background=create)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # `sync` has the log's indexes made by a thread of its own while it replays (`sync._Background`)
        con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as error:
        raise cannot_write(path, error) from None
    con.row_factory = sqlite3.Row
    store = Store(con, path)
    store.guard = guard
    found = os.stat(path)
    store.opened = (found.st_dev, found.st_ino)
    try:
        con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _use_wal(con)
        if version < SCHEMA_VERSION:
            store.migrate()
    except sqlite3.Error as error:
        store.close()
        raise cannot_write(path, error) from None
    return store

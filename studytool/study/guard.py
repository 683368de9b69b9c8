"""A database that fails the full integrity check is never written: the check before a process's first write.

`PRAGMA quick_check`, run on every open (`migrations.check_database`), misses
damage that only the full `PRAGMA integrity_check` finds (an index that
disagrees with its table), and the full check costs seconds on a large
database (3.4-4.1 s at 200,000 answers, BENCHMARKS.md). So every process that
writes checks in full before its first write, unless the file is exactly as
the last process that passed the check left it: that process records the
file's identity (device, inode, size, modification and change time, and the
same of its -wal) when it closes, in `backups/.<name>.checked`. Any other
change to the file (bytes flipped by another program, a sync tool replacing
it, a session killed with its -wal left) changes that identity, and the next
writer checks in full; a file replaced while this process had it open is not
recorded, nor one in which the store met damage after the check passed
(`distrust`). The change time cannot be set back by `touch`.

The check runs in a thread from the moment the store is opened (a review shows
its first card meanwhile); the first write waits for it, then takes the day's
backup, so a command that writes nothing (an unknown deck, a review quit at its
first card) leaves no backup. It runs before anything is opened for
writing when the file is not in WAL mode (switching writes the header) and,
for a command that writes, when it has a non-empty -wal (closing the last
connection would copy those pages into the file; a read-only command leaves
that to SQLite, as it copies only pages some session committed).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

DAY_START_DEFAULT = 4   # settings.py's default; a stored value that does not read is reported by the commands using it


def _identity(path: Path) -> list[int] | None:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


def fingerprint(db: Path) -> list[list[int] | None]:
    """What identifies the file's content without reading it: the identity of the file and of its -wal."""
    return [_identity(db), _identity(Path(f"{db}-wal"))]


def _marker(db: Path) -> Path:
    from studytool.study.backup import folder_for

    return folder_for(db) / f".{Path(db).name}.checked"


def recorded(db: Path) -> list[list[int] | None] | None:
    """The fingerprint the last process that passed the check left, if any."""
    try:
        found = json.loads(_marker(db).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, list) else None


def record(db: Path) -> None:
    """Note the file as it is now as checked (a read-only folder: nothing is noted, the next writer checks)."""
    marker = _marker(db)
    try:
        marker.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = marker.with_name(f"{marker.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(fingerprint(db)), encoding="utf-8")
        os.replace(temporary, marker)
    except OSError:
        pass


def _must_check_first(db: Path, writer: bool) -> bool:
    """Whether the check must pass before the file is even opened for writing."""
    try:
        with open(db, "rb") as file:
            header = file.read(20)
    except OSError:
        return True
    wal = Path(f"{db}-wal")
    return header[18:20] != b"\x02\x02" or (writer and wal.exists() and wal.stat().st_size > 0)


class Guard:
    """The full check (and the day's backup) that must pass before this process first writes to `db`."""

    def __init__(self, db: Path, *, backups: bool = True, background: bool = True):
        self.db = Path(db)
        self.backups = backups
        self.initial = fingerprint(self.db)
        self.trusted = self.initial == recorded(self.db)   # unchanged since a process passed the check
        self.inode = (_identity(self.db) or [0, 0])[:2]
        self.passed = False
        self.checked = False   # the check ran to its end and passed (nobody may have waited for it)
        self.day_start = DAY_START_DEFAULT   # the day-start hour stored in the file, read by the check
        self.error: BaseException | None = None
        self.distrusted = False   # damage met mid-command (`distrust`)
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = None   # the check's, to interrupt it when the store closes first
        self._stopping = False
        self._thread: threading.Thread | None = None
        if _must_check_first(self.db, writer=background):
            self._finish_check()
        elif background:
            self._thread = threading.Thread(target=self._run, name="studytool-check", daemon=True)
            self._thread.start()

    def wait(self) -> None:
        """Before the first write: return once the file passed and the day's backup is taken; raise the one-line
        error otherwise."""
        if self.passed:
            return
        self._finish_check()
        if self.backups:
            from studytool.study.backup import ensure_daily
            from studytool.study.days import Days

            ensure_daily(self.db, days=Days(self.day_start), checked=True)
        self.passed = True

    def _finish_check(self) -> None:
        """Return once the check passed; raise its one-line error otherwise."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        elif not self.checked and self.error is None:
            self._run()
        if self.error is not None:
            raise self.error

    def distrust(self) -> None:
        """Damage met after the check passed (or while it runs): the file is not noted as checked at close."""
        self.distrusted = True

    def close(self, con: sqlite3.Connection) -> None:
        """Stop a check nobody waits for, close the store's connection `con`, and note the file as this
        process left it if it passed (the next process then needs no full check)."""
        with self._lock:
            self._stopping = True
            if self._con is not None:
                self._con.interrupt()
        if self._thread is not None:
            self._thread.join()
        con.close()
        if self.distrusted:
            return
        if self.passed and (_identity(self.db) or [0, 0])[:2] == self.inode:
            record(self.db)
        elif self.checked and fingerprint(self.db) == self.initial:   # nothing written: the state that was checked
            record(self.db)

    def _run(self) -> None:
        try:
            self.day_start = self._check()
            self.checked = not self._stopping
        except sqlite3.Error as error:   # the file went away or cannot be opened
            from studytool.study.migrations import unreadable

            self.error = unreadable(self.db, error)
        except Exception as error:   # handed to the writer in `wait` (a thread cannot raise into it)
            self.error = error

    def _check(self) -> int:
        """The full integrity check unless the file is trusted; the day-start hour stored in it."""
        from studytool.study.backup import damaged
        from studytool.study.schema import BUSY_TIMEOUT_S, file_uri

        uri = f"{file_uri(self.db)}?mode=ro"   # not immutable: other sessions may write meanwhile
        con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        with self._lock:
            self._con = con
        try:
            problems = [] if self.trusted or self._stopping else [r[0] for r in con.execute("PRAGMA integrity_check")]
        except sqlite3.Error as error:
            problems = [] if self._stopping else [str(error)]   # interrupted: the store closed without writing
        try:
            stored = con.execute("SELECT value FROM settings WHERE name = 'day_start'").fetchone()
        except sqlite3.Error:   # schema 1 has no settings table (its migration adds one)
            stored = None
        finally:
            with self._lock:
                self._con = None
            con.close()
        if problems not in ([], ["ok"]):
            raise damaged(self.db, problems)
        text = str(stored[0]) if stored else ""
        return int(text) if text.isdigit() and int(text) <= 23 else DAY_START_DEFAULT

"""Backups of the progress database, as Anki keeps them.

Before the first write of each day (Anki's day: it starts at `day_start`,
`days.py`) a copy is taken with SQLite's online backup API into `backups/`
beside the database (`$STUDYTOOL_HOME/backups/` by default), once the file
passed the full `PRAGMA integrity_check` (`guard.py`, which runs it before
every process's first write). A database that fails the check is never
written: the error names the newest good backup and the command that restores
it. Of the copies, the newest of each of the last 7 days and of each of the
last 4 weeks are kept.

A backup's name holds the clock's time (`STUDYTOOL_NOW` if set) and a number
one above every earlier backup's, so names never collide and "newest" means
taken last, whatever the clock said: a backup dated in the future (a clock set
back) neither stops today's nor passes for the newest.

Backups are read immutable (they are never written once taken), so listing
them leaves no -wal or -shm files in the folder. A restore keeps the file it
replaces beside it (`studytool.db.replaced-<time>`, with its -wal and -shm).
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

from studytool.config import CLOCK_YEARS, now as clock_now
from studytool.study.days import Days
from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.schema import BUSY_TIMEOUT_S, read_only_uri, schema_problem

KEEP_DAILY = 7
KEEP_WEEKLY = 4
STAMP = "%Y-%m-%dT%H%M%SZ"                        # UTC: studytool-2026-12-01T083000Z-12.db, the 12th taken
# (?s): a database's name may hold a newline (--db $'a\nb.db'); its backups' names then hold it too.
_NAME = re.compile(r"(?s)(?P<stem>.+)-(?P<stamp>\d{4}-\d\d-\d\dT\d{6}Z)(?:-(?P<number>\d{1,9}))?\.db\Z")
# A backup a day for 270,000 years; a larger number was not given here (a planted name), and the next one taken
# after it would outgrow the 9 digits a name is read with: such a name is skipped, as is a time no clock of ours
# names (config.CLOCK_YEARS) or none at all (2026-99-99).
NUMBER_LIMIT = 10**8


@dataclass(frozen=True)
class Backup:
    path: Path
    time: datetime          # when it was taken (UTC)
    size: int               # bytes
    answers: int | None     # answers in its review log; None: the copy cannot be read
    number: int = 0         # one above every backup before it (0: named before numbers were)

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Restored:
    backup: Backup
    replaced: Path | None   # where the database it replaced was moved (None: there was none)
    replaced_answers: int | None = None   # the answers that one held, if they could be counted


def folder_for(db: Path) -> Path:
    """Where the backups of `db` go: `backups/` beside it."""
    return Path(db).parent / "backups"


def integrity_problems(db: Path) -> list[str]:
    """The full `PRAGMA integrity_check` of `db` and its schema (`schema.schema_problem`), read-only: its
    problems, empty when it is healthy."""
    try:
        con = sqlite3.connect(read_only_uri(db), uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            found = [row[0] for row in con.execute("PRAGMA integrity_check")]
            if found == ["ok"]:   # a schema object the migrations never made is not restored, nor backed up
                found = [problem for problem in [schema_problem(con)] if problem] or found
        finally:
            con.close()
    except sqlite3.Error as error:
        return [str(error)]
    return [] if found == ["ok"] else found


def backups(db: Path, *, count: bool = True) -> list[Backup]:
    """The backups of `db`, newest first; `count=False` skips opening each to count its answers."""
    folder = folder_for(db)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        match = _NAME.match(name)
        path = folder / name
        if not (match and match["stem"] == Path(db).stem and path.is_file()):
            continue
        try:
            size = path.stat().st_size
        except FileNotFoundError:   # pruned meanwhile by another session taking its backup
            continue
        taken, number = _time_of(match["stamp"]), int(match["number"] or 0)
        if taken is None or number > NUMBER_LIMIT:
            continue
        found.append(Backup(path, taken, size, _answers(path) if count else None, number))
    return sorted(found, key=lambda backup: (backup.number, backup.time), reverse=True)


def _time_of(stamp: str) -> datetime | None:
    """The time a backup's name gives, if it is one a clock of ours may name."""
    try:
        taken = datetime.strptime(stamp, STAMP).replace(tzinfo=timezone.utc)
    except ValueError:
        return None
    return taken if CLOCK_YEARS[0] <= taken.year <= CLOCK_YEARS[1] else None


def _answers(path: Path) -> int | None:
    """The answers logged in a backup (read immutable: nothing beside it) or a database (with its -wal)."""
    try:
        con = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error:
        return None
    try:
        return _counted(con)
    finally:
        con.close()


def _counted(con: sqlite3.Connection) -> int | None:
    """The answers logged in an open database; None if it holds no progress log."""
    try:
        return con.execute("SELECT count(*) FROM reviews").fetchone()[0]
    except sqlite3.Error:
        return None


def take(db: Path, now: datetime | None = None, *, checked: bool = False, days: Days | None = None) -> Backup:
    """Check `db` in full (unless the caller just did: `checked`) and copy it into the backup folder, then prune;
    `StudytoolError` if it is damaged."""
    if not checked:
        problems = integrity_problems(db)
        if problems:
            raise damaged(db, problems)
    now = now or clock_now()
    folder = folder_for(db)
    temporary = target = None
    import tempfile

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = _reserve(db, now)
        handle, name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
        os.close(handle)
        temporary = Path(name)
        source = sqlite3.connect(read_only_uri(db), uri=True, timeout=BUSY_TIMEOUT_S)
        copy = sqlite3.connect(temporary)
        try:
            source.backup(copy)   # a consistent snapshot, even while another session writes
            answers = _counted(copy)
        finally:
            copy.close()
            source.close()
        # Measured before it is in place: from then on another session's prune may remove it at any moment.
        taken = Backup(target, now.astimezone(timezone.utc).replace(microsecond=0), temporary.stat().st_size,
                       answers, int(_NAME.match(target.name)["number"]))
        os.replace(temporary, target)
    except BaseException as error:   # Ctrl-C too: no half copy (nor the name kept for it) is left in the folder
        for path in (temporary, target):
            if path is not None:
                _remove(path)
        if not isinstance(error, (OSError, sqlite3.Error)):
            raise
        if isinstance(error, OSError) and error.errno in READ_ONLY:
            raise StudytoolError(_("{folder} is read-only: cannot back up {db} (nothing was written); 'studytool "
                                   "stats', 'cards list' and 'backup list' still read it").format(
                folder=folder if folder.exists() else folder.parent, db=db)) from None   # the one that refused
        raise StudytoolError(_("cannot back up {db} into {folder} ({reason}); nothing was written").format(
            db=db, folder=folder, reason=" ".join(str(error).split()))) from None
    prune(db, keep=target, days=days)
    return taken


def _reserve(db: Path, now: datetime) -> Path:
    """The next backup's name, created empty so that a second session at the same moment takes the one after."""
    number = max((backup.number for backup in backups(db, count=False)), default=0) + 1
    stamp = now.astimezone(timezone.utc).strftime(STAMP)
    while True:
        target = folder_for(db) / f"{Path(db).stem}-{stamp}-{number}.db"
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return target
        except FileExistsError:
            number += 1


def ensure_daily(db: Path, now: datetime | None = None, *, days: Days | None = None,
                 checked: bool = False) -> Backup | None:
    """Before the day's first write: `take` a backup unless one is dated today (Anki's day); the one taken.

    Only a backup of the same day counts: one dated later (a clock set back) does not stop today's.
    """
    now = now or clock_now()
    days = days or Days()
    today = days.number(now)
    if any(days.number(backup.time) == today for backup in backups(db, count=False)):
        return None
    return take(db, now, checked=checked, days=days)


def prune(db: Path, keep: Path | None = None, days: Days | None = None) -> list[Path]:
    """Delete the backups that are neither the newest of one of the last 7 days nor of the last 4 weeks (nor `keep`).

    Days are Anki's (`days`); "last" and "newest" go by the order taken, not by the dates in the names.
    """
    days = days or Days()
    newest_per_day: dict[int, Backup] = {}
    newest_per_week: dict[object, Backup] = {}
    found = backups(db, count=False)
    for backup in found:   # taken last first, so the first of each day or week is its newest
        day = days.number(backup.time)
        newest_per_day.setdefault(day, backup)
        newest_per_week.setdefault(date.fromordinal(day).isocalendar()[:2], backup)
    kept = {b.path for b in list(newest_per_day.values())[:KEEP_DAILY]} | {keep}
    kept |= {b.path for b in list(newest_per_week.values())[:KEEP_WEEKLY]}
    dropped = [backup.path for backup in found if backup.path not in kept]
    for path in dropped:
        path.unlink(missing_ok=True)
    return dropped


def newest_good(db: Path) -> Backup | None:
    """The backup taken last, by the file system's own clock, that is a readable progress database and passes the
    full integrity check. A name's stamp and number can be written by anyone (a copy planted with a high number);
    the change time of the file cannot be set back (`touch` sets the modification time, not this one)."""
    def taken(backup: Backup) -> tuple[int, int]:
        try:
            return backup.path.stat().st_ctime_ns, backup.number
        except OSError:   # pruned meanwhile by another session
            return 0, backup.number

    return next((backup for backup in sorted(backups(db), key=taken, reverse=True)
                 if backup.answers is not None and not integrity_problems(backup.path)), None)


REASON_CHARS = 80   # SQLite's integrity report runs to a line per damaged cell; the message keeps its gist


def short_reason(problems: list[str]) -> str:
    """SQLite's problems in a few words: the first one (cut short), and how many more there are."""
    lines = [" ".join(line.split()) for problem in problems for line in problem.splitlines()]
    found = [line for line in lines if line and not line.startswith("*** in database")] or ["?"]
    first = found[0] if len(found[0]) <= REASON_CHARS else found[0][:REASON_CHARS - 1].rstrip() + "…"
    if len(found) == 1:
        return first
    return _("{first}; {count} more problems").format(first=first, count=len(found) - 1)


def damaged(db: Path, problems: list[str]) -> StudytoolError:
    """The one-line error for a database that failed the check: what failed, and how to restore."""
    reason = short_reason(problems)
    good = newest_good(db)
    if good is None:
        return StudytoolError(_("{db} is damaged ({reason}); nothing was written, and there is no backup to "
                                "restore").format(db=db, reason=reason))
    return StudytoolError(_("{db} is damaged ({reason}); nothing was written. The newest good backup is {name} "
                            "({answers} answers): restore it with 'studytool backup restore {name}'").format(
        db=db, reason=reason, name=good.name, answers=good.answers))


def restore(db: Path, name: str | None = None, *, force: bool = False, now: datetime | None = None) -> Restored:
    """Put backup `name` (default: the newest good one) in place of `db`, keeping the replaced file beside it.

    A healthy database is replaced only with `force`.
    """
    chosen = _chosen(db, name)
    problems = integrity_problems(chosen.path)
    if problems:
        raise StudytoolError(_("backup {name} is damaged too ({reason}); choose another ('studytool backup list')").format(
            name=chosen.name, reason=short_reason(problems)))
    db = Path(db)
    replaced = None
    if db.exists():
        if not force and not integrity_problems(db):
            raise StudytoolError(_("{db} is healthy; add --force to replace it with {name} (it is kept beside it)").format(
                db=db, name=chosen.name))
        stamp = (now or clock_now()).astimezone(timezone.utc).strftime(STAMP)
        replaced = db.with_name(f"{db.name}.replaced-{stamp}")
        extra = 1
        while os.path.lexists(replaced):   # a second restore at the same clock time keeps the first one's too
            extra += 1
            replaced = db.with_name(f"{db.name}.replaced-{stamp}-{extra}")
    replaced_answers = _answers(db) if db.exists() else None
    _put_in_place(chosen.path, db, replaced)
    return Restored(chosen, replaced, replaced_answers)


def _chosen(db: Path, name: str | None) -> Backup:
    found = backups(db)
    if not found:
        raise StudytoolError(_("no backups of {db} in {folder}").format(db=db, folder=folder_for(db)))
    if name is None:
        good = newest_good(db)
        if good is None:
            raise StudytoolError(_("every backup in {folder} is damaged").format(folder=folder_for(db)))
        return good
    for backup in found:
        if backup.name == name:
            return backup
    raise StudytoolError(_("no backup named {name!r}; see 'studytool backup list'").format(name=name))


READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)   # a read-only mount, a folder without w, an immutable one


def _remove(path: Path) -> None:
    """Delete a file if it is there; a read-only file system refuses even to unlink what is not there (EROFS)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def _put_in_place(backup: Path, db: Path, replaced: Path | None) -> None:
    """Copy the backup beside `db`, move `db` (and its -wal/-shm) aside, then move the copy in."""
    import shutil

    temporary = db.with_name(f".{db.name}.restore.tmp")
    moved: list[tuple[str, str]] = []   # (where it was, where it went), to undo on failure
    try:
        shutil.copyfile(backup, temporary)
        if replaced is not None:
            for suffix in ("", "-wal", "-shm"):   # left beside the copy, -wal/-shm would be read as its journal
                if os.path.lexists(f"{db}{suffix}"):
                    os.replace(f"{db}{suffix}", f"{replaced}{suffix}")
                    moved.append((f"{db}{suffix}", f"{replaced}{suffix}"))
        os.replace(temporary, db)
    except BaseException as error:   # Ctrl-C too: the database is where it was, or the restored one is
        _remove(temporary)
        for original, aside in reversed(moved):
            os.replace(aside, original)
        if not isinstance(error, OSError):
            raise
        if error.errno in READ_ONLY:
            raise StudytoolError(_("{folder} is read-only: cannot restore {db} (nothing was changed); 'studytool "
                                   "stats', 'cards list' and 'backup list' still read it").format(
                folder=db.parent, db=db)) from None
        raise StudytoolError(_("cannot restore {db}: {reason}").format(db=db, reason=error.strerror or error)) from None

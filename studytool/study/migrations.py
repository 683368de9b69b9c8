"""The progress database's read-only check: that a file is one of ours (the schema itself is `schema.py`).

`check_database` reads an existing file without writing anything (no -wal/-shm left beside it) and says in one
line what is wrong with it, if anything; `back_up` takes a backup of a file that passed it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.backup import Backup, damaged, take
from studytool.study.schema import BUSY_TIMEOUT_S, SCHEMA_VERSION, is_damage, read_only_uri, schema_problem, tables_of

def unreadable(path: Path, reason: object) -> StudytoolError:
    """The one-line error for a file SQLite cannot use; a damaged one's names the backup to restore."""
    if is_damage(reason):
        return damaged(path, [str(reason)])
    reason = " ".join(str(reason).split())  # one line, whatever SQLite's report looked like
    return StudytoolError(_("{path}: cannot use this progress database ({reason})").format(path=path, reason=reason))


def check_database(path: Path) -> int:
    """The schema version of an existing database, read without writing anything.

    Raises `StudytoolError` naming the file if it is unreadable, corrupt, not
    ours, or from a newer studytool. A missing file is version 0.
    """
    if not path.exists():
        return 0
    if path.is_dir():   # SQLite would only say "disk I/O error"
        raise StudytoolError(_("{path} is a directory, not a database file").format(path=path))
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):   # SQLite would wait forever on a FIFO for a writer
        from studytool.files import kind_of

        raise StudytoolError(_("{path} is {kind}, not a database file").format(path=path, kind=kind_of(mode)))
    try:
        con = sqlite3.connect(read_only_uri(path), uri=True, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as error:
        raise unreadable(path, error) from None
    try:
        problems = [row[0] for row in con.execute("PRAGMA quick_check")]
        if problems != ["ok"]:   # damage: the error names the newest good backup, as the full check's does
            raise damaged(path, problems)
        tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not con.execute("SELECT 1 FROM sqlite_master").fetchone():
            return 0
        if "migrations" not in tables:
            raise unreadable(path, _("not a studytool database"))
        problem = schema_problem(con)
        if problem:   # never opened for writing: a trigger of its own would run at the first answer
            raise damaged(path, [problem])
        version = con.execute("SELECT max(version) FROM migrations").fetchone()[0] or 0
        missing = [table for table in tables_of(min(version, SCHEMA_VERSION)) if table not in tables]
        if missing:
            raise unreadable(path, _("table {table} is missing").format(table=missing[0]))
    except (sqlite3.Error, UnicodeDecodeError) as error:   # a flipped byte in the schema's text is not UTF-8
        raise unreadable(path, error) from None
    finally:
        con.close()
    if version > SCHEMA_VERSION:
        raise StudytoolError(
            _("{path}: written by a newer studytool (schema {found}, this one knows {known}); upgrade studytool").format(
                path=path, found=version, known=SCHEMA_VERSION
            )
        )
    return version


def back_up(db: Path) -> Backup:
    """`studytool backup`: `take` a backup of `db` now, once it is known to be a progress database (a regular file,
    as every command checks: a FIFO would block the copy for ever, a device is no database)."""
    if not os.path.lexists(db):
        raise StudytoolError(_("{db} does not exist yet; nothing to back up").format(db=db))
    check_database(db)
    return take(db)

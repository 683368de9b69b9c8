"""The progress database's schema: its migrations, and the read-only check that a file is one of ours.

Each migration moves the schema up by one version. `check_database` reads an existing file without
writing anything (no -wal/-shm left beside it) and says in one line what is wrong with it, if anything.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from pathlib import Path

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.backup import BUSY_TIMEOUT_S, damaged, read_only_uri

# Each migration moves the schema up by one version; never edit a shipped one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first schema: a schedule row per card and the review log.
    (
        """CREATE TABLE cards (
            key         TEXT PRIMARY KEY,   -- deck/id
            deck        TEXT NOT NULL,
            state       INTEGER NOT NULL,   -- fsrs.State: 1 learning, 2 review, 3 relearning
            step        INTEGER,
            stability   REAL,
            difficulty  REAL,
            due         TEXT NOT NULL,
            last_review TEXT
        )""",
        "CREATE INDEX cards_due ON cards (due)",
        """CREATE TABLE reviews (
            id          INTEGER PRIMARY KEY,
            card        TEXT NOT NULL,      -- deck/id
            time        TEXT NOT NULL,
            mode        TEXT NOT NULL,      -- quiz | review
            rating      INTEGER NOT NULL,   -- 1 again, 2 hard, 3 good, 4 easy
            correct     INTEGER NOT NULL,
            answer      TEXT NOT NULL,      -- what the learner typed
            seed        INTEGER,            -- variant seed (NULL: the notes' own example)
            params      TEXT NOT NULL,      -- the variant's drawn inputs, JSON
            duration_ms INTEGER NOT NULL,
            prior       TEXT                -- the schedule row before this answer, JSON (for undo)
        )""",
        "CREATE INDEX reviews_card ON reviews (card)",
    ),
    # 2: the topic of each answer (weakest-topic stats survive removed cards),
    # a time index for per-day stats and today's new-card count, and settings.
    (
        "ALTER TABLE reviews ADD COLUMN topic TEXT",
        "CREATE INDEX reviews_time ON reviews (time)",
        "CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    # 3: the log of progress re-keyed from a renamed deck or card (`studytool.study.rename` says what the columns hold).
    ("CREATE TABLE renames (id INTEGER PRIMARY KEY, time TEXT NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL,"
     " reviews INTEGER NOT NULL, schedule TEXT NOT NULL, displaced TEXT)",),
    # 4: the learner's decisions about cards, apart from the schedule so that a
    # new card (no schedule row) can be suspended too (`cards.py`); settings per
    # deck, as Anki's presets (`settings.py`); the remembered retention under
    # its `config` name.
    (
        """CREATE TABLE card_flags (
            key          TEXT PRIMARY KEY,   -- deck/id
            suspended    INTEGER NOT NULL DEFAULT 0,
            buried_until TEXT,               -- out of review until this time
            leech        INTEGER NOT NULL DEFAULT 0,
            leech_review INTEGER,            -- the answer that made it a leech (`:undo` takes that back too)
            reset_at     TEXT                -- the last `cards forget`: older history no longer trains FSRS
        )""",
        "CREATE TABLE deck_settings (deck TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,"
        " PRIMARY KEY (deck, name))",
        "UPDATE settings SET name = 'retention' WHERE name = 'desired_retention'",
    ),
    # 5: the state each answer found its card in, as a column kept by a trigger (the JSON `prior` stays the
    # record), so that `stats` counts true retention from an index instead of parsing every answer's JSON;
    # and the answers' topics by time, so that it groups the weakest topics from an index too.
    (
        "ALTER TABLE reviews ADD COLUMN prior_state INTEGER",
        "UPDATE reviews SET prior_state = json_extract(prior, '$.state')",
        "CREATE TRIGGER reviews_prior_state AFTER INSERT ON reviews BEGIN"
        " UPDATE reviews SET prior_state = json_extract(NEW.prior, '$.state') WHERE id = NEW.id; END",
        "CREATE TRIGGER reviews_prior_state_update AFTER UPDATE OF prior ON reviews BEGIN"
        " UPDATE reviews SET prior_state = json_extract(NEW.prior, '$.state') WHERE id = NEW.id; END",
        "CREATE INDEX reviews_recall ON reviews (mode, prior_state, correct, time)",
        "CREATE INDEX reviews_topic ON reviews (time, topic, correct)",   # the weakest topics, from the index alone
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def _tables_of(version: int) -> list[str]:
    """The tables the migrations up to `version` create."""
    statements = " ".join(statement for migration in MIGRATIONS[:version] for statement in migration)
    return re.findall(r"CREATE TABLE (\w+)", statements)


SQLITE_CORRUPT = 11   # "database disk image is malformed": damaged pages
SQLITE_NOTADB = 26    # "file is not a database": its header lost (junk written over it), damage as well


def is_damage(error: object) -> bool:
    """Whether SQLite reported `error` for a damaged file (a full disk, a lock ... keep their words)."""
    code = getattr(error, "sqlite_errorcode", None) or 0   # None or absent: an error raised here, not by SQLite
    return isinstance(error, sqlite3.DatabaseError) and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)


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
        if not tables:
            return 0
        if "migrations" not in tables:
            raise unreadable(path, _("not a studytool database"))
        version = con.execute("SELECT max(version) FROM migrations").fetchone()[0] or 0
        missing = [table for table in _tables_of(min(version, SCHEMA_VERSION)) if table not in tables]
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

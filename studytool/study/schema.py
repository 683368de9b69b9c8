"""The progress database's schema as data: its migrations, what the file must hold, and how it is read.

Each migration moves the schema up by one version. `schema_problem` says what a file holds that the migrations
never made; `read_only_uri` opens a file without leaving anything beside it. This module knows nothing of
backups or of the store, so that both can use it (`migrations.check_database` names a backup to restore,
`backup` checks a copy's schema).
"""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote

from studytool.i18n import _

BUSY_TIMEOUT_S = 30.0

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
    # 6: sync (`sync.py`): every event this home has written to or read from a sync folder, each answer's event
    # id (NULL until `sync` journals it), and how far each device's journal has been read.
    (
        "CREATE TABLE sync_events (event TEXT PRIMARY KEY, device TEXT NOT NULL, seq INTEGER NOT NULL,"
        " time TEXT NOT NULL, kind TEXT NOT NULL, card TEXT, body TEXT NOT NULL)",
        "CREATE UNIQUE INDEX sync_events_order ON sync_events (device, seq)",
        "CREATE INDEX sync_events_kind ON sync_events (kind, card)",
        "ALTER TABLE reviews ADD COLUMN event TEXT",
        "CREATE UNIQUE INDEX reviews_event ON reviews (event)",
        "CREATE TABLE sync_read (device TEXT PRIMARY KEY, offset INTEGER NOT NULL, line INTEGER NOT NULL)",
        # Anki's flags on a card: 0 none, 1-7 red, orange, green, blue, pink, turquoise, purple (`cards flag`)
        "ALTER TABLE card_flags ADD COLUMN flag INTEGER NOT NULL DEFAULT 0",
    ),
    # 7: a sync that keeps up with 100,000 answers (`sync.py`). Each answer keeps the schedule it left and what
    # that was worked out under (`after`, `memo`), so that a replay meeting the same schedule before it takes
    # the result instead of working it out again; an answer writes its `prior_state` with its `prior` (the
    # triggers' UPDATE cost more than the insert); the sync log is keyed by device and sequence, and keeps
    # another device's answers only as their rows in `reviews`.
    (
        "ALTER TABLE reviews ADD COLUMN memo TEXT",    # what `after` was worked out under (`sync.py`)
        "ALTER TABLE reviews ADD COLUMN after TEXT",   # the schedule the answer left, as `prior` holds one
        "DROP TRIGGER reviews_prior_state",
        "DROP TRIGGER reviews_prior_state_update",
        "CREATE TABLE sync_log (device TEXT NOT NULL, seq INTEGER NOT NULL, time TEXT NOT NULL, kind TEXT NOT NULL,"
        " card TEXT, body TEXT NOT NULL, PRIMARY KEY (device, seq)) WITHOUT ROWID",
        "INSERT INTO sync_log SELECT device, seq, time, kind, card, body FROM sync_events"
        " WHERE kind != 'answer' OR device = (SELECT value FROM settings WHERE name = 'sync_device')",
        "DROP TABLE sync_events",
        "ALTER TABLE sync_log RENAME TO sync_events",
        "CREATE INDEX sync_events_kind ON sync_events (kind, card) WHERE kind != 'answer'",
        "DELETE FROM settings WHERE name = 'sync_merged'",   # one transaction now; see `sync.py`
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
MIGRATIONS_TABLE = "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)"
# What ANALYZE (or `PRAGMA optimize`, run by hand) adds: statistics for SQLite's query planner, never code.
_PLANNER_TABLES = ("sqlite_stat1", "sqlite_stat4")


def file_uri(path: Path) -> str:
    """The `file:` URI of `path`, its bytes as the file system holds them (a name that is not UTF-8 too)."""
    return f"file:{quote(os.fsencode(Path(path).resolve()))}"


def read_only_uri(path: Path) -> str:
    """A URI that reads `path` and leaves nothing beside it.

    A read-only connection to a WAL database creates -wal and -shm files and
    leaves them (and cannot open at all in a folder it may not write). With no
    -wal (nor, in rollback mode, -journal) beside the file no session has it open and every committed
    page is in it, so it is opened immutable: no journal, no lock files. Otherwise
    a read-only connection is needed to see those pages, and its files are there already.
    """
    uri = f"{file_uri(path)}?mode=ro"
    busy = os.path.lexists(f"{path}-wal") or (os.path.lexists(f"{path}-journal") and not _in_wal_mode(path))
    return uri if busy else uri + "&immutable=1"


def _in_wal_mode(path: Path) -> bool:
    """Whether the file's header says WAL: then no -journal beside it is its own (SQLite makes none in WAL mode),
    and a stale one must not make a read-only connection try to roll it back ("attempt to write a readonly
    database")."""
    try:
        with open(path, "rb") as file:
            return file.read(20)[18:20] == b"\x02\x02"
    except OSError:
        return False


def _normal(kind: str, sql: str | None) -> str | None:
    """A schema object's SQL as compared: whitespace collapsed; a table's comments (they document columns) dropped.
    A trigger's or a view's text is compared whole: any change to it may be code that runs."""
    if sql is None:
        return None
    return " ".join((re.sub(r"--[^\n]*", " ", sql) if kind == "table" else sql).split())


def _objects(con: sqlite3.Connection) -> set[tuple[str, str, str | None]]:
    """The schema objects of a database: (type, name, its SQL in `_normal` form)."""
    rows = con.execute("SELECT type, name, sql FROM sqlite_master")
    return {(kind, name, _normal(kind, sql)) for kind, name, sql in rows if name not in _PLANNER_TABLES}


@functools.lru_cache(maxsize=None)
def _schema_of(version: int) -> frozenset[tuple[str, str, str | None]]:
    """The schema objects the migrations up to `version` create, as SQLite itself records them."""
    con = sqlite3.connect(":memory:")
    try:
        con.execute(MIGRATIONS_TABLE)
        for statement in (statement for migration in MIGRATIONS[:version] for statement in migration):
            con.execute(statement)
        return frozenset(_objects(con))
    finally:
        con.close()


def schema_problem(con: sqlite3.Connection) -> str | None:
    """What makes a database's schema not one the migrations made, in a few words, or None: a schema version that is
    not a whole number, or a trigger, view, table or index they do not create (a trigger planted on the log would
    delete answers as they are written, and pass SQLite's integrity check). A newer studytool's schema is not judged."""
    if not con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").fetchone():
        return None   # no schema yet (or not ours: said by check_database)
    version = con.execute("SELECT max(version) FROM migrations").fetchone()[0] or 0
    if not isinstance(version, int) or version < 0:
        return _("the migrations table holds {value!r} where a schema version belongs").format(value=version)
    if version > SCHEMA_VERSION:
        return None
    foreign = sorted(_objects(con) - _schema_of(version))
    if not foreign:
        return None
    kind, name, _sql = foreign[0]
    return _("{kind} {name} is not one studytool's migrations create").format(kind=kind, name=name)


def tables_of(version: int) -> list[str]:
    """The tables the migrations up to `version` leave (one may be made, filled and renamed)."""
    return sorted(name for kind, name, _sql in _schema_of(version) if kind == "table" and name != "migrations")


SQLITE_CORRUPT = 11   # "database disk image is malformed": damaged pages
SQLITE_NOTADB = 26    # "file is not a database": its header lost (junk written over it), damage as well


def is_damage(error: object) -> bool:
    """Whether SQLite reported `error` for a damaged file (a full disk, a lock ... keep their words)."""
    code = getattr(error, "sqlite_errorcode", None) or 0   # None or absent: an error raised here, not by SQLite
    return isinstance(error, sqlite3.DatabaseError) and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)

"""Backups and damaged databases: damage quick_check misses is never written to, and nothing is lost."""

import json
import os
import sqlite3
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.study import backup
from studytool.study.store import Answer, Schedule, check_database, open_store

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
runner = CliRunner()


@pytest.fixture(autouse=True)
def english(monkeypatch):
    """Messages are checked word for word: pin the interface language (an earlier test may have set zh)."""
    from studytool.i18n import set_language

    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    set_language(None)
    yield
    set_language(None)


def record(db: Path, n: int, start: int = 0) -> None:
    with open_store(db, backups=False) as store:
        for i in range(start, start + n):
            answer = Answer(card=f"d/c{i}", topic="softmax", mode="review", rating=3, correct=True, answer="7",
                            seed=i, params={}, duration_ms=1, time=T0)
            store.record(answer, lambda prior: Schedule(2, None, 3.0, 5.0, T0 + timedelta(days=3), T0))


def answers_in(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        return con.execute("SELECT count(*) FROM reviews").fetchone()[0]
    finally:
        con.close()


def beside(db: Path) -> list[str]:
    """The journal and lock files next to the database."""
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name + "-"))


def damage_missed_by_quick_check(db: Path) -> None:
    """Make an index disagree with its table: quick_check does not compare them, integrity_check does."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA writable_schema = ON")
    con.execute("UPDATE sqlite_master SET sql = 'CREATE INDEX cards_due ON cards (deck)' WHERE name = 'cards_due'")
    con.commit()
    con.close()
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    assert con.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    assert con.execute("PRAGMA integrity_check").fetchall() != [("ok",)]
    con.close()


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "studytool.db"
    record(path, 3)
    return path


# --- taking, listing, pruning -------------------------------------------------------------------------------


def test_a_backup_is_a_consistent_copy_with_its_answers(db):
    taken = backup.take(db, T0)
    assert taken.path == db.parent / "backups" / "studytool-2026-11-01T120000Z.db"
    assert taken.answers == 3 and taken.size == taken.path.stat().st_size
    assert backup.integrity_problems(taken.path) == []
    assert beside(taken.path) == []   # listing and checking backups leaves no -wal/-shm in the folder
    assert (db.parent / "backups").stat().st_mode & 0o077 == 0


def test_the_first_write_of_each_day_takes_one_backup(db):
    assert backup.ensure_daily(db, T0) is not None
    assert backup.ensure_daily(db, T0 + timedelta(hours=2)) is None   # the same day: no second copy
    assert backup.ensure_daily(db, T0 + timedelta(days=1)) is not None
    assert [b.time for b in backup.backups(db)] == [T0 + timedelta(days=1), T0]


def test_a_clock_set_back_takes_no_copy_and_never_loses_the_one_it_takes(db):
    """STUDYTOOL_NOW may go back in time (scripts, tests): the backups stay, and a copy taken is never pruned at once."""
    for day in range(10):
        backup.take(db, T0 + timedelta(days=day))
    assert backup.ensure_daily(db, T0) is None   # a newer copy exists already
    earlier = backup.take(db, T0 - timedelta(days=30))
    assert earlier.path.exists() and earlier.answers == 3
    assert earlier.time == T0 - timedelta(days=30)


def test_open_store_for_writing_backs_up_first(db):
    with open_store(db):
        pass
    [taken] = backup.backups(db)
    assert taken.answers == 3
    with open_store(db):   # later the same day
        pass
    assert len(backup.backups(db)) == 1


def test_a_new_database_needs_no_backup(tmp_path):
    open_store(tmp_path / "fresh.db").close()
    assert not (tmp_path / "backups").exists()


def test_seven_daily_and_four_weekly_are_kept(db):
    """One backup a day from 1 Nov to 10 Dec 2026 (weeks start on Monday; 30 Nov is one)."""
    for day in range(40):
        backup.take(db, T0 + timedelta(days=day))
    kept = [b.time.date().isoformat() for b in backup.backups(db)]
    daily = [f"2026-12-{d:02d}" for d in range(10, 3, -1)]        # 10 Dec .. 4 Dec
    weekly = ["2026-11-29", "2026-11-22"]                          # the weeks of 7 and 30 Nov end in daily ones
    assert kept == daily + weekly


def test_prune_touches_only_backups_of_this_database(db):
    folder = db.parent / "backups"
    folder.mkdir()
    other = folder / "other-2020-01-01T000000Z.db"
    notes = folder / "README.txt"
    other.write_bytes(b"x")
    notes.write_text("mine")
    for day in range(12):
        backup.take(db, T0 + timedelta(days=day))
    assert other.exists() and notes.exists()


# --- damage -------------------------------------------------------------------------------------------------


def test_damage_quick_check_misses_is_never_written_and_names_the_backup(db):
    good = backup.take(db, T0 - timedelta(days=1))
    damage_missed_by_quick_check(db)
    before = db.read_bytes()
    with pytest.raises(StudytoolError) as caught:
        open_store(db)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{db} is damaged (")
    assert f"The newest good backup is {good.name} (3 answers)" in message
    assert f"'studytool backup restore {good.name}'" in message
    assert db.read_bytes() == before   # byte-identical
    assert beside(db) == []


def test_a_damaged_database_without_backups_says_so(db):
    damage_missed_by_quick_check(db)
    with pytest.raises(StudytoolError, match="there is no backup to restore"):
        open_store(db)


@pytest.mark.parametrize("garbage", [b"not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_read_only_check_leaves_nothing_beside_a_damaged_database(tmp_path, garbage):
    db = tmp_path / "studytool.db"
    db.write_bytes(garbage)
    with pytest.raises(StudytoolError, match="cannot use this progress database"):
        open_store(db)
    assert db.read_bytes() == garbage and beside(db) == []


def test_a_read_only_check_leaves_nothing_beside_a_healthy_database(db):
    assert check_database(db) > 0
    assert beside(db) == []


def test_flipped_bytes_are_caught_before_any_write(db):
    """Random byte flips: every flip that any check catches leaves the file byte-identical."""
    import random

    pristine = db.read_bytes()
    rng = random.Random(10)
    for _ in range(40):
        damaged = bytearray(pristine)
        for _ in range(3):
            damaged[rng.randrange(100, len(damaged))] ^= 1 << rng.randrange(8)
        db.write_bytes(bytes(damaged))
        for path in backup.backups(db):
            path.path.unlink()
        try:
            open_store(db).close()
        except StudytoolError:
            assert db.read_bytes() == bytes(damaged) and beside(db) == []
        else:
            assert backup.integrity_problems(db) == []


# --- restore ------------------------------------------------------------------------------------------------


def test_restore_round_trip_keeps_the_replaced_file(db):
    first = backup.take(db, T0)
    record(db, 2, start=3)
    with pytest.raises(StudytoolError, match="is healthy; add --force"):
        backup.restore(db, first.name)
    assert answers_in(db) == 5
    done = backup.restore(db, first.name, force=True, now=T0 + timedelta(hours=1))
    assert answers_in(db) == 3
    assert done.replaced == db.with_name("studytool.db.replaced-2026-11-01T130000Z")
    assert answers_in(done.replaced) == 5
    with open_store(db, backups=False) as store:   # the restored file is a working database
        assert store.answers_total() == 3


def test_restore_replaces_a_damaged_database_without_force(db):
    backup.take(db, T0)
    damage_missed_by_quick_check(db)
    done = backup.restore(db)
    assert done.backup.answers == 3 and backup.integrity_problems(db) == []


def test_restore_skips_damaged_backups_and_refuses_unknown_names(db):
    older = backup.take(db, T0)
    newer = backup.take(db, T0 + timedelta(days=1))
    newer.path.write_bytes(b"damaged")
    assert backup.newest_good(db) == older
    with pytest.raises(StudytoolError, match="no backup named 'nope'"):
        backup.restore(db, "nope")
    with pytest.raises(StudytoolError, match="is damaged too"):
        backup.restore(db, newer.name, force=True)


def test_restore_moves_the_wal_aside_with_the_file(db):
    backup.take(db, T0)
    con = sqlite3.connect(db)   # a session still open: its -wal holds pages the backup must not inherit
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("INSERT INTO settings VALUES ('x', 'y')")
    con.commit()
    assert beside(db)
    done = backup.restore(db, force=True, now=T0)
    con.close()
    assert os.path.exists(f"{done.replaced}-wal") or beside(db) == []
    assert answers_in(db) == 3


# --- bad rows -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "said"), [
    ("UPDATE cards SET due = 'garbage' WHERE key = 'd/c0'", "'garbage' where a time belongs"),
    ("UPDATE cards SET state = 7 WHERE key = 'd/c0'", "for d/c0 (state 7,"),
    ("UPDATE cards SET stability = 'abc' WHERE key = 'd/c1'", "stability 'abc'"),
    ("UPDATE reviews SET time = 'garbage' WHERE id = 1", "'garbage' where a time belongs"),
])
def test_bad_values_in_rows_are_one_line(db, sql, said):
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    with open_store(db, backups=False) as store, pytest.raises(StudytoolError) as caught:
        store.schedules()
        store.log_since(T0 - timedelta(days=1))
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_dropped_table_is_named(db):
    con = sqlite3.connect(db)
    con.execute("DROP TABLE cards")
    con.commit()
    con.close()
    with pytest.raises(StudytoolError, match=r"cannot use this progress database \(table cards is missing\)"):
        open_store(db)


# '2000-99-99' sorts before now, so review's due query reads it
@pytest.mark.parametrize("sql", ["UPDATE cards SET due = '2000-99-99'", "UPDATE cards SET state = 7", "DROP TABLE reviews"])
def test_stats_and_review_on_bad_rows_are_one_line(tmp_path, sql):
    home = tmp_path / "home"
    record(home / "studytool.db", 2)
    con = sqlite3.connect(home / "studytool.db")
    con.execute(sql)
    con.commit()
    con.close()
    for command in (["stats"], ["review"]):
        result = runner.invoke(app, command, env={"STUDYTOOL_HOME": str(home)}, input="")
        assert result.exit_code == 1, (command, result.output)
        assert result.stderr.startswith("studytool: ") and result.stderr.count("\n") == 1


# --- read-only folders --------------------------------------------------------------------------------------


@pytest.fixture
def read_only(db):
    """The database's folder made unwritable: chmod for a user, the immutable attribute for root."""
    folder = db.parent
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
            pytest.skip("cannot make a folder read-only for root here (no chattr)")
    else:
        folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("the folder stays writable")
        yield db
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


def test_stats_works_on_a_database_in_a_read_only_folder(read_only):
    db = read_only
    before = sorted(os.listdir(db.parent))
    result = runner.invoke(app, ["--db", str(db), "stats", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["answers_total"] == 3
    assert sorted(os.listdir(db.parent)) == before


@pytest.fixture
def old_schema_db(tmp_path):
    """A database as the first schema wrote it (made the way tests/study/test_store.py makes one)."""
    from studytool.study.store import Store

    path = tmp_path / "old" / "studytool.db"
    path.parent.mkdir()
    con = sqlite3.connect(path, isolation_level=None)
    Store(con, path).migrate(1)
    con.execute("INSERT INTO reviews (card, time, mode, rating, correct, answer, seed, params, duration_ms)"
                " VALUES ('d/c1', '2026-03-01T09:30:00.000000Z', 'review', 3, 1, '42', 1, '{}', 900)")
    con.close()
    return path


def test_an_old_schema_in_a_read_only_folder_is_read_through_a_copy_in_memory(old_schema_db):
    db = old_schema_db
    folder = db.parent
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
            pytest.skip("cannot make a folder read-only for root here (no chattr)")
    else:
        folder.chmod(0o555)
    try:
        before = db.read_bytes()
        with open_store(db, create=False) as store:
            assert store.answers_total() == 1 and store.version() > 1   # upgraded, in memory
        assert db.read_bytes() == before and sorted(os.listdir(folder)) == ["studytool.db"]
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


# --- the CLI ------------------------------------------------------------------------------------------------


def test_backup_cli_round_trip(tmp_path):
    home = tmp_path / "home"
    env = {"STUDYTOOL_HOME": str(home)}
    record(home / "studytool.db", 4)
    made = runner.invoke(app, ["backup"], env=env)
    assert made.exit_code == 0, made.output
    assert "(4 answers)" in made.stdout
    listed = runner.invoke(app, ["backup", "list", "--json"], env=env)
    [entry] = json.loads(listed.stdout)
    assert set(entry) == {"name", "time", "size", "answers"} and entry["answers"] == 4
    assert entry["name"] in runner.invoke(app, ["backup", "list"], env=env).stdout
    record(home / "studytool.db", 1, start=4)
    refused = runner.invoke(app, ["backup", "restore", entry["name"]], env=env)
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1 and "--force" in refused.stderr
    restored = runner.invoke(app, ["backup", "restore", entry["name"], "--force"], env=env)
    assert restored.exit_code == 0, restored.output
    assert answers_in(home / "studytool.db") == 4
    assert "The replaced database is kept as" in restored.stdout


def test_backup_of_a_damaged_database_refuses_and_names_the_good_one(tmp_path):
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 2)
    good = backup.take(db, T0)
    damage_missed_by_quick_check(db)
    result = runner.invoke(app, ["backup"], env={"STUDYTOOL_HOME": str(home)})
    assert result.exit_code == 1
    assert f"studytool backup restore {good.name}" in result.stderr and result.stderr.count("\n") == 1


def test_quiz_on_damage_quick_check_misses_writes_nothing(tmp_path):
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 2)
    good = backup.take(db, datetime.now(timezone.utc) - timedelta(days=1))
    damage_missed_by_quick_check(db)
    before = db.read_bytes()
    result = runner.invoke(app, ["quiz", "--count", "1"], env={"STUDYTOOL_HOME": str(home)}, input="1\n1\n")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and f"studytool backup restore {good.name}" in result.stderr
    assert db.read_bytes() == before and beside(db) == []


@pytest.mark.parametrize("make", [os.mkfifo, None])
def test_a_fifo_or_device_as_the_database_is_one_line_without_waiting(tmp_path, make):
    """SQLite opening a FIFO waits for a writer forever; it is refused before SQLite sees it."""
    path = tmp_path / "pipe.db" if make else Path("/dev/zero")
    if make:
        make(path)
    with pytest.raises(StudytoolError, match=r"is a (named pipe \(FIFO\)|device), not a database file"):
        open_store(path, create=False)


def test_an_interrupted_backup_leaves_no_half_copy(db, monkeypatch):
    real = sqlite3.connect

    class Interrupted:
        """A connection whose online backup is cut short by Ctrl-C."""

        def __init__(self, *args, **kwargs):
            self.con = real(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self.con, name)

        def backup(self, *args, **kwargs):
            raise KeyboardInterrupt

    monkeypatch.setattr(sqlite3, "connect", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        backup.take(db, T0)
    assert os.listdir(db.parent / "backups") == []


def test_an_interrupted_restore_puts_the_database_back(db, monkeypatch):
    backup.take(db, T0)
    record(db, 2, start=3)
    real = os.replace

    def interrupted(source, target):
        if str(source).endswith(".restore.tmp"):
            raise KeyboardInterrupt
        real(source, target)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        backup.restore(db, force=True, now=T0)
    monkeypatch.undo()
    assert answers_in(db) == 5
    assert sorted(p.name for p in db.parent.iterdir() if p.is_file()) == ["studytool.db"]


def test_a_read_only_command_takes_no_daily_backup(db):
    with open_store(db, create=False) as store:
        assert store.answers_total() == 3
    assert backup.backups(db) == []

"""Backups and damaged databases: damage quick_check misses is never written to, and nothing is lost."""

import json
import os
import sqlite3
import subprocess
import time
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from backup_fixtures import T0, answers_in, beside, damage_missed_by_quick_check, db, english, record, write
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.study import backup
from studytool.study.days import Days
from studytool.study.store import open_store

runner = CliRunner()
__all__ = ["db", "english"]   # fixtures, used by name


# --- taking, listing, pruning -------------------------------------------------------------------------------


def test_a_backup_is_a_consistent_copy_with_its_answers(db):
    taken = backup.take(db, T0)
    assert taken.path == db.parent / "backups" / "studytool-2026-11-01T120000Z-1.db"   # the first one taken
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
    assert backup.ensure_daily(db, T0) is None   # that day has its copy already
    earlier = backup.take(db, T0 - timedelta(days=30))
    assert earlier.path.exists() and earlier.answers == 3
    assert earlier.time == T0 - timedelta(days=30)
    assert backup.backups(db)[0] == earlier   # taken last, so the newest, whatever its date


def test_a_backup_dated_in_the_future_does_not_stop_todays(db):
    """F3: a copy taken with the real clock (December), then study with STUDYTOOL_NOW in March: a copy each day."""
    backup.take(db, datetime(2026, 12, 1, 8, 21, tzinfo=timezone.utc))
    march = datetime(2026, 3, 2, 8, 30, tzinfo=timezone.utc)
    for day in range(8):
        assert backup.ensure_daily(db, march + timedelta(days=day)) is not None, day
    dates = [b.time.date().isoformat() for b in backup.backups(db)]
    assert dates[:7] == [f"2026-03-{d:02d}" for d in range(9, 2, -1)]   # taken last first; 7 daily kept


def test_the_day_of_a_backup_is_ankis_day(db):
    """03:30 still belongs to the day before (day_start 4, as every other count): no second copy for it."""
    days = Days(4, timezone.utc)
    evening = datetime(2026, 3, 2, 22, 0, tzinfo=timezone.utc)
    assert backup.ensure_daily(db, evening, days=days) is not None
    assert backup.ensure_daily(db, evening + timedelta(hours=5, minutes=30), days=days) is None   # 03:30 on the 3rd
    assert backup.ensure_daily(db, evening + timedelta(hours=6, minutes=30), days=days) is not None   # 04:30


def test_names_never_collide(db):
    """The same clock time twice (STUDYTOOL_NOW stands still): two copies, numbered in the order taken."""
    first, second = backup.take(db, T0), backup.take(db, T0)
    assert (first.number, second.number) == (1, 2) and first.path != second.path
    assert backup.backups(db) == [second]   # the older copy of that day is pruned, not overwritten


def test_two_sessions_backing_up_at_once_both_succeed(db):
    """Two processes' first writes of the day back up together: each one's prune may remove the other's copy."""
    import threading

    errors: list[BaseException] = []

    def session() -> None:
        try:
            for _ in range(25):
                backup.take(db, T0, checked=True)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=session) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    left = backup.backups(db)
    # Each prune keeps its own copy, so while they race the other's newest may stay beside it for a while.
    assert 1 <= len(left) <= 2 and all(b.answers == 3 for b in left)
    assert left[0].number == 50   # the copy taken last is never pruned
    backup.prune(db)   # the next session's prune tidies the day to its newest copy
    assert backup.backups(db) == left[:1]


def test_the_first_write_backs_up_first(db):
    write(db)
    [taken] = backup.backups(db)
    assert taken.answers == 3
    write(db)   # later the same day
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


@contextmanager
def unwritable(folder: Path):
    """`folder` made unwritable for the block: chmod for a user, the immutable attribute for root."""
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
            pytest.skip("cannot make a folder read-only for root here (no chattr)")
    else:
        folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("the folder stays writable")
        yield folder
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        else:
            folder.chmod(0o755)


@pytest.fixture
def read_only(db):
    with unwritable(db.parent):
        yield db


def test_stats_works_on_a_database_in_a_read_only_folder(read_only):
    db = read_only
    before = sorted(os.listdir(db.parent))
    result = runner.invoke(app, ["--db", str(db), "stats", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["answers_total"] == 3
    assert sorted(os.listdir(db.parent)) == before


@pytest.mark.parametrize("command", [["review"], ["cards", "suspend", "one/c0"], ["config", "new_per_day", "3"],
                                     ["quiz"]])
def test_a_command_that_writes_in_a_read_only_folder_says_so_and_what_still_works(read_only, tmp_path_factory,
                                                                                 command):
    """The tester saw "cannot switch to WAL (unable to open database file)": say the folder is read-only instead."""
    db = read_only
    decks = tmp_path_factory.mktemp("decks")   # not in the read-only folder
    (decks / "one.yaml").write_text(ONE_CARD, encoding="utf-8")
    started = time.monotonic()
    result = runner.invoke(app, ["--db", str(db), "--deck-path", str(decks), *command], input="7\n")
    assert time.monotonic() - started < 15   # at once: it waited 30 s for a lock, as if another session had the file
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"studytool: {db}: the database or its folder is read-only, so nothing can be written; "
                             "'studytool stats', 'cards list' and 'backup list' still read it\n")
    assert answers_in(db) == 3


def test_backup_in_a_read_only_folder_says_so(read_only):
    db = read_only
    result = runner.invoke(app, ["--db", str(db), "backup"])
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"studytool: {db.parent} is read-only: cannot back up {db} (nothing was written); "
                             "'studytool stats', 'cards list' and 'backup list' still read it\n")


def test_restore_on_a_read_only_file_system_says_so(db, monkeypatch):
    """On a read-only mount even unlinking a file that is not there fails (EROFS): that was reported as
    "cannot write the output"; the restore says the folder is read-only and leaves everything as it was."""
    import errno
    import shutil

    good = backup.take(db, T0)

    def read_only_file_system(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(shutil, "copyfile", read_only_file_system)
    monkeypatch.setattr(Path, "unlink", read_only_file_system)
    with pytest.raises(StudytoolError) as caught:
        backup.restore(db, good.name, force=True, now=T0)
    monkeypatch.undo()
    assert str(caught.value) == (f"{db.parent} is read-only: cannot restore {db} (nothing was changed); "
                                 "'studytool stats', 'cards list' and 'backup list' still read it")
    assert answers_in(db) == 3 and sorted(os.listdir(db.parent)) == ["backups", "studytool.db"]


ONE_CARD = ("deck: one\ntitle: one card\nsource: tests\ncards:\n"
            "  - id: c0\n    kind: number\n    topic: softmax\n    q: 3 + 4 = ?\n    answer: 7\n")


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
    with unwritable(db.parent) as folder:
        before = db.read_bytes()
        with open_store(db, create=False) as store:
            assert store.answers_total() == 1 and store.version() > 1   # upgraded, in memory
        assert db.read_bytes() == before and sorted(os.listdir(folder)) == ["studytool.db"]


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
    assert set(entry) == {"name", "time", "size", "answers", "number", "restore_default"} and entry["answers"] == 4
    assert entry["restore_default"] is True
    assert entry["name"] in runner.invoke(app, ["backup", "list"], env=env).stdout
    record(home / "studytool.db", 1, start=4)
    refused = runner.invoke(app, ["backup", "restore", entry["name"]], env=env)
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1 and "--force" in refused.stderr
    restored = runner.invoke(app, ["backup", "restore", entry["name"], "--force"], env=env)
    assert restored.exit_code == 0, restored.output
    assert answers_in(home / "studytool.db") == 4
    assert "The replaced database (5 answers) is kept as" in restored.stdout


def test_backup_of_a_damaged_database_refuses_and_names_the_good_one(tmp_path):
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 2)
    good = backup.take(db, T0)
    damage_missed_by_quick_check(db)
    result = runner.invoke(app, ["backup"], env={"STUDYTOOL_HOME": str(home)})
    assert result.exit_code == 1
    assert f"studytool backup restore {good.name}" in result.stderr and result.stderr.count("\n") == 1



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



def test_restore_without_a_name_puts_back_the_one_taken_last_and_says_which(tmp_path):
    """F5: a copy dated December (3 answers), then one dated March (5): without a NAME, March's is put back, and
    `backup list` says so before."""
    home = tmp_path / "home"
    db = home / "studytool.db"
    env = {"STUDYTOOL_HOME": str(home)}
    record(db, 3)
    backup.take(db, datetime(2026, 12, 1, 8, 21, tzinfo=timezone.utc))
    record(db, 2, start=3)
    march = backup.take(db, datetime(2026, 3, 2, 8, 12, tzinfo=timezone.utc))
    damage_missed_by_quick_check(db)
    when = march.time.astimezone().strftime("%Y-%m-%d %H:%M")
    listed = runner.invoke(app, ["backup", "list"], env=env)
    assert f"puts back {march.name} (taken {when}, 5 answers)" in " ".join(listed.stdout.split())
    chosen = [entry for entry in json.loads(runner.invoke(app, ["backup", "list", "--json"], env=env).stdout)
              if entry["restore_default"]]
    assert [entry["name"] for entry in chosen] == [march.name]
    restored = runner.invoke(app, ["backup", "restore"], env=env)
    assert restored.exit_code == 0, restored.output
    said = " ".join(restored.stdout.split())
    assert said.startswith(f"Restored {march.name} (taken {when}, 5 answers) to {db}")
    assert "The replaced database (5 answers) is kept as" in said
    assert answers_in(db) == 5


def test_a_second_restore_at_the_same_clock_time_keeps_both_replaced_files(db):
    backup.take(db, T0)
    first = backup.restore(db, force=True, now=T0)
    second = backup.restore(db, force=True, now=T0)
    assert first.replaced != second.replaced and first.replaced.exists() and second.replaced.exists()

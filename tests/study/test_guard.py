"""A database that fails the full integrity check is never written (study/guard.py): damage quick_check misses,
damage after the day's backup, bits flipped in a file the last session left trusted."""

import os
from datetime import datetime, timedelta, timezone

import pytest
from backup_fixtures import (T0, beside, damage_cell_pointers, damage_missed_by_quick_check, db, english,
                             flipped_where_only_integrity_check_looks, one_card_deck, record, write)
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.study import backup, guard
from studytool.study.store import check_database, open_store

runner = CliRunner()
__all__ = ["db", "english"]   # fixtures, used by name


# --- damage -------------------------------------------------------------------------------------------------


def test_damage_quick_check_misses_is_never_written_and_names_the_backup(db):
    good = backup.take(db, T0 - timedelta(days=1))
    damage_missed_by_quick_check(db)
    before = db.read_bytes()
    with pytest.raises(StudytoolError) as caught:
        write(db)
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
        write(db)


@pytest.mark.parametrize("garbage", [b"not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_a_read_only_check_leaves_nothing_beside_a_damaged_database(tmp_path, garbage):
    db = tmp_path / "studytool.db"
    db.write_bytes(garbage)
    with pytest.raises(StudytoolError, match=r"is damaged \(file is not a database\)"):
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
            write(db)
        except StudytoolError:
            assert db.read_bytes() == bytes(damaged) and beside(db) == []
        else:
            assert backup.integrity_problems(db) == []


def test_damage_after_the_days_backup_is_never_written(db, monkeypatch):
    """F4: the day's copy is taken, then the file is damaged: the next write that day is refused all the same."""
    monkeypatch.setenv("STUDYTOOL_NOW", "2026-03-10T09:00:00+00:00")
    write(db)
    [good] = backup.backups(db)
    damage_missed_by_quick_check(db)
    before = db.read_bytes()
    monkeypatch.setenv("STUDYTOOL_NOW", "2026-03-10T10:00:00+00:00")
    with pytest.raises(StudytoolError, match=f"is damaged .*'studytool backup restore {good.name}'"):
        write(db)
    assert db.read_bytes() == before and beside(db) == []


def test_a_process_that_passed_trusts_the_file_as_it_left_it(db):
    """The full check is skipped only for the file exactly as the last checked writer left it."""
    write(db)
    assert guard.Guard(db, background=False).trusted
    os.utime(db, ns=(db.stat().st_atime_ns, db.stat().st_mtime_ns))   # same times written back: the change time moved
    assert not guard.Guard(db, background=False).trusted
    write(db)
    assert guard.Guard(db, background=False).trusted
    db.write_bytes(db.read_bytes())   # the same bytes written by another program
    assert not guard.Guard(db, background=False).trusted


def test_a_store_closed_before_its_check_ends_stops_it_and_leaves_nothing(db):
    damage_missed_by_quick_check(db)
    before = db.read_bytes()
    open_store(db).close()   # quit at the first card: the check is stopped, nothing is written
    assert db.read_bytes() == before and beside(db) == []
    assert guard.recorded(db) is None

def test_quiz_on_damage_quick_check_misses_writes_nothing(tmp_path):
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 2)
    good = backup.take(db, datetime.now(timezone.utc) - timedelta(days=1))
    damage_missed_by_quick_check(db)
    before = db.read_bytes()
    result = runner.invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), "quiz", "--deck", "one", "--count", "1"],
                           env={"STUDYTOOL_HOME": str(home)}, input="7\n3\n")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and f"studytool backup restore {good.name}" in result.stderr
    assert db.read_bytes() == before and beside(db) == []

@pytest.mark.parametrize("seed", [3, 7])
def test_review_on_flipped_bytes_writes_nothing_even_with_a_future_backup_and_a_trusted_file(tmp_path, seed):
    """F4: the day's copy exists (and one dated in December), the last session left the file trusted; then bits
    flip. `review` answers, exits 1 with one line naming the newest good copy, and the file is byte-identical."""
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 200)
    backup.take(db, datetime(2026, 12, 1, 8, 21, tzinfo=timezone.utc))   # the real clock, ahead of the study clock
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": "2026-03-10T09:00:00+00:00"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STUDYTOOL_NOW", env["STUDYTOOL_NOW"])
        write(db)   # the day's copy, and the file noted as checked
    good = backup.backups(db)[0]
    assert good.time.date().isoformat() == "2026-03-10" and guard.Guard(db, background=False).trusted
    damaged = flipped_where_only_integrity_check_looks(db.read_bytes(), seed, tmp_path / "probe.db")
    db.write_bytes(damaged)
    result = runner.invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), "review", "--deck", "one"], env=env, input="7\n3\n")
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and " is damaged (" in result.stderr
    assert f"The newest good backup is {good.name} (200 answers)" in result.stderr
    assert f"'studytool backup restore {good.name}'" in result.stderr
    assert db.read_bytes() == damaged and beside(db) == []


def test_a_check_that_ended_while_nothing_was_written_counts_for_the_next_process(db):
    os.utime(db, ns=(db.stat().st_atime_ns, db.stat().st_mtime_ns))   # changed for the guard (its change time)
    store = open_store(db, backups=False)
    assert not store.guard.trusted
    store.guard._thread.join()   # the check ends while the first card would be on screen
    store.close()
    assert guard.Guard(db, background=False).trusted


def damage_to_a_whole_page(db):
    """A table page overwritten: SQLite stops with "database disk image is malformed" before any report."""
    damage_cell_pointers(db)   # checkpointed, so every page is in the file
    data = bytearray(db.read_bytes())
    page = next(start for start in range(4096, len(data), 4096) if data[start] == 13)
    data[page:page + 4096] = b"\xff" * 4096
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [damage_cell_pointers, damage_to_a_whole_page])
@pytest.mark.parametrize("command", [["stats"], ["review"], ["cards", "show", "one/c0"], ["config", "new_per_day", "3"],
                                     ["cards", "list"], ["quiz"]])
def test_every_command_on_a_damaged_database_names_the_backup_in_one_short_line(tmp_path, damage, command):
    """The tester's report: damage quick_check finds gave most commands SQLite's whole report on one line, naming no
    backup; every command stops with the line `backup` gives, SQLite's detail cut to its first problem."""
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 60)
    good = backup.take(db, T0)
    damage(db)
    before = db.read_bytes()
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": "2026-11-01T13:00:00+00:00"}
    result = runner.invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), *command], env=env, input="7\n")
    assert result.exit_code == 1, result.output
    line = result.stderr
    assert line.count("\n") == 1 and line.startswith(f"studytool: {db} is damaged (")
    assert f"The newest good backup is {good.name} (60 answers)" in line
    assert f"restore it with 'studytool backup restore {good.name}'" in line
    assert "*** in database" not in line and line.count("On tree page") <= 1 and len(line) < 200 + 2 * len(str(db))
    assert db.read_bytes() == before


def test_a_long_report_keeps_its_first_problem_and_counts_the_rest():
    report = ["*** in database main ***\nOn tree page 6 cell 1: Offset 65535 out of range 3694..4092\n"
              "On tree page 6 cell 0: Offset 65535 out of range 3694..4092", "x" * 300]
    assert backup.short_reason(report) == "On tree page 6 cell 1: Offset 65535 out of range 3694..4092; 2 more problems"
    assert backup.short_reason(["y" * 300]) == "y" * 79 + "…"


# --- no backup before the first write -----------------------------------------------------------------------


def test_a_store_opened_and_closed_without_writing_takes_no_backup(db):
    """README: the backup is taken before the day's first answer; a command that writes nothing leaves none."""
    store = open_store(db)
    store.guard._thread.join()   # the check has run to its end: before, the thread went on to take the backup
    store.close()
    assert backup.backups(db) == []
    write(db)
    assert [found.answers for found in backup.backups(db)] == [3]   # the first write takes it, before writing


def test_review_of_an_unknown_deck_or_quit_at_once_takes_no_backup(tmp_path):
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 3)
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": "2026-03-02T08:00:00+00:00"}
    decks = one_card_deck(tmp_path / "decks")
    unknown = runner.invoke(app, ["--deck-path", decks, "review", "--deck", "nosuch"], env=env, input="")
    assert unknown.exit_code == 1 and "unknown deck" in unknown.stderr
    quit_at_once = runner.invoke(app, ["--deck-path", decks, "review", "--deck", "one"], env=env, input=":q\n")
    assert quit_at_once.exit_code == 0, quit_at_once.output
    assert backup.backups(db) == []
    answered = runner.invoke(app, ["--deck-path", decks, "review", "--deck", "one"], env=env, input="7\n")
    assert answered.exit_code == 0, answered.output
    assert [found.answers for found in backup.backups(db)] == [3]

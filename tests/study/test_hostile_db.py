"""Round three of hostile input against the progress database and its backups (issue 20): a planted schema object,
a restore under a running session, planted backup names, crafted rows, hostile paths, an undo after another
session's answer, and errors that must name their real cause. Each case: one line, exit 1 (or the command works),
nothing lost, no traceback."""

import sqlite3

import pytest
from backup_fixtures import T0, answers_in, english, one_card_deck, record, three_days_of_one_card
from study_fakes import database_at
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.study import backup
from studytool.study.store import open_store

__all__ = ["english"]   # a fixture, used by name
NOW = "2026-11-02T09:00:00+00:00"
THINNING = ("CREATE TRIGGER thin AFTER INSERT ON reviews BEGIN"
            " DELETE FROM reviews WHERE id % 2 = 0 AND id <> NEW.id; END")   # the tester's: every other row goes


def plant(db, statement: str) -> None:
    con = sqlite3.connect(db)
    con.execute(statement)
    con.commit()
    con.close()


def env_for(home, **more) -> dict[str, str]:
    return {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": NOW, "STUDYTOOL_LANG": "en", **more}


def review_once(tmp_path, home):
    return CliRunner().invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), "review", "--deck", "one"],
                              env=env_for(home), input="7\n")


@pytest.fixture
def home_with_backup(tmp_path):
    """A home with four answers, backed up."""
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 4)
    return home, db, backup.take(db, T0)


# --- 1. schema objects the migrations never made --------------------------------------------------------------

FOREIGN = [THINNING, "CREATE VIEW v AS SELECT * FROM reviews", "CREATE TABLE extra (x)",
           "CREATE INDEX extra_index ON reviews (answer)"]


@pytest.mark.parametrize("statement", FOREIGN, ids=["trigger", "view", "table", "index"])
def test_a_planted_schema_object_is_refused_naming_the_newest_good_backup(tmp_path, home_with_backup, statement):
    home, db, good = home_with_backup
    plant(db, statement)
    planted = db.read_bytes()
    result = review_once(tmp_path, home)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"studytool: {db} is damaged (")
    assert f"'studytool backup restore {good.name}'" in result.stderr
    assert db.read_bytes() == planted and answers_in(db) == 4


def test_the_thinning_trigger_never_runs_the_log_keeps_every_answer(tmp_path, home_with_backup):
    home, db, good = home_with_backup
    plant(db, THINNING)
    for command in (["stats"], ["cards", "list"], ["backup"], ["config"]):
        result = CliRunner().invoke(app, command, env=env_for(home))
        assert result.exit_code == 1 and "Traceback" not in result.output, (command, result.output)
        assert f"'studytool backup restore {good.name}'" in result.stderr
    assert answers_in(db) == 4
    restored = CliRunner().invoke(app, ["backup", "restore"], env=env_for(home))
    assert restored.exit_code == 0, restored.output
    assert review_once(tmp_path, home).exit_code == 0
    assert answers_in(db) == 5   # the four answers and the new one, none deleted


def test_a_backup_carrying_a_trigger_is_never_restored_nor_named_good(tmp_path, home_with_backup):
    home, db, good = home_with_backup
    plant(good.path, THINNING)
    with pytest.raises(StudytoolError, match=f"backup {good.name} is damaged too"):
        backup.restore(db, good.name, force=True)
    assert backup.newest_good(db) is None
    with pytest.raises(StudytoolError, match="every backup"):
        backup.restore(db, force=True)


def test_a_trigger_in_the_database_is_never_copied_into_a_backup(home_with_backup):
    home, db, good = home_with_backup
    plant(db, THINNING)
    with pytest.raises(StudytoolError, match="is damaged"):
        backup.take(db)
    assert backup.backups(db) == [good]


def test_a_trigger_with_a_migration_s_name_and_another_body_is_refused(tmp_path):
    db = tmp_path / "studytool.db"
    con = database_at(db, 6)   # whose migrations made the trigger (version 7 drops it)
    con.commit()
    con.close()
    plant(db, "DROP TRIGGER reviews_prior_state")
    plant(db, "CREATE TRIGGER reviews_prior_state AFTER INSERT ON reviews BEGIN DELETE FROM reviews; END")
    with pytest.raises(StudytoolError, match="is damaged"):
        open_store(db, create=False)


def test_an_older_schema_with_nothing_planted_still_opens_and_is_brought_up_to_date(tmp_path):
    from studytool.study.schema import MIGRATIONS

    db = tmp_path / "studytool.db"
    con = database_at(db, 2)
    con.commit()
    con.close()
    with open_store(db, backups=False) as store:
        assert store.version() == len(MIGRATIONS)
    assert backup.integrity_problems(db) == []


# --- 2. a restore under a running session ---------------------------------------------------------------------

def test_a_session_whose_database_was_restored_under_it_stops_before_its_next_write(tmp_path, home_with_backup):
    """A real second process answers one card; `backup restore --force` puts the backup in place; its next answer
    is refused in one line instead of going, unseen, into the file moved aside."""
    import os
    import subprocess
    import sys
    import time

    from study_fakes import drill_deck

    home, db, good = home_with_backup
    (tmp_path / "decks").mkdir()
    drill_deck(tmp_path / "decks")
    env = {**os.environ, **env_for(home)}
    session = subprocess.Popen([sys.executable, "-m", "studytool", "--deck-path", str(tmp_path / "decks"), "review",
                                "--deck", "drill"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, text=True)
    session.stdin.write("7\n")
    session.stdin.flush()
    deadline = time.monotonic() + 60
    while answers_now(db) != 5:   # its first answer is committed
        assert time.monotonic() < deadline and session.poll() is None, session.stderr.read()
        time.sleep(0.02)
    done = backup.restore(db, good.name, force=True)
    out, err = session.communicate("7\n7\n", timeout=60)
    assert session.returncode == 1 and "Traceback" not in err
    assert err.splitlines()[-1] == (f"studytool: {db} was replaced while this command ran (by 'studytool backup "
                                    "restore'?): nothing more was written to it; run the command again")
    assert answers_now(db) == 4 and answers_now(done.replaced) == 5   # the first answer kept where it was written


def answers_now(db) -> int:
    """The answers a database holds with its -wal (what a session has committed)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT count(*) FROM reviews").fetchone()[0]
    finally:
        con.close()


# --- 4. backup of a FIFO or a device --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_backup_of_a_fifo_or_a_device_is_refused_as_every_command_refuses_it(tmp_path, kind):
    import os
    import subprocess
    import sys

    db = tmp_path / "studytool.db"
    if kind == "fifo":
        os.mkfifo(db)
    else:
        db.symlink_to("/dev/zero")
    said = "a named pipe (FIFO)" if kind == "fifo" else "a device"
    result = subprocess.run([sys.executable, "-m", "studytool", "--db", str(db), "backup"], capture_output=True,
                            text=True, timeout=60, env={**os.environ, "STUDYTOOL_LANG": "en", "STUDYTOOL_NOW": NOW},
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"studytool: {db} is {said}, not a database file\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["studytool.db"]   # no backups folder beside it


# --- 5. planted backup names ----------------------------------------------------------------------------------

PLANTED = ["studytool-2026-11-01T120000Z-9999999999.db",   # 10 digits: not a number of ours
           "studytool-2026-11-01T120000Z-999999999.db",    # 9 digits: the next one would have 10
           "studytool-2026-99-99T999999Z-3.db",             # no such time
           "studytool-0000-01-01T000000Z-4.db",             # no year 0
           "studytool-0001-01-01T000000Z-5.db",             # a day number before the epoch, overflowing in a zone
           "studytool-9999-12-31T235959Z-6.db"]             # a time no clock of ours names


@pytest.fixture
def planted_home(tmp_path, home_with_backup):
    """A home whose backups folder holds, beside its real backup, copies of it under planted names."""
    import shutil

    home, db, good = home_with_backup
    for name in PLANTED:
        shutil.copyfile(good.path, backup.folder_for(db) / name)
    return home, db, good


PLANTED_COMMANDS = [["backup"], ["backup", "list"], ["backup", "list", "--json"], ["config"],
                    ["cards", "suspend", "one/c0"], ["review", "--deck", "one"], ["quiz", "--deck", "one"],
                    ["backup", "restore", "--force"]]


@pytest.mark.parametrize("command", PLANTED_COMMANDS, ids=" ".join)
def test_planted_backup_names_crash_no_command(tmp_path, planted_home, command):
    home, db, good = planted_home
    result = CliRunner().invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), *command],
                                env=env_for(home, TZ="Asia/Shanghai"), input="7\n")
    assert result.exit_code == 0 and result.exception is None, (result.output, result.exception)
    assert "Traceback" not in result.output


def test_planted_names_are_skipped_and_the_next_backup_is_read_back(planted_home):
    home, db, good = planted_home
    assert backup.backups(db) == [good]
    taken = backup.take(db)
    assert taken.number == 2 and backup.backups(db)[0] == taken   # numbered after the real one, and listed
    assert backup.restore(db, force=True).backup == taken   # without a name: the newest really taken


def test_restore_without_a_name_takes_the_newest_by_the_file_systems_clock_not_by_a_planted_number(
        home_with_backup):
    """A healthy copy planted under a number above every real one (which the name allows) is older than the real
    backup by the file system's change time, which a name cannot carry and `touch` cannot set back."""
    import os
    import shutil
    import time

    home, db, good = home_with_backup
    planted = backup.folder_for(db) / "studytool-2026-11-01T120000Z-90.db"
    shutil.copyfile(good.path, planted)
    time.sleep(0.01)
    os.chmod(good.path, os.stat(good.path).st_mode)   # the real one's change time is now the later (as if taken now)
    assert backup.backups(db)[0].path == planted        # listed first by its number, as names are read
    assert backup.newest_good(db) == good
    assert backup.restore(db, force=True).backup == good


# --- 7. crafted values in a real-schema database --------------------------------------------------------------

@pytest.fixture
def answered_home(tmp_path):
    """A home whose one card (one/c0) has three review answers a day apart, backed up."""
    home = tmp_path / "home"
    db = home / "studytool.db"
    with open_store(db, backups=False) as store:
        three_days_of_one_card(store)
    return home, db, backup.take(db, T0)


def crafted(db, sql: str) -> None:
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()


REVIEW, SHOW, OPTIMIZE = ["review", "--deck", "one"], ["cards", "show", "one/c0"], ["optimize"]
DEEP = "[" * 100_000 + "]" * 100_000
CRAFTED = [
    ("UPDATE cards SET stability = -5", REVIEW),
    ("UPDATE cards SET stability = -5", SHOW),
    ("UPDATE cards SET step = -5, state = 1", REVIEW),
    ("UPDATE cards SET difficulty = 1e308", REVIEW),
    ("UPDATE reviews SET rating = 99", SHOW),
    ("UPDATE reviews SET rating = 'x'", SHOW),
    *((f"UPDATE reviews SET rating = {rating} WHERE id = 2", OPTIMIZE) for rating in (0, 5, -1, 2**40, 2.5, 99)),
    ("UPDATE reviews SET params = '{bad'", SHOW),
    (f"UPDATE reviews SET params = '{DEEP}'", SHOW),
    ("UPDATE reviews SET params = '[1, 2]'", SHOW),
    ("UPDATE reviews SET answer = x'fffe00'", SHOW),
    ("UPDATE reviews SET time = '0001-01-01T00:00:00.000000Z' WHERE id = 1", OPTIMIZE),
    ("UPDATE reviews SET time = '0001-01-01T00:00:00.000000Z'", SHOW),
    ("UPDATE cards SET due = '0001-01-01T00:00:00.000000Z'", REVIEW),
    ("UPDATE cards SET last_review = '0001-01-01T00:00:00.000000Z'", SHOW),
]


@pytest.mark.parametrize("sql, command", CRAFTED, ids=[f"{' '.join(c)}: {s[:50]}" for s, c in CRAFTED])
def test_a_crafted_value_is_one_line_naming_the_newest_good_backup(tmp_path, answered_home, sql, command):
    home, db, good = answered_home
    crafted(db, sql)
    result = CliRunner().invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), *command],
                                env=env_for(home, TZ="Asia/Shanghai"), input="7\n")
    assert result.exit_code == 1 and "Traceback" not in result.output, (result.output, result.exception)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"studytool: {db} is damaged (")
    assert f"'studytool backup restore {good.name}'" in result.stderr
    assert answers_now(db) == 3


@pytest.mark.parametrize("version", ["'x'", "x'05'", "4.5", "-1"])
@pytest.mark.parametrize("command", [["stats"], REVIEW, ["config"], ["backup"]], ids=" ".join)
def test_a_schema_version_that_is_no_whole_number_is_one_line(tmp_path, answered_home, version, command):
    home, db, good = answered_home
    con = sqlite3.connect(db)   # the table re-made without its INTEGER PRIMARY KEY, which refuses anything else
    con.executescript(f"""ALTER TABLE migrations RENAME TO old;
        CREATE TABLE migrations (version, applied); INSERT INTO migrations SELECT * FROM old; DROP TABLE old;
        UPDATE migrations SET version = {version} WHERE version = 5;""")
    con.close()
    result = CliRunner().invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), *command],
                                env=env_for(home), input="7\n")
    assert result.exit_code == 1 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"studytool: {db} is damaged (")
    assert f"'studytool backup restore {good.name}'" in result.stderr


# --- 8. hostile paths -----------------------------------------------------------------------------------------

LONG = "a" * 300   # one name over the 255 bytes a file system holds


@pytest.mark.parametrize("where", ["--db", "--db folder", "STUDYTOOL_HOME", "--deck-path"])
@pytest.mark.parametrize("command", [["stats"], ["review"], ["backup"], ["decks", "list"]], ids=" ".join)
def test_a_name_over_255_bytes_is_one_line(tmp_path, where, command):
    path = tmp_path / LONG
    args, env = [], env_for(tmp_path / "home")
    if where == "--db":
        args = ["--db", str(tmp_path / f"{LONG}.db")]
        path = tmp_path / f"{LONG}.db"
    elif where == "--db folder":
        args = ["--db", str(path / "studytool.db")]
        path = path / "studytool.db"
    elif where == "STUDYTOOL_HOME":
        env["STUDYTOOL_HOME"] = str(path)
    else:
        args = ["--deck-path", str(path)]
    result = CliRunner().invoke(app, [*args, *command], env=env, input="")
    assert result.exit_code == 1 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert result.stderr == (f"studytool: {path}: the name {'a' * 20}… is {len(LONG) + 3 * (where == '--db')} bytes "
                             "long, over the 255 a file system allows\n")


@pytest.mark.parametrize("option", ["--db", "--deck-path"])
def test_a_whole_path_over_4095_bytes_is_one_line(tmp_path, option):
    path = tmp_path.joinpath(*["ab"] * 1400, "x.db")
    result = CliRunner().invoke(app, [option, str(path), "stats"], env=env_for(tmp_path / "home"))
    assert result.exit_code == 1
    assert result.stderr == (f"studytool: {str(path)[:60]}…: the path is {len(str(path))} bytes long, over the 4095 "
                             "a file system allows\n")


@pytest.mark.parametrize("name", [b"bad\xff.db", b"new\nline.db"], ids=["not-utf-8", "newline"])
def test_backup_of_a_database_whose_name_is_not_utf8_or_holds_a_newline(tmp_path, name):
    import os
    import subprocess
    import sys

    db = tmp_path / os.fsdecode(name)
    record(db, 2)
    run = [sys.executable, "-m", "studytool", "--db", os.fsencode(db)]
    env = {**os.environ, "STUDYTOOL_LANG": "en", "STUDYTOOL_NOW": NOW}
    for command in (["backup"], ["backup", "list"], ["stats"], ["cards", "list"]):
        result = subprocess.run(run + command, capture_output=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
        assert result.returncode == 0 and b"Traceback" not in result.stderr, (command, result.stderr)
    [taken] = backup.backups(db)
    assert taken.answers == 2 and taken.name.startswith(db.stem)
    restored = subprocess.run(run + ["backup", "restore", "--force"], capture_output=True, env=env, timeout=120)
    assert restored.returncode == 0, restored.stderr


def test_a_newline_in_the_database_s_name_is_escaped_in_the_one_line_error(tmp_path):
    db = tmp_path / "new\nline.db"
    db.write_bytes(b"junk\n")
    result = CliRunner().invoke(app, ["--db", str(db), "stats"], env=env_for(tmp_path))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and f"{tmp_path}/new\\x0aline.db is damaged" in result.stderr


# --- 11. :undo after another session answered the same card ---------------------------------------------------

def test_undo_after_another_session_answered_the_card_keeps_that_answer(tmp_path):
    from datetime import timedelta

    from study_fakes import Clock, Recorder, number

    from studytool.study.days import Days
    from studytool.study.queue import Showing
    from studytool.study.scheduler import Rules, Scheduler
    from studytool.study.session import Session
    from studytool.study.store import Answer

    db = tmp_path / "studytool.db"
    rules = Rules(retention=0.9, fuzz=False, days=Days(4))
    later = T0 + timedelta(minutes=5)

    def session_b_answers() -> str:   # between A's answer and A's :undo, B answers the same card with Again
        with open_store(db, backups=False) as b:
            b.record(Answer(card="d/a", topic="t", mode="review", rating=1, correct=False, answer="0", seed=None,
                            params={}, duration_ms=1, time=later),
                     lambda prior: Scheduler(rules).answer(prior, 1, later, key="d/a", reps=b.reps("d/a")))
            moved[:] = [b.schedule("d/a")]
        return ":undo"

    moved = []
    lines = iter(["1", None, ":q"])   # None: B answers, then A types :undo
    view = Recorder()
    with open_store(db, backups=False) as a:
        ask = (lambda prompt: session_b_answers() if (line := next(lines, ":q")) is None else line)
        Session(a, [Showing(number("a", 1), None)], mode="review", ask=ask, view=view,
                rules=lambda deck: rules, clock=Clock()).run()
        assert a.schedule("d/a") == moved[0]   # B's schedule update stands
        assert [tuple(row) for row in a.con.execute("SELECT mode, rating FROM reviews ORDER BY id")] == [
            ("review", 3), ("review", 1)]   # both answers logged, neither taken back
    assert ("notice", "Not taken back: d/a was answered in another session since, and its schedule is that "
                      "answer's now.") in [event[:2] for event in view.events]


def test_undo_of_an_answer_nobody_else_followed_still_takes_it_back(tmp_path):
    from study_fakes import Clock, Recorder, Script, number

    from studytool.study.days import Days
    from studytool.study.queue import Showing
    from studytool.study.scheduler import Rules
    from studytool.study.session import Session

    with open_store(tmp_path / "studytool.db", backups=False) as a:
        Session(a, [Showing(number("a", 1), None)], mode="review", ask=Script(["1", ":undo", ":q"]), view=Recorder(),
                rules=lambda deck: Rules(retention=0.9, fuzz=False, days=Days(4)), clock=Clock()).run()
        assert a.answers_total() == 0 and a.schedule("d/a") is None


# --- 12. errors that name their real cause --------------------------------------------------------------------

def test_an_export_failing_on_a_full_disk_names_the_output_not_the_progress_database(tmp_path, monkeypatch):
    import studytool.export as export

    connect = sqlite3.connect

    def on_a_full_disk(*args, **kwargs):   # SQLite's own SQLITE_FULL ("database or disk is full") after 2 pages
        con = connect(*args, **kwargs)
        con.execute("PRAGMA max_page_count = 2")
        return con

    monkeypatch.setattr(export.sqlite3, "connect", on_a_full_disk)
    out = tmp_path / "out.apkg"
    result = CliRunner().invoke(app, ["export", "anki", str(out)], env=env_for(tmp_path / "home"))
    assert result.exit_code == 1 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert result.stderr.startswith(f"studytool: cannot write {out}: the Anki collection built for it in ")
    assert result.stderr.endswith("failed (database or disk is full)\n") and "progress" not in result.stderr
    assert not out.exists()


def test_a_stale_journal_beside_the_database_is_neither_readonly_nor_damage(tmp_path, home_with_backup):
    home, db, good = home_with_backup
    (db.parent / "studytool.db-journal").write_bytes(b"junk")   # a WAL database never has one of its own
    for command in (["stats"], ["cards", "list"], ["backup"], ["backup", "list"]):
        result = CliRunner().invoke(app, command, env=env_for(home))
        assert result.exit_code == 0, (command, result.output)
    assert answers_now(db) == 4 and len(backup.backups(db)) == 2


def test_a_database_that_may_not_be_written_fails_before_the_first_card(tmp_path, home_with_backup):
    from test_backup import unwritable

    home, db, good = home_with_backup
    with unwritable(db):
        result = review_once(tmp_path, home)
    assert result.exit_code == 1 and "[1/" not in result.output and "3 + 4" not in result.output
    assert result.stderr == (f"studytool: {db}: the database or its folder is read-only, so nothing can be written; "
                             "'studytool stats', 'cards list' and 'backup list' still read it\n")

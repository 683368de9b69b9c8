"""Fuzz (issue 20): crafted values in any column of a real-schema progress database, and planted backup names, driven
through `review`, `cards show`, `optimize` and `backup`. Whatever the row or the name, each command exits 0, or 1 with
one line on stderr: never a traceback."""

import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from backup_fixtures import T0, english, one_card_deck, three_days_of_one_card
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from studytool.cli import app
from studytool.study import backup
from studytool.study.store import open_store

__all__ = ["english"]   # a fixture, used by name
NOW = "2026-11-02T09:00:00+00:00"
COMMANDS = [["review", "--deck", "one"], ["cards", "show", "one/c0"], ["optimize"], ["backup"]]

# (table, column) of every value a command reads back; `prior` is left out: a trigger of the schema parses it as
# JSON on every write, so SQLite itself refuses a crafted one.
COLUMNS = [("cards", name) for name in ("state", "step", "stability", "difficulty", "due", "last_review")] + [
    ("reviews", name) for name in ("card", "topic", "time", "mode", "rating", "correct", "answer", "seed", "params",
                                   "duration_ms")] + [
    ("card_flags", name) for name in ("suspended", "buried_until", "leech", "leech_review", "reset_at")]
SPECIAL = ["0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z", "2026-02-30T00:00:00.000000Z",
           "2026-11-01T12:00:00", "[" * 5000 + "]" * 5000, '{"level": "x"}', '{"level": 99}', '{"level": -1}',
           '{"hinted": [1]}', "[1, 2]", "null", "1e308", "review", "implicit", "quiz", "one/c0", "one/", "/"]
VALUES = st.one_of(st.none(), st.integers(min_value=-2**63, max_value=2**63 - 1), st.floats(), st.text(max_size=20),
                   st.binary(max_size=8), st.sampled_from(SPECIAL))
STAMPS = st.one_of(st.from_regex(r"\A\d{4}-\d\d-\d\dT\d{6}Z\Z"),
                   st.sampled_from(["0000-01-01T000000Z", "0001-01-01T000000Z", "9999-12-31T235959Z",
                                    "2026-99-99T999999Z", "2026-11-01T120000Z"]))
NAMES = st.builds(lambda stamp, number: f"studytool-{stamp}{number}.db", STAMPS,
                  st.one_of(st.just(""), st.integers(min_value=0, max_value=10**12).map(lambda n: f"-{n}")))


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A home whose one card (one/c0) has three review answers a day apart and a flags row, backed up; and a deck."""
    root = tmp_path_factory.mktemp("fuzz")
    db = root / "home" / "studytool.db"
    with open_store(db, backups=False) as store:
        three_days_of_one_card(store)
        with store.transaction() as con:
            con.execute("INSERT INTO card_flags (key, leech_review) VALUES ('one/c0', 3)")
    backup.take(db, T0)
    return root / "home", one_card_deck(root / "decks")


def craft(db: Path, table: str, column: str, value: object) -> bool:
    """Write `value` into every row's `column`; False when SQLite's own constraints refuse it."""
    con = sqlite3.connect(db)
    try:
        con.execute(f"UPDATE {table} SET {column} = ?", (value,))
        con.commit()
        return True
    except sqlite3.Error:
        return False
    finally:
        con.close()


def assert_one_line_or_success(result, command) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (command, repr(result.exception))
    assert result.exit_code in (0, 1), (command, result.output)
    if result.exit_code == 1:
        assert result.stderr.startswith("studytool: ") and result.stderr.count("\n") == 1, (command, result.stderr)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(crafted=st.lists(st.tuples(st.sampled_from(COLUMNS), VALUES), max_size=2), names=st.lists(NAMES, max_size=3),
       junk=st.booleans())
def test_crafted_rows_and_backup_names_never_give_a_traceback(base, crafted, names, junk):
    home, decks = base
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "home"
        shutil.copytree(home, copy)
        db = copy / "studytool.db"
        for (table, column), value in crafted:
            craft(db, table, column, value)
        [good] = backup.backups(db)
        for name in names:   # a copy of the real backup, or junk, under a planted name
            planted = backup.folder_for(db) / name
            if not planted.exists():
                planted.write_bytes(b"junk" if junk else good.path.read_bytes())
        env = {"STUDYTOOL_HOME": str(copy), "STUDYTOOL_NOW": NOW, "STUDYTOOL_LANG": "en", "TZ": "Asia/Shanghai"}
        for command in COMMANDS:
            result = CliRunner().invoke(app, ["--deck-path", decks, *command], env=env, input="7\n")
            assert_one_line_or_success(result, command)

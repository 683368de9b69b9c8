"""A file SQLite does not take for a database at all (SQLITE_NOTADB: junk written over it, its header lost) is
damage, as a malformed one is: every command says `backup.damaged`'s one line, naming the newest good backup and
'studytool backup restore NAME', exit 1, the file left as it is. A zero-length file is a fresh database."""

import pytest
from backup_fixtures import T0, beside, record
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.i18n import set_language
from studytool.study import backup
from studytool.study.store import open_store

NOT_A_DATABASE = ["file is not a database"]   # SQLite's words for SQLITE_NOTADB
COMMANDS = [["review"], ["stats"], ["cards", "list"], ["quiz"], ["config"], ["optimize"], ["backup"]]
JUNK = [b"junk\n", b"not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000]


@pytest.fixture
def junk_home(tmp_path):
    """A home with two answers backed up, then its database overwritten with junk."""
    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 2)
    good = backup.take(db, T0)
    db.write_bytes(b"junk\n")
    return home, db, good


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_on_junk_names_the_backup_to_restore(junk_home, command, lang):
    home, db, good = junk_home
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": lang, "STUDYTOOL_NOW": "2026-11-02T09:00:00+00:00"}
    result = CliRunner().invoke(app, command, env=env, input="\n3\n")
    set_language(lang)
    expected = str(backup.damaged(db, NOT_A_DATABASE))
    set_language("en")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr == f"studytool: {expected}\n"
    assert f"'studytool backup restore {good.name}'" in result.stderr
    assert db.read_bytes() == b"junk\n" and beside(db) == [] and backup.backups(db) == [good]


def test_the_english_line_word_for_word(junk_home):
    home, db, good = junk_home
    result = CliRunner().invoke(app, ["stats"], env={"STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en"})
    assert result.stderr == (
        f"studytool: {db} is damaged (file is not a database); nothing was written. The newest good backup is "
        f"{good.name} (2 answers): restore it with 'studytool backup restore {good.name}'\n")


@pytest.mark.parametrize("create", [True, False])
@pytest.mark.parametrize("content", JUNK, ids=["junk", "text", "header-only"])
def test_junk_without_a_backup_says_there_is_none(tmp_path, content, create):
    db = tmp_path / "studytool.db"
    db.write_bytes(content)
    with pytest.raises(StudytoolError) as raised:
        open_store(db, create=create)
    assert str(raised.value).startswith(f"{db} is damaged (")
    assert str(raised.value).endswith("nothing was written, and there is no backup to restore")
    assert db.read_bytes() == content and beside(db) == []


def test_the_restore_the_line_names_puts_the_answers_back(junk_home):
    home, db, good = junk_home
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en"}
    restored = CliRunner().invoke(app, ["backup", "restore", good.name], env=env)
    assert restored.exit_code == 0, restored.output
    with open_store(db, create=False) as store:
        assert store.answers_total() == 2


def test_a_zero_length_file_is_a_fresh_database_not_damage(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "studytool.db").write_bytes(b"")
    result = CliRunner().invoke(app, ["stats"], env={"STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en"})
    assert result.exit_code == 0, result.output
    with open_store(home / "studytool.db") as store:
        assert store.answers_total() == 0

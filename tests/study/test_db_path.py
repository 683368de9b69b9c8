"""Where the progress database lives: `--db` and STUDYTOOL_HOME mistakes are one-line errors; reading creates nothing."""

import json

from typer.testing import CliRunner

from studytool.cli import app


def test_a_folder_as_the_database_is_named_as_a_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    folder = tmp_path / "somewhere"
    folder.mkdir()
    result = CliRunner().invoke(app, ["--db", str(folder), "stats"])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: {folder} is a directory, not a database file\n"
    assert list(folder.iterdir()) == []   # nothing was created inside it


def test_stats_without_a_database_creates_nothing_and_shows_the_empty_state(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    missing = tmp_path / "x.db"
    result = CliRunner().invoke(app, ["--db", str(missing), "stats", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["answers_total"] == 0 and all(d["learning"] == d["review"] == 0 for d in doc["decks"])
    assert not missing.exists() and not (tmp_path / "home" / "studytool.db").exists()


def test_a_db_in_a_folder_that_does_not_exist_is_one_line_and_creates_nothing(tmp_path, monkeypatch):
    """A mistyped `--db /nonexist/dir/x.db` on review made the folders and a new empty database ("no progress")."""
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    missing = tmp_path / "typo" / "dir" / "x.db"
    for command, text in ((["review"], ":q\n"), (["quiz", "--count", "1"], ""), (["stats"], ""),
                          (["config", "new_per_day", "5"], ""), (["cards", "list"], "")):
        result = CliRunner().invoke(app, ["--db", str(missing), *command], input=text)
        assert (result.exit_code, result.stderr) == (
            1, f"studytool: --db {missing}: the folder {missing.parent} does not exist (check the path)\n"), command
    assert list(tmp_path.iterdir()) == []


def test_the_default_home_is_created_on_the_first_answer(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "new" / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    assert CliRunner().invoke(app, ["config", "new_per_day", "5"]).exit_code == 0
    assert (tmp_path / "new" / "home" / "studytool.db").is_file()


def test_a_file_as_studytool_home_is_named_in_one_line(tmp_path, monkeypatch):
    home = tmp_path / "x"
    home.write_text("not a folder")
    monkeypatch.setenv("STUDYTOOL_HOME", str(home))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    for command in (["stats"], ["review"], ["quiz"]):
        result = CliRunner().invoke(app, command, input="")
        assert result.exit_code == 1
        assert result.stderr == f"studytool: STUDYTOOL_HOME ({home}) is a file, not a folder\n"
    result = CliRunner().invoke(app, ["--db", str(home / "sub" / "x.db"), "review"], input="")
    assert (result.exit_code, result.stderr) == (1, f"studytool: {home} is a file, not a folder\n")
    assert home.read_text() == "not a folder"

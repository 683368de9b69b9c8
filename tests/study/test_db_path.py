"""`--db` naming a folder is a one-line error that says so (SQLite alone only reports a disk I/O error)."""

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

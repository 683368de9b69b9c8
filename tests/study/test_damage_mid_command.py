"""Damage met in the middle of a command, after the open-time check passed: the same one line as at open time
(`backup.damaged`: what failed, the newest good backup and how to restore it), exit 1, the file left as it is and
not noted as checked (the next writer checks it in full)."""

import pytest
from backup_fixtures import beside, damage_pages, db, english, one_card_deck, record, write
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.study import backup, guard
from studytool.study.store import open_store

__all__ = ["db", "english"]   # fixtures, used by name
MALFORMED = ["database disk image is malformed"]   # SQLite's words for SQLITE_CORRUPT


@pytest.mark.parametrize("then", [lambda store: store.scheduled_keys(), lambda store: store.set_setting("x", "w")],
                         ids=["read", "write"])
def test_damage_met_after_a_write_names_the_backup_to_restore(db, monkeypatch, then):
    monkeypatch.setenv("STUDYTOOL_NOW", "2026-03-10T09:00:00+00:00")
    write(db)   # the day's backup, and the file noted as checked
    [good] = backup.backups(db)
    with pytest.raises(StudytoolError) as raised:
        with open_store(db) as store:
            store.set_setting("x", "z")   # this process passed the check and wrote
            damage_pages(db)
            damaged = db.read_bytes()
            then(store)
    assert str(raised.value) == str(backup.damaged(db, MALFORMED))
    assert f"'studytool backup restore {good.name}'" in str(raised.value)
    assert db.read_bytes() == damaged and backup.backups(db) == [good]
    assert guard.recorded(db) != guard.fingerprint(db)   # not trusted as it is: the next writer checks in full


def test_review_meeting_damage_after_it_opened_says_it_in_one_line(tmp_path, monkeypatch):
    """The file passes the check at open, then its pages are lost before the queue reads them: `review` exits 1
    with `backup.damaged`'s line, no traceback, and leaves the damaged file and the backups as they were."""
    import studytool.study.session as session

    home = tmp_path / "home"
    db = home / "studytool.db"
    record(db, 200)
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": "2026-03-10T09:00:00+00:00", "STUDYTOOL_LANG": "en"}
    monkeypatch.setenv("STUDYTOOL_NOW", env["STUDYTOOL_NOW"])
    write(db)
    [good] = backup.backups(db)
    queue, damaged = session.review_queue, []

    def damaged_first(store, decks, **options):
        damage_pages(db)
        damaged.append(db.read_bytes())
        return queue(store, decks, **options)

    monkeypatch.setattr(session, "review_queue", damaged_first)
    result = CliRunner().invoke(app, ["--deck-path", one_card_deck(tmp_path / "decks"), "review", "--deck", "one"],
                                env=env, input="7\n")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr == f"studytool: {backup.damaged(db, MALFORMED)}\n"
    assert f"(200 answers): restore it with 'studytool backup restore {good.name}'" in result.stderr
    assert db.read_bytes() == damaged[0] and beside(db) == [] and backup.backups(db) == [good]

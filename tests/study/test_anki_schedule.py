"""`export anki --progress`: Anki's own backend imports the package with scheduling and goes on where studytool
left off — the same due day, interval, reps, lapses, flag and memory state for every card, and a review log
from which Anki computes that same memory state again.

The learner's history is made through the CLI on three days (TZ=UTC, days start 04:00Z); Anki runs in a
process of its own (`anki_import_oracle.py`) with TZ=UTC.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from study_fakes import cli

ORACLE = Path(__file__).resolve().parent / "anki_import_oracle.py"
DAY1, DAY3, DAY4 = "2026-03-02T08:00:00+00:00", "2026-03-04T09:00:00+00:00", "2026-03-05T10:30:00+00:00"


def run(drill, *args, now=DAY4, text=""):
    return cli(drill, *args, now=now, text=text)


@pytest.fixture
def exported(drill, tmp_path):
    run(drill, "review", "--deck", "drill", "--new", "7", now=DAY1, text="7\n" * 12 + "8\n7\n7\n")
    run(drill, "review", "--deck", "drill", now=DAY3, text="8\n7\n7\n7\n7\n7\n7\n")
    run(drill, "quiz", "--deck", "drill", "--count", "2", "--seed", "1", now=DAY3, text="7\n8\n")
    run(drill, "review", "--deck", "drill", now=DAY4, text="7\n8\n")
    run(drill, "cards", "suspend", "drill/c6")
    run(drill, "cards", "flag", "2", "drill/c1")
    out = tmp_path / "progress.apkg"
    result = run(drill, "export", "anki", str(out), "--deck", "drill", "--progress")
    assert "as the variant you last answered" in result.stderr
    listed = {card["card"]: card for card in json.loads(run(drill, "cards", "list", "--deck", "drill",
                                                             "--json").stdout)["cards"]}
    return out, listed


def day(text: str) -> str:
    return (datetime.fromisoformat(text) - timedelta(hours=4)).date().isoformat()


def test_anki_imports_every_cards_schedule_and_memory(exported):
    pytest.importorskip("anki", reason="Anki's backend is the oracle (test extra; CI installs it)")
    out, listed = exported
    done = subprocess.run([sys.executable, str(ORACLE), str(out)], env={**os.environ, "TZ": "UTC"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    anki = {card["card"]: card for card in json.loads(done.stdout)["cards"]}
    assert set(anki) == set(listed)
    reviewed = learning = 0
    for key, ours in listed.items():
        theirs = anki[key]
        assert theirs["flags"] == ours["flag"]
        assert (theirs["reps"], theirs["lapses"]) == (ours["reps"], ours["lapses"])
        assert (theirs["queue"] == -1) == ours["suspended"]
        if ours["state"] == "new":
            assert theirs["type"] == 0
            continue
        assert theirs["type"] == {"learning": 1, "review": 2, "relearning": 3}[ours["state"]]
        assert theirs["stability"] == pytest.approx(ours["stability"], rel=1e-4)
        assert theirs["difficulty"] == pytest.approx(ours["difficulty"], rel=1e-3)
        # Anki's FSRS, replaying the imported review log, finds the memory studytool had
        assert theirs["recomputed"] == pytest.approx([ours["stability"], ours["difficulty"]], rel=1e-3)
        if ours["state"] == "review":
            reviewed += 1
            assert theirs["due"] == day(ours["due"]) and theirs["ivl"] == ours["interval"]
        else:
            learning += 1
            assert theirs["due"] == int(datetime.fromisoformat(ours["due"]).timestamp())
    assert reviewed >= 3 and learning >= 1   # the history must reach both kinds


def test_every_answer_is_one_revlog_entry_with_its_kind(exported, tmp_path):
    out, listed = exported
    with zipfile.ZipFile(out) as package:
        (tmp_path / "c.anki2").write_bytes(package.read("collection.anki2"))
    import sqlite3

    con = sqlite3.connect(tmp_path / "c.anki2")
    kinds = dict(con.execute("SELECT type, count(*) FROM revlog GROUP BY type").fetchall())
    con.close()
    home = Path(os.environ["STUDYTOOL_HOME"]) / "studytool.db"
    log = sqlite3.connect(home)
    quiz = log.execute("SELECT count(*) FROM reviews WHERE mode = 'quiz'").fetchone()[0]
    total = log.execute("SELECT count(*) FROM reviews").fetchone()[0]
    log.close()
    assert sum(kinds.values()) == total and kinds.get(3, 0) == quiz == 2
    assert kinds.get(0, 0) > 0 and kinds.get(1, 0) > 0   # learning answers, and reviews of review cards


def test_without_progress_the_package_is_new_cards_only(drill, tmp_path):
    run(drill, "review", "--deck", "drill", "--new", "2", now=DAY1, text="7\n" * 4)
    out = tmp_path / "plain.apkg"
    run(drill, "export", "anki", str(out), "--deck", "drill")
    with zipfile.ZipFile(out) as package:
        (tmp_path / "p.anki2").write_bytes(package.read("collection.anki2"))
    import sqlite3

    con = sqlite3.connect(tmp_path / "p.anki2")
    assert con.execute("SELECT count(*) FROM revlog").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM cards WHERE type != 0").fetchone()[0] == 0
    con.close()


def test_progress_is_refused_for_csv_in_one_line(drill, tmp_path):
    result = CliRunner().invoke(app, ["--deck-path", str(drill), "export", "csv", str(tmp_path / "x.csv"), "--progress"],
                                env={"STUDYTOOL_NOW": DAY4})
    assert result.exit_code == 1 and "--progress is for `export anki`" in result.stderr

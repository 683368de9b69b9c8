"""STUDYTOOL_NOW is "now" for every command; quiz --reschedule moves the schedule, a plain quiz does not."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import now
from studytool.errors import StudytoolError
from study_fakes import drill_deck


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    monkeypatch.setenv("TZ", "UTC")
    (tmp_path / "drill").mkdir()
    drill_deck(tmp_path / "drill", n=2)   # a folder of its own: --deck-path reads every entry of it
    return tmp_path


def invoke(env, args, text="", when="2026-03-01T09:00:00+00:00"):
    return CliRunner().invoke(app, ["--deck-path", str(env / "drill"), *args], input=text,
                              env={"STUDYTOOL_NOW": when})


def rows(env, sql):
    return sqlite3.connect(env / "home" / "studytool.db").execute(sql).fetchall()


def test_now_reads_studytool_now_with_its_offset(monkeypatch):
    monkeypatch.setenv("STUDYTOOL_NOW", "2026-03-02T08:00:00+08:00")
    assert now().isoformat() == "2026-03-02T08:00:00+08:00"
    for bad in ("tomorrow", "2026-03-02T08:00:00"):
        monkeypatch.setenv("STUDYTOOL_NOW", bad)
        with pytest.raises(StudytoolError, match="STUDYTOOL_NOW must be an ISO 8601 time with an offset"):
            now()
    monkeypatch.setenv("STUDYTOOL_NOW", "2026-13-02T08:00:00+00:00")   # it has its offset: month 13 is what is wrong
    with pytest.raises(StudytoolError, match="STUDYTOOL_NOW names no real date and time"):
        now()
    monkeypatch.delenv("STUDYTOOL_NOW")
    assert now().tzinfo is not None


def test_every_answer_and_the_schedule_carry_studytool_now(env):
    result = invoke(env, ["review", "--deck", "drill", "--json"], "7\n" * 4)
    assert result.exit_code == 0, result.output
    assert {row[0] for row in rows(env, "SELECT time FROM reviews")} == {"2026-03-01T09:00:00.000000Z"}
    assert {row[0] for row in rows(env, "SELECT due FROM cards")} == {"2026-03-03T04:00:00.000000Z"}  # 2 days on
    doc = json.loads(invoke(env, ["review", "--deck", "drill", "--json"], when="2026-03-03T03:30:00+00:00").stdout)
    assert (doc["answered"], doc["outlook"]["next_due"]) == (0, "2026-03-03T04:00:00+00:00")   # 03:30: the 2nd still
    assert doc["outlook"]["due_tomorrow"] == 2
    assert json.loads(invoke(env, ["review", "--deck", "drill", "--json"], "7\n" * 2, when="2026-03-03T04:30:00+00:00").stdout)[
        "answered"] == 2


def test_a_bad_clock_is_one_line_and_exit_1(env):
    result = invoke(env, ["review"], when="next tuesday")
    assert result.exit_code == 1
    assert result.stderr.startswith("studytool: STUDYTOOL_NOW must be") and result.stderr.count("\n") == 1


def test_quiz_reschedule_moves_the_schedule_like_a_review_and_plain_quiz_does_not(env):
    plain = invoke(env, ["quiz", "--deck", "drill", "--count", "2", "--json"], "7\n7\n")
    assert json.loads(plain.stdout)["outlook"] is None
    assert rows(env, "SELECT count(*) FROM cards") == [(0,)]
    moved = invoke(env, ["quiz", "--deck", "drill", "--count", "2", "--reschedule", "--json"], "7\n0\n")
    doc = json.loads(moved.stdout)
    assert doc["outlook"]["next_due"] is not None and "due_next_7_days" in doc["outlook"]
    assert rows(env, "SELECT mode, count(*) FROM reviews GROUP BY mode") == [("quiz", 2), ("review", 2)]
    states = dict(rows(env, "SELECT key, state FROM cards"))
    assert sorted(states.values()) == [1, 1]   # both new cards now in learning steps (Good: 10 min, Again: 1 min)

"""The clock (`config.now`): a STUDYTOOL_NOW outside the years 1970-9000 is the usual one-line error, exit 1,
before anything is written; the bounds themselves are read as they are written."""

import sqlite3

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import now
from studytool.errors import StudytoolError

# The tester's values: stats overflowed at both ends, quiz a few days inside them (its schedule adds days).
OUT_OF_RANGE = ["9999-12-31T23:59:59+00:00", "0001-01-01T00:00:00+00:00", "9999-12-20T00:00:00+00:00",
                "0001-01-02T00:00:00+00:00", "9001-01-01T00:00:00+00:00", "1969-12-31T23:59:59+00:00"]
SAID = "STUDYTOOL_NOW must be a time from the year 1970 to the year 9000"


@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_a_clock_outside_the_years_1970_to_9000_is_refused_naming_the_range(monkeypatch, value):
    monkeypatch.setenv("STUDYTOOL_NOW", value)
    with pytest.raises(StudytoolError) as raised:
        now()
    assert str(raised.value) == f"{SAID}, like 2026-03-02T08:00:00+00:00; got {value!r}"


@pytest.mark.parametrize("value", ["1970-01-01T00:00:00+14:00", "9000-12-31T23:59:59-12:00"])
def test_the_ends_of_the_range_are_a_clock(monkeypatch, value):
    monkeypatch.setenv("STUDYTOOL_NOW", value)
    assert now().isoformat() == value


@pytest.mark.parametrize("value", OUT_OF_RANGE)
@pytest.mark.parametrize("command", [["stats"], ["quiz", "--deck", "p47-encoder", "--count", "3"], ["review"]],
                         ids=lambda command: command[0])
def test_every_command_says_it_in_one_line_and_writes_nothing(tmp_path, value, command):
    home = tmp_path / "home"
    env = {"STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": value, "STUDYTOOL_LANG": "en", "TZ": "UTC"}
    result = CliRunner().invoke(app, command, env=env, input="1\n" * 10)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.startswith(f"studytool: {SAID}") and result.stderr.count("\n") == 1
    db = home / "studytool.db"
    assert not db.exists() or sqlite3.connect(db).execute("SELECT count(*) FROM reviews").fetchone() == (0,)


def test_the_edge_of_the_range_studies_and_schedules(tmp_path):
    """At 9000-12-31 a card scheduled up to FSRS's longest interval (100 years) is still a date."""
    env = {"STUDYTOOL_HOME": str(tmp_path), "STUDYTOOL_NOW": "9000-12-31T23:59:59+00:00", "STUDYTOOL_LANG": "en"}
    for command in (["quiz", "--deck", "p47-encoder", "--count", "2", "--reschedule"], ["stats"]):
        result = CliRunner().invoke(app, command, env=env, input="1\n" * 10)
        assert result.exit_code == 0, result.output


def test_the_message_in_chinese(monkeypatch):
    from studytool.i18n import set_language

    monkeypatch.setenv("STUDYTOOL_NOW", "0001-01-01T00:00:00+00:00")
    set_language("zh")
    try:
        with pytest.raises(StudytoolError, match="1970 年到 9000 年之间"):
            now()
    finally:
        set_language("en")


@pytest.mark.parametrize("value", ["2026-02-30T08:00:00+00:00", "2026-13-01T08:00:00+00:00", "2026-01-01T25:00:00+00:00",
                                   "2026-01-01T08:00:00+25:00", "2027-02-29T08:00:00"])
def test_an_impossible_date_is_called_invalid_not_missing_an_offset(monkeypatch, value):
    """February 30 has an offset: it is the date that does not exist (the calendar is the truth here)."""
    monkeypatch.setenv("STUDYTOOL_NOW", value)
    with pytest.raises(StudytoolError) as raised:
        now()
    assert str(raised.value) == ("STUDYTOOL_NOW names no real date and time (a day, hour, minute or offset out of its "
                                 f"range); got {value!r}")
    assert "offset, like" not in str(raised.value)


@pytest.mark.parametrize("value", ["2026-03-02T08:00:00", "yesterday", "2026-03-02 8am"])
def test_a_missing_offset_or_a_bad_shape_is_still_told_the_format(monkeypatch, value):
    monkeypatch.setenv("STUDYTOOL_NOW", value)
    with pytest.raises(StudytoolError, match="must be an ISO 8601 time with an offset"):
        now()

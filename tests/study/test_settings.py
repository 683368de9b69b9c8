"""Remembered settings: Anki's defaults, per-deck values over global ones, validation in one line."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from study_fakes import database_at

from studytool.errors import StudytoolError
from studytool.study import settings
from studytool.study.store import open_store

ANKI_DEFAULTS = {   # Anki 26.x's default preset (deckconfig/mod.rs) and collection ("next day starts at")
    "new_per_day": 20, "max_reviews_per_day": 200, "retention": 0.9, "day_start": 4, "leech_threshold": 8,
    "learning_steps": (timedelta(minutes=1), timedelta(minutes=10)), "relearning_steps": (timedelta(minutes=10),),
}
FSRS6_DEFAULTS = (0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835,
                  0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542)   # FSRS-6's published weights


def test_defaults_are_ankis(store):
    for name, value in ANKI_DEFAULTS.items():
        assert settings.get(store, name) == value, name
    assert settings.get(store, "parameters") == FSRS6_DEFAULTS
    assert {entry.source for entry in settings.entries(store)} == {"default"}


def test_a_deck_value_wins_over_the_global_one_which_wins_over_the_default(store):
    settings.put(store, "new_per_day", "7")
    settings.put(store, "new_per_day", "3", deck="a")
    assert settings.get(store, "new_per_day", "a") == 3
    assert settings.get(store, "new_per_day", "b") == 7
    assert settings.entry(store, "new_per_day", "a").source == "deck"
    assert settings.entry(store, "new_per_day", "b").source == "global"
    settings.reset(store, "new_per_day", deck="a")
    assert settings.get(store, "new_per_day", "a") == 7
    settings.reset(store, "new_per_day")
    assert settings.entry(store, "new_per_day", "a").source == "default"


def test_values_stay_across_opens(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        settings.put(store, "learning_steps", "30s 5m 1h 1d")
    with open_store(tmp_path / "s.db") as store:
        assert settings.get(store, "learning_steps") == (
            timedelta(seconds=30), timedelta(minutes=5), timedelta(hours=1), timedelta(days=1))
        assert settings.entry(store, "learning_steps").text() == "30s 5m 1h 1d"


@pytest.mark.parametrize("name, text, message", [
    ("new_per_day", "-1", "new_per_day must be a whole number from 0 to 9999"),
    ("new_per_day", "many", "new_per_day must be a whole number from 0 to 9999"),
    ("retention", "0.5", "retention must be a number from 0.7 to 0.99"),
    ("retention", "nan", "retention must be a number from 0.7 to 0.99"),
    ("day_start", "24", "day_start must be a whole number from 0 to 23"),
    ("leech_threshold", "0", "leech_threshold must be a whole number from 1 to 99"),
    ("learning_steps", "1m ten", "learning_steps must be steps like '1m 10m' (units s, m, h, d)"),
    ("relearning_steps", "0m", "relearning_steps must be steps like '1m 10m' (units s, m, h, d)"),
    ("parameters", "1 2 3", "parameters must be 21 numbers separated by commas or spaces"),
    ("parameters", ", ".join(["0.5"] * 4 + ["11"] + ["0.5"] * 16),
     "parameters must be within FSRS's bounds (w4 from 1.0 to 10.0, got 11.0)"),
    ("nope", "1", "unknown setting 'nope'; settings: new_per_day, max_reviews_per_day, retention, day_start, "
                  "leech_threshold, learning_steps, relearning_steps, parameters, implicit_credit, sync_dir"),
])
def test_bad_values_are_one_line_errors_and_change_nothing(store, name, text, message):
    with pytest.raises(StudytoolError) as error:
        settings.put(store, name, text)
    assert str(error.value) == message
    assert store.con.execute("SELECT count(*) FROM settings").fetchone()[0] == 0


def test_day_start_has_no_per_deck_value(store):
    with pytest.raises(StudytoolError, match="day_start is one value for every deck"):
        settings.put(store, "day_start", "5", deck="a")


def test_parameters_are_kept_to_four_places_as_anki_shows_them(store):
    settings.put(store, "parameters", " ".join(str(w + 0.00004) for w in FSRS6_DEFAULTS))
    assert settings.get(store, "parameters") == FSRS6_DEFAULTS


def test_a_schema_2_database_keeps_its_remembered_retention_as_retention(tmp_path):
    """Before settings had names of their own, `review --retention 0.85` stored 'desired_retention'."""
    path = tmp_path / "old.db"
    con = database_at(path, 2)
    con.execute("INSERT INTO settings VALUES ('desired_retention', '0.85')")
    con.commit()
    con.close()
    with open_store(path) as store:
        assert settings.entry(store, "retention").value == 0.85
        assert settings.entry(store, "retention").source == "global"


@given(st.lists(st.tuples(st.integers(1, 365), st.sampled_from("smhd")), max_size=10))
def test_steps_text_round_trips(steps):
    text = " ".join(f"{number}{unit}" for number, unit in steps)
    parsed = settings.parse_steps(text)
    assert settings.parse_steps(settings.format_steps(parsed)) == parsed
    unit_seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    assert [step.total_seconds() for step in parsed] == [n * unit_seconds[u] for n, u in steps]


@given(st.floats(0, 1e12, allow_nan=False), st.sampled_from("smhd"))
def test_every_step_accepted_is_stored_as_text_that_reads_back(number, unit):
    """'99999999d' once stored '1e+08d', which its own parser refused: what is accepted must read back the same."""
    try:
        parsed = settings.parse_steps(f"{number:f}{unit}")
    except ValueError:
        return
    text = settings.format_steps(parsed)
    assert settings.parse_steps(text) == parsed
    assert "e" not in text.rstrip("smhd")
    assert timedelta(seconds=1) <= parsed[0] <= timedelta(days=365)


@pytest.mark.parametrize("text, message", [
    ("99999999d", "learning_steps must be steps of at most 365 days each"),
    ("366d", "learning_steps must be steps of at most 365 days each"),
    ("9" * 400 + "d", "learning_steps must be steps of at most 365 days each"),   # a float that is inf
    ("0.4s", "learning_steps must be steps like '1m 10m' (units s, m, h, d)"),     # under a second: no step
    ("1m " * 11, "learning_steps must be at most 10 steps"),
])
def test_steps_out_of_range_are_refused_and_nothing_is_stored(store, text, message):
    with pytest.raises(StudytoolError) as error:
        settings.put(store, "learning_steps", text)
    assert str(error.value) == message
    assert store.con.execute("SELECT count(*) FROM settings").fetchone()[0] == 0


def test_a_step_at_the_bounds_is_kept(store):
    assert settings.put(store, "relearning_steps", "365d " + "1s " * 9).text() == "365d" + " 1s" * 9
    assert settings.put(store, "learning_steps", "1.5m 0.5h").text() == "90s 30m"   # whole seconds, exact units


@pytest.mark.parametrize("name, stored, expected", [
    ("retention", "abc", "a number from 0.7 to 0.99"),
    ("new_per_day", "-5", "a whole number from 0 to 9999"),
    ("new_per_day", "1e999", "a whole number from 0 to 9999"),
    ("day_start", "99", "a whole number from 0 to 23"),
    ("learning_steps", "1e+08d", "steps like '1m 10m' (units s, m, h, d)"),
    ("relearning_steps", "garbage", "steps like '1m 10m' (units s, m, h, d)"),
    ("parameters", "[1,2]", "21 numbers separated by commas or spaces"),
    ("leech_threshold", "x", "a whole number from 1 to 99"),
    ("max_reviews_per_day", "abc", "a whole number from 0 to 99999"),
    ("implicit_credit", "maybe", "on or off"),
])
def test_a_bad_stored_value_is_one_line_naming_its_repair(store, name, stored, expected):
    store.con.execute("INSERT INTO settings VALUES (?, ?)", (name, stored))
    with pytest.raises(StudytoolError) as error:
        settings.get(store, name)
    assert str(error.value) == (f"the progress database holds {stored!r} for {name}, which must be {expected}; "
                                f"run `studytool config {name} --reset` or `studytool config {name} VALUE`")
    with pytest.raises(StudytoolError):
        settings.check(store)
    listed = {entry.key: entry for entry in settings.entries(store)}   # what `config` lists: marked, not refused
    assert (listed[name].bad, listed[name].problem, listed[name].text()) == (stored, expected, stored)
    assert listed[name].to_json()["invalid"] == expected
    assert all(entry.bad is None for key, entry in listed.items() if key != name)
    assert settings.reset(store, name).bad is None
    settings.check(store)
    assert settings.get(store, name) == settings.KEYS[name].default()


def test_a_bad_deck_value_names_the_deck_in_its_repair_and_a_good_one_replaces_it(store):
    store.con.execute("INSERT INTO deck_settings VALUES ('a', 'new_per_day', '\x1b[2J')")
    with pytest.raises(StudytoolError) as error:
        settings.check(store, ["a", "b"])
    assert str(error.value) == ("the progress database holds '\\x1b[2J' for new_per_day, which must be a whole number "
                                "from 0 to 9999; run `studytool config new_per_day --deck a --reset` or "
                                "`studytool config new_per_day --deck a VALUE`")
    assert settings.get(store, "new_per_day", "b") == 20   # another deck does not read it
    settings.put(store, "new_per_day", "5", deck="a")
    assert settings.get(store, "new_per_day", "a") == 5

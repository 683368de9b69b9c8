"""`studytool config` through the CLI: show all, show one, set (validated), per deck, reset; review's overrides."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from studytool import i18n
from studytool.cli import app
from study_fakes import drill_deck

MONDAY = "2026-03-02T08:00:00+00:00"


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_NOW", MONDAY)
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setattr(i18n, "_lang", "en")
    decks = tmp_path / "decks"   # beside the home, not in it: --deck-path reads no sub-folders
    decks.mkdir()
    drill_deck(decks)
    drill_deck(decks, deck="other")
    return decks


def run(env, *args, text=""):
    return CliRunner().invoke(app, ["--deck-path", str(env), *args], input=text)


def doc(env, *args, text=""):
    result = run(env, *args, "--json", text=text)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_show_all_reads_without_creating_a_database(env):
    shown = doc(env, "config")
    values = {entry["key"]: entry["value"] for entry in shown["settings"]}
    assert values == {"new_per_day": 20, "max_reviews_per_day": 200, "retention": 0.9, "day_start": 4,
                      "leech_threshold": 8, "learning_steps": "1m 10m", "relearning_steps": "10m",
                      "parameters": pytest.approx([0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001,
                                                   1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014,
                                                   1.8729, 0.5425, 0.0912, 0.0658, 0.1542]),
                      "implicit_credit": False, "sync_dir": ""}
    assert not (env.parent / "home" / "studytool.db").exists()
    screen = run(env, "config").stdout
    assert "leech_threshold" in screen and "New cards a deck" in screen


def test_set_then_show_one_and_it_stays(env):
    assert run(env, "config", "learning_steps", "2m 15m 1h").stdout == "learning_steps = 2m 15m 1h  (set)\n"
    assert doc(env, "config", "learning_steps") == {
        "key": "learning_steps", "value": "2m 15m 1h", "default": "1m 10m", "source": "global", "deck": None,
        "per_deck": True}


def test_a_deck_of_its_own(env):
    run(env, "config", "new_per_day", "2", "--deck", "drill")
    assert doc(env, "config", "new_per_day", "--deck", "drill")["value"] == 2
    assert doc(env, "config", "new_per_day", "--deck", "other")["value"] == 20
    first = doc(env, "review", "--deck", "drill", "--deck", "other", text="7\n" * 8)
    decks = [card["card"].split("/")[0] for card in first["cards"]]
    assert (decks.count("drill"), decks.count("other")) == (2, 6)     # each deck's own new_per_day
    run(env, "config", "new_per_day", "--deck", "drill", "--reset")
    assert doc(env, "config", "new_per_day", "--deck", "drill")["source"] == "default"


def test_review_new_is_a_one_off_and_retention_is_remembered(env):
    run(env, "config", "new_per_day", "1")
    assert doc(env, "review", "--deck", "drill", "--new", "3", text="7\n" * 3)["answered"] == 3
    assert doc(env, "config", "new_per_day")["value"] == 1                # --new did not change the setting
    assert run(env, "review", "--deck", "drill", "--retention", "0.85", text="").exit_code == 0
    assert doc(env, "config", "retention") | {"value": 0.85} == doc(env, "config", "retention")


@pytest.mark.parametrize("args, message", [
    (["config", "retention", "1.5"], "retention must be a number from 0.7 to 0.99"),
    (["config", "new_per_day", "-1"], "new_per_day must be a whole number from 0 to 9999"),   # not an option "-1"
    (["config", "nope"], "unknown setting 'nope'; settings: new_per_day, max_reviews_per_day, retention, day_start, "
                         "leech_threshold, learning_steps, relearning_steps, parameters, implicit_credit"),
    (["config", "day_start", "5", "--deck", "drill"], "day_start is one value for every deck (as in Anki); drop --deck"),
    (["config", "new_per_day", "3", "--deck", "nope"], "unknown deck 'nope'; decks: "),
    (["config", "--reset"], "--reset takes a KEY and no VALUE"),
])
def test_bad_input_is_one_line_and_exit_1(env, args, message):
    result = run(env, *args)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"studytool: {message}") and result.stderr.count("\n") == 1


def test_steps_beyond_a_year_are_one_line_and_not_stored(env):
    result = run(env, "config", "learning_steps", "99999999d")
    assert result.exit_code == 1
    assert result.stderr == "studytool: learning_steps must be steps of at most 365 days each\n"
    assert doc(env, "config", "learning_steps")["source"] == "default"
    result = run(env, "config", "relearning_steps", "1m " * 11)
    assert result.stderr == "studytool: relearning_steps must be at most 10 steps\n"


def _plant(env, table_row):
    import sqlite3

    run(env, "config", "new_per_day", "20")   # the database exists
    con = sqlite3.connect(env.parent / "home" / "studytool.db")
    con.execute(*table_row)
    con.commit()
    con.close()


@pytest.mark.parametrize("command", [["review"], ["quiz", "--count", "1"], ["cards", "show", "drill/c1"],
                                     ["cards", "list"], ["stats"]])
def test_a_bad_stored_value_stops_other_commands_in_one_line_with_its_repair(env, command):
    _plant(env, ("INSERT INTO settings VALUES ('day_start', '99')",))
    result = run(env, *command, text="7\n")
    assert result.exit_code == 1, result.output
    assert result.stderr == ("studytool: the progress database holds '99' for day_start, which must be a whole number "
                             "from 0 to 23; run `studytool config day_start --reset` or "
                             "`studytool config day_start VALUE`\n")


def test_a_bad_stored_retention_stops_review_before_its_first_card(env):
    """The rules are read when a card is rated: without the check, quitting at once hid it, answering crashed."""
    _plant(env, ("INSERT INTO settings VALUES ('retention', 'abc')",))
    result = run(env, "review", text=":q\n")
    assert result.exit_code == 1 and "holds 'abc' for retention" in result.stderr
    assert "[1/" not in result.output


def test_config_lists_a_bad_value_marked_and_repairs_it(env):
    _plant(env, ("INSERT INTO settings VALUES ('learning_steps', ?)", ("1e+08d \x1b[2J",)))
    listed = run(env, "config")
    assert listed.exit_code == 0
    assert "\x1b" not in listed.stdout and "\\x1b[2J" in listed.stdout
    assert "invalid" in listed.stdout
    assert "run `studytool config learning_steps --reset`" in " ".join(listed.stdout.split())
    one = doc(env, "config", "learning_steps")
    assert (one["value"], one["invalid"]) == ("1e+08d \x1b[2J", "steps like '1m 10m' (units s, m, h, d)")
    assert run(env, "config", "learning_steps", "2m 20m").stdout == "learning_steps = 2m 20m  (set)\n"
    assert run(env, "review", text="7\n" * 12).exit_code == 0


def test_review_new_is_bounded_as_new_per_day_is(env):
    """`--new 10**21` was taken: 'New cards: 4000000000000000000000 of 4000000000000000000000 left'."""
    result = run(env, "review", "--new", str(10**21))
    assert result.exit_code == 2   # a usage error, as every out-of-range option
    assert "must be from 0 to 9999" in result.stderr and result.stderr.count("\n") == 2
    assert doc(env, "review", "--deck", "drill", "--new", "9999", text="")["outlook"]["new_limit"] == 9999

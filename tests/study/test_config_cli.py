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
                      "implicit_credit": True}
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

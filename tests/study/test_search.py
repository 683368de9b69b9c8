"""The browser: `cards list` with Anki's search syntax, --tag, --flag, --sort and --reverse.

Histories are made through the CLI (reviews on several days, TZ=UTC so days start 04:00Z); each filter is
checked against the fields of the same cards' JSON, worked out again here by hand (an interval is the
number of 04:00 boundaries between the last answer and the due day), never against the filter's own code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.errors import StudytoolError
from studytool.study import search
from study_fakes import cli

ROOT = Path(__file__).resolve().parents[2]
DAY1, DAY3, DAY4 = "2026-03-02T08:00:00+00:00", "2026-03-04T09:00:00+00:00", "2026-03-05T10:00:00+00:00"


def run(drill, *args, now=DAY4, text=""):
    return cli(drill, *args, now=now, text=text)


def cards(drill, *args, now=DAY4):
    result = run(drill, "cards", "list", "--deck", "drill", "--json", *args, now=now)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["cards"]


@pytest.fixture
def studied(drill):
    """Eight cards learned on day 1 (two right answers each), some reviewed, one missed, on days 3 and 4."""
    assert run(drill, "review", "--deck", "drill", "--new", "8", now=DAY1, text="7\n" * 16).exit_code == 0
    assert run(drill, "review", "--deck", "drill", now=DAY3, text="8\n7\n7\n7\n7\n7\n").exit_code == 0
    assert run(drill, "review", "--deck", "drill", now=DAY4, text="7\n7\n").exit_code == 0
    return cards(drill)


def day(text: str) -> int:
    """The Anki day of a time, by hand: days start at 04:00 UTC here."""
    return (datetime.fromisoformat(text) - timedelta(hours=4)).date().toordinal()


def keys(found):
    return [card["card"] for card in found]


def test_the_json_interval_is_the_days_between_the_last_answer_and_the_due_day(studied):
    reviews = [card for card in studied if card["state"] == "review"]
    assert reviews, "the histories must give review cards"
    for card in reviews:
        assert card["interval"] == day(card["due"]) - day(card["last_answered"]) >= 1


def test_prop_ivl_keeps_exactly_the_cards_with_such_an_interval(drill, studied):
    intervals = sorted({card["interval"] for card in studied if card["interval"] is not None})
    for bound in intervals:
        expected = [card["card"] for card in studied if card["interval"] is not None and card["interval"] >= bound]
        assert keys(cards(drill, "--search", f"prop:ivl>={bound}")) == expected
        assert keys(cards(drill, "--search", f"prop:ivl<{bound}")) == [
            card["card"] for card in studied if card["interval"] is not None and card["interval"] < bound]


def test_prop_lapses_and_reps_follow_the_counts(drill, studied):
    lapsed = [card["card"] for card in studied if card["lapses"] >= 1]
    assert lapsed and keys(cards(drill, "--search", "prop:lapses>0")) == lapsed
    assert keys(cards(drill, "--search", "prop:reps=2")) == [card["card"] for card in studied if card["reps"] == 2]


def test_a_negated_term_keeps_the_rest_and_terms_must_all_hold(drill, studied):
    new = keys(cards(drill, "--search", "is:new"))
    old = keys(cards(drill, "--search", "-is:new"))
    assert sorted(new + old) == sorted(keys(studied)) and not set(new) & set(old)
    both = keys(cards(drill, "--search", "is:review prop:lapses>0"))
    assert both == [card["card"] for card in studied if card["state"] == "review" and card["lapses"] > 0]


def test_is_learn_is_learning_or_relearning(drill, studied):
    assert keys(cards(drill, "--search", "is:learn")) == [
        card["card"] for card in studied if card["state"] in ("learning", "relearning")]


def test_rated_counts_today_as_day_one(drill, studied):
    today = [card["card"] for card in studied if day(card["last_answered"]) == day(DAY4)]
    assert today and keys(cards(drill, "--search", "rated:1")) == today
    assert keys(cards(drill, "--search", "rated:3")) == [
        card["card"] for card in studied if day(DAY4) - day(card["last_answered"]) < 3]


def test_flags_are_set_found_by_flag_and_by_the_search_and_taken_off(drill, studied):
    assert run(drill, "cards", "flag", "1", "drill/c2", "drill/c5").exit_code == 0
    assert run(drill, "cards", "flag", "4", "drill/c3").exit_code == 0
    assert keys(cards(drill, "--flag", "1")) == keys(cards(drill, "--search", "flag:1")) == ["drill/c2", "drill/c5"]
    assert [card["flag"] for card in cards(drill, "--search", "drill/c3")] == [4]
    assert run(drill, "cards", "flag", "0", "drill/c2").exit_code == 0
    assert keys(cards(drill, "--search", "flag:1")) == ["drill/c5"]
    screen = run(drill, "cards", "list", "--deck", "drill", "--flag", "4", now=DAY4)
    assert "blue" in screen.stdout   # a colour's name: it reads without colour


@pytest.mark.parametrize("order", ["stability", "difficulty", "lapses", "reps", "interval", "due"])
def test_sort_orders_by_the_field_and_reverse_flips_it_with_missing_values_last(drill, studied, order):
    field = {"interval": "interval"}.get(order, order)
    valued = [card for card in studied if card[field] is not None]
    missing = [card["card"] for card in studied if card[field] is None]
    ascending = keys(cards(drill, "--sort", order))
    assert [card["card"] for card in studied if card["card"] in ascending[:len(valued)]] != [] and \
        ascending[len(valued):] == missing
    values = [next(card[field] for card in studied if card["card"] == key) for key in ascending[:len(valued)]]
    assert values == sorted(values)
    descending = keys(cards(drill, "--sort", order, "--reverse"))
    values = [next(card[field] for card in studied if card["card"] == key) for key in descending[:len(valued)]]
    assert values == sorted(values, reverse=True) and descending[len(valued):] == missing


def test_sort_by_card_and_by_added_and_reverse_without_sort(drill, studied):
    assert keys(cards(drill, "--sort", "card")) == sorted(keys(studied))
    assert keys(cards(drill, "--sort", "added")) == keys(studied)
    assert keys(cards(drill, "--reverse")) == keys(studied)[::-1]


def test_tag_deck_and_topic_terms_on_the_bundled_decks():
    result = CliRunner().invoke(app, ["cards", "list", "--json"], env={"STUDYTOOL_LANG": "en"})
    every = json.loads(result.stdout)["cards"]

    def found(*args):
        out = CliRunner().invoke(app, ["cards", "list", "--json", *args], env={"STUDYTOOL_LANG": "en"})
        assert out.exit_code == 0, out.output
        return keys(json.loads(out.stdout)["cards"])

    tagged = [card["card"] for card in every if "interview" in card["tags"]]
    assert tagged and found("--tag", "interview") == found("--search", "tag:interview") == tagged
    assert found("--search", "tag:inter*") == [card["card"] for card in every
                                               if any(tag.startswith("inter") for tag in card["tags"])]
    assert found("--search", "-tag:interview") == [card["card"] for card in every if card["card"] not in tagged]
    deck = every[0]["deck"]
    assert found("--search", f"deck:{deck}") == [card["card"] for card in every if card["deck"] == deck]
    assert found("--search", "topic:layernorm") == [card["card"] for card in every if card["topic"] == "layernorm"]


@pytest.mark.parametrize("query, message", [
    ('"layer norm', "a quote is not closed"),
    ("is:sleeping", "is:sleeping is not a state"),
    ("flag:9", "flag:9: a flag is 0 (none) to 7"),
    ("prop:ivl~3", "prop:ivl~3: use prop:NAME OP NUMBER"),
    ("prop:speed>3", "prop:speed>3: use prop:NAME OP NUMBER"),
    ("rated:0", "rated:0: a number of days from 1 to 36500"),
    ("deck:", "needs a value after the colon"),
    ("x" * 1001, "a search of at most 1000 characters"),
])
def test_a_search_that_does_not_read_is_one_line(query, message):
    with pytest.raises(StudytoolError) as error:
        search.parse(query)
    assert message in str(error.value) and "\n" not in str(error.value)
    result = CliRunner().invoke(app, ["cards", "list", "--search", query], env={"STUDYTOOL_LANG": "en"})
    assert result.exit_code == 1 and message in result.stderr


def test_an_unknown_sort_is_one_line():
    result = CliRunner().invoke(app, ["cards", "list", "--sort", "colour"], env={"STUDYTOOL_LANG": "en"})
    assert result.exit_code == 1 and "unknown sort 'colour'" in result.stderr


def test_cards_list_into_head_ends_quietly(tmp_path):
    drill = {**os.environ, "STUDYTOOL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    done = subprocess.run(f"{sys.executable} -m studytool cards list | head -2; exit ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", env=drill, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "" and len(done.stdout.splitlines()) == 2

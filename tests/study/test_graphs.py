"""`stats`' graphs (Anki's statistics in text and --json), over histories whose every answer the test chose.

TZ=UTC, days start at 04:00Z. The expected figures are counted here from the answers typed and from the
cards' own JSON (`cards list`), by hand: an answer typed "8" to the drill deck is Again, "7" is Good.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from study_fakes import cli

DAY1, DAY3, DAY4 = "2026-03-02T08:00:00+00:00", "2026-03-04T09:00:00+00:00", "2026-03-05T10:30:00+00:00"


def run(drill, *args, now=DAY4, text=""):
    return cli(drill, *args, now=now, text=text)


def review(drill, now, text):
    return json.loads(run(drill, "review", "--deck", "drill", "--new", "8", "--json", now=now, text=text).stdout)


@pytest.fixture
def history(drill):
    """The answers of three days, as (time, card, rating, prior state) from each session's own JSON."""
    days = [(DAY1, "7\n" * 14 + "8\n7\n7\n"), (DAY3, "8\n7\n7\n7\n7\n7\n7\n"), (DAY4, "7\n8\n7\n7\n")]
    return [review(drill, now, text) for now, text in days]


def stats(drill, *args):
    return json.loads(run(drill, "stats", "--deck", "drill", "--json", *args).stdout)


def test_today_counts_the_answers_typed_today(drill, history):
    today = stats(drill)["today"]
    typed = history[-1]["cards"]
    assert today["answered"] == len(typed) == history[-1]["answered"]
    assert today["again"] == sum(1 for card in typed if not card["correct"])
    assert today["correct_share"] == pytest.approx(sum(card["correct"] for card in typed) / len(typed))


def test_reviews_per_day_has_each_day_of_the_range(drill, history):
    per_day = {row["day"]: row["answers"] for row in stats(drill)["reviews_per_day"]}
    assert len(per_day) == 30
    assert per_day["2026-03-02"] == history[0]["answered"]
    assert per_day["2026-03-03"] == 0
    assert per_day["2026-03-04"] == history[1]["answered"]
    assert per_day["2026-03-05"] == history[2]["answered"]
    assert len(stats(drill, "--range", "3m")["reviews_per_day"]) == 91
    assert len(stats(drill, "--range", "all")["reviews_per_day"]) == 4   # from the first answer's day


def test_card_counts_follow_each_cards_state_and_interval(drill, history):
    listed = json.loads(run(drill, "cards", "list", "--deck", "drill", "--json").stdout)["cards"]
    counts = stats(drill)["card_counts"]
    expected = {"new": 0, "learning": 0, "relearning": 0, "young": 0, "mature": 0, "suspended": 0, "buried": 0}
    for card in listed:
        if card["state"] == "review":
            expected["mature" if card["interval"] >= 21 else "young"] += 1
        else:
            expected[card["state"]] += 1
    assert counts == expected and sum(counts.values()) == 8
    run(drill, "cards", "suspend", "drill/c0")
    run(drill, "cards", "bury", "drill/c1")
    after = stats(drill)["card_counts"]
    assert (after["suspended"], after["buried"], sum(after.values())) == (1, 1, 8)


def test_the_interval_histogram_holds_every_review_cards_interval(drill, history):
    listed = json.loads(run(drill, "cards", "list", "--deck", "drill", "--json").stdout)["cards"]
    intervals = [card["interval"] for card in listed if card["state"] == "review"]
    buckets = stats(drill)["intervals"]
    assert sum(buckets.values()) == len(intervals) > 0
    def label(days):   # the buckets, written out: 1, 2, 3-6, 7-13, 14-20, 21-29, ...
        return {1: "1", 2: "2"}.get(days) or ("3-6" if days < 7 else "7-13" if days < 14 else "14-20"
                                             if days < 21 else "21-29" if days < 30 else "30-59")
    expected = {}
    for interval in intervals:
        expected[label(interval)] = expected.get(label(interval), 0) + 1
    assert {name: n for name, n in buckets.items() if n} == expected


def test_difficulty_and_retrievability_bands_count_the_review_cards(drill, history):
    listed = json.loads(run(drill, "cards", "list", "--deck", "drill", "--json").stdout)["cards"]
    reviewed = [card for card in listed if card["state"] == "review"]
    doc = stats(drill)
    assert sum(doc["difficulty"].values()) == sum(doc["retrievability"].values()) == len(reviewed)
    for card in reviewed:
        band = min(9, int((card["difficulty"] - 1) / 9 * 10))
        assert doc["difficulty"][f"{10 * band}-{10 * band + 10}%"] >= 1


def test_hourly_breakdown_is_by_local_hour(drill, history):
    hourly = {row["hour"]: row for row in stats(drill)["hourly"]}
    assert hourly[8]["answers"] == history[0]["answered"]
    assert hourly[9]["answers"] == history[1]["answered"]
    assert hourly[10]["answers"] == history[2]["answered"]
    assert hourly[8]["correct"] == sum(card["correct"] for card in history[0]["cards"])
    assert sum(row["answers"] for row in hourly.values()) == sum(day["answered"] for day in history)


def test_answer_buttons_split_by_the_type_the_card_had(drill, history):
    buttons = stats(drill)["answer_buttons"]
    first = history[0]["cards"]
    assert sum(buttons["learning"].values()) + sum(buttons["young"].values()) + \
        sum(buttons["mature"].values()) == sum(day["answered"] for day in history)
    assert buttons["learning"]["3"] >= sum(1 for card in first if card["correct"])
    assert buttons["mature"] == {"1": 0, "2": 0, "3": 0, "4": 0}   # no interval reaches 21 days in four days
    assert buttons["learning"]["1"] + buttons["young"]["1"] == sum(
        1 for day in history for card in day["cards"] if not card["correct"])


def test_the_screen_draws_every_graph_in_words_and_numbers(drill, history):
    out = run(drill, "stats", "--deck", "drill").stdout
    for title in ("Today", "Answers per day, last month", "Card counts", "Review intervals (days)",
                  "Stability (days)", "Difficulty", "Retrievability now", "Hourly breakdown",
                  "Answer buttons, last month"):
        assert title in out
    assert "08:00" in out and "young" in out


def test_an_unknown_range_or_deck_is_one_line(drill):
    result = CliRunner().invoke(app, ["--deck-path", str(drill), "stats", "--range", "2w"], env={"STUDYTOOL_NOW": DAY4})
    assert result.exit_code == 1 and "unknown range '2w'" in result.stderr
    result = CliRunner().invoke(app, ["--deck-path", str(drill), "stats", "--deck", "nope"], env={"STUDYTOOL_NOW": DAY4})
    assert result.exit_code == 1 and "unknown deck 'nope'" in result.stderr

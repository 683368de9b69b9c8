"""Buried and suspended cards in every count of "due": stats, the review outlook and `cards list --state due` agree.

The tester's repro (issue 14, items 3 and 6): a buried card was "due now", blamed on the review limit and missing
from "Due tomorrow" although the next day's review asks it; `stats` counted suspended and buried cards as due
while `cards list --state due` did not. Here every card's schedule is set by hand (TZ=UTC, the day starts at
04:00, now is 2026-03-16 08:00), so each expected count is read off the table below.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from studytool.study.store import Answer, Schedule, open_store

REVIEW, LEARNING = 2, 1
NOW = datetime(2026, 3, 16, 8, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
CARDS = {   # id: (state, due)
    "w1": (REVIEW, NOW - 3 * DAY),                      # overdue: due now
    "w2": (REVIEW, NOW - timedelta(hours=4)),           # due today at 04:00, buried until tomorrow 04:00
    "w3": (REVIEW, NOW - DAY),                          # due yesterday, suspended: never counted
    "w4": (LEARNING, NOW + timedelta(minutes=30)),      # a step at 08:30: later today, not now
    "w5": (REVIEW, NOW + 4 * DAY),                      # the 20th: in the next 7 days
}
DECK = "deck: words\ntitle: Words\ncards:\n" + "".join(
    f"  - id: {card}\n    kind: recall\n    topic: layernorm\n    q: Word {card}?\n    a: {card}.\n" for card in CARDS)


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Run `studytool ARGS` at a moment (default NOW) on a home whose words deck has the schedules above."""
    from studytool.cli import app

    home = tmp_path / "home"
    (home / "decks").mkdir(parents=True)
    (home / "decks" / "words.yaml").write_text(DECK, encoding="utf-8")
    for name, value in {"STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en", "TZ": "UTC", "COLUMNS": "80"}.items():
        monkeypatch.setenv(name, value)
    with open_store(home / "studytool.db") as store:
        for card, (state, due) in CARDS.items():
            schedule = Schedule(state, None if state == REVIEW else 1, 10.0, 5.0, due, due - 10 * DAY)
            store.record(Answer(card=f"words/{card}", topic="layernorm", mode="review", rating=3, correct=True,
                                answer="", seed=None, params={}, duration_ms=1, time=due - 10 * DAY),
                         lambda prior, schedule=schedule: schedule)
    runner = CliRunner()

    def run(*args: str, at: datetime = NOW, input: str = ""):
        result = runner.invoke(app, list(args), input=input, env={"STUDYTOOL_NOW": at.isoformat()})
        assert result.exit_code == 0, result.output
        return result
    run("cards", "bury", "words/w2")
    run("cards", "suspend", "words/w3")
    return run


def test_stats_count_neither_the_buried_nor_the_suspended_card_as_due(cli):
    doc = json.loads(cli("stats", "--json").stdout)
    words = next(deck for deck in doc["decks"] if deck["deck"] == "words")
    assert (words["due_now"], words["due_today"]) == (1, 2)   # w1; w1 and w4's step at 08:30
    forecast = {day: n for day, n in doc["forecast"].items() if n}
    assert forecast == {"2026-03-16": 2, "2026-03-17": 1, "2026-03-20": 1}   # w1 w4; w2 back tomorrow; w5


def test_cards_list_due_is_what_stats_calls_due_now(cli):
    listed = json.loads(cli("cards", "list", "--deck", "words", "--state", "due", "--json").stdout)
    assert [card["card"] for card in listed["cards"]] == ["words/w1"]


def test_the_outlook_counts_the_buried_card_tomorrow_and_the_suspended_one_never(cli):
    outlook = json.loads(cli("review", "--deck", "words", "--json").stdout)["outlook"]
    assert {key: outlook[key] for key in ("due_now", "due_today", "due_tomorrow", "due_next_7_days")} == {
        "due_now": 1, "due_today": 1, "due_tomorrow": 1, "due_next_7_days": 2}   # w1; w4; w2; w2 and w5
    assert outlook["next_due"] == (NOW - 3 * DAY).isoformat()   # w1, overdue


def test_a_buried_card_is_not_blamed_on_the_review_limit_and_comes_back_tomorrow(cli):
    screen = " ".join(cli("review", "--deck", "words", input="\n3\n").stdout.split())   # w1, the only card asked
    assert "still due now" not in screen and "review limit" not in screen, screen
    assert "Next card due at 08:30 (1 due later today). Due tomorrow: 1;" in screen, screen
    tomorrow = cli("review", "--deck", "words", "--json", at=NOW + DAY)
    assert "[1/2] words/w2" in tomorrow.stderr   # due at 04:00 on the 16th, before w4 (08:30)
    assert json.loads(tomorrow.stdout)["outlook"]["due_now"] == 2   # w2 and w4, neither asked (EOF)


@pytest.mark.parametrize(("lang", "due", "expected"), [
    ("en", 1, "1 card still due now. Today's review limit holds it back (config max_reviews_per_day)."),
    ("en", 4, "4 cards still due now. Today's review limit holds them back (config max_reviews_per_day)."),
    ("zh", 1, "现在还有 1 张卡片到期。它超出了今天的复习上限（config max_reviews_per_day）。"),
    ("zh", 4, "现在还有 4 张卡片到期。它们超出了今天的复习上限（config max_reviews_per_day）。"),
])
def test_the_review_limit_sentence_agrees_with_the_count(lang, due, expected):
    from studytool.cli.render.study import outlook_text
    from studytool.i18n import set_language
    from studytool.study.queue import Outlook

    set_language(lang)
    try:
        outlook = Outlook(NOW, NOW - DAY, due_now=due, due_today=0, due_tomorrow=0, due_week=0, new_left=0,
                          new_limit=20, new_unseen=0)
        assert outlook_text(outlook, asked=True).startswith(expected)
    finally:
        set_language("en")


@pytest.mark.parametrize(("suspended", "buried_until", "expected"), [
    (False, None, "2026-03-16T04:00:00.000000Z"),                                # no flags: its due time
    (True, None, None),                                                          # suspended: never
    (True, "2026-03-17T04:00:00.000000Z", None),                                 # suspended and buried: never
    (False, "2026-03-17T04:00:00.000000Z", "2026-03-17T04:00:00.000000Z"),       # buried past its due: the burial
    (False, "2026-03-15T04:00:00.000000Z", "2026-03-16T04:00:00.000000Z"),       # a burial over: its due time
])
def test_when_a_card_comes_back(suspended, buried_until, expected):
    from studytool.study.stats import comes_back

    assert comes_back("2026-03-16T04:00:00.000000Z", suspended, buried_until) == expected


def test_a_buried_learning_step_and_a_suspended_new_card(store):
    """A step due at 10:00 today, buried until tomorrow 04:00, is neither due today nor now; a suspended new card
    is no new card left to study."""
    from studytool.decks.model import Deck
    from studytool.study import cards
    from studytool.study.days import Days
    from studytool.study.queue import review_outlook
    from studytool.study.stats import compute_stats
    from study_fakes import recall

    deck = Deck("d", "D", "", (recall("step"), recall("new")))
    step = Schedule(LEARNING, 1, 1.0, 5.0, NOW + timedelta(hours=2), NOW - timedelta(minutes=10))
    store.record(Answer(card="d/step", topic="layernorm", mode="review", rating=3, correct=True, answer="", seed=None,
                        params={}, duration_ms=1, time=NOW - timedelta(minutes=10)), lambda prior: step)
    days = Days(4, timezone.utc)
    before = compute_stats(store, [deck], NOW, days)
    assert (before.decks[0].due_today, before.decks[0].due_now, before.forecast[0][1]) == (1, 0, 1)
    cards.bury(store, ["d/step"], days.end_of(NOW))
    cards.suspend(store, ["d/new"])
    after = compute_stats(store, [deck], NOW, days)
    assert (after.decks[0].due_today, after.decks[0].due_now, after.forecast[0][1], after.forecast[1][1]) == (
        0, 0, 0, 1)
    outlook = review_outlook(store, [deck], now=NOW, days=days)
    assert (outlook.due_today, outlook.due_tomorrow, outlook.new_unseen, outlook.next_due) == (
        0, 1, 0, datetime(2026, 3, 17, 4, 0, tzinfo=timezone.utc))
    cards.unsuspend(store, ["d/new"])
    assert review_outlook(store, [deck], now=NOW, days=days).new_unseen == 1

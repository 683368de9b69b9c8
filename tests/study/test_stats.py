"""Stats over a hand-built history with a fixed clock: every number below is counted by hand."""

from __future__ import annotations

from datetime import timedelta

from study_fakes import T0, number

from studytool.decks.model import Deck
from studytool.study.stats import compute_stats, weakest_topics
from studytool.study.store import Answer, Schedule

REVIEW, LEARNING = 2, 1


def answer(store, key, topic, when, *, correct=True, mode="review", state=REVIEW, due_in=timedelta(days=1)):
    schedule = Schedule(state, None if state == REVIEW else 1, 2.0, 5.0, when + due_in, when)
    store.record(
        Answer(card=key, topic=topic, mode=mode, rating=3 if correct else 1, correct=correct, answer="x", seed=None,
               params={}, duration_ms=1, time=when),
        (lambda prior: schedule) if mode == "review" else None,
    )


def build(store):
    d = Deck("d", "D", "", (number("a", 1, "softmax"), number("b", 2, "ffn"), number("c", 3, "ffn"),
                            number("e", 4, "ffn")))
    x = Deck("x", "X", "", (number("y", 1, "attention", deck="x"),))
    yesterday = T0 - timedelta(days=1)
    answer(store, "d/a", "softmax", T0 - timedelta(days=40))                    # old: outside the 30 days
    answer(store, "d/a", "softmax", yesterday - timedelta(hours=1))             # review state -> right
    answer(store, "d/a", "softmax", yesterday, correct=False)                   # review state -> wrong
    answer(store, "d/a", "softmax", T0 - timedelta(hours=1))                    # review state -> right; due T0+23h
    answer(store, "d/b", "ffn", T0, correct=False, state=LEARNING, due_in=timedelta(minutes=10))  # new -> learning
    answer(store, "d/c", "ffn", T0 - timedelta(days=5), due_in=timedelta(days=3))  # new -> review, overdue now
    answer(store, "d/e", "ffn", T0, mode="quiz", correct=False)                  # quiz: history only
    answer(store, "gone/z", "ffn", T0)                                          # a removed card keeps history
    return [d, x]


def test_counts_per_deck(store):
    stats = compute_stats(store, build(store), T0)
    assert [deck.to_json() for deck in stats.decks] == [
        # e new; b learning (due in 10 minutes: today, not now); a review (due tomorrow), c review (overdue)
        {"deck": "d", "new": 1, "learning": 1, "review": 2, "due_today": 2, "due_now": 1},
        {"deck": "x", "new": 1, "learning": 0, "review": 0, "due_today": 0, "due_now": 0},
    ]
    assert stats.answers_total == 8


def test_true_retention_counts_review_state_answers_in_the_last_30_days(store):
    stats = compute_stats(store, build(store), T0)
    # in the window, answers on cards already in Review state: a (right), a (wrong), a (right)
    assert (stats.retention, stats.retention_reviews) == (2 / 3, 3)


def test_answers_per_day_and_forecast(store):
    stats = compute_stats(store, build(store), T0)
    per_day = dict(stats.answers_per_day)
    assert len(per_day) == 14 and max(per_day) == T0.date()
    assert per_day[T0.date()] == 4 and per_day[T0.date() - timedelta(days=1)] == 2
    assert per_day[T0.date() - timedelta(days=5)] == 1 and sum(per_day.values()) == 7
    forecast = dict(stats.forecast)
    assert len(forecast) == 14 and min(forecast) == T0.date()
    assert forecast[T0.date()] == 2                         # b in 10 minutes, c overdue
    assert forecast[T0.date() + timedelta(days=1)] == 1     # a
    assert sum(forecast.values()) == 3                      # removed cards are not forecast


def test_weakest_topics_name_the_drill_command(store):
    stats = compute_stats(store, build(store), T0)
    # ffn: b wrong, c right, e wrong (quiz), z right -> 2/4; softmax: 2/3; attention: none answered
    assert [(s.topic, s.correct, s.answered) for s in stats.weakest] == [("ffn", 2, 4), ("softmax", 2, 3)]
    assert stats.to_json()["weakest_topics"][0]["command"] == "studytool quiz --topic ffn"


def test_empty_database(store):
    stats = compute_stats(store, [], T0)
    doc = stats.to_json()
    assert doc["answers_total"] == 0 and doc["decks"] == [] and doc["retention_30d"] is None
    assert sum(doc["forecast"].values()) == 0


def test_weakest_topics_order():
    answers = [("a", True), ("a", False), ("b", False), ("c", True), ("d", False), ("d", False)]
    assert [s.topic for s in weakest_topics(answers)] == ["d", "b", "a"]  # 0/2 before 0/1, then 1/2; c has no miss


def test_calendar_counts_every_answer_of_the_last_26_weeks(store):
    stats = compute_stats(store, build(store), T0)
    calendar = dict(stats.calendar)
    assert len(calendar) == 26 * 7 and max(calendar) == T0.date()
    assert calendar[T0.date() - timedelta(days=40)] == 1   # older than the 30-day window, inside 26 weeks
    assert sum(calendar.values()) == 8
    assert stats.to_json()["calendar"][T0.date().isoformat()] == 4


def test_retention_by_week_and_the_30_day_forecast(store):
    stats = compute_stats(store, build(store), T0)
    # T0 is Sunday 2026-03-01: the three review-state answers of d/a fall in the week of Monday 02-23
    weeks = {week.week.isoformat(): week.to_json() for week in stats.retention_by_week}
    assert weeks["2026-02-23"] == {"week": "2026-02-23", "reviews": 3, "recalled": 2, "retention": 2 / 3}
    assert sum(week.reviews for week in stats.retention_by_week) == 3
    assert weeks["2026-02-16"]["retention"] is None
    forecast = dict(stats.forecast_30d)
    assert len(forecast) == 30 and dict(stats.forecast) == {d: n for d, n in forecast.items() if d in dict(stats.forecast)}


def test_calendar_days_are_the_learners_days_at_a_quarter_hour_offset(store):
    from datetime import datetime, timezone
    from zoneinfo import ZoneInfo

    from studytool.study.days import Days

    kathmandu = ZoneInfo("Asia/Kathmandu")  # UTC+05:45: the (Anki) day starts at 04:00 local, 22:15 UTC
    answer(store, "d/a", "softmax", datetime(2026, 2, 27, 22, 10, tzinfo=timezone.utc))  # 03:55 on the 28th: the 27th
    answer(store, "d/a", "softmax", datetime(2026, 2, 27, 22, 20, tzinfo=timezone.utc))  # 04:05 on the 28th
    calendar = dict(compute_stats(store, [], T0.astimezone(kathmandu), Days(4, kathmandu)).calendar)
    assert calendar[T0.date() - timedelta(days=2)] == 1 and calendar[T0.date() - timedelta(days=1)] == 1

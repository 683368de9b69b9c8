"""Study statistics: card counts per deck, true retention, activity, the due forecast, weak topics.

Reads the schedule table (one row per card) and a bounded window of the log,
never the whole history; `answers_total` is a single count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any

from studytool.decks.model import Deck
from studytool.study.store import Schedule, Store, format_time

WINDOW_DAYS = 30       # retention and weakest topics look this far back
CHART_DAYS = 14        # answers per day and the due forecast
CALENDAR_WEEKS = 26    # the study calendar and true retention by week
FORECAST_DAYS = 30     # the due forecast drawn as a chart
WEAKEST_SHOWN = 3
REVIEW_STATE = 2       # fsrs.State.Review


def due_now(schedule: Schedule, now: datetime, end_of_today: datetime) -> bool:
    """Asked by a review started `now`: a review card due any time today, a (re)learning step only once due."""
    return schedule.due <= now or (schedule.state == REVIEW_STATE and schedule.due < end_of_today)


@dataclass(frozen=True)
class TopicScore:
    topic: str
    answered: int
    correct: int

    @property
    def command(self) -> str:
        """The command that drills this topic."""
        return f"studytool quiz --topic {self.topic}"

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "answered": self.answered, "correct": self.correct, "command": self.command}


def weakest_topics(answers: Sequence[tuple[str, bool]], limit: int = WEAKEST_SHOWN) -> list[TopicScore]:
    """Topics with at least one miss, lowest accuracy first (then the most answered)."""
    answered = Counter(topic for topic, _ok in answers)
    correct = Counter(topic for topic, ok in answers if ok)
    scores = [TopicScore(t, answered[t], correct[t]) for t in answered if correct[t] < answered[t]]
    scores.sort(key=lambda s: (s.correct / s.answered, -s.answered, s.topic))
    return scores[:limit]


@dataclass(frozen=True)
class DeckCounts:
    deck: str
    new: int          # never reviewed
    learning: int     # in (re)learning steps
    review: int       # graduated to day intervals
    due_today: int    # due before midnight, learning steps later today included
    due_now: int      # what `review` would ask now

    def to_json(self) -> dict[str, Any]:
        return {"deck": self.deck, "new": self.new, "learning": self.learning, "review": self.review,
                "due_today": self.due_today, "due_now": self.due_now}


@dataclass(frozen=True)
class WeekRetention:
    week: date        # its Monday
    reviews: int      # answers on cards already in Review state
    recalled: int

    def to_json(self) -> dict[str, Any]:
        share = self.recalled / self.reviews if self.reviews else None
        return {"week": self.week.isoformat(), "reviews": self.reviews, "recalled": self.recalled, "retention": share}


@dataclass(frozen=True)
class Stats:
    decks: tuple[DeckCounts, ...]
    answers_total: int
    retention: float | None                   # share of review-state cards recalled, last 30 days
    retention_reviews: int                    # how many answers that share is over
    answers_per_day: tuple[tuple[date, int], ...]   # the last 14 days, oldest first
    forecast: tuple[tuple[date, int], ...]          # cards due on each of the next 14 days (overdue: today)
    weakest: tuple[TopicScore, ...]
    calendar: tuple[tuple[date, int], ...] = ()         # answers per day, the last 26 weeks, oldest first
    forecast_30d: tuple[tuple[date, int], ...] = ()     # as `forecast`, over 30 days
    retention_by_week: tuple[WeekRetention, ...] = ()   # the weeks of the calendar, oldest first

    def to_json(self) -> dict[str, Any]:
        return {
            "answers_total": self.answers_total,
            "decks": [deck.to_json() for deck in self.decks],
            "retention_30d": self.retention,
            "retention_reviews": self.retention_reviews,
            "answers_per_day": {day.isoformat(): n for day, n in self.answers_per_day},
            "forecast": {day.isoformat(): n for day, n in self.forecast},
            "weakest_topics": [score.to_json() for score in self.weakest],
            "calendar": {day.isoformat(): n for day, n in self.calendar},
            "forecast_30d": {day.isoformat(): n for day, n in self.forecast_30d},
            "retention_by_week": [week.to_json() for week in self.retention_by_week],
        }


# Answers per quarter hour (UTC), with the true-retention counts: quarter hours, not days, because the
# learner's day boundary need not fall on a UTC hour (+05:45) and moves with daylight saving time.
_QUARTER_HOURS = (
    "SELECT substr(time, 1, 14) || printf('%02d', CAST(substr(time, 15, 2) AS INTEGER) / 15 * 15) AS quarter,"
    " count(*),"
    " sum(CASE WHEN mode = 'review' THEN json_extract(prior, '$.state') = ? ELSE 0 END),"
    " sum(CASE WHEN mode = 'review' AND correct THEN json_extract(prior, '$.state') = ? ELSE 0 END)"
    " FROM reviews WHERE time >= ? GROUP BY quarter"
)


def _history(store: Store, now: datetime) -> tuple[tuple[tuple[date, int], ...], tuple[WeekRetention, ...]]:
    """Answers per day and true retention per week over the last CALENDAR_WEEKS weeks, counted by SQLite."""
    today = now.date()
    first = today - timedelta(days=7 * CALENDAR_WEEKS - 1)
    since = datetime.combine(first, datetime.min.time(), now.tzinfo).astimezone(timezone.utc)
    per_day: Counter = Counter()
    reviews: Counter = Counter()
    recalled: Counter = Counter()
    for quarter, answers, in_review, right in store.con.execute(
            _QUARTER_HOURS, (REVIEW_STATE, REVIEW_STATE, format_time(since))):
        day = datetime.fromisoformat(quarter + ":00+00:00").astimezone(now.tzinfo).date()
        if not first <= day <= today:
            continue  # a quarter hour that starts before local midnight of the first day
        week = day - timedelta(days=day.weekday())
        per_day[day] += answers
        reviews[week] += in_review or 0
        recalled[week] += right or 0
    dates = [first + timedelta(days=d) for d in range((today - first).days + 1)]
    days = tuple((day, per_day[day]) for day in dates)
    mondays = sorted({day - timedelta(days=day.weekday()) for day in dates})
    return days, tuple(WeekRetention(week, reviews[week], recalled[week]) for week in mondays)


def compute_stats(store: Store, decks: Sequence[Deck], now: datetime) -> Stats:
    """Statistics as of `now`; days are counted in `now`'s time zone."""
    today = now.date()
    end_of_today = now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    schedules = store.schedules()
    counts = []
    forecast = Counter()
    for deck in decks:
        states = [schedules.get(card.key) for card in deck.cards]
        scheduled = [s for s in states if s is not None]
        counts.append(DeckCounts(
            deck=deck.deck,
            new=len(states) - len(scheduled),
            learning=sum(s.state != REVIEW_STATE for s in scheduled),
            review=sum(s.state == REVIEW_STATE for s in scheduled),
            due_today=sum(s.due < end_of_today for s in scheduled),
            due_now=sum(due_now(s, now, end_of_today) for s in scheduled),
        ))
        forecast.update(max(0, (s.due.astimezone(now.tzinfo).date() - today).days) for s in scheduled)

    log = store.log_since(now - timedelta(days=WINDOW_DAYS))
    recalls = [row.correct for row in log if row.mode == "review" and row.prior_state == REVIEW_STATE]
    per_day = Counter(row.time.astimezone(now.tzinfo).date() for row in log)
    topic_of = {card.key: card.topic for deck in decks for card in deck.cards}
    topics = [(row.topic or topic_of[row.card], row.correct) for row in log if row.topic or row.card in topic_of]
    days = [today + timedelta(days=offset) for offset in range(-CHART_DAYS + 1, 1)]
    calendar, by_week = _history(store, now)
    return Stats(
        decks=tuple(counts),
        answers_total=store.answers_total(),
        retention=sum(recalls) / len(recalls) if recalls else None,
        retention_reviews=len(recalls),
        answers_per_day=tuple((day, per_day[day]) for day in days),
        forecast=tuple((today + timedelta(days=d), forecast[d]) for d in range(CHART_DAYS)),
        weakest=tuple(weakest_topics(topics)),
        calendar=calendar,
        forecast_30d=tuple((today + timedelta(days=d), forecast[d]) for d in range(FORECAST_DAYS)),
        retention_by_week=by_week,
    )

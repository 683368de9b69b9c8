"""Study statistics: card counts per deck, true retention, activity, the due forecast, weak topics.

Reads the schedule table (one row per card) and a bounded window of the log,
never the whole history; `answers_total` is a single count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from studytool.decks.model import Deck
from studytool.study.store import Schedule, Store

WINDOW_DAYS = 30       # retention and weakest topics look this far back
CHART_DAYS = 14        # answers per day and the due forecast
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
class Stats:
    decks: tuple[DeckCounts, ...]
    answers_total: int
    retention: float | None                   # share of review-state cards recalled, last 30 days
    retention_reviews: int                    # how many answers that share is over
    answers_per_day: tuple[tuple[date, int], ...]   # the last 14 days, oldest first
    forecast: tuple[tuple[date, int], ...]          # cards due on each of the next 14 days (overdue: today)
    weakest: tuple[TopicScore, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "answers_total": self.answers_total,
            "decks": [deck.to_json() for deck in self.decks],
            "retention_30d": self.retention,
            "retention_reviews": self.retention_reviews,
            "answers_per_day": {day.isoformat(): n for day, n in self.answers_per_day},
            "forecast": {day.isoformat(): n for day, n in self.forecast},
            "weakest_topics": [score.to_json() for score in self.weakest],
        }


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
    return Stats(
        decks=tuple(counts),
        answers_total=store.answers_total(),
        retention=sum(recalls) / len(recalls) if recalls else None,
        retention_reviews=len(recalls),
        answers_per_day=tuple((day, per_day[day]) for day in days),
        forecast=tuple((today + timedelta(days=d), forecast[d]) for d in range(CHART_DAYS)),
        weakest=tuple(weakest_topics(topics)),
    )

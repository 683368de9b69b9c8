"""Study statistics: card counts per deck, true retention, activity, the due forecast, weak topics.

Days are Anki days (`days.Days`). The log is never read row by row: answers
per day and true retention are counts over index ranges (`reviews_time`,
`reviews_recall`), the weakest topics one GROUP BY over the last 30 days; the
schedule table is read as (key, state, due) texts, with each card's suspended
and buried flags (`scheduled_cards`). At a million logged answers this takes
well under half a second (BENCHMARKS.md).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from studytool.decks.model import Deck
from studytool.study.days import Days
from studytool.study.records import time_text
from studytool.study.store import Store, format_time

if TYPE_CHECKING:
    from studytool.study.graphs import Graphs

WINDOW_DAYS = 30       # retention and weakest topics look this far back
CHART_DAYS = 14        # answers per day and the due forecast
CALENDAR_WEEKS = 26    # the study calendar and true retention by week
FORECAST_DAYS = 30     # the due forecast drawn as a chart
WEAKEST_SHOWN = 3
REVIEW_STATE = 2       # fsrs.State.Review


# "Due", in one place: `stats`, the review outlook (`queue.review_outlook`), `cards list --state due` and the
# review queue itself count with these. A suspended card is never due; a buried one comes back when its burial
# ends (the next day's start), or at its own due time if that is later.


def asked_now(state: int, back: Any, now: Any, end_of_today: Any) -> bool:
    """Asked by a review started `now`: a review card back any time today, a (re)learning step only once due.

    `back` is when the card can next be asked (`comes_back`); the times are datetimes, or all stored UTC texts,
    which sort like time."""
    return back is not None and (back <= now or (state == REVIEW_STATE and back < end_of_today))


def comes_back(due: str, suspended: bool, buried_until: str | None) -> str | None:
    """When a scheduled card can next be asked, as stored UTC text: its due time, or the end of its burial if
    later (a burial already over is earlier than now, so it changes nothing); None while it is suspended."""
    if suspended:
        return None
    return buried_until if buried_until is not None and buried_until > due else due


def scheduled_cards(store: Store) -> dict[str, tuple[int, str | None]]:
    """Every scheduled card's state and `comes_back` time, as stored texts: no row parsed, and only the few
    flagged cards looked at twice."""
    cards = {key: (state, time_text(due)) for key, state, due in store.con.execute("SELECT key, state, due FROM cards")}
    for key, suspended, buried in store.con.execute("SELECT key, suspended, buried_until FROM card_flags"):
        if key in cards:
            state, due = cards[key]
            cards[key] = (state, comes_back(due, suspended, None if buried is None else time_text(buried)))
    return cards


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
    return _weakest(Counter(topic for topic, _ok in answers), Counter(topic for topic, ok in answers if ok), limit)


def _weakest(answered: Counter, correct: Counter, limit: int = WEAKEST_SHOWN) -> list[TopicScore]:
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
    graphs: Graphs | None = None                        # Anki's graphs over `--range` (`graphs.py`)

    def to_json(self) -> dict[str, Any]:
        return {
            **(self.graphs.to_json() if self.graphs else {}),
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


def _count(store: Store, sql: str, *args: Any) -> int:
    return store.con.execute(sql, args).fetchone()[0]


def _recalls(store: Store, start: str, end: str) -> tuple[int, int]:
    """Answers on cards already in review, and how many were right, in [start, end): two counts on an index."""
    sql = ("SELECT count(*) FROM reviews WHERE mode = 'review' AND prior_state = ? AND correct = ?"
           " AND time >= ? AND time < ?")
    wrong, right = (_count(store, sql, REVIEW_STATE, correct, start, end) for correct in (0, 1))
    return wrong + right, right


def _history(store: Store, days: Days, today: int) -> tuple[tuple[tuple[date, int], ...], tuple[WeekRetention, ...]]:
    """Answers per day and true retention per week over the last CALENDAR_WEEKS weeks (Anki days, DST-correct).

    Each is a count over an index range, never a row read: the day boundaries come from `days`, so a
    +05:45 zone or a daylight-saving change falls right.
    """
    first = today - 7 * CALENDAR_WEEKS + 1
    bounds = [format_time(days.start(number)) for number in range(first, today + 2)]
    per_day = tuple((date.fromordinal(first + i), _count(
        store, "SELECT count(*) FROM reviews WHERE time >= ? AND time < ?", bounds[i], bounds[i + 1]))
        for i in range(len(bounds) - 1))
    weeks = []
    monday = first - date.fromordinal(first).weekday()
    for week in range(monday, today + 1, 7):
        start, end = max(week, first), min(week + 7, today + 1)
        reviews, recalled = _recalls(store, bounds[start - first], bounds[end - first])
        weeks.append(WeekRetention(date.fromordinal(week), reviews, recalled))
    return per_day, tuple(weeks)


def _weakest_since(store: Store, since: str, topic_of: dict[str, str]) -> list[TopicScore]:
    """The weakest topics over the answers since `since`, counted in SQL (index `reviews_topic`); an answer
    logged without its topic (schema 1) takes its card's."""
    answered, correct = Counter(), Counter()
    rows = store.con.execute(
        "SELECT topic, correct, count(*) FROM reviews WHERE time >= ? AND topic IS NOT NULL GROUP BY 1, 2", (since,))
    untagged = store.con.execute(
        "SELECT card, correct, count(*) FROM reviews INDEXED BY reviews_topic"   # not reviews_card: a whole scan
        " WHERE time >= ? AND topic IS NULL GROUP BY 1, 2", (since,))
    for topic, right, count in [*rows, *((topic_of.get(card), right, count) for card, right, count in untagged)]:
        if topic:
            answered[topic] += count
            correct[topic] += count if right else 0
    return _weakest(answered, correct)


_TIME_GLOB = "[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z"


def _check_schedules(store: Store) -> None:
    """A damaged schedule row is named in one line, as reading it would (`store.schedule`), found by SQL alone."""
    rows = store.con.execute(
        "SELECT key FROM cards WHERE state NOT IN (1, 2, 3) OR due NOT GLOB ? OR typeof(stability) = 'text'"
        " OR typeof(difficulty) = 'text' LIMIT 1", (_TIME_GLOB,))
    for (key,) in rows:
        store.schedule(key)


def _deck_counts(store: Store, decks: Sequence[Deck], now: str, end_of_today: str, bounds: list[str]):
    """Per deck: new, learning, review and due counts; and the due forecast per day (overdue: today).

    A suspended card counts in its state, never as due; a buried one is due when it comes back (`comes_back`).
    Reads only (key, state, due) and the flags, and compares the stored UTC texts, which sort like time."""
    _check_schedules(store)
    rows = scheduled_cards(store)
    counts, forecast = [], Counter()
    for deck in decks:
        scheduled = [rows[card.key] for card in deck.cards if card.key in rows]
        counts.append(DeckCounts(
            deck=deck.deck,
            new=len(deck.cards) - len(scheduled),
            learning=sum(state != REVIEW_STATE for state, _back in scheduled),
            review=sum(state == REVIEW_STATE for state, _back in scheduled),
            due_today=sum(back is not None and back < end_of_today for _state, back in scheduled),
            due_now=sum(asked_now(state, back, now, end_of_today) for state, back in scheduled),
        ))
        forecast.update(bisect_right(bounds, back) for _state, back in scheduled if back is not None)
    return counts, forecast


def compute_stats(store: Store, decks: Sequence[Deck], now: datetime, days: Days | None = None,
                  range_name: str = "1m") -> Stats:
    """Statistics of `decks` as of `now`, Anki's graphs over `range_name` (1m, 3m, 1y, all); days are Anki days
    (from `config day_start`, 04:00, in the local zone)."""
    from studytool.study import settings
    from studytool.study.graphs import compute_graphs
    from studytool.study.scheduler import Rules, Scheduler

    if days is None:
        days = Days(settings.get(store, "day_start"))
    today = days.number(now)
    bounds = [format_time(days.start(today + offset)) for offset in range(1, FORECAST_DAYS + 1)]  # ends of days
    counts, forecast = _deck_counts(store, decks, format_time(now), bounds[0], bounds)
    window = format_time(days.start(today - WINDOW_DAYS + 1))
    reviews, recalled = _recalls(store, window, format_time(days.start(today + 1)))
    topic_of = {card.key: card.topic for deck in decks for card in deck.cards}
    calendar, by_week = _history(store, days, today)
    dates = [date.fromordinal(today + offset) for offset in range(FORECAST_DAYS)]
    return Stats(
        decks=tuple(counts),
        answers_total=store.answers_total(),
        retention=recalled / reviews if reviews else None,
        retention_reviews=reviews,
        answers_per_day=calendar[-CHART_DAYS:],
        forecast=tuple((day, forecast[i]) for i, day in enumerate(dates[:CHART_DAYS])),
        weakest=tuple(_weakest_since(store, window, topic_of)),
        calendar=calendar,
        forecast_30d=tuple((day, forecast[i]) for i, day in enumerate(dates)),
        retention_by_week=by_week,
        graphs=compute_graphs(store, [card.key for deck in decks for card in deck.cards], now, days,
                              Scheduler(Rules(parameters=settings.get(store, "parameters"), days=days)), range_name),
    )

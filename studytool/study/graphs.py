"""Anki's statistics graphs, as data: today, reviews per day, card counts, intervals, stability, difficulty,
retrievability, the hourly breakdown and the answer buttons (`stats`; `stats.py` has the rest).

Anki's definitions: a review card is *young* while its interval is under 21 days and *mature* from 21 on;
an answer's card type (learning, young, mature) is the one it had when answered (the logged prior schedule);
the hourly breakdown and the answer buttons count review-mode answers only (a quiz leaves the schedule, as
Anki's filtered decks without rescheduling do). Days are Anki days (`days.Days`); the hourly breakdown is by
local hour. Every figure is a count over SQL, never a row read in Python, so a year of a million answers
stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.days import Days
from studytool.study.store import Store, format_time, parse_time, schedule_from_row

RANGES = {"1m": 30, "3m": 91, "1y": 365}     # and "all": from the first answer
MATURE_DAYS = 21
INTERVAL_BUCKETS = (1, 2, 3, 7, 14, 21, 30, 60, 90, 180, 365)          # each bucket from here to the next
STABILITY_BUCKETS = (0, *INTERVAL_BUCKETS)                            # FSRS stability, in days
TYPES = ("learning", "young", "mature")
_PRIOR_IVL = ("(julianday(json_extract(prior, '$.due')) - julianday(json_extract(prior, '$.last_review')))")


@dataclass(frozen=True)
class Graphs:
    range: str
    today: dict[str, Any]                              # answered, seconds, again, correct_share
    reviews_per_day: tuple[tuple[date, int, int], ...]  # (day, answers, seconds), oldest first
    card_counts: dict[str, int]                        # new, learning, relearning, young, mature, suspended, buried
    intervals: tuple[tuple[str, int], ...]             # review cards per interval bucket (days)
    stability: tuple[tuple[str, int], ...]
    difficulty: tuple[tuple[str, int], ...]            # 10 bands of FSRS difficulty 1-10, as Anki's 0-100%
    retrievability: tuple[tuple[str, int], ...]        # 10 bands of the chance of recall now
    hourly: tuple[tuple[int, int, int], ...]           # (local hour, answers, correct)
    answer_buttons: dict[str, dict[str, int]]          # type -> rating ("1".."4") -> answers

    def to_json(self) -> dict[str, Any]:
        return {
            "range": self.range, "today": self.today,
            "reviews_per_day": [{"day": day.isoformat(), "answers": n, "seconds": seconds}
                                for day, n, seconds in self.reviews_per_day],
            "card_counts": self.card_counts,
            "intervals": dict(self.intervals), "stability": dict(self.stability),
            "difficulty": dict(self.difficulty), "retrievability": dict(self.retrievability),
            "hourly": [{"hour": hour, "answers": n, "correct": right,
                        "correct_share": right / n if n else None} for hour, n, right in self.hourly],
            "answer_buttons": self.answer_buttons,
        }


def range_days(name: str, store: Store, days: Days, today: int) -> int:
    """How many days back `--range` reaches, today included."""
    if name in RANGES:
        return RANGES[name]
    if name != "all":
        raise StudytoolError(_("unknown range {name!r}; ranges: 1m, 3m, 1y, all").format(name=name))
    first = store.con.execute("SELECT min(time) FROM reviews").fetchone()[0]
    return today - days.number(parse_time(first)) + 1 if first else 1


def _bucket_label(buckets: Sequence[int], index: int) -> str:
    low = buckets[index]
    if index + 1 == len(buckets):
        return f"{low}+"
    if low == 0:   # stability: a fraction of a day
        return f"<{buckets[1]}"
    high = buckets[index + 1] - 1
    return str(low) if high == low else f"{low}-{high}"


def _histogram(values: Sequence[float], buckets: Sequence[int]) -> tuple[tuple[str, int], ...]:
    counts = [0] * len(buckets)
    for value in values:
        index = max((i for i, low in enumerate(buckets) if value >= low), default=0)
        counts[index] += 1
    return tuple((_bucket_label(buckets, i), n) for i, n in enumerate(counts))


def _bands(values: Sequence[float]) -> tuple[tuple[str, int], ...]:
    """Shares in [0, 1] in ten bands, `0-10%` ... `90-100%` (1.0 goes in the last)."""
    counts = [0] * 10
    for value in values:
        counts[min(9, max(0, int(value * 10)))] += 1
    return tuple((f"{10 * i}-{10 * i + 10}%", n) for i, n in enumerate(counts))


def _today(store: Store, start: str, end: str, keys: str, args: list[str]) -> dict[str, Any]:
    answered, ms, again, right = store.con.execute(
        f"SELECT count(*), coalesce(sum(duration_ms), 0), coalesce(sum(rating = 1), 0), coalesce(sum(correct), 0)"
        f" FROM reviews WHERE time >= ? AND time < ? {keys}", (start, end, *args)).fetchone()
    return {"answered": answered, "seconds": round(ms / 1000), "again": again,
            "correct_share": right / answered if answered else None}


def _per_day(store: Store, bounds: list[str], first: int, keys: str, args: list[str]) -> tuple:
    rows = []
    for i in range(len(bounds) - 1):
        n, ms = store.con.execute(
            f"SELECT count(*), coalesce(sum(duration_ms), 0) FROM reviews WHERE time >= ? AND time < ? {keys}",
            (bounds[i], bounds[i + 1], *args)).fetchone()
        rows.append((date.fromordinal(first + i), n, round(ms / 1000)))
    return tuple(rows)


def _cards(store: Store, card_keys: Sequence[str], now: datetime, days: Days, scheduler: Any) -> tuple:
    """card_counts, and the review cards' intervals, stabilities, difficulties and chances of recall now."""
    wanted = set(card_keys)
    now_text = format_time(now)
    # (suspended, buried now) per flagged card, read here: cards.py builds on stats.py, which draws these graphs
    flags = {key: (bool(suspended), buried is not None and buried > now_text)
             for key, suspended, buried in store.con.execute("SELECT key, suspended, buried_until FROM card_flags")}
    counts = dict.fromkeys(("new", "learning", "relearning", "young", "mature", "suspended", "buried"), 0)
    intervals, stabilities, difficulties, recalls = [], [], [], []
    scheduled = set()
    for row in store.con.execute("SELECT * FROM cards"):
        if row["key"] not in wanted:
            continue
        scheduled.add(row["key"])
        schedule, (suspended, buried) = schedule_from_row(row), flags.get(row["key"], (False, False))
        if suspended:
            counts["suspended"] += 1
            continue
        if buried:
            counts["buried"] += 1
            continue
        if schedule.state != 2:
            counts["learning" if schedule.state == 1 else "relearning"] += 1
            continue
        interval = days.number(schedule.due) - days.number(schedule.last_review) if schedule.last_review else 0
        counts["mature" if interval >= MATURE_DAYS else "young"] += 1
        intervals.append(interval)
        stabilities.append(schedule.stability or 0.0)
        difficulties.append(((schedule.difficulty or 1.0) - 1) / 9)
        recall = scheduler.retrievability(schedule, now)
        if recall is not None:
            recalls.append(recall)
    for key in wanted - scheduled:   # a new card may be suspended or buried too
        suspended, buried = flags.get(key, (False, False))
        counts["suspended" if suspended else "buried" if buried else "new"] += 1
    return counts, intervals, stabilities, difficulties, recalls


def compute_graphs(store: Store, card_keys: Sequence[str], now: datetime, days: Days, scheduler: Any,
                   range_name: str = "1m") -> Graphs:
    """The graphs over the cards `card_keys` (the decks `stats --deck` chose) and the last `range_name`."""
    today = days.number(now)
    span = range_days(range_name, store, days, today)
    first = today - span + 1
    bounds = [format_time(days.start(number)) for number in range(first, today + 2)]
    marks = ", ".join("?" * len(card_keys))
    keys, args = f"AND card IN ({marks})", list(card_keys)
    counts, intervals, stabilities, difficulties, recalls = _cards(store, card_keys, now, days, scheduler)
    hourly = {hour: (n, right) for hour, n, right in store.con.execute(
        f"SELECT CAST(strftime('%H', time, 'localtime') AS INTEGER), count(*), sum(correct) FROM reviews"
        f" WHERE time >= ? AND mode = 'review' {keys} GROUP BY 1", (bounds[0], *args))}
    buttons = {kind: {str(rating): 0 for rating in (1, 2, 3, 4)} for kind in TYPES}
    for kind, rating, n in store.con.execute(
            f"SELECT CASE WHEN prior_state IS NULL OR prior_state != 2 THEN 'learning'"
            f" WHEN round({_PRIOR_IVL}) >= {MATURE_DAYS} THEN 'mature' ELSE 'young' END, rating, count(*)"
            f" FROM reviews WHERE time >= ? AND mode = 'review' {keys} GROUP BY 1, 2", (bounds[0], *args)):
        if str(rating) in buttons[kind]:
            buttons[kind][str(rating)] = n
    return Graphs(
        range=range_name,
        today=_today(store, bounds[-2], bounds[-1], keys, args),
        reviews_per_day=_per_day(store, bounds, first, keys, args),
        card_counts=counts,
        intervals=_histogram(intervals, INTERVAL_BUCKETS),
        stability=_histogram(stabilities, STABILITY_BUCKETS),
        difficulty=_bands(difficulties),
        retrievability=_bands(recalls),
        hourly=tuple((hour, *hourly.get(hour, (0, 0))) for hour in range(24)),
        answer_buttons=buttons,
    )

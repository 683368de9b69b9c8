"""What the progress database holds, as Python: a card's schedule, an answer, a log row, and stored times.

Times are stored as UTC text in one fixed format (`2026-01-31T09:05:00.000000Z`), which sorts like
time itself and is read by SQLite's date functions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def format_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(TIME_FORMAT)


def parse_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)  # reads the trailing Z as UTC (and is much faster than strptime)
    except (TypeError, ValueError):   # a row damaged or edited by hand: one line, not a traceback
        raise StudytoolError(_("the progress database holds {value!r} where a time belongs; "
                               "see 'studytool backup list' to restore a backup").format(value=text)) from None


@dataclass(frozen=True)
class Schedule:
    """A card's FSRS memory state as stored; `scheduler.py` converts it to `fsrs.Card`."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


@dataclass(frozen=True)
class Answer:
    """One answer, as written to the review log."""

    card: str
    topic: str
    mode: str                 # "quiz" (schedule untouched) or "review"
    rating: int
    correct: bool
    answer: str
    seed: int | None
    params: dict[str, Any]
    duration_ms: int
    time: datetime


@dataclass(frozen=True)
class LogRow:
    card: str
    topic: str | None
    time: datetime
    mode: str
    rating: int
    correct: bool
    prior_state: int | None   # None: the card was new


def schedule_row(schedule: Schedule) -> dict[str, Any]:
    # field by field: `asdict` deep-copies each datetime, the most of what a sync's replay spends per answer
    return {"state": schedule.state, "step": schedule.step, "stability": schedule.stability,
            "difficulty": schedule.difficulty, "due": format_time(schedule.due),
            "last_review": format_time(schedule.last_review) if schedule.last_review else None}


def _checked(read: Callable[[Any], Schedule]) -> Callable[[Any], Schedule]:
    """A stored schedule fsrs cannot take (state 7, a stability of 'abc') is a damaged row, said in one line."""
    def checked(row: Any) -> Schedule:
        schedule = read(row)
        numbers = (schedule.stability, schedule.difficulty)
        if (schedule.state not in STATES or not isinstance(schedule.step, (int, type(None)))
                or not all(isinstance(n, (int, float, type(None))) for n in numbers)):
            raise StudytoolError(_("the progress database holds a schedule fsrs cannot use for {key} "
                                   "(state {state!r}, step {step!r}, stability {stability!r}, difficulty {difficulty!r}); "
                                   "see 'studytool backup list' to restore a backup").format(
                key=dict(row).get("key", "?"), state=schedule.state, step=schedule.step,
                stability=schedule.stability, difficulty=schedule.difficulty))
        return schedule

    return checked


STATES = (1, 2, 3)   # fsrs.State: learning, review, relearning


@_checked
def schedule_from_row(row: sqlite3.Row | dict[str, Any]) -> Schedule:
    return Schedule(
        state=row["state"],
        step=row["step"],
        stability=row["stability"],
        difficulty=row["difficulty"],
        due=parse_time(row["due"]),
        last_review=parse_time(row["last_review"]) if row["last_review"] else None,
    )

"""What the progress database holds, as Python: a card's schedule, an answer, a log row, and stored times.

Times are stored as UTC text in one fixed format (`2026-01-31T09:05:00.000000Z`), which sorts like
time itself and is read by SQLite's date functions.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from studytool.config import CLOCK_YEARS
from studytool.errors import StudytoolError
from studytool.i18n import _

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def format_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(TIME_FORMAT)


class BadRow(StudytoolError):
    """A value studytool never writes, met in a row where it is read (edited by hand, crafted): said in one line;
    the open store's `__exit__` names the newest good backup with its `reason`."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def bad_value(value: object, what: str) -> BadRow:
    """The error for `value` found where `what` (a time, a rating ...) belongs."""
    shown = repr(value[:40] if isinstance(value, (str, bytes)) else value) + ("…" if _long(value) else "")
    return BadRow(_("the progress database holds {value} where {what} belongs; see 'studytool backup list' to restore "
                    "a backup").format(value=shown, what=what),
                  _("it holds {value} where {what} belongs").format(value=shown, what=what))


def _long(value: object) -> bool:
    return isinstance(value, (str, bytes)) and len(value) > 40


# The years a stored time may name: those of the clock (config.CLOCK_YEARS), and FSRS's longest interval (100 years)
# after them for a due time; outside them the local zone's arithmetic overflows (the year 1, the year 9999).
TIME_YEARS = (CLOCK_YEARS[0], CLOCK_YEARS[1] + 101)


def parse_time(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)  # reads the trailing Z as UTC (and is much faster than strptime)
    except (TypeError, ValueError):   # a row damaged or edited by hand: one line, not a traceback
        moment = None
    if moment is None or moment.tzinfo is None or not TIME_YEARS[0] <= moment.year <= TIME_YEARS[1]:
        raise bad_value(text, _("a time"))
    return moment


def time_text(value: object) -> str:
    """A stored time as the text it is kept as (compared as text, which sorts like time, without parsing it)."""
    if not isinstance(value, str):
        raise bad_value(value, _("a time"))
    return value


def rating_of(value: object) -> int:
    """A logged rating, 1 (again) to 4 (easy)."""
    if type(value) is not int or not 1 <= value <= 4:
        raise bad_value(value, _("a rating from 1 to 4"))
    return value


def text_of(value: object, what: str) -> str:
    """A logged text (`what`: the answer, the mode ...)."""
    if not isinstance(value, str):
        raise bad_value(value, what)
    return value


def params_of(text: object) -> dict[str, Any]:
    """A logged answer's drawn inputs: a JSON object (a bad or deeply nested one is a bad row, not a traceback)."""
    try:
        params = json.loads(text) if text else {}
    except (TypeError, ValueError, RecursionError):
        params = None
    if not isinstance(params, dict):
        raise bad_value(text, _("the drawn inputs (a JSON object)"))
    return params


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
        if not _usable(schedule):
            values = dict(key=dict(row).get("key", "?"), state=schedule.state, step=schedule.step,
                          stability=schedule.stability, difficulty=schedule.difficulty)
            raise BadRow(_("the progress database holds a schedule fsrs cannot use for {key} "
                           "(state {state!r}, step {step!r}, stability {stability!r}, difficulty {difficulty!r}); "
                           "see 'studytool backup list' to restore a backup").format(**values),
                         _("a schedule fsrs cannot use for {key}").format(key=values["key"]))
        return schedule

    return checked


STATES = (1, 2, 3)   # fsrs.State: learning, review, relearning
DIFFICULTY = (1.0, 10.0)   # fsrs clamps every difficulty it gives into this range


def _usable(schedule: Schedule) -> bool:
    """Whether fsrs can take a stored schedule: a known state, a step from 0, a positive finite stability and a
    difficulty in fsrs's range (a stability of -5 made its formulas complex numbers; a step of -5 indexes nothing)."""
    def number(value: object) -> bool:
        return value is None or (type(value) in (int, float) and math.isfinite(value))

    stability, difficulty = schedule.stability, schedule.difficulty
    return (schedule.state in STATES and (schedule.step is None or (type(schedule.step) is int and schedule.step >= 0))
            and number(stability) and number(difficulty) and (stability is None or stability > 0)
            and (difficulty is None or DIFFICULTY[0] <= difficulty <= DIFFICULTY[1]))


@_checked
def schedule_from_row(row: sqlite3.Row | dict[str, Any]) -> Schedule:
    return Schedule(
        state=row["state"],
        step=row["step"],
        stability=row["stability"],
        difficulty=row["difficulty"],
        due=parse_time(row["due"]),
        last_review=parse_time(row["last_review"]) if row["last_review"] is not None else None,
    )

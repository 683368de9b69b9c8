"""Anki's day: days start at a local hour (`day_start`, 4 by default), not at midnight.

A review at 03:30 still belongs to the day before, as in Anki ("next day
starts at"). Days are calendar days of the local time zone (zoneinfo), so the
boundary stays at 04:00 wall-clock time across daylight-saving changes, and a
day may be 23 or 25 hours long.

Elapsed days, for FSRS, are not a difference of day numbers: Anki's live
scheduler (`card_state_updater`) counts the whole 86,400-second periods from
the last review to the *next* day start after the answer (`next_day_at`),
that start reckoned in the answer's own UTC offset (04:00 today, or 24 hours
after it when it has passed). So a card reviewed at 22:15 and again at 08:00
two calendar days later has 2 elapsed days though under 36 hours passed; a
review at exactly 04:00:00 counts as one of the day before (a whole period
back to the next day start); and across a daylight-saving change a review
within an hour of 04:00 may count a day more or less than the calendar says
(America/New_York, autumn: 6 where the calendar says 5). Anki's revlog
arithmetic (`compute_memory_state`, the optimizer) counts every answer back
from one day start, the one after *now*: the same but across such a change.
"""

from __future__ import annotations

import math
import os
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache

DEFAULT_DAY_START = 4   # Anki's default "next day starts at" hour


@lru_cache(maxsize=8)
def _zone_named(name: str | None) -> tzinfo:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        if name:
            return ZoneInfo(name.removeprefix(":"))
        with open("/etc/localtime", "rb") as file:
            return ZoneInfo.from_file(file, key="localtime")
    except (ZoneInfoNotFoundError, OSError, ValueError):
        return timezone.utc  # no zone database or local zone: UTC rather than guessing an offset


def local_zone() -> tzinfo:
    """The local time zone with its daylight-saving rules: `$TZ` if set, else the system's."""
    return _zone_named(os.environ.get("TZ"))


@lru_cache(maxsize=8)
def _check_day_start(day_start: int) -> int:
    if not 0 <= day_start <= 23:
        from studytool.errors import StudytoolError
        from studytool.i18n import _

        raise StudytoolError(_("day_start must be an hour from 0 to 23, got {value}").format(value=day_start))
    return day_start


class Days:
    """Day numbers and boundaries for one zone and day-start hour."""

    def __init__(self, day_start: int = DEFAULT_DAY_START, zone: tzinfo | None = None):
        self.day_start = _check_day_start(day_start)
        self.zone = zone if zone is not None else local_zone()

    def number(self, moment: datetime) -> int:
        """The day `moment` belongs to, as a proleptic ordinal (wall clock shifted back by `day_start` hours)."""
        wall = moment.astimezone(self.zone).replace(tzinfo=None)
        return (wall - timedelta(hours=self.day_start)).date().toordinal()

    def start(self, number: int) -> datetime:
        """When day `number` begins: `day_start` o'clock local time on that date (zoneinfo resolves the offset).

        In UTC, so that arithmetic on it is exact (Python subtracts two times of one zone by their wall clocks).
        """
        local = datetime.combine(date.fromordinal(number), time(self.day_start), tzinfo=self.zone)
        return local.astimezone(timezone.utc)

    def date(self, moment: datetime) -> date:
        """The calendar date a moment's day is named by (03:30 on the 2nd is still the 1st)."""
        return date.fromordinal(self.number(moment))

    def start_of(self, moment: datetime) -> datetime:
        return self.start(self.number(moment))

    def end_of(self, moment: datetime) -> datetime:
        """The start of the next day: cards due before it are due "today"."""
        return self.start(self.number(moment) + 1)

    def next_day_at(self, moment: datetime) -> datetime:
        """Anki's `next_day_at`: `day_start` o'clock in `moment`'s own UTC offset, or 24 hours later once passed.

        Near a daylight-saving change this may be an hour off `end_of(moment)`, as Anki's is.
        """
        local = moment.astimezone(self.zone)
        fixed = local.replace(tzinfo=timezone(local.utcoffset()))
        start = fixed.replace(hour=self.day_start, minute=0, second=0, microsecond=0)
        if start <= fixed:
            start += timedelta(days=1)
        return start.astimezone(timezone.utc)

    def seconds_to_next_day(self, moment: datetime) -> int:
        """Anki's `secs_until_rollover`: whole seconds from `moment` to `next_day_at`."""
        return _seconds(self.next_day_at(moment)) - _seconds(moment)

    def elapsed(self, earlier: datetime, later: datetime) -> int:
        """FSRS's elapsed days as Anki counts them: whole 86,400-second periods from `earlier` to the
        next day start after `later` (never negative)."""
        return max(0, (_seconds(self.next_day_at(later)) - _seconds(earlier)) // 86_400)


def _seconds(moment: datetime) -> int:
    """Unix time in whole seconds, as Anki keeps its clock and review times."""
    return math.floor(moment.timestamp())

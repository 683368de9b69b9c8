"""Anki's day: days start at a local hour (`day_start`, 4 by default), not at midnight.

A review at 03:30 still belongs to the day before, as in Anki ("next day
starts at"). Days are calendar days of the local time zone (zoneinfo), so the
boundary stays at 04:00 wall-clock time across daylight-saving changes, and a
day may be 23 or 25 hours long. Elapsed days between two moments are the
difference of their day numbers, as Anki counts them for FSRS: a card reviewed
at 22:15 and again at 08:00 two calendar days later has 2 elapsed days, though
under 36 hours passed.

Anki's own revlog arithmetic (what `compute_memory_state` and the optimizer
use) counts whole 86,400-second periods back from the next day's start, so
near a daylight-saving change an answer within an hour of 04:00 may fall in
another day there; its live scheduler and this module count calendar days.
"""

from __future__ import annotations

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

    def elapsed(self, earlier: datetime, later: datetime) -> int:
        """Whole days between two moments, counted in day boundaries crossed (never negative)."""
        return max(0, self.number(later) - self.number(earlier))

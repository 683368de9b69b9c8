"""Random histories answered by studytool's scheduler and by Anki's own, under a faked clock, to the day.

Sixty seeded histories, twenty in each of UTC, Asia/Shanghai and America/New_York (across its autumn
daylight-saving change), with answers at 00:30, 03:59, 04:00:00 and 04:01 among others, early, on time
and overdue. After every answer the card's state, stability, difficulty and due must be Anki's: a due
day exactly; a learning step within the day to within Anki's learning fuzz (up to a quarter of the
step, at most 5 minutes), as that draw is not a scheduling rule. Both schedulers get the fuzz factor
Anki would draw for the card (`anki_fuzz.py`); Anki runs in `anki_clock_oracle.py`.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from studytool.study import scheduler as scheduling
from studytool.study.days import Days
from studytool.study.scheduler import REVIEW, Rules, Scheduler

from anki_clock_oracle import faked_clock_env
from anki_fuzz import fuzz_factor

ORACLE = Path(__file__).with_name("anki_clock_oracle.py")
ZONES = {"UTC": date(2026, 3, 2), "Asia/Shanghai": date(2026, 3, 2), "America/New_York": date(2026, 10, 24)}
CLOCKS = [time(0, 30), time(3, 59), time(4, 0, 0), time(4, 1), time(9, 17), time(13, 45, 30), time(22, 15)]
DAY_OFFSETS = [-3, -1, -1, 0, 0, 0, 0, 1, 2, 6]            # answered days before, on or after the due day
STEP_DELAYS = [timedelta(0), timedelta(seconds=45), timedelta(minutes=9), timedelta(hours=3), timedelta(hours=26)]
RATINGS, WEIGHTS = [1, 2, 3, 4], [15, 15, 55, 15]
PER_ZONE = 20


def oracle_env(zone: str) -> dict[str, str]:
    pytest.importorskip("anki", reason="Anki's backend is the scheduling oracle (pip install '.[oracle]')")
    env = faked_clock_env(zone)
    if env is None:
        pytest.skip("libfaketime fakes Anki's clock (pip install '.[oracle]')")
    return env


def at_clock(days: Days, day: int, clock: time) -> datetime:
    """The moment of Anki day `day` whose wall clock shows `clock` (before the day start: the next date's)."""
    on = date.fromordinal(day) + timedelta(days=1 if clock.hour < days.day_start else 0)
    return datetime.combine(on, clock, tzinfo=days.zone).astimezone(timezone.utc)


def next_time(rng: random.Random, days: Days, schedule, before: datetime, last_day: int) -> datetime:
    """When to answer next: near a step's due moment, or on a day around the due day at one of the clocks
    (early, at the latest on `last_day`: Anki keeps due times in 32 bits, to 2038)."""
    if schedule.state != REVIEW and schedule.due != days.start_of(schedule.due):
        when = schedule.due + rng.choice(STEP_DELAYS)
    else:
        day = min(days.number(schedule.due) + rng.choice(DAY_OFFSETS), last_day)
        day = max(days.number(before), day)
        when = at_clock(days, day, rng.choice(CLOCKS))
    return when if when > before else before + timedelta(minutes=rng.choice([1, 10, 90]))


def card_id(zone_index: int, n: int) -> int:
    return 1_772_000_000_000 + 1000 * zone_index + n


def studytool_histories(zone: str, zone_index: int, monkeypatch) -> list[dict]:
    """Seeded histories answered by studytool's scheduler: the answers and what each left."""
    days = Days(zone=ZoneInfo(zone))
    scheduler = Scheduler(Rules(days=days))
    monkeypatch.setattr(scheduling, "fuzz_factor", lambda key, reps: fuzz_factor(int(key), reps))
    rng = random.Random(f"{zone}-histories")
    histories = []
    for n in range(PER_ZONE):
        start = ZONES[zone] + timedelta(days=rng.randrange(8))
        when = at_clock(days, start.toordinal(), rng.choice(CLOCKS))
        schedule, log, after = None, [], []
        for reps in range(rng.randrange(6, 11)):
            if schedule is not None:
                when = next_time(rng, days, schedule, when, start.toordinal() + 400)
            rating = rng.choices(RATINGS, WEIGHTS)[0]
            schedule = scheduler.answer(schedule, rating, when, key=str(card_id(zone_index, n)), reps=reps)
            log.append((when, rating))
            after.append(schedule)
        histories.append({"card": card_id(zone_index, n), "log": log, "after": after})
    return histories


def anki_answers(zone: str, histories: list[dict]) -> list[list[dict]]:
    payload = [{"card": h["card"], "log": [[int(t.timestamp()), r] for t, r in h["log"]]} for h in histories]
    done = subprocess.run([sys.executable, str(ORACLE)], input=json.dumps(payload), capture_output=True, text=True,
                          env=oracle_env(zone), timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def disagreement(days: Days, when: datetime, ours, anki: dict) -> str | None:
    """What of `ours` differs from Anki's card after the answer at `when`, or None."""
    if ours.state != anki["type"]:
        return f"state {ours.state} vs Anki's {anki['type']}"
    # Anki keeps stability to 4 decimal places and difficulty to 3, and answers from what it kept
    if ours.stability != pytest.approx(anki["stability"], rel=1e-3, abs=3e-4):
        return f"stability {ours.stability:.4f} vs Anki's {anki['stability']:.4f}"
    if ours.difficulty != pytest.approx(anki["difficulty"], rel=1e-3, abs=3e-3):
        return f"difficulty {ours.difficulty:.4f} vs Anki's {anki['difficulty']:.4f}"
    if "due_in_days" in anki:
        expected = days.start(days.number(when) + anki["due_in_days"])
        return None if ours.due == expected else f"due {ours.due.isoformat()} vs Anki's {expected.isoformat()}"
    anki_due = datetime.fromtimestamp(anki["due_at"], timezone.utc)
    window = min(300.0, 0.25 * (anki_due - when).total_seconds())
    if abs((ours.due - anki_due).total_seconds()) > window:
        return f"step due {ours.due.isoformat()} vs Anki's {anki_due.isoformat()}"
    return None


@pytest.mark.parametrize("zone_index, zone", list(enumerate(ZONES)))
def test_random_histories_are_due_when_ankis_are(zone_index, zone, monkeypatch):
    env = oracle_env(zone)
    assert env is not None
    days = Days(zone=ZoneInfo(zone))
    histories = studytool_histories(zone, zone_index, monkeypatch)
    found, total = [], 0
    for history, answers in zip(histories, anki_answers(zone, histories)):
        for (when, rating), ours, anki in zip(history["log"], history["after"], answers, strict=True):
            total += 1
            wrong = disagreement(days, when, ours, anki)
            if wrong:
                found.append(f"card {history['card']}: {rating} at {when.astimezone(days.zone)}: {wrong}")
    assert not found, f"{total - len(found)} of {total} answers agree; the others:\n" + "\n".join(found)


def test_the_histories_hold_the_cases_that_broke(monkeypatch):
    """Preconditions: answers at each clock, on both sides of New York's autumn change, early and overdue."""
    histories = {zone: studytool_histories(zone, i, monkeypatch) for i, zone in enumerate(ZONES)}
    for zone, found in histories.items():
        days = Days(zone=ZoneInfo(zone))
        clocks = {t.astimezone(days.zone).time() for h in found for t, _ in h["log"]}
        assert {time(0, 30), time(3, 59), time(4, 0, 0), time(4, 1)} <= clocks, zone
        offsets = {days.number(t) - days.number(before.due) for h in found
                   for (t, _), before in zip(h["log"][1:], h["after"]) if before.state == REVIEW}
        assert min(offsets) < 0 < max(offsets), zone   # early and overdue reviews
        same_day_after_day_start = [t for h in found for (before, _), (t, _) in zip(h["log"], h["log"][1:])
                                    if before.astimezone(days.zone).time() == time(4)
                                    and days.number(t) == days.number(before)]
        assert same_day_after_day_start, zone   # where Anki counts a day elapsed and the calendar none
    new_york = ZoneInfo("America/New_York")
    crossing = [h for h in histories["America/New_York"]
                if h["log"][0][0].astimezone(new_york).dst() != h["log"][-1][0].astimezone(new_york).dst()]
    assert len(crossing) >= 5


def test_the_fuzz_port_draws_as_ankis_backend(tmp_path):
    """`anki_fuzz.fuzz_factor` against Anki's `fuzz_delta`, which fuzzes an interval with the card's factor."""
    pytest.importorskip("anki", reason="Anki's backend is the scheduling oracle (pip install '.[oracle]')")
    from anki.collection import Collection

    col = Collection(str(tmp_path / "fuzz.anki2"))
    try:
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"], note["Back"] = "q", "a"
        col.add_note(note, col.decks.id("Default"))
        card = 1_764_000_000_123   # one fixed card id: a new note's is the clock's, so the draws would vary by run
        col.db.execute("UPDATE cards SET id = ? WHERE id = ?", card, note.card_ids()[0])
        for reps in range(1, 30):
            col.db.execute("UPDATE cards SET reps = ? WHERE id = ?", reps, card)
            # fuzz_delta seeds with reps - 1 (the answer that set the interval); 20000 days: a range of 2000
            lower, upper = scheduling.fuzz_bounds(20000.0, 1, 36500)
            ours = int(lower + fuzz_factor(card, reps - 1) * (1 + upper - lower)) - 20000
            assert col._backend.fuzz_delta(card_id=card, interval=20000) == ours, reps
    finally:
        col.close()

"""Anki's scheduling rules around FSRS: days from 04:00, steps, interval order, fuzz. Truths: Anki's own tests and
hand-derived dates."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from studytool.study.days import Days
from studytool.study.scheduler import LEARNING, RELEARNING, REVIEW, Rules, Scheduler, fuzz_bounds, fuzz_factor
from studytool.study.store import Schedule

UTC = timezone.utc
BERLIN = ZoneInfo("Europe/Berlin")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def scheduler(**kw) -> Scheduler:
    return Scheduler(Rules(days=Days(4, UTC), **{"fuzz": False, **kw}))


# --- days ------------------------------------------------------------------------


def test_a_day_starts_at_four_so_3_30_belongs_to_the_day_before():
    days = Days(4, UTC)
    assert days.date(at("2026-03-02T03:30:00+00:00")).isoformat() == "2026-03-01"
    assert days.date(at("2026-03-02T04:00:00+00:00")).isoformat() == "2026-03-02"
    assert days.elapsed(at("2026-03-01T22:15:00+00:00"), at("2026-03-02T03:30:00+00:00")) == 0
    assert days.elapsed(at("2026-03-01T22:15:00+00:00"), at("2026-03-02T04:00:00+00:00")) == 1   # 5 h 45 min
    assert days.elapsed(at("2026-03-01T04:00:01+00:00"), at("2026-03-02T03:59:00+00:00")) == 0   # 23 h 59 min


def test_an_answer_at_the_day_start_counts_a_whole_day_back_from_the_next_one():
    """Anki counts elapsed days as whole 86,400-second periods from the last answer to the next day start
    after this one: from 04:00:00 that is a full day, so 04:00:00 counts as the day before."""
    days = Days(4, UTC)
    assert days.elapsed(at("2026-03-01T04:00:00+00:00"), at("2026-03-01T04:10:00+00:00")) == 1
    assert days.elapsed(at("2026-03-01T04:00:00+00:00"), at("2026-03-02T03:59:00+00:00")) == 1
    assert days.elapsed(at("2026-03-01T04:00:01+00:00"), at("2026-03-01T04:10:00+00:00")) == 0
    assert days.elapsed(at("2026-03-01T03:59:59+00:00"), at("2026-03-01T04:00:00+00:00")) == 1


def test_across_new_yorks_autumn_change_elapsed_days_count_to_the_next_day_start():
    days = Days(4, ZoneInfo("America/New_York"))
    before, after = at("2026-10-27T04:30:00-04:00"), at("2026-11-01T10:00:00-05:00")
    assert days.number(after) - days.number(before) == 5                 # calendar days
    assert days.elapsed(before, after) == 6   # 04:00 EST on 2 Nov is 6 days 30 minutes after 04:30 EDT
    # the next day start is reckoned in the answer's own offset, as Anki's is: at 00:30 EDT on the night
    # of the change it is 04:00 EDT, which is 03:00 EST
    assert days.next_day_at(at("2026-11-01T00:30:00-04:00")) == at("2026-11-01T03:00:00-05:00")
    assert days.next_day_at(at("2026-11-01T03:30:00-05:00")) == at("2026-11-01T04:00:00-05:00")


def test_days_are_local_and_keep_four_o_clock_across_daylight_saving():
    days = Days(4, BERLIN)
    # 2026-03-29: clocks go 02:00 -> 03:00 CET -> CEST; the day that starts then is 23 hours long
    spring = days.start(days.number(at("2026-03-29T12:00:00+02:00")))
    assert spring == at("2026-03-29T04:00:00+02:00")
    assert days.end_of(spring) - spring == timedelta(hours=24)
    assert spring - days.start(days.number(spring) - 1) == timedelta(hours=23)
    # 2026-10-25: 03:00 CEST -> 02:00 CET; that day is 25 hours long, and 04:00 is still 04:00 local
    autumn = days.start_of(at("2026-10-25T12:00:00+01:00"))
    assert autumn == at("2026-10-25T04:00:00+01:00")
    assert autumn - days.start(days.number(autumn) - 1) == timedelta(hours=25)
    # 03:30 local (01:30 UTC in summer) belongs to the day before; Berlin and UTC disagree
    assert days.date(at("2026-07-02T01:30:00+00:00")).isoformat() == "2026-07-01"
    assert Days(4, UTC).date(at("2026-07-02T01:30:00+00:00")).isoformat() == "2026-07-01"
    assert days.date(at("2026-07-02T02:30:00+00:00")).isoformat() == "2026-07-02"          # 04:30 in Berlin
    assert Days(4, UTC).date(at("2026-07-02T02:30:00+00:00")).isoformat() == "2026-07-01"  # 02:30 in London


def test_day_start_is_an_hour():
    from studytool.errors import StudytoolError

    with pytest.raises(StudytoolError, match="day_start"):
        Days(24, UTC)


# --- steps -----------------------------------------------------------------------


def test_learning_steps_are_ankis_again_restarts_hard_waits_halfway_good_moves_on():
    s, t = scheduler(), at("2026-03-01T09:00:00+00:00")
    again = s.answer(None, 1, t, key="d/a", reps=0)
    hard = s.answer(None, 2, t, key="d/a", reps=0)
    good = s.answer(None, 3, t, key="d/a", reps=0)
    assert (again.state, again.step, again.due - t) == (LEARNING, 0, timedelta(minutes=1))
    assert (hard.state, hard.step, hard.due - t) == (LEARNING, 0, timedelta(minutes=5, seconds=30))  # (1 + 10) / 2
    assert (good.state, good.step, good.due - t) == (LEARNING, 1, timedelta(minutes=10))
    later = t + timedelta(minutes=10)
    assert s.answer(good, 2, later, key="d/a", reps=1).due - later == timedelta(minutes=10)   # hard: same step
    graduated = s.answer(good, 3, later, key="d/a", reps=1)
    assert (graduated.state, graduated.step) == (REVIEW, None)


def test_a_graduated_card_is_due_from_the_start_of_its_day():
    s = scheduler()
    t = at("2026-03-01T22:15:00+00:00")
    card = s.answer(s.answer(None, 3, t, key="d/a", reps=0), 3, t, key="d/a", reps=1)
    assert card.due == at("2026-03-03T04:00:00+00:00")   # stability 2.3065 -> 2 days, due from 04:00 on the 3rd


def test_easy_on_a_learning_card_is_at_least_a_day_past_good():
    for stability in (0.3, 1.0, 2.5, 8.0):   # Easy's own interval may round to Good's: it is pushed a day on
        for fuzz in (False, True):
            s = scheduler(fuzz=fuzz, parameters=(0.212, stability, 2.3065, stability + 0.001, *_TAIL))
            t = at("2026-03-01T09:00:00+00:00")
            for reps in range(5):
                learning = Schedule(LEARNING, 1, stability, 5.0, t, t)
                good = s.answer(learning, 3, t, key="d/x", reps=reps).due
                easy = s.answer(learning, 4, t, key="d/x", reps=reps).due
                assert easy - good >= timedelta(days=1)


_TAIL = (6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729,
         0.5425, 0.0912, 0.0658, 0.1542)


def test_review_answers_order_hard_good_easy_and_again_relearns():
    s = scheduler()
    last = at("2026-03-01T09:00:00+00:00")
    card = Schedule(REVIEW, None, 3.0, 5.0, at("2026-03-04T04:00:00+00:00"), last)
    t = at("2026-03-04T09:00:00+00:00")
    due = [s.answer(card, rating, t, key="d/a", reps=3).due for rating in (2, 3, 4)]
    assert due[0] < due[1] < due[2]
    lapse = s.answer(card, 1, t, key="d/a", reps=3)
    assert (lapse.state, lapse.step, lapse.due - t) == (RELEARNING, 0, timedelta(minutes=10))
    assert s.answer(lapse, 3, t + timedelta(minutes=10), key="d/a", reps=4).state == REVIEW   # one relearning step


def test_steps_come_from_the_rules():
    s = scheduler(learning_steps=(timedelta(minutes=2),), relearning_steps=())
    t = at("2026-03-01T09:00:00+00:00")
    assert s.answer(None, 1, t, key="d/a", reps=0).due - t == timedelta(minutes=2)
    assert s.answer(None, 2, t, key="d/a", reps=0).due - t == timedelta(minutes=3)   # alone: 1.5x
    card = Schedule(REVIEW, None, 3.0, 5.0, t, t - timedelta(days=3))
    assert s.answer(card, 1, t, key="d/a", reps=1).state == REVIEW   # no relearning steps: stays a review card


def test_a_step_of_a_day_or_more_is_due_from_the_start_of_its_day():
    s = scheduler(learning_steps=(timedelta(minutes=10), timedelta(days=1), timedelta(days=3)))
    t = at("2026-03-01T22:00:00+00:00")
    first = s.answer(None, 3, t, key="d/a", reps=0)                       # Good: the 1-day step
    assert (first.step, first.due) == (1, at("2026-03-02T04:00:00+00:00"))
    second = s.answer(first, 3, at("2026-03-02T09:00:00+00:00"), key="d/a", reps=1)
    assert (second.step, second.due) == (2, at("2026-03-05T04:00:00+00:00"))


def test_a_step_that_would_end_past_the_next_day_start_is_due_at_it():
    """Anki's `maybe_as_days`: 03:59 + 10 minutes is due at 04:00, the start of the next day, fuzz or not."""
    for fuzz in (False, True):
        s = scheduler(fuzz=fuzz)
        good = s.answer(None, 3, at("2026-03-02T03:59:00+00:00"), key="d/a", reps=0)
        assert (good.state, good.step, good.due) == (LEARNING, 1, at("2026-03-02T04:00:00+00:00"))
        card = Schedule(REVIEW, None, 30.0, 5.0, at("2026-03-02T04:00:00+00:00"), at("2026-02-01T09:00:00+00:00"))
        lapse = s.answer(card, 1, at("2026-03-03T03:55:00+00:00"), key="d/a", reps=5)
        assert (lapse.state, lapse.due) == (RELEARNING, at("2026-03-03T04:00:00+00:00"))
    early = scheduler().answer(None, 3, at("2026-03-02T03:45:00+00:00"), key="d/a", reps=0)
    assert early.due == at("2026-03-02T03:55:00+00:00")                # ends before 04:00: a step in minutes


def test_fuzz_never_shrinks_a_review_interval_below_the_previous_one():
    """Anki's `minimum_review_fuzz_interval`: after 115 days, a Hard whose interval is about 111 days still
    waits 115 (fuzz ranges 105-118 there), unless the interval fell below the previous one's fuzz range."""
    days = Days(4, UTC)
    last = at("2026-01-01T09:00:00+00:00")
    card = Schedule(REVIEW, None, 110.0, 9.0, days.start(days.number(last) + 115), last)
    t = last + timedelta(days=3)   # early: stability barely grows
    s = scheduler()
    assert round(s.interval(s.answer(card, 2, t, key="d/a", reps=9).stability)) == 111
    for fuzz in (False, True):
        s = scheduler(fuzz=fuzz)
        for i in range(30):
            hard = s.answer(card, 2, t, key=f"d/c{i}", reps=9)
            assert days.number(hard.due) - days.number(t) >= 115
    shrunk = Schedule(REVIEW, None, 40.0, 9.0, days.start(days.number(last) + 115), last)
    assert days.number(scheduler().answer(shrunk, 3, t, key="d/a", reps=9).due) - days.number(t) < 115


# --- fuzz ------------------------------------------------------------------------


@pytest.mark.parametrize("interval, minimum, maximum, lower, upper", [
    # Anki's fuzz.rs test table (assert_lower_middle_upper: factor 0 gives lower, 0.99 upper)
    (1.0, 1, 1000, 1, 1), (2.49, 1, 1000, 2, 2), (2.5, 1, 1000, 2, 4), (7.0, 1, 1000, 5, 9),
    (17.0, 1, 1000, 14, 20), (37.0, 1, 1000, 33, 41), (2.0, 2, 1000, 2, 2), (2.0, 3, 1000, 3, 4),
    (2.0, 3, 3, 3, 3), (6.9, 3, 1000, 5, 9), (19.9, 3, 1000, 17, 23), (20.1, 3, 1000, 17, 23),
    (100.0, 101, 1000, 101, 108), (100.0, 1, 99, 92, 99), (100.0, 97, 103, 97, 103),
])
def test_fuzz_bounds_are_ankis(interval, minimum, maximum, lower, upper):
    assert fuzz_bounds(interval, minimum, maximum) == (lower, upper)


def test_learning_steps_are_fuzzed_as_anki_does_up_to_a_quarter_and_at_most_5_minutes():
    s = scheduler(fuzz=True, learning_steps=(timedelta(minutes=1), timedelta(minutes=10), timedelta(hours=1)))
    t = at("2026-03-01T09:00:00+00:00")
    again = {s.answer(None, 1, t, key=f"d/c{i}", reps=0).due - t for i in range(60)}
    assert min(again) >= timedelta(seconds=60) and max(again) < timedelta(seconds=75) and len(again) > 5
    step = Schedule(LEARNING, 1, 2.3, 5.0, t, t)
    hour = {s.answer(step, 3, t, key=f"d/c{i}", reps=1).due - t for i in range(60)}
    assert min(hour) >= timedelta(hours=1) and max(hour) < timedelta(hours=1, minutes=5)   # 5 minutes at most
    assert s.answer(None, 1, t, key="d/a", reps=0) == s.answer(None, 1, t, key="d/a", reps=0)


def test_fuzz_is_fixed_by_card_and_review_count():
    s = scheduler(fuzz=True)
    t = at("2026-03-01T09:00:00+00:00")
    card = Schedule(REVIEW, None, 30.0, 5.0, t, t - timedelta(days=30))
    assert s.answer(card, 3, t, key="d/a", reps=7) == s.answer(card, 3, t, key="d/a", reps=7)
    spread = {s.answer(card, 3, t, key=f"d/c{i}", reps=7).due for i in range(40)}
    assert len(spread) > 3   # different cards spread over the fuzz range
    assert fuzz_factor("d/a", 7) == fuzz_factor("d/a", 7) != fuzz_factor("d/a", 8)

"""FSRS scheduling: the `fsrs` package, wrapped to read and write our stored `Schedule`.

A card in the store is one FSRS item; for a generated card that is the
concept, whatever variant was shown. Auto-graded answers rate Good or Again;
recall cards are rated 1-4 by the learner.
"""

from __future__ import annotations

from datetime import datetime, timezone

import fsrs

from studytool.study.store import Schedule

DEFAULT_RETENTION = 0.9


def make_scheduler(desired_retention: float = DEFAULT_RETENTION, *, fuzz: bool = True) -> fsrs.Scheduler:
    """FSRS with its default weights and learning steps (1 min, 10 min; relearning 10 min)."""
    return fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=fuzz)


def rating_for(correct: bool) -> fsrs.Rating:
    """Auto-graded answers: right is Good, wrong is Again."""
    return fsrs.Rating.Good if correct else fsrs.Rating.Again


def to_fsrs(schedule: Schedule | None) -> fsrs.Card:
    """A stored schedule as an `fsrs.Card`; None (never reviewed) is a new card."""
    if schedule is None:
        return fsrs.Card(card_id=0, due=datetime(1970, 1, 1, tzinfo=timezone.utc))
    return fsrs.Card(
        card_id=0,
        state=fsrs.State(schedule.state),
        step=schedule.step,
        stability=schedule.stability,
        difficulty=schedule.difficulty,
        due=schedule.due,
        last_review=schedule.last_review,
    )


def from_fsrs(card: fsrs.Card) -> Schedule:
    return Schedule(
        state=int(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def next_schedule(scheduler: fsrs.Scheduler, schedule: Schedule | None, rating: int, when: datetime) -> Schedule:
    """The card's schedule after being rated `rating` (1-4) at `when`."""
    card, _log = scheduler.review_card(
        to_fsrs(schedule), fsrs.Rating(rating), review_datetime=when.astimezone(timezone.utc)
    )
    return from_fsrs(card)

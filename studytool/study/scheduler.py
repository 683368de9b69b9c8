"""FSRS scheduling as Anki does it, over our stored `Schedule`.

The memory model (stability, difficulty) is py-fsrs's FSRS-6; what is Anki's
here, and not py-fsrs's, is how it is driven:

- elapsed time is counted as Anki's live scheduler counts it (`Days.elapsed`:
  whole days back from the next 04:00 local time), not in 24-hour periods: a
  review the next calendar day is 1 day later however few hours passed, and
  FSRS's same-day (short-term) formula applies only within one such day;
- a review card is due on a day (stored as the moment that day starts), a
  learning step at a moment, unless it would end past the next day start:
  then, as Anki's `maybe_as_days`, it is due on a day, from its start;
- learning and relearning steps follow Anki's `LearningSteps` (Hard on the
  first step waits halfway to the second; Good moves on; Again restarts),
  each delay fuzzed as Anki does (up to +25%, at most 5 minutes);
- intervals are Anki's: hard <= good - 1 <= easy - 2 for review cards, none
  shorter than the previous interval by fuzz (Anki's
  `minimum_review_fuzz_interval`), Easy on a learning card at least the fuzzed
  Good interval + 1 day, and fuzz from Anki's ranges with a factor fixed by
  the card and its review count.

A card in the store is one FSRS item; for a generated card that is the
concept, whatever variant was shown.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from studytool.study.days import Days
from studytool.study.store import Schedule

DEFAULT_RETENTION = 0.9
LEARNING, REVIEW, RELEARNING = 1, 2, 3      # stored states, as fsrs.State numbers them
MAXIMUM_INTERVAL = 36500                    # days, Anki's default
FUZZ_RANGES = ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))   # Anki's fuzz.rs


def rating_for(correct: bool, close: bool = False) -> int:
    """Auto-graded answers: right is Good (3), a near miss (right by the method, rounded early) Hard (2), wrong
    Again (1)."""
    return 3 if correct else 2 if close else 1


@dataclass(frozen=True)
class Rules:
    """What scheduling depends on: `config`'s values, and the day."""

    retention: float = DEFAULT_RETENTION
    parameters: tuple[float, ...] | None = None           # None: FSRS-6's defaults (Anki's too)
    learning_steps: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
    relearning_steps: tuple[timedelta, ...] = (timedelta(minutes=10),)
    maximum_interval: int = MAXIMUM_INTERVAL
    fuzz: bool = True
    days: Days = field(default_factory=Days)


@dataclass(frozen=True)
class _Memory:
    stability: float
    difficulty: float

    def kept(self) -> tuple[float, float]:
        """As Anki stores it (`round_to_places`): stability to 4 decimal places, difficulty to 3. The next
        answer starts from these, so keeping more would drift a day off Anki's fuzz range within months."""
        return _round(self.stability * 1e4) / 1e4, _round(self.difficulty * 1e3) / 1e3


def fuzz_factor(key: str, reps: int) -> float:
    """A number in [0, 1) fixed by the card and how many times it was reviewed, as Anki seeds it (id + reps)."""
    return random.Random(f"{key}:{reps}").random()


def fuzz_bounds(interval: float, minimum: int, maximum: int) -> tuple[int, int]:
    """Anki's `constrained_fuzz_bounds`: the fuzz range around `interval`, kept within [minimum, maximum]."""
    minimum = min(minimum, maximum)
    interval = min(max(interval, minimum), maximum)
    delta = 0.0 if interval < 2.5 else 1.0 + sum(
        factor * max(min(interval, end) - start, 0.0) for start, end, factor in FUZZ_RANGES)
    lower = min(max(_round(interval - delta), minimum), maximum)
    upper = min(max(_round(interval + delta), minimum), maximum)
    if upper == lower and 2 < upper < maximum:
        upper = lower + 1
    return lower, upper


def _round(value: float) -> int:
    """Rust's `f32::round`: halves away from zero (Python's round() takes halves to even)."""
    return math.floor(value + 0.5)


class Scheduler:
    """Anki's FSRS answer logic for one set of rules."""

    def __init__(self, rules: Rules = Rules()):
        import fsrs

        self.rules = rules
        self.days = rules.days
        kwargs = {} if rules.parameters is None else {"parameters": rules.parameters}
        self.model = fsrs.Scheduler(desired_retention=rules.retention, **kwargs)  # the FSRS-6 formulas

    # --- the memory model ----------------------------------------------------

    def _memory(self, schedule: Schedule | None, rating: int, when: datetime) -> _Memory:
        """Stability and difficulty after `rating` at `when`, with Anki's elapsed days."""
        import fsrs

        model, grade = self.model, fsrs.Rating(rating)
        if schedule is None or schedule.stability is None or schedule.difficulty is None:
            return _Memory(model._initial_stability(rating=grade),
                           model._initial_difficulty(rating=grade, clamp=True))
        stability = schedule.stability
        elapsed = self.days.elapsed(schedule.last_review, when) if schedule.last_review else 0
        if elapsed == 0:
            stability = model._short_term_stability(stability=stability, rating=grade)
        else:
            recall = (1 + model._FACTOR * elapsed / stability) ** model._DECAY
            stability = model._next_stability(difficulty=schedule.difficulty, stability=stability,
                                              retrievability=recall, rating=grade)
        return _Memory(stability, model._next_difficulty(difficulty=schedule.difficulty, rating=grade))

    def interval(self, stability: float) -> float:
        """FSRS's interval for the desired retention, in days, unrounded (as Anki's backend gives it)."""
        model = self.model
        return stability / model._FACTOR * (self.rules.retention ** (1 / model._DECAY) - 1)

    def retrievability(self, schedule: Schedule, when: datetime) -> float | None:
        """The chance of recall at `when`, elapsed time counted in Anki days."""
        if schedule.stability is None or schedule.last_review is None:
            return None
        elapsed = self.days.elapsed(schedule.last_review, when)
        return (1 + self.model._FACTOR * elapsed / schedule.stability) ** self.model._DECAY

    # --- answering -----------------------------------------------------------

    def answer(self, schedule: Schedule | None, rating: int, when: datetime, *, key: str, reps: int) -> Schedule:
        """The card's schedule after `rating` (1-4) at `when`; `reps`: its review answers before this one."""
        if rating not in (1, 2, 3, 4):
            raise ValueError(f"rating must be 1-4, got {rating}")
        memories = _Memories(lambda grade: self._memory(schedule, grade, when))
        fuzz = fuzz_factor(key, reps) if self.rules.fuzz else None
        if schedule is None or schedule.state == LEARNING:
            step = 0 if schedule is None else schedule.step or 0
            return self._stepping(LEARNING, self.rules.learning_steps, step, memories, rating, when, fuzz)
        if schedule.state == RELEARNING:
            return self._stepping(RELEARNING, self.rules.relearning_steps, schedule.step or 0,
                                  memories, rating, when, fuzz)
        return self._review(schedule, memories, rating, when, fuzz)

    def _stepping(self, state: int, steps: tuple[timedelta, ...], step: int, memories: _Memories,
                  rating: int, when: datetime, fuzz: float | None) -> Schedule:
        """A (re)learning card: Anki's learn.rs / relearn.rs with FSRS."""
        memory = memories[rating]
        step = min(step, len(steps) - 1) if steps else 0   # fewer steps configured since: stay on the last
        delay: timedelta | None = None
        if rating == 1 and steps:
            step, delay = 0, steps[0]
        elif rating == 2 and steps:
            delay = _hard_delay(steps, step)
        elif rating == 3 and step + 1 < len(steps):
            step, delay = step + 1, steps[step + 1]
        if delay is not None:
            return Schedule(state, step, *memory.kept(), self._step_due(when, delay, fuzz), when)
        minimum = 1
        if rating == 4:   # Easy waits at least a day longer than Good would have
            minimum = self._fuzzed(self.interval(memories[3].stability), 1, fuzz) + 1
        whole_days = float(max(1, _round(self.interval(memory.stability))))   # Anki rounds before the fuzz here
        return self._due_in(self._fuzzed(whole_days, minimum, fuzz), memory, when)

    def _review(self, schedule: Schedule, memories: _Memories, rating: int, when: datetime,
                fuzz: float | None) -> Schedule:
        """A review card: Again lapses into relearning; Hard, Good and Easy each at least a day past the one
        before, and none below the floor the previous interval sets."""
        memory = memories[rating]
        if rating == 1:
            if self.rules.relearning_steps:
                due = self._step_due(when, self.rules.relearning_steps[0], fuzz)
                return Schedule(RELEARNING, 0, *memory.kept(), due, when)
            return self._due_in(self._fuzzed(self.interval(memory.stability), 1, None), memory, when)
        previous = self.days.number(schedule.due) - self.days.number(schedule.last_review or schedule.due)
        minimum, days = 1, 0
        for grade in range(2, rating + 1):
            interval = self.interval(memories[grade].stability)
            days = self._fuzzed(interval, max(self._floor(interval, previous), minimum), fuzz)
            minimum = days + 1
        return self._due_in(days, memory, when)

    def _floor(self, interval: float, previous: int) -> int:
        """Anki's `minimum_review_fuzz_interval`: fuzz may not shrink the interval below the previous one
        (previous + 1 once it grew), unless the interval itself fell below the fuzz range of the previous."""
        _lower, upper = fuzz_bounds(interval, 1, self.rules.maximum_interval)
        if _round(interval) > previous:
            return previous + 1
        return previous if previous <= upper else 0

    def _fuzzed(self, interval: float, minimum: int, fuzz: float | None) -> int:
        """Anki's `with_review_fuzz`: a day count in the fuzz range, or the rounded interval without fuzz."""
        maximum = self.rules.maximum_interval
        if fuzz is None:
            return min(max(_round(interval), min(minimum, maximum)), maximum)
        lower, upper = fuzz_bounds(interval, minimum, maximum)
        return math.floor(lower + fuzz * (1 + upper - lower))

    def _step_due(self, when: datetime, delay: timedelta, fuzz: float | None) -> datetime:
        """When a step is due: Anki's `with_learning_fuzz` adds up to a quarter of the delay (at most 5 minutes),
        in whole seconds; a step that would end at or past the next day start is due on a day, from its start
        (Anki's `maybe_as_days`: 03:59 + 10 minutes is due at 04:00; a 1-day step at 22:00 at 04:00 the next
        morning)."""
        seconds = int(delay.total_seconds())
        until = self.days.seconds_to_next_day(when)
        if seconds >= until:
            return self.days.start(self.days.number(when) + (seconds - until) // 86_400 + 1)
        extra = math.floor(min(seconds * 0.25, 300.0))
        return when + timedelta(seconds=seconds + (math.floor(fuzz * extra) if fuzz is not None else 0))

    def _due_in(self, days: int, memory: _Memory, when: datetime) -> Schedule:
        """A review card due `days` Anki days after `when`'s day: due from the moment that day starts."""
        due = self.days.start(self.days.number(when) + days)
        return Schedule(REVIEW, None, *memory.kept(), due, when)


class _Memories:
    """The memory after each rating, worked out when first asked for: an answer needs one to three of the four
    (a replay of 100,000 answers in `sync` spends most of its time here)."""

    def __init__(self, memory: Callable[[int], _Memory]):
        self._memory, self._found = memory, {}

    def __getitem__(self, grade: int) -> _Memory:
        if grade not in self._found:
            self._found[grade] = self._memory(grade)
        return self._found[grade]


def _hard_delay(steps: tuple[timedelta, ...], step: int) -> timedelta:
    """Anki's `hard_delay_secs`: on the first step halfway to the second (1.5x, at most a day more, if alone)."""
    if step > 0:
        return steps[step]
    if len(steps) == 1:
        return min(steps[0] * 1.5, steps[0] + timedelta(days=1))
    return (steps[0] + steps[1]) / 2

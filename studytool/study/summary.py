"""What a study session hands back: where the card on screen stands, each answer, the summary."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from studytool.decks.model import Card
from studytool.i18n import _
from studytool.problems.variant import Variant
from studytool.study.queue import Outlook
from studytool.study.stats import TopicScore, weakest_topics


@dataclass(frozen=True)
class Progress:
    """Where the card on screen stands. Learning steps coming back are counted apart, so `total` never grows.

    `again` is what Anki's Again means: cards missed (answered wrong, rated Again) this session that wait to come
    back; a card rated Hard or Good on a learning step comes back too, counted under `learning`.
    """

    number: int     # the session's own cards shown so far, this one included unless it is a card come back
    total: int      # the session's own cards
    again: int      # missed cards waiting to come back, this one not included
    repeat: bool    # this is a learning step come back
    learning: int = 0     # other learning steps waiting to come back (rated Hard or Good, or from an earlier day)
    missed: bool = False  # this step came back after a miss


@dataclass(frozen=True)
class Interval:
    """When a card would come back after one rating: in seconds, and in days when it would be a review card."""

    seconds: float
    days: int | None = None

    def text(self) -> str:
        """As Anki's buttons say it: `<10m`, `<2h` for a step; `1d`, `3d`, `1.2mo`, `1.5y` for a review."""
        if self.days is None:
            minutes = max(1, math.ceil(self.seconds / 60))
            return (_("<{n}m").format(n=minutes) if minutes < 60
                    else _("<{n}h").format(n=math.ceil(minutes / 60)))
        if self.days < 30:
            return _("{n}d").format(n=self.days)
        if self.days < 365:
            return _("{n}mo").format(n=f"{self.days / 30:.1f}")
        return _("{n}y").format(n=f"{self.days / 365:.1f}")

    def to_json(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds), "days": self.days, "text": self.text()}


def rating_word(rating: int) -> str:
    """The FSRS rating in the interface language (built per call so each word is a literal `_()`)."""
    return {1: _("Again"), 2: _("Hard"), 3: _("Good"), 4: _("Easy")}[rating]


def buttons(intervals: dict[int, Interval] | None, ratings: tuple[int, ...]) -> str:
    """`1 Again <10m · 2 Hard 1d · 3 Good 3d · 4 Easy 8d`, as Anki's buttons (a plain quiz: no times)."""
    return " · ".join(f"{rating} {rating_word(rating)}" + (f" {intervals[rating].text()}" if intervals else "")
                      for rating in ratings)


@dataclass(frozen=True)
class Result:
    """One answered showing."""

    card: Card
    seed: int | None
    variant: Variant
    answer: str
    expected: str
    correct: bool
    rating: int
    hint: str | None
    review_id: int
    hinted: bool = False   # given after :explain on this showing: rated at most Hard
    close: bool = False    # not right but right by the method (rounded early, or off in the last digit): Hard
    intervals: dict[int, Interval] | None = None   # what each rating would have given (None: a plain quiz)

    @property
    def verdict(self) -> str:
        """"correct", "close" or "wrong" (a recall card: the learner's own rating, Again is wrong)."""
        return "correct" if self.correct else "close" if self.close else "wrong"

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card.key,
            "topic": self.card.topic,
            "kind": self.card.kind,
            "seed": self.seed,
            "prompt": self.variant.prompt,
            "answer": self.answer,
            "expected": self.expected,
            "correct": self.correct,
            "rating": self.rating,
            "verdict": self.verdict,
            "hint": self.hint,
            "hinted": self.hinted,
            "level": self.variant.level,
            "intervals": ({str(rating): interval.to_json() for rating, interval in self.intervals.items()}
                          if self.intervals else None),
        }


@dataclass(frozen=True)
class Summary:
    mode: str
    results: tuple[Result, ...]
    skipped: int
    seconds: float
    seed: int | None = None   # quiz: the selection seed, to replay with --seed
    interrupted: bool = False  # ended by Ctrl-C (the CLI exits 130 after the summary)
    outlook: Outlook | None = None  # review and quiz --reschedule: when the cards come back
    credited: int = 0  # prerequisite cards implicit review moved (`implicit.py`), answers taken back not counted
    ended_early: bool = False  # :q, end of input or Ctrl-C with cards due now left (a step due later is not)

    @property
    def answered(self) -> int:
        return len(self.results)

    @property
    def correct(self) -> int:
        return sum(result.correct for result in self.results)

    @property
    def hinted(self) -> int:
        """Answers given after a hint, counted apart: they are not plain right ones."""
        return sum(result.hinted for result in self.results)

    def weakest(self) -> list[TopicScore]:
        return weakest_topics([(r.card.topic, r.correct) for r in self.results])

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "seed": self.seed,
            "answered": self.answered,
            "correct": self.correct,
            "hinted": self.hinted,
            "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
            "cards": [result.to_json() for result in self.results],
            "weakest_topics": [score.to_json() for score in self.weakest()],
            "outlook": self.outlook.to_json() if self.outlook else None,
            "implicit_credits": self.credited,
            "ended_early": self.ended_early,
        }

"""What a study session hands back: where the card on screen stands, each answer, the summary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studytool.decks.model import Card
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

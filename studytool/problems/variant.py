"""What a posed question is: the contract between problems, decks and study.

Every card, fixed or generated, is posed as a `Variant`. The grader
(`studytool.problems.answers.grade`) needs nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# scalar   answer: int | float
# vector   answer: tuple[float, ...]
# matrix   answer: tuple[tuple[float, ...], ...]
# shape    answer: tuple[int, ...]
# choice   answer: frozenset[int]  (0-based indices into `options`; one or several right)
# sequence answer: tuple[int, ...] (0-based indices into `options`, in the right order;
#                                   `options` are shown in the order given)
# recall   answer: str             (reference answer; the learner rates 1-4, not graded)
# The options a truefalse card is posed with: a two-option choice the grader
# recognises, so it can accept 对/错, T/F and 1/2.
TRUE_FALSE = ("对 / True", "错 / False")

AnswerKind = Literal["scalar", "vector", "matrix", "shape", "choice", "sequence", "recall"]


def option_label(kind: AnswerKind, index: int) -> str:
    """How option `index` is shown and answered: a letter for a choice, a number for a sequence item."""
    return chr(ord("A") + index) if kind == "choice" else str(index + 1)


@dataclass(frozen=True)
class Tolerance:
    """|given - expected| <= abs + rel * |expected|, element-wise."""

    rel: float = 0.0
    abs: float = 0.0


@dataclass(frozen=True)
class Hint:
    """A known wrong method: the answer it produces and what to tell the learner."""

    answer: Any
    message: str


@dataclass(frozen=True)
class Variant:
    prompt: str
    kind: AnswerKind
    answer: Any
    tolerance: Tolerance | None = None  # None: exact (integers, shapes, choices)
    solution: tuple[str, ...] = ()      # worked steps with their intermediate numbers
    hints: tuple[Hint, ...] = ()
    options: tuple[str, ...] = ()       # choice options / sequence items
    generator: str | None = None
    params: dict[str, Any] = field(default_factory=dict)  # the drawn inputs, JSON-able
    seed: int | None = None
    level: int = 1                      # how far the question has grown (`problems/levels.py`); fixed cards: 1

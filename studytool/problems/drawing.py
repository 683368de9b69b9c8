"""Small helpers every generator family shares: drawing from the rng and writing numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from studytool.problems.variant import Tolerance

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

# Rejection sampling gives up after this many tries (pinned values may make "distinct" impossible).
TRIES = 100

# Answers are given to 4 decimals (the notes' -1.3416, -0.4472 ...) and accepted within ±1e-4, so a
# learner who works from the solution's 6-decimal intermediates and rounds once is always right.
FOUR_DECIMALS = Tolerance(abs=1e-4)


def saturated(probabilities: Any) -> bool:
    """Some probability shows as 0.0000 or 1.0000 at the 4 decimals asked: a near-one-hot key asks nothing."""
    return any(round(float(p), 4) in (0.0, 1.0) for p in probabilities)


def pick(rng: np.random.Generator, options: Sequence[T]) -> T:
    return options[int(rng.integers(len(options)))]


def mirrored_options(rng: np.random.Generator, template: str, phrases: Sequence[str]) -> tuple[tuple[str, ...], int, int]:
    """Every `template.format(a=..., b=...)` of two different phrases, shuffled; returns (options, right, mirror),
    the right one being (phrases[0], phrases[1]) and its mirror (phrases[1], phrases[0]).

    Each option has its mirror among the others, and the phrases are written alike (one width, one ending,
    no shared pair of characters), so neither "the longest" nor "the one most like the others" picks the key.
    """
    from itertools import permutations

    written = [template.format(a=a, b=b) for a, b in permutations(phrases, 2)]
    shown = tuple(written[i] for i in rng.permutation(len(written)))
    return shown, shown.index(written[0]), shown.index(template.format(a=phrases[1], b=phrases[0]))


def distinct_ints(rng: np.random.Generator, n: int, lo: int, hi: int) -> list[int]:
    """n distinct integers from lo..hi, in random order."""
    return [int(v) + lo for v in rng.permutation(hi - lo + 1)[:n]]


# Worked solutions show intermediates to 6 decimals (round only the final answer, to 4): an answer
# computed from the shown numbers and rounded once is always within the ±1e-4 the grader allows.
STEP_DECIMALS = 6


def _decimal(x: float) -> str:
    text = f"{float(x):.{STEP_DECIMALS}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def num(x: float) -> str:
    """An integer as an integer, anything else to 6 decimals."""
    x = float(x)
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return _decimal(x)


def total(xs: Sequence[float]) -> str:
    """A sum as written by hand: -8 + 6 − 9 + 10, not -8 + 6 + -9 + 10."""
    terms = [num(xs[0])] if len(xs) else []
    terms += [f"− {num(-x)}" if x < 0 else f"+ {num(x)}" for x in xs[1:]]
    return " ".join(terms)


def vec(xs: Sequence[float]) -> str:
    """All integers as integers; otherwise every entry to 6 decimals, so columns line up."""
    if all(abs(float(x) - round(float(x))) < 1e-9 for x in xs):
        return "[" + ", ".join(num(x) for x in xs) + "]"
    return "[" + ", ".join(_decimal(x) for x in xs) + "]"


def mat(rows: Sequence[Sequence[float]]) -> str:
    return "[" + ", ".join(vec(r) for r in rows) + "]"


def big(n: int) -> str:
    """1048576 -> 1,048,576."""
    return f"{int(n):,}"


def shape(dims: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(d)) for d in dims) + "]"


def floats(a: Any) -> tuple[float, ...]:
    import numpy as np

    return tuple(float(v) for v in np.asarray(a).ravel())


def rows(a: Any) -> tuple[tuple[float, ...], ...]:
    import numpy as np

    return tuple(floats(r) for r in np.asarray(a))


def plain(value: Any) -> Any:
    """numpy scalars and arrays -> JSON-able Python values."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value

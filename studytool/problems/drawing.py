"""Small helpers every generator family shares: drawing from the rng and writing numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from studytool.problems.variant import Hint, Tolerance, Variant

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


MIB = 2**20
MIB_TOLERANCE = Tolerance(abs=0.005)   # MiB to two decimals: the step is the conversion, not the digits
_WIDTHS = {1: "int8", 2: "fp16/bf16", 4: "fp32"}


def memory_param():
    """The `memory` parameter of a counting generator: level 3's one more step, the count's size in MiB."""
    from studytool.problems.checks import Param

    return Param("memory", "bytes per stored value (1, 2 or 4): ask the count's size in MiB instead (level 3 "
                           "draws it; default: the count)", None,
                 lambda v: None if v in _WIDTHS and not isinstance(v, bool) else f"expected 1, 2 or 4, got {v!r}")


def in_mib(variant: Variant, count: int, width: int, unit: float = 1) -> Variant:
    """`variant` (a count, its answer and hints in `unit`s of values) carried one step further: the memory the
    `count` values take at `width` bytes each, in MiB, with the step in the worked solution."""
    from dataclasses import replace

    mib = count * width / MIB
    step = f"按 {_WIDTHS[width]} 每个数 {width} 字节：{big(count)} × {width} / 2²⁰ = {mib:.6f} MiB"
    hints = (*(Hint(h.answer * unit * width / MIB, h.message) for h in variant.hints),
             Hint(count * width / 1e6, "1 MiB = 2²⁰ = 1,048,576 字节，不是 10⁶。"),
             Hint(count / MIB, f"每个数 {width} 字节：还要乘字节数。"),
             Hint(count, "那是个数；还要换算成 MiB。"))
    prompt = (variant.prompt.replace("保留一位小数。", "") + f"再算一步：按 {_WIDTHS[width]} 存储（每个数 {width} 字节），"
              "这些参数占多少 MiB（1 MiB = 2²⁰ 字节）？答案写 MiB 数，保留两位小数。")
    return replace(variant, prompt=prompt, answer=mib, tolerance=MIB_TOLERANCE, solution=(*variant.solution, step),
                   hints=tuple(h for h in hints if abs(h.answer - mib) > 0.01), params={**variant.params, "memory": width})


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


def on_screen(prompt: str, answer: float) -> bool:
    """Whether a number written in `prompt` (1,024, 0.85, the 10 of 2⁻¹⁰) is `answer` to the grader's 1e-4: a draw
    where copying it passes is redrawn (what `decks audit` checks as prompt_numbers)."""
    import re

    return any(abs(float(text.replace(",", "")) - abs(answer)) < 1e-4
               for text in re.findall(r"\d[\d,]*(?:\.\d+)?", prompt))


def redrawn(draw: Any) -> Any:
    """The first of `draw()`'s variants whose answer is no number on screen (`on_screen`), the last one else."""
    for _ in range(TRIES):
        variant = draw()
        if not on_screen(variant.prompt, variant.answer):
            break
    return variant

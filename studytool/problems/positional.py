"""Sinusoidal positional encoding by hand: one value PE(pos, j) or a whole row."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from studytool.problems.checks import index_below, int_in
from studytool.problems.drawing import FOUR_DECIMALS, floats, num, pick, vec
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

ASKS = ("value", "row", "dot")

_RULE = ("PE(pos, 2i) = sin(pos / 10000^(2i/d))，PE(pos, 2i+1) = cos(pos / 10000^(2i/d))，"
         "第 j 列用 i = ⌊j/2⌋，角度用弧度")


def _row(pos: int, d_model: int) -> np.ndarray:
    """PE(pos, :) alone, by the engine's formula: `engine.positional_encoding(pos + 1, d)` builds every row
    up to pos, 80 MB (375 MB with temporaries) and a second for a pinned pos 10,000 at d_model 1024."""
    import numpy as np

    j = np.arange(d_model)
    angle = pos * 10000.0 ** (-(2 * (j // 2)) / d_model)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))


def _angle(pos: int, j: int, d_model: int) -> float:
    return pos / 10000 ** (2 * (j // 2) / d_model)


def _column_steps(pos: int, j: int, d_model: int, value: float) -> str:
    i = j // 2
    trig = "sin" if j % 2 == 0 else "cos"
    denominator = 10000 ** (2 * i / d_model)
    last_odd = d_model % 2 and j == d_model - 1
    unpaired = "（d_model 为奇数：最后一列是偶数列，只有 sin，没有配对的 cos 列）" if last_odd else ""
    return (f"j = {j}：i = {i}，10000^({2 * i}/{d_model}) = {num(denominator)}，"
            f"角度 = {pos} / {num(denominator)} = {_angle(pos, j, d_model):.6f}，{trig}(角度) = {value:.6f}{unpaired}")


def _wrong_rows(pos: int, d_model: int) -> dict[str, np.ndarray]:
    """The rows that known wrong methods give, by the message for each."""
    import numpy as np

    j = np.arange(d_model)
    per_column = pos / 10000 ** (2 * j / d_model)     # i = j instead of j // 2
    right = pos / 10000 ** (2 * (j // 2) / d_model)
    return {
        "你用了 i = j；应该是 i = ⌊j/2⌋（相邻的 sin/cos 两列共用一个频率）。":
            np.where(j % 2 == 0, np.sin(per_column), np.cos(per_column)),
        "sin 和 cos 反了：偶数列用 sin，奇数列用 cos。": np.where(j % 2 == 0, np.cos(right), np.sin(right)),
        "角度要用弧度，不是角度制。": np.where(j % 2 == 0, np.sin(np.radians(right)), np.cos(np.radians(right))),
    }


@generator(
    "positional_encoding",
    "Sinusoidal PE: one value PE(pos, j), the row PE(pos, :), or the dot product of two positions' rows.",
    asks=ASKS,
    params=(
        Param("d_model", "encoding width (default: drawn from 3..4, odd and even)", None, int_in(1, 1024)),
        Param("pos", "position (default: drawn from 2..13)", None, int_in(0, 10_000)),
        Param("j", "column for ask=value (default: drawn below d_model)", None, int_in(0, 1023)),
        Param("other", "the second position for ask=dot (default: drawn, not pos)", None, int_in(0, 10_000)),
    ),
    example={"d_model": 3, "pos": 1, "ask": "row"},
    constraints=(index_below("j", "d_model"),),
)
def positional_encoding(rng: np.random.Generator, *, d_model, pos, j, other, ask) -> Variant:
    """Sinusoidal PE (params: d_model, pos, j, ask).

    The notes' example pins d_model=3, pos=1, ask=row: [0.841471, 0.540302, 0.002154] (pos 0-3 in the notes).
    """
    least = 3 if j is None else max(3, j + 1)  # a pinned column must exist
    # the notes' sizes: a row of 3 or 4 numbers; pos from 2 (pos 1 at d_model 4 puts cos(0.01) = 1.0000 in the row)
    d_model = d_model if d_model is not None else int(rng.integers(least, max(5, least + 1)))
    pos = pos if pos is not None else int(rng.integers(2, 14))
    row = _row(pos, d_model)
    params = {"d_model": d_model, "pos": pos, "ask": ask}
    head = f"正弦位置编码，d_model = {d_model}：{_RULE}。"
    wrong = _wrong_rows(pos, d_model)
    if ask == "row":
        steps = tuple(_column_steps(pos, c, d_model, row[c]) for c in range(d_model)) + (f"PE({pos}, :) = {vec(row)}",)
        hints = tuple(Hint(floats(r), message) for message, r in wrong.items())
        return Variant(head + f"位置 pos = {pos} 的编码向量 PE({pos}, :) 是什么？（{d_model} 个数）", "vector",
                       floats(row), FOUR_DECIMALS, steps, hints, params=params)
    if ask == "dot":
        return _dot(rng, head, pos, other, d_model, row, params)
    j = j if j is not None else int(rng.integers(0, d_model))
    params["j"] = j
    value = float(row[j])
    hints = tuple(Hint(float(r[j]), message) for message, r in wrong.items() if not math.isclose(r[j], value))
    return Variant(head + f"PE(pos={pos}, j={j}) 是多少？", "scalar", value, FOUR_DECIMALS,
                   (_column_steps(pos, j, d_model, value),), hints, params=params)


def _dot(rng: np.random.Generator, head: str, pos: int, other: int | None, d_model: int, row: np.ndarray,
         params: dict) -> Variant:
    """PE(pos) · PE(other): each row by the formula, then their dot product (level 3's one more step). For even
    d_model it is Σ cos((pos − other)·ω_i), which depends on the distance alone."""
    import numpy as np

    other = other if other is not None else int(pick(rng, [p for p in range(max(0, pos - 9), pos + 10) if p != pos]))
    second = _row(other, d_model)
    dot = float(row @ second)
    steps = (*(_column_steps(pos, c, d_model, row[c]) for c in range(d_model)), f"PE({pos}, :) = {vec(row)}",
             f"同样按公式：PE({other}, :) = {vec(second)}",
             f"逐项相乘：{vec(row * second)}",
             f"相加：PE({pos}) · PE({other}) = {dot:.6f}" + ("（d_model 为偶数时等于 Σ cos((pos − pos')·ω_i)，只取决于距离）"
                                                          if d_model % 2 == 0 else ""))
    hints = tuple(Hint(h, m) for h, m in ((float(row @ row), "那是 PE(pos) 与自己的点积；要用两个位置各自的编码。"),
                                          (float(row.sum() * second.sum()), "点积是逐项相乘再相加，不是两个和相乘。"))
                  if not math.isclose(h, dot, abs_tol=1e-4))
    return Variant(head + f"位置 {pos} 和位置 {other} 的编码向量的点积 PE({pos}) · PE({other}) 是多少？", "scalar", dot,
                   FOUR_DECIMALS, steps, hints, params={**params, "other": other})

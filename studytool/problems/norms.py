"""LayerNorm and BatchNorm by hand: statistics, outputs, and which axis each one normalises."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, matrix, numbers, pinned_length, range_holds
from studytool.problems.drawing import FOUR_DECIMALS, TRIES, distinct_ints, mirrored_options, floats, mat, num, pick, plain, rows, total, vec
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

# "γ=1、β=0" in words: a 1 or 0 on screen was the answer of every draw whose mean is 1 or 0 (6% at level 2)
_LN_RULE = "按 PyTorch nn.LayerNorm 的定义（不计可学习的 γ、β，忽略 ε）"
_BN_RULE = "按训练模式的 BatchNorm（用这个 batch 自己的统计量，不计可学习的 γ、β，忽略 ε）"


def _ln_steps(x: np.ndarray) -> tuple[list[str], float, float]:
    """Worked steps of LayerNorm on one vector; returns (steps, mean, sigma)."""
    import numpy as np

    k = len(x)
    m = float(x.mean())
    dev = x - m
    var = float(np.mean(dev**2))
    sigma = math.sqrt(var)
    squares = " + ".join(num(d * d) for d in dev)
    steps = [
        f"均值 m = ({total(x)}) / {k} = {num(m)}",
        f"偏差 x − m = {vec(dev)}",
        f"方差 = ({squares}) / {k} = {num(var)}（除以 K = {k}，总体方差）",
        f"σ = √{num(var)} = {num(sigma)}",
    ]
    return steps, m, sigma


@dataclass(frozen=True)
class _Token:
    """What every LayerNorm sub-question starts from: the vector, its statistics and LN(x)."""

    xs: np.ndarray
    steps: tuple[str, ...]    # mean, deviation, variance, sigma
    m: float
    sigma: float
    sigma_unbiased: float     # the K-1 mistake
    out: np.ndarray
    head: str
    params: dict[str, Any]
    scale: int | None         # ask=invariance: pinned, or drawn there
    shift: int | None
    residual: list | None = None   # level 3: the sub-layer output added to x before LayerNorm


def _ln_mean(t: _Token, rng: np.random.Generator) -> Variant:
    k, total = len(t.xs), float(t.xs.sum())
    hints = (Hint(total, f"这是 {k} 个分量的和；均值还要除以 K = {k}。"),
             Hint(total / (k - 1), f"均值除以分量个数 K = {k}，不是 K−1。"),
             Hint(float(k), f"K = {k} 是分量个数；均值是这 {k} 个分量的和再除以 K。"))   # mean = K: copying K would pass
    return Variant(t.head + "LayerNorm 用的均值 m 是多少？", "scalar", float(t.m), FOUR_DECIMALS,
                   t.steps[:1 + (t.residual is not None)],
                   hints, params=t.params)


def _ln_sigma(t: _Token, rng: np.random.Generator) -> Variant:
    hints = (Hint(t.sigma_unbiased, "你用了无偏标准差（除以 K−1）；LayerNorm 除以 K。"),
             Hint(t.sigma**2, "这是方差；σ 还要开平方。"))
    return Variant(t.head + "LayerNorm 用的标准差 σ 是多少？", "scalar", t.sigma, FOUR_DECIMALS, t.steps,
                   hints, params=t.params)


def _ln_output(t: _Token, rng: np.random.Generator) -> Variant:
    xs, m, sigma = t.xs, t.m, t.sigma
    steps = (*t.steps, f"输出 (x − m) / σ = {vec(t.out)}")
    hints = (Hint(floats((xs - m) / t.sigma_unbiased), "你用了无偏方差（除以 K−1）；LayerNorm 用总体方差，除以 K。"),
             Hint(floats((xs - m) / sigma**2), "你除以了方差；应除以标准差 σ。"),
             Hint(floats(xs / sigma), "别忘了先减去均值 m。"))
    return Variant(t.head + "LayerNorm 的输出向量是什么？", "vector", floats(t.out), FOUR_DECIMALS, steps,
                   hints, params=t.params)


def _ln_invariance(t: _Token, rng: np.random.Generator) -> Variant:
    from studytool import engine

    xs, out = t.xs, t.out
    # a negative scale flips the sign (σ scales by |a|), so "LN ignores a·x + b" alone is not enough;
    # LN(x) is not shown, so no vector on screen is the answer
    scale = t.scale if t.scale is not None else pick(rng, (-5, -4, -3, -2, 2, 3, 4, 5))
    shift = t.shift if t.shift is not None else pick(rng, (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5))  # 0 would not test it
    moved = scale * xs + shift
    out_moved = engine.layer_norm(moved, eps=0.0)
    sign = "LN(x')" + (" = LN(x)" if scale > 0 else " = −LN(x)")
    steps = (
        *t.steps,
        f"LN(x) = (x − m) / σ = {vec(out)}",
        f"x' = {scale}·x + ({shift}) = {vec(moved)}：均值变为 {scale}·m + ({shift}) = {num(scale * t.m + shift)}，"
        f"σ 变为 |{scale}|·σ = {num(abs(scale) * t.sigma)}（标准差不会是负数）",
        f"(x' − m') / σ' = {scale}(x − m) / (|{scale}|σ)：平移被减均值抵消，缩放只留下它的符号，"
        f"{sign} = {vec(out_moved)}",
    )
    prompt = (f"已知一个 token 的表示 x = {vec(xs)}。把每个分量乘 {scale} 再加 {shift}，"
              f"得到 x' = {vec(moved)}。{_LN_RULE}，LN(x') 是什么？")
    if t.residual is not None:   # level 3: the residual add first, and x' not shown
        steps = (t.steps[0], *steps)
        prompt = (f"{t.head}把残差相加后的 h = x + s 每个分量乘 {scale} 再加 {shift} 得到 h'（不直接给出）。"
                  f"LN(h') 是什么？")
    hints = (Hint(floats(scale * out), "LayerNorm 的输出与输入的整体缩放无关：均值和 σ 同样被缩放。"),
             Hint(floats(scale * out + shift), "缩放和平移都会被减均值、除以 σ 抵消。"),
             Hint(floats(out + shift), "平移会被减均值抵消。"),
             Hint(floats(-out_moved), "σ 按 |a| 缩放，分子按 a 缩放：a < 0 时 LN(x') = −LN(x)，a > 0 时不变。"))
    return Variant(prompt, "vector", floats(out_moved), FOUR_DECIMALS, steps, hints,
                   params={**t.params, "scale": scale, "shift": shift})


def _scale_check(value: Any) -> str | None:
    if value == 0:
        return "scale 0 makes every component equal (σ = 0): expected a non-zero integer"
    return int_in(-100, 100)(value)


def _residual_exists(p: Mapping[str, Any]) -> str | None:
    s, x, size = p.get("residual"), p.get("x"), p.get("size")
    if s is not None and (x is not None and len(s) != len(x) or size is not None and len(s) != size):
        return "residual must have as many entries as x"
    return None


_LN_QUESTIONS = {"mean": _ln_mean, "sigma": _ln_sigma, "output": _ln_output, "invariance": _ln_invariance}


@generator(
    "layer_norm",
    "LayerNorm of one token's vector: mean, sigma (biased), output; scale/shift invariance.",
    asks=_LN_QUESTIONS,
    params=(
        Param("x", "the token's vector, pinned (default: drawn, distinct integers)", None,
            numbers(3, 8, spread=True)),
        Param("size", "vector length, 3..8 (default: drawn from 3..4)", None, int_in(3, 8)),
        Param("low", "smallest drawn value", 0, int_in(-99, 99)),
        Param("high", "largest drawn value", 9, int_in(-99, 99)),
        Param("scale", "invariance: the input is multiplied by this (default: drawn from ±2..5)", None,
            _scale_check),
        Param("shift", "invariance: then this is added (default: drawn from -5..5, not 0)", None, int_in(-100, 100)),
        Param("residual", "Add & Norm: a sub-layer output s added to x before LayerNorm (level 3 draws it; "
                          "default: none)", None, numbers(3, 8, lo=-100, hi=100, integers=True)),
    ),
    example={"x": [1, 2, 3, 4], "ask": "output"},
    constraints=(range_holds("size", "x", 5), pinned_length("x", "size"), _residual_exists),
)
def layer_norm(rng: np.random.Generator, *, x, size, low, high, scale, shift, residual, ask) -> Variant:
    """LayerNorm of one token's vector (params: x, size, low, high, scale, shift, ask).

    The notes' example pins x=[1, 2, 3, 4] (or [2, 4, 6, 8]): both give [-1.3416, -0.4472, 0.4472, 1.3416].
    """
    import numpy as np
    from studytool import engine

    if x is None:
        for _ in range(TRIES):   # with a residual: x + s must vary too
            x = distinct_ints(rng, len(residual) if residual else size or int(rng.integers(3, 5)), low, high)
            if residual is None or len(set(np.add(x, residual).tolist())) > 1:
                break
    xs = np.asarray(x, dtype=float) + (np.asarray(residual, dtype=float) if residual is not None else 0.0)
    steps, m, sigma = _ln_steps(xs)
    head = f"一个 token 的 {len(xs)} 维表示 x = {vec(xs)}，{_LN_RULE}。"
    if residual is not None:   # level 3: Post-LN's Add & Norm, the residual add before the statistics
        head = (f"Post-LN 的 Add & Norm：一个 token 的表示 x = {vec(x)}，子层输出 s = {vec(residual)}，"
                f"先残差相加，再{_LN_RULE}做 LayerNorm。")
        steps = [f"残差相加 h = x + s = {vec(xs)}（下面对 h 求统计量）", *steps]
    token = _Token(xs, tuple(steps), m, sigma, math.sqrt(float(np.sum((xs - m) ** 2)) / (len(xs) - 1)),
                   engine.layer_norm(xs, eps=0.0), head,
                   {"x": plain(list(x)), "ask": ask} | ({"residual": plain(list(residual))} if residual else {}),
                   scale, shift, residual)
    return _LN_QUESTIONS[ask](token, rng)



def _draw_batch(rng: np.random.Generator, batch, features, low: int, high: int) -> np.ndarray:
    """A small batch, by default 3 or 4 samples of 3 features: with 2 samples every BN output is ±1, whatever
    the numbers. Every column (BN) and every row (LN) varies."""
    import numpy as np

    features = features or 3
    batch = batch or 3   # level 1: at most 3 x 3, the notes' size (level 2 draws 4 x 3 and 3 x 4)
    while True:   # distinct values down every column by construction; redraw only for a constant row
        x = np.stack([rng.permutation(high - low + 1)[:batch] for _ in range(features)], axis=1) + low
        if all(len(set(row)) > 1 for row in x.tolist()):
            return x


def _axis_options(rng: np.random.Generator) -> tuple[tuple[str, ...], int, int]:
    """Shuffled options; returns (options, right index, the swapped-directions index)."""
    return mirrored_options(rng, "BN：{a}；LN：{b}", ("按列跨样本统计", "按行跨特征统计", "按全表一起统计"))


@dataclass(frozen=True)
class _Batch:
    """What every BatchNorm sub-question starts from: the batch, its column statistics, BN and LN of it."""

    xs: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    std_unbiased: np.ndarray    # the N-1 mistake
    bn: np.ndarray
    ln: np.ndarray
    bn_steps: tuple[str, ...]
    ln_steps: tuple[str, ...]   # empty unless the solution shows LN
    head: str
    params: dict[str, Any]
    part: int | None            # output: the sample (row) asked, ln_output: the feature (column); None: all
    gamma: Any = None           # level 3: the learnable scale and shift (γ, β) per feature, applied last
    beta: Any = None

    @property
    def bn_rule(self) -> str:
        return _BN_RULE if self.gamma is None else _BN_RULE.replace("不计可学习的 γ、β，", "")

    @property
    def ln_rule(self) -> str:
        return _LN_RULE[2:] if self.gamma is None else _LN_RULE[2:].replace("不计可学习的 γ、β，", "")

    def affine(self, normed: np.ndarray, columns: Any) -> tuple[np.ndarray, tuple[str, ...], str]:
        """γ·x̂ + β on the normalised entries of `columns` (every feature, or the one asked); the step and the
        words saying so, or nothing when there is no γ, β."""
        import numpy as np

        if self.gamma is None:
            return normed, (), ""
        g, b = np.asarray(self.gamma, dtype=float)[columns], np.asarray(self.beta, dtype=float)[columns]
        out = g * normed + b
        return (out, (f"再乘 γ 加 β：γ·x̂ + β = {vec(np.ravel(out))}",),
                "归一化后再做 γ·x̂ + β，")


def _bn_mean(b: _Batch, rng: np.random.Generator) -> Variant:
    hints = (Hint(floats(b.xs.mean(axis=1)), "这是每个样本（行）的均值，那是 LN 的方向；BN 按维（列）跨样本求均值。"),)
    return Variant(b.head + f"{_BN_RULE}，每一维的均值是多少？（{b.xs.shape[1]} 个数）", "vector", floats(b.mean),
                   FOUR_DECIMALS, b.bn_steps, hints, params=b.params)


def _bn_std(b: _Batch, rng: np.random.Generator) -> Variant:
    hints = (Hint(floats(b.std_unbiased), "你用了无偏标准差（除以 N−1）；BN 的批统计量除以 N。"),
             Hint(floats(b.std**2), "这是方差；标准差还要开平方。"))
    return Variant(b.head + f"{_BN_RULE}，每一维的标准差是多少？（{b.xs.shape[1]} 个数）", "vector", floats(b.std),
                   FOUR_DECIMALS, b.bn_steps, hints, params=b.params)


def _bn_output(b: _Batch, rng: np.random.Generator) -> Variant:
    unbiased = (b.xs - b.mean) / b.std_unbiased
    if b.part is not None:   # one sample's row: every column's statistics, few numbers to type
        i = b.part
        every = slice(None)
        out, step, words = b.affine(b.bn[i], every)
        hints = (Hint(floats(b.affine(b.ln[i], every)[0]),
                      "这是这一行自己的 LayerNorm；BN 按列跨样本归一，要用每一列的均值和标准差。"),
                 Hint(floats(b.affine(unbiased[i], every)[0]), "你用了无偏标准差（除以 N−1）；BN 除以 N。"))
        if b.gamma is not None:
            hints += (Hint(floats(b.bn[i]), "还差最后一步：乘 γ、加 β。"),)
        return Variant(b.head + f"{b.bn_rule}，{words}第 {i + 1} 个样本（第 {i + 1} 行）的输出是什么？"
                       f"（{b.xs.shape[1]} 个数）", "vector", floats(out), FOUR_DECIMALS,
                       (*b.bn_steps[:2], f"第 {i + 1} 行：(x − 列均值) / 列标准差 = {vec(b.bn[i])}", *step), hints,
                       params={**b.params, "part": i})
    hints = (Hint(rows(b.ln), "这是 LayerNorm（按行）的结果；BN 按列跨样本归一。"),
             Hint(rows(unbiased), "你用了无偏标准差（除以 N−1）；BN 除以 N。"))
    return Variant(b.head + f"{_BN_RULE}，输出矩阵是什么？", "matrix", rows(b.bn), FOUR_DECIMALS, b.bn_steps,
                   hints, params=b.params)


def _bn_ln_output(b: _Batch, rng: np.random.Generator) -> Variant:
    import numpy as np

    compare = (f"对照：同一个矩阵按列做 BN 得 {mat(b.bn)}，" +
               ("在这个矩阵上恰好与 LN 相同（巧合，统计方向仍不同）" if np.allclose(b.bn, b.ln)
                else "与 LN 的结果不同：统计的方向不同"))
    if b.part is not None:   # one feature's column: every row's statistics, few numbers to type
        j = b.part
        out, step, words = b.affine(b.ln[:, j], j)
        hints = (Hint(floats(b.affine(b.bn[:, j], j)[0]),
                      "这是 BatchNorm（按列）的结果；LN 在每个样本（行）内归一，每行用自己的统计量。"),)
        if b.gamma is not None:
            hints += (Hint(floats(b.ln[:, j]), "还差最后一步：乘 γ、加 β。"),)
        return Variant(b.head + f"对每个样本做 LayerNorm，按 {b.ln_rule}，{words}输出矩阵的第 {j + 1} 列（第 {j + 1} 维）"
                       f"是什么？（{b.xs.shape[0]} 个数）", "vector", floats(out), FOUR_DECIMALS,
                       (*b.ln_steps, f"取第 {j + 1} 列：{vec(b.ln[:, j])}", *step, compare), hints,
                       params={**b.params, "part": j})
    hints = (Hint(rows(b.bn), "这是 BatchNorm（按列）的结果；LN 在每个样本（行）内归一。"),)
    return Variant(b.head + f"对每个样本做 LayerNorm，{_LN_RULE}，输出矩阵是什么？", "matrix", rows(b.ln),
                   FOUR_DECIMALS, (*b.ln_steps, compare), hints, params=b.params)


def _bn_axis(b: _Batch, rng: np.random.Generator) -> Variant:
    options, right, swapped = _axis_options(rng)
    hints = (Hint(frozenset({swapped}), "方向反了：BN 是“竖着切”（同一维跨样本），LN 是“横着切”（同一样本跨特征）。"),)
    steps = (*b.bn_steps, *b.ln_steps, "BN 的统计量跨样本、按维；LN 的统计量在单个样本内、跨特征。")
    if b.gamma is not None:   # level 3: the same question with learnable γ, β, which change neither direction
        steps += ("γ、β 是每一维一个的可学习参数，在归一化之后才作用，不改变统计的方向。",)
    return Variant(b.head + "对这个矩阵分别做 BatchNorm 和 LayerNorm，各自在哪个方向上求均值和标准差？", "choice",
                   frozenset({right}), None, steps, hints, options, params=b.params)


_BN_QUESTIONS = {"mean": _bn_mean, "std": _bn_std, "output": _bn_output, "ln_output": _bn_ln_output, "axis": _bn_axis}


def _part_exists(p: Mapping[str, Any]) -> str | None:
    """A pinned part is a row (output) or column (ln_output) the batch has."""
    if p.get("part") is None:
        return None
    if p.get("ask") not in ("output", "ln_output"):
        return "part is asked only for ask=output (a row) or ask=ln_output (a column)"
    rows_, cols = (len(p["x"]), len(p["x"][0])) if p.get("x") else (p.get("batch") or 3, p.get("features") or 3)
    bound = rows_ if p["ask"] == "output" else cols
    return None if p["part"] < bound else f"part ({p['part']}) must be below {bound}"


def _affine_fits(p: Mapping[str, Any]) -> str | None:
    """γ and β: one per feature, β only with γ."""
    gamma, beta = p.get("gamma"), p.get("beta")
    features = len(p["x"][0]) if p.get("x") else p.get("features") or 3
    if beta is not None and gamma is None:
        return "beta needs gamma"
    if any(v is not None and len(v) != features for v in (gamma, beta)):
        return f"gamma and beta need one value per feature ({features})"
    return None


def _small_batch(p: Mapping[str, Any]) -> str | None:
    if p.get("batch") and p.get("features") and p["batch"] * p["features"] > 12:
        return "batch * features must be at most 12 (hand-computable)"
    return None


@generator(
    "batch_norm",
    "BatchNorm of a small batch: per-dimension mean/std, normalized matrix; LN on the same matrix; axes.",
    asks=_BN_QUESTIONS,
    params=(
        Param("x", "the batch, rows = samples, pinned (default: drawn)", None,
            matrix(4, 4, min_rows=2, min_cols=2, spread=True)),
        Param("batch", "number of samples (default: drawn from 3..4)", None, int_in(2, 4)),
        Param("features", "number of features per sample (default: 3)", None, int_in(2, 4)),
        Param("low", "smallest drawn value", 0, int_in(-99, 99)),
        Param("high", "largest drawn value", 15, int_in(-99, 99)),
        Param("part", "output: the sample (row) asked, ln_output: the feature (column), from 0 (default: drawn when "
                      "the output has more than 4 numbers, so at most 4 are typed by hand)", None, int_in(0, 3)),
        Param("gamma", "the learnable scale γ per feature, applied after normalising, with β (level 3 draws both; "
                       "default: none)", None, numbers(2, 4, lo=-10, hi=10)),
        Param("beta", "the learnable shift β per feature (with gamma)", None, numbers(2, 4, lo=-10, hi=10)),
    ),
    example={"x": [[1, 10], [3, 14]], "ask": "output"},
    constraints=(_small_batch, range_holds("batch", "x", 4), _part_exists, _affine_fits),
    small={"axis": "a choice among 6 fixed statements: the answer is one of 6 letters"},
)
def batch_norm(rng: np.random.Generator, *, x, batch, features, low, high, part, gamma, beta, ask) -> Variant:
    """BatchNorm of a small batch, and LN on the same matrix (params: x, batch, features, low, high, ask).

    The notes' example pins x=[[1, 10], [3, 14]]: means [2, 12], stds [1, 2], output [[-1, -1], [1, 1]].
    """
    import numpy as np
    from studytool import engine

    xs = np.asarray(x if x is not None else _draw_batch(rng, batch, features, low, high), dtype=float)
    n, d = xs.shape
    mean = xs.mean(axis=0)
    std = np.sqrt(((xs - mean) ** 2).mean(axis=0))
    bn, ln = engine.batch_norm(xs, eps=0.0), engine.layer_norm(xs, eps=0.0)
    bn_steps = [f"每一维（列）的均值 = {vec(mean)}"]   # as far as the question goes: the draw stays cheap
    if ask != "mean":
        bn_steps.append(f"每一维的标准差（除以样本数 {n}）= {vec(std)}")
    if ask not in ("mean", "std"):
        bn_steps.append(f"BN 输出 = (x − 列均值) / 列标准差 = {mat(bn)}")
    ln_steps = [   # written out only where the solution shows LN (ln_output, axis)
        f"每个样本（行）的均值 = {vec(xs.mean(axis=1))}",
        f"每个样本的标准差（除以特征数 {d}）= {vec(np.sqrt(((xs - xs.mean(axis=1, keepdims=True)) ** 2).mean(axis=1)))}",
        f"LN 输出 = (x − 行均值) / 行标准差 = {mat(ln)}",
    ] if ask in ("ln_output", "axis") else []
    params = {"x": plain(xs.astype(int) if np.all(xs == np.round(xs)) else xs), "ask": ask}
    head = f"一个 batch 有 {n} 个样本、每个 {d} 维（每行一个样本）：x = {mat(xs)}。"
    std_unbiased = np.sqrt(((xs - mean) ** 2).sum(axis=0) / (n - 1))
    if part is None and ask in ("output", "ln_output") and n * d > 4:
        part = int(rng.integers(n if ask == "output" else d))
    if gamma is not None:
        beta = beta if beta is not None else [0] * d
        params |= {"gamma": plain(list(gamma)), "beta": plain(list(beta))}
        if ask in ("output", "ln_output", "axis"):   # the statistics never involve them
            head += f"可学习参数 γ = {vec(gamma)}、β = {vec(beta)}（每一维一个）。"
    return _BN_QUESTIONS[ask](_Batch(xs, mean, std, std_unbiased, bn, ln, tuple(bn_steps), tuple(ln_steps), head,
                                     params, part, gamma, beta), rng)

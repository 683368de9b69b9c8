"""The modern decoder by hand: RMSNorm of one vector, and RoPE on a 2-d query/key pair (the engine's functions)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from studytool.problems.checks import int_in, numbers
from studytool.problems.drawing import FOUR_DECIMALS, distinct_ints, floats, num, pick, plain, vec
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

RMS_ASKS = ("rms", "output")
ROPE_ASKS = ("rotate", "score")


@generator(
    "rms_norm",
    "RMSNorm of one vector (gamma = 1, eps ignored): the root mean square, or the output.",
    asks=RMS_ASKS,
    params=(
        Param("x", "the token's vector, pinned (default: drawn, distinct non-zero integers)", None,
            numbers(2, 8, lo=-100, hi=100, spread=True)),
        Param("gain", "ask=output: the learnable gain γ, one per entry, applied after dividing (level 3; default: "
                      "γ = 1)", None, numbers(2, 8, lo=-10, hi=10)),
    ),
    example={"x": [1, 2, 3, 4], "ask": "output"},
    constraints=(lambda p: None if p.get("gain") is None or p.get("x") is not None and len(p["gain"]) == len(p["x"])
                 else "gain needs a pinned x of the same length",),
)
def rms_norm(rng: np.random.Generator, *, x, gain, ask) -> Variant:
    """RMSNorm of one token's vector, γ = 1, ε ignored (params: x, ask).

    x = [1, 2, 3, 4]: rms = √7.5 = 2.738613, output [0.3651, 0.7303, 1.0954, 1.4606].
    """
    import numpy as np
    from studytool import engine

    if x is None:
        x = [v if v else 5 for v in distinct_ints(rng, int(rng.integers(3, 5)), -4, 6)]   # no zero vector, 3-4 numbers
    xs = np.asarray(x, dtype=float)
    params = {"x": plain(list(x)), "ask": ask}
    mean_square = float(np.mean(xs**2))
    rms = math.sqrt(mean_square)
    out = engine.rms_norm(xs, eps=0.0)
    head = f"一个 token 的表示 x = {vec(xs)}，做 RMSNorm（γ = 1，忽略 ε）。"
    steps = [f"平方：{vec(xs ** 2)}，均值 mean(x²) = {num(mean_square)}（不减均值）",
             f"均方根 rms = √{num(mean_square)} = {rms:.6f}"]
    if ask == "rms":
        hints = (Hint(mean_square, "还要开平方：rms = √mean(x²)。"),
                 Hint(float(np.std(xs)), "那是标准差（先减了均值）；RMSNorm 不减均值。"))
        return Variant(head + "它用来相除的均方根 rms 是多少？", "scalar", rms, FOUR_DECIMALS, tuple(steps),
                       tuple(h for h in hints if not math.isclose(h.answer, rms)), params=params)
    steps.append(f"输出 x / rms = {vec(out)}")
    wrong = {"那是 LayerNorm：RMSNorm 不减均值，只除以均方根。": engine.layer_norm(xs, eps=0.0),
             "除的是均方根 √mean(x²)，不是 mean(x²)。": xs / mean_square}
    if gain is not None:   # level 3: then the learnable gain, one more step
        g = np.asarray(gain, dtype=float)
        wrong = {message: g * wrong_out for message, wrong_out in wrong.items()} | {"还差最后一步：逐个乘 γ。": out}
        out = g * out
        steps.append(f"再逐个乘 γ = {vec(g)}：{vec(out)}")
        head = head.replace("（γ = 1，忽略 ε）", f"（可学习的 γ = {vec(g)}，忽略 ε）")
        params["gain"] = plain(list(gain))
    hints = tuple(Hint(floats(wrong_out), message) for message, wrong_out in wrong.items())
    return Variant(head + "RMSNorm 的输出向量是什么？", "vector", floats(out), FOUR_DECIMALS, tuple(steps), hints,
                   params=params)


def _rotate(v: np.ndarray, position: int) -> np.ndarray:
    """The engine's RoPE on one 2-d vector: a rotation by `position` radians (θ = 1 for d = 2)."""
    from studytool import engine

    return engine.rotary_embedding(v.reshape(1, 2), [position])[0]


@generator(
    "rope_score",
    "RoPE on a 2-d pair (theta = 1 rad per position): q rotated to position m, or the score (R_m q).(R_n k).",
    asks=ROPE_ASKS,
    params=(
        Param("q", "the query pair, pinned (default: drawn integers in -3..3)", None, numbers(2, 2, lo=-10, hi=10)),
        Param("k", "the key pair, pinned (default: drawn integers in -3..3)", None, numbers(2, 2, lo=-10, hi=10)),
        Param("m", "the query's position (default: drawn from 1..5)", None, int_in(0, 100)),
        Param("n", "the key's position (default: drawn from 0..6, != m)", None, int_in(0, 100)),
        Param("scaled", "ask=score: the scaled score (R_m q)·(R_n k) / √d_k, as attention uses it (level 3; "
                        "default: the raw score)", False, lambda v: None if isinstance(v, bool) else
              f"expected true or false, got {v!r}"),
    ),
    example={"q": [1, 0], "k": [0, 1], "m": 2, "n": 3, "ask": "score"},
)
def rope_score(rng: np.random.Generator, *, q, k, m, n, scaled, ask) -> Variant:
    """RoPE with d = 2 (one pair, θ = 1 rad per position) (params: q, k, m, n, ask).

    ask=rotate: q rotated to position m; ask=score: (R_m q)·(R_n k), which equals q·(R_(n−m) k).
    """
    import numpy as np

    qs = np.asarray(q if q is not None else distinct_ints(rng, 2, -3, 3), dtype=float)
    ks = np.asarray(k if k is not None else distinct_ints(rng, 2, -3, 3), dtype=float)
    m = m if m is not None else int(rng.integers(1, 6))
    n = n if n is not None else int(pick(rng, [p for p in range(0, 7) if p != m]))
    params = {"q": plain(qs.astype(int).tolist() if np.all(qs == np.round(qs)) else qs.tolist()),
              "k": plain(ks.astype(int).tolist() if np.all(ks == np.round(ks)) else ks.tolist()),
              "m": m, "n": n, "ask": ask}
    q_m, k_n = _rotate(qs, m), _rotate(ks, n)
    head = (f"RoPE，d = 2（一对维度，每个位置转 θ = 1 弧度）：位置 p 上的向量 (a, b) 变成 "
            f"(a·cos p − b·sin p, a·sin p + b·cos p)。q = {vec(qs)} 在位置 m = {m}，k = {vec(ks)} 在位置 n = {n}。")
    rotate_step = (f"R_m q：cos {m} = {math.cos(m):.6f}，sin {m} = {math.sin(m):.6f}，"
                   f"得 ({num(qs[0])}·cos {m} − {num(qs[1])}·sin {m}, {num(qs[0])}·sin {m} + {num(qs[1])}·cos {m}) = {vec(q_m)}")
    if ask == "rotate":
        hints = (Hint(floats(_rotate(qs, -m)), "转反了：位置 m 逆时针转 m 弧度，sin 项在第一维是减号。"),
                 Hint(floats(qs), "RoPE 要按位置旋转：位置 m 转 m·θ。"))
        return Variant(head + "旋转后的 q（位置 m 上的 R_m q）是什么？", "vector", floats(q_m), FOUR_DECIMALS,
                       (rotate_step,), hints, params=params)
    score = float(q_m @ k_n)
    relative = float(qs @ _rotate(ks, n - m))
    steps = (rotate_step, f"R_n k = {vec(k_n)}",
             f"分数 (R_m q)·(R_n k) = {score:.6f}",
             f"对照：q·(R_(n−m) k) = q·R_{n - m} k = {relative:.6f}，相同——只取决于相对距离 n − m = {n - m}")
    hints = (Hint(float(qs @ ks), "别忘了旋转：q、k 都要先按各自的位置转。"),
             Hint(float(qs @ _rotate(ks, n + m)), "相对角度是 n − m，不是 n + m。"))
    question = "旋转后的注意力分数 (R_m q)·(R_n k) 是多少？"
    if scaled:   # level 3: then the scaling attention applies, one more step
        params["scaled"] = True
        hints = (*(Hint(h.answer / math.sqrt(2), h.message) for h in hints),
                 Hint(score, "还要除以 √d_k = √2：注意力用的是缩放后的分数。"),
                 Hint(score / 2, "除以的是 √d_k = √2，不是 d_k。"))
        score /= math.sqrt(2)
        steps += (f"注意力用缩放后的分数：除以 √d_k = √2 = {math.sqrt(2):.6f}，得 {score:.6f}",)
        question = "注意力里用的缩放分数 (R_m q)·(R_n k) / √d_k（d_k = 2）是多少？"
    return Variant(head + question, "scalar", score, FOUR_DECIMALS, steps,
                   tuple(h for h in hints if not math.isclose(h.answer, score, abs_tol=1e-4)), params=params)

"""Softmax and scaled dot-product attention on numbers small enough to do by hand."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import (divisible, index_below, int_in, is_number, matrix, numbers, pinned_length,
                                      range_holds, sizes)
from studytool.problems.drawing import (FOUR_DECIMALS, TRIES, distinct_ints, floats, mat, num, pick, plain, rows,
                                        saturated, vec)
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np


def _softmax_steps(x: np.ndarray) -> list[str]:
    import numpy as np

    shifted = x - x.max()
    e = np.exp(shifted)
    return [
        f"减去最大值 {num(x.max())}（数值稳定，不改变结果）：{vec(shifted)}",
        f"取指数：{vec(e)}",
        f"求和：{num(e.sum())}",
        f"逐个除以和：{vec(e / e.sum())}",
    ]


_NOT_LINEAR = "softmax 先取指数 e^x 再归一化，不是直接 x / Σx。"


def _softmax_vector(xs: np.ndarray, p: np.ndarray, linear: np.ndarray | None, params: dict) -> Variant:
    import numpy as np

    hints = (Hint(floats(np.exp(xs)), "还差一步：指数要除以它们的和，概率之和为 1。"),)
    if linear is not None:   # x / Σx: undefined when the scores sum to 0
        hints += (Hint(floats(linear), _NOT_LINEAR),)
    return Variant(f"分数（logits）x = {vec(xs)}。softmax(x) 是什么？（{len(xs)} 个概率）", "vector", floats(p),
                   FOUR_DECIMALS, tuple(_softmax_steps(xs)), hints, params=params)


def _softmax_max(xs: np.ndarray, p: np.ndarray, linear: np.ndarray | None, params: dict) -> Variant:
    import numpy as np

    top = int(np.argmax(xs))
    hints = (Hint(1 / len(xs), "只有分数全相等时才是均匀分布。"),)
    if linear is not None:
        hints += (Hint(float(linear[top]), _NOT_LINEAR),)
    return Variant(f"分数（logits）x = {vec(xs)}。softmax 后，最大分数 {num(xs[top])} 对应的概率是多少？", "scalar",
                   float(p[top]), FOUR_DECIMALS, tuple(_softmax_steps(xs)), hints, params=params)


_SOFTMAX_QUESTIONS = {"vector": _softmax_vector, "max": _softmax_max}


def _masked_softmax(xs: np.ndarray, t: float, masked: int, ask: str, params: dict) -> Variant:
    """Level 3: softmax(x / T) with one position masked (−∞): two more steps than softmax(x), each shown."""
    import numpy as np
    from studytool import engine

    scaled = xs / t
    blocked = np.where(np.arange(len(xs)) == masked, -np.inf, scaled)
    p = engine.softmax(blocked)
    kept = np.delete(scaled, masked)
    steps = (f"先除以温度 T = {t:g}：x / T = {vec(scaled)}",
             f"掩码：第 {masked + 1} 个位置的分数设为 −∞，softmax 后恰为 0；其余 {vec(kept)} 照常计算",
             *_softmax_steps(kept), f"放回被掩码的位置（0）：{vec(p)}")
    wrong = {"别忘了掩码：被遮住的位置在 softmax 前设为 −∞，概率为 0。": engine.softmax(scaled),
             "别忘了先除以温度 T。": engine.softmax(np.where(np.arange(len(xs)) == masked, -np.inf, xs)),
             "是除以 T，不是乘以 T。": engine.softmax(np.where(np.arange(len(xs)) == masked, -np.inf, xs * t))}
    head = (f"分数（logits）x = {vec(xs)}，温度 T = {t:g}，第 {masked + 1} 个位置被掩码遮住（分数设为 −∞）。")
    if ask == "vector":
        hints = tuple(Hint(floats(q), message) for message, q in wrong.items())
        return Variant(head + f"softmax(x / T) 是什么？（{len(xs)} 个概率）", "vector", floats(p), FOUR_DECIMALS, steps,
                       hints, params=params)
    top = int(np.argmax(blocked))
    hints = tuple(Hint(float(q[top]), message) for message, q in wrong.items())
    return Variant(head + f"softmax 后，未被遮住的分数里最大的 {num(xs[top])} 对应的概率是多少？", "scalar",
                   float(p[top]), FOUR_DECIMALS, steps, hints, params=params)


@generator(
    "softmax",
    "Softmax of a short score vector, or the largest probability.",
    asks=_SOFTMAX_QUESTIONS,
    params=(
        Param("x", "the scores, pinned (default: drawn, distinct integers)", None, numbers(2, 6, lo=-20, hi=20)),
        Param("size", "number of scores (default: drawn from 3..4)", None, int_in(2, 6)),
        Param("low", "smallest drawn score", -2, int_in(-20, 20)),
        Param("high", "largest drawn score", 3, int_in(-20, 20)),
        Param("temperature", "divide the scores by T first, and mask one position (level 3; default: none)", None,
              lambda v: None if is_number(v) and 0.1 <= v <= 10 else f"expected a number in 0.1..10, got {v!r}"),
        Param("masked", "with temperature: the position (from 0) masked to −∞ (default: drawn, never the largest)",
              None, int_in(0, 5)),
    ),
    example={"x": [1, 2, 3], "ask": "vector"},
    constraints=(range_holds("size", "x", 4), pinned_length("x", "size"), index_below("masked", "size"),
                 lambda p: None if p.get("masked") is None or p.get("temperature") is not None
                 and (p.get("size") is not None or p.get("x") is not None and p["masked"] < len(p["x"]))
                 else "masked needs a temperature and the scores' number (size or x) pinned, and must be below it"),
)
def softmax(rng: np.random.Generator, *, x, size, low, high, temperature, masked, ask) -> Variant:
    """Softmax of a short score vector (params: x, size, low, high, ask).

    The notes give no numeric softmax example; `.example()` pins x=[1, 2, 3].
    """
    import numpy as np
    from studytool import engine

    drawn, t = x is None, temperature or 1.0
    for _ in range(TRIES):   # a drawn x: never a probability that shows as 0.0000 or 1.0000
        xs = np.asarray(distinct_ints(rng, size or int(rng.integers(3, 5)), low, high) if drawn else x, dtype=float)
        if masked is None and temperature is not None:   # never the largest, and one whose loss is seen (>= 2%)
            weight = engine.softmax(xs / t)
            blocked = int(pick(rng, [i for i in range(len(xs)) if i != int(np.argmax(xs)) and weight[i] >= 0.02]
                               or [int(np.argsort(xs)[-2])]))
        else:
            blocked = masked
        kept = xs if blocked is None else np.delete(xs, blocked)
        if not drawn or not saturated(engine.softmax(kept / t)):
            break
    x = xs.astype(int).tolist() if drawn else x
    if temperature is not None:
        return _masked_softmax(xs, t, blocked if blocked is not None else 0,
                               ask, {"x": plain(list(x)), "temperature": t, "masked": blocked, "ask": ask})
    total = float(xs.sum())
    return _SOFTMAX_QUESTIONS[ask](xs, engine.softmax(xs), xs / total if total else None,
                                   {"x": plain(list(x)), "ask": ask})


def _tiny_inputs(rng: np.random.Generator, len_q, len_k, d_k) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q (Lq, d_k), K (Lk, d_k), V (Lk, 2) of small integers, every score row with distinct entries."""
    d_k = d_k or pick(rng, (2, 4))
    len_q = len_q or 1
    len_k = len_k or (2 if d_k > 2 else int(rng.integers(2, 4)))
    for _ in range(TRIES):
        q = rng.integers(-2, 3, size=(len_q, d_k))
        k = rng.integers(-2, 3, size=(len_k, d_k))
        v = rng.integers(0, 5, size=(len_k, 2))
        scores = q @ k.T  # (Lq, d_k) @ (d_k, Lk) -> (Lq, Lk)
        # distinct V rows: with equal rows the output is that row whatever Q and K are
        if all(len(set(row)) == len_k for row in scores) and len({tuple(r) for r in v}) == len_k:
            break
    return q, k, v


def _shaped(a: np.ndarray) -> tuple[str, tuple]:
    """One query: a vector answer; several: a matrix."""
    return ("vector", floats(a[0])) if a.shape[0] == 1 else ("matrix", rows(a))


# head widths: perfect squares (√d_k exact) and others, so d_k and √d_k take a dozen values
_HEAD_WIDTHS = (16, 20, 24, 28, 32, 36, 40, 48, 56, 60, 64, 72, 80, 96, 100, 112, 120, 128, 144, 160, 192, 196,
                225, 256)


def _draw_heads(rng: np.random.Generator, d_model, n_heads) -> tuple[int, int]:
    if d_model is not None and n_heads is not None:
        return d_model, n_heads
    if n_heads is not None:
        return n_heads * pick(rng, _HEAD_WIDTHS), n_heads
    if d_model is not None:
        return d_model, pick(rng, [h for h in (2, 4, 6, 8, 12, 16) if d_model % h == 0] or [1])
    n_heads = pick(rng, (2, 4, 6, 8, 12, 16))
    return n_heads * pick(rng, _HEAD_WIDTHS), n_heads


def _attention_inputs(p: Mapping[str, Any]) -> str | None:
    q, k, v = p.get("q"), p.get("k"), p.get("v")
    if q is not None and k is not None and len(q[0]) != len(k[0]):
        return "q and k must have the same number of columns (d_k)"
    if k is not None and v is not None and len(k) != len(v):
        return "k and v must have the same number of rows (one value per key)"
    widths = {len(m[0]) for m in (q, k) if m is not None}
    if p.get("d_k") is not None and widths and widths != {p["d_k"]}:
        return f"d_k ({p['d_k']}) must be the number of columns of q and k"
    return None


@dataclass(frozen=True)
class _Tiny:
    """Tiny Q, K, V and every intermediate of scaled dot-product attention on them."""

    vs: np.ndarray
    width: int              # d_k of the tiny matrices
    raw: np.ndarray         # QKᵀ
    scores: np.ndarray      # QKᵀ/√d_k
    weights: np.ndarray
    out: np.ndarray
    unscaled: np.ndarray    # softmax(QKᵀ): the forgotten √d_k
    head: str
    steps: tuple[str, ...]
    params: dict[str, Any]
    unmasked: Any = None    # level 3: (out, weights) without the padding mask, the new step's mistake


def _tiny(rng: np.random.Generator, q, k, v, len_q, len_k, d_k, ask: str, padded: bool = False) -> _Tiny:
    import numpy as np
    from studytool import engine

    if q is None or k is None or v is None:
        pinned = [m for m in (k, v) if m is not None]
        dq, dk, dv = _tiny_inputs(rng, len_q or (len(q) if q is not None else None),
                                  len_k or (len(pinned[0]) if pinned else None),
                                  d_k or next((len(m[0]) for m in (q, k) if m is not None), None))
        q, k, v = (dq if q is None else q), (dk if k is None else k), (dv if v is None else v)
    qs, ks, vs = (np.asarray(a, dtype=float) for a in (q, k, v))
    width = qs.shape[1]
    # level 3: the last key is padding, blocked for every query (True = blocked), one more step
    mask = np.arange(len(ks)) == len(ks) - 1 if padded else None
    out, weights = engine.scaled_dot_product_attention(qs, ks, vs, mask)  # (Lq, d_v), (Lq, Lk)
    raw = qs @ ks.T                                                  # (Lq, d_k) @ (d_k, Lk) -> (Lq, Lk)
    scores = raw / math.sqrt(width)
    steps = (
        f"QKᵀ = {mat(raw)}",
        f"除以 √d_k = √{width} = {num(math.sqrt(width))}：{mat(scores)}",
        *((f"填充掩码：第 {len(ks)} 个 key 是补齐，它那一列分数设为 −∞（softmax 后为 0）",) if padded else ()),
        f"按行 softmax：{mat(weights)}",
        f"加权求和 softmax(·)V = {mat(out)}",
    )
    blocked = np.where(mask, -np.inf, raw) if padded else raw
    head = f"Q = {mat(qs)}，K = {mat(ks)}，V = {mat(vs)}（每行一个 token，d_k = {width}）。"
    if padded:
        head += f"第 {len(ks)} 个 key 是补齐的 padding，被掩码遮住（对每个 query）。"
    params = {"q": plain(q), "k": plain(k), "v": plain(v), "ask": ask} | ({"padded": True} if padded else {})
    unmasked = engine.scaled_dot_product_attention(qs, ks, vs) if padded else None   # the new step's mistake
    return _Tiny(vs, width, raw, scores, weights, out, engine.softmax(blocked), head, steps, params, unmasked)


def _scores(t: _Tiny) -> Variant:
    kind, answer = _shaped(t.scores)
    hints = (Hint(_shaped(t.raw)[1], "别忘了除以 √d_k。"),
             Hint(_shaped(t.raw / t.width)[1], "除以的是 √d_k，不是 d_k。"))
    return Variant(t.head + "缩放后的注意力分数 QKᵀ/√d_k 是什么？", kind, answer, FOUR_DECIMALS, t.steps[:2],
                   hints, params=t.params)


_FORGOT_MASK = "别忘了填充掩码：补齐的 key 分数设为 −∞，权重为 0。"


def _weights(t: _Tiny) -> Variant:
    kind, answer = _shaped(t.weights)
    hints = (Hint(_shaped(t.unscaled)[1], "softmax 之前要先除以 √d_k。"),)
    if t.unmasked is not None:
        hints += (Hint(_shaped(t.unmasked[1])[1], _FORGOT_MASK),)
    return Variant(t.head + "注意力权重 softmax(QKᵀ/√d_k)（对 key 方向做 softmax）是什么？", kind, answer,
                   FOUR_DECIMALS, t.steps[:-1], hints, params=t.params)


def _output(t: _Tiny) -> Variant:
    kind, answer = _shaped(t.out)
    hints = (Hint(_shaped(t.unscaled @ t.vs)[1], "softmax 之前要先除以 √d_k。"),)
    if t.unmasked is not None:
        hints += (Hint(_shaped(t.unmasked[0])[1], _FORGOT_MASK),)
    return Variant(t.head + "注意力输出 softmax(QKᵀ/√d_k)·V 是什么？", kind, answer, FOUR_DECIMALS, t.steps, hints,
                   params=t.params)


@dataclass(frozen=True)
class _Heads:
    d_model: int
    n_heads: int
    params: dict[str, Any]

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    @property
    def head(self) -> str:
        return f"多头注意力：d_model = {self.d_model}，头数 h = {self.n_heads}。"

    @property
    def steps(self) -> tuple[str, ...]:
        return (f"每个头的维度 d_k = d_model / h = {self.d_model} / {self.n_heads} = {self.d_k}",)


def _heads(rng: np.random.Generator, d_model, n_heads, ask: str) -> _Heads:
    d_model, n_heads = _draw_heads(rng, d_model, n_heads)
    return _Heads(d_model, n_heads, {"d_model": d_model, "n_heads": n_heads, "ask": ask})


def _d_k(h: _Heads) -> Variant:
    hints = (Hint(h.d_model, "d_model 是所有头拼起来的宽度；每个头只有 d_model / h。"),
             Hint(h.d_model * h.n_heads, "多头是把 d_model 拆成 h 份，不是每头各有 d_model 维。"))
    return Variant(h.head + "每个头的 d_k 是多少？", "scalar", h.d_k, None, h.steps, hints, params=h.params)


def _scale(h: _Heads) -> Variant:
    root = math.sqrt(h.d_k)
    exact = root.is_integer()
    steps = (*h.steps, f"缩放：分数除以 √d_k = √{h.d_k} = {num(root)}")
    hints = (Hint(math.sqrt(h.d_model), "用的是每个头的 d_k，不是 d_model。"),
             Hint(h.d_k, "除以的是 √d_k，还要开平方。"),
             Hint(1 / root, "问的是除以多少（√d_k），不是乘的系数 1/√d_k。"),
             Hint(h.n_heads, "h 是头数；除以的是 √d_k = √(d_model / h)。"))   # d_k = h² would let copying h pass
    return Variant(h.head + "计算每个头的注意力分数时，QKᵀ 要除以多少？", "scalar", int(root) if exact else root,
                   None if exact else FOUR_DECIMALS, steps, hints, params=h.params)


_TINY_QUESTIONS = {"scores": _scores, "weights": _weights, "output": _output}
_HEAD_QUESTIONS = {"d_k": _d_k, "scale": _scale}
ATTENTION_ASKS = (*_TINY_QUESTIONS, *_HEAD_QUESTIONS)


@generator(
    "attention_scores",
    "Tiny scaled dot-product attention: QK^T/sqrt(d_k), the weights, the output; d_k = d_model/h; the scale.",
    asks=ATTENTION_ASKS,
    params=(
        Param("q", "queries, pinned (default: drawn integers in -2..2)", None, matrix(2, 4, lo=-10, hi=10)),
        Param("k", "keys, pinned (default: drawn integers in -2..2)", None, matrix(4, 4, min_rows=2, lo=-10, hi=10)),
        Param("v", "values, pinned (default: drawn integers in 0..4)", None, matrix(4, 4, min_rows=2, lo=-10, hi=10)),
        Param("len_q", "number of queries (default: 1)", None, int_in(1, 2)),
        Param("len_k", "number of keys (default: drawn from 2..3)", None, int_in(2, 4)),
        Param("d_k", "query/key width of the tiny matrices (default: drawn from 2, 4)", None, int_in(1, 4)),
        *sizes("d_model", "n_heads"),
        Param("padded", "weights, output: the last key is padding, masked for every query (level 3; default: "
                        "none)", False, lambda v: None if isinstance(v, bool) else f"expected true or false, got {v!r}"),
    ),
    example={"d_model": 512, "n_heads": 8, "ask": "d_k"},
    constraints=(divisible, _attention_inputs, pinned_length("q", "len_q"), pinned_length("k", "len_k"),
        pinned_length("v", "len_k")),
)
def attention_scores(rng: np.random.Generator, *, q, k, v, len_q, len_k, d_k, d_model, n_heads, padded,
                     ask) -> Variant:
    """Scaled dot-product attention (params: q, k, v, len_q, len_k, d_k, d_model, n_heads, ask).

    The notes' example (encoder self-test) pins d_model=512, n_heads=8, ask=d_k: d_k = 512/8 = 64.
    """
    if ask in _HEAD_QUESTIONS:
        return _HEAD_QUESTIONS[ask](_heads(rng, d_model, n_heads, ask))
    return _TINY_QUESTIONS[ask](_tiny(rng, q, k, v, len_q, len_k, d_k, ask, padded and ask != "scores"))

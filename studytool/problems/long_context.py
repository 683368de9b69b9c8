"""Positions beyond the training length: ALiBi's linear biases, and RoPE's NTK-aware rescaling of the base."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from studytool.problems.checks import int_in, is_number
from studytool.problems.drawing import FOUR_DECIMALS, TRIES, num, on_screen, pick
from studytool.problems.llm_memory import _wrong
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

ASKS = ("alibi", "alibi_weight", "ntk_base", "ntk_angle")


def alibi_slope(head: int, n_heads: int) -> float:
    """ALiBi (arXiv 2108.12409) §3: head k of h gets 2^(-8k/h), a geometric sequence from 2^(-8/h) down to 2^-8."""
    return 2.0 ** (-8 * head / n_heads)


def ntk_base(base: float, scale: float, head_dim: int) -> float:
    """NTK-aware scaling: b' = b · s^(d / (d − 2)), which slows the lowest frequency exactly s times."""
    return base * scale ** (head_dim / (head_dim - 2))


@generator(
    "position_scaling",
    "ALiBi's bias -m·(i − j) with m = 2^(-8k/h), and the weight it leaves two equally scored keys; NTK-aware RoPE "
    "scaling's base b·s^(d/(d−2)) and the slowest pair's angle under it.",
    asks=ASKS,
    params=(
        Param("n_heads", "heads h for ALiBi (default: drawn from 4, 8, 16)", None, int_in(1, 1024)),
        Param("head", "the head k, 1..h (default: drawn)", None, int_in(1, 1024)),
        Param("distance", "i − j for ALiBi (default: drawn from 1..12)", None, int_in(0, 1_000_000)),
        Param("farther", "the farther key's distance for alibi_weight (default: drawn)", None, int_in(1, 1_000_000)),
        Param("head_dim", "RoPE head dimension d (default: drawn)", None,
              lambda v: None if isinstance(v, int) and 4 <= v <= 4096 and v % 2 == 0 else f"expected an even 4..4096"),
        Param("base", "RoPE base b (default: drawn from 10000, 500000)", None,
              lambda v: None if is_number(v) and v > 1 else f"expected a number above 1, got {v!r}"),
        Param("scale", "context extension factor s (default: drawn from 2..16)", None,
              lambda v: None if is_number(v) and 1 < v <= 1000 else f"expected a number in 1..1000, got {v!r}"),
        Param("position", "token position m for ntk_angle (default: drawn)", None, int_in(0, 100_000_000)),
    ),
    example={"head_dim": 128, "base": 10000, "scale": 4, "ask": "ntk_base"},
    constraints=(lambda p: "head must lie in 1..n_heads" if p.get("head") and p.get("n_heads") and
                 p["head"] > p["n_heads"] else None,),
)
def position_scaling(rng: np.random.Generator, *, n_heads, head, distance, farther, head_dim, base, scale, position,
                     ask) -> Variant:
    """ALiBi biases and NTK-aware RoPE bases (params: n_heads, head, distance, farther, head_dim, base, scale,
    position, ask). Head 1 of 8: slope 1/2; d = 128, b = 10000, s = 4: b' = 40,890.3 (to 4 decimals below)."""
    for _ in range(TRIES):
        variant = _alibi(rng, n_heads, head, distance, farther, ask) if ask.startswith("alibi") else \
            _ntk(rng, head_dim, base, scale, position, ask)
        if not on_screen(variant.prompt, variant.answer):
            break
    return variant


def _alibi(rng, n_heads, head, distance, farther, ask) -> Variant:
    from studytool import engine

    h = n_heads if n_heads is not None else pick(rng, tuple(n for n in (4, 8, 16) if head is None or n >= head) or (head,))
    k = head if head is not None else int(rng.integers(1, h + 1))
    near = distance if distance is not None else int(rng.integers(1, 13))
    m = alibi_slope(k, h)
    params = {"n_heads": h, "head": k, "distance": near, "ask": ask}
    head_text = (f"ALiBi：不用位置嵌入，在 query i 对 key j（j ≤ i）的分数上加 −m·(i − j)；共 h = {h} 个头，"
                 f"第 k 个头（k = 1…h）的斜率 m = 2^(−8k/h)。")
    steps = (f"第 {k} 个头：m = 2^(−8 × {k} / {h}) = 2^({num(-8 * k / h)}) = {num(m)}",)
    if ask == "alibi":
        answer = -m * near
        steps += (f"偏置 = −{num(m)} × {near} = {num(answer)}",)
        hints = (Hint(m * near, "是减去：越远的 key 分数越低。"), Hint(-m, f"还要乘距离 i − j = {near}。"),
                 Hint(-alibi_slope(k - 1, h) * near if k > 1 else -1.0, "k 从 1 数起：第 1 个头的斜率是 2^(−8/h)。"))
        return Variant(head_text + f"第 {k} 个头里，query 对相距 i − j = {near} 的 key 加的偏置是多少？", "scalar", answer,
                       FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)
    far = farther if farther is not None else near + int(rng.integers(1, 9))
    params["farther"] = far
    weights = engine.softmax([-m * near, -m * far])
    answer = float(weights[0])
    steps += (f"两个 key 原分数相同，加偏置后相差 {num(m)} × ({far} − {near}) = {num(m * (far - near))}",
              f"softmax：近的那个 = 1 / (1 + e^(−{num(m * (far - near))})) = {num(answer)}")
    hints = (Hint(float(weights[1]), "那是远的那个 key 的权重：近的 key 偏置更小（扣得少），权重更大。"),
             Hint(0.5, "原分数相同，但 ALiBi 的偏置不同：要加上 −m·距离 再做 softmax。"))
    return Variant(head_text + f"第 {k} 个头里，某个 query 只看两个 key，它们的原始分数 q·k/√d_k 相同，距离分别是 {near} 和 "
                   f"{far}。softmax 之后，近的那个 key 的注意力权重是多少？", "scalar", answer, FOUR_DECIMALS, steps,
                   _wrong(hints, answer), params=params)


def _ntk(rng, head_dim, base, scale, position, ask) -> Variant:
    d = head_dim if head_dim is not None else pick(rng, (32, 64, 80, 96, 128, 256))
    # the angle asked at base 500000 is a few thousandths of a radian: too near zero for a 4-decimal answer
    b = base if base is not None else pick(rng, (10000, 500000) if ask == "ntk_base" else (10000,))
    s = scale if scale is not None else pick(rng, (2, 3, 4, 8, 16))
    grown = ntk_base(b, s, d)
    params = {"head_dim": d, "base": b, "scale": s, "ask": ask}
    head = (f"RoPE：head_dim d = {d}，底数 b = {b:g}，第 i 对维度（i = 0…d/2 − 1）的频率 θ_i = b^(−2i/d)。要把上下文扩展 "
            f"s = {s:g} 倍，用 NTK-aware 缩放：不改位置，把底数换成 b' = b · s^(d/(d−2))。")
    steps = (f"d/(d − 2) = {d}/{d - 2} = {num(d / (d - 2))}",
             f"b' = {b:g} × {s:g}^{num(d / (d - 2))} = {b:g} × {num(s ** (d / (d - 2)))} = {num(grown)}")
    if ask == "ntk_base":
        hints = (Hint(b * s, "指数是 d/(d − 2)，不是 1：b' = b · s^(d/(d−2))。"),
                 Hint(b * s ** ((d - 2) / d), "指数是 d/(d − 2)，不是 (d − 2)/d。"))
        return Variant(head + "新的底数 b' 是多少？", "scalar", grown, FOUR_DECIMALS, steps, _wrong(hints, grown),
                       params=params)
    m = position if position is not None else int(rng.integers(2, 40)) * 2048
    params["position"] = m
    slowest = d // 2 - 1
    angle = m * grown ** (-2 * slowest / d)
    steps += (f"最低频的一对 i = d/2 − 1 = {slowest}：θ = b'^(−2i/d) = {num(grown)}^(−{2 * slowest}/{d}) = "
              f"{grown ** (-2 * slowest / d):.10g}",
              f"位置 m = {m} 的角度 = m · θ = {num(angle)} 弧度（恰好是原底数下的 1/s：{num(m * b ** (-2 * slowest / d))} / "
              f"{s:g}）")
    hints = (Hint(m * b ** (-2 * slowest / d), "那是原底数下的角度：要用新的底数 b'。"),
             Hint(m * grown ** (-2 * (slowest - 1) / d), f"最低频的一对是 i = d/2 − 1 = {slowest}。"))
    return Variant(head + f"换底数后，位置 m = {m} 的 token 在最低频的那一对维度（i = d/2 − 1）上旋转的角度是多少弧度？",
                   "scalar", angle, FOUR_DECIMALS, steps, _wrong(hints, angle), params=params)

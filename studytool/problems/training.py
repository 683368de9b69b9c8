"""The paper's learning-rate schedule: linear warm-up, then decay with the inverse square root of the step."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from fractions import Fraction

from studytool.problems.checks import int_in, one_of
from studytool.problems.drawing import FOUR_DECIMALS, num, pick
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

ASKS = ("lr", "peak", "fraction")
SHARES = ("1/2", "1/3", "1/4", "1/5", "2/3")   # with warmups in thousands, warmup / share² is a whole step

_RULE = "lr(s) = d_model^(−0.5) · min(s^(−0.5), s · warmup^(−1.5))"
# The unit's example: far below any lr the drawn sizes reach (the smallest is about 0.5 × 10⁻⁴), so
# copying it is never right; the paper's own peak, 6.9877, was the answer of every d_model·warmup = 2,048,000.
_EXAMPLE = "0.0123"


def noam_lr(step: int, d_model: int, warmup: int) -> float:
    """Attention Is All You Need, eq. (3): rises linearly for `warmup` steps, then falls as 1/sqrt(step)."""
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


@generator(
    "warmup_lr",
    "The paper's schedule lr = d^-0.5 * min(s^-0.5, s * warmup^-1.5): lr at step s, or the peak, x 1e-4.",
    asks=ASKS,
    params=(
        Param("d_model", "model width (default: drawn from 256..1024)", None, int_in(1, 100_000)),
        Param("warmup", "warm-up steps (default: drawn from 1000..8000)", None, int_in(1, 1_000_000)),
        Param("step", "training step s for ask=lr (default: drawn around warmup)", None, int_in(1, 10_000_000)),
        Param("share", "ask=fraction: the share of the peak lr falls to after the peak (default: drawn)", None,
              one_of(*SHARES), SHARES),
    ),
    example={"d_model": 512, "warmup": 4000, "ask": "peak"},
)
def warmup_lr(rng: np.random.Generator, *, d_model, warmup, step, share, ask) -> Variant:
    """The learning rate at step s, in units of 1e-4 (params: d_model, warmup, step, ask).

    The paper's base model: d_model=512, warmup=4000; its peak, at s = warmup, is 6.9877e-4.
    """
    d = d_model if d_model is not None else pick(rng, (256, 384, 512, 640, 768, 1024))
    w = warmup if warmup is not None else pick(rng, (1000, 2000, 3000, 4000, 6000, 8000))
    params = {"d_model": d, "warmup": w, "ask": ask}
    head = f"原论文的学习率调度：{_RULE}，d_model = {d}，warmup = {w}。"
    if ask in ("peak", "fraction"):
        peak = noam_lr(w, d, w)
        steps = (f"s < warmup 时 s · warmup^(−1.5) 更小，lr 线性上升；s > warmup 时 s^(−0.5) 更小，lr 按 1/√s 下降",
                 f"两者在 s = warmup = {w} 相等，此处最大：lr = {d}^(−0.5) · {w}^(−0.5)",
                 f"= {d ** -0.5:.6f} × {w ** -0.5:.6f} = {peak:.6e} = {num(peak * 1e4)} × 10⁻⁴")
        if ask == "fraction":
            return _fraction(rng, head, steps, w, share, params)
        hints = (Hint(d**-0.5 * 1e4, "还要乘 warmup^(−0.5)：峰值在 s = warmup 处。"),
                 Hint(w**-0.5 * 1e4, "别漏了 d_model^(−0.5) 这个因子。"))
        return Variant(head + f"学习率的峰值是多少？写成 × 10⁻⁴ 的系数（例如 {_EXAMPLE} 表示 {_EXAMPLE} × 10⁻⁴）。", "scalar",
                       peak * 1e4, FOUR_DECIMALS, steps, hints, params=params)
    s = step if step is not None else max(1, int(pick(rng, (w // 4, w // 2, 2 * w, 4 * w, 10 * w))))   # step 0 has no lr
    params["step"] = s
    lr = noam_lr(s, d, w)
    rising = s * w**-1.5 <= s**-0.5
    branch = (f"s = {s} ≤ warmup，取 s · warmup^(−1.5) = {s * w ** -1.5:.6e}（warmup 阶段，线性上升）" if rising else
              f"s = {s} > warmup，取 s^(−0.5) = {s ** -0.5:.6e}（按 1/√s 衰减）")
    steps = (f"d_model^(−0.5) = {d}^(−0.5) = {d ** -0.5:.6f}", branch,
             f"lr = {d ** -0.5:.6f} × {min(s ** -0.5, s * w ** -1.5):.6e} = {lr:.6e} = {num(lr * 1e4)} × 10⁻⁴")
    other = d**-0.5 * max(s**-0.5, s * w**-1.5)
    hints = (Hint(other * 1e4, "min 取小的那一项：warmup 阶段用 s · warmup^(−1.5)，之后用 s^(−0.5)。"),
             Hint(min(s**-0.5, s * w**-1.5) * 1e4, "别漏了 d_model^(−0.5) 这个因子。"))
    return Variant(head + f"第 s = {s} 步的学习率是多少？写成 × 10⁻⁴ 的系数（例如 {_EXAMPLE} 表示 {_EXAMPLE} × 10⁻⁴）。",
                   "scalar", lr * 1e4, FOUR_DECIMALS, steps, tuple(h for h in hints if not math.isclose(h.answer, lr * 1e4)),
                   params=params)


def _fraction(rng: np.random.Generator, head: str, peak_steps: tuple[str, ...], w: int, share: str | None,
              params: dict) -> Variant:
    """Level 3: the peak, then the step where lr has fallen to a share f of it: past the peak lr ∝ s^(−0.5), so
    (s / warmup)^(−0.5) = f and s = warmup / f² (one more step; d_model cancels)."""
    share = share if share is not None else str(pick(rng, SHARES))
    f = Fraction(share)
    s = int(w / f**2)
    steps = (*peak_steps, f"越过峰值后 lr(s) = 峰值 × (s / warmup)^(−0.5)；令 (s / {w})^(−0.5) = {share}："
                          f"s = warmup / f² = {w} / ({share})² = {s}（d_model 约掉了）")
    hints = tuple(Hint(n, message) for n, message in (
        (int(w * f), "那是 warmup 阶段升到峰值这一比例的步数；问的是越过峰值之后，按 1/√s 衰减。"),
        (int(round(w / f)), "衰减按 s^(−0.5)：降到 f 倍要 s / warmup = 1 / f²，要平方。"),
        (int(round(w / f**2 - w)), "问的是第几步（从训练开始数），不是峰值之后又过了多少步。")) if n != s)
    return Variant(head + f"学习率在 s = warmup 处达到峰值，之后按 1/√s 衰减。越过峰值后，第几步的学习率降到峰值的 {share}？",
                   "scalar", s, None, steps, hints, params={**params, "share": share, "ask": "fraction"})

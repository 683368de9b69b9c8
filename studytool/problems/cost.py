"""Attention cost: multiply-adds of QK^T (grows with L^2) against a projection (grows with L)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import NOTES_LAYER, Param, divisible, int_in, sizes
from studytool.problems.drawing import big, pick
from studytool.problems.registry import generator
from studytool.problems.shapes import axes_of, concrete
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np


def _matmul_macs(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """Multiply-adds of a @ b: one per output entry per contracted index."""
    return math.prod(a[:-1]) * b[-1] * a[-1]


@dataclass(frozen=True)
class _Attention:
    """The sizes of one self-attention layer every sub-question counts with."""

    b: int
    length: int
    d: int
    h: int
    params: dict[str, Any]
    d_ff: int | None = None   # the block's FFN width; None: 4 d_model

    @property
    def d_k(self) -> int:
        return self.d // self.h

    @property
    def head(self) -> str:
        return (f"自注意力，batch B = {self.b}，序列长 L = {self.length}，d_model = {self.d}，h = {self.h}"
                f"（d_k = {self.d_k}）。一次乘加算 1 次。")

    @property
    def head_without_length(self) -> str:   # the crossovers ask for L
        return f"自注意力，batch B = {self.b}，d_model = {self.d}，h = {self.h}（d_k = {self.d_k}）。一次乘加算 1 次。"

    def macs(self) -> tuple[int, int]:
        """QKᵀ over all heads and one projection, from the shapes of the engine's own data flow."""
        sizes = {"batch": self.b, "src_len": self.length, "n_heads": self.h, "d_k": self.d_k, "d_model": self.d}
        q = concrete(axes_of("encoder", "self-attention: transpose heads Q"), sizes)   # (B, h, L, d_k)
        k_t = q[:-2] + (q[-1], q[-2])                                                  # (B, h, d_k, L)
        x = concrete(axes_of("input", "source + positional encoding"), sizes)         # (B, L, d)
        return _matmul_macs(q, k_t), _matmul_macs(x, (self.d, self.d))              # B·h·L·L·d_k, B·L·d·d


def _scores(a: _Attention) -> Variant:
    scores, _ = a.macs()
    b, h, length, d_k = a.b, a.h, a.length, a.d_k
    step = (f"QKᵀ：每个头 (L × d_k) @ (d_k × L)，每个输出元素 d_k 次乘加；共 B·h·L²·d_k = "
            f"{b} × {h} × {length}² × {d_k} = {big(scores)}")
    hints = (Hint(scores // h, "这是一个头的量；h 个头都要算（B·h·L²·d_k = B·L²·d）。"),
             Hint(b * h * length * d_k, "分数矩阵是 L × L 的：乘加数随 L² 增长，不是 L。"),
             Hint(scores * h, "每个头的点积只有 d_k 维，不是 d_model。"),
             Hint(scores // b, "别忘了 batch 里的 B 个样本。"))
    return Variant(a.head + "计算所有头的 QKᵀ（注意力分数）一共要多少次乘加？", "scalar", scores, None,
                   (step,), hints, params=a.params)


def _projection(a: _Attention) -> Variant:
    _, projection = a.macs()
    step = f"一个投影 XW_Q：(B·L × d) @ (d × d)，共 B·L·d² = {a.b} × {a.length} × {a.d}² = {big(projection)}"
    hints = (Hint(4 * projection, "问的是一个投影（如 W_Q），不是 Q、K、V、O 四个。"),
             Hint(projection // a.h, "投影作用在整个 d_model 上，不是一个头的 d_k。"),
             Hint(projection // a.b, "别忘了 batch 里的 B 个样本。"))
    return Variant(a.head + "一个 d_model × d_model 的投影（如 XW_Q）要多少次乘加？", "scalar", projection, None,
                   (step,), hints, params=a.params)


def _attention(a: _Attention) -> Variant:
    """Level 3 of the scores: QKᵀ, then the weights times V, the other L² product (one more step)."""
    scores, _ = a.macs()
    b, h, length, d_k = a.b, a.h, a.length, a.d_k
    steps = (f"QKᵀ：每个头 (L × d_k) @ (d_k × L)，共 B·h·L²·d_k = {b} × {h} × {length}² × {d_k} = {big(scores)}",
             f"权重乘 V：每个头 (L × L) @ (L × d_k)，同样 B·h·L²·d_k = {big(scores)}",
             f"两项合计 2·B·h·L²·d_k = 2·B·L²·d = {big(2 * scores)}")
    hints = (Hint(scores, "那只是 QKᵀ；权重还要乘 V，同样是 B·h·L²·d_k。"),
             Hint(2 * scores // h, "这是一个头的量；h 个头都要算。"),
             Hint(2 * scores // b, "别忘了 batch 里的 B 个样本。"))
    return Variant(a.head + "注意力里随 L² 增长的两次矩阵乘法（所有头的 QKᵀ 与权重乘 V）一共要多少次乘加？", "scalar",
                   2 * scores, None, steps, hints, params={**a.params, "ask": "attention"})


def _projections(a: _Attention) -> Variant:
    """Level 3 of one projection: all four, Q, K, V and O (one more step)."""
    _, projection = a.macs()
    steps = (f"一个投影 XW_Q：(B·L × d) @ (d × d)，共 B·L·d² = {a.b} × {a.length} × {a.d}² = {big(projection)}",
             f"Q、K、V、O 四个投影：4·B·L·d² = {big(4 * projection)}")
    hints = (Hint(projection, "那是一个投影；Q、K、V 和输出投影 W_O 共四个。"),
             Hint(3 * projection, "别忘了输出投影 W_O：共四个。"),
             Hint(4 * projection // a.b, "别忘了 batch 里的 B 个样本。"))
    return Variant(a.head + "Q、K、V 三个投影和输出投影 W_O（都是 d_model × d_model）一共要多少次乘加？", "scalar",
                   4 * projection, None, steps, hints, params={**a.params, "ask": "projections"})


def _crossover(a: _Attention) -> Variant:
    # L is the unknown here, so the steps stay in symbols: a drawn or pinned seq_len is not in the question.
    d = a.d
    crossover = d  # B·L²·d = B·L·d²  =>  L = d
    steps = ("所有头的 QKᵀ：每个头 (L × d_k) @ (d_k × L) 要 L²·d_k 次乘加，h 个头、B 个样本共 B·h·L²·d_k = B·L²·d"
             "（h·d_k = d）",
             "一个投影 XW_Q：(B·L × d) @ (d × d)，共 B·L·d²",
             f"两者相等：B·L²·d = B·L·d² ⇒ L = d = {crossover}。这只是和一个投影比；整个 block 还有其余投影和 FFN，"
             "要到更长的 L，注意力的 L² 部分才占主导")
    hints = (Hint(a.d_k, "所有头加起来是 h·d_k = d_model：比较的是 B·L²·d 和 B·L·d²。"),
             Hint(4 * d, "问的是和一个投影比，不是四个投影之和。"))
    # d_model itself is the answer, so the question gives only the heads: d = h·d_k is the first step
    head = f"自注意力，batch B = {a.b}，h = {a.h} 个头，每个头 d_k = {a.d_k}（d_model = h·d_k）。一次乘加算 1 次。"
    return Variant(head + "序列长 L 等于多少时，所有头的 QKᵀ 乘加数恰好等于一个 d_model × d_model 投影（如 XW_Q）的乘加数？",
                   "scalar", crossover, None, steps, hints, params=a.params)


def _block_crossover(a: _Attention) -> Variant:
    """A whole encoder block: 2·B·L²·d (QKᵀ and AV) against 4·B·L·d² (projections) + 2·B·L·d·d_ff (FFN): L = 2d + d_ff.
    Level 3 states another d_ff than 4d, so 6d is worked out, not remembered (one more step)."""
    d, d_ff = a.d, a.d_ff or 4 * a.d
    crossover = 2 * d + d_ff   # 2·L²·d = 4·L·d² + 2·L·d·d_ff
    ffn = ("FFN（d_ff = 4d）：B·L·d·d_ff + B·L·d_ff·d = 2·B·L·d·d_ff = 8·B·L·d²；线性部分合计 12·B·L·d²" if d_ff == 4 * d
           else f"FFN：B·L·d·d_ff + B·L·d_ff·d = 2·B·L·d·d_ff；线性部分合计 4·B·L·d² + 2·B·L·d·d_ff")
    steps = ("随 L 线性增长：Q、K、V、O 四个投影共 4·B·L·d²", ffn,
             "随 L² 增长：QKᵀ 要 B·L²·d，权重乘 V 也要 B·L²·d，共 2·B·L²·d",
             *(() if d_ff == 4 * d else (f"两边除以 2·B·L·d：L = 2d + d_ff = 2 × {d} + {d_ff}",)),
             f"2·B·L²·d = 4·B·L·d² + 2·B·L·d·d_ff ⇒ L = 2d + d_ff = {crossover}；更短的序列里，投影和 FFN 才是大头")
    hints = (Hint(d, "那是只和一个投影（如 XW_Q）比较；整个 block 有四个投影加 FFN。"),
             Hint(2 * d, "漏了 FFN：两层共 2·B·L·d·d_ff。"),
             Hint(d_ff, "漏了 Q、K、V、O 四个投影的 4·B·L·d²。"),
             Hint(4 * d + 2 * d_ff, "注意力里随 L² 增长的是两项：QKᵀ 和权重乘 V，各 B·L²·d。"),
             *(() if d_ff == 4 * d else (Hint(6 * d, "6d 只在 d_ff = 4d 时成立；这里 d_ff 不同，用 L = 2d + d_ff。"),)))
    rule = "d_ff = 4·d_model" if d_ff == 4 * d else f"d_ff = {d_ff}"
    return Variant(a.head_without_length + f"一个 encoder block 有 Q、K、V、O 四个投影和 {rule} 的 FFN（只数矩阵乘法）。"
                   "序列长 L 等于多少时，注意力里随 L² 增长的两项（QKᵀ 与权重乘 V）的乘加数恰好等于"
                   "随 L 线性增长的部分（四个投影 + FFN）？", "scalar", crossover, None, steps, hints, params=a.params)


_QUESTIONS = {"scores": _scores, "projection": _projection, "crossover": _crossover, "block": _block_crossover,
              "attention": _attention, "projections": _projections}


@generator(
    "attention_cost",
    "Multiply-adds of QK^T (B*h*L^2*d_k) vs one projection (B*L*d^2); where L^2 overtakes one projection "
        "(L = d) and a whole block (L = 6d).",
    asks=_QUESTIONS,
    params=(*sizes(*NOTES_LAYER),   # the layer's four sizes
            Param("d_ff_multiple", "ask=block: d_ff as a multiple of d_model (default: 4, the paper's; level 3 "
                                   "draws another)", None, int_in(1, 16))),
    example={**NOTES_LAYER, "ask": "scores"},
    constraints=(divisible,),
)
def attention_cost(rng: np.random.Generator, *, batch, seq_len, d_model, n_heads, d_ff_multiple, ask) -> Variant:
    """Multiply-adds of attention (params: batch, seq_len, d_model, n_heads, ask).

    The notes' example pins batch=32, seq_len=10, d_model=512, n_heads=8, ask=scores: 32·8·10²·64 = 1,638,400.
    """
    heads = [c for c in (2, 4, 8) if d_model is None or d_model % c == 0] or [1]
    h = n_heads if n_heads is not None else pick(rng, heads)
    # small drawn sizes: a count to multiply out by hand, not a 12-digit calculator exercise
    d = d_model if d_model is not None else h * pick(rng, (4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16))
    b = batch if batch is not None else int(rng.integers(1, 5))
    length = seq_len if seq_len is not None else pick(rng, (4, 8, 10, 16, 20))
    params = {"batch": b, "seq_len": length, "d_model": d, "n_heads": h, "ask": ask}
    if d_ff_multiple is not None:
        params["d_ff_multiple"] = d_ff_multiple
    return _QUESTIONS[ask](_Attention(b, length, d, h, params, d_ff_multiple and d_ff_multiple * d))

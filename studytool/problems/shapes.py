"""Shape questions: multi-head attention, cross-attention and the FFN, read off the engine's trace.

The engine's `trace_shapes` is run once, on stand-in sizes that are distinct primes
(B=2, L_src=3, L_tgt=5, h=7, d_k=11, d_ff=13, V=17, so d_model=77). Every axis of
every recorded shape is then known by name, and a drawn question maps the names to
its own sizes: the shapes come from arrays that flowed through the engine, and a
draw costs the same for d_model=8 and d_model=8192.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from studytool.i18n import _
from studytool.problems.checks import NOTES_LAYER, divisible, int_in, sizes
from studytool.problems.drawing import TRIES, mirrored_options, pick, shape
from studytool.problems.vocabulary import step_name
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

_STAND_IN = {"batch": 2, "src_len": 3, "tgt_len": 5, "n_heads": 7, "d_k": 11, "d_ff": 13, "vocab": 17}
_STAND_IN["d_model"] = _STAND_IN["n_heads"] * _STAND_IN["d_k"]

MHA_ASKS = ("projection", "split", "transpose", "scores", "weighted_sum", "concat", "output")
CROSS_ASKS = ("query", "key", "scores", "output", "add_norm", "source")
FFN_ASKS = ("expand", "contract", "d_ff", "w1", "w2")

Sizes = Mapping[str, int]


@cache
def symbolic_trace() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(part, step name, axis names) for every step of the engine's data flow."""
    from studytool import engine

    s = _STAND_IN
    steps = engine.trace_shapes(s["batch"], s["src_len"], s["d_model"], s["n_heads"], s["vocab"],
                                d_ff=s["d_ff"], tgt_len=s["tgt_len"])
    axis = {size: name for name, size in s.items()}
    return tuple((step.part, step.name, tuple(axis[n] for n in step.shape)) for step in steps)


def steps_of(part: str, prefix: str) -> list[tuple[str, tuple[str, ...]]]:
    """The (name, axes) steps of one part whose name starts with `prefix` (e.g. "cross-attention:")."""
    return [(name, axes) for p, name, axes in symbolic_trace() if p == part and name.startswith(prefix)]


def axes_of(part: str, name: str) -> tuple[str, ...]:
    for p, n, axes in symbolic_trace():
        if p == part and n == name:
            return axes
    raise LookupError(f"the engine's trace has no step {name!r} in {part}")


def concrete(axes: tuple[str, ...], sizes: Sizes) -> tuple[int, ...]:
    return tuple(int(sizes[a]) for a in axes)


_LABELS = {"batch": "B", "src_len": "L", "tgt_len": "L_tgt", "n_heads": "h", "d_k": "d_k", "d_model": "d_model",
           "d_ff": "d_ff", "vocab": "V"}


def _solution(part: str, prefix: str, sizes: Sizes, upto: str, labels: Mapping[str, str] = _LABELS) -> tuple[str, ...]:
    """The engine's steps of one sub-layer with their shapes, up to and including `upto`."""
    lines = []
    for name, axes in steps_of(part, prefix):
        lines.append(step_name(name.removeprefix(prefix).strip()) + _(": ") + f"{shape(concrete(axes, sizes))}"
                     f"  ({', '.join(labels[a] for a in axes)})")
        if name == upto:
            break
    return tuple(lines)


def _distinct_sizes(rng: np.random.Generator, batch, seq_len, d_model, n_heads) -> dict[str, int]:
    """B, L, h, d_k (and d_model) all different, so a swapped axis is caught; d_model divisible by h."""
    heads = [c for c in (2, 4, 6, 8, 12, 16) if d_model is None or d_model % c == 0] or [1]
    for _ in range(TRIES):
        h = n_heads if n_heads is not None else pick(rng, heads)
        d = d_model if d_model is not None else h * pick(rng, (16, 32, 48, 64, 96, 128))
        b = batch if batch is not None else int(rng.integers(2, 65))
        length = seq_len if seq_len is not None else int(rng.integers(3, 129))
        sizes = {"batch": b, "src_len": length, "n_heads": h, "d_k": d // h, "d_model": d}
        if len(set(sizes.values())) == len(sizes):
            break
    return sizes


_MHA_STEP = {
    "projection": ("self-attention: Q projection", "输入 X 经过 W_Q 线性投影得到的 Q"),
    "split": ("self-attention: split heads Q", "把 Q 的最后一维拆成 h 个头（只 reshape，还没转置）后"),
    "transpose": ("self-attention: transpose heads Q", "再把头的维度换到序列维之前（转置）后的 Q"),
    "scores": ("self-attention: attention scores Q·K^T/sqrt(d_k)", "所有头的注意力分数 QKᵀ/√d_k"),
    "weighted_sum": ("self-attention: weighted sum of V", "注意力权重乘以 V 之后（拼接之前）"),
    "concat": ("self-attention: concat heads", "转置回来并把各头拼接之后"),
    "output": ("self-attention: output projection W_O", "经过输出投影 W_O 之后"),
}


def _mha_hints(ask: str, s: Sizes) -> tuple[Hint, ...]:
    b, length, h, d_k, d = s["batch"], s["src_len"], s["n_heads"], s["d_k"], s["d_model"]
    per_head = "别忘了头的维度：h 个头是并行一起算的，形状里有 h。"
    table = {
        "projection": ((b, length, d_k), "投影之后宽度仍是 d_model；拆成 h 个 d_k 是下一步。"),
        "split": ((b, length, h, d), "每个头只有 d_k = d_model / h 维，不是 d_model。"),
        "transpose": ((b, length, h, d_k), "这是拆头后、转置前的形状；转置把 h 放到 L 前面。"),
        "scores": ((b, length, length), per_head),
        "weighted_sum": ((b, h, length, d), "每个头输出 d_k = d_model / h 维，不是 d_model。"),
        "concat": ((b, length, d_k), "拼接把 h 个 d_k 接回 d_model = h·d_k。"),
        "output": ((b, length, d_k), "W_O 是 d_model × d_model，输出宽度是 d_model。"),
    }
    hints = [Hint(*table[ask])]
    if ask == "scores":
        hints += [Hint((b, h, length, d_k), "那是 Q（或 K）转置后的形状；分数是 token 对 token，最后两维都是 L。"),
                  Hint((b, h, d_k, d_k), "QKᵀ 收缩掉的是 d_k，留下的是 L × L。")]
    if ask == "weighted_sum":
        hints += [Hint((b, h, length, length), "那是权重（分数）的形状；乘以 V 之后最后一维是 d_k。")]
    return tuple(hints)


@generator(
    "multi_head_shapes",
    "Shapes through multi-head self-attention: projection, split, transpose, scores, weighted sum, concat, output.",
    asks=MHA_ASKS,
    params=sizes(*NOTES_LAYER),   # the layer's four sizes
    example={**NOTES_LAYER, "ask": "scores"},
    constraints=(divisible,),
)
def multi_head_shapes(rng: np.random.Generator, *, batch, seq_len, d_model, n_heads, ask) -> Variant:
    """Shapes through multi-head self-attention (params: batch, seq_len, d_model, n_heads, ask).

    The notes' example pins batch=32, seq_len=10, d_model=512, n_heads=8, ask=scores: [32, 8, 10, 10].
    """
    sizes = _distinct_sizes(rng, batch, seq_len, d_model, n_heads)
    b, length, d, h = sizes["batch"], sizes["src_len"], sizes["d_model"], sizes["n_heads"]
    step, what = _MHA_STEP[ask]
    answer = concrete(axes_of("encoder", step), sizes)
    # sizes by name, no bracket: X's own [B, L, d_model] written first was the answer of projection and concat
    prompt = (f"多头自注意力（batch 在前）：输入 X 的 batch B = {b}，序列长 L = {length}，d_model = {d}，"
              f"头数 h = {h}。{what}，形状是什么？")
    steps = (f"d_k = d_model / h = {d} / {h} = {sizes['d_k']}",) + _solution("encoder", "self-attention:", sizes, step)
    params = {"batch": b, "seq_len": length, "d_model": d, "n_heads": h, "ask": ask}
    return Variant(prompt, "shape", answer, None, steps, _mha_hints(ask, sizes), params=params)


def _cross_sizes(rng: np.random.Generator, batch, src_len, tgt_len, d_model, n_heads) -> dict[str, int]:
    for _ in range(TRIES):
        sizes = _distinct_sizes(rng, batch, src_len, d_model, n_heads)
        sizes["tgt_len"] = tgt_len if tgt_len is not None else int(rng.integers(3, 65))
        if len(set(sizes.values())) == len(sizes):
            break
    return sizes


_CROSS_LABELS = {**_LABELS, "src_len": "L_src"}

_CROSS_STEP = {
    "query": ("cross-attention: Q projection", "cross-attention 里投影后的 Q"),
    "key": ("cross-attention: K projection", "cross-attention 里投影后的 K"),
    "scores": ("cross-attention: attention scores Q·K^T/sqrt(d_k)", "cross-attention 的分数 QKᵀ/√d_k（所有头）"),
    "output": ("cross-attention: output projection W_O", "cross-attention 子层的输出（W_O 之后）"),
    "add_norm": ("cross-attention: add & norm", "cross-attention 子层的输出与残差相加、再做 LayerNorm 之后"),
}


def _source_choice(rng: np.random.Generator) -> tuple[tuple[str, ...], int, int]:
    return mirrored_options(rng, "Q 取自{a}；K、V 取自{b}", ("目标侧解码器", "源句侧编码器", "词嵌入查找表"))


def _src_tgt_distinct(p: Mapping[str, Any]) -> str | None:
    if p.get("src_len") is not None and p["src_len"] == p.get("tgt_len"):
        return "src_len and tgt_len must differ (so swapped axes are caught)"
    return None


@generator(
    "cross_attention_shapes",
    "Cross-attention: Q from the decoder, K/V from the encoder; rectangular scores [B, h, L_tgt, L_src].",
    asks=CROSS_ASKS,
    params=(
        *sizes("batch"),
        Param("src_len", "source (encoder) length (default: drawn from 3..64)", None, int_in(1, 100_000)),
        Param("tgt_len", "target (decoder) length (default: drawn from 3..64, != src_len)", None,
            int_in(1, 100_000)),
        *sizes("d_model", "n_heads"),
    ),
    example={"batch": 32, "src_len": 10, "tgt_len": 4, "d_model": 512, "n_heads": 8, "ask": "source"},
    constraints=(divisible, _src_tgt_distinct),
    small={"source": "a choice among 6 fixed statements: the answer is one of 6 letters"},
)
def cross_attention_shapes(rng: np.random.Generator, *, batch, src_len, tgt_len, d_model, n_heads,
                           ask) -> Variant:
    """Cross-attention shapes and sources (params: batch, src_len, tgt_len, d_model, n_heads, ask).

    The notes' example is the source question (ask=source): Q from the decoder, K and V from the encoder.
    """
    s = _cross_sizes(rng, batch, src_len, tgt_len, d_model, n_heads)
    b, ls, lt, d, h = s["batch"], s["src_len"], s["tgt_len"], s["d_model"], s["n_heads"]
    params = {"batch": b, "src_len": ls, "tgt_len": lt, "d_model": d, "n_heads": h, "ask": ask}
    head = (f"翻译模型（batch 在前）：batch B = {b}，encoder 输出 memory 的源句长 L_src = {ls}，"
            f"decoder 这一层输入的目标长 L_tgt = {lt}，d_model = {d}，h = {h}。")
    if ask == "source":
        options, right, swapped = _source_choice(rng)
        steps = ("Q 用 decoder 当前的表示去“查询”，K、V 是 encoder 对源句的表示：所以分数是 L_tgt × L_src 的矩形。",) \
            + _solution("decoder", "cross-attention:", s, "cross-attention: attention scores Q·K^T/sqrt(d_k)",
                        _CROSS_LABELS)
        hints = (Hint(frozenset({swapped}), "反了：decoder 提问（Q），encoder 的输出被查询（K、V）。"),)
        return Variant(head + "decoder 的 cross-attention（第二个子层）里 Q、K、V 各来自哪里？", "choice", frozenset({right}),
                       None, steps, hints, options, params=params)
    step, what = _CROSS_STEP[ask]
    answer = concrete(axes_of("decoder", step), s)
    table = {
        "query": ((b, ls, d), "Q 来自 decoder，长度是 L_tgt。"),
        "key": ((b, lt, d), "K 来自 encoder 的输出，长度是 L_src。"),
        "scores": ((b, h, lt, lt), "那是 decoder 自注意力的分数；cross-attention 的 key 来自 encoder，最后一维是 L_src。"),
        "output": ((b, ls, d), "输出跟着 query 走：每个目标位置一个向量，长度是 L_tgt。"),
        "add_norm": ((b, ls, d), "残差相加要两边同形状：和 decoder 这一层的输入一样，长度是 L_tgt。"),
    }
    hints = (Hint(*table[ask]),)
    if ask == "scores":
        hints += (Hint((b, h, ls, lt), "行对应 query（decoder，L_tgt），列对应 key（encoder，L_src）。"),
                  Hint((b, lt, ls), "别忘了头的维度 h。"))
    steps = _solution("decoder", "cross-attention:", s, step, _CROSS_LABELS)
    return Variant(head + f"{what}，形状是什么？", "shape", answer, None, steps, hints, params=params)


# 24 widths: W₁'s (d_model, d_ff) takes 20 values in 100 draws
_FFN_WIDTHS = (64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640, 704, 768, 832, 896, 960, 1024, 1152,
               1280, 1408, 1536, 2048)


@generator(
    "ffn_shapes",
    "The position-wise FFN: expand to d_ff = 4 d_model, ReLU, contract back; weight shapes.",
    asks=FFN_ASKS,
    params=(
        *sizes("batch", "seq_len", "d_model"),
        Param("d_ff", "hidden width (default: 4 * d_model)", None, int_in(1, 1_000_000)),
        Param("flat", "the batch and sequence axes flattened into one, [B·L, d_model], before the matmuls, as an "
                      "implementation does (level 3; default: not)", False,
              lambda v: None if isinstance(v, bool) else f"expected true or false, got {v!r}"),
    ),
    example={"batch": 32, "seq_len": 10, "d_model": 512, "d_ff": 2048, "ask": "expand"},
)
def ffn_shapes(rng: np.random.Generator, *, batch, seq_len, d_model, d_ff, flat, ask) -> Variant:
    """The FFN's shapes; with `flat` (level 3), after flattening B and L into one axis: one more step."""
    variant = _ffn(rng, batch, seq_len, d_model, d_ff, ask)
    if not flat:
        return variant
    from dataclasses import replace

    b, length = variant.params["batch"], variant.params["seq_len"]
    step = f"先展平：[B, L, d_model] → [B·L, d_model] = {shape((b * length, variant.params['d_model']))}"
    answer, hints = variant.answer, variant.hints
    if ask in ("expand", "contract"):   # the activations lose an axis; the weights keep their shapes
        answer = (b * length, answer[-1])
        hints = (Hint(variant.answer, "展平后 B 和 L 合成一个轴 B·L：只剩两个轴。"),
                 *(Hint((b * length, h.answer[-1]), h.message) for h in hints if isinstance(h.answer, tuple)))
    else:
        step += "（权重的形状不受展平影响）"
    return replace(variant, prompt=variant.prompt.replace("。", "。实现时先把 batch 和序列两个轴展平成一个轴 [B·L, d_model]"
                                                              "，再做矩阵乘法。", 1),
                   answer=answer, solution=(step, *variant.solution), hints=hints, params={**variant.params, "flat": True})


def _ffn(rng: np.random.Generator, batch, seq_len, d_model, d_ff, ask) -> Variant:
    """The position-wise FFN's shapes (params: batch, seq_len, d_model, d_ff, ask).

    The notes' example pins batch=32, seq_len=10, d_model=512, d_ff=2048, ask=expand: [32, 10, 2048].
    """
    for _ in range(TRIES):
        d = d_model if d_model is not None else pick(rng, _FFN_WIDTHS)
        b = batch if batch is not None else int(rng.integers(2, 65))
        length = seq_len if seq_len is not None else int(rng.integers(3, 129))
        hidden = d_ff if d_ff is not None else 4 * d
        if len({b, length, d, hidden}) == 4:
            break
    sizes = {"batch": b, "src_len": length, "d_model": d, "d_ff": hidden}
    expand = concrete(axes_of("encoder", "FFN: FFN expand"), sizes)       # (B, L, d_ff)
    contract = concrete(axes_of("encoder", "FFN: FFN contract"), sizes)   # (B, L, d)
    params = {"batch": b, "seq_len": length, "d_model": d, "d_ff": hidden, "ask": ask}
    rule = "d_ff = 4·d_model（原论文惯例）" if hidden == 4 * d else f"d_ff = {hidden}"
    head = (f"逐位置前馈网络 FFN(x) = ReLU(xW₁ + b₁)W₂ + b₂：输入 batch B = {b}，序列长 L = {length}，"
            f"d_model = {d}，{rule}。")
    steps = _solution("encoder", "FFN:", sizes, "FFN: FFN contract")
    if ask == "d_ff":
        head = (f"逐位置前馈网络 FFN(x) = ReLU(xW₁ + b₁)W₂ + b₂，d_model = {d}，中间层按原论文是 d_model 的 4 倍。"
                if hidden == 4 * d else head)
        hints = (Hint(d, "FFN 先膨胀：中间层比 d_model 宽（原论文 4 倍）。"),)
        return Variant(head + "中间层宽度 d_ff 是多少？", "scalar", expand[-1], None, steps[:1], hints, params=params)
    if ask in ("w1", "w2"):
        w1 = (contract[-1], expand[-1])  # x (.., d) @ W1 (d, d_ff) -> (.., d_ff)
        answer = w1 if ask == "w1" else w1[::-1]
        name = "W₁" if ask == "w1" else "W₂"
        hints = (Hint(answer[::-1], "按 xW 的写法，W 的形状是 (输入宽度, 输出宽度)；"
                                    "PyTorch 的 Linear.weight 存的是转置 (out, in)。"),)
        steps += (f"xW₁：{shape((b, length, d))} @ {shape(w1)} → {shape(expand)}",
                  f"hW₂：{shape(expand)} @ {shape(w1[::-1])} → {shape(contract)}")
        return Variant(head + f"按公式里 xW 的写法，权重矩阵 {name} 的形状是什么？", "shape", answer, None, steps,
                       hints, params=params)
    if ask == "expand":
        hints = (Hint((b, length, d), "第一层把宽度从 d_model 膨胀到 d_ff。"),)
        return Variant(head + "第一层线性变换（膨胀）之后的形状是什么？", "shape", expand, None, steps[:1], hints,
                       params=params)
    hints = (Hint(expand, "第二层把宽度压回 d_model，这样才能做残差相加。"),)
    return Variant(head + "第二层线性变换（压缩）之后的形状是什么？", "shape", contract, None, steps, hints,
                   params=params)

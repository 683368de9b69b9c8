"""Post-LN vs Pre-LN: where a residual sub-layer's LayerNorm sits, what one step computes, how many norms a stack holds.

Post-LN (the lecture's p19 figure, PyTorch's norm_first=False) is LN(x + F(x)): the residual stream passes
through a LayerNorm after every sub-layer. Pre-LN (norm_first=True, 2002.04745) is x + F(LN(x)): only the
sub-layer's input is normalised, the stream itself is a plain sum, so a stack ends with one more LayerNorm.

The sub-layers are torch's own with stated weights on a one-token sequence, so the numbers are the real
layer's: self-attention over one key has weight 1, and with W_V = I, W_O = diag(w) and no biases it is
F(y) = w ⊙ y; the FFN with W1 = W2 = I and no biases is F(y) = ReLU(y) (tests check this against
torch.nn.TransformerEncoderLayer).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, numbers, one_of, pinned_length, range_holds
from studytool.problems.drawing import FOUR_DECIMALS, TRIES, big, distinct_ints, floats, num, pick, plain, vec
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

_LN_RULE = "LayerNorm 按 PyTorch 的 nn.LayerNorm（不计可学习的 γ、β，忽略 ε）"
_ATTENTION = ("自注意力子层：序列只有这一个 token，注意力权重就是 1；W_V 是单位矩阵、W_O = diag(w)、不计偏置，"
              "所以它算的是 F(y) = w ⊙ y（逐分量相乘），w = {w}")
_FFN = "FFN 子层：W1、W2 都是单位矩阵、不计偏置，所以它算的是 {f}(y) = ReLU(y)"
_WEIGHTS = {False: (-2, -1, 1, 2, 3), True: (-1.5, -0.5, 0.5, 1.5, 2.5)}   # the attention's w: integers or halves
_WIDTHS = (256, 512, 768, 1024)


def _arrangement(norm_first: bool) -> str:
    return "Pre-LN（norm_first=True）" if norm_first else "Post-LN（norm_first=False）"


def _ln(v: np.ndarray) -> np.ndarray | None:
    """LN(v) without γ, β, ε; None for a constant v (no LayerNorm of it exists with ε ignored)."""
    import numpy as np
    from studytool import engine

    return None if np.ptp(v) < 1e-9 else engine.layer_norm(v, eps=0.0)


def _step(x: np.ndarray, f: Callable, norm_first: bool, *, residual: bool = True, norm: bool = True):
    """One residual sub-layer: Post-LN LN(x + F(x)), Pre-LN x + F(LN(x)); the flags make the known mistakes.

    None where a mistake asks for the LayerNorm of a constant vector."""
    if norm_first:
        inner = _ln(x) if norm else x
        return None if inner is None else (x if residual else 0) + f(inner)
    total = (x if residual else 0) + f(x)
    return _ln(total) if norm else total


@dataclass(frozen=True)
class _Stream:
    """What the output sub-question starts from: the token, the attention's w, the arrangement, the sub-layers."""

    xs: np.ndarray
    w: np.ndarray
    norm_first: bool
    sublayer: str          # attention, ffn, or layer (both, attention first)
    params: dict[str, Any]

    def functions(self) -> list[Callable]:
        import numpy as np

        attention, ffn = (lambda y: self.w * y), (lambda y: np.maximum(y, 0.0))
        return {"attention": [attention], "ffn": [ffn], "layer": [attention, ffn]}[self.sublayer]

    def run(self, norm_first: bool | None = None, **mistake: bool):
        """The output after the sub-layers (in the other arrangement, or with a mistake); None if undefined."""
        x = self.xs
        for f in self.functions():
            x = None if x is None else _step(x, f, self.norm_first if norm_first is None else norm_first, **mistake)
        return x


def _stats(v: np.ndarray) -> tuple[float, float]:
    import numpy as np

    return float(v.mean()), float(np.sqrt(np.mean((v - v.mean()) ** 2)))


def _ln_line(v: np.ndarray, of: str) -> str:
    m, sigma = _stats(v)
    return f"LN({of})：均值 {num(m)}，σ = {num(sigma)}（除以 K = {len(v)}），(· − 均值) / σ = {vec((v - m) / sigma)}"


def _steps(s: _Stream) -> list[str]:
    """The worked steps: each sub-layer's sum and LayerNorm, in the order the arrangement does them."""
    functions = s.functions()
    labels = ("F", "G") if s.sublayer == "layer" else ("F",)
    names = ("x₁", "x₂") if s.sublayer == "layer" else ("y",)
    steps, x, source = [], s.xs, "x"
    for f, label, name in zip(functions, labels, names):
        if s.norm_first:
            normed = _ln(x)
            steps += [_ln_line(x, source), f"{label}(LN({source})) = {vec(f(normed))}",
                      f"{name} = {source} + {label}(LN({source})) = {vec(x + f(normed))}（相加之后不再归一）"]
            x = x + f(normed)
        else:
            total = x + f(x)
            steps += [f"{source} + {label}({source}) = {vec(total)}", f"{name} = " + _ln_line(total, "·")]
            x = _ln(total)
        source = name
    m, sigma = _stats(x)
    steps.append(f"{source} 的均值 {num(m)}、σ = {num(sigma)}：" + (
        "Pre-LN 的主干（残差流）是纯加法，从不被归一，所以整个堆叠最后要补一个 LayerNorm" if s.norm_first else
        "Post-LN 每个子层之后主干都过一次 LayerNorm，输出总是均值 0、σ 1"))
    return steps


def _output_prompt(s: _Stream, question: str = "的输出向量是什么？") -> str:
    attention = _ATTENTION.format(w="[" + ", ".join(f"{v:g}" for v in s.w) + "]")   # halves as 0.5, not 0.500000
    where = {"attention": f"只看它的第一个残差子层，{attention}。",
             "ffn": f"只看它的第二个残差子层，输入就是这个 x；{_FFN.format(f='F')}。",
             "layer": f"这一层有两个残差子层：先是{attention}；再是 {_FFN.format(f='G')}。"}[s.sublayer]
    what = "这一层" if s.sublayer == "layer" else "这个残差子层"
    return (f"一个 token 的 {len(s.xs)} 维表示 x = {vec(s.xs)}（序列只有这一个 token），进入一个 "
            f"{_arrangement(s.norm_first)} 的 nn.TransformerEncoderLayer。{where}{_LN_RULE}，{what}{question}")


def _output(s: _Stream) -> Variant:
    other = "Post-LN 是 LN(x + F(x))" if s.norm_first else "Pre-LN 是 x + F(LN(x))"
    mistakes = (
        ({"norm_first": not s.norm_first}, f"这是另一种摆法的结果（{other}）；题目是 {_arrangement(s.norm_first)}。"),
        ({"residual": False}, "别忘了残差：子层的输出要加回子层的输入。"),
        ({"norm": False}, "Pre-LN 的 LayerNorm 在子层之前，对子层的输入做；主干上只相加。" if s.norm_first else
         "Post-LN 在残差相加之后还要过一次 LayerNorm。"),
    )
    hints = tuple(Hint(floats(out), message) for kw, message in mistakes if (out := s.run(**kw)) is not None)
    if s.norm_first and (normed := _ln(s.run())) is not None:   # the sum normalised, as Post-LN would
        hints += (Hint(floats(normed), "Pre-LN 相加之后不再归一：主干上的和原样传给下一个子层。"),)
    return Variant(_output_prompt(s), "vector", floats(s.run()), FOUR_DECIMALS, tuple(_steps(s)), hints,
                   params=s.params)


def _stream_sigma(s: _Stream) -> Variant:
    """Pre-LN's stream is a plain sum: its σ is whatever the sum gives, never the 1 a LayerNorm would leave."""
    import numpy as np

    out = s.run()
    sigma = float(np.std(out))
    hints = ((1.0, "那是 Post-LN 的结果：Pre-LN 只归一子层的输入，主干上的和不再过 LayerNorm，σ 一般不是 1。"),
             (float(np.std(s.xs)), "这是输入 x 的 σ；子层的输出加回主干之后，σ 变了。"),
             (float(np.std(out, ddof=1)), "LayerNorm 和这里的 σ 都是总体标准差：除以 K，不是 K−1。"))
    return Variant(_output_prompt(s, "输出的向量（主干上的残差流）的标准差 σ 是多少？（总体标准差，除以 K）"),
                   "scalar", sigma, FOUR_DECIMALS, tuple(_steps(s)),
                   tuple(Hint(a, m) for a, m in hints if abs(a - sigma) > 1e-9), params=s.params)


def _draw_stream(rng: np.random.Generator, p: Mapping[str, Any]) -> _Stream:
    """The token (distinct integers with both signs, so ReLU changes it), w, the arrangement and the sub-layers;
    redrawn until every LayerNorm either arrangement takes is of a vector that varies."""
    import numpy as np

    # ask=stream is Pre-LN's question (Post-LN's σ is 1 whatever the numbers)
    norm_first = p["norm_first"] if p["norm_first"] is not None else p["ask"] == "stream" or bool(rng.integers(2))
    for _ in range(TRIES):
        x = p["x"]
        while x is None:   # both signs: x + ReLU(x) is then no multiple of x
            drawn = distinct_ints(rng, p["size"] or int(rng.integers(3, 5)), p["low"], p["high"])
            x = drawn if min(drawn) < 0 < max(drawn) else None
        w = p["w"]
        while w is None:   # not all equal: a constant w scales x, and LN(c·x) would be LN(x)
            drawn = [pick(rng, _WEIGHTS[bool(p["decimals"])]) for _ in x]
            w = drawn if len(set(drawn)) > 1 else None
        sublayer = p["sublayer"] or pick(rng, ("attention", "ffn") if min(x) < 0 < max(x) else ("attention",))
        params = {"x": plain(list(x)), "w": plain(list(w)), "norm_first": norm_first, "sublayer": sublayer,
                  "ask": p["ask"]}
        stream = _Stream(np.asarray(x, dtype=float), np.asarray(w, dtype=float), norm_first, sublayer, params)
        if stream.run(True) is not None and stream.run(False) is not None:
            return stream
    raise ValueError(f"no draw of x and w gives a LayerNorm of a varying vector (x: {p['x']}, w: {p['w']})")


@functools.lru_cache(maxsize=64)
def _layer_norms(kind: str, d: int, bias: bool) -> tuple[int, ...]:
    """The parameter count of each LayerNorm in one engine (torch-named) encoder or decoder layer, built
    shape-only: norm1, norm2 (and norm3). Cached: a stack repeats it, and the hints count three stacks."""
    import re
    from studytool import engine

    layer = (engine.EncoderLayer if kind == "encoder" else engine.DecoderLayer)(d, 1, d, bias=bias, device="meta")
    sizes: dict[str, int] = {}
    for key, value in layer.state_dict().items():
        if (match := re.fullmatch(r"(norm\d)\.(weight|bias)", key)):
            sizes[match[1]] = sizes.get(match[1], 0) + value.shape[0]
    return tuple(sizes.values())


@dataclass(frozen=True)
class _Stack:
    """What the counting sub-questions start from: the stacks' sizes, the arrangement, the biases."""

    layers: int            # encoder layers
    decoder_layers: int    # 0: an encoder only
    d: int
    norm_first: bool
    bias: bool
    params: dict[str, Any]

    def norms(self, final: bool | None = None) -> tuple[int, int]:
        """(LayerNorms, their parameters) of the stacks: each layer's norms as the engine builds them, the final
        one per stack for Pre-LN; `final` overrides that rule (the known mistakes)."""
        from studytool import engine

        ends = (self.norm_first if final is None else final) * (2 if self.decoder_layers else 1)
        sizes = [*_layer_norms("encoder", self.d, self.bias) * self.layers,
                 *_layer_norms("decoder", self.d, self.bias) * self.decoder_layers,
                 *[engine.count_params("layer_norm", d_model=self.d, bias=self.bias)] * ends]
        return len(sizes), sum(sizes)

    def head(self, bias: str = "") -> str:
        """The stacks as built, `bias` said after them; the final-norm rule in words, not which one has it."""
        layer = f"(d_model={self.d}, norm_first={self.norm_first})"
        stacks = (f"Transformer：encoder 用 nn.TransformerEncoderLayer{layer} 堆 {self.layers} 层，decoder 用 "
                  f"nn.TransformerDecoderLayer{layer} 堆 {self.decoder_layers} 层" if self.decoder_layers else
                  f"encoder：nn.TransformerEncoderLayer{layer} 堆 {self.layers} 层")
        modules = "nn.TransformerEncoder / nn.TransformerDecoder" if self.decoder_layers else "nn.TransformerEncoder"
        return (f"用 PyTorch 搭一个 {_arrangement(self.norm_first)} 的 {stacks}{bias}。"
                f"{'每个' if self.decoder_layers else ''}堆叠末尾只在主干（残差流）没有被归一时才补一个最终 LayerNorm"
                f"（{modules} 的 norm 参数；不像 nn.Transformer 类那样总是各放一个）。")

    def steps(self) -> tuple[str, ...]:
        per_decoder = f"，decoder 每层 3 个（自注意力、cross-attention、FFN 各一个）" if self.decoder_layers else ""
        count, total = self.norms()
        stacks = 2 if self.decoder_layers else 1
        return (f"每个残差子层一个 LayerNorm：encoder 每层 2 个（自注意力、FFN 各一个）{per_decoder}",
                ("Pre-LN 在子层之前归一，主干从不被归一，所以" + ("两个堆叠末尾各" if stacks == 2 else "堆叠末尾") +
                 "补一个最终 LayerNorm（2002.04745）" if self.norm_first else
                 "Post-LN 在每个子层相加之后归一，主干已经归一，所以（如 2017 年原论文）末尾不再补 LayerNorm；"
                 "nn.Transformer 类不论 norm_first 都各补一个，这里按题目的约定数"),
                f"共 {count} 个 LayerNorm，每个 {self.per_norm()} 个参数" +
                ("（γ 和 β 各 d_model 个）" if self.bias else "（bias=False：只有 γ，d_model 个）") +
                f"，合计 {big(total)}")

    def per_norm(self) -> int:
        from studytool import engine

        return engine.count_params("layer_norm", d_model=self.d, bias=self.bias)


def _count(t: _Stack) -> Variant:
    count = t.norms()[0]
    # the other arrangement's count is this one's with the final norms flipped: one hint says both
    hints = ((t.norms(final=not t.norm_first)[0], "Pre-LN 的主干从不被归一，每个堆叠末尾补一个最终 LayerNorm；"
              "Post-LN 的主干每步都已归一，末尾不补。"),
             (t.layers + t.decoder_layers, "每个残差子层各一个 LayerNorm，不是每层一个。"),
             (2 * (t.layers + t.decoder_layers) + (count - t.norms(final=False)[0]),
              "decoder 层有 3 个残差子层（自注意力、cross-attention、FFN），各一个 LayerNorm。"))
    return Variant(t.head() + "一共有多少个 LayerNorm？", "scalar", count, None, t.steps(),
                   tuple(Hint(answer, message) for answer, message in hints if answer != count), params=t.params)


def _norm_params(t: _Stack) -> Variant:
    count, total = t.norms()
    bias = ("bias=True（线性层和 LayerNorm 都学一个加性偏置）" if t.bias else
            "bias=False（线性层和 LayerNorm 都不学加性偏置）")
    hints = ((t.norms(final=not t.norm_first)[1], "Pre-LN 的主干从不被归一，每个堆叠末尾补一个最终 LayerNorm；"
              "Post-LN 的主干每步都已归一，末尾不补。"),
             (count * t.d * (1 if t.bias else 2), "LayerNorm 有 γ 和 β 各 d_model 个；bias=False 时 β 没有，只剩 γ。"),
             (count, "这是 LayerNorm 的个数；每个还有 d_model 维的 γ（和 β）。"))
    return Variant(t.head(f"，{bias}") + "这些 LayerNorm 一共有多少个可学习参数？",
                   "scalar", total, None, t.steps(),
                   tuple(Hint(answer, message) for answer, message in hints if answer != total), params=t.params)


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {value!r}"


def _both_signs_for_relu(p: Mapping[str, Any]) -> str | None:
    """ReLU leaves a one-signed x as it is or doubles it: LN(x + ReLU(x)) would be LN(x), the sub-layer unseen."""
    x = p.get("x")
    if p.get("sublayer") == "ffn" and x is not None and not min(x) < 0 < max(x):
        return "sublayer ffn needs an x with a negative and a positive value (ReLU would change nothing else)"
    if x is None and not p["low"] < 0 < p["high"]:
        return f"low..high ({p['low']}..{p['high']}) must hold negative and positive values (ReLU)"
    return None


def _w_fits(p: Mapping[str, Any]) -> str | None:
    w, x = p.get("w"), p.get("x")
    length = len(x) if x is not None else p.get("size")
    if w is not None and length is not None and len(w) != length:
        return f"w has {len(w)} entries but x has {length}"
    if w is not None and x is None and p.get("size") is None:
        return "a pinned w needs x or size pinned too"
    return None


def _pure_ln(v: list[float]) -> list[float] | None:
    """LN without NumPy (`validate` imports none); None for a constant v."""
    m = sum(v) / len(v)
    sigma = (sum((e - m) ** 2 for e in v) / len(v)) ** 0.5
    return None if sigma < 1e-9 else [(e - m) / sigma for e in v]


def _pinned_varies(p: Mapping[str, Any]) -> str | None:
    """A pinned x and w whose attention step sums to a constant vector: its LayerNorm does not exist."""
    x, w = p.get("x"), p.get("w")
    if x is None or w is None or len(x) != len(w) or p.get("sublayer") == "ffn":
        return None
    post = _pure_ln([(1 + a) * e for a, e in zip(w, x)])
    pre = [e + a * n for a, e, n in zip(w, x, _pure_ln(list(x)))]   # x varies: its own check
    if post is None or (p.get("sublayer") == "layer" and _pure_ln(pre) is None):
        return "x + w * x (Post-LN) or x + w * LN(x) (Pre-LN) is constant: its LayerNorm does not exist"
    return None


def _stream_is_pre_ln(p: Mapping[str, Any]) -> str | None:
    if p.get("ask") == "stream" and p.get("norm_first") is False:
        return "ask=stream needs norm_first true: a Post-LN output's sigma is 1 whatever the numbers"
    return None


_QUESTIONS = {"output": _output, "stream": _stream_sigma, "count": _count, "norm_params": _norm_params}


@generator(
    "pre_post_ln",
    "Post-LN LN(x + F(x)) vs Pre-LN x + F(LN(x)): one residual step or a whole layer on a one-token vector, "
    "the sigma of Pre-LN's un-normalised stream; how many LayerNorms an N-layer stack holds (Pre-LN adds a final "
    "one) and their parameters.",
    asks=_QUESTIONS,
    params=(
        Param("norm_first", "true: Pre-LN, false: Post-LN (default: drawn)", None, _boolean),
        Param("sublayer", "output, stream: attention (F = w * y), ffn (F = ReLU) or layer (both, attention first) "
              "(default: drawn from attention, ffn)", None, one_of("attention", "ffn", "layer")),
        Param("x", "output, stream: the token's vector, pinned (default: drawn, distinct integers of both signs)", None,
              numbers(3, 6, lo=-99, hi=99, spread=True)),
        Param("size", "output, stream: vector length, 3..6 (default: drawn from 3..4)", None, int_in(3, 6)),
        Param("low", "output, stream: smallest drawn value", -5, int_in(-99, 99)),
        Param("high", "output, stream: largest drawn value", 5, int_in(-99, 99)),
        Param("w", "output, stream: the attention's diagonal W_O, pinned (default: drawn, not all equal)", None,
              numbers(3, 6, lo=-9, hi=9, spread=True)),
        Param("decimals", "output, stream: w drawn in halves (-1.5 .. 2.5) instead of integers", False, _boolean),
        Param("num_layers", "count, norm_params: encoder layers N (default: drawn from 2..12)", None, int_in(1, 96)),
        Param("decoder_layers", "count, norm_params: decoder layers, 0 = an encoder only", 0, int_in(0, 96)),
        Param("d_model", "norm_params: the width (default: drawn from 256, 512, 768, 1024)", None, int_in(1, 100_000)),
        Param("bias", "norm_params: false drops every bias, LayerNorm's beta too (PyTorch's bias=False)", True,
              _boolean),
    ),
    example={"x": [1, 2, 3, 4], "w": [1, -1, 2, 1], "norm_first": False, "sublayer": "attention", "ask": "output"},
    constraints=(range_holds("size", "x", 6), pinned_length("x", "size"), _both_signs_for_relu, _w_fits,
                 _pinned_varies, _stream_is_pre_ln),
)
def pre_post_ln(rng: np.random.Generator, *, norm_first, sublayer, x, size, low, high, w, decimals, num_layers,
                decoder_layers, d_model, bias, ask) -> Variant:
    """Post-LN vs Pre-LN (params: norm_first, sublayer, x, size, low, high, w, decimals, num_layers,
    decoder_layers, d_model, bias, ask).

    The example pins the notes' x = [1, 2, 3, 4] in the lecture's Post-LN with w = [1, -1, 2, 1]:
    LN([2, 0, 9, 8]) = [-0.7176, -1.2394, 1.1090, 0.8480].
    """
    if ask in ("output", "stream"):
        return _QUESTIONS[ask](_draw_stream(rng, {"x": x, "size": size, "low": low, "high": high, "w": w,
                                                  "decimals": decimals, "sublayer": sublayer,
                                                  "norm_first": norm_first, "ask": ask}))
    pre = norm_first if norm_first is not None else bool(rng.integers(2))
    layers = num_layers if num_layers is not None else int(rng.integers(2, 13))
    d = d_model if d_model is not None else pick(rng, _WIDTHS)
    params = {"norm_first": pre, "num_layers": layers, "decoder_layers": decoder_layers, "ask": ask}
    params |= {"d_model": d, "bias": bias} if ask == "norm_params" else {"d_model": d}
    return _QUESTIONS[ask](_Stack(layers, decoder_layers, d, pre, bias, params))

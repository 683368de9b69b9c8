"""Parameter counts by hand: embedding, attention, FFN, blocks and stacks, each with its convention stated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import divisible, int_in, one_of, sizes
from studytool.problems.drawing import FOUR_DECIMALS, big, in_mib, memory_param, num, pick
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

_NOTES = "只数权重矩阵，不计偏置和 LayerNorm，即讲义的算法"
_FULL = "偏置和 LayerNorm 的 γ、β 都算上，同 PyTorch 的 nn.TransformerEncoderLayer / DecoderLayer"


# multiples of 16 (4, 8 and 16 heads all divide them), 24 of them: a count of d alone takes 20 values in 100 draws
_WIDTHS = (64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 832, 896,
           960, 1024, 1280)
_FFN_WIDTHS = (256, 512, 1024, 1536, 2048, 3072, 4096)   # ask=ffn_share: d_ff drawn apart from d, so the share varies


def _sizes(rng: np.random.Generator, d_model, n_heads, d_ff, vocab, num_layers,
           ask: str) -> tuple[int, int, int, int, int]:
    widths = [w for w in _WIDTHS if n_heads is None or w % n_heads == 0]
    d = d_model if d_model is not None else pick(rng, widths or [64 * n_heads])
    heads = [h for h in (4, 8, 16) if d % h == 0] or [1]
    h = n_heads if n_heads is not None else pick(rng, heads)
    if d_ff is None:
        d_ff = pick(rng, _FFN_WIDTHS) if ask.startswith("ffn_share") else 4 * d
    vocab = vocab if vocab is not None else pick(rng, (1000, 5000, 8000, 10000, 30000, 32000, 50000))
    layers = num_layers if num_layers is not None else int(rng.integers(2, 13))
    return d, h, d_ff, vocab, layers


@dataclass(frozen=True)
class _Layer:
    """The sizes every sub-question counts with, the counts they share and how they are written."""

    d: int
    h: int
    d_ff: int
    vocab: int
    layers: int
    convention: str | None   # blocks and stacks: pinned, or drawn there

    def count(self, part: str, **kw) -> int:
        from studytool import engine

        return engine.count_params(part, d_model=self.d, n_heads=self.h, d_ff=self.d_ff, **kw)

    @property
    def params(self) -> dict[str, Any]:
        return {"d_model": self.d, "n_heads": self.h, "d_ff": self.d_ff}

    @property
    def sizes(self) -> str:
        return f"d_model = {self.d}，h = {self.h}，d_ff = {self.d_ff}"

    def mha_step(self) -> str:
        return f"多头注意力 W_Q、W_K、W_V、W_O 四个 d×d：4d² = 4 × {self.d}² = {big(self.count('mha', bias=False))}"

    def ffn_step(self) -> str:
        return f"FFN 两层 d→d_ff→d：2·d·d_ff = 2 × {self.d} × {self.d_ff} = {big(self.count('ffn', bias=False))}"


def _embedding(s: _Layer, rng: np.random.Generator) -> Variant:
    d, vocab = s.d, s.vocab
    total = s.count("embedding", vocab=vocab)
    hints = (Hint(vocab * d + vocab, "嵌入矩阵没有偏置，只有 V × d 个数。"),
             Hint(vocab + d, "嵌入矩阵是 V 行 d 列，参数是 V × d，不是 V + d。"))
    return Variant(f"词表大小 V = {vocab}，d_model = {d}。词嵌入矩阵有多少个参数？", "scalar", total, None,
                   (f"每个词一行 d 维向量：V × d = {vocab} × {d} = {big(total)}",), hints,
                   params={**s.params, "ask": "embedding", "vocab": vocab})


def _mha(s: _Layer, with_bias: bool) -> Variant:
    d, h = s.d, s.h
    mha, mha_b = s.count("mha", bias=False), s.count("mha")
    rule = "四个投影的权重和偏置都算" if with_bias else "只算权重矩阵，不计偏置"
    steps = (s.mha_step(),) + ((f"加上四个长度 d 的偏置：4d = {4 * d}，合计 {big(mha_b)}",) if with_bias else ())
    hints = (Hint(mha if with_bias else mha_b,
                  "这次要算偏置：每个投影一个长度 d 的偏置。" if with_bias else "这次不计偏置。"),
             Hint(3 * d * d + (3 * d if with_bias else 0), "别忘了输出投影 W_O：Q、K、V 加 W_O 共四个 d×d。"),
             Hint(4 * d * (d // h) + (4 * d // h if with_bias else 0),
                  "这是一个头的量；所有头拼起来仍是 d×d，多头不改变总参数量。"))
    return Variant(f"多头注意力层，{s.sizes}（{rule}）。参数量是多少？", "scalar", mha_b if with_bias else mha, None,
                   steps, hints, params={**s.params, "ask": "mha_bias" if with_bias else "mha"})


def _ffn(s: _Layer, with_bias: bool) -> Variant:
    d, d_ff = s.d, s.d_ff
    ffn, ffn_b = s.count("ffn", bias=False), s.count("ffn")
    rule = "两层的权重和偏置都算" if with_bias else "只算权重矩阵，不计偏置"
    steps = (s.ffn_step(),) + ((f"加上偏置 b₁（d_ff = {d_ff} 个）和 b₂（d = {d} 个），合计 {big(ffn_b)}",)
                               if with_bias else ())
    hints = (Hint(ffn if with_bias else ffn_b, "这次要算偏置：b₁ 长 d_ff，b₂ 长 d。" if with_bias else "这次不计偏置。"),
             Hint(2 * d * d + (2 * d if with_bias else 0), "中间层宽度是 d_ff，不是 d。"),
             Hint(d * d_ff + (d_ff if with_bias else 0), "FFN 有两层：d→d_ff 和 d_ff→d。"))
    if with_bias:
        hints += (Hint(ffn + 2 * d, "b₁ 的长度是 d_ff（第一层的输出宽度），不是 d。"),)
    return Variant(f"逐位置前馈网络 FFN，{s.sizes}（{rule}）。参数量是多少？", "scalar", ffn_b if with_bias else ffn,
                   None, steps, hints, params={**s.params, "ask": "ffn_bias" if with_bias else "ffn"})


def _ffn_share(s: _Layer, rng: np.random.Generator) -> Variant:
    mha, ffn = s.count("mha", bias=False), s.count("ffn", bias=False)
    share = ffn / s.count("encoder_layer", bias=False, norm=False)
    steps = (s.mha_step(), s.ffn_step(), f"FFN 占比 = {big(ffn)} / ({big(mha)} + {big(ffn)}) = {num(share)}")
    hints = (Hint(mha / (mha + ffn), "那是注意力的占比；问的是 FFN。"),
             Hint(ffn / mha, "占比是 FFN / (注意力 + FFN)，不是 FFN / 注意力。"))
    return Variant(f"一个 encoder block，{s.sizes}（{_NOTES}）。FFN 的参数占这个 block 的比例是多少？"
                   f"（小数或分数）", "scalar", share, FOUR_DECIMALS, steps, hints,
                   params={**s.params, "ask": "ffn_share"})


def _ffn_share_model(s: _Layer, rng: np.random.Generator) -> Variant:
    """Level 3: the FFN's share once N layers and the embedding are counted too (two more steps)."""
    mha, ffn = s.count("mha", bias=False), s.count("ffn", bias=False)
    layer, embedding = mha + ffn, s.vocab * s.d
    total = s.layers * layer + embedding
    share = s.layers * ffn / total
    steps = (s.mha_step(), s.ffn_step(), f"{s.layers} 层 × ({big(mha)} + {big(ffn)}) = {big(s.layers * layer)}",
             f"加上词嵌入 V × d = {s.vocab} × {s.d} = {big(embedding)}，合计 {big(total)}",
             f"FFN 占比 = {s.layers} × {big(ffn)} / {big(total)} = {num(share)}")
    hints = (Hint(ffn / layer, "那是一个 block 里的占比；问的是算上词嵌入后的整个 encoder。"),
             Hint(ffn / (layer + embedding), f"FFN 有 {s.layers} 层，分子也要乘层数。"))
    return Variant(f"{s.layers} 层 encoder 加一个词嵌入矩阵（V = {s.vocab}），{s.sizes}（{_NOTES}）。"
                   "FFN 的参数占这些参数的比例是多少？（小数或分数）", "scalar", share, FOUR_DECIMALS, steps, hints,
                   params={**s.params, "ask": "ffn_share_model", "vocab": s.vocab, "num_layers": s.layers})


@dataclass(frozen=True)
class _Block:
    """A block or a stack under one convention: notes (weights only) or full (with biases and LayerNorms)."""

    full: bool
    params: dict[str, Any]
    enc: int                    # one encoder block
    enc_steps: tuple[str, ...]

    @property
    def kw(self) -> dict[str, bool]:
        return {"bias": self.full, "norm": self.full}

    @property
    def rule(self) -> str:
        return _FULL if self.full else _NOTES


def _block(s: _Layer, rng: np.random.Generator, ask: str) -> _Block:
    convention = s.convention or pick(rng, ("notes", "full"))
    full = convention == "full"
    enc = s.count("encoder_layer", bias=full, norm=full)
    enc_steps = (s.mha_step() + (f"，加偏置 4d 得 {big(s.count('mha'))}" if full else ""),
                 s.ffn_step() + (f"，加偏置 d_ff + d 得 {big(s.count('ffn'))}" if full else ""))
    enc_steps += ((_norm_step(s.d), f"两个 LayerNorm：{2 * 2 * s.d}；合计 {big(enc)}") if full else
                  (f"合计 4d² + 2·d·d_ff = {big(enc)}",))
    return _Block(full, {**s.params, "ask": ask, "convention": convention}, enc, enc_steps)


def _norm_step(d: int) -> str:
    return f"每个 LayerNorm 有 γ、β 各 d 个：2d = {2 * d}"


def _convention_hint(full: bool) -> str:
    return "按题目的约定：" + ("这次要算偏置和 LayerNorm。" if full else "这次只算权重矩阵。")


def _encoder_layer(s: _Layer, rng: np.random.Generator) -> Variant:
    b = _block(s, rng, "encoder_layer")
    hints = (Hint(s.count("encoder_layer", bias=not b.full, norm=not b.full), _convention_hint(b.full)),
             Hint(s.count("mha", bias=b.full), "别忘了 FFN：它才是参数的大头。"))
    if b.full:
        hints += (Hint(s.count("encoder_layer", norm=False), "别忘了两个 LayerNorm 的 γ、β。"),)
    return Variant(f"一个 encoder block（自注意力 + FFN + 两个 Add & Norm），{s.sizes}（{b.rule}）。参数量是多少？",
                   "scalar", b.enc, None, b.enc_steps, hints, params=b.params)


def _decoder_layer(s: _Layer, rng: np.random.Generator) -> Variant:
    b = _block(s, rng, "decoder_layer")
    dec = s.count("decoder_layer", **b.kw)
    steps = (f"三个子层：带掩码的自注意力、cross-attention（各 {big(s.count('mha', bias=b.full))}）和 FFN"
             f"（{big(s.count('ffn', bias=b.full))}）",)
    steps += ((_norm_step(s.d), f"三个 LayerNorm：{3 * 2 * s.d}；合计 {big(dec)}") if b.full else
              (f"合计 2 × 4d² + 2·d·d_ff = {big(dec)}",))
    hints = (Hint(b.enc, "decoder block 比 encoder block 多一个 cross-attention 子层。"),
             Hint(s.count("decoder_layer", bias=not b.full, norm=not b.full), _convention_hint(b.full)))
    if b.full:
        hints += (Hint(s.count("decoder_layer", norm=False), "decoder block 有三个 LayerNorm，别漏了。"),)
    return Variant(f"一个 decoder block（带掩码自注意力 + cross-attention + FFN，三个 Add & Norm），{s.sizes}（{b.rule}）。"
                   "参数量是多少？", "scalar", dec, None, steps, hints, params=b.params)


def _stack(s: _Layer, rng: np.random.Generator) -> Variant:
    b, layers = _block(s, rng, "stack"), s.layers
    total = s.count("encoder", num_layers=layers, **b.kw)
    final = "，再加堆叠末尾的最后一个 LayerNorm" if b.full else ""
    steps = b.enc_steps + (f"{layers} 层 × {big(b.enc)}{final} = {big(total)}",)
    hints = (Hint(b.enc, f"这是一层；要乘以层数 {layers}（各层参数不共享）。"),)
    if b.full:
        hints += (Hint(layers * b.enc, "别忘了堆叠末尾的最后一个 LayerNorm（2d 个参数）。"),)
    else:
        hints += (Hint(s.count("encoder", num_layers=layers, bias=True, norm=True), "按题目的约定：这次只算权重矩阵。"),)
    stack_rule = (_FULL + "，含堆叠末尾的最后一个 LayerNorm：nn.Transformer 的 encoder 不论 norm_first 都有它，"
                  "2017 年原论文的 Post-LN 没有") if b.full else _NOTES
    return Variant(f"{layers} 层 encoder 堆叠，{s.sizes}（{stack_rule}）。总参数量是多少？", "scalar", total, None,
                   steps, hints, params={**b.params, "num_layers": layers})


_QUESTIONS = {
    "embedding": _embedding,
    "mha": lambda s, rng: _mha(s, with_bias=False),
    "mha_bias": lambda s, rng: _mha(s, with_bias=True),
    "ffn": lambda s, rng: _ffn(s, with_bias=False),
    "ffn_bias": lambda s, rng: _ffn(s, with_bias=True),
    "encoder_layer": _encoder_layer,
    "decoder_layer": _decoder_layer,
    "stack": _stack,
    "ffn_share": _ffn_share,
    "ffn_share_model": _ffn_share_model,
}


@generator(
    "param_count",
    "Parameter counts: embedding, MHA, FFN (with/without biases), encoder/decoder block, N layers, FFN share.",
    asks=_QUESTIONS,
    params=(
        *sizes("d_model", "n_heads"),
        Param("d_ff", "FFN hidden width (default: 4 * d_model)", None, int_in(1, 1_000_000)),
        Param("vocab", "vocabulary size for ask=embedding (default: drawn)", None, int_in(1, 10_000_000)),
        Param("num_layers", "layers for ask=stack (default: drawn from 2..12)", None, int_in(1, 1000)),
        Param("convention", "blocks/stacks: 'notes' = weight matrices only (the notes' 3,145,728), "
            "'full' = with biases and LayerNorms as PyTorch (default: drawn)", None, one_of("notes", "full"),
            ("notes", "full")),
        memory_param(),
    ),
    example={"d_model": 512, "n_heads": 8, "d_ff": 2048, "ask": "encoder_layer", "convention": "notes"},
    constraints=(divisible,),
)
def param_count(rng: np.random.Generator, *, d_model, n_heads, d_ff, vocab, num_layers, convention, memory,
                ask) -> Variant:
    """Parameter counts (params: d_model, n_heads, d_ff, vocab, num_layers, convention, ask).

    The notes' example pins d_model=512, n_heads=8, d_ff=2048, ask=encoder_layer, convention=notes: 3,145,728.
    Pinning other asks gives the notes' other numbers: mha 1,048,576; ffn 2,097,152; stack with
    num_layers=6 and convention=notes 18,874,368; embedding with vocab=30000 15,360,000.
    """
    d, h, d_ff, vocab, layers = _sizes(rng, d_model, n_heads, d_ff, vocab, num_layers, ask)
    variant = _QUESTIONS[ask](_Layer(d, h, d_ff, vocab, layers, convention), rng)
    # level 3: the count's size in memory, one more step (a share has no size)
    return variant if memory is None or ask.startswith("ffn_share") else in_mib(variant, variant.answer, memory)

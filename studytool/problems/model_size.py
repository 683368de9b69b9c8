"""Model size from the engine's parameter counts: tied embeddings, and the whole Transformer (base: about 65M)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studytool.problems.checks import divisible, int_in, sizes
from studytool.problems.drawing import big, in_mib, memory_param, pick
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Tolerance, Variant

if TYPE_CHECKING:
    import numpy as np

TIED_ASKS = ("encoder_decoder", "decoder_only")
MODEL_ASKS = ("tied", "untied")

MILLIONS = Tolerance(abs=0.05)   # one decimal of a million, as the paper's "65M"


@generator(
    "tied_embeddings",
    "Parameters saved by tying the (V, d) matrices: encoder-decoder 3 -> 1, decoder-only 2 -> 1.",
    asks=TIED_ASKS,
    params=(
        Param("vocab", "vocabulary size V (default: drawn from 8000..50000)", None, int_in(1, 10_000_000)),
        Param("d_model", "model width (default: drawn from 256..1024)", None, int_in(1, 100_000)),
        memory_param(),
    ),
    example={"vocab": 37000, "d_model": 512, "ask": "encoder_decoder"},
)
def tied_embeddings(rng: np.random.Generator, *, vocab, d_model, memory, ask) -> Variant:
    """Parameters saved by tying the (V, d) matrices; with `memory`, the saving in MiB (level 3)."""
    variant = _tied(rng, vocab, d_model, ask)
    return variant if memory is None else in_mib(variant, variant.answer, memory)


def _tied(rng: np.random.Generator, vocab, d_model, ask) -> Variant:
    """Parameters saved by tying the (V, d) matrices (params: vocab, d_model, ask).

    encoder_decoder: source embedding, target embedding and the output projection share one
    matrix (the paper's base model): 3 -> 1 saves 2·V·d. decoder_only (GPT-2): input
    embedding and output projection, 2 -> 1, saves V·d.
    """
    from studytool import engine

    v = vocab if vocab is not None else pick(rng, (8000, 16000, 30000, 32000, 37000, 50000))
    d = d_model if d_model is not None else pick(rng, (256, 384, 512, 640, 768, 1024))
    params = {"vocab": v, "d_model": d, "ask": ask}
    table = engine.count_params("embedding", d_model=d, vocab=v)   # one (V, d) matrix
    if ask == "encoder_decoder":
        untied = engine.count_params("model", d_model=d, n_heads=1, vocab=v, tied=False)
        tied = engine.count_params("model", d_model=d, n_heads=1, vocab=v, tied=True)
        saved = untied - tied
        steps = (f"一个 (V, d) 矩阵 = {v} × {d} = {big(table)} 个参数",
                 "不共享时有三个：源语言嵌入、目标语言嵌入、输出投影（softmax 前的线性层）的权重",
                 f"共享后只剩一个：省下 2 · V · d = 2 × {big(table)} = {big(saved)}（输出层的偏置 V 个不受影响）")
        hints = (Hint(table, "三个矩阵共享成一个，省下的是两个，不是一个。"),
                 Hint(3 * table, "那是三个矩阵的总量；共享后还留一个，省下两个。"))
        prompt = (f"encoder-decoder Transformer，源语言和目标语言共用一个词表 V = {v}，d_model = {d}。"
                  "像原论文那样让源嵌入、目标嵌入和输出投影共享同一个权重矩阵，能省下多少个参数？")
        return Variant(prompt, "scalar", saved, None, steps, hints, params=params)
    saved = engine.count_params("output_projection", d_model=d, vocab=v, bias=False)   # the untied W_out
    steps = (f"一个 (V, d) 矩阵 = {v} × {d} = {big(table)} 个参数",
             "decoder-only 模型有两个：输入嵌入和输出投影（lm_head）的权重",
             f"共享后只剩一个：省下 V · d = {big(saved)}")
    hints = (Hint(2 * table, "decoder-only 只有输入嵌入和输出投影两个矩阵，共享省下一个。"),)
    prompt = (f"decoder-only 语言模型（如 GPT-2），词表 V = {v}，d_model = {d}，输出投影不带偏置。"
              "让输入嵌入和输出投影共享权重，能省下多少个参数？")
    return Variant(prompt, "scalar", saved, None, steps, hints, params=params)


@generator(
    "transformer_params",
    "The whole encoder-decoder Transformer in millions (nn.Transformer + embeddings + output): base ~ 63.1M.",
    asks=MODEL_ASKS,
    params=(
        Param("vocab", "shared vocabulary size V (default: drawn from 8000..37000)", None, int_in(1, 10_000_000)),
        *sizes("d_model", "n_heads"),
        Param("num_layers", "layers N of each stack (default: drawn from 2..12)", None, int_in(1, 1000)),
        memory_param(),
    ),
    example={"vocab": 37000, "d_model": 512, "n_heads": 8, "num_layers": 6, "ask": "tied"},
    constraints=(divisible,),
)
def transformer_params(rng: np.random.Generator, *, vocab, d_model, n_heads, num_layers, memory, ask) -> Variant:
    """The whole model in millions; with `memory`, its weights' size in MiB (level 3)."""
    variant = _whole(rng, vocab, d_model, n_heads, num_layers, ask)
    return variant if memory is None else in_mib(variant, round(variant.answer * 1e6), memory, unit=1e6)


def _whole(rng: np.random.Generator, vocab, d_model, n_heads, num_layers, ask) -> Variant:
    """The whole encoder-decoder Transformer, in millions (params: vocab, d_model, n_heads, num_layers, ask).

    Counted as torch.nn.Transformer plus embeddings and the output projection: biases, every
    LayerNorm, a final LayerNorm per stack, d_ff = 4·d_model. ask=tied shares one (V, d) matrix
    between both embeddings and the output projection, as the paper's base model (V=37000, d=512,
    N=6, h=8): 63,121,544 = 63.1M, which the paper's Table 3 rounds to 65M.
    """
    from studytool import engine

    v = vocab if vocab is not None else pick(rng, (8000, 16000, 32000, 37000))
    widths = [w for w in (256, 512, 768, 1024) if n_heads is None or w % n_heads == 0] or [64 * n_heads]
    d = d_model if d_model is not None else pick(rng, widths)
    h = n_heads if n_heads is not None else pick(rng, [c for c in (4, 8, 16) if d % c == 0] or [1])
    n = num_layers if num_layers is not None else int(rng.integers(2, 13))
    share = ask == "tied"
    params = {"vocab": v, "d_model": d, "n_heads": h, "num_layers": n, "ask": ask}
    count = lambda part, **kw: engine.count_params(part, d_model=d, n_heads=h, num_layers=n, **kw)  # noqa: E731
    enc_layer, dec_layer, stacks = count("encoder_layer"), count("decoder_layer"), count("transformer")
    model = count("model", vocab=v, tied=share)
    table = v * d
    steps = (f"encoder 层：注意力 4d² + 4d，FFN 2·d·4d + 4d + d，两个 LayerNorm 4d，共 {big(enc_layer)}",
             f"decoder 层：两个注意力、FFN、三个 LayerNorm，共 {big(dec_layer)}",
             f"{n} 层 encoder + {n} 层 decoder + 两个堆叠末尾的 LayerNorm（各 2d）= {big(stacks)}",
             (f"共享的嵌入矩阵 V·d = {big(table)}" if share else f"三个不共享的 (V, d) 矩阵 3·V·d = {big(3 * table)}")
             + f"，输出层偏置 V = {v}",
             f"合计 {big(model)} ≈ {model / 1e6:.2f}M")
    no_cross = model - n * (count("mha") + count("layer_norm"))
    wrong = ((count("model", vocab=v, tied=not share), "嵌入矩阵共享了没有？共享时 (V, d) 只算一次，不共享时源、目标、输出各一个。"),
             (stacks, "别漏了嵌入矩阵和输出层：词表部分在小模型里占很大一块。"),
             (no_cross, "decoder 层比 encoder 层多一个 cross-attention（和一个 LayerNorm）。"))
    hints = tuple(Hint(count_ / 1e6, message) for count_, message in wrong if abs(count_ - model) >= 1e5)
    which = "源嵌入、目标嵌入和输出投影共享一个矩阵" if share else "源嵌入、目标嵌入和输出投影各用自己的矩阵"
    prompt = (f"encoder-decoder Transformer：V = {v}（源、目标共用词表），d_model = {d}，h = {h}，"
              f"encoder 和 decoder 各 N = {n} 层，d_ff = 4·d_model，{which}。按 PyTorch nn.Transformer 的结构"
              "（含所有偏置和 LayerNorm；nn.Transformer 不论 norm_first 都在两个堆叠末尾各放一个 LayerNorm，"
              "2017 年原论文的 Post-LN 没有）加上嵌入和输出层（输出层是带偏置的线性层 d_model → V），"
              "一共约多少百万（M）个参数？保留一位小数。")
    return Variant(prompt, "scalar", model / 1e6, MILLIONS, steps, hints, params=params)

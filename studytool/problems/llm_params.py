"""Parameters of decoder-only LLMs: GPT-2 and Llama style (GQA, SwiGLU), mixture-of-experts totals and active
parameters, and what LoRA adds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, one_of
from studytool.problems.drawing import FOUR_DECIMALS, big, num, pick, redrawn
from studytool.problems.llm_memory import _kv_heads, _wrong
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np



def _heads_for(rng, d: int, n_heads, n_kv_heads, gqa: bool) -> tuple[int, int]:
    """(h, n_kv): h dividing d into even heads (RoPE rotates pairs), n_kv = h (MHA) unless `gqa` or pinned."""
    h = n_heads if n_heads is not None else pick(rng, tuple(n for n in (2, 4, 8) if d % (2 * n) == 0) or (1,))
    if n_kv_heads is not None:
        return h, n_kv_heads
    return h, pick(rng, tuple(g for g in (1, 2, 4) if g < h and h % g == 0) or (h,)) if gqa else h


def _width(rng, n_heads, choices: tuple[int, ...]) -> int:
    """A drawn d_model that pinned heads split into even head dimensions."""
    return pick(rng, tuple(d for d in choices if n_heads is None or d % (2 * n_heads) == 0) or (2 * (n_heads or 1) * 32,))


def _rope_heads(p) -> str | None:
    d, h, kv = p.get("d_model"), p.get("n_heads"), p.get("n_kv_heads")
    if d is not None and (d % 2 if h is None else d % (2 * h)):
        return f"d_model ({d}) must split into n_heads heads of an even size (RoPE rotates pairs)"
    if kv is not None and h is None:
        return "n_kv_heads needs n_heads"
    return _kv_heads(p)


def gpt_config(vocab: int, context: int, d_model: int, num_layers: int):
    """A GPT-2-style engine config: learned positions, LayerNorm, GELU MLP of 4d, biases, tied head (multi-head
    attention's counts and FLOPs do not depend on the head count: one head)."""
    from studytool import engine

    return engine.LLMConfig("gpt2", vocab_size=vocab, d_model=d_model, n_layers=num_layers, n_heads=1, n_kv_heads=1,
                            head_dim=d_model, d_ff=4 * d_model, activation="gelu_new", max_positions=context,
                            tied_head=True)


def _attention(d: int, h: int, kv: int, head_dim: int) -> tuple[str, ...]:
    """The worked steps of a Llama attention's count (no biases): W_Q (d, h·hd), W_K and W_V (d, n_kv·hd), W_O."""
    q, k = h * head_dim, kv * head_dim
    count = d * q + 2 * d * k + q * d
    if kv == h and q == d:
        return (f"注意力：W_Q、W_K、W_V、W_O 四个 {d} × {d}，4 × {d}² = {big(count)}",)
    return (f"K、V 只有 n_kv · head_dim = {kv} × {head_dim} = {k} 宽；Q、O 为 h · head_dim = {h} × {head_dim} = {q}",
            f"注意力：{d} × {q} + 2 × {d} × {k} + {q} × {d} = {big(count)}")


DECODER_ASKS = ("gpt", "embed_share", "llama")


@generator(
    "decoder_params",
    "Parameters of a decoder-only model: GPT-2 style (learned positions, LayerNorm, biases, tied head; GPT-2 small "
    "124,439,808), its embeddings' share, or Llama style (RMSNorm, SwiGLU, no biases, untied, GQA).",
    asks=DECODER_ASKS,
    params=(
        Param("vocab", "vocabulary size V (default: drawn from 1000..9900)", None, int_in(1, 10_000_000)),
        Param("context", "learned positions of the GPT style (default: drawn from 128..1024)", None, int_in(1, 10**7)),
        Param("d_model", "model width (default: drawn from 64..384)", None, int_in(1, 100_000)),
        Param("num_layers", "layers (default: drawn from 2..6)", None, int_in(1, 1000)),
        Param("n_heads", "query heads of the Llama style (default: drawn)", None, int_in(1, 1024)),
        Param("n_kv_heads", "K/V heads of the Llama style (default: n_heads, MHA)", None, int_in(1, 1024)),
        Param("gqa", "draw fewer K/V heads than query heads (levels 2-3; default: false)", False,
              lambda v: None if isinstance(v, bool) else f"expected true or false, got {v!r}"),
        Param("d_ff", "SwiGLU hidden width of the Llama style (default: drawn near 8d/3)", None, int_in(1, 10**6)),
    ),
    example={"vocab": 50257, "context": 1024, "d_model": 768, "num_layers": 12, "ask": "gpt"},
    constraints=(_rope_heads,),
)
def decoder_params(rng: np.random.Generator, *, vocab, context, d_model, num_layers, n_heads, n_kv_heads, gqa, d_ff,
                   ask) -> Variant:
    """Decoder-only parameter counts (params: sizes, gqa, ask). GPT-2 small: 124,439,808."""
    return redrawn(lambda: _decoder(rng, vocab, context, d_model, num_layers, n_heads, n_kv_heads, gqa, d_ff, ask))


def _decoder(rng, vocab, context, d_model, num_layers, n_heads, n_kv_heads, gqa, d_ff, ask) -> Variant:
    from studytool import engine

    v = vocab if vocab is not None else int(rng.integers(10, 100)) * 100
    d = d_model if d_model is not None else _width(rng, n_heads, (64, 96, 128, 192, 256, 384))
    n = num_layers if num_layers is not None else pick(rng, (2, 3, 4, 6))
    params: dict[str, Any] = {"vocab": v, "d_model": d, "num_layers": n, "ask": ask}
    if ask in ("gpt", "embed_share"):
        ctx = context if context is not None else pick(rng, (128, 256, 512, 1024))
        params["context"] = ctx
        counts = engine.parameter_counts(gpt_config(v, ctx, d, n))
        layer, body, embeddings, total = (counts["per_layer"]["total"], counts["layers"], counts["embedding"],
                                          counts["total"])
        head = (f"一个 GPT-2 式 decoder-only 模型：词表 V = {v}，学出来的位置嵌入 {ctx} 个位置，d_model = {d}，{n} 层；"
                "每层 LayerNorm → 注意力 → LayerNorm → MLP（d → 4d → d），线性层和 LayerNorm 都有偏置，"
                "最后再接一个 LayerNorm；输出层与词嵌入共享权重（不另计）。")
        steps = (f"每层：两个 LayerNorm 2 × 2d = {4 * d}；c_attn {d} × {3 * d} + {3 * d}；c_proj {d} × {d} + {d}；"
                 f"MLP {d} × {4 * d} + {4 * d} 与 {4 * d} × {d} + {d}；合计 12d² + 13d = {big(layer)}",
                 f"{n} 层：{big(body)}",
                 f"词嵌入 {v} × {d} = {big(v * d)}，位置嵌入 {ctx} × {d} = {big(ctx * d)}，最后的 LayerNorm {2 * d}",
                 f"合计 {big(total)}")
        if ask == "gpt":
            hints = (Hint(total + v * d, "输出层与词嵌入共享，不要再算一遍 V × d。"),
                     Hint(total - ctx * d, f"别漏了位置嵌入 {ctx} × {d}。"),
                     Hint(total - n * 13 * d - 2 * d, "线性层的偏置和 LayerNorm 的 γ、β 也是参数。"))
            return Variant(head + "共有多少个参数？", "scalar", total, None, steps, _wrong(hints, total), params=params)
        share = embeddings / total
        steps += (f"嵌入（词 + 位置）占 {big(embeddings)} / {big(total)} = {num(share)}",)
        hints = (Hint(v * d / total, f"位置嵌入 {ctx} × {d} 也是嵌入。"), Hint(embeddings / body, "分母是全部参数。"))
        return Variant(head + "词嵌入和位置嵌入合起来占全部参数的比例是多少？（写成 0 到 1 之间的小数）", "scalar", share,
                       FOUR_DECIMALS, steps, _wrong(hints, share), params=params)
    h, kv = _heads_for(rng, d, n_heads, n_kv_heads, gqa)
    hd = d // h
    f = d_ff if d_ff is not None else (8 * d // 3 + 31) // 32 * 32 + 32 * int(rng.integers(0, 3))
    params |= {"n_heads": h, "n_kv_heads": kv, "d_ff": f}
    counts = engine.parameter_counts(engine.LLMConfig("llama", vocab_size=v, d_model=d, n_layers=n, n_heads=h,
                                                      n_kv_heads=kv, head_dim=hd, d_ff=f))
    attention, attention_steps = counts["per_layer"]["attention"], _attention(d, h, kv, hd)
    ffn, layer, total = counts["per_layer"]["mlp"], counts["per_layer"]["total"], counts["total"]
    head = (f"一个 Llama 式 decoder-only 模型：词表 V = {v}，d_model = {d}，{n} 层，每层 {h} 个 query 头、{kv} 个 K/V 头"
            f"（head_dim = {hd}），SwiGLU 的隐藏宽度 d_ff = {f}，RMSNorm（只有 γ），所有线性层都没有偏置，RoPE（无参数）；"
            "每层两个 RMSNorm，最后再接一个；输出层与词嵌入不共享。")
    steps = attention_steps + (
        f"SwiGLU：W₁、W₃（{d} × {f}）和 W₂（{f} × {d}），3 × {d} × {f} = {big(ffn)}",
        f"每层：{big(attention)} + {big(ffn)} + 2 × {d} = {big(layer)}；{n} 层 {big(n * layer)}",
        f"嵌入和输出层各 {v} × {d} = {big(v * d)}，最后的 RMSNorm {d}；合计 {big(total)}")
    hints = (Hint(total - v * d, "输出层与词嵌入不共享：两个 V × d 都要算。"),
             Hint(total - n * d * f, "SwiGLU 有三个矩阵（W₁、W₃、W₂），不是两个。"),
             Hint(total + n * (4 * d * d - attention), f"K、V 只有 {kv} 个头：W_K、W_V 是 {d} × {kv * hd}。"))
    return Variant(head + "共有多少个参数？", "scalar", total, None, steps, _wrong(hints, total), params=params)


MOE_ASKS = ("total", "active", "flops_token")


@generator(
    "moe_params",
    "A Mixtral-style MoE decoder: total parameters (E SwiGLU experts a layer), active ones (top-k), and forward FLOPs a "
    "token from the active ones.",
    asks=MOE_ASKS,
    params=(
        Param("d_model", "model width (default: drawn from 64..256)", None, int_in(1, 100_000)),
        Param("d_ff", "an expert's SwiGLU hidden width (default: drawn)", None, int_in(1, 10**6)),
        Param("num_layers", "layers (default: drawn from 2..6)", None, int_in(1, 1000)),
        Param("experts", "experts a layer E (default: drawn from 4, 8, 16)", None, int_in(2, 1024)),
        Param("top_k", "experts a token goes through (default: drawn from 1, 2)", None, int_in(1, 64)),
        Param("vocab", "vocabulary size (default: drawn)", None, int_in(1, 10_000_000)),
        Param("n_heads", "query heads (default: drawn)", None, int_in(1, 1024)),
        Param("n_kv_heads", "K/V heads (default: n_heads)", None, int_in(1, 1024)),
    ),
    example={"d_model": 4096, "d_ff": 14336, "num_layers": 32, "experts": 8, "top_k": 2, "vocab": 32000,
             "n_heads": 32, "n_kv_heads": 8, "ask": "active"},
    constraints=(_rope_heads, lambda p: "top_k must not exceed experts" if p.get("top_k") and p.get("experts") and
                 p["top_k"] > p["experts"] else None),
)
def moe_params(rng: np.random.Generator, *, d_model, d_ff, num_layers, experts, top_k, vocab, n_heads, n_kv_heads,
               ask) -> Variant:
    """MoE totals (params: sizes, experts, top_k, ask). Mixtral 8x7B: 46,702,792,704 total, 12,879,925,248 active."""
    return redrawn(lambda: _moe(rng, d_model, d_ff, num_layers, experts, top_k, vocab, n_heads, n_kv_heads, ask))


def _moe(rng, d_model, d_ff, num_layers, experts, top_k, vocab, n_heads, n_kv_heads, ask) -> Variant:
    from studytool import engine

    d = d_model if d_model is not None else _width(rng, n_heads, (64, 96, 128, 192, 256))
    f = d_ff if d_ff is not None else d * pick(rng, (2, 3, 4)) + 32 * int(rng.integers(0, 4))
    n = num_layers if num_layers is not None else pick(rng, (2, 3, 4, 6))
    e = experts if experts is not None else pick(rng, tuple(x for x in (4, 8, 16) if x > (top_k or 1)) or (2 * top_k,))
    k = top_k if top_k is not None else pick(rng, tuple(x for x in (1, 2) if x < e) or (1,))
    v = vocab if vocab is not None else int(rng.integers(10, 100)) * 100
    h, kv = _heads_for(rng, d, n_heads, n_kv_heads, gqa=False)
    params = {"d_model": d, "d_ff": f, "num_layers": n, "experts": e, "top_k": k, "vocab": v, "n_heads": h,
              "n_kv_heads": kv, "ask": ask}
    config = engine.LLMConfig("mixtral", vocab_size=v, d_model=d, n_layers=n, n_heads=h, n_kv_heads=kv,
                              head_dim=d // h, d_ff=f, n_experts=e, top_k=k)
    counts = engine.parameter_counts(config)
    attention, attention_steps = counts["per_layer"]["attention"], _attention(d, h, kv, d // h)
    expert, total, active = counts["expert"], counts["total"], counts["active"]
    shared = total - n * e * expert
    head = (f"一个 Mixtral 式 MoE decoder：词表 V = {v}，d_model = {d}，{n} 层，每层 {h} 个 query 头、{kv} 个 K/V 头，"
            f"每层的 FFN 换成 E = {e} 个 SwiGLU 专家（各有 W₁、W₃、W₂，隐藏宽度 {f}）和一个 {d} × {e} 的路由器，"
            f"每个 token 走 top-{k}；RMSNorm（每层两个、最后一个，只有 γ），没有偏置，嵌入与输出层不共享。")
    steps = attention_steps + (
        f"一个专家：3 × {d} × {f} = {big(expert)}；路由器 {d} × {e} = {d * e}",
        f"共用部分：{n} × ({big(attention)} + {d * e} + 2 × {d}) + 2 × {v} × {d} + {d} = {big(shared)}")
    if ask == "total":
        steps += (f"总参数 = 共用 + {n} 层 × {e} 个专家 × {big(expert)} = {big(total)}",)
        hints = (Hint(active, f"那是激活参数；总参数要算全部 {e} 个专家。"),
                 Hint(total - n * d * e, "路由器（每层 d × E）也是参数。"),
                 Hint(n * e * (attention + expert + 2 * d) + 2 * v * d + d, "注意力、嵌入和归一化是所有专家共用的，只算一份。"))
        return Variant(head + "总参数量是多少？", "scalar", total, None, steps, _wrong(hints, total), params=params)
    steps += (f"激活参数 = 共用 + {n} 层 × top-{k} × {big(expert)} = {big(active)}",)
    if ask == "active":
        hints = (Hint(total, f"每个 token 只经过 {k} 个专家；那是总参数。"),
                 Hint(active - n * d * e, "路由器每个 token 都要算，它的参数也是激活的。"))
        return Variant(head + "每个 token 的激活参数量是多少？", "scalar", active, None, steps, _wrong(hints, active),
                       params=params)
    one = engine.forward_flops(config, 1, 1)   # one token: its scores and weighted values are the 1 x 1 ones, left out
    flops = one["forward"] - n * (one["per_layer"]["scores"] + one["per_layer"]["weighted_values"]) - one["rope_angles"]
    matmul = flops // 2
    steps += (f"参与矩阵乘法的：每层注意力 {big(attention)}、路由器 {d * e}、{k} 个专家 {big(k * expert)}，"
              f"再加输出层 {v} × {d}：{big(matmul)}（输入嵌入是查表，RMSNorm 是逐元素运算）",
              f"每个参数一次乘加 = 2 FLOPs：2 × {big(matmul)} = {big(flops)}")
    hints = (Hint(2 * active, "输入嵌入是查表、RMSNorm 是逐元素运算，都不是矩阵乘法。"),
             Hint(2 * (matmul + n * (e - k) * expert), f"只有被选中的 {k} 个专家参与计算。"),
             Hint(matmul, "一次乘加算 2 FLOPs。"))
    return Variant(head + "前向每个 token 的矩阵乘法共多少 FLOPs（一次乘加 = 2 FLOPs；忽略注意力中与序列长度有关的打分和加权，"
                   "以及 RoPE 的角度表）？",
                   "scalar", flops, None, steps,
                   _wrong(hints, flops), params=params)


LORA_ASKS = ("count", "fraction")
TARGETS = {"qv": "W_q 和 W_v", "attention": "W_q、W_k、W_v、W_o", "all": "W_q、W_k、W_v、W_o 和 SwiGLU 的 W₁、W₃、W₂"}


@generator(
    "lora_params",
    "LoRA: r(d_in + d_out) trainable parameters per adapted matrix, over the targets and layers; or their share of "
    "the adapted matrices, in percent.",
    asks=LORA_ASKS,
    params=(
        Param("d_model", "model width (default: drawn from 512..4096)", None, int_in(1, 100_000)),
        Param("rank", "LoRA rank r (default: drawn from 4..64)", None, int_in(1, 4096)),
        Param("num_layers", "layers (default: drawn from 12..32)", None, int_in(1, 1000)),
        Param("targets", "adapted matrices: qv, attention, all (default: qv)", "qv", one_of(*TARGETS)),
        Param("n_heads", "query heads for GQA targets (default: drawn)", None, int_in(1, 1024)),
        Param("n_kv_heads", "K/V heads (default: drawn)", None, int_in(1, 1024)),
        Param("d_ff", "SwiGLU width for targets=all (default: drawn)", None, int_in(1, 10**6)),
    ),
    example={"d_model": 4096, "rank": 8, "num_layers": 32, "targets": "qv", "ask": "count"},
    constraints=(_kv_heads,),
)
def lora_params(rng: np.random.Generator, *, d_model, rank, num_layers, targets, n_heads, n_kv_heads, d_ff,
                ask) -> Variant:
    """LoRA's trainable parameters (params: d_model, rank, num_layers, targets, ask). d = 4096, r = 8 on W_q and W_v
    of 32 layers: 4,194,304."""
    return redrawn(lambda: _lora(rng, d_model, rank, num_layers, targets, n_heads, n_kv_heads, d_ff, ask))


def _lora(rng, d_model, rank, num_layers, targets, n_heads, n_kv_heads, d_ff, ask) -> Variant:
    d = d_model if d_model is not None else pick(rng, (512, 640, 768, 896, 1024, 1280, 1536, 2048, 2560, 3072, 3584,
                                                       4096, 5120))
    r = rank if rank is not None else pick(rng, (4, 8, 12, 16, 24, 32, 64))
    n = num_layers if num_layers is not None else pick(rng, (12, 16, 24, 28, 32))
    params: dict[str, Any] = {"d_model": d, "rank": r, "num_layers": n, "targets": targets, "ask": ask}
    matrices = [("W_q", d, d), ("W_v", d, d)]
    said = f"d_model = {d}，{n} 层"
    if targets != "qv":
        h = n_heads if n_heads is not None else pick(rng, tuple(n for n in (8, 16, 32) if d % n == 0) or (1,))
        kv = n_kv_heads if n_kv_heads is not None else pick(rng, tuple(g for g in (2, 4, 8) if g < h and h % g == 0)
                                                            or (h,))
        width = kv * d // h
        matrices = [("W_q", d, d), ("W_k", d, width), ("W_v", d, width), ("W_o", d, d)]
        params |= {"n_heads": h, "n_kv_heads": kv}
        said += f"，每层 {h} 个 query 头、{kv} 个 K/V 头，head_dim = {d // h}，W_k、W_v 为 {d} × {width}"   # inside （）
        if targets == "all":
            f = d_ff if d_ff is not None else (8 * d // 3 + 255) // 256 * 256
            params["d_ff"] = f
            matrices += [("W₁", d, f), ("W₃", d, f), ("W₂", f, d)]
            said += f"，SwiGLU 的 d_ff = {f}"
    added = sum(r * (a + b) for _, a, b in matrices)
    original = sum(a * b for _, a, b in matrices)
    head = (f"给一个模型（{said}）做 LoRA 微调，秩 r = {r}，加在每层的 {TARGETS[targets]} 上"
            "（W' = W + BA，A 为 r × d_in，B 为 d_out × r）。")
    shapes: tuple[str, ...] = ()
    if targets != "qv":
        shapes += (f"K/V 头只有 {params['n_kv_heads']} 个：W_k、W_v 为 {d} × ({params['n_kv_heads']} × "
                   f"{d // params['n_heads']}) = {d} × {params['n_kv_heads'] * d // params['n_heads']}；W_q、W_o 为 {d} × {d}",)
    if targets == "all":
        shapes += (f"SwiGLU：W₁、W₃ 为 {d} × {params['d_ff']}，W₂ 为 {params['d_ff']} × {d}",)
    steps = shapes + ("每个矩阵加 r · (d_in + d_out)：" + "，".join(f"{name} {r} × ({a} + {b}) = {big(r * (a + b))}"
                                                              for name, a, b in matrices),
             f"每层 {big(added)}，{n} 层共 {big(n * added)}")
    if ask == "count":
        answer = n * added
        hints = (Hint(n * sum(r * a * b for _, a, b in matrices), "不是 r · d_in · d_out：A、B 两个矩阵，r · (d_in + d_out)。"),
                 Hint(added, f"每一层都加：乘层数 {n}。"), Hint(answer / 2, "A 和 B 两个矩阵都要算。"))
        return Variant(head + "可训练参数共多少个？", "scalar", answer, None, steps, _wrong(hints, answer), params=params)
    share = 100 * added / original
    steps += (f"这些矩阵原有 " + " + ".join(f"{a} × {b}" for _, a, b in matrices) + f" = {big(original)} 个参数（每层）",
              f"占比 {big(added)} / {big(original)} = {num(share)}%")
    hints = (Hint(share / 2, "A 和 B 两个矩阵都要算。"), Hint(100 * r / d, "每个 d × d 矩阵加的是 r · 2d，占 2r/d。"))
    return Variant(head + "可训练参数占这些被适配矩阵原有参数的百分之几？（写百分数的数值，例如 1.5 表示 1.5%）", "scalar", share,
                   FOUR_DECIMALS, steps, _wrong(hints, share), params=params)

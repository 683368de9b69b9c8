"""Memory of an LLM: the KV cache with GQA (and in PagedAttention's blocks), training state per GPU, quantized weights."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, is_int, is_number, one_of
from studytool.problems.drawing import FOUR_DECIMALS, TRIES, big, num, on_screen, pick
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

KIB, MIB, GIB = 2**10, 2**20, 2**30
GB = 10**9   # ZeRO's and a model card's gigabyte
DTYPES = {1: "fp8", 2: "bf16", 4: "fp32"}


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {value!r}"


def _billions(value: Any) -> str | None:
    return None if is_number(value) and 0.01 <= value <= 10_000 else f"expected 0.01..10000 (billions), got {value!r}"


def _kv_heads(p: Mapping[str, Any]) -> str | None:
    h, kv = p.get("n_heads"), p.get("n_kv_heads")
    if h is not None and kv is not None and (kv > h or h % kv):
        return f"n_kv_heads ({kv}) must divide n_heads ({h})"
    return None


def _dtype(width: int, named: bool) -> str:
    """How the prompt states the precision: level 3 names the format only, so its byte width is a step to know."""
    return f"{DTYPES[width]} 格式" if named else f"{DTYPES[width]}（每个数 {width} 字节）"


def _g(x: float) -> str:
    """A given input as written by hand: 7.5, 65, 0.8 (not 65.100000)."""
    return f"{x:.10g}"


def _wrong(hints: tuple[Hint, ...], answer: float) -> tuple[Hint, ...]:
    return tuple(hint for hint in hints if abs(hint.answer - answer) > 1e-4)


KV_ASKS = ("per_token", "total", "saved", "pages", "waste")


@generator(
    "gqa_kv_cache",
    "KV cache with GQA: 2 * layers * n_kv * head_dim * bytes per token; the whole cache, what GQA saves against MHA, "
    "PagedAttention's blocks and their empty tail.",
    asks=KV_ASKS,
    params=(
        Param("num_layers", "decoder layers (default: drawn from 12..36)", None, int_in(1, 1000)),
        Param("n_heads", "query heads (default: drawn from 8, 16, 32)", None, int_in(1, 1024)),
        Param("n_kv_heads", "K/V heads, dividing n_heads (default: drawn, fewer than n_heads)", None, int_in(1, 1024)),
        Param("head_dim", "dimension of one head (default: drawn from 64, 128)", None, int_in(1, 4096)),
        Param("bytes_per_value", "bytes per cached number: 1 fp8, 2 bf16, 4 fp32 (default: drawn)", None,
              lambda v: None if is_int(v) and v in DTYPES else f"expected 1, 2 or 4, got {v!r}"),
        Param("batch", "sequences cached together (default: drawn from 1..8)", None, int_in(1, 4096)),
        Param("seq_len", "tokens cached per sequence (default: drawn)", None, int_in(1, 10_000_000)),
        Param("block_size", "tokens per PagedAttention block, 2 or more (default: drawn from 8, 16, 32)", None,
              int_in(2, 4096)),
        Param("named_dtype", "name the precision without its bytes (level 3; default: false)", False, _flag),
    ),
    example={"num_layers": 32, "n_heads": 32, "n_kv_heads": 8, "head_dim": 128, "bytes_per_value": 2,
             "batch": 1, "seq_len": 8192, "ask": "per_token"},
    constraints=(_kv_heads,),
)
def gqa_kv_cache(rng: np.random.Generator, *, num_layers, n_heads, n_kv_heads, head_dim, bytes_per_value, batch,
                 seq_len, block_size, named_dtype, ask) -> Variant:
    """The KV cache of a GQA decoder (params: sizes, bytes_per_value, batch, seq_len, block_size, named_dtype, ask).

    Llama-3-8B (32 layers, 8 K/V heads of 128, bf16): 128 KiB a token, where MHA's 32 heads would take 512.
    """
    for _ in range(TRIES):
        variant = _kv_variant(rng, num_layers, n_heads, n_kv_heads, head_dim, bytes_per_value, batch, seq_len,
                              block_size, named_dtype, ask)
        if not on_screen(variant.prompt, variant.answer):
            break
    return variant


def _kv_variant(rng, num_layers, n_heads, n_kv_heads, head_dim, bytes_per_value, batch, seq_len, block_size,
                named_dtype, ask) -> Variant:
    from studytool import engine

    layers = num_layers if num_layers is not None else pick(rng, (12, 16, 24, 28, 32, 36))
    h = n_heads if n_heads is not None else pick(rng, (8, 16, 32) if n_kv_heads is None else
                                                 tuple(n_kv_heads * g for g in (1, 2, 4, 8)))
    kv = n_kv_heads if n_kv_heads is not None else pick(rng, tuple(g for g in (1, 2, 4, 8) if g < h and h % g == 0)
                                                        or (h,))
    hd = head_dim if head_dim is not None else pick(rng, (64, 128))
    width = bytes_per_value if bytes_per_value is not None else pick(rng, (1, 2, 4))
    b = batch if batch is not None else pick(rng, (1, 2, 4, 8))
    paged = ask in ("pages", "waste")
    bs = block_size if block_size is not None else pick(rng, (8, 16, 32))
    length = seq_len if seq_len is not None else (
        int(rng.integers(100, 5000)) if paged else pick(rng, (2048, 4096, 8192, 16384, 32768)))
    if paged and seq_len is None and length % bs == 0:
        length += int(rng.integers(1, bs))   # a full last block would leave nothing to waste
    params = {"num_layers": layers, "n_heads": h, "n_kv_heads": kv, "head_dim": hd, "bytes_per_value": width,
              "batch": b, "seq_len": length, "named_dtype": named_dtype, "ask": ask}
    token = engine.kv_cache_bytes(layers, 1, 1, kv * hd, width)          # one token, every layer, K and V
    head = (f"一个 decoder-only 模型：{layers} 层，每层 {h} 个 query 头、{kv} 个 K/V 头（GQA），head_dim = {hd}，"
            f"KV cache 按 {_dtype(width, named_dtype)}存储。")
    steps = ((f"{DTYPES[width]}：每个数 {width} 字节",) if named_dtype else ()) + (
        f"每层每个 token 存 K、V 各 n_kv · head_dim = {kv} × {hd} = {kv * hd} 个数",
        f"每个 token：2 × {layers} 层 × {kv * hd} × {width} 字节 = {big(token)} 字节")
    mha_token = engine.kv_cache_bytes(layers, 1, 1, h * hd, width)
    common = (Hint(token / 2, "K 和 V 都要存：乘 2。"), Hint(mha_token, f"K/V 头只有 {kv} 个；{h} 个 query 头不各存一份。"),
              Hint(token / layers, f"每一层都有自己的缓存：乘层数 {layers}。"))
    if ask == "per_token":
        answer = token / KIB
        steps += (f"{big(token)} / 1024 = {num(answer)} KiB",)
        return Variant(head + "序列每多一个 token，KV cache 增加多少 KiB（1 KiB = 1024 字节）？", "scalar", answer,
                       FOUR_DECIMALS, steps, _wrong(tuple(Hint(x.answer / KIB, x.message) for x in common), answer),
                       params=params)
    if ask in ("total", "saved"):
        total = engine.kv_cache_bytes(layers, b, length, kv * hd, width)
        where = f"batch B = {b}、每条序列缓存 L = {length} 个 token 时，"
        steps += (f"× B × L = {big(token)} × {b} × {length} = {big(total)} 字节",)
        if ask == "total":
            answer = total / GIB
            steps += (f"{big(total)} / 2³⁰ = {num(answer)} GiB",)
            hints = tuple(Hint(x.answer * b * length / GIB, x.message) for x in common) + (
                Hint(token * length / GIB, f"batch 里 {b} 条序列各有自己的缓存。"),)
            return Variant(head + where + "整个 KV cache 占多少 GiB（1 GiB = 2³⁰ 字节）？", "scalar", answer,
                           FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)
        mha = engine.kv_cache_bytes(layers, b, length, h * hd, width)
        answer = (mha - total) / GIB
        steps += (f"同样结构的 MHA 有 {h} 个 K/V 头：{big(mha)} 字节",
                  f"少占 {big(mha)} − {big(total)} = {big(mha - total)} 字节 = {num(answer)} GiB"
                  f"（GQA 只要 MHA 的 {kv}/{h}）")
        hints = (Hint(total / GIB, "那是 GQA 缓存本身的大小；问的是比 MHA 少多少。"),
                 Hint(mha / GIB, "那是 MHA 缓存的大小；还要减去 GQA 的。"),
                 Hint((mha - total) / 2 / GIB, "K 和 V 都要存：乘 2。"))
        return Variant(head + where + f"与同样结构、{h} 个 K/V 头的 MHA 相比，GQA 的 KV cache 少占多少 GiB"
                       "（1 GiB = 2³⁰ 字节）？", "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer),
                       params=params)
    params["block_size"] = bs
    blocks = -(-length // bs)
    block_bytes = bs * token
    where = f"用 PagedAttention 管理缓存，每块存 {bs} 个 token 的 K、V；一条序列已缓存 L = {length} 个 token。"
    steps += (f"块数 = ⌈{length} / {bs}⌉ = {blocks}", f"每块 {bs} × {big(token)} = {big(block_bytes)} 字节")
    if ask == "pages":
        answer = blocks * block_bytes / MIB
        steps += (f"{blocks} × {big(block_bytes)} = {big(blocks * block_bytes)} 字节 = {num(answer)} MiB",)
        hints = (Hint(length * token / MIB, "块是整块分配的：最后一块没填满也占一整块。"),
                 Hint(blocks * block_bytes / 2 / MIB, "K 和 V 都要存：乘 2。"),
                 Hint((blocks - 1) * block_bytes / MIB, f"块数要向上取整：⌈{length} / {bs}⌉。"))
        return Variant(head + where + "它占用的块共多少 MiB（1 MiB = 2²⁰ 字节）？", "scalar", answer, FOUR_DECIMALS,
                       steps, _wrong(hints, answer), params=params)
    empty = blocks * bs - length
    answer = empty * token / MIB
    steps += (f"分配了 {blocks} × {bs} = {blocks * bs} 个 token 的位置，空着 {blocks * bs} − {length} = {empty} 个",
              f"{empty} × {big(token)} = {big(empty * token)} 字节 = {num(answer)} MiB")
    hints = (Hint(blocks * block_bytes / MIB, "那是占用的全部块；问的是最后一块空着的部分。"),
             Hint(empty * token / 2 / MIB, "K 和 V 都要存：乘 2。"))
    return Variant(head + where + "最后一块没填满，空着的位置占多少 MiB（1 MiB = 2²⁰ 字节）？", "scalar", answer,
                   FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)


# Training state per parameter: (what is stored, its bytes), by setup. The fp32 setups name only the optimizer (knowing
# what AdamW keeps is the question); the 16-bit ones state every tensor's precision (adding them up is).
SETUPS: dict[str, tuple[str, tuple[tuple[str, int], ...]]] = {
    "fp32_adamw": ("纯 fp32 训练，优化器 AdamW", (("参数", 4), ("梯度", 4), ("m", 4), ("v", 4))),
    "fp32_momentum": ("纯 fp32 训练，优化器是带动量的 SGD", (("参数", 4), ("梯度", 4), ("动量", 4))),
    "fp32_sgd": ("纯 fp32 训练，优化器是不带动量的 SGD", (("参数", 4), ("梯度", 4))),
    "mixed_master": ("混合精度：参数和梯度存成 bf16，另存一份 fp32 主权重，AdamW 的 m、v 存成 fp32",
                     (("bf16 参数", 2), ("bf16 梯度", 2), ("fp32 主权重", 4), ("m", 4), ("v", 4))),
    "bf16_fp32_states": ("参数和梯度存成 bf16、不存 fp32 主权重，AdamW 的 m、v 存成 fp32",
                         (("bf16 参数", 2), ("bf16 梯度", 2), ("m", 4), ("v", 4))),
    "bf16_all": ("参数、梯度和 AdamW 的 m、v 全部存成 bf16", (("参数", 2), ("梯度", 2), ("m", 2), ("v", 2))),
}
_FP32 = ("fp32_adamw", "fp32_momentum", "fp32_sgd")
_MIXED = ("mixed_master", "bf16_fp32_states", "bf16_all")
# ZeRO (arXiv 1910.02054) §5, mixed-precision Adam: per GPU, in units of Psi bytes, (kept whole, divided by N_d)
ZERO = {1: (4, 12), 2: (2, 14), 3: (0, 16)}
_ZERO_PARTS = {1: "优化器状态（12Ψ）", 2: "优化器状态和梯度（14Ψ）", 3: "优化器状态、梯度和参数（16Ψ）"}
MEMORY_ASKS = ("total", "mixed", "zero", "gpus")


def training_bytes(setup: str) -> int:
    """Bytes per parameter of a setup: the sum over what it stores."""
    return sum(size for _, size in SETUPS[setup][1])


@generator(
    "training_memory",
    "Training state (parameters, gradients, optimizer) without activations, in GB: a setup's bytes per parameter times "
    "the parameters, ZeRO's share per GPU, or the fewest GPUs ZeRO-3 needs.",
    asks=MEMORY_ASKS,
    params=(
        Param("params_billion", "parameters Psi in billions (default: drawn from 0.5..80)", None, _billions),
        Param("setup", "what is stored in which precision (default: drawn for the ask)", None, one_of(*SETUPS)),
        Param("gpus", "data-parallel GPUs N_d for ask=zero (default: drawn from 8..128)", None, int_in(1, 100_000)),
        Param("stage", "ZeRO stage 1..3 for ask=zero (default: drawn)", None, int_in(1, 3)),
        Param("gpu_memory", "GB a GPU holds for ask=gpus (default: drawn from 40, 80)", None, int_in(1, 10_000)),
    ),
    example={"params_billion": 7.5, "gpus": 64, "stage": 1, "ask": "zero"},
)
def training_memory(rng: np.random.Generator, *, params_billion, setup, gpus, stage, gpu_memory, ask) -> Variant:
    """Training state in GB = 10⁹ bytes, activations not counted (params: params_billion, setup, gpus, stage,
    gpu_memory, ask). ZeRO's own example: Psi = 7.5B on 64 GPUs, stage 1: 4Ψ + 12Ψ/64 = 31.4 GB a GPU."""
    for _ in range(TRIES):
        variant = _memory_variant(rng, params_billion, setup, gpus, stage, gpu_memory, ask)
        if not on_screen(variant.prompt, variant.answer):
            break
    return variant


def _memory_variant(rng, params_billion, setup, gpus, stage, gpu_memory, ask) -> Variant:
    psi = params_billion if params_billion is not None else int(rng.integers(5, 800)) / 10
    params: dict[str, Any] = {"params_billion": psi, "ask": ask}
    unit = "不算激活，1 GB = 10⁹ 字节。"
    if ask in ("total", "mixed"):
        chosen = setup if setup is not None else pick(rng, _FP32 if ask == "total" else _MIXED)
        said, parts = SETUPS[chosen]
        per = training_bytes(chosen)
        answer = per * psi
        params["setup"] = chosen
        steps = (" + ".join(f"{name} {size}" for name, size in parts) + f" = {per} 字节/参数",
                 f"{per} × {_g(psi)} × 10⁹ = {num(answer)} × 10⁹ 字节 = {num(answer)} GB")
        hints = (Hint(2 * psi if ask == "mixed" else 4 * psi, "那只是参数本身；梯度和优化器状态也要存。"),
                 Hint((per - 4) * psi if "m" in dict(parts) and ask == "total" else -1.0,
                      "AdamW 为每个参数存 m 和 v 两个状态。"))
        prompt = f"训练一个 {_g(psi)}B（{_g(psi)} × 10⁹）参数的模型，{said}。参数、梯度和优化器状态共占多少 GB？" + unit
        return Variant(prompt, "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)
    if ask == "zero":
        n = gpus if gpus is not None else pick(rng, (8, 16, 32, 64, 128))
        s = stage if stage is not None else int(rng.integers(1, 4))
        kept, split = ZERO[s]
        answer = kept * psi + split * psi / n
        params |= {"gpus": n, "stage": s}
        steps = ("混合精度 AdamW：bf16 参数 2 + bf16 梯度 2 + 优化器状态 12（fp32 主权重、m、v）= 16 字节/参数",
                 f"ZeRO-{s} 把{_ZERO_PARTS[s]}切成 {n} 份，其余每张卡各存一份：{kept}Ψ + {split}Ψ / {n}",
                 f"= {kept} × {_g(psi)} + {split} × {_g(psi)} / {n} = {num(answer)} GB")
        hints = (Hint(16 * psi, f"ZeRO-{s} 会把一部分状态切到 {n} 张卡上。"),
                 Hint(16 * psi / n, f"ZeRO-{s} 只切{_ZERO_PARTS[s]}，其余每张卡都有完整的一份。"))
        prompt = (f"用 {n} 张卡数据并行训练一个 {_g(psi)}B 参数的模型，混合精度 AdamW（bf16 参数和梯度，fp32 主权重、m、v），"
                  f"开 ZeRO stage {s}。每张卡上的参数、梯度和优化器状态共占多少 GB？" + unit)
        return Variant(prompt, "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)
    chosen = setup if setup is not None else pick(rng, tuple(SETUPS))
    memory = gpu_memory if gpu_memory is not None else pick(rng, (40, 80))
    said, parts = SETUPS[chosen]
    per = training_bytes(chosen)
    need = per * psi
    answer = math.ceil(need / memory - 1e-9)
    params |= {"setup": chosen, "gpu_memory": memory}
    steps = (" + ".join(f"{name} {size}" for name, size in parts) + f" = {per} 字节/参数",
             f"共 {per} × {_g(psi)} = {num(need)} GB；ZeRO-3 把它们全部平均切到 N 张卡上",
             f"每张卡 {num(need)} / N ≤ {memory}：N ≥ {num(need)} / {memory} = {num(need / memory)}",
             f"卡数是整数，向上取整：N = {answer}")
    hints = (Hint(math.floor(need / memory + 1e-9), "卡数要向上取整：少一张就放不下。"),
             Hint(math.ceil(2 * psi / memory - 1e-9), "不只是参数：梯度和优化器状态也要切分存放。"))
    prompt = (f"训练一个 {_g(psi)}B 参数的模型，{said}；用 ZeRO stage 3（参数、梯度、优化器状态全部切分）。"
              f"每张卡最多放 {memory} GB 这些状态，至少要多少张卡？" + unit)
    return Variant(prompt, "scalar", answer, None, steps, _wrong(hints, answer), params=params)


WEIGHT_ASKS = ("grouped", "embed")


@generator(
    "weight_memory",
    "Quantized weights in GB: b bits a weight plus one 16-bit scale per group of g, optionally with bf16 embeddings.",
    asks=WEIGHT_ASKS,
    params=(
        Param("params_billion", "parameters in billions (default: drawn from 1..80)", None, _billions),
        Param("bits", "bits per quantized weight (default: drawn from 3, 4, 8)", None, int_in(1, 16)),
        Param("group", "weights sharing one fp16 scale (default: drawn from 32, 64, 128)", None, int_in(1, 1_000_000)),
        Param("embed_billion", "parameters kept in bf16 (embedding and output layer) for ask=embed (default: drawn)",
              None, _billions),
    ),
    example={"params_billion": 7, "bits": 4, "group": 128, "ask": "grouped"},
)
def weight_memory(rng: np.random.Generator, *, params_billion, bits, group, embed_billion, ask) -> Variant:
    """Weights quantized group-wise, in GB = 10⁹ bytes (params: params_billion, bits, group, embed_billion, ask).

    A 7B model at 4 bits with a fp16 scale per 128 weights: 7 · (4 + 16/128) / 8 = 3.609375 GB.
    """
    for _ in range(TRIES):
        psi = params_billion if params_billion is not None else int(rng.integers(10, 800)) / 10
        b = bits if bits is not None else pick(rng, (3, 4, 8))
        g = group if group is not None else pick(rng, (32, 64, 128))
        per = b + 16 / g
        head = (f"一个 {_g(psi)}B（{_g(psi)} × 10⁹）参数的模型，权重量化成 int{b}（每个 {b} 位），"
                f"每 {g} 个权重共用一个 fp16 缩放因子（16 位）。")
        steps = (f"每个权重平均 {b} + 16 / {g} = {num(per)} 位",)
        params = {"params_billion": psi, "bits": b, "group": g, "ask": ask}
        if ask == "grouped":
            answer = psi * per / 8
            steps += (f"{_g(psi)} × 10⁹ × {num(per)} / 8 = {num(answer)} × 10⁹ 字节 = {num(answer)} GB",)
            hints = (Hint(psi * b / 8, "还有缩放因子：每组多 16 位。"), Hint(psi * per, "位要除以 8 才是字节。"))
            prompt = head + "只算权重，共占多少 GB（1 GB = 10⁹ 字节）？"
        else:
            e = embed_billion if embed_billion is not None else int(rng.integers(2, 11)) / 10 * min(psi, 10) / 5
            e = max(0.01, round(min(e, psi / 2), 3))
            params["embed_billion"] = e
            quantized = (psi - e) * per / 8
            answer = quantized + 2 * e
            steps += (f"量化部分 {_g(psi)} − {_g(e)} = {_g(psi - e)}B 参数：{_g(psi - e)} × {num(per)} / 8 = "
                      f"{num(quantized)} GB",
                      f"嵌入层和输出层 {_g(e)}B 参数保持 bf16：{_g(e)} × 2 = {_g(2 * e)} GB",
                      f"合计 {num(quantized)} + {_g(2 * e)} = {num(answer)} GB")
            hints = (Hint(psi * per / 8, f"嵌入层和输出层的 {_g(e)}B 参数没有量化，按 bf16 每个 2 字节。"),
                     Hint(quantized + e * per / 8 + 2 * e, "量化的只是其余参数：先从总数里减去保持 bf16 的那部分。"))
            prompt = head + f"但嵌入层和输出层（共 {_g(e)}B 参数）保持 bf16 不量化。只算权重，共占多少 GB（1 GB = 10⁹ 字节）？"
        variant = Variant(prompt, "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)
        if not on_screen(variant.prompt, variant.answer):
            break
    return variant


ACTIVATION_ASKS = ("full", "checkpoint_saving")


@generator(
    "activation_memory",
    "Activations kept for the backward pass (Korthikanti et al. 2022: s·b·h·(34 + 5·a·s/h) bytes a layer) in GiB, or "
    "what full activation checkpointing (each layer's 16-bit input, 2·s·b·h) saves.",
    asks=ACTIVATION_ASKS,
    params=(
        Param("num_layers", "layers (default: drawn from 4..12)", None, int_in(1, 1000)),
        Param("d_model", "hidden size h (default: drawn from 512..1024)", None, int_in(1, 100_000)),
        Param("n_heads", "attention heads a (default: drawn, dividing h)", None, int_in(1, 1024)),
        Param("batch", "sequences b (default: drawn from 2..8)", None, int_in(1, 4096)),
        Param("seq_len", "sequence length s (default: drawn from 512..2048)", None, int_in(1, 1_000_000)),
    ),
    example={"num_layers": 24, "d_model": 1024, "n_heads": 16, "batch": 8, "seq_len": 1024, "ask": "full"},
)
def activation_memory(rng: np.random.Generator, *, num_layers, d_model, n_heads, batch, seq_len, ask) -> Variant:
    """Activation memory of a GPT-style model in training, from the engine's training_memory (params: sizes, ask).
    GPT-2 medium's shape (24 layers, h 1024, 16 heads), b 8, s 1024: 24 · (34 sbh + 5 a s² b) bytes = 21.375 GiB."""
    for _ in range(TRIES):
        variant = _activations(rng, num_layers, d_model, n_heads, batch, seq_len, ask)
        if not on_screen(variant.prompt, variant.answer):
            break
    return variant


def _activations(rng, num_layers, d_model, n_heads, batch, seq_len, ask) -> Variant:
    from studytool import engine

    n = num_layers if num_layers is not None else pick(rng, (4, 6, 8, 12))
    h = d_model if d_model is not None else pick(rng, (512, 768, 1024))
    a = n_heads if n_heads is not None else pick(rng, tuple(x for x in (4, 8, 12, 16) if h % x == 0) or (1,))
    b = batch if batch is not None else pick(rng, (2, 4, 8))
    s = seq_len if seq_len is not None else pick(rng, (512, 1024, 2048))
    params = {"num_layers": n, "d_model": h, "n_heads": a, "batch": b, "seq_len": s, "ask": ask}
    config = engine.LLMConfig("gpt2", vocab_size=1, d_model=h, n_layers=n, n_heads=a, n_kv_heads=a, head_dim=h // a or 1,
                              d_ff=4 * h, activation="gelu_new", max_positions=s, tied_head=True)
    activations = engine.training_memory(config, b, s)["activations"]
    full, kept = activations["full"], activations["checkpointed"]
    head = (f"训练一个 GPT 式模型（MHA）：{n} 层，隐藏维 h = {h}，{a} 个头，batch b = {b}，序列长 s = {s}。按 Korthikanti 等 "
            "2022 的估计（16 位激活、1 字节 dropout 掩码、无张量并行和序列并行、不重算），每层为反向传播存下的激活是 "
            "s·b·h·(34 + 5·a·s/h) 字节（5·a·s/h 一项来自注意力的 s × s 分数、softmax 和 dropout）。")
    per_layer = full // n
    steps = (f"34·s·b·h = 34 × {s} × {b} × {h} = {big(34 * s * b * h)}",
             f"5·a·s²·b = 5 × {a} × {s}² × {b} = {big(5 * a * s * s * b)}",
             f"每层 {big(per_layer)} 字节，{n} 层 {big(full)} 字节 = {num(full / GIB)} GiB")
    if ask == "full":
        answer = full / GIB
        hints = (Hint(34 * s * b * h * n / GIB, "别漏了注意力那一项 5·a·s/h：它随 s² 增长。"),
                 Hint(per_layer / GIB, f"每一层都要存：乘层数 {n}。"))
        return Variant(head + "所有层的激活共多少 GiB（1 GiB = 2³⁰ 字节）？", "scalar", answer, FOUR_DECIMALS, steps,
                       _wrong(hints, answer), params=params)
    answer = (full - kept) / GIB
    steps += (f"全模型 checkpointing：每层只存 16 位的输入 2·s·b·h = {big(kept // n)} 字节，{n} 层 {big(kept)} 字节",
              f"省下 {big(full)} − {big(kept)} = {big(full - kept)} 字节 = {num(answer)} GiB（代价：反向时多做一次前向）")
    hints = (Hint(full / GIB, "那是不做 checkpointing 时的全部激活；还要减去每层仍要存的输入。"),
             Hint(kept / GIB, "那是 checkpointing 后仍要存的；问的是省下多少。"))
    return Variant(head + "若对每一层做 activation checkpointing（每层只存 16 位的输入 2·s·b·h 字节，反向时重算），"
                   "能省下多少 GiB（1 GiB = 2³⁰ 字节）？", "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer),
                   params=params)

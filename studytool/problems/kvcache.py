"""KV-cache memory: 2 (K and V) · layers · B · L · d_model · bytes per value, from the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studytool.problems.checks import int_in, is_int
from studytool.problems.drawing import FOUR_DECIMALS, big, num, pick
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

ASKS = ("total", "per_token")

MIB = 2**20
KIB = 2**10
_PRECISION = {2: "fp16/bf16", 4: "fp32", 1: "int8"}


@generator(
    "kv_cache",
    "KV-cache memory 2 * layers * B * L * d_model * bytes: the whole cache in MiB, or one more token in KiB.",
    asks=ASKS,
    params=(
        Param("num_layers", "decoder layers (default: drawn from 6, 12, 24, 32)", None, int_in(1, 1000)),
        Param("batch", "sequences decoded together (default: drawn from 1, 2, 4, 8)", None, int_in(1, 4096)),
        Param("seq_len", "tokens cached per sequence (default: drawn from 512..4096)", None, int_in(1, 1_000_000)),
        Param("d_model", "model width (default: drawn from 512..4096)", None, int_in(1, 100_000)),
        Param("bytes_per_value", "bytes per stored number: 1 int8, 2 fp16/bf16, 4 fp32 (default: drawn 2 or 4)",
            None, lambda v: None if is_int(v) and v in (1, 2, 4) else f"expected 1, 2 or 4, got {v!r}"),
        Param("n_heads", "query heads, with kv_heads: grouped-query attention (level 3; default: none)", None,
              int_in(1, 1024)),
        Param("kv_heads", "K/V heads shared by groups of query heads (GQA; 1 = MQA), with n_heads", None,
              int_in(1, 1024)),
    ),
    constraints=(lambda p: None if (p.get("n_heads") is None) == (p.get("kv_heads") is None) and (
        p.get("n_heads") is None or p["n_heads"] % p["kv_heads"] == 0 and p.get("d_model") is not None
        and p["d_model"] % p["n_heads"] == 0) else "n_heads and kv_heads go together, with a pinned d_model that "
        "n_heads divides and an n_heads that kv_heads divides",),
    example={"num_layers": 12, "batch": 1, "seq_len": 1024, "d_model": 768, "bytes_per_value": 2, "ask": "total"},
)
def kv_cache(rng: np.random.Generator, *, num_layers, batch, seq_len, d_model, bytes_per_value, n_heads, kv_heads,
             ask) -> Variant:
    """KV-cache size (params: num_layers, batch, seq_len, d_model, bytes_per_value, ask).

    ask=total: the whole cache in MiB; ask=per_token: what one more token adds, in KiB.
    Example: GPT-2 small (12 layers, d_model 768), B=1, L=1024, fp16: 36 MiB.
    """
    from studytool import engine

    layers = num_layers if num_layers is not None else pick(rng, (6, 8, 12, 16, 24, 32))
    d = d_model if d_model is not None else pick(rng, (512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096))
    b = batch if batch is not None else pick(rng, (1, 2, 4, 8))
    length = seq_len if seq_len is not None else pick(rng, (512, 1024, 2048, 4096))
    width = bytes_per_value if bytes_per_value is not None else pick(rng, (2, 4))
    params = {"num_layers": layers, "batch": b, "seq_len": length, "d_model": d, "bytes_per_value": width, "ask": ask}
    d_kv = d if kv_heads is None else kv_heads * (d // n_heads)   # GQA: only the kv_heads groups' K and V
    total = engine.kv_cache_bytes(layers, b, length, d_kv, width)
    per_token = engine.kv_cache_bytes(layers, 1, 1, d_kv, width)   # one more token of one sequence
    head = (f"一个 decoder-only 模型：{layers} 层，d_model = {d}，按 {_PRECISION[width]} 存储（每个数 {width} 字节）。"
            "生成时每层缓存所有已处理 token 的 K 和 V（多头合起来每个 token 各 d_model 个数）。")
    store = f"每层每个 token 存 K、V 各 d_model = {d} 个数：2 × {d} = {2 * d} 个数"
    grouped = ()
    if kv_heads is not None:   # level 3: grouped-query attention, one more step
        params |= {"n_heads": n_heads, "kv_heads": kv_heads}
        head = (f"一个 decoder-only 模型：{layers} 层，d_model = {d}，{n_heads} 个查询头、用 GQA 共享 {kv_heads} 组 K、V"
                f"（每组 head_dim = d_model / {n_heads}），按 {_PRECISION[width]} 存储（每个数 {width} 字节）。"
                "生成时每层缓存所有已处理 token 的 K 和 V。")
        grouped = (f"GQA：head_dim = {d} / {n_heads} = {d // n_heads}，K、V 各只有 {kv_heads} 组："
                   f"{kv_heads} × {d // n_heads} = {d_kv} 个数（是多头的 {kv_heads}/{n_heads}）",)
        store = f"每层每个 token 存 K、V 各 {d_kv} 个数：2 × {d_kv} = {2 * d_kv} 个数"
    if ask == "per_token":
        # kept even when it is the answer, so such a draw is redrawn: level 2's 24 layers at one byte per value
        # make the per-token KiB 48·d/1024, which is 24, the layer count on screen, at d_model = 512
        layer_count = (Hint(layers, "那是层数；要乘 2 · d_model · 字节数，再除以 1024。"),)
        steps = (*grouped, store, f"× {layers} 层 × {width} 字节 = {big(per_token)} 字节",
                 f"{big(per_token)} / 1024 = {num(per_token / KIB)} KiB")
        hints = (Hint(per_token / 2 / KIB, "K 和 V 都要存：乘 2。"),
                 Hint(per_token / layers / KIB, f"每一层都有自己的 K、V：乘层数 {layers}。"),
                 Hint(per_token / width / KIB, f"问的是字节：每个数 {width} 字节。"))
        if kv_heads is not None:
            hints += (Hint(per_token * n_heads / kv_heads / KIB, f"GQA 只缓存 {kv_heads} 组 K、V，不是每个查询头一份。"),)
        return Variant(head + "序列每多一个 token，KV cache 增加多少 KiB（1 KiB = 1024 字节）？", "scalar",
                       per_token / KIB, FOUR_DECIMALS, steps, _wrong(hints, per_token / KIB) + layer_count,
                       params=params)
    steps = (*grouped, store, f"× {layers} 层 × batch {b} × 序列长 {length} = {big(total // width)} 个数",
             f"× {width} 字节 = {big(total)} 字节 = {big(total)} / 2²⁰ = {num(total / MIB)} MiB",
             "公式：2 · 层数 · B · L · d_model · 每个数的字节数")
    hints = (Hint(total / 2 / MIB, "K 和 V 都要存：乘 2。"),
             Hint(total / layers / MIB, f"每一层都有自己的 K、V：乘层数 {layers}。"),
             Hint(total / width / MIB, f"问的是字节数：每个数 {width} 字节。"),
             Hint(total / b / MIB, f"batch 里 {b} 条序列各有自己的缓存。"))
    if kv_heads is not None:
        hints += (Hint(total * n_heads / kv_heads / MIB, f"GQA 只缓存 {kv_heads} 组 K、V，不是每个查询头一份。"),)
    # kept even when it is the answer (B·L = 8192): then the draw lets copying d_model pass and is redrawn
    copied = (Hint(d, "那是 d_model；要乘 2 · 层数 · B · L · 字节数，再除以 2²⁰。"),)
    return Variant(head + f"batch B = {b}、序列长 L = {length} 时，整个 KV cache 占多少 MiB（1 MiB = 2²⁰ 字节）？",
                   "scalar", total / MIB, FOUR_DECIMALS, steps, _wrong(hints, total / MIB) + copied, params=params)


def _wrong(hints: tuple[Hint, ...], answer: float) -> tuple[Hint, ...]:
    """Only the hints whose wrong answer differs from the right one (B = 1 makes 'forgot the batch' right)."""
    return tuple(hint for hint in hints if abs(hint.answer - answer) > 1e-9)

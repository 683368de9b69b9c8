"""Compute of an LLM: forward FLOPs counted as a dense implementation does, 6ND, MFU, Chinchilla sizing, and the
tokens speculative decoding yields per call of the large model."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, is_number
from studytool.problems.drawing import FOUR_DECIMALS, big, num, pick, redrawn
from studytool.problems.llm_memory import _g, _wrong
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

DAY = 86_400


def _positive(lo: float, hi: float):
    def check(value: Any) -> str | None:
        return None if is_number(value) and lo <= value <= hi else f"expected a number in {lo:g}..{hi:g}, got {value!r}"
    return check



FLOP_ASKS = ("forward_token", "token_share", "attention", "attention_share", "train", "train_days", "mfu", "mfu_step")
_CONVENTION = ("按稠密实现计 FLOPs（一次乘加 = 2 FLOPs，只数矩阵乘法，完整计算 L × L 的分数，不因因果掩码省一半；"
               "偏置、归一化、softmax 忽略）。")


@generator(
    "llm_flops",
    "FLOPs of a GPT-style decoder (MHA, d_ff = 4d): one decoded token, the attention scores of a sequence and their "
    "share, 6ND for training and its days on a cluster, MFU from throughput.",
    asks=FLOP_ASKS,
    params=(
        Param("num_layers", "layers (default: drawn from 2..6)", None, int_in(1, 1000)),
        Param("d_model", "model width (default: drawn from 64..256)", None, int_in(1, 100_000)),
        Param("context", "tokens in the sequence, or cached for a decoded token (default: drawn)", None,
              int_in(1, 10_000_000)),
        Param("vocab", "vocabulary size (default: drawn from 1000..8000)", None, int_in(1, 10_000_000)),
        Param("params_billion", "N in billions for train and mfu (default: drawn)", None, _positive(0.01, 10_000)),
        Param("tokens_billion", "training tokens D in billions (default: drawn)", None, _positive(0.01, 1_000_000)),
        Param("gpus", "GPUs for train_days and mfu (default: drawn)", None, int_in(1, 1_000_000)),
        Param("peak_tflops", "dense peak TFLOP/s of one GPU (default: drawn from 312, 989)", None,
              _positive(1, 100_000)),
        Param("utilization", "MFU for train_days (default: drawn from 0.3..0.55)", None, _positive(0.01, 1)),
        Param("throughput", "tokens a second for ask=mfu, in thousands (default: drawn)", None, _positive(0.001, 1e9)),
        Param("step_tokens", "tokens a training step for ask=mfu_step (default: drawn)", None, int_in(1, 10**12)),
        Param("step_seconds", "seconds a training step for ask=mfu_step (default: drawn)", None, _positive(0.001, 1e6)),
    ),
    example={"num_layers": 12, "d_model": 768, "context": 1024, "vocab": 50257, "ask": "forward_token"},
)
def llm_flops(rng: np.random.Generator, *, num_layers, d_model, context, vocab, params_billion, tokens_billion, gpus,
              peak_tflops, utilization, throughput, step_tokens, step_seconds, ask) -> Variant:
    """FLOPs of a GPT-style decoder (params: sizes, N, D, cluster, ask); GPT-2 small decoding its 1024th token:
    12 · 24 · 768² + 12 · 4 · 1024 · 768 + 2 · 768 · 50257 = 284,812,800 FLOPs."""
    if ask in ("forward_token", "token_share", "attention", "attention_share"):
        return redrawn(lambda: _forward(rng, num_layers, d_model, context, vocab, ask))
    return redrawn(lambda: _training(rng, params_billion, tokens_billion, gpus, peak_tflops, utilization, throughput,
                                      step_tokens, step_seconds, ask))


def _forward(rng, num_layers, d_model, context, vocab, ask) -> Variant:
    n = num_layers if num_layers is not None else pick(rng, (2, 3, 4, 6))
    d = d_model if d_model is not None else pick(rng, (64, 96, 128, 192, 256))
    one = ask in ("forward_token", "token_share")
    length = context if context is not None else int(rng.integers(16, 512) if one else pick(rng, (32, 64, 128, 256, 384)))
    v = vocab if vocab is not None else int(rng.integers(10, 80)) * 100
    params = {"num_layers": n, "d_model": d, "context": length, "vocab": v, "ask": ask}
    head = f"一个 GPT 式 decoder：{n} 层，d_model = {d}，多头注意力（MHA），FFN 宽 4·d_model，词表 V = {v}。" + _CONVENTION
    dense, attention, output = forward_parts(n, d, length, v, one_token=one)
    whole = dense + attention + output
    if one:
        where = f"KV cache 里连同新 token 共有 L = {length} 个位置，解码这一个新 token"
        steps = (f"每层的投影和 FFN：Q、K、V、输出 4 个 d × d，FFN 2 个 d × 4d，共 12d² 个权重，每个 2 FLOPs："
                 f"{n} × 24 × {d}² = {big(dense)}",
                 f"每层的注意力：新 query 与 {length} 个 key 打分 2·L·d，再对 {length} 个 value 加权 2·L·d："
                 f"{n} × 4 × {length} × {d} = {big(attention)}",
                 f"输出层 d × V：2 × {d} × {v} = {big(output)}",
                 f"合计 {big(whole)}（近似 2N：N ≈ 12·n·d² + V·d，2N = {big(dense + output)}，不含注意力项）")
        if ask == "forward_token":
            hints = (Hint(dense + output, f"还有注意力：每层 4·L·d，L = {length}。"),
                     Hint(whole - output, "别漏了输出层（d × V 的矩阵乘法）。"),
                     Hint((dense + attention + output) / 2, "一次乘加算 2 FLOPs。"))
            return Variant(head + where + "，共多少 FLOPs？", "scalar", whole, None, steps, _wrong(hints, whole),
                           params=params)
        share = attention / whole
        steps += (f"注意力占 {big(attention)} / {big(whole)} = {num(share)}",)
        hints = (Hint(attention / (dense + output), "分母是这个 token 的全部 FLOPs，注意力本身也在内。"),)
        return Variant(head + where + "，其中注意力打分与加权（与 L 成正比的部分）占全部 FLOPs 的比例是多少？（写成 0 到 1 "
                       "之间的小数）", "scalar", share, FOUR_DECIMALS, steps, _wrong(hints, share), params=params)
    where = f"一次前向处理一条长 L = {length} 的序列（prefill）"
    steps = (f"每层 QKᵀ：[L, d] × [d, L]，2·L²·d；权重 × V：[L, L] × [L, d]，又 2·L²·d",
             f"{n} 层 × 4 × {length}² × {d} = {big(attention)}")
    if ask == "attention":
        hints = (Hint(attention / 2, "QKᵀ 和权重 × V 两步都是 2·L²·d。"),
                 Hint(attention / n, f"每一层都有注意力：乘层数 {n}。"),
                 Hint(attention / 4, "QKᵀ 是 [L, d] × [d, L]：L² 个结果，每个 d 次乘加，每次乘加 2 FLOPs。"))
        return Variant(head + where + "时，所有层的 QKᵀ 和“权重乘 V”两步共多少 FLOPs？", "scalar", attention, None, steps,
                       _wrong(hints, attention), params=params)
    share = attention / whole
    steps += (f"投影和 FFN：{n} × 24 × {length} × {d}² = {big(dense)}；输出层 2 × {length} × {d} × {v} = {big(output)}",
              f"注意力占 {big(attention)} / {big(whole)} = {num(share)}")
    hints = (Hint(attention / (dense + output), "分母是全部 FLOPs，注意力本身也在内。"),
             Hint(attention / (dense + attention), "别漏了输出层 2·L·d·V。"))
    return Variant(head + where + "时，注意力的 QKᵀ 和“权重乘 V”占全部 FLOPs 的比例是多少？（写成 0 到 1 之间的小数）",
                   "scalar", share, FOUR_DECIMALS, steps, _wrong(hints, share), params=params)


def _training(rng, params_billion, tokens_billion, gpus, peak_tflops, utilization, throughput, step_tokens,
              step_seconds, ask) -> Variant:
    size = params_billion if params_billion is not None else pick(rng, (0.35, 0.76, 1.3, 2.7, 6.7, 7, 8, 13, 34, 70))
    params: dict[str, Any] = {"params_billion": size, "ask": ask}
    if ask in ("train", "train_days"):
        tokens = tokens_billion if tokens_billion is not None else int(rng.integers(2, 40)) * 50
        flops = _training_flops(size * 1e9, tokens * 1e9)
        params["tokens_billion"] = tokens
        head = f"训练一个 {_g(size)}B 参数的 decoder-only 模型，用 {_g(tokens)}B 个 token（按每 token 6N FLOPs，忽略注意力项）。"
        steps = (f"C ≈ 6 · N · D = 6 × {_g(size)} × 10⁹ × {_g(tokens)} × 10⁹ = {num(flops / 1e21)} × 10²¹ FLOPs",)
        if ask == "train":
            answer = flops / 1e21
            hints = (Hint(answer / 3, "那只是前向（2N 每 token）；反向约是前向的 2 倍，训练共 6N。"),
                     Hint(answer / 6, "每个 token 每个参数：前向 2 FLOPs，反向 4 FLOPs。"))
            return Variant(head + "训练的总计算量是多少？写成 × 10²¹ FLOPs 的系数。", "scalar", answer, FOUR_DECIMALS, steps,
                           _wrong(hints, answer), params=params)
        n = gpus if gpus is not None else pick(rng, (256, 512, 1024, 2048, 4096))
        peak = peak_tflops if peak_tflops is not None else pick(rng, (312, 989))
        mfu = utilization if utilization is not None else pick(rng, (0.3, 0.35, 0.4, 0.45, 0.5, 0.55))
        rate = n * peak * 1e12 * mfu
        answer = flops / rate / DAY
        params |= {"gpus": n, "peak_tflops": peak, "utilization": mfu}
        steps += (f"集群实际算力 = {n} × {peak} × 10¹² × {mfu:g} = {num(rate / 1e15)} × 10¹⁵ FLOP/s",
                  f"时间 = {num(flops / 1e21)} × 10²¹ / {num(rate / 1e15)} × 10¹⁵ = {num(flops / rate)} 秒"
                  f" = {num(answer)} 天（1 天 = 86400 秒）")
        hints = (Hint(answer * mfu, f"实际只达到峰值的 {mfu:g}（MFU）：除以它。"),
                 Hint(answer / 3, "训练是 6N 每 token，不是前向的 2N。"))
        return Variant(head + f"用 {n} 张峰值 {peak} TFLOP/s（稠密 bf16）的 GPU，MFU = {mfu:g}，要训练多少天？",
                       "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)
    n = gpus if gpus is not None else pick(rng, (8, 16, 64, 128, 256))
    peak = peak_tflops if peak_tflops is not None else pick(rng, (312, 989))
    if ask == "mfu":
        rate = throughput if throughput is not None else _tokens_for(rng, size, n, peak) / 1000
        params |= {"gpus": n, "peak_tflops": peak, "throughput": rate}
        said = f"整个集群每秒训练 {_g(rate)} × 10³ 个 token"
        tokens_per_second, first = rate * 1000, ()
    else:
        batch = step_tokens if step_tokens is not None else pick(rng, (2**19, 2**20, 2**21, 3 * 2**20))
        seconds = step_seconds if step_seconds is not None else max(0.01, round(batch / _tokens_for(rng, size, n, peak), 2))
        params |= {"gpus": n, "peak_tflops": peak, "step_tokens": batch, "step_seconds": seconds}
        said = f"每一步训练 {big(batch)} 个 token，每步用时 {seconds:g} 秒"
        tokens_per_second = batch / seconds
        first = (f"每秒 token 数 = {big(batch)} / {seconds:g} = {num(tokens_per_second)}",)
    model = _training_flops(size * 1e9, tokens_per_second)
    answer = model / (n * peak * 1e12)
    steps = first + (f"模型 FLOP/s = 6 × {_g(size)} × 10⁹ × {num(tokens_per_second)} = {num(model / 1e15)} × 10¹⁵",
                     f"峰值 = {n} × {peak} × 10¹² = {num(n * peak / 1000)} × 10¹⁵",
                     f"MFU = {num(model / 1e15)} / {num(n * peak / 1000)} = {num(answer)}")
    hints = (Hint(answer / 3, "训练每 token 是 6N FLOPs，不是 2N。"), Hint(answer * n, f"峰值要乘卡数 {n}。"))
    prompt = (f"在 {n} 张峰值 {peak} TFLOP/s（稠密 bf16）的 GPU 上训练一个 {_g(size)}B 参数的模型，{said}。按每 token 6N "
              "FLOPs（忽略注意力项）算，MFU 是多少？（写成 0 到 1 之间的小数）")
    return Variant(prompt, "scalar", answer, FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)


def forward_parts(n: int, d: int, length: int, vocab: int, one_token: bool) -> tuple[int, int, int]:
    """(projections and MLP, attention's scores and weighted values, output layer) FLOPs of a GPT-style decoder, from
    the engine's dense count: a whole sequence of `length`, or one token decoded against `length` cached positions
    (its projections and MLP are one token's; its query meets `length` keys and values, 2·length·d each a layer)."""
    from studytool import engine
    from studytool.problems.llm_params import gpt_config

    flops = engine.forward_flops(gpt_config(vocab, max(length, 1), d, n), 1, 1 if one_token else length)
    layer = flops["per_layer"]
    dense = n * (layer["qkv_projection"] + layer["output_projection"] + layer["mlp"])
    attention = n * 4 * length * d if one_token else n * (layer["scores"] + layer["weighted_values"])
    return dense, attention, flops["head"]


def _training_flops(params: float, tokens: float) -> float:
    """6ND: forward 2N and backward 4N a token."""
    return 6 * params * tokens


def _tokens_for(rng, size: float, gpus: int, peak: float) -> float:
    """A throughput whose MFU lies in 0.25..0.6, rounded to a thousand tokens a second."""
    mfu = int(rng.integers(25, 61)) / 100
    return max(1000, round(mfu * gpus * peak * 1e12 / (6 * size * 1e9), -3))


SCALING_ASKS = ("params", "tokens", "params_cluster", "tokens_cluster")
TOKENS_PER_PARAM = 20   # Chinchilla's rule of thumb


@generator(
    "chinchilla",
    "Compute-optimal sizing by Chinchilla's rule of thumb: C = 6ND and D = 20N give N = sqrt(C / 120), D = 20N; the "
    "budget C given, or from a cluster's GPUs, peak, MFU and days.",
    asks=SCALING_ASKS,
    params=(
        Param("compute", "training FLOPs C in units of 1e21 (default: drawn, 0.1..99000)", None, _positive(1e-6, 1e9)),
        Param("gpus", "GPUs for the *_cluster asks (default: drawn)", None, int_in(1, 1_000_000)),
        Param("peak_tflops", "dense peak TFLOP/s of one GPU (default: drawn from 312, 989)", None,
              _positive(1, 100_000)),
        Param("utilization", "MFU (default: drawn from 0.3..0.5)", None, _positive(0.01, 1)),
        Param("days", "days of training (default: drawn)", None, _positive(0.01, 10_000)),
    ),
    example={"compute": 576, "ask": "params"},
)
def chinchilla(rng: np.random.Generator, *, compute, gpus, peak_tflops, utilization, days, ask) -> Variant:
    """Chinchilla-optimal N (billions) or D (billions of tokens) (params: compute or a cluster, ask).

    Chinchilla's own budget, C = 5.76e23: N = sqrt(4.8e21) = 69.28B, D = 1385.6B tokens (it trained 70B on 1.4T).
    """
    return redrawn(lambda: _chinchilla(rng, compute, gpus, peak_tflops, utilization, days, ask))


def _chinchilla(rng, compute, gpus, peak_tflops, utilization, days, ask) -> Variant:
    params: dict[str, Any] = {"ask": ask}
    steps: tuple[str, ...] = ()
    if ask.endswith("_cluster"):
        n = gpus if gpus is not None else pick(rng, (512, 1024, 2048, 4096, 8192))
        peak = peak_tflops if peak_tflops is not None else pick(rng, (312, 989))
        mfu = utilization if utilization is not None else pick(rng, (0.3, 0.35, 0.4, 0.45, 0.5))
        span = days if days is not None else pick(rng, (7, 10, 14, 21, 30, 45, 60, 90))
        c = n * peak * 1e12 * mfu * span * DAY
        params |= {"gpus": n, "peak_tflops": peak, "utilization": mfu, "days": span}
        budget = (f"用 {n} 张峰值 {peak} TFLOP/s（稠密 bf16）的 GPU、MFU = {mfu:g}，训练 {_g(span)} 天（1 天 = 86400 秒）。")
        steps = (f"C = {n} × {peak} × 10¹² × {mfu:g} × {_g(span)} × 86400 = {_sci(c)} FLOPs",)
    else:
        units = compute if compute is not None else int(rng.integers(10, 100)) / 10 * 10.0 ** int(rng.integers(-1, 4))
        c = units * 1e21
        params["compute"] = units
        budget = f"训练计算预算 C = {_sci(c)} FLOPs。"
    n_opt = math.sqrt(c / (6 * TOKENS_PER_PARAM))
    steps += (f"C = 6 · N · D，D = 20N ⇒ C = 120 · N² ⇒ N = √(C / 120) = √({_sci(c / 120)}) = {num(n_opt / 1e9)} × 10⁹",)
    head = "按 Chinchilla 的经验法则（C ≈ 6ND，计算最优时每个参数约 20 个 token）估算。" + budget
    if ask.startswith("params"):
        answer = n_opt / 1e9
        hints = (Hint(math.sqrt(c / 6) / 1e9, "还要代入 D = 20N：C = 6 · N · 20N = 120N²。"),
                 Hint(c / 120 / 1e9, "C = 120N² 要开平方。"))
        return Variant(head + "计算最优的参数量 N 是多少？写成以十亿（B，10⁹）为单位的数。", "scalar", answer, FOUR_DECIMALS,
                       steps, _wrong(hints, answer), params=params)
    answer = TOKENS_PER_PARAM * n_opt / 1e9
    steps += (f"D = 20 × N = {num(answer)} × 10⁹ 个 token",)
    hints = (Hint(n_opt / 1e9, "那是参数量 N；训练 token 数 D = 20N。"),
             Hint(TOKENS_PER_PARAM * math.sqrt(c / 6) / 1e9, "N = √(C / 120)：C = 6 · N · 20N。"))
    return Variant(head + "计算最优的训练 token 数 D 是多少？写成以十亿（B，10⁹）个 token 为单位的数。", "scalar", answer,
                   FOUR_DECIMALS, steps, _wrong(hints, answer), params=params)


def _sci(x: float, digits: int = 10) -> str:
    """5.76e23 -> 5.76 × 10²³ (intermediates to 10 significant digits: a learner rounding only the answer is right)."""
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{float(mantissa):.{digits}g} × 10{str(int(exponent)).translate(str.maketrans('-0123456789', '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'))}"


SPECULATIVE_ASKS = ("expected", "speedup")


@generator(
    "speculative_tokens",
    "Speculative decoding: tokens a call of the target model yields, (1 - a^(g+1)) / (1 - a), and the speed-up once "
    "the draft model's cost is counted.",
    asks=SPECULATIVE_ASKS,
    params=(
        Param("alpha", "chance each draft token is accepted (default: drawn from 0.5..0.95)", None, _positive(0.01, 0.99)),
        Param("gamma", "draft tokens per round (default: drawn from 2..7)", None, int_in(1, 64)),
        Param("cost", "a draft step's time over a target step's, for ask=speedup (default: drawn)", None,
              _positive(0.001, 1)),
    ),
    example={"alpha": 0.8, "gamma": 4, "ask": "expected"},
)
def speculative_tokens(rng: np.random.Generator, *, alpha, gamma, cost, ask) -> Variant:
    """Tokens per target call, or the wall-clock speed-up (params: alpha, gamma, cost, ask); Leviathan et al.
    2023, eq. (1) and Theorem 3.8. alpha = 0.8, gamma = 4: 3.3616 tokens."""
    a = alpha if alpha is not None else int(rng.integers(10, 20)) * 5 / 100
    g = gamma if gamma is not None else int(rng.integers(2, 8))
    expected = (1 - a ** (g + 1)) / (1 - a)
    params: dict[str, Any] = {"alpha": a, "gamma": g, "ask": ask}
    head = (f"推测解码：草稿模型每轮先生成 γ = {g} 个 token，大模型一次前向验证；假设每个草稿 token 独立地以概率 α = {a:g} "
            "被接受（遇到第一个被拒的就停，并由大模型补一个 token；全部接受时大模型再多给一个）。")
    steps = (f"第 i 个草稿 token 用得上的概率是 α^i：E = 1 + α + … + α^γ = (1 − α^(γ+1)) / (1 − α)",
             f"= (1 − {a:g}^{g + 1}) / (1 − {a:g}) = {num(1 - a ** (g + 1))} / {num(1 - a)} = {num(expected)}")
    if ask == "expected":
        hints = (Hint(g * a, "不是 γ·α：接受的是连续的前缀，而且最后总有一个大模型自己的 token。"),
                 Hint(expected - 1, "别漏了大模型自己补上（或多给）的那一个 token。"))
        return Variant(head + "大模型每做一次前向，平均产出多少个 token？", "scalar", expected, FOUR_DECIMALS, steps,
                       _wrong(hints, expected), params=params)
    c = cost if cost is not None else pick(rng, (0.02, 0.05, 0.08, 0.1, 0.15, 0.2))
    params["cost"] = c
    speedup = expected / (g * c + 1)
    steps += (f"每轮用时：{g} 步草稿 × {c:g} + 1 次大模型 = {num(g * c + 1)}（以大模型一步为 1）",
              f"加速比 = {num(expected)} / {num(g * c + 1)} = {num(speedup)}")
    hints = (Hint(expected, "那是每轮产出的 token 数；还要除以每轮的用时（草稿的 γ 步也要时间）。"),
             Hint(expected / (c + 1), f"草稿模型每轮要跑 γ = {g} 步。"))
    return Variant(head + f"草稿模型一步的用时是大模型一步的 c = {c:g} 倍。与只用大模型逐个生成相比，墙钟时间上的加速比是多少？",
                   "scalar", speedup, FOUR_DECIMALS, steps, _wrong(hints, speedup), params=params)

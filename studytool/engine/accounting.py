"""What a decoder-only LLM costs, in closed form from its config: parameters, KV cache, FLOPs, training memory.

Exact integers, checked against transformers in the tests: parameters equal `sum(p.numel())` of the
model transformers builds from the same config.json; forward FLOPs are what
`torch.utils.flop_counter.FlopCounterMode` counts for a dense implementation (each matmul of
(m, k) by (k, n) is 2 m k n; norms, activations, softmax and the embedding lookup count 0; the
L x L scores and the weighted sum of values are counted over the whole sequence, the causal
half included, as an implementation computes them). The rules of thumb (2N per token, 6ND per
training step) are given beside the exact figures, never instead of them.
"""

from __future__ import annotations

from typing import Any

from .llm import LLMConfig

DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "int8": 1}

# Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. (1)
# with no tensor or sequence parallelism: bytes per layer, 16-bit activations and 1-byte dropout masks.
ACTIVATIONS_FORMULA = "L_layers * s * b * h * (34 + 5 * a * s / h)"
CHECKPOINTED_FORMULA = "L_layers * 2 * s * b * h"
ACTIVATIONS_SOURCE = ("Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, "
                      "§4.1 eq. (1) and §5 (full recomputation keeps each layer's 16-bit input)")


def _norm(cfg: LLMConfig) -> int:
    return 2 * cfg.d_model if cfg.norm == "layernorm" else cfg.d_model  # LayerNorm: weight and bias


def attention_params(cfg: LLMConfig) -> int:
    """q (d -> H d_h), k and v (d -> H_kv d_h), o (H d_h -> d), with their biases where the family has them."""
    q_width, kv_width = cfg.n_heads * cfg.head_dim, cfg.n_kv_heads * cfg.head_dim
    qkv_bias = cfg.bias or cfg.attention_bias or cfg.qkv_bias
    o_bias = cfg.bias or cfg.attention_bias
    return (cfg.d_model * (q_width + 2 * kv_width) + qkv_bias * (q_width + 2 * kv_width)
            + q_width * cfg.d_model + o_bias * cfg.d_model)


def expert_params(cfg: LLMConfig) -> int:
    """One gated MLP: gate and up (d -> d_ff), down (d_ff -> d); biases only with Llama's mlp_bias."""
    return 3 * cfg.d_model * cfg.d_ff + cfg.mlp_bias * (2 * cfg.d_ff + cfg.d_model)


def mlp_params(cfg: LLMConfig) -> int:
    """The feed-forward part of a layer: all E experts and the router (d -> E, no bias) in a mixture."""
    if cfg.mlp == "plain":
        return 2 * cfg.d_model * cfg.d_ff + cfg.bias * (cfg.d_ff + cfg.d_model)
    if cfg.n_experts:
        return cfg.n_experts * expert_params(cfg) + cfg.d_model * cfg.n_experts
    return expert_params(cfg)


def parameter_counts(cfg: LLMConfig) -> dict[str, Any]:
    """Total, embedding, per layer by part, and active per token (a mixture uses top_k of its E experts).

    `embedding` is the token table (plus GPT-2's position table); a tied head adds nothing, an untied
    one V * d (`head`). Counts each array once, as `model.parameters()` does.
    """
    layer = {"attention": attention_params(cfg), "mlp": mlp_params(cfg), "norms": 2 * _norm(cfg)}
    per_layer = sum(layer.values())
    embedding = cfg.vocab_size * cfg.d_model + cfg.max_positions * cfg.d_model * (cfg.positions == "learned")
    head = 0 if cfg.tied_head else cfg.vocab_size * cfg.d_model
    total = embedding + cfg.n_layers * per_layer + _norm(cfg) + head
    idle = cfg.n_layers * (cfg.n_experts - cfg.top_k) * expert_params(cfg) if cfg.n_experts else 0
    return {
        "total": total, "embedding": embedding, "head": head, "final_norm": _norm(cfg),
        "per_layer": {**layer, "total": per_layer}, "layers": cfg.n_layers * per_layer,
        "non_embedding": total - embedding, "active": total - idle,
        **({"expert": expert_params(cfg), "router": cfg.d_model * cfg.n_experts} if cfg.n_experts else {}),
    }


def kv_cache(cfg: LLMConfig, batch: int = 1, seq: int = 1, dtype: str = "bf16") -> dict[str, Any]:
    """Bytes of the keys and values a decoder keeps: 2 (K, V) * layers * H_kv * d_h per token.

    Grouped-query attention shrinks it by H / H_kv against multi-head attention of the same width. With a
    sliding window W (Mistral) the cache is a rolling buffer of min(L, W) tokens, as the Mistral 7B paper
    (Jiang et al. 2023, §2) sizes it; transformers keeps W - 1 between steps, the new token bringing its own.
    """
    width = DTYPE_BYTES[dtype]
    per_token = 2 * cfg.n_layers * cfg.n_kv_heads * cfg.head_dim * width
    kept = seq if cfg.sliding_window is None else min(seq, cfg.sliding_window)
    return {"dtype": dtype, "bytes_per_value": width, "bytes_per_token": per_token, "bytes": per_token * batch * kept,
            "batch": batch, "seq": seq, "tokens_kept": kept,
            "multi_head_bytes_per_token": 2 * cfg.n_layers * cfg.n_heads * cfg.head_dim * width}


def forward_flops(cfg: LLMConfig, batch: int = 1, seq: int = 1) -> dict[str, Any]:
    """Multiply-add FLOPs (2 per multiply-add) of one forward pass over B sequences of L tokens, by part.

    A mixture counts its router and each token's top_k experts (what a sparse implementation runs).
    `per_token` is forward / (B L), rounded down (RoPE's table is shared by the whole batch).
    """
    tokens = batch * seq
    d, f, q_width = cfg.d_model, cfg.d_ff, cfg.n_heads * cfg.head_dim
    kv_width = cfg.n_kv_heads * cfg.head_dim
    if cfg.mlp == "plain":
        mlp = 2 * tokens * 2 * d * f
    elif cfg.n_experts:
        mlp = 2 * tokens * d * cfg.n_experts + cfg.top_k * 2 * tokens * 3 * d * f
    else:
        mlp = 2 * tokens * 3 * d * f
    layer = {
        "qkv_projection": 2 * tokens * d * (q_width + 2 * kv_width),
        "scores": 2 * batch * cfg.n_heads * seq * seq * cfg.head_dim,  # Q K^T: (L, d_h) @ (d_h, L) per head
        "weighted_values": 2 * batch * cfg.n_heads * seq * seq * cfg.head_dim,  # softmax(.) V: (L, L) @ (L, d_h)
        "output_projection": 2 * tokens * q_width * d,
        "mlp": mlp,
    }
    head = 2 * tokens * d * cfg.vocab_size
    # RoPE's angle table: positions (L, 1) times inverse frequencies (1, d_h / 2), once per forward for all
    # layers and sequences, as transformers computes it (a matmul the counter sees; tiny beside the rest)
    rope = 2 * seq * (cfg.head_dim // 2) if cfg.positions == "rope" else 0
    forward = cfg.n_layers * sum(layer.values()) + head + rope
    active = parameter_counts(cfg)["active"]
    return {
        "forward": forward, "per_token": forward // tokens, "per_layer": layer, "head": head, "rope_angles": rope,
        "approx_2n_per_token": 2 * active,
        "training_step": 3 * (forward - rope) + rope,  # backward: two matmuls of each forward one's size (RoPE's table needs no gradient)
        "approx_6nd": 6 * active * tokens,
        "tokens": tokens,
    }


def training_memory(cfg: LLMConfig, batch: int = 1, seq: int = 1) -> dict[str, Any]:
    """Bytes to train with AdamW: weights, gradients and the two moments, plus activations.

    fp32: 4 + 4 + 8 = 16 bytes per parameter. Mixed precision (bf16/fp16 weights and gradients, an
    fp32 master copy and fp32 moments, as ZeRO's Rajbhandari et al. 2020 count it): 2 + 2 + 4 + 8 = 16.
    Activations follow ACTIVATIONS_SOURCE, which derives them for GPT's layer (MHA, a 4h MLP, dropout);
    for GQA or gated MLPs they are the same estimate, not an exact count.
    """
    n = parameter_counts(cfg)["total"]
    s, b, h, a = seq, batch, cfg.d_model, cfg.n_heads
    full = cfg.n_layers * (34 * s * b * h + 5 * a * s * s * b)
    checkpointed = cfg.n_layers * 2 * s * b * h
    fp32 = {"weights": 4 * n, "gradients": 4 * n, "adam_moments": 8 * n}
    mixed = {"weights": 2 * n, "gradients": 2 * n, "master_weights": 4 * n, "adam_moments": 8 * n}
    return {
        "adamw_fp32": {**fp32, "total": sum(fp32.values())},
        "adamw_mixed": {**mixed, "total": sum(mixed.values())},
        "activations": {"full": full, "checkpointed": checkpointed, "formula": ACTIVATIONS_FORMULA,
                        "checkpointed_formula": CHECKPOINTED_FORMULA, "source": ACTIVATIONS_SOURCE},
        "batch": batch, "seq": seq,
    }


def inference_memory(cfg: LLMConfig, batch: int = 1, seq: int = 1, dtype: str = "bf16") -> dict[str, int]:
    """Weights at `dtype` plus the KV cache of B sequences of L tokens."""
    weights = parameter_counts(cfg)["total"] * DTYPE_BYTES[dtype]
    cache = kv_cache(cfg, batch, seq, dtype)["bytes"]
    return {"weights": weights, "kv_cache": cache, "total": weights + cache}

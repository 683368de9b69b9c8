"""Decoder-only language models from one config: GPT-2 style and Llama style (Mistral, Qwen2, Gemma, Mixtral).

`LLMConfig` says what a Hugging Face `config.json` says, in the paper's names (d_model, n_heads, d_ff);
`from_hf` reads one as the Hub ships it. `DecoderLM(config)` builds the model with transformers' own
parameter names and shapes, so `DecoderLM.load_state_dict(hf_model.state_dict())` loads unchanged and
gives the same logits. Inference only, causal, positions 0 .. L-1 (no KV cache, no padding).

The two styles differ in five choices, each a field of the config:
    GPT-2: learned positions, LayerNorm, GELU MLP (d -> d_ff -> d), biases everywhere, tied head;
    Llama: RoPE, RMSNorm, gated MLP (SwiGLU), no biases; Qwen2 adds q/k/v biases, Gemma scales the
    embedding by √d and its RMSNorm by (1 + w), Mixtral replaces the MLP by a mixture of experts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .config import ModuleConfig, configure, constant, uniform
from .functional import Array, causal_mask, gelu, gelu_tanh, linear, rms_norm, rotary_embedding, \
    scaled_dot_product_attention, silu, softmax
from .modules import Embedding, LayerNorm, Linear, Module
from .modern import RMSNorm

MODEL_TYPES = ("gpt2", "llama", "mistral", "qwen2", "gemma", "mixtral")
ACTIVATIONS = {"gelu_new": gelu_tanh, "gelu_pytorch_tanh": gelu_tanh, "gelu": gelu, "silu": silu}


class ConfigError(ValueError):
    """A config.json this module cannot read: an unknown model_type, a missing or bad field (one line).

    `kind` and `fields` let an interface say it in its own language; str() is the English.
    """

    MESSAGES = {
        "not_object": "config.json must hold a JSON object",
        "missing": "config.json has no {field!r} (needed for model_type {model_type!r})",
        "unknown_type": "unknown model_type {model_type!r}: use one of {known}",
        "not_positive": "{field} must be a positive integer, got {value!r}",
        "not_number": "{field} must be a number, got {value!r}",
        "not_bool": "{field} must be true or false, got {value!r}",
        "kv_heads": "num_attention_heads={n_heads} is not a multiple of num_key_value_heads={n_kv_heads}",
        "not_divisible": "hidden size {d_model} is not divisible by {n_heads} heads (and no head_dim is given)",
        "odd_head_dim": "RoPE needs an even head_dim, got {head_dim}",
        "activation": "unknown activation {activation!r}: use one of {known}",
        "top_k": "num_experts_per_tok must be from 1 to num_local_experts={n_experts}, got {top_k}",
        "rope_type": "rope_type must be a name, got {rope_type!r}",
        "rope_forward": "the engine runs only the default RoPE, not rope_type {rope_type!r} (its accounting works)",
        "unknown_preset": "unknown preset {name!r}: use one of {known}",
    }

    def __init__(self, kind: str, **fields: Any) -> None:
        self.kind, self.fields = kind, fields
        super().__init__(self.MESSAGES[kind].format(**fields))


@dataclass(frozen=True)
class LLMConfig:
    """What a config.json fixes; the style (norm, MLP, positions, which biases) follows from model_type.

    Defaults are the Llama family's; a GPT-2 needs model_type="gpt2", max_positions, activation="gelu_new"
    and usually tied_head=True (from_hf sets them from the file).
    """

    model_type: str  # one of MODEL_TYPES
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int  # = n_heads: multi-head; 1: multi-query; in between: grouped-query (GQA)
    head_dim: int  # d_model // n_heads unless the config says otherwise (Gemma: 256 with d_model 2048 / 8 heads)
    d_ff: int  # the MLP's hidden width (of each expert in a mixture)
    activation: str = "silu"  # a key of ACTIVATIONS
    max_positions: int = 0  # GPT-2: rows of the learned position table; 0 with RoPE
    attention_bias: bool = False  # biases on q, k, v, o (Llama's attention_bias)
    mlp_bias: bool = False  # biases in the gated MLP (Llama's mlp_bias)
    tied_head: bool = False  # the output head is the token embedding (GPT-2, Gemma, Qwen2-0.5B)
    n_experts: int = 0  # 0: a dense MLP; E > 0: E experts of width d_ff, the top `top_k` per token (Mixtral)
    top_k: int = 0
    norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_type: str = "default"  # or a scaled RoPE (Llama 3.1's "llama3", "yarn", ...): same costs, other angles
    sliding_window: int | None = None  # a query sees at most this many keys, itself included (Mistral)

    def __post_init__(self) -> None:
        if self.model_type not in MODEL_TYPES:
            raise ConfigError("unknown_type", model_type=self.model_type, known=", ".join(MODEL_TYPES))
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "head_dim", "d_ff"):
            _check_positive(name, getattr(self, name))
        for name in ("norm_eps", "rope_theta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ConfigError("not_number", field=name, value=value)
        for name in ("tied_head", "attention_bias", "mlp_bias"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError("not_bool", field=name, value=getattr(self, name))
        if self.sliding_window is not None:
            _check_positive("sliding_window", self.sliding_window)
        if self.n_heads % self.n_kv_heads:
            raise ConfigError("kv_heads", n_heads=self.n_heads, n_kv_heads=self.n_kv_heads)
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            raise ConfigError("activation", activation=self.activation, known=", ".join(ACTIVATIONS))
        if self.gpt2_style:
            _check_positive("max_positions", self.max_positions)
        elif self.head_dim % 2:
            raise ConfigError("odd_head_dim", head_dim=self.head_dim)
        if self.n_experts:
            _check_positive("n_experts", self.n_experts)
            _check_positive("top_k", self.top_k)
            if self.top_k > self.n_experts:
                raise ConfigError("top_k", n_experts=self.n_experts, top_k=self.top_k)

    # The style follows from the model type: GPT-2, or Llama and its descendants.
    @property
    def gpt2_style(self) -> bool:
        return self.model_type == "gpt2"

    @property
    def norm(self) -> str:
        return "layernorm" if self.gpt2_style else "rmsnorm"  # GPT-2's LayerNorm has a bias

    @property
    def mlp(self) -> str:
        """"plain": act(x W1) W2 (GPT-2); "gated": W_down (act(x W_gate) * x W_up) (SwiGLU with silu)."""
        return "plain" if self.gpt2_style else "gated"

    @property
    def positions(self) -> str:
        return "learned" if self.gpt2_style else "rope"  # learned: a (max_positions, d) table added to the embedding

    @property
    def bias(self) -> bool:
        """Biases in every linear and norm (GPT-2); the Llama family has only the optional ones below."""
        return self.gpt2_style

    @property
    def qkv_bias(self) -> bool:
        """Biases on q, k and v only (Qwen2)."""
        return self.model_type == "qwen2"

    @property
    def norm_offset(self) -> bool:
        """RMSNorm scales by (1 + w), w = 0 at start (Gemma)."""
        return self.model_type == "gemma"

    @property
    def embed_scale(self) -> bool:
        """The token embedding is multiplied by √d_model (Gemma)."""
        return self.model_type == "gemma"

    @property
    def groups(self) -> int:
        """Query heads per key/value head."""
        return self.n_heads // self.n_kv_heads


def _check_positive(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError("not_positive", field=name, value=value)


# Hugging Face's defaults for the fields a Hub config may leave out (transformers' *Config classes).
_RMS_EPS = {"llama": 1e-6, "mistral": 1e-6, "qwen2": 1e-6, "gemma": 1e-6, "mixtral": 1e-5}
_ROPE_THETA = {"llama": 10000.0, "mistral": 10000.0, "qwen2": 10000.0, "gemma": 10000.0, "mixtral": 1e6}


def _field(config: Mapping[str, Any], name: str, default: Any = ...) -> Any:
    value = config.get(name, default)
    if value is ...:
        raise ConfigError("missing", field=name, model_type=config.get("model_type"))
    return value


# LLMConfig's names -> config.json's, so that an error names the field the reader wrote
_GPT2_NAMES = {"d_model": "n_embd", "n_layers": "n_layer", "n_heads": "n_head", "n_kv_heads": "n_head",
               "d_ff": "n_inner", "max_positions": "n_positions", "norm_eps": "layer_norm_epsilon",
               "tied_head": "tie_word_embeddings", "activation": "activation_function"}
_LLAMA_NAMES = {"d_model": "hidden_size", "n_layers": "num_hidden_layers", "n_heads": "num_attention_heads",
                "n_kv_heads": "num_key_value_heads", "d_ff": "intermediate_size", "norm_eps": "rms_norm_eps",
                "tied_head": "tie_word_embeddings", "activation": "hidden_act", "n_experts": "num_local_experts",
                "top_k": "num_experts_per_tok"}


def from_hf(config: Mapping[str, Any]) -> LLMConfig:
    """An LLMConfig from a Hugging Face config.json's dict, as the Hub ships it.

    The sizes must be there; fields a config may omit take transformers' defaults, except the ones
    whose default would be a surprise (num_key_value_heads outside Llama, Gemma's head_dim, the experts).
    A ConfigError names the field as config.json spells it.
    """
    try:
        return _from_hf(config)
    except ConfigError as error:
        if "field" not in error.fields:
            raise
        names = _GPT2_NAMES if config.get("model_type") == "gpt2" else _LLAMA_NAMES
        field = names.get(error.fields["field"], error.fields["field"])
        raise ConfigError(error.kind, **{**error.fields, "field": field}) from None


def _from_hf(config: Mapping[str, Any]) -> LLMConfig:
    if not isinstance(config, Mapping):
        raise ConfigError("not_object")
    if not isinstance(config.get("model_type", ""), str):
        raise ConfigError("unknown_type", model_type=config["model_type"], known=", ".join(MODEL_TYPES))
    model_type = _field(config, "model_type")
    if model_type not in MODEL_TYPES:
        raise ConfigError("unknown_type", model_type=model_type, known=", ".join(MODEL_TYPES))
    if model_type == "gpt2":
        d_model, n_heads = _field(config, "n_embd"), _field(config, "n_head")
        _check_positive("n_embd", d_model)
        _check_positive("n_head", n_heads)
        return LLMConfig(
            model_type="gpt2", vocab_size=_field(config, "vocab_size"), d_model=d_model,
            n_layers=_field(config, "n_layer"), n_heads=n_heads, n_kv_heads=n_heads,
            head_dim=_head_dim(d_model, n_heads), d_ff=config.get("n_inner") or 4 * d_model,
            activation=config.get("activation_function", "gelu_new"), max_positions=_field(config, "n_positions"),
            tied_head=config.get("tie_word_embeddings", True), norm_eps=config.get("layer_norm_epsilon", 1e-5),
        )
    d_model, n_heads = _field(config, "hidden_size"), _field(config, "num_attention_heads")
    _check_positive("hidden_size", d_model)
    _check_positive("num_attention_heads", n_heads)
    n_kv_heads = config.get("num_key_value_heads")
    if n_kv_heads is None and model_type != "llama":  # Llama's default (null too) is MHA; the others' is a number
        raise ConfigError("missing", field="num_key_value_heads", model_type=model_type)
    n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
    head_dim = config.get("head_dim") or (_field(config, "head_dim") if model_type == "gemma"
                                          else _head_dim(d_model, n_heads))
    rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
    if not isinstance(rope, Mapping):
        raise ConfigError("rope_type", rope_type=rope)
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    if not isinstance(rope_type, str):
        raise ConfigError("rope_type", rope_type=rope_type)
    experts = model_type == "mixtral"
    return LLMConfig(
        model_type=model_type, vocab_size=_field(config, "vocab_size"), d_model=d_model,
        n_layers=_field(config, "num_hidden_layers"), n_heads=n_heads, n_kv_heads=n_kv_heads, head_dim=head_dim,
        d_ff=_field(config, "intermediate_size"),
        activation=config.get("hidden_act") or ("gelu_pytorch_tanh" if model_type == "gemma" else "silu"),
        attention_bias=config.get("attention_bias", False) if model_type in ("llama", "gemma") else False,
        mlp_bias=config.get("mlp_bias", False) if model_type == "llama" else False,
        tied_head=config.get("tie_word_embeddings", model_type == "gemma"),
        n_experts=_field(config, "num_local_experts") if experts else 0,
        top_k=_field(config, "num_experts_per_tok") if experts else 0,
        norm_eps=config.get("rms_norm_eps", _RMS_EPS[model_type]),
        rope_theta=rope.get("rope_theta", config.get("rope_theta", _ROPE_THETA[model_type])), rope_type=rope_type,
        # Qwen2 declares a window too, but uses it only with use_sliding_window (off in its released configs)
        sliding_window=config.get("sliding_window") if model_type in ("mistral", "mixtral") else None,
    )


def preset_names() -> list[str]:
    """The bundled Hub configs (configs/NAME.json), e.g. "gpt2", "llama-3-8b", "mixtral-8x7b"."""
    from importlib.resources import files

    return sorted(p.name.removesuffix(".json") for p in files(__package__).joinpath("configs").iterdir()
                  if p.name.endswith(".json"))


def preset(name: str) -> dict[str, Any]:
    """A bundled config.json as the Hub ships it (a dict for from_hf)."""
    from importlib.resources import files

    if name not in preset_names():
        raise ConfigError("unknown_preset", name=name, known=", ".join(preset_names()))
    return json.loads(files(__package__).joinpath("configs", f"{name}.json").read_text(encoding="utf-8"))


def _head_dim(d_model: int, n_heads: int) -> int:
    if d_model % n_heads:
        raise ConfigError("not_divisible", d_model=d_model, n_heads=n_heads)
    return d_model // n_heads


# --- the maths of a decoder layer ------------------------------------------------------------------------


def attention_mask(length: int, sliding_window: int | None = None) -> np.ndarray:
    """(L, L) bool, True = blocked: the future, and with a window, keys `sliding_window` or more tokens back."""
    blocked = causal_mask(length)
    if sliding_window is not None:
        i = np.arange(length)
        blocked |= i.reshape(length, 1) - i.reshape(1, length) >= sliding_window
    return blocked


def grouped_query_attention(q: Array, k: Array, v: Array, mask: Array | None = None) -> Array:
    """Attention where each group of H / H_kv query heads shares one key/value head.

    q (B, H, L, d_h), k and v (B, H_kv, L, d_h) -> (B, H, L, d_h). Query head h reads key/value
    head h // (H / H_kv), as transformers' repeat_kv; the keys are broadcast, never copied.
    H_kv = H is multi-head attention, H_kv = 1 multi-query.
    """
    batch, heads, length, head_dim = q.shape
    kv_heads = k.shape[1]
    q = q.reshape(batch, kv_heads, heads // kv_heads, length, head_dim)  # (B, H, L, d_h) -> (B, H_kv, G, L, d_h)
    out, _ = scaled_dot_product_attention(q, k[:, :, None], v[:, :, None], mask)  # k: (B, H_kv, 1, L, d_h)
    return out.reshape(batch, heads, length, head_dim)  # (B, H_kv, G, L, d_h) -> (B, H, L, d_h)


def _split_heads(x: Array, heads: int) -> Array:
    batch, length, _ = x.shape
    return x.reshape(batch, length, heads, -1).transpose(0, 2, 1, 3)  # (B, L, H*d_h) -> (B, H, L, d_h)


def _merge_heads(x: Array) -> Array:
    batch, heads, length, head_dim = x.shape
    return x.transpose(0, 2, 1, 3).reshape(batch, length, heads * head_dim)  # (B, H, L, d_h) -> (B, L, H*d_h)


def route(logits: Array, top_k: int) -> tuple[Array, Array]:
    """Mixtral's router: the top_k experts per token and their weights, a softmax over the chosen logits.

    logits (T, E) -> indices (T, k), weights (T, k) summing to 1. (Softmax over all E, keep the k largest,
    renormalise: the same numbers, since the softmax's denominator cancels.)
    """
    chosen = np.argsort(-logits, axis=-1, kind="stable")[:, :top_k]  # (T, E) -> (T, k), largest first
    return chosen, softmax(np.take_along_axis(logits, chosen, axis=-1), axis=-1)


# --- modules, named as transformers names them ------------------------------------------------------------


class Conv1D(Module):
    """GPT-2's linear layer: y = x W + b with W stored (in, out), the transpose of torch.nn.Linear's."""

    def __init__(self, in_features: int, out_features: int, *, config: ModuleConfig) -> None:
        config = configure(config, {})
        self.dtype = config.dtype
        bound = 1.0 / math.sqrt(in_features)
        self.weight = uniform(config, (in_features, out_features), bound)
        self.bias = uniform(config, (out_features,), bound)

    def __call__(self, x: Array) -> Array:
        return linear(x, self.weight.T, self.bias)


class GPT2Attention(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._heads = config.dtype, cfg.n_heads
        self.c_attn = Conv1D(cfg.d_model, 3 * cfg.d_model, config=config)  # fused q, k, v
        self.c_proj = Conv1D(cfg.d_model, cfg.d_model, config=config)

    def __call__(self, x: Array, mask: Array) -> Array:
        q, k, v = np.split(self.c_attn(x), 3, axis=-1)  # (B, L, d) -> (B, L, 3d) -> 3 x (B, L, d)
        q, k, v = (_split_heads(t, self._heads) for t in (q, k, v))  # (B, L, d) -> (B, H, L, d_h)
        out, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.c_proj(_merge_heads(out))


class GPT2MLP(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._act = config.dtype, ACTIVATIONS[cfg.activation]
        self.c_fc = Conv1D(cfg.d_model, cfg.d_ff, config=config)
        self.c_proj = Conv1D(cfg.d_ff, cfg.d_model, config=config)

    def __call__(self, x: Array) -> Array:
        return self.c_proj(self._act(self.c_fc(x)))  # (B, L, d) -> (B, L, d_ff) -> (B, L, d)


class GPT2Block(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        norms = replace(config, eps=cfg.norm_eps)
        self.dtype = config.dtype
        self.ln_1 = LayerNorm(cfg.d_model, config=norms)
        self.attn = GPT2Attention(cfg, config)
        self.ln_2 = LayerNorm(cfg.d_model, config=norms)
        self.mlp = GPT2MLP(cfg, config)

    def __call__(self, x: Array, mask: Array) -> Array:
        x = x + self.attn(self.ln_1(x), mask)
        return x + self.mlp(self.ln_2(x))


class GPT2Model(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        config = replace(config, bias=True)  # GPT-2's LayerNorms always have a bias
        self.dtype = config.dtype
        self.wte = Embedding(cfg.vocab_size, cfg.d_model, config=config)
        self.wpe = Embedding(cfg.max_positions, cfg.d_model, config=config)
        self.h = [GPT2Block(cfg, config) for _ in range(cfg.n_layers)]
        self.ln_f = LayerNorm(cfg.d_model, config=replace(config, eps=cfg.norm_eps))

    def __call__(self, ids: Array) -> Array:
        length = ids.shape[1]
        x = self.wte(ids) + self.wpe.weight[:length]  # (B, L) -> (B, L, d), + (L, d)
        mask = causal_mask(length)
        for block in self.h:
            x = block(x, mask)
        return self.ln_f(x)


class GemmaRMSNorm(Module):
    """RMSNorm scaled by (1 + w), w = 0 at start: Gemma's, so that weight decay pulls the scale towards 1."""

    def __init__(self, d_model: int, *, eps: float, config: ModuleConfig) -> None:
        self.dtype, self.eps = config.dtype, eps
        self.weight = constant(config, (d_model,), 0.0)

    def __call__(self, x: Array) -> Array:
        return rms_norm(x, 1.0 + self.weight, self.eps)


def _rms_norm(cfg: LLMConfig, config: ModuleConfig) -> Module:
    if cfg.norm_offset:
        return GemmaRMSNorm(cfg.d_model, eps=cfg.norm_eps, config=config)
    return RMSNorm(cfg.d_model, eps=cfg.norm_eps, config=config)


class SelfAttention(Module):
    """Llama's attention: q/k/v/o projections, RoPE on q and k, grouped-query heads."""

    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._cfg = config.dtype, cfg
        qkv, out = replace(config, bias=cfg.attention_bias or cfg.qkv_bias), replace(config, bias=cfg.attention_bias)
        self.q_proj = Linear(cfg.d_model, cfg.n_heads * cfg.head_dim, config=qkv)
        self.k_proj = Linear(cfg.d_model, cfg.n_kv_heads * cfg.head_dim, config=qkv)
        self.v_proj = Linear(cfg.d_model, cfg.n_kv_heads * cfg.head_dim, config=qkv)
        self.o_proj = Linear(cfg.n_heads * cfg.head_dim, cfg.d_model, config=out)

    def __call__(self, x: Array, mask: Array) -> Array:
        cfg = self._cfg
        positions = np.arange(x.shape[1])
        q = _split_heads(self.q_proj(x), cfg.n_heads)  # (B, L, H*d_h) -> (B, H, L, d_h)
        k = _split_heads(self.k_proj(x), cfg.n_kv_heads)  # (B, L, H_kv*d_h) -> (B, H_kv, L, d_h)
        v = _split_heads(self.v_proj(x), cfg.n_kv_heads)
        q = rotary_embedding(q, positions, cfg.rope_theta, halves=True)
        k = rotary_embedding(k, positions, cfg.rope_theta, halves=True)
        return self.o_proj(_merge_heads(grouped_query_attention(q, k, v, mask)))


class GatedMLP(Module):
    """down(act(gate(x)) * up(x)): SwiGLU with silu (Llama), GeGLU with GELU (Gemma)."""

    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._act = config.dtype, ACTIVATIONS[cfg.activation]
        linears = replace(config, bias=cfg.mlp_bias)
        self.gate_proj = Linear(cfg.d_model, cfg.d_ff, config=linears)
        self.up_proj = Linear(cfg.d_model, cfg.d_ff, config=linears)
        self.down_proj = Linear(cfg.d_ff, cfg.d_model, config=linears)

    def __call__(self, x: Array) -> Array:
        return self.down_proj(self._act(self.gate_proj(x)) * self.up_proj(x))  # (B, L, d) -> (B, L, d_ff) -> (B, L, d)


class Router(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype = config.dtype
        self.weight = uniform(config, (cfg.n_experts, cfg.d_model), 1.0 / math.sqrt(cfg.d_model))


class Experts(Module):
    """E gated MLPs stored as two 3-D tensors, as transformers 5 stores them: gate and up fused."""

    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._act = config.dtype, ACTIVATIONS[cfg.activation]
        self.gate_up_proj = uniform(config, (cfg.n_experts, 2 * cfg.d_ff, cfg.d_model), 1.0 / math.sqrt(cfg.d_model))
        self.down_proj = uniform(config, (cfg.n_experts, cfg.d_model, cfg.d_ff), 1.0 / math.sqrt(cfg.d_ff))

    def expert(self, e: int, x: Array) -> Array:
        gate, up = np.split(linear(x, self.gate_up_proj[e]), 2, axis=-1)  # (T, d) -> (T, 2 d_ff) -> 2 x (T, d_ff)
        return linear(self._act(gate) * up, self.down_proj[e])  # (T, d_ff) -> (T, d)


class MixtureOfExperts(Module):
    """Each token goes to its top-k experts; their outputs are summed with the router's weights."""

    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._top_k = config.dtype, cfg.top_k
        self.gate = Router(cfg, config)
        self.experts = Experts(cfg, config)

    def __call__(self, x: Array) -> Array:
        tokens = x.reshape(-1, x.shape[-1])  # (B, L, d) -> (T, d)
        chosen, weights = route(linear(tokens, self.gate.weight), self._top_k)  # (T, E) -> (T, k) each
        out = np.zeros_like(tokens)
        for e in np.unique(chosen):
            token, slot = np.nonzero(chosen == e)  # the tokens routed to expert e, and in which of their k slots
            out[token] += weights[token, slot, None] * self.experts.expert(e, tokens[token])
        return out.reshape(x.shape)


class LlamaBlock(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype = config.dtype
        self.self_attn = SelfAttention(cfg, config)
        self.mlp = MixtureOfExperts(cfg, config) if cfg.n_experts else GatedMLP(cfg, config)
        self.input_layernorm = _rms_norm(cfg, config)
        self.post_attention_layernorm = _rms_norm(cfg, config)

    def __call__(self, x: Array, mask: Array) -> Array:
        x = x + self.self_attn(self.input_layernorm(x), mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaModel(Module):
    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype, self._cfg = config.dtype, cfg
        self.embed_tokens = Embedding(cfg.vocab_size, cfg.d_model, config=config)
        self.layers = [LlamaBlock(cfg, config) for _ in range(cfg.n_layers)]
        self.norm = _rms_norm(cfg, config)

    def __call__(self, ids: Array) -> Array:
        x = self.embed_tokens(ids)  # (B, L) -> (B, L, d)
        if self._cfg.embed_scale:
            x = x * np.asarray(math.sqrt(self._cfg.d_model), dtype=self.dtype)
        mask = attention_mask(ids.shape[1], self._cfg.sliding_window)
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class Head(Module):
    """The output projection d -> vocab, no bias (lm_head)."""

    def __init__(self, cfg: LLMConfig, config: ModuleConfig) -> None:
        self.dtype = config.dtype
        self.weight = uniform(config, (cfg.vocab_size, cfg.d_model), 1.0 / math.sqrt(cfg.d_model))


class DecoderLM(Module):
    """A decoder-only language model: token ids (B, L) -> logits (B, L, vocab).

    Attributes mirror transformers' *ForCausalLM (`transformer` for GPT-2, `model` otherwise, and
    `lm_head`), so state_dict() has exactly its keys and shapes. A tied head is the embedding's array
    itself; num_params() counts it once, as `sum(p.numel() for p in model.parameters())` does.
    """

    def __init__(self, cfg: LLMConfig, *, config: ModuleConfig | None = None, **settings: Any) -> None:
        if cfg.rope_type != "default":  # scaled RoPE changes the angles: logits would differ from transformers'
            raise ConfigError("rope_forward", rope_type=cfg.rope_type)
        config = configure(config, settings)
        self.dtype, self.config = config.dtype, cfg
        if cfg.gpt2_style:
            self.transformer = GPT2Model(cfg, config)
        else:
            self.model = LlamaModel(cfg, config)
        self.lm_head = Head(cfg, config)
        self._tie()

    @property
    def _body(self) -> Module:
        return self.transformer if self.config.gpt2_style else self.model

    @property
    def _embedding(self) -> Embedding:
        return self.transformer.wte if self.config.gpt2_style else self.model.embed_tokens

    def _tie(self) -> None:
        if self.config.tied_head:
            self.lm_head.weight = self._embedding.weight

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Strict, as Module's; a tied head must equal the embedding it is tied to."""
        super().load_state_dict(state)
        if self.config.tied_head:
            if not np.array_equal(self.lm_head.weight, self._embedding.weight):
                raise ValueError("lm_head.weight differs from the embedding, but the config ties them")
            self._tie()

    def num_params(self) -> int:
        unique = {id(value): value for _, value in self._named_parameters()}
        return sum(math.prod(value.shape) for value in unique.values())

    def __call__(self, ids: Array) -> Array:
        ids = np.asarray(ids)
        if ids.ndim != 2:
            raise ValueError(f"token ids must be (B, L), got shape {ids.shape}")
        if self.config.positions == "learned" and ids.shape[1] > self.config.max_positions:
            raise ValueError(f"L={ids.shape[1]} is longer than the {self.config.max_positions} learned positions")
        return linear(self._body(ids), self.lm_head.weight)  # (B, L, d) -> (B, L, vocab)

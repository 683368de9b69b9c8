"""Multi-head attention as torch.nn.MultiheadAttention(batch_first=True), with an optional KV cache."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .config import ModuleConfig, configure, constant, uniform
from .decoding import LayerCache, MemoryCache
from .functional import Array, _softmax_in_place, attention_scores, linear
from .meta import MetaArray
from .modules import Linear, Module
from .tracing import observe


def _as_mask(mask: Any) -> Array | None:
    return mask if mask is None or isinstance(mask, MetaArray) else np.asarray(mask)


def _merge_masks(
    attn_mask: Array | None, key_padding_mask: Array | None, batch: int, n_heads: int
) -> Array | None:
    """One bool mask (True = blocked) broadcastable to the scores (B, H, Lq, Lk)."""
    masks = []
    attn_mask, key_padding_mask = _as_mask(attn_mask), _as_mask(key_padding_mask)
    if attn_mask is not None:
        if attn_mask.dtype != np.bool_:
            raise ValueError("attn_mask must be a bool array (True = blocked)")
        if attn_mask.ndim == 3:  # PyTorch's (B * H, Lq, Lk)
            attn_mask = attn_mask.reshape(batch, n_heads, *attn_mask.shape[1:])
        masks.append(attn_mask)
    if key_padding_mask is not None:
        if key_padding_mask.dtype != np.bool_:
            raise ValueError("key_padding_mask must be a bool array (True = padding)")
        masks.append(key_padding_mask.reshape(batch, 1, 1, -1))  # (B, Lk) -> (B, 1, 1, Lk)
    if len(masks) == 2:
        return masks[0] | masks[1]
    return masks[0] if masks else None


class MultiHeadAttention(Module):
    """torch.nn.MultiheadAttention(batch_first=True): a fused (3d, d) in_proj_weight, then out_proj."""

    def __init__(self, d_model: int, n_heads: int, *, config: ModuleConfig | None = None, **settings: Any) -> None:
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        config = configure(config, settings)
        self.dtype = config.dtype
        self.d_model, self.n_heads = d_model, n_heads
        xavier = math.sqrt(6.0 / (d_model + 3 * d_model))  # torch: xavier_uniform_ on (3d, d)
        self.in_proj_weight = uniform(config, (3 * d_model, d_model), xavier)
        self.in_proj_bias = constant(config, (3 * d_model,), 0.0) if config.bias else None
        self.out_proj = Linear(d_model, d_model, config=config)
        if config.bias:  # torch zeroes the out_proj bias after its default init
            self.out_proj.bias = constant(config, (d_model,), 0.0)

    def _rows(self, start: int, stop: int) -> tuple[Array, Array | None]:
        """Rows start*d .. stop*d of the fused projection: 0-1 is W_Q, 1-2 W_K, 2-3 W_V."""
        d, b = self.d_model, self.in_proj_bias
        return self.in_proj_weight[start * d : stop * d], None if b is None else b[start * d : stop * d]

    def _project(self, query: Array, key: Array, value: Array) -> tuple[Array, Array, Array]:
        """Q, K, V (B, L, d) each; one fused GEMM when query, key and value are the same array."""
        d = self.d_model
        if query is key and key is value:
            qkv = linear(query, *self._rows(0, 3))  # (B, L, d) -> (B, L, 3d)
            return qkv[..., :d], qkv[..., d : 2 * d], qkv[..., 2 * d :]
        q = linear(query, *self._rows(0, 1))
        if key is value:
            kv = linear(key, *self._rows(1, 3))  # (B, Lk, d) -> (B, Lk, 2d)
            return q, kv[..., :d], kv[..., d:]
        return q, linear(key, *self._rows(1, 2)), linear(value, *self._rows(2, 3))

    def _cast_inputs(self, query: Array, key: Array, value: Array) -> tuple[Array, Array, Array]:
        """In the module's dtype, keeping `query is key is value` (it selects the fused projection)."""
        same_kv = key is value
        fused = query is key and same_kv
        query = self._cast(query)
        key = query if fused else self._cast(key)
        value = key if same_kv else self._cast(value)
        if key.shape[-1] != self.d_model or query.shape[-1] != self.d_model or value.shape[-1] != self.d_model:
            raise ValueError(f"expected inputs with last dimension d_model={self.d_model}")
        return query, key, value

    def _split_heads(self, x: Array, name: str) -> Array:
        batch, length, _ = x.shape
        x = x.reshape(batch, length, self.n_heads, -1)  # (B, L, d) -> (B, L, H, d_k)
        observe(f"split heads {name}", x)
        x = x.transpose(0, 2, 1, 3)  # (B, L, H, d_k) -> (B, H, L, d_k)
        observe(f"transpose heads {name}", x)
        return x

    def _heads(self, query: Array, key: Array, value: Array, queries_only: bool) -> list[Array | None]:
        """[Q, K, V] projected and split into heads, (B, L, d) -> (B, H, L, d_k); K, V None if `queries_only`."""
        projected = (linear(query, *self._rows(0, 1)),) if queries_only else self._project(query, key, value)
        for name, x in zip("QKV", projected):
            observe(f"{name} projection", x)
        heads = [self._split_heads(x, name) for name, x in zip("QKV", projected)]
        return heads + [None] * (3 - len(heads))

    def __call__(
        self, query: Array, key: Array, value: Array, key_padding_mask: Array | None = None,
        attn_mask: Array | None = None, *, cache: LayerCache | MemoryCache | None = None,
    ) -> tuple[Array, Array]:
        """(out (B, Lq, d), per-head weights (B, H, Lq, Lk)); masks are bool, True = blocked.

        `cache` (decoding.py): a LayerCache for causal self-attention of new tokens (query is key is
        value, no masks: the new keys and values join the cached ones); a MemoryCache for
        cross-attention (the memory's keys and values are projected at the first call, reused after).
        """
        if isinstance(cache, LayerCache) and not (query is key is value and key_padding_mask is None
                                                  and attn_mask is None):
            raise ValueError("a KV cache is for causal self-attention: pass query is key is value and no masks")
        query, key, value = self._cast_inputs(query, key, value)
        batch, length_q, d = query.shape
        q, k, v = self._heads(query, key, value, queries_only=isinstance(cache, MemoryCache) and cache.filled)
        mask = _merge_masks(attn_mask, key_padding_mask, batch, self.n_heads)
        if cache is not None:
            k, v, mask = cache.update(k, v, mask)  # (B, H, Lk, d_k): every key so far, or the memory's
        scores = attention_scores(q, k, mask)  # (B, H, Lq, Lk)
        observe("attention scores Q·K^T/sqrt(d_k)", scores)
        weights = _softmax_in_place(scores, axis=-1)  # (B, H, Lq, Lk), over the keys
        observe("softmax over keys", weights)
        out = weights @ v  # (B, H, Lq, Lk) @ (B, H, Lk, d_k) -> (B, H, Lq, d_k)
        observe("weighted sum of V", out)
        out = out.transpose(0, 2, 1, 3).reshape(batch, length_q, d)  # (B, H, Lq, d_k) -> (B, Lq, d)
        observe("concat heads", out)
        out = self.out_proj(out)
        observe("output projection W_O", out)
        return out, weights

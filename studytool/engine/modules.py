"""The Transformer's modules, with PyTorch's parameter names, shapes and defaults.

Batch-first (B, L, d), inference only (no dropout: PyTorch's eval mode). A module built with
`dtype=np.float32` computes in float32 end to end; `device="meta"` builds shape-only parameters
(MetaArray) so the same forward pass can trace sizes too large to allocate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from .decoding import KVCache, LayerCache
from .functional import Array, layer_norm, linear, relu, scaled_dot_product_attention
from .meta import MetaArray
from .tracing import record, scope

Seed = int | np.random.Generator | None


class _Init:
    """Creates a module's parameters: random from `seed`, in `dtype`, on `device` ("cpu" or "meta")."""

    def __init__(self, seed: Seed, dtype: Any, device: str) -> None:
        if device not in ("cpu", "meta"):
            raise ValueError(f"device must be 'cpu' or 'meta', got {device!r}")
        self.rng = np.random.default_rng(seed)  # a Generator passes through: children share the stream
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise ValueError(f"dtype must be a floating type, got {self.dtype}")
        self.device = device

    def uniform(self, shape: tuple[int, ...], bound: float) -> Array:
        if self.device == "meta":
            return MetaArray(shape, self.dtype)
        return self.rng.uniform(-bound, bound, size=shape).astype(self.dtype)

    def constant(self, shape: tuple[int, ...], value: float) -> Array:
        if self.device == "meta":
            return MetaArray(shape, self.dtype)
        return np.full(shape, value, dtype=self.dtype)


class Module:
    """Parameters are the public ndarray attributes; child modules (and lists of them) nest by name."""

    dtype: np.dtype

    def _named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Array]]:
        for name, value in vars(self).items():
            if name.startswith("_"):
                continue
            if isinstance(value, Module):
                yield from value._named_parameters(f"{prefix}{name}.")
            elif isinstance(value, list):
                for i, child in enumerate(value):
                    yield from child._named_parameters(f"{prefix}{name}.{i}.")
            elif isinstance(value, (np.ndarray, MetaArray)):
                yield prefix + name, value

    def state_dict(self) -> dict[str, Array]:
        """Copies of the parameters, keyed exactly as the PyTorch module's state_dict()."""
        return {name: value.copy() for name, value in self._named_parameters()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Load parameters strictly: a missing, unexpected or mis-shaped key is a ValueError naming it.

        Values may be anything np.asarray accepts (a torch tensor's state_dict included); they are
        copied into the module's dtype.
        """
        own = dict(self._named_parameters())
        for key in own:
            if key not in state:
                raise ValueError(f"missing key in state_dict: {key!r}")
        for key in state:
            if key not in own:
                raise ValueError(f"unexpected key in state_dict: {key!r}")
        arrays = {key: np.array(state[key], dtype=self.dtype) for key in own}
        for key, array in arrays.items():
            if array.shape != own[key].shape:
                raise ValueError(
                    f"shape mismatch for {key!r}: expected {own[key].shape}, got {array.shape}"
                )
        for key, array in arrays.items():
            *path, name = key.split(".")
            owner: Any = self
            for part in path:
                owner = owner[int(part)] if isinstance(owner, list) else getattr(owner, part)
            setattr(owner, name, array)

    def num_params(self) -> int:
        return sum(math.prod(value.shape) for _, value in self._named_parameters())

    def _cast(self, x: Any) -> Array:
        """Inputs are computed in the module's dtype (no silent float64 in a float32 model)."""
        return x if isinstance(x, MetaArray) else np.asarray(x, dtype=self.dtype)


class Linear(Module):
    """y = x W^T + b, W of shape (out_features, in_features) as torch.nn.Linear."""

    def __init__(
        self, in_features: int, out_features: int, *, bias: bool = True,
        seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        bound = 1.0 / math.sqrt(in_features)  # PyTorch's default init range
        self.weight = init.uniform((out_features, in_features), bound)
        self.bias = init.uniform((out_features,), bound) if bias else None

    def __call__(self, x: Array) -> Array:
        return linear(x, self.weight, self.bias)


class LayerNorm(Module):
    """torch.nn.LayerNorm over the last axis: gamma (weight) = 1, beta (bias) = 0 at start."""

    def __init__(
        self, d_model: int, *, eps: float = 1e-5, bias: bool = True,
        dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        init = _Init(None, dtype, device)
        self.dtype = init.dtype
        self.eps = float(eps)
        self.weight = init.constant((d_model,), 1.0)
        self.bias = init.constant((d_model,), 0.0) if bias else None

    def __call__(self, x: Array, out: Array | None = None) -> Array:
        return layer_norm(x, self.weight, self.bias, self.eps, out=out)


class Embedding(Module):
    """A (vocab, d_model) table; token id t -> row t (torch.nn.Embedding, N(0, 1) init)."""

    def __init__(
        self, vocab: int, d_model: int, *, seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu"
    ) -> None:
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        self.weight = (
            MetaArray((vocab, d_model), init.dtype) if device == "meta"
            else init.rng.standard_normal((vocab, d_model)).astype(init.dtype)
        )

    def __call__(self, ids: Array) -> Array:
        return self.weight[ids]  # (B, L) -> (B, L, d_model)


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

    def __init__(
        self, d_model: int, n_heads: int, *, bias: bool = True,
        seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        self.d_model, self.n_heads = d_model, n_heads
        xavier = math.sqrt(6.0 / (d_model + 3 * d_model))  # torch: xavier_uniform_ on (3d, d)
        self.in_proj_weight = init.uniform((3 * d_model, d_model), xavier)
        self.in_proj_bias = init.constant((3 * d_model,), 0.0) if bias else None
        self.out_proj = Linear(d_model, d_model, bias=bias, seed=init.rng, dtype=dtype, device=device)
        if bias:
            self.out_proj.bias = init.constant((d_model,), 0.0)

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

    def _split_heads(self, x: Array, name: str) -> Array:
        batch, length, _ = x.shape
        x = x.reshape(batch, length, self.n_heads, -1)  # (B, L, d) -> (B, L, H, d_k)
        record(f"split heads {name}", x)
        x = x.transpose(0, 2, 1, 3)  # (B, L, H, d_k) -> (B, H, L, d_k)
        record(f"transpose heads {name}", x)
        return x

    def __call__(
        self, query: Array, key: Array, value: Array,
        key_padding_mask: Array | None = None, attn_mask: Array | None = None, *, cache: LayerCache | None = None,
    ) -> tuple[Array, Array]:
        """(out (B, Lq, d), per-head weights (B, H, Lq, Lk)); masks are bool, True = blocked.

        With a `cache` (causal self-attention of new tokens, query is key is value, no masks) the new
        keys and values join the cached ones and the weights span every cached key.
        """
        if cache is not None and not (query is key is value and key_padding_mask is None and attn_mask is None):
            raise ValueError("a KV cache is for causal self-attention: pass query is key is value and no masks")
        same_kv = key is value
        fused = query is key and same_kv
        query = self._cast(query)
        key = query if fused else self._cast(key)
        value = key if same_kv else self._cast(value)
        batch, length_q, d = query.shape
        if d != self.d_model or key.shape[-1] != d or value.shape[-1] != d:
            raise ValueError(f"expected inputs with last dimension d_model={self.d_model}")
        q, k, v = self._project(query, key, value)
        record("Q projection", q)
        record("K projection", k)
        record("V projection", v)
        mask = _merge_masks(attn_mask, key_padding_mask, batch, self.n_heads)
        q, k, v = self._split_heads(q, "Q"), self._split_heads(k, "K"), self._split_heads(v, "V")
        if cache is not None:
            k, v, mask = cache.extend(k, v)
        out, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, H, Lq, d_k), (B, H, Lq, Lk)
        out = out.transpose(0, 2, 1, 3).reshape(batch, length_q, d)  # (B, H, Lq, d_k) -> (B, Lq, d)
        record("concat heads", out)
        out = self.out_proj(out)
        record("output projection W_O", out)
        return out, weights


def feed_forward(x: Array, linear1: Linear, linear2: Linear) -> Array:
    """Position-wise FFN: Linear(d -> d_ff), ReLU, Linear(d_ff -> d)."""
    h = linear1(x)  # (B, L, d) -> (B, L, d_ff)
    record("FFN expand", h)
    relu(h, out=h)
    record("ReLU", h)
    y = linear2(h)  # (B, L, d_ff) -> (B, L, d)
    record("FFN contract", y)
    return y


class FeedForward(Module):
    """Linear -> ReLU -> Linear, with torch's names linear1 / linear2."""

    def __init__(
        self, d_model: int, d_ff: int, *, bias: bool = True,
        seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        self.linear1 = Linear(d_model, d_ff, bias=bias, seed=init.rng, dtype=dtype, device=device)
        self.linear2 = Linear(d_ff, d_model, bias=bias, seed=init.rng, dtype=dtype, device=device)

    def __call__(self, x: Array) -> Array:
        return feed_forward(self._cast(x), self.linear1, self.linear2)


def _sublayer(x: Array, block: Callable[[Array], Array], norm: LayerNorm, norm_first: bool) -> Array:
    """Post-LN: norm(x + block(x)); Pre-LN: x + block(norm(x))."""
    out = block(norm(x) if norm_first else x)  # a fresh temporary: add and normalise in place
    np.add(out, x, out=out)
    if norm_first:
        record("residual add", out)
        return out
    out = norm(out, out=out)
    record("add & norm", out)
    return out


class EncoderLayer(Module):
    """torch.nn.TransformerEncoderLayer(batch_first=True, activation=relu) in eval mode."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, *, norm_first: bool = False,
        eps: float = 1e-5, bias: bool = True, seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        self.norm_first = norm_first
        kw = dict(bias=bias, seed=init.rng, dtype=dtype, device=device)
        self.self_attn = MultiHeadAttention(d_model, n_heads, **kw)
        self.linear1 = Linear(d_model, d_ff, **kw)
        self.linear2 = Linear(d_ff, d_model, **kw)
        norm_kw = dict(eps=eps, bias=bias, dtype=dtype, device=device)
        self.norm1 = LayerNorm(d_model, **norm_kw)
        self.norm2 = LayerNorm(d_model, **norm_kw)

    def __call__(
        self, src: Array, src_mask: Array | None = None, src_key_padding_mask: Array | None = None,
        *, cache: LayerCache | None = None,
    ) -> Array:
        """`cache`: the layer runs as a causal decoder-only block on new tokens (see decoding.py)."""
        x = self._cast(src)  # (B, L, d) throughout

        def self_attention(y: Array) -> Array:
            return self.self_attn(y, y, y, src_key_padding_mask, src_mask, cache=cache)[0]

        def ffn(y: Array) -> Array:
            return feed_forward(y, self.linear1, self.linear2)

        for label, block, norm in (("self-attention", self_attention, self.norm1), ("FFN", ffn, self.norm2)):
            with scope(label):
                x = _sublayer(x, block, norm, self.norm_first)
        return x


class DecoderLayer(Module):
    """torch.nn.TransformerDecoderLayer(batch_first=True, activation=relu) in eval mode."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, *, norm_first: bool = False,
        eps: float = 1e-5, bias: bool = True, seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        self.norm_first = norm_first
        kw = dict(bias=bias, seed=init.rng, dtype=dtype, device=device)
        self.self_attn = MultiHeadAttention(d_model, n_heads, **kw)
        self.multihead_attn = MultiHeadAttention(d_model, n_heads, **kw)
        self.linear1 = Linear(d_model, d_ff, **kw)
        self.linear2 = Linear(d_ff, d_model, **kw)
        norm_kw = dict(eps=eps, bias=bias, dtype=dtype, device=device)
        self.norm1 = LayerNorm(d_model, **norm_kw)
        self.norm2 = LayerNorm(d_model, **norm_kw)
        self.norm3 = LayerNorm(d_model, **norm_kw)

    def __call__(
        self, tgt: Array, memory: Array, tgt_mask: Array | None = None, memory_mask: Array | None = None,
        tgt_key_padding_mask: Array | None = None, memory_key_padding_mask: Array | None = None,
    ) -> Array:
        x, memory = self._cast(tgt), self._cast(memory)  # x (B, L_tgt, d), memory (B, L_src, d)

        def masked_self_attention(y: Array) -> Array:
            return self.self_attn(y, y, y, tgt_key_padding_mask, tgt_mask)[0]

        def cross_attention(y: Array) -> Array:  # queries from the decoder, keys and values from memory
            return self.multihead_attn(y, memory, memory, memory_key_padding_mask, memory_mask)[0]

        def ffn(y: Array) -> Array:
            return feed_forward(y, self.linear1, self.linear2)

        blocks = (
            ("masked self-attention", masked_self_attention, self.norm1),
            ("cross-attention", cross_attention, self.norm2),
            ("FFN", ffn, self.norm3),
        )
        for label, block, norm in blocks:
            with scope(label):
                x = _sublayer(x, block, norm, self.norm_first)
        return x


def _stack(
    layer: type[Module], d_model: int, n_heads: int, d_ff: int, num_layers: int, norm: bool, *,
    norm_first: bool, eps: float, bias: bool, seed: Seed, dtype: Any, device: str,
) -> tuple[np.dtype, list[Module], LayerNorm | None]:
    """num_layers layers of the same shapes with their own parameters, and the optional final LayerNorm."""
    init = _Init(seed, dtype, device)
    layers = [
        layer(d_model, n_heads, d_ff, norm_first=norm_first, eps=eps, bias=bias,
              seed=init.rng, dtype=dtype, device=device)
        for _ in range(num_layers)
    ]
    final = LayerNorm(d_model, eps=eps, bias=bias, dtype=dtype, device=device) if norm else None
    return init.dtype, layers, final


class Encoder(Module):
    """torch.nn.TransformerEncoder: num_layers EncoderLayers, then a final LayerNorm (norm=True)."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, num_layers: int = 6, *,
        norm: bool = True, norm_first: bool = False, eps: float = 1e-5, bias: bool = True,
        seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        self.dtype, self.layers, self.norm = _stack(EncoderLayer, d_model, n_heads, d_ff, num_layers, norm,
                                                    norm_first=norm_first, eps=eps, bias=bias, seed=seed,
                                                    dtype=dtype, device=device)

    def __call__(
        self, src: Array, mask: Array | None = None, src_key_padding_mask: Array | None = None,
        *, cache: KVCache | None = None,
    ) -> Array:
        """With `cache` (a KVCache of len(layers)), a causal decoder-only stack fed new tokens only."""
        x = self._cast(src)
        caches = [None] * len(self.layers) if cache is None else cache.layers
        for layer, layer_cache in zip(self.layers, caches, strict=True):
            x = layer(x, mask, src_key_padding_mask, cache=layer_cache)
        if self.norm is not None:
            x = self.norm(x)
            record("final LayerNorm (memory)", x)
        return x


class Decoder(Module):
    """torch.nn.TransformerDecoder: num_layers DecoderLayers, then a final LayerNorm (norm=True)."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, num_layers: int = 6, *,
        norm: bool = True, norm_first: bool = False, eps: float = 1e-5, bias: bool = True,
        seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        self.dtype, self.layers, self.norm = _stack(DecoderLayer, d_model, n_heads, d_ff, num_layers, norm,
                                                    norm_first=norm_first, eps=eps, bias=bias, seed=seed,
                                                    dtype=dtype, device=device)

    def __call__(
        self, tgt: Array, memory: Array, tgt_mask: Array | None = None, memory_mask: Array | None = None,
        tgt_key_padding_mask: Array | None = None, memory_key_padding_mask: Array | None = None,
    ) -> Array:
        x, memory = self._cast(tgt), self._cast(memory)
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask)
        if self.norm is not None:
            x = self.norm(x)
            record("final LayerNorm", x)
        return x


class Transformer(Module):
    """torch.nn.Transformer(batch_first=True): encoder + decoder on already-embedded (src, tgt)."""

    def __init__(
        self, d_model: int = 512, n_heads: int = 8, num_encoder_layers: int = 6,
        num_decoder_layers: int = 6, d_ff: int = 2048, *, norm_first: bool = False,
        eps: float = 1e-5, bias: bool = True, seed: Seed = 0, dtype: Any = np.float64, device: str = "cpu",
    ) -> None:
        init = _Init(seed, dtype, device)
        self.dtype = init.dtype
        kw = dict(norm_first=norm_first, eps=eps, bias=bias, seed=init.rng, dtype=dtype, device=device)
        self.encoder = Encoder(d_model, n_heads, d_ff, num_encoder_layers, **kw)
        self.decoder = Decoder(d_model, n_heads, d_ff, num_decoder_layers, **kw)

    def __call__(
        self, src: Array, tgt: Array, src_mask: Array | None = None, tgt_mask: Array | None = None,
        memory_mask: Array | None = None, src_key_padding_mask: Array | None = None,
        tgt_key_padding_mask: Array | None = None, memory_key_padding_mask: Array | None = None,
    ) -> Array:
        """src (B, L_src, d), tgt (B, L_tgt, d) -> (B, L_tgt, d)."""
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask
        )

"""Encoder and decoder layers, their stacks and the whole Transformer, as torch.nn's modules in eval mode.

Each constructor takes the sizes, then `config=ModuleConfig(...)` and/or the settings as keywords
(norm_first, eps, bias, seed, dtype, device; see config.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .attention import MultiHeadAttention
from .config import ModuleConfig, configure
from .decoding import KVCache, LayerCache, MemoryCache
from .functional import Array
from .meta import MetaArray
from .modules import LayerNorm, Linear, Module, feed_forward
from .tracing import observe, scope

# A layer takes the batch a few sentences at a time, so that its largest temporary (the scores
# (H, Lq, Lk) of a sentence, or its FFN activations (L, d_ff)) holds at most this many numbers per
# chunk: 2M, 8 MB in float32 and 16 MB in float64. Under glibc's largest mmap threshold (32 MB),
# malloc then recycles one chunk's memory for the next instead of the kernel mapping and zeroing
# fresh pages for every array (at B=32, L=512 the whole batch at once spent about a third of the
# layer's time in page faults), and a chunk's arrays stay in cache from one step to the next.
# A sentence only ever meets itself, so the output is the same (BENCHMARKS.md).
CHUNK_NUMBERS = 2**21


def _sublayer(label: str, x: Array, block: Callable[[Array], Array], norm: LayerNorm, norm_first: bool) -> Array:
    """Post-LN: norm(x + block(x)); Pre-LN: x + block(norm(x)). `label` names the steps inside."""
    with scope(label):
        if norm_first:
            x = x + block(norm(x))
            observe("residual add", x)
        else:
            x = norm(x + block(x))
            observe("add & norm", x)
    return x


_ALL = slice(None)  # every sentence: arrays and masks pass as they are


def _rows(x: Array | None, rows: slice) -> Array | None:
    """Sentences `rows` of an array or key padding mask whose first axis is the batch."""
    return x if x is None or rows == _ALL else np.asarray(x)[rows]


def _attn_rows(mask: Array | None, rows: slice, n_heads: int) -> Array | None:
    """An attn_mask of sentences `rows`: torch's (B * H, Lq, Lk) holds H rows per sentence, (B, H, Lq, Lk) one;
    an (Lq, Lk) mask, or a batch axis of 1, is every sentence's."""
    if mask is None or rows == _ALL:
        return mask
    mask = np.asarray(mask)
    if mask.ndim == 2 or mask.shape[0] == 1:
        return mask
    return mask[rows.start * n_heads : rows.stop * n_heads] if mask.ndim == 3 else mask[rows]


def _in_chunks(forward: Callable[[slice], Array], x: Array, chunk: int) -> Array:
    """forward(rows) of x (B, L, d) for `chunk` sentences at a time, gathered into one (B, L, d) output."""
    batch = x.shape[0]
    if chunk >= batch:
        return forward(_ALL)
    out = np.empty_like(x)
    for start in range(0, batch, chunk):
        rows = slice(start, start + chunk)
        out[rows] = forward(rows)
    return out


class _Layer(Module):
    """What torch's encoder and decoder layers hold, under torch's names and built in torch's order
    (seeded weights are drawn in that order): self-attention, cross-attention in a decoder, the FFN, the norms."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, config: ModuleConfig, *, cross: bool) -> None:
        self.dtype = config.dtype
        self.norm_first = config.norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, config=config)
        if cross:
            self.multihead_attn = MultiHeadAttention(d_model, n_heads, config=config)
        self.linear1 = Linear(d_model, d_ff, config=config)
        self.linear2 = Linear(d_ff, d_model, config=config)
        self.norm1 = LayerNorm(d_model, config=config)
        self.norm2 = LayerNorm(d_model, config=config)
        if cross:
            self.norm3 = LayerNorm(d_model, config=config)

    def _sentences_per_chunk(self, x: Array, length_k: int) -> int:
        """Sentences whose largest temporary, scores (H, Lq, Lk), FFN activations (Lq, d_ff) or the Q, K, V
        projections (L, 3d), fit CHUNK_NUMBERS; all of them for shape-only arrays."""
        if isinstance(x, MetaArray):
            return x.shape[0]
        length_q, (d_ff, d_model) = x.shape[1], self.linear1.weight.shape
        n_heads = self.self_attn.n_heads
        per_sentence = max(n_heads * length_q * length_k, length_q * d_ff, 3 * d_model * max(length_q, length_k), 1)
        return max(1, CHUNK_NUMBERS // per_sentence)


class EncoderLayer(_Layer):
    """torch.nn.TransformerEncoderLayer(batch_first=True, activation=relu) in eval mode."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, *, config: ModuleConfig | None = None, **settings: Any
    ) -> None:
        super().__init__(d_model, n_heads, d_ff, configure(config, settings), cross=False)

    def __call__(
        self, src: Array, src_mask: Array | None = None, src_key_padding_mask: Array | None = None,
        *, cache: LayerCache | None = None,
    ) -> Array:
        """src (B, L, d) -> (B, L, d). With `cache`: a causal decoder-only block fed new tokens (decoding.py)."""
        x = self._cast(src)
        n_heads = self.self_attn.n_heads

        def sentences(rows: slice) -> Array:
            masks = _attn_rows(src_mask, rows, n_heads), _rows(src_key_padding_mask, rows)
            return self._forward(_rows(x, rows), *masks, cache)

        return _in_chunks(sentences, x, x.shape[0] if cache is not None else self._sentences_per_chunk(x, x.shape[1]))

    def _forward(
        self, x: Array, src_mask: Array | None, src_key_padding_mask: Array | None, cache: LayerCache | None
    ) -> Array:
        def self_attention(y: Array) -> Array:
            return self.self_attn(y, y, y, src_key_padding_mask, src_mask, cache=cache)[0]

        x = _sublayer("self-attention", x, self_attention, self.norm1, self.norm_first)
        return _sublayer("FFN", x, lambda y: feed_forward(y, self.linear1, self.linear2), self.norm2, self.norm_first)


class DecoderLayer(_Layer):
    """torch.nn.TransformerDecoderLayer(batch_first=True, activation=relu) in eval mode."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, *, config: ModuleConfig | None = None, **settings: Any
    ) -> None:
        super().__init__(d_model, n_heads, d_ff, configure(config, settings), cross=True)

    def __call__(
        self, tgt: Array, memory: Array, tgt_mask: Array | None = None, memory_mask: Array | None = None,
        tgt_key_padding_mask: Array | None = None, memory_key_padding_mask: Array | None = None,
        *, cache: LayerCache | None = None, memory_cache: MemoryCache | None = None,
    ) -> Array:
        """tgt (B, L_tgt, d) and memory (B, L_src, d) -> (B, L_tgt, d); caches: new tokens only (decoding.py)."""
        x, memory = self._cast(tgt), self._cast(memory)
        n_heads = self.self_attn.n_heads

        def sentences(rows: slice) -> Array:
            masks = (_attn_rows(tgt_mask, rows, n_heads), _attn_rows(memory_mask, rows, n_heads),
                     _rows(tgt_key_padding_mask, rows), _rows(memory_key_padding_mask, rows))
            return self._forward(_rows(x, rows), _rows(memory, rows), *masks, cache, memory_cache)

        cached = cache is not None or memory_cache is not None
        length_k = max(x.shape[1], memory.shape[1])
        return _in_chunks(sentences, x, x.shape[0] if cached else self._sentences_per_chunk(x, length_k))

    def _forward(
        self, x: Array, memory: Array, tgt_mask: Array | None, memory_mask: Array | None,
        tgt_key_padding_mask: Array | None, memory_key_padding_mask: Array | None,
        cache: LayerCache | None, memory_cache: MemoryCache | None,
    ) -> Array:
        def masked_self_attention(y: Array) -> Array:
            return self.self_attn(y, y, y, tgt_key_padding_mask, tgt_mask, cache=cache)[0]

        def cross_attention(y: Array) -> Array:  # queries from the decoder, keys and values from memory
            return self.multihead_attn(y, memory, memory, memory_key_padding_mask, memory_mask, cache=memory_cache)[0]

        x = _sublayer("masked self-attention", x, masked_self_attention, self.norm1, self.norm_first)
        x = _sublayer("cross-attention", x, cross_attention, self.norm2, self.norm_first)
        return _sublayer("FFN", x, lambda y: feed_forward(y, self.linear1, self.linear2), self.norm3, self.norm_first)


class _Stack(Module):
    """num_layers layers of the same shapes with their own parameters, and the optional final LayerNorm."""

    def __init__(
        self, layer: type[_Layer], d_model: int, n_heads: int, d_ff: int, num_layers: int, norm: bool,
        config: ModuleConfig,
    ) -> None:
        self.dtype = config.dtype
        self.layers = [layer(d_model, n_heads, d_ff, config=config) for _ in range(num_layers)]
        self.norm = LayerNorm(d_model, config=config) if norm else None


class Encoder(_Stack):
    """torch.nn.TransformerEncoder: num_layers EncoderLayers, then a final LayerNorm (norm=True).

    Run with a causal mask it is a decoder-only stack (GPT); `cache=KVCache(num_layers)` then
    decodes it incrementally, one new token (or a prompt) per call.
    """

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, num_layers: int = 6, *, norm: bool = True,
        config: ModuleConfig | None = None, **settings: Any,
    ) -> None:
        super().__init__(EncoderLayer, d_model, n_heads, d_ff, num_layers, norm, configure(config, settings))

    def __call__(
        self, src: Array, mask: Array | None = None, src_key_padding_mask: Array | None = None,
        *, cache: KVCache | None = None,
    ) -> Array:
        x = self._cast(src)
        caches = [None] * len(self.layers) if cache is None else cache.layers
        for layer, layer_cache in zip(self.layers, caches, strict=True):
            x = layer(x, mask, src_key_padding_mask, cache=layer_cache)
        if self.norm is not None:
            x = self.norm(x)
            observe("final LayerNorm (memory)", x)
        return x


class Decoder(_Stack):
    """torch.nn.TransformerDecoder: num_layers DecoderLayers, then a final LayerNorm (norm=True)."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int = 2048, num_layers: int = 6, *, norm: bool = True,
        config: ModuleConfig | None = None, **settings: Any,
    ) -> None:
        super().__init__(DecoderLayer, d_model, n_heads, d_ff, num_layers, norm, configure(config, settings))

    def __call__(
        self, tgt: Array, memory: Array, tgt_mask: Array | None = None, memory_mask: Array | None = None,
        tgt_key_padding_mask: Array | None = None, memory_key_padding_mask: Array | None = None,
        *, cache: KVCache | None = None,
    ) -> Array:
        """With `cache` (a KVCache of len(layers)), tgt holds the new tokens only, decoded incrementally."""
        x, memory = self._cast(tgt), self._cast(memory)
        masks = (tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask)
        caches = [(None, None)] * len(self.layers) if cache is None else zip(cache.layers, cache.memory, strict=True)
        for layer, (layer_cache, memory_cache) in zip(self.layers, caches, strict=True):
            x = layer(x, memory, *masks, cache=layer_cache, memory_cache=memory_cache)
        if self.norm is not None:
            x = self.norm(x)
            observe("final LayerNorm", x)
        return x


class Transformer(Module):
    """torch.nn.Transformer(batch_first=True): encoder + decoder on already-embedded (src, tgt)."""

    def __init__(
        self, d_model: int = 512, n_heads: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
        d_ff: int = 2048, *, config: ModuleConfig | None = None, **settings: Any,
    ) -> None:
        config = configure(config, settings)
        self.dtype = config.dtype
        self.encoder = Encoder(d_model, n_heads, d_ff, num_encoder_layers, config=config)
        self.decoder = Decoder(d_model, n_heads, d_ff, num_decoder_layers, config=config)

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

"""Encoder and decoder layers, their stacks and the whole Transformer, as torch.nn's modules in eval mode.

Each constructor takes the sizes, then `config=ModuleConfig(...)` and/or the settings as keywords
(norm_first, eps, bias, seed, dtype, device; see config.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .attention import MultiHeadAttention
from .config import ModuleConfig, configure
from .decoding import KVCache, LayerCache, MemoryCache
from .functional import Array
from .modules import LayerNorm, Linear, Module, feed_forward
from .tracing import observe, scope


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

        def self_attention(y: Array) -> Array:
            return self.self_attn(y, y, y, src_key_padding_mask, src_mask, need_weights=False, cache=cache)[0]

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

        def masked_self_attention(y: Array) -> Array:
            return self.self_attn(y, y, y, tgt_key_padding_mask, tgt_mask, need_weights=False, cache=cache)[0]

        def cross_attention(y: Array) -> Array:  # queries from the decoder, keys and values from memory
            return self.multihead_attn(
                y, memory, memory, memory_key_padding_mask, memory_mask, need_weights=False, cache=memory_cache
            )[0]

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

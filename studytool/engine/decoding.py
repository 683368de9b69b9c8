"""Incremental decoding: a KV cache keeps each layer's keys and values, so a new token costs one row.

Without a cache, generating token t recomputes the keys and values of all t previous tokens
(and needs the causal mask over them); with it, one new query attends to the stored keys
and needs no mask at all. A decoder-only model (GPT) is an `Encoder` stack run with a
causal mask; `Encoder(x_new, cache=cache)` decodes it token by token, and
`Decoder(y_new, memory, cache=cache)` does the same for an encoder-decoder, with the
cross-attention keys and values of the memory projected once.
"""

from __future__ import annotations

import numpy as np

from .functional import Array
from .params import _positive_int


class LayerCache:
    """One self-attention layer's keys and values so far, each (B, H, L_past, d_k)."""

    def __init__(self) -> None:
        self.keys: Array | None = None
        self.values: Array | None = None

    @property
    def length(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]

    def update(self, k: Array, v: Array, mask: None = None) -> tuple[Array, Array, Array | None]:
        """Store the new tokens' k, v (B, H, T, d_k); return all keys, all values and the new queries' mask.

        New query i sits at position past + i and may see keys 0 .. past + i (mask True = blocked);
        a single new token may see every key, so its mask is None.
        """
        past, new = self.length, k.shape[-2]
        if self.keys is None:
            self.keys, self.values = k.copy(), v.copy()  # own the data, not a view into the fused QKV
        else:
            self.keys = np.concatenate([self.keys, k], axis=-2)  # (B, H, P, d_k) + (B, H, T, d_k) -> (B, H, P+T, d_k)
            self.values = np.concatenate([self.values, v], axis=-2)
        if new == 1:
            return self.keys, self.values, None
        mask = np.arange(new).reshape(new, 1) + past < np.arange(past + new).reshape(1, past + new)  # (T, P+T)
        return self.keys, self.values, mask


class MemoryCache:
    """One cross-attention layer's keys and values of the encoder memory, each (B, H, L_src, d_k).

    The memory does not change while the decoder generates, so its keys and values are projected
    at the first step and reused by every later one.
    """

    def __init__(self) -> None:
        self.keys: Array | None = None
        self.values: Array | None = None

    @property
    def filled(self) -> bool:
        return self.keys is not None

    def update(self, k: Array | None, v: Array | None, mask: Array | None) -> tuple[Array, Array, Array | None]:
        """Keep k, v at the first call (later calls pass None); the memory's keys and values and `mask`."""
        if self.keys is None:
            self.keys, self.values = k.copy(), v.copy()
        return self.keys, self.values, mask


class KVCache:
    """The caches of a stack of `num_layers` layers: self-attention (`layers`), cross-attention (`memory`).

    An Encoder run as a decoder-only stack uses `layers` only; a Decoder uses both.
    """

    def __init__(self, num_layers: int) -> None:
        self.layers = [LayerCache() for _ in range(num_layers)]
        self.memory = [MemoryCache() for _ in range(num_layers)]

    @property
    def length(self) -> int:
        """Tokens cached so far."""
        return self.layers[0].length

    @property
    def nbytes(self) -> int:
        caches = [*self.layers, *self.memory]
        return sum(c.keys.nbytes + c.values.nbytes for c in caches if c.keys is not None)


def kv_cache_bytes(num_layers: int, batch: int, length: int, d_model: int, bytes_per_value: int = 2) -> int:
    """Memory of a full KV cache: 2 (K and V) * num_layers * B * L * d_model * bytes per value.

    H heads of d_k = d_model / H store d_model numbers per token and layer for K, and as many
    for V. `bytes_per_value=2` is float16/bfloat16, the usual inference precision.
    """
    sizes = dict(num_layers=num_layers, batch=batch, length=length, d_model=d_model, bytes_per_value=bytes_per_value)
    layers, batch, length, d_model, width = (_positive_int(name, value) for name, value in sizes.items())
    return 2 * layers * batch * length * d_model * width

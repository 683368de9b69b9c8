"""trace_shapes: the shape of every step of the Transformer's data flow.

The shapes are recorded from arrays that really flow through the engine's modules: real
ndarrays for small sizes, and for sizes too large to allocate the very same code on shape-only
MetaArrays (device="meta"). One layer of each stack is traced; the other layers repeat it.
"""

from __future__ import annotations

import numpy as np

from .config import ModuleConfig
from .functional import Array, causal_mask, positional_encoding, softmax
from .meta import MetaArray
from .modules import Embedding, Linear
from .tracing import ShapeStep, observe, recording
from .transformer import Transformer

# Above this many elements in the largest array, trace on MetaArrays instead of real ones.
_REAL_LIMIT = 2_000_000
# NumPy refuses even a shape (np.broadcast_shapes, a zero-stride view) whose element count passes its index type.
MAX_ELEMENTS = np.iinfo(np.intp).max


class TooLargeToTrace(ValueError):
    """An array of the trace would have more elements than NumPy can index, even shape-only."""


def _embed(embedding: Embedding, ids: Array, label: str) -> Array:
    observe(f"{label} token ids", ids)
    x = embedding(ids)  # (B, L) -> (B, L, d)
    observe(f"{label} embedding", x)
    length, d_model = x.shape[-2:]
    x = x + positional_encoding(length, d_model, x.dtype, like=ids)  # an ndarray, or shape-only like the ids
    observe(f"{label} + positional encoding", x)
    return x


def _token_ids(rng: np.random.Generator, batch: int, length: int, vocab: int, device: str) -> Array:
    if device == "meta":
        return MetaArray((batch, length), np.int64)
    return rng.integers(0, vocab, size=(batch, length))


def _check(**sizes: int | None) -> None:
    for name, value in sizes.items():
        if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def largest_array(batch: int, length: int, d_model: int, n_heads: int, vocab: int, d_ff: int) -> int:
    """Elements of the largest array a trace makes: the scores (B, H, L, L), an activation (B, L, 3d | d_ff | V)
    (3d: the fused Q, K, V projection), or a weight matrix (V, d), (3d, d), (d_ff, d)."""
    return max(batch * n_heads * length * length, batch * length * max(3 * d_model, d_ff, vocab),
               vocab * d_model, d_model * max(3 * d_model, d_ff))


def trace_shapes(
    batch: int, src_len: int, d_model: int, n_heads: int, vocab: int,
    d_ff: int = 2048, tgt_len: int | None = None,
) -> list[ShapeStep]:
    """Ordered steps (name, shape, part) from source token ids to the output softmax over the vocabulary.

    `part` is "input" (embeddings), "encoder", "decoder" or "output". `tgt_len=None` means src_len;
    with tgt_len != src_len the cross-attention scores are rectangular (B, H, L_tgt, L_src).
    Sizes that make an array of more than MAX_ELEMENTS raise `TooLargeToTrace` before any array is made.
    """
    _check(batch=batch, src_len=src_len, d_model=d_model, n_heads=n_heads, vocab=vocab, d_ff=d_ff, tgt_len=tgt_len)
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    tgt_len = src_len if tgt_len is None else tgt_len
    longest = max(src_len, tgt_len)
    largest = largest_array(batch, longest, d_model, n_heads, vocab, d_ff)
    if largest > MAX_ELEMENTS:
        raise TooLargeToTrace(f"an array of {largest} elements: NumPy indexes at most {MAX_ELEMENTS}")
    device = "cpu" if largest <= _REAL_LIMIT else "meta"

    rng = np.random.default_rng(0)
    config = ModuleConfig(seed=rng, device=device)
    model = Transformer(d_model, n_heads, 1, 1, d_ff, config=config)
    src_embedding, tgt_embedding = Embedding(vocab, d_model, config=config), Embedding(vocab, d_model, config=config)
    generator = Linear(d_model, vocab, config=config)

    with recording() as recorder:
        src = _embed(src_embedding, _token_ids(rng, batch, src_len, vocab, device), "source")
        tgt = _embed(tgt_embedding, _token_ids(rng, batch, tgt_len, vocab, device), "target (shifted right)")
        recorder.part = "encoder"
        memory = model.encoder(src)
        recorder.part = "decoder"
        mask = causal_mask(tgt_len, like=src)  # (L_tgt, L_tgt)
        out = model.decoder(tgt, memory, tgt_mask=mask)
        recorder.part = "output"
        logits = generator(out)  # (B, L_tgt, d) -> (B, L_tgt, V)
        observe("linear to vocabulary (logits)", logits)
        probs = softmax(logits)
        observe("softmax over vocabulary", probs)
    return recorder.steps

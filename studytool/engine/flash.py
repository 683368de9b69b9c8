"""Online-softmax attention: FlashAttention's recurrence, one block of keys at a time.

softmax(s) V over all keys needs every score of a query row before the first division. The
online softmax (Milakov & Gimelshein 2018; FlashAttention, Dao et al. 2022) instead keeps, per
query row, three running statistics over the keys seen so far:

    m  the largest score,
    l  the sum of exp(s - m),
    o  the sum of exp(s - m) v (the unnormalised output; FlashAttention-2's O~),

and the attention output is o / l. Two blocks' statistics merge exactly (`merge_stats`), so the
keys can be taken block by block: the (Lq, Lk) score matrix is never held, only (Lq, block).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .functional import Array, _as_float, attention_scores


class SoftmaxStats(NamedTuple):
    """The online-softmax statistics of some keys, per query row (paper names).

    m (..., Lq, 1) the largest score, -inf when every key is blocked;
    l (..., Lq, 1) sum of exp(s - m), 0 when every key is blocked;
    o (..., Lq, d_v) sum of exp(s - m) v, 0 when every key is blocked.
    For one query row they may be plain numbers and a vector: m, l scalars, o (d_v,).
    """

    m: Array
    l: Array  # noqa: E741 - the paper's name
    o: Array


def block_stats(q: Array, k: Array, v: Array, mask: Array | None = None) -> SoftmaxStats:
    """The statistics of one block of keys: (..., Lq, d_k), (..., Lb, d_k), (..., Lb, d_v) -> SoftmaxStats.

    `mask` is bool, True = blocked, broadcastable to (..., Lq, Lb), as in scaled_dot_product_attention.
    """
    s = attention_scores(q, k, mask)  # (..., Lq, Lb), -inf where blocked
    m = s.max(axis=-1, keepdims=True)  # (..., Lq, 1)
    s -= np.where(np.isfinite(m), m, 0.0)  # a fully blocked row stays -inf and exponentiates to 0
    np.exp(s, out=s)  # in place: s is this block's temporary
    return SoftmaxStats(m, s.sum(axis=-1, keepdims=True), s @ _as_float(v))  # (..., Lq, Lb) @ (..., Lb, d_v)


def merge_stats(a: SoftmaxStats, b: SoftmaxStats) -> SoftmaxStats:
    """The statistics of the keys of a and b together, from theirs alone:

        m = max(m_a, m_b)
        l = e^(m_a - m) l_a + e^(m_b - m) l_b
        o = e^(m_a - m) o_a + e^(m_b - m) o_b

    Each side is rescaled from its own max to the common one. A side with no visible key
    (m = -inf, l = 0) gets the factor 0, so two empty sides merge to an empty one, not NaN.
    """
    a, b = SoftmaxStats(*map(_as_float, a)), SoftmaxStats(*map(_as_float, b))
    m = np.maximum(a.m, b.m)
    with np.errstate(invalid="ignore"):  # -inf - -inf on empty rows: replaced by 0 just below
        scale_a = np.where(a.l > 0, np.exp(a.m - m), 0.0)
        scale_b = np.where(b.l > 0, np.exp(b.m - m), 0.0)
    dtype = np.result_type(a.o, b.o)  # the factors in the outputs' dtype: float32 stays float32
    scale_a, scale_b = scale_a.astype(dtype, copy=False), scale_b.astype(dtype, copy=False)
    return SoftmaxStats(m, scale_a * a.l + scale_b * b.l, scale_a * a.o + scale_b * b.o)


def stats_output(stats: SoftmaxStats) -> Array:
    """The attention output o / l; zeros on rows whose keys are all blocked (l = 0)."""
    o, l = _as_float(stats.o), _as_float(stats.l)  # noqa: E741
    return o / np.where(l > 0, l, 1.0).astype(o.dtype)


def online_softmax_attention(
    q: Array, k: Array, v: Array, mask: Array | None = None, block_size: int = 128
) -> Array:
    """softmax(Q K^T / sqrt(d_k)) V computed over blocks of `block_size` keys; out (..., Lq, d_v).

    Equal to scaled_dot_product_attention(q, k, v, mask)[0] (up to rounding), but never holds the
    (..., Lq, Lk) scores: the largest temporary is (..., Lq, block_size). `mask` is bool,
    True = blocked, broadcastable to (..., Lq, Lk); it is only read, a block's slice at a time.
    A block that `mask` blocks entirely for every query (the far side of a causal mask) is skipped.
    """
    if block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size}")
    q, k, v = _as_float(q), _as_float(k), _as_float(v)
    length_q, length_k = q.shape[-2], k.shape[-2]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])  # the batch axes, (B, H) say
    if mask is not None:  # a view with the key axis spelled out, so each block can slice it
        mask = np.asarray(mask)
        lead = np.broadcast_shapes(lead, mask.shape[:-2])
        mask = np.broadcast_to(mask, (*lead, length_q, length_k))
    stats = None
    for start in range(0, length_k, block_size):
        keys = slice(start, start + block_size)
        block_mask = None if mask is None else mask[..., keys]  # (..., Lq, Lb)
        if block_mask is not None and block_mask.all():
            continue
        block = block_stats(q, k[..., keys, :], v[..., keys, :], block_mask)
        stats = block if stats is None else merge_stats(stats, block)
    if stats is None:  # no key at all, or every key blocked: the zero output of a fully blocked row
        return np.zeros((*lead, length_q, v.shape[-1]), dtype=np.result_type(q, v))
    return stats_output(stats)

"""The Transformer's building blocks as pure NumPy functions: no state, no tracing, no devices.

Every function keeps the dtype of its input (float32 in, float32 out): scalars are Python
floats, which NumPy 2 treats as "weak" and never promotes with. The same code runs on the
shape-only MetaArray (meta.py), which is how `trace_shapes` sizes models too large to allocate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .meta import MetaArray

Array = Any  # an ndarray, or a shape-only MetaArray (see meta.py) on the same code path


def _as_float(x: Any) -> Array:
    """Lists and integer arrays become float64; float arrays (any precision) and MetaArrays pass through."""
    if isinstance(x, MetaArray) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
        return x
    return np.asarray(x, dtype=np.float64)


def softmax(x: Array, axis: int = -1) -> Array:
    """Numerically stable softmax; a slice that is all -inf (fully masked) gives zeros, not NaN."""
    return _softmax_in_place(_as_float(x).copy(), axis)


def _softmax_in_place(x: Array, axis: int) -> Array:
    """softmax written into x, a temporary the caller owns (attention's (B, H, Lq, Lk) scores).

    In place because each extra array of that size costs about as much as the exp itself
    (measured: 14 ms in place vs 25 ms allocating, B=32 H=8 L=128 float32; BENCHMARKS.md).
    """
    m = x.max(axis=axis, keepdims=True)
    x -= np.where(np.isfinite(m), m, 0.0)  # all -inf: subtract 0 so exp gives 0, not exp(nan)
    np.exp(x, out=x)
    total = x.sum(axis=axis, keepdims=True)
    x /= np.where(total > 0, total, 1.0)
    return x


def layer_norm(x: Array, weight: Array | None = None, bias: Array | None = None, eps: float = 1e-5) -> Array:
    """Normalise each vector over its last axis (one token's features), as torch.nn.LayerNorm.

    Biased variance (divide by K, not K-1); eps inside the square root.
    """
    x = _as_float(x)
    y = x - x.mean(axis=-1, keepdims=True)  # (..., K) - (..., 1)
    y /= np.sqrt(np.square(y).mean(axis=-1, keepdims=True) + eps)
    if weight is not None:
        y *= weight
    if bias is not None:
        y += bias
    return y


def batch_norm(x: Array, eps: float = 1e-5) -> Array:
    """Normalise each feature over the batch (axis 0) with batch statistics (training-mode BatchNorm)."""
    x = _as_float(x)
    mean = x.mean(axis=0, keepdims=True)
    var = np.square(x - mean).mean(axis=0, keepdims=True)  # biased: divide by N
    return (x - mean) / np.sqrt(var + eps)


def positional_encoding(
    length: int, d_model: int, dtype: Any = np.float64, *, like: Array | None = None
) -> Array:
    """Sinusoidal positional encoding (L, d_model) of "Attention Is All You Need".

    Column j uses i = j // 2: PE[pos, j] = sin(pos / 10000^(2i/d)) for even j, cos(...) for odd j,
    so an odd d_model simply ends with a sin column. `like` builds the table as that array type
    (NumPy's NEP 35), e.g. shape-only for `trace_shapes`.
    """
    pos = np.arange(length, like=like).reshape(length, 1)  # (L, 1)
    j = np.arange(d_model, like=like)  # (d,)
    inv_freq = 10000.0 ** (-(2 * (j // 2)) / d_model)  # (d,), float64 for accurate angles
    angle = pos * inv_freq  # (L, 1) * (d,) -> (L, d)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle)).astype(dtype)


def causal_mask(n: int, *, like: Array | None = None) -> Array:
    """(n, n) bool, True above the diagonal: query i may not look at key j > i (True = blocked)."""
    i = np.arange(n, like=like)
    return i.reshape(n, 1) < i.reshape(1, n)


def padding_mask(lengths: Sequence[int], max_len: int) -> np.ndarray:
    """(B, max_len) bool, True at the padding positions of each sequence (True = blocked)."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or (lengths < 0).any() or (lengths > max_len).any():
        raise ValueError(f"lengths must be a list of integers in [0, {max_len}], got {lengths.tolist()}")
    return np.arange(max_len).reshape(1, max_len) >= lengths.reshape(-1, 1)


def attention_scores(q: Array, k: Array, mask: Array | None = None) -> Array:
    """Q K^T / sqrt(d_k), -inf where `mask` is True (blocked); (..., Lq, d_k), (..., Lk, d_k) -> (..., Lq, Lk)."""
    q, k = _as_float(q), _as_float(k)
    scores = q @ k.swapaxes(-1, -2)  # (..., Lq, d_k) @ (..., d_k, Lk) -> (..., Lq, Lk)
    scores *= 1.0 / math.sqrt(q.shape[-1])
    if mask is not None:
        np.copyto(scores, -np.inf, where=mask)  # in place: np.where would build another (..., Lq, Lk) array
    return scores


def scaled_dot_product_attention(
    q: Array, k: Array, v: Array, mask: Array | None = None
) -> tuple[Array, Array]:
    """softmax(Q K^T / sqrt(d_k)) V, returning (out (..., Lq, d_v), weights (..., Lq, Lk)).

    `mask` is bool, True = blocked, broadcastable to (..., Lq, Lk). A query whose keys are all
    blocked gets all-zero weights and a zero output.
    """
    weights = _softmax_in_place(attention_scores(q, k, mask), axis=-1)
    return weights @ _as_float(v), weights  # (..., Lq, Lk) @ (..., Lk, d_v) -> (..., Lq, d_v)


def linear(x: Array, weight: Array, bias: Array | None = None) -> Array:
    """x W^T + b with torch's (out, in) weight layout; (..., in) -> (..., out)."""
    y = x.reshape(-1, x.shape[-1]) @ weight.T  # one 2-D GEMM: (N, in) @ (in, out)
    if bias is not None:
        y += bias
    return y.reshape(*x.shape[:-1], weight.shape[0])


def relu(x: Array) -> Array:
    return np.maximum(x, 0.0)


def rms_norm(x: Array, weight: Array | None = None, eps: float | None = None) -> Array:
    """x / sqrt(mean(x^2) + eps) over the last axis, times weight, as torch.nn.RMSNorm.

    No centring and no bias. `eps=None` is torch's default: the machine epsilon of x's dtype
    (2.2e-16 for float64, 1.2e-7 for float32).
    """
    x = _as_float(x)
    eps = float(np.finfo(x.dtype).eps) if eps is None else float(eps)
    y = x / np.sqrt(np.square(x).mean(axis=-1, keepdims=True) + eps)
    return y if weight is None else y * weight


def silu(x: Array) -> Array:
    """x * sigmoid(x) (also called swish), as torch.nn.functional.silu."""
    x = _as_float(x)
    with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x < -709: x / inf = -0, the right limit
        return x / (1.0 + np.exp(-x))


def gelu_tanh(x: Array) -> Array:
    """GELU's tanh approximation 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))): GPT-2's gelu_new, torch's approximate="tanh"."""
    x = _as_float(x)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def gelu(x: Array) -> Array:
    """Exact GELU x Φ(x) = 0.5 x (1 + erf(x / √2)), torch.nn.functional.gelu's default (NumPy has no erf: math's, per element)."""
    x = _as_float(x)
    erf = np.frompyfunc(math.erf, 1, 1)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)).astype(x.dtype))


def rotary_embedding(
    x: Array, positions: Sequence[int] | Array, base: float = 10000.0, *, halves: bool = False
) -> Array:
    """Rotary position embedding (RoPE, Su et al. 2021) of x (..., L, d) at token `positions` (L,).

    Convention (RoFormer's and Meta's LLaMA, the complex-number form): features are taken in
    adjacent pairs (x[2i], x[2i+1]), and the pair at position m is rotated by the angle
    m * base^(-2i/d), i = 0 .. d/2 - 1:
        out[2i]   = x[2i] cos - x[2i+1] sin
        out[2i+1] = x[2i] sin + x[2i+1] cos
    (Hugging Face's `rotate_half` pairs i with i + d/2 instead: the same maths on permuted
    features.) A rotation keeps norms, and q_m · k_n depends on m and n only through m - n.
    `positions` may also be broadcastable to x.shape[:-1], e.g. (B, L). `halves=True` pairs x[i] with
    x[i + d/2] as Hugging Face does, so that transformers' q/k weights load unchanged.
    """
    x = _as_float(x)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"rotary_embedding needs an even feature size, got d={d}")
    inv_freq = base ** (-np.arange(0, d, 2) / d)  # (d/2,), float64 for accurate angles
    angle = np.asarray(positions, dtype=np.float64)[..., None] * inv_freq  # (..., L) -> (..., L, d/2)
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)
    if halves:
        first, second = x[..., : d // 2], x[..., d // 2 :]  # (..., L, d) -> (..., L, d/2) each
        return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., L, d) -> (..., L, d/2) each
    rotated = np.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1)  # (..., L, d/2, 2)
    return rotated.reshape(*rotated.shape[:-2], d)  # (..., L, d/2, 2) -> (..., L, d): pairs side by side

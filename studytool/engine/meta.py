"""MetaArray: a shape-and-dtype-only stand-in for an ndarray.

It answers the NumPy operations the engine uses (ufuncs such as matmul, exp and +, and
reshape, transpose, reductions, indexing, np.where, np.copyto, np.arange(like=...)) with the
shape and dtype the real result would have, and allocates nothing. Running the engine's own
code on MetaArrays traces a Transformer with d=4096, L=8192, V=50k in milliseconds
(like PyTorch's "meta" device).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin


def _shape(x: Any) -> tuple[int, ...]:
    return x.shape if isinstance(x, (MetaArray, np.ndarray)) else np.shape(x)


def _sample(x: Any, ndim: int = 1) -> Any:
    """A tiny real stand-in with x's dtype; Python scalars stay Python scalars (NumPy 2's weak promotion)."""
    if isinstance(x, (bool, int, float, complex)):
        return x
    return np.zeros((1,) * ndim, dtype=x.dtype if isinstance(x, MetaArray) else np.asarray(x).dtype)


def _matmul_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"matmul of shapes {a} and {b}: both operands need at least 2 dimensions here")
    if a[-1] != b[-2]:
        raise ValueError(f"matmul: mismatch in the contracted dimension, {a} @ {b}")
    return np.broadcast_shapes(a[:-2], b[:-2]) + (a[-2], b[-1])


class MetaArray(NDArrayOperatorsMixin):
    """An array that has a shape and a dtype, and no data."""

    def __init__(self, shape: tuple[int, ...], dtype: Any = np.float64) -> None:
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def T(self) -> MetaArray:
        return self.transpose()

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, out: Any = None, **kwargs: Any) -> Any:
        if method != "__call__":
            return NotImplemented
        shapes = [_shape(x) for x in inputs]
        if ufunc is np.matmul:
            shape = _matmul_shape(*shapes)
            dtype = ufunc(*(_sample(x, 2) for x in inputs)).dtype
        else:
            shape = np.broadcast_shapes(*shapes)
            with np.errstate(all="ignore"):
                dtype = ufunc(*(_sample(x) for x in inputs)).dtype
        if out is None or out == (None,):
            return MetaArray(shape, dtype)
        target = out[0] if isinstance(out, tuple) else out
        if target.shape != shape:
            raise ValueError(f"{ufunc.__name__}: output shape {target.shape} does not match {shape}")
        return target

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func is np.where:
            cond, a, b = args
            with np.errstate(all="ignore"):
                dtype = np.where(True, _sample(a), _sample(b)).dtype
            return MetaArray(np.broadcast_shapes(_shape(cond), _shape(a), _shape(b)), dtype)
        if func is np.copyto:
            dst, src = args
            np.broadcast_shapes(dst.shape, _shape(src), _shape(kwargs.get("where", True)))
            return None
        if func is np.arange:
            bounds = [int(a) for a in args]
            dtype = np.arange(0, dtype=kwargs.get("dtype")).dtype
            return MetaArray((len(range(*bounds)),), dtype)
        return NotImplemented

    def reshape(self, *shape: Any) -> MetaArray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if shape.count(-1) == 1:
            known = math.prod(n for n in shape if n != -1)
            shape = tuple(self.size // known if n == -1 else n for n in shape)
        if math.prod(shape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {shape}")
        return MetaArray(shape, self.dtype)

    def transpose(self, *axes: Any) -> MetaArray:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        axes = axes or tuple(reversed(range(self.ndim)))
        return MetaArray(tuple(self.shape[a] for a in axes), self.dtype)

    def swapaxes(self, a: int, b: int) -> MetaArray:
        axes = list(range(self.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    def astype(self, dtype: Any) -> MetaArray:
        return MetaArray(self.shape, dtype)

    def copy(self) -> MetaArray:
        return MetaArray(self.shape, self.dtype)

    def _reduce(self, axis: int | None, keepdims: bool, dtype: Any) -> MetaArray:
        if axis is None:
            return MetaArray((1,) * self.ndim if keepdims else (), dtype)
        axis %= self.ndim
        kept = 1 if keepdims else None
        shape = tuple(kept if i == axis else n for i, n in enumerate(self.shape))
        return MetaArray(tuple(n for n in shape if n is not None), dtype)

    def max(self, axis: int | None = None, keepdims: bool = False) -> MetaArray:
        return self._reduce(axis, keepdims, self.dtype)

    def sum(self, axis: int | None = None, keepdims: bool = False) -> MetaArray:
        return self._reduce(axis, keepdims, np.zeros(1, self.dtype).sum().dtype)

    def mean(self, axis: int | None = None, keepdims: bool = False) -> MetaArray:
        return self._reduce(axis, keepdims, np.zeros(1, self.dtype).mean().dtype)

    def __getitem__(self, key: Any) -> MetaArray:
        if isinstance(key, (MetaArray, np.ndarray)) and key.dtype.kind in "iu":
            return MetaArray(key.shape + self.shape[1:], self.dtype)  # a gather: table[ids]
        # Basic indexing: let NumPy work it out on a zero-stride view (no memory behind it), of 1-byte items so
        # that NumPy's limit on a view's bytes is its limit on elements, as for every other operation here.
        return MetaArray(np.broadcast_to(np.empty((), np.bool_), self.shape)[key].shape, self.dtype)

"""The module base and the small modules, with PyTorch's parameter names, shapes and defaults.

Batch-first (B, L, d), inference only (no dropout: PyTorch's eval mode). Every constructor takes
its sizes, then `config=ModuleConfig(...)` and/or the same settings as keywords (see config.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .config import ModuleConfig, configure, constant, normal, uniform
from .functional import Array, layer_norm, linear
from .meta import MetaArray
from .tracing import observe


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
        self, in_features: int, out_features: int, *, config: ModuleConfig | None = None, **settings: Any
    ) -> None:
        config = configure(config, settings)
        self.dtype = config.dtype
        bound = 1.0 / math.sqrt(in_features)  # PyTorch's default init range
        self.weight = uniform(config, (out_features, in_features), bound)
        self.bias = uniform(config, (out_features,), bound) if config.bias else None

    def __call__(self, x: Array) -> Array:
        return linear(x, self.weight, self.bias)


class LayerNorm(Module):
    """torch.nn.LayerNorm over the last axis: gamma (weight) = 1, beta (bias) = 0 at start."""

    def __init__(self, d_model: int, *, config: ModuleConfig | None = None, **settings: Any) -> None:
        config = configure(config, settings)
        self.dtype = config.dtype
        self.eps = float(config.eps)
        self.weight = constant(config, (d_model,), 1.0)
        self.bias = constant(config, (d_model,), 0.0) if config.bias else None

    def __call__(self, x: Array) -> Array:
        return layer_norm(x, self.weight, self.bias, self.eps)


class Embedding(Module):
    """A (vocab, d_model) table; token id t -> row t (torch.nn.Embedding, N(0, 1) init)."""

    def __init__(self, vocab: int, d_model: int, *, config: ModuleConfig | None = None, **settings: Any) -> None:
        config = configure(config, settings)
        self.dtype = config.dtype
        self.weight = normal(config, (vocab, d_model))

    def __call__(self, ids: Array) -> Array:
        return self.weight[ids]  # (B, L) -> (B, L, d_model)


def feed_forward(x: Array, linear1: Linear, linear2: Linear) -> Array:
    """Position-wise FFN: Linear(d -> d_ff), ReLU, Linear(d_ff -> d)."""
    h = linear1(x)  # (B, L, d) -> (B, L, d_ff)
    observe("FFN expand", h)
    np.maximum(h, 0.0, out=h)  # ReLU in place: a new (B, L, d_ff) array costs 6 ms of ~200 (BENCHMARKS.md)
    observe("ReLU", h)
    y = linear2(h)  # (B, L, d_ff) -> (B, L, d)
    observe("FFN contract", y)
    return y


class FeedForward(Module):
    """Linear -> ReLU -> Linear, with torch's names linear1 / linear2."""

    def __init__(self, d_model: int, d_ff: int, *, config: ModuleConfig | None = None, **settings: Any) -> None:
        config = configure(config, settings)
        self.dtype = config.dtype
        self.linear1 = Linear(d_model, d_ff, config=config)
        self.linear2 = Linear(d_ff, d_model, config=config)

    def __call__(self, x: Array) -> Array:
        return feed_forward(self._cast(x), self.linear1, self.linear2)

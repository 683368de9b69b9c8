"""studytool.engine: a pure NumPy Transformer that agrees with PyTorch.

Batch-first (B, L, d), float64 by default, float32 on request; see DESIGN.md §2.
"""

from .functional import (
    batch_norm,
    causal_mask,
    layer_norm,
    linear,
    padding_mask,
    positional_encoding,
    relu,
    scaled_dot_product_attention,
    softmax,
)
from .params import count_params
from .tracing import ShapeStep

__all__ = [
    "ShapeStep",
    "batch_norm",
    "causal_mask",
    "count_params",
    "layer_norm",
    "linear",
    "padding_mask",
    "positional_encoding",
    "relu",
    "scaled_dot_product_attention",
    "softmax",
]

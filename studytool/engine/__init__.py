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
from .meta import MetaArray
from .modules import (
    Decoder,
    DecoderLayer,
    Embedding,
    Encoder,
    EncoderLayer,
    FeedForward,
    LayerNorm,
    Linear,
    Module,
    MultiHeadAttention,
    Transformer,
)
from .params import PARTS, count_params
from .shapes import trace_shapes
from .tracing import ShapeStep

__all__ = [
    "PARTS",
    "Decoder",
    "DecoderLayer",
    "Embedding",
    "Encoder",
    "EncoderLayer",
    "FeedForward",
    "LayerNorm",
    "Linear",
    "MetaArray",
    "Module",
    "MultiHeadAttention",
    "ShapeStep",
    "Transformer",
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
    "trace_shapes",
]

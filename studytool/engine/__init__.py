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
    rms_norm,
    rotary_embedding,
    scaled_dot_product_attention,
    silu,
    softmax,
)
from .decoding import KVCache, LayerCache, kv_cache_bytes
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
from .modern import RMSNorm, SwiGLUFeedForward
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
    "KVCache",
    "LayerCache",
    "LayerNorm",
    "Linear",
    "MetaArray",
    "Module",
    "MultiHeadAttention",
    "RMSNorm",
    "ShapeStep",
    "SwiGLUFeedForward",
    "Transformer",
    "batch_norm",
    "causal_mask",
    "count_params",
    "kv_cache_bytes",
    "layer_norm",
    "linear",
    "padding_mask",
    "positional_encoding",
    "relu",
    "rms_norm",
    "rotary_embedding",
    "scaled_dot_product_attention",
    "silu",
    "softmax",
    "trace_shapes",
]

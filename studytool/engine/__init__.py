"""studytool.engine: a pure NumPy Transformer that agrees with PyTorch.

Batch-first (B, L, d), float64 by default, float32 on request; see DESIGN.md §2. Where things are:
functional.py the maths as plain functions; config.py ModuleConfig and parameter creation;
modules.py the Module base, Linear, LayerNorm, Embedding, FeedForward; attention.py multi-head
attention; transformer.py the layers, stacks and nn.Transformer; modern.py RMSNorm and SwiGLU;
decoding.py the KV cache; params.py closed-form counts; tracing.py + shapes.py trace_shapes;
meta.py the shape-only MetaArray; llm.py the decoder-only LLM family (LLMConfig, from_hf, DecoderLM) and
accounting.py its closed-form costs; configs/ real Hub config.json files; flash.py online-softmax (FlashAttention) attention over key blocks;
sampling.py temperature, top-k and top-p; bpe.py BPE training and encoding.
"""

from .accounting import forward_flops, kv_cache, parameter_counts, training_memory
from .attention import MultiHeadAttention
from .config import ModuleConfig
from .functional import (
    attention_scores,
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
from .decoding import KVCache, LayerCache, MemoryCache, kv_cache_bytes
from .llm import ConfigError, DecoderLM, LLMConfig, from_hf
from .bpe import BPEMerge, encode_bpe, train_bpe
from .flash import SoftmaxStats, block_stats, merge_stats, online_softmax_attention, stats_output
from .sampling import SamplingDistribution, sampling_distribution
from .meta import MetaArray
from .modules import Embedding, FeedForward, LayerNorm, Linear, Module
from .modern import RMSNorm, SwiGLUFeedForward
from .params import PARTS, count_params
from .shapes import trace_shapes
from .tracing import ShapeStep
from .transformer import Decoder, DecoderLayer, Encoder, EncoderLayer, Transformer

__all__ = [
    "PARTS",
    "ConfigError",
    "DecoderLM",
    "LLMConfig",
    "BPEMerge",
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
    "MemoryCache",
    "MetaArray",
    "Module",
    "ModuleConfig",
    "MultiHeadAttention",
    "RMSNorm",
    "SamplingDistribution",
    "ShapeStep",
    "SoftmaxStats",
    "SwiGLUFeedForward",
    "Transformer",
    "attention_scores",
    "batch_norm",
    "block_stats",
    "causal_mask",
    "count_params",
    "forward_flops",
    "from_hf",
    "kv_cache",
    "encode_bpe",
    "kv_cache_bytes",
    "layer_norm",
    "linear",
    "merge_stats",
    "online_softmax_attention",
    "padding_mask",
    "parameter_counts",
    "positional_encoding",
    "relu",
    "rms_norm",
    "rotary_embedding",
    "sampling_distribution",
    "scaled_dot_product_attention",
    "silu",
    "softmax",
    "stats_output",
    "trace_shapes",
    "training_memory",
    "train_bpe",
]

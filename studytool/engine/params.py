"""Closed-form parameter counts, equal to `num_params()` of the engine's (and PyTorch's) modules.

`bias=False, norm=False` is the notes' convention (weight matrices only): an encoder layer at
d=512, d_ff=2048 is 4d^2 + 2*d*d_ff = 3,145,728. The defaults count like PyTorch: 3,152,384.
"""

from __future__ import annotations

import operator
from typing import Any

PARTS = (
    "embedding",
    "mha",
    "ffn",
    "layer_norm",
    "encoder_layer",
    "decoder_layer",
    "encoder",
    "decoder",
    "transformer",
    "output_projection",
)


def _positive_int(name: str, value: Any) -> int:
    """A Python int >= 1 (NumPy integers accepted, so counts never overflow int64)."""
    try:
        number = operator.index(value)
    except TypeError:
        number = 0
    if isinstance(value, bool) or number < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return number


def mha_params(d_model: int, bias: bool = True) -> int:
    """W_Q, W_K, W_V, W_O: four (d, d) matrices (+ four d-vectors of bias)."""
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


def ffn_params(d_model: int, d_ff: int, bias: bool = True) -> int:
    """Linear d -> d_ff and d_ff -> d (+ biases d_ff and d)."""
    return 2 * d_model * d_ff + (d_ff + d_model if bias else 0)


def layer_norm_params(d_model: int, bias: bool = True, norm: bool = True) -> int:
    """gamma (+ beta) of one LayerNorm; PyTorch drops beta too when bias=False."""
    if not norm:
        return 0
    return 2 * d_model if bias else d_model


def encoder_layer_params(d_model: int, d_ff: int, bias: bool = True, norm: bool = True) -> int:
    """Self-attention + FFN + two LayerNorms."""
    return mha_params(d_model, bias) + ffn_params(d_model, d_ff, bias) + 2 * layer_norm_params(d_model, bias, norm)


def decoder_layer_params(d_model: int, d_ff: int, bias: bool = True, norm: bool = True) -> int:
    """Masked self-attention + cross-attention + FFN + three LayerNorms."""
    return (
        2 * mha_params(d_model, bias)
        + ffn_params(d_model, d_ff, bias)
        + 3 * layer_norm_params(d_model, bias, norm)
    )


def count_params(
    part: str,
    *,
    d_model: int,
    n_heads: int = 8,
    d_ff: int | None = None,
    num_layers: int = 1,
    vocab: int | None = None,
    bias: bool = True,
    norm: bool = True,
) -> int:
    """Number of trainable parameters of one part of the Transformer.

    `d_ff=None` means 4 * d_model. "encoder"/"decoder" are `num_layers` layers plus the final
    LayerNorm (when `norm`); "transformer" is encoder + decoder, as `torch.nn.Transformer`
    (44,140,544 at its defaults). "embedding" and "output_projection" need `vocab`.
    """
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; expected one of {', '.join(PARTS)}")
    d_model = _positive_int("d_model", d_model)
    n_heads = _positive_int("n_heads", n_heads)
    num_layers = _positive_int("num_layers", num_layers)
    d_ff = 4 * d_model if d_ff is None else _positive_int("d_ff", d_ff)
    if d_model % n_heads and part not in ("embedding", "output_projection", "ffn", "layer_norm"):
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")

    if part in ("embedding", "output_projection"):
        if vocab is None:
            raise ValueError(f"part {part!r} needs vocab")
        vocab = _positive_int("vocab", vocab)
        if part == "embedding":
            return vocab * d_model  # one d_model row per token
        return d_model * vocab + (vocab if bias else 0)
    if part == "mha":
        return mha_params(d_model, bias)
    if part == "ffn":
        return ffn_params(d_model, d_ff, bias)
    if part == "layer_norm":
        return layer_norm_params(d_model, bias, norm)
    if part == "encoder_layer":
        return encoder_layer_params(d_model, d_ff, bias, norm)
    if part == "decoder_layer":
        return decoder_layer_params(d_model, d_ff, bias, norm)
    final_norm = layer_norm_params(d_model, bias, norm)
    encoder = num_layers * encoder_layer_params(d_model, d_ff, bias, norm) + final_norm
    decoder = num_layers * decoder_layer_params(d_model, d_ff, bias, norm) + final_norm
    return {"encoder": encoder, "decoder": decoder, "transformer": encoder + decoder}[part]

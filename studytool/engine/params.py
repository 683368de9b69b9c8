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
    "swiglu_ffn",
    "layer_norm",
    "encoder_layer",
    "decoder_layer",
    "encoder",
    "decoder",
    "transformer",
    "output_projection",
    "model",
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


def swiglu_ffn_params(d_model: int, d_ff: int, bias: bool = True) -> int:
    """W1 and W3 d -> d_ff, W2 d_ff -> d (+ biases d_ff, d_ff and d)."""
    return 3 * d_model * d_ff + (2 * d_ff + d_model if bias else 0)


def _stacks(d_model: int, d_ff: int, num_layers: int, bias: bool, norm: bool) -> dict[str, int]:
    """Encoder and decoder of `num_layers` layers, each with its final LayerNorm (when `norm`)."""
    final_norm = layer_norm_params(d_model, bias, norm)
    encoder = num_layers * encoder_layer_params(d_model, d_ff, bias, norm) + final_norm
    decoder = num_layers * decoder_layer_params(d_model, d_ff, bias, norm) + final_norm
    return {"encoder": encoder, "decoder": decoder, "transformer": encoder + decoder}


def _with_vocab(part: str, d_model: int, vocab: int, bias: bool, tied: bool, transformer: int) -> int:
    """embedding, output_projection and model; `tied`: one (V, d) matrix serves every embedding and the output."""
    table = vocab * d_model  # one d_model row per token
    output_bias = vocab if bias else 0
    if part == "embedding":
        return table
    if part == "output_projection":
        return output_bias + (0 if tied else table)
    return transformer + (table if tied else 3 * table) + output_bias  # source, target and output matrices


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
    tied: bool = False,
) -> int:
    """Number of trainable (unique) parameters of one part of the Transformer.

    `d_ff=None` means 4 * d_model. "encoder"/"decoder" are `num_layers` layers plus the final
    LayerNorm (when `norm`); "transformer" is encoder + decoder, as `torch.nn.Transformer`
    (44,140,544 at its defaults). "embedding", "output_projection" and "model" need `vocab`;
    "model" is the transformer with source and target embeddings and the output projection over one
    shared vocabulary. `tied=True` shares one (V, d) matrix between both embeddings and the output
    projection (as the paper's base model), so it is counted once: the base model with V=37000
    has 63,121,544 parameters (the paper's Table 3 rounds its own count to 65M).
    """
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; expected one of {', '.join(PARTS)}")
    d_model = _positive_int("d_model", d_model)
    n_heads = _positive_int("n_heads", n_heads)
    num_layers = _positive_int("num_layers", num_layers)
    d_ff = 4 * d_model if d_ff is None else _positive_int("d_ff", d_ff)
    if d_model % n_heads and part not in ("embedding", "output_projection", "ffn", "swiglu_ffn", "layer_norm"):
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    stacks = _stacks(d_model, d_ff, num_layers, bias, norm)
    if part in ("embedding", "output_projection", "model"):
        if vocab is None:
            raise ValueError(f"part {part!r} needs vocab")
        return _with_vocab(part, d_model, _positive_int("vocab", vocab), bias, tied, stacks["transformer"])
    single = {
        "mha": lambda: mha_params(d_model, bias),
        "ffn": lambda: ffn_params(d_model, d_ff, bias),
        "swiglu_ffn": lambda: swiglu_ffn_params(d_model, d_ff, bias),
        "layer_norm": lambda: layer_norm_params(d_model, bias, norm),
        "encoder_layer": lambda: encoder_layer_params(d_model, d_ff, bias, norm),
        "decoder_layer": lambda: decoder_layer_params(d_model, d_ff, bias, norm),
    }
    return single[part]() if part in single else stacks[part]

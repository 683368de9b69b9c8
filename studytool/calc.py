"""The library behind `studytool calc`: the engine's answers for numbers a learner types in.

Each function checks its input (a bad size or vector raises `StudytoolError` with one line),
asks `studytool.engine`, and returns a JSON-able dict that the CLI prints or renders.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _

MAX_NUMBERS = 10_000   # a softmax of 100,000 numbers took a minute to print, step by step


def parse_vector(values: Sequence[str], what: str | None = None) -> list[float]:
    """Numbers typed as separate arguments or comma-separated (`1 2 3`, `1,2,3`, `1，2，3`).

    Read by the same reader as typed answers, so calc and quiz accept the same numbers.
    """
    from studytool.problems.reading import (
        MAX_MAGNITUDE, AnswerFormatError, normalise, number, number_tokens,
    )

    if sum(len(value) for value in values) > MAX_NUMBERS * 40:   # before reading: far more text than the numbers allowed
        raise _too_many()
    tokens = number_tokens(normalise(" ".join(values)))
    if not tokens:
        raise StudytoolError(_("empty {what}: give at least one number").format(what=what or _("vector")))
    if len(tokens) > MAX_NUMBERS:
        raise _too_many()
    try:
        values = [float(number(token)) for token in tokens]
    except AnswerFormatError as error:
        raise StudytoolError(str(error)) from None
    for token, value in zip(tokens, values):
        if abs(value) > MAX_MAGNITUDE:
            raise _too_large(token)
    return values


def _too_large(token: str) -> StudytoolError:
    """The one bound on every number calc reads, typed or a size (past it float64 loses integers' digits)."""
    from studytool.problems.reading import MAX_MAGNITUDE, power_of_ten

    return StudytoolError(_("{token} is too large: calc takes numbers up to {most} in size (float64 keeps every "
                            "integer exact up to there)").format(token=token[:40], most=power_of_ten(MAX_MAGNITUDE)))


def parse_rows(rows: Sequence[str]) -> list[list[float]]:
    """A batch: each argument one sample, whatever separates its numbers (`1,10 3,14`, `'1 10' '3 14'`), or one
    argument holding the whole batch as a matrix, as answers take one: `[[1,10],[3,14]]`, `1 10; 3 14`, rows on
    lines, or the quoted `"1,10 3,14"` (commas within a row, spaces between rows).
    """
    from studytool.problems.reading import AnswerFormatError, matrix_rows

    if sum(len(value) for value in rows) > MAX_NUMBERS * 40:   # before reading: far more text than the numbers allowed
        raise _too_many()
    try:
        texts = [matrix_rows(value) for value in rows]
    except AnswerFormatError as error:
        raise StudytoolError(str(error)) from None
    if len(texts) == 1:
        texts = texts[0]
        if len(texts) == 1 and "," in texts[0]:   # the quoted `1,10 3,14`
            texts = re.sub(r"\s*,\s*", ",", texts[0]).split()
    elif any(len(found) > 1 for found in texts):   # flattened, its rows would be read as one sample
        raise StudytoolError(_("one row per argument, or the whole batch as one matrix: [[1,10],[3,14]]"))
    else:
        texts = list(rows)
    if not texts:
        raise StudytoolError(_("empty batch: give rows like 1,10 3,14"))
    batch = [parse_vector([row], what=_("row")) for row in texts[:MAX_NUMBERS + 1]]
    if sum(len(row) for row in batch) > MAX_NUMBERS:
        raise _too_many()
    if len({len(row) for row in batch}) != 1:
        raise StudytoolError(_("rows have different lengths: every row needs the same number of features"))
    return batch


def _too_many() -> StudytoolError:
    return StudytoolError(_("at most {n} numbers, please (calc shows every step for each)").format(n=MAX_NUMBERS))


def _check_sizes(**sizes: int | None) -> None:
    from studytool.problems.reading import MAX_MAGNITUDE

    for name, value in sizes.items():
        if value is not None and value < 1:
            raise StudytoolError(_("{name} must be a positive integer, got {value}").format(name=name, value=value))
        if value is not None and value > MAX_MAGNITUDE:   # before any check that would do arithmetic with it
            raise _too_large(str(value))


def _check_eps(eps: float) -> None:
    if not 0 <= eps < float("inf"):  # also rejects nan
        raise StudytoolError(_("eps must be a finite number >= 0, got {eps}").format(eps=eps))


def _check_heads(d_model: int, heads: int) -> None:
    if d_model % heads:
        raise StudytoolError(
            _("d_model={d_model} is not divisible by heads={heads}").format(d_model=d_model, heads=heads)
        )


# calc shows 6 decimals: a result is shown only when float64 rounding cannot move it by half of the last one.
SHOWN_ERROR = 5e-7
_ROUNDOFF = 2.0**-53           # float64's relative rounding of one number (a typed 0.1, a sum)
_SMALLEST_DIVISOR = 1e-290     # σ² + ε below it: squares there are subnormal, with few digits left (or 0)


def _check_rounding(error: Any, what: str) -> None:
    """Refuse results that float64 rounding (of the typed numbers, of a mean) could move by `error` > SHOWN_ERROR."""
    import numpy as np

    if np.any(error > SHOWN_ERROR):
        raise StudytoolError(_("these numbers are too close together for their size: float64 rounding would change "
                               "the 6 decimals shown; subtract a common offset first ({what} gives the same "
                               "result)").format(what=what))


def _check_normalisable(x: Any, var: Any, eps: float, what: str) -> None:
    """(x - mean) / √(σ² + ε) over axis 0 of x, (K,) or (B, features): refuse what float64 would get wrong.

    x − mean is off by a few roundings of the largest |x| (the typed numbers, the mean's sum); σ, the root mean
    square of x − mean, by that much and its own roundings; σ², the output and the mean follow from the two.
    """
    import numpy as np

    divisor = var + eps
    if np.any(divisor < _SMALLEST_DIVISOR):
        raise StudytoolError(_("σ² + ε is {value:g} here, too small to divide by in float64: {what} needs a larger "
                               "eps").format(value=float(np.min(divisor)), what=what))
    roundings = (3 + np.log2(len(x))) * _ROUNDOFF
    deviation_error = roundings * np.abs(x).max(axis=0)   # of x − mean, and of the mean
    sigma = np.sqrt(var)
    sigma_error = deviation_error + roundings * sigma
    if np.any(np.maximum(deviation_error, 2 * sigma * sigma_error + sigma_error**2) > SHOWN_ERROR):
        raise StudytoolError(_("these numbers are too large to normalise exactly: float64 cannot show their mean "
                               "and σ² to 6 decimals (it can for numbers up to about 1e9 and σ² up to about 1e8)"))
    scale = np.sqrt(divisor)
    largest_output = np.abs(x - x.mean(axis=0)).max(axis=0) / scale
    _check_rounding((deviation_error + largest_output * sigma_error) / scale, what)


def layernorm(x: Sequence[float], eps: float = 1e-5) -> dict[str, Any]:
    """Mean, biased variance, σ and the normalised vector (γ = 1, β = 0)."""
    import numpy as np

    from studytool.engine import layer_norm

    _check_eps(eps)
    v = np.asarray(x, dtype=np.float64)  # (K,)
    var = float(np.square(v - v.mean()).mean())  # divide by K, as LayerNorm does
    _check_normalisable(v, var, eps, "LayerNorm")
    return {
        "input": list(x),
        "eps": eps,
        "mean": float(v.mean()),
        "variance": var,
        "sigma": var**0.5,
        "output": layer_norm(v, eps=eps).tolist(),
    }


def batchnorm(rows: Sequence[Sequence[float]], eps: float = 1e-5) -> dict[str, Any]:
    """Per-feature batch mean and σ, and the normalised batch (training mode, γ = 1, β = 0)."""
    import numpy as np

    from studytool.engine import batch_norm

    _check_eps(eps)
    if len(rows) < 2:
        raise StudytoolError(_("BatchNorm needs at least 2 samples: with one, every feature's variance is 0"))
    x = np.asarray(rows, dtype=np.float64)  # (B, features)
    var = np.square(x - x.mean(axis=0)).mean(axis=0)  # (features,), divide by B
    _check_normalisable(x, var, eps, "BatchNorm")
    return {
        "input": [list(row) for row in rows],
        "eps": eps,
        "mean": x.mean(axis=0).tolist(),
        "variance": var.tolist(),
        "sigma": np.sqrt(var).tolist(),
        "output": batch_norm(x, eps=eps).tolist(),
    }


def softmax(x: Sequence[float]) -> dict[str, Any]:
    """The probabilities and the sum they add up to."""
    import numpy as np

    from studytool.engine import softmax as engine_softmax

    v = np.asarray(x, dtype=np.float64)
    # x − max is exact to a rounding of itself; a typed score is off by one of its own, and p by at most twice that
    _check_rounding(2 * _ROUNDOFF * np.abs(v).max(), "softmax")
    p = engine_softmax(v)
    return {"input": list(x), "output": p.tolist(), "sum": float(p.sum())}


PE_MAX_CELLS = 1_000_000


def positional_encoding(d_model: int, positions: int) -> dict[str, Any]:
    """The sinusoidal table, one row per position 0 … positions − 1 (odd d_model works)."""
    from studytool.engine import positional_encoding as engine_pe

    _check_sizes(d_model=d_model, positions=positions)
    if d_model * positions > PE_MAX_CELLS:
        raise StudytoolError(
            _("a {positions} x {d_model} table is too large to print (at most {cells} numbers)").format(
                positions=positions, d_model=d_model, cells=f"{PE_MAX_CELLS:,}")
        )
    return {"d_model": d_model, "positions": positions, "table": engine_pe(positions, d_model).tolist()}


MASK_MAX_LEN = 512      # keys (and queries) of one drawn mask
WEIGHTS_MAX_SEQ = 16    # --weights draws an L x L grid per head
WEIGHTS_MAX_D_MODEL = 1024   # --weights builds a real layer: its (3d, d) weights are 25 MB at 1024, 240 GB at 10^5
WEIGHTS_MAX_HEADS = 16       # a grid per head: 1024 heads of 16 x 16 printed 19,000 lines


def parse_lengths(text: str) -> list[int]:
    """Sentence lengths typed as `3,5,2` (or `3 5 2`, `3，5，2`): whole numbers from 1 on."""
    tokens = [t for t in re.split(r"[,，\s]+", text) if t]
    if not tokens:
        raise StudytoolError(_("empty lengths: give sentence lengths like 3,5,2"))
    lengths = []
    for token in tokens:
        if not token.isdigit() or len(token) > 6 or int(token) < 1:
            raise StudytoolError(_("a sentence length is a whole number from 1 on, got {token}").format(token=token))
        lengths.append(int(token))
    return lengths


def mask(causal: int | None = None, lengths: Sequence[int] | None = None) -> dict[str, Any]:
    """The engine's causal mask (n x n) or padding mask (B x max_len); True = blocked."""
    from studytool.engine import causal_mask, padding_mask

    if (causal is None) == (lengths is None):
        raise StudytoolError(_("give one of --causal N or --lengths 3,5,2"))
    size = causal if causal is not None else max(lengths)
    _check_sizes(n=size)
    if size > MASK_MAX_LEN:
        raise StudytoolError(_("a mask over {n} positions is too large to draw (at most {most})").format(
            n=size, most=MASK_MAX_LEN))
    if causal is not None:
        return {"kind": "causal", "n": causal, "blocked": causal_mask(causal).tolist()}
    return {"kind": "padding", "lengths": list(lengths), "max_len": size,
            "blocked": padding_mask(lengths, size).tolist()}


def attention_weights(seq: int, d_model: int, heads: int, seed: int) -> dict[str, Any]:
    """Per-head attention weights of the engine's MultiHeadAttention for one sentence of random embeddings.

    The input X (1, L, d_model) and the layer's weights (PyTorch's initialisation) both come from `seed`.
    """
    import numpy as np

    from studytool.engine import MultiHeadAttention

    if seq > WEIGHTS_MAX_SEQ:
        raise StudytoolError(_("--weights draws an L x L grid per head: use --seq {most} or less").format(
            most=WEIGHTS_MAX_SEQ))
    if heads > WEIGHTS_MAX_HEADS:
        raise StudytoolError(_("--weights draws an L x L grid per head: use --heads {most} or fewer").format(
            most=WEIGHTS_MAX_HEADS))
    if d_model > WEIGHTS_MAX_D_MODEL:
        raise StudytoolError(_("--weights builds a real attention layer: use --d-model {most} or less").format(
            most=WEIGHTS_MAX_D_MODEL))
    x = np.random.default_rng(seed).standard_normal((1, seq, d_model))  # (1, L, d)
    _out, weights = MultiHeadAttention(d_model, heads, seed=seed)(x, x, x)  # weights (1, H, L, L)
    return {"seed": seed, "heads": weights[0].tolist()}


# The parts in the order shown. A stack is N blocks plus a final LayerNorm (2 * d_model with
# LayerNorms, nothing in the notes' convention), so the N x block row comes first to show the sum.
PARAM_PARTS = ("mha", "ffn", "layer_norm", "encoder_layer", "decoder_layer", "encoder_layers", "encoder",
               "decoder_layers", "decoder", "transformer", "embedding", "output_projection")


def param_label(part: str, layers: int) -> str:
    """A part's name in the interface language; `layers` is N."""
    return {
        "mha": _("multi-head attention"),
        "ffn": _("feed-forward network"),
        "layer_norm": _("LayerNorm"),
        "encoder_layer": _("encoder block"),
        "decoder_layer": _("decoder block"),
        "encoder_layers": _("{n} × encoder block"),
        "encoder": _("encoder stack ({n} layers + final LayerNorm)"),
        "decoder_layers": _("{n} × decoder block"),
        "decoder": _("decoder stack ({n} layers + final LayerNorm)"),
        "transformer": _("encoder + decoder"),
        "embedding": _("embedding"),
        "output_projection": _("output projection"),
    }[part].format(n=layers)


# name -> count_params keywords. "notes" counts weight matrices only, as the study notes do.
PARAM_CONVENTIONS = {"with_bias": {"bias": True, "norm": True}, "notes": {"bias": False, "norm": False}}


def _count(part: str, layers: int, **kwargs: Any) -> int:
    """count_params, plus "encoder_layers"/"decoder_layers": N blocks without the stack's final LayerNorm."""
    from studytool.engine import count_params

    if part.endswith("_layers"):
        return layers * count_params(part.removesuffix("s"), **kwargs)
    return count_params(part, num_layers=layers, **kwargs)


def params(
    d_model: int = 512, heads: int = 8, d_ff: int | None = None, layers: int = 6, vocab: int | None = None,
    bias: bool = True,
) -> dict[str, Any]:
    """Parameter counts of every part; both conventions, or only the notes' one when `bias` is False.

    The defaults are the base model of the notes (and of nn.Transformer); `d_ff=None` is 4 * d_model.
    """
    _check_sizes(d_model=d_model, heads=heads, d_ff=d_ff, layers=layers, vocab=vocab)   # the typed sizes
    d_ff = 4 * d_model if d_ff is None else d_ff
    _check_heads(d_model, heads)
    conventions = list(PARAM_CONVENTIONS) if bias else ["notes"]
    rows = []
    for part in PARAM_PARTS:
        if part in ("embedding", "output_projection") and vocab is None:
            continue
        row: dict[str, Any] = {"part": part, "label": param_label(part, layers)}
        for name in conventions:
            row[name] = _count(part, layers, d_model=d_model, n_heads=heads, d_ff=d_ff, vocab=vocab,
                               **PARAM_CONVENTIONS[name])
        rows.append(row)
    return {
        "d_model": d_model, "heads": heads, "d_ff": d_ff, "layers": layers, "vocab": vocab,
        "conventions": conventions, "rows": rows,
    }


def _trace(*sizes: int, **named: int | None) -> list[Any]:
    """`trace_shapes`, with sizes past what NumPy can index (checked before any array is made) as one line."""
    from studytool.engine.shapes import TooLargeToTrace, trace_shapes

    try:
        return trace_shapes(*sizes, **named)
    except TooLargeToTrace:
        raise StudytoolError(_("these sizes are too large to trace: an array would have more elements than NumPy "
                               "can index; try smaller sizes (the shapes scale the same way)")) from None


def attention(batch: int, seq: int, d_model: int, heads: int, weights_seed: int | None = None) -> dict[str, Any]:
    """The multi-head self-attention shape chain of one encoder layer, as the engine records it;
    with `weights_seed`, also the weights of a seeded example (`attention_weights`)."""
    _check_sizes(batch=batch, seq=seq, d_model=d_model, heads=heads)
    _check_heads(d_model, heads)
    # vocab and d_ff do not touch self-attention; the smallest sizes keep the trace cheap
    steps = _trace(batch, seq, d_model, heads, vocab=1, d_ff=1)
    prefix = "self-attention: "
    chain = [s for s in steps if s.name == "source + positional encoding"] + [
        s for s in steps
        if s.part == "encoder" and s.name.startswith(prefix) and not s.name.endswith("add & norm")
    ]
    result = {
        "batch": batch, "seq": seq, "d_model": d_model, "heads": heads, "d_k": d_model // heads,
        "steps": [{"name": _("input X") if s is chain[0] else s.name.removeprefix(prefix), "shape": list(s.shape)}
                  for s in chain],
    }
    if weights_seed is not None:
        result["weights"] = attention_weights(seq, d_model, heads, weights_seed)
    return result


def shapes(
    batch: int, seq: int, d_model: int, heads: int, vocab: int, d_ff: int | None = None, tgt_seq: int | None = None
) -> dict[str, Any]:
    """The whole data flow, step by step, as the engine records it."""
    _check_sizes(batch=batch, seq=seq, d_model=d_model, heads=heads, vocab=vocab, d_ff=d_ff, tgt_seq=tgt_seq)
    d_ff = 4 * d_model if d_ff is None else d_ff
    _check_heads(d_model, heads)
    steps = _trace(batch, seq, d_model, heads, vocab, d_ff=d_ff, tgt_len=tgt_seq)
    return {
        "batch": batch, "seq": seq, "tgt_seq": tgt_seq if tgt_seq is not None else seq,
        "d_model": d_model, "heads": heads, "d_ff": d_ff, "vocab": vocab,
        "steps": [{"name": s.name, "shape": list(s.shape), "part": s.part} for s in steps],
    }


LLM_DTYPES = ("fp32", "bf16", "fp16", "int8")
LLM_CONFIG_MAX_BYTES = 1 << 20   # a Hub config.json is a few kB; more is not one
LLM_DEFAULT_SEQ = 2048


class _Shown:
    """A value from the user's file as a one-line error shows it: at most 60 characters, controls escaped."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @staticmethod
    def _cut(text: str) -> str:
        from studytool.files import printable

        text = printable(text, name=True)
        return text if len(text) <= 60 else text[:59] + "…"

    def __repr__(self) -> str:
        return self._cut(repr(self.value))

    def __format__(self, spec: str) -> str:
        return self._cut(str(self.value))


def _config_error(error: Any) -> str:
    """An engine ConfigError in the interface language."""
    fields = {key: _Shown(value) for key, value in error.fields.items()}
    return {
        "not_object": _("config.json must hold a JSON object"),
        "missing": _("config.json has no {field!r} (needed for model_type {model_type!r})"),
        "unknown_type": _("unknown model_type {model_type!r}: use one of {known}"),
        "not_positive": _("{field} must be a positive integer, got {value!r}"),
        "not_number": _("{field} must be a number, got {value!r}"),
        "not_bool": _("{field} must be true or false, got {value!r}"),
        "kv_heads": _("num_attention_heads={n_heads} is not a multiple of num_key_value_heads={n_kv_heads}"),
        "not_divisible": _("hidden size {d_model} is not divisible by {n_heads} heads (and no head_dim is given)"),
        "odd_head_dim": _("RoPE needs an even head_dim, got {head_dim}"),
        "activation": _("unknown activation {activation!r}: use one of {known}"),
        "top_k": _("num_experts_per_tok must be from 1 to num_local_experts={n_experts}, got {top_k}"),
        "rope_type": _("rope_type must be a name, got {rope_type!r}"),
        "unknown_preset": _("unknown preset {name!r}: use one of {known}"),
    }[error.kind].format(**fields)


def read_model_config(path: str) -> dict[str, Any]:
    """A Hugging Face config.json from disk: a regular UTF-8 file of one JSON object, at most 1 MiB."""
    import json

    from studytool.files import NotRegular, printable, read_regular

    name = printable(str(path), name=True)
    try:
        data = read_regular(path, LLM_CONFIG_MAX_BYTES)
    except NotRegular as error:
        raise StudytoolError(_("{path}: not a config file: {kind}").format(path=name, kind=error.strerror)) from None
    except OSError as error:
        raise StudytoolError(_("{path}: cannot read the file: {reason}").format(
            path=name, reason=error.strerror or error)) from None
    if len(data) > LLM_CONFIG_MAX_BYTES:
        raise StudytoolError(_("{path}: larger than 1 MiB, not a config.json").format(path=name))

    def no_constant(word: str) -> None:
        raise ValueError(f"{word} is not JSON")

    try:
        return json.loads(data.decode("utf-8-sig"), parse_constant=no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise StudytoolError(_("{path}: not valid JSON: {reason}").format(
            path=name, reason=printable(str(error), name=True)[:200])) from None


def llm(config_path: str | None = None, preset: str | None = None, seq: int | None = None, batch: int = 1,
        dtype: str = "bf16") -> dict[str, Any]:
    """What a decoder-only model costs: parameters, KV cache, forward FLOPs and memory, from its config.json.

    One of `config_path` (a Hub config.json) or `preset` (a bundled one); `seq` defaults to 2048, or to a
    GPT-2's learned positions when it has fewer.
    """
    from dataclasses import asdict

    from studytool.engine import ConfigError, forward_flops, from_hf, kv_cache, parameter_counts, training_memory
    from studytool.engine.accounting import inference_memory
    from studytool.engine.llm import preset as bundled
    from studytool.files import printable

    if (config_path is None) == (preset is None):
        raise StudytoolError(_("give one of --config PATH or --preset NAME"))
    if dtype not in LLM_DTYPES:
        raise StudytoolError(_("unknown dtype {dtype!r}: use one of {known}").format(dtype=dtype,
                                                                                  known=", ".join(LLM_DTYPES)))
    _check_sizes(seq=seq, batch=batch)
    where = _Shown(preset) if preset is not None else printable(str(config_path), name=True)
    try:
        config = from_hf(bundled(preset) if preset is not None else read_model_config(config_path))
    except ConfigError as error:
        raise StudytoolError(f"{where}: {_config_error(error)}") from None
    try:
        _check_sizes(**{name: value for name, value in asdict(config).items()   # the engine checked the rest
                        if isinstance(value, int) and not isinstance(value, bool) and value})
    except StudytoolError as error:
        raise StudytoolError(f"{where}: {error}") from None
    if seq is None:
        seq = min(LLM_DEFAULT_SEQ, config.max_positions) if config.positions == "learned" else LLM_DEFAULT_SEQ
    if config.positions == "learned" and seq > config.max_positions:
        raise StudytoolError(_("--seq {seq} is longer than this model's {n} learned positions").format(
            seq=seq, n=config.max_positions))
    training = training_memory(config, batch, seq)
    return {
        "model": preset if preset is not None else str(config_path),
        "config": {**asdict(config), "norm": config.norm, "mlp": config.mlp, "positions": config.positions},
        "batch": batch, "seq": seq, "dtype": dtype,
        "parameters": parameter_counts(config),
        "kv_cache": kv_cache(config, batch, seq, dtype),
        "flops": forward_flops(config, batch, seq),
        "memory": {"inference": inference_memory(config, batch, seq, dtype),
                   **{key: training[key] for key in ("adamw_fp32", "adamw_mixed", "activations")}},
    }


BPE_MAX_CHARS = 10_000   # the trainer recounts the words that hold each merged pair: a page of text stays instant
BPE_MAX_MERGES = 1_000   # every merge is printed, a line each


def bpe(text: Sequence[str], merges: int = 10) -> dict[str, Any]:
    """BPE trained on the typed text (CS336's rules, on characters: see engine/bpe.py), then the text encoded.

    The words of every argument form the corpus; each merge comes with how often its pair occurred.
    """
    import unicodedata

    from studytool.engine import encode_bpe, train_bpe

    corpus = " ".join(text)
    if not corpus.split():
        raise StudytoolError(_("empty text: give some words, e.g. low low lower newest"))
    if len(corpus) > BPE_MAX_CHARS:
        raise StudytoolError(_("at most {n} characters of text, please (calc prints every merge)").format(
            n=f"{BPE_MAX_CHARS:,}"))
    if any(unicodedata.category(c) == "Cc" and not c.isspace() for c in corpus):  # tokens are printed as they are
        raise StudytoolError(_("the text holds a control character: give words of printable characters"))
    if not 0 <= merges <= BPE_MAX_MERGES:
        raise StudytoolError(_("--merges must be from 0 to {most}, got {merges}").format(
            most=BPE_MAX_MERGES, merges=merges))
    learned = train_bpe(corpus, merges)
    pairs = [merge.pair for merge in learned]
    return {
        "text": corpus,
        "merges": [list(pair) for pair in pairs],
        "counts": [merge.count for merge in learned],
        "tokens": encode_bpe(corpus, pairs),
    }

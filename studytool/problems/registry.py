"""The generators by name: their typed parameters, their defaults and the notes' own example.

Decks override parameters by name (`params:`) and pin the notes' numbers
(`example:`); both go through `Generator.validate`. A parameter whose default is
`None` is drawn at random from the range its description gives. `ask` picks the
sub-question of a generator that covers several (default: drawn).

The draw functions live in one module per family and are imported on first
use, so listing names and checking parameters (what the deck loader does) does
not import NumPy or the engine.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from studytool.problems.variant import Variant

Check = Callable[[Any], "str | None"]  # a value -> an error message, or None when fine


@dataclass(frozen=True)
class Param:
    name: str
    description: str
    default: Any = None  # None: drawn at random
    check: Check = lambda value: None
    choices: tuple[str, ...] = ()  # the allowed values, when they are a fixed set of names

    def problem(self, value: Any) -> str | None:
        if value is None:
            return None  # None always means "draw it"
        message = self.check(value)
        return f"{self.name}: {message}" if message else None


@dataclass(frozen=True)
class Generator:
    name: str
    summary: str
    params: Mapping[str, Param]
    example_params: Mapping[str, Any]
    draw_path: str  # "module:function"; the function takes (rng, **all params) -> Variant
    constraints: tuple[Callable[[Mapping[str, Any]], "str | None"], ...] = ()
    # sub-questions whose answers are few by nature (ask -> why): a card pinned to one may repeat answers
    small: Mapping[str, str] = field(default_factory=dict)

    def small_answer_space(self, params: Mapping[str, Any]) -> str | None:
        """Why a card with these params has few distinct answers, or None when it should vary."""
        return self.small.get(params.get("ask"))

    def validate(self, params: Mapping[str, Any]) -> list[str]:
        """One message per unknown name or bad value; empty means fine."""
        if not isinstance(params, Mapping):
            return [f"{self.name}: params must be a mapping of name: value"]
        problems = []
        for name, value in params.items():
            if name not in self.params:
                known = ", ".join(self.params)
                problems.append(f"unknown parameter {name!r} for {self.name} (known: {known})")
            elif (message := self.params[name].problem(value)) is not None:
                problems.append(message)
        if not problems:
            merged = self.resolve(params)
            problems += [m for check in self.constraints if (m := check(merged)) is not None]
        return problems

    def resolve(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter's value: the given ones over the defaults."""
        return {name: params.get(name, p.default) for name, p in self.params.items()}

    def draw(self, rng, **params: Any) -> Variant:
        """A fresh variant from `rng` (a `numpy.random.Generator`); raises ValueError on bad params."""
        problems = self.validate(params)
        if problems:
            raise ValueError("; ".join(problems))
        function, resolved = _function(self.draw_path), self.resolve(params)
        variant = function(rng, **resolved)
        for _ in range(TRIES):   # a draw where a known wrong method gives the right answer catches nothing: redraw
            if not _caught_by_a_hint(variant):
                break
            again = function(rng, **resolved)
            if (again.prompt, again.answer) == (variant.prompt, variant.answer):
                break            # everything pinned: no other draw exists
            variant = again
        return replace(variant, generator=self.name)   # kept with its hints, so `decks audit` can name the card

    def example(self) -> Variant:
        """The notes' own numbers."""
        import numpy as np

        return self.draw(np.random.default_rng(0), **self.example_params)


TRIES = 100   # redraws before a pinned card keeps a draw a wrong method also answers


def _caught_by_a_hint(variant: Variant) -> bool:
    from studytool.problems.answers import matches

    return any(matches(variant, hint.answer) for hint in variant.hints)


_loaded: dict[str, Callable[..., Variant]] = {}


def _function(path: str) -> Callable[..., Variant]:
    if path not in _loaded:
        module, name = path.split(":")
        _loaded[path] = getattr(importlib.import_module(module), name)
    return _loaded[path]


# --- parameter checks -------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and abs(value) != float("inf")


def int_in(lo: int, hi: int) -> Check:
    def check(value: Any) -> str | None:
        if not _is_int(value) or not lo <= value <= hi:
            return f"expected an integer in {lo}..{hi}, got {value!r}"
        return None

    return check


def one_of(*choices: str) -> Check:
    def check(value: Any) -> str | None:
        if value not in choices:
            return f"expected one of {', '.join(choices)}, got {value!r}"
        return None

    return check


def numbers(min_len: int, max_len: int, *, lo: float = -1000, hi: float = 1000, spread: bool = False,
            integers: bool = False) -> Check:
    """A list of numbers; `spread`: not all equal (non-zero variance)."""

    def check(value: Any) -> str | None:
        kind = "integers" if integers else "numbers"
        ok = _is_int if integers else _is_number
        if not isinstance(value, (list, tuple)) or not all(ok(v) for v in value):
            return f"expected a list of {kind}, got {value!r}"
        if not min_len <= len(value) <= max_len:
            return f"expected {min_len}..{max_len} {kind}, got {len(value)}"
        if not all(lo <= v <= hi for v in value):
            return f"values must lie in {lo}..{hi}"
        if spread and len(set(value)) < 2:
            return "values must not all be equal (the variance would be zero)"
        return None

    return check


def matrix(max_rows: int, max_cols: int, *, min_rows: int = 1, min_cols: int = 1, lo: float = -1000,
           hi: float = 1000, spread: bool = False) -> Check:
    """Rows of numbers; `spread`: every row and every column varies (non-zero variance both ways)."""

    def check(value: Any) -> str | None:
        rows_ok = isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in value)
        if not rows_ok or not all(_is_number(v) for r in value for v in r):
            return f"expected a list of rows of numbers, got {value!r}"
        if not min_rows <= len(value) <= max_rows:
            return f"expected {min_rows}..{max_rows} rows, got {len(value)}"
        if len({len(r) for r in value}) != 1 or not min_cols <= len(value[0]) <= max_cols:
            return f"rows must all have the same length, {min_cols}..{max_cols}"
        if not all(lo <= v <= hi for r in value for v in r):
            return f"values must lie in {lo}..{hi}"
        if spread and any(len(set(line)) < 2 for line in [*value, *zip(*value)]):
            return "every row and every column must have two different values (non-zero variance)"
        return None

    return check


def tokens(min_len: int, max_len: int) -> Check:
    def check(value: Any) -> str | None:
        if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) and t.strip() for t in value):
            return f"expected a list of words, got {value!r}"
        if not min_len <= len(value) <= max_len:
            return f"expected {min_len}..{max_len} words, got {len(value)}"
        if len(set(value)) != len(value):
            return "words must be distinct (each is answered by its number)"
        return None

    return check


def _probability(value: Any) -> str | None:
    # strictly between 0 and 1 and not 0.5: a tie would leave greedy decoding undefined
    ok = _is_number(value) and 0.01 <= value <= 0.99 and value != 0.5
    return None if ok else f"expected a probability in 0.01..0.99 other than 0.5, got {value!r}"


def _temperature(value: Any) -> str | None:
    # below 0.05 the scaled logits overflow exp() long before the answer says anything new
    return None if _is_number(value) and 0.05 <= value <= 100 else f"expected a number in 0.05..100, got {value!r}"


def text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else f"expected a non-empty string, got {value!r}"


# --- cross-parameter constraints ----------------------------------------------------------


def _divisible(p: Mapping[str, Any]) -> str | None:
    d, h = p.get("d_model"), p.get("n_heads")
    if d is not None and h is not None and d % h:
        return f"d_model ({d}) must be divisible by n_heads ({h})"
    return None


def _range_holds(count: str, fixed: str, drawn_max: int) -> Callable[[Mapping[str, Any]], str | None]:
    """`low..high` must hold `count` distinct values (`drawn_max` when drawn) unless the values are pinned."""

    def check(p: Mapping[str, Any]) -> str | None:
        if p.get(fixed) is not None:
            return None
        needed = p[count] if p.get(count) is not None else drawn_max
        if p["high"] - p["low"] + 1 < needed:
            return f"low..high ({p['low']}..{p['high']}) must hold {needed} distinct integers"
        return None

    return check


def _pinned_length(param: str, length: str) -> Callable[[Mapping[str, Any]], str | None]:
    def check(p: Mapping[str, Any]) -> str | None:
        if p.get(param) is not None and p.get(length) is not None and len(p[param]) != p[length]:
            return f"{param} has {len(p[param])} entries but {length} is {p[length]}"
        return None

    return check


def _index_below(index: str, bound: str) -> Callable[[Mapping[str, Any]], str | None]:
    def check(p: Mapping[str, Any]) -> str | None:
        n = p.get(bound)
        if p.get(index) is not None and n is not None and p[index] >= n:
            return f"{index} ({p[index]}) must be below {bound} ({n})"
        return None

    return check


def _step_in_target(p: Mapping[str, Any]) -> str | None:
    # the decoder input is <s> plus the target words: steps 0..len(target)
    if p.get("t") is not None and p.get("target") is not None and p["t"] > len(p["target"]):
        return f"t ({p['t']}) must be at most the number of target words ({len(p['target'])})"
    return None


def _small_batch(p: Mapping[str, Any]) -> str | None:
    if p.get("batch") and p.get("features") and p["batch"] * p["features"] > 12:
        return "batch * features must be at most 12 (hand-computable)"
    return None


def _pad_lengths(p: Mapping[str, Any]) -> str | None:
    lengths, max_len = p.get("lengths"), p.get("max_len")
    if lengths is not None and max_len is not None and max(lengths) > max_len:
        return f"every length must be at most max_len ({max_len})"
    if lengths is not None and p.get("batch") is not None and len(lengths) != p["batch"]:
        return f"lengths has {len(lengths)} entries but batch is {p['batch']}"
    return None


def _attention_inputs(p: Mapping[str, Any]) -> str | None:
    q, k, v = p.get("q"), p.get("k"), p.get("v")
    if q is not None and k is not None and len(q[0]) != len(k[0]):
        return "q and k must have the same number of columns (d_k)"
    if k is not None and v is not None and len(k) != len(v):
        return "k and v must have the same number of rows (one value per key)"
    widths = {len(m[0]) for m in (q, k) if m is not None}
    if p.get("d_k") is not None and widths and widths != {p["d_k"]}:
        return f"d_k ({p['d_k']}) must be the number of columns of q and k"
    return None


def _src_tgt_distinct(p: Mapping[str, Any]) -> str | None:
    if p.get("src_len") is not None and p["src_len"] == p.get("tgt_len"):
        return "src_len and tgt_len must differ (so swapped axes are caught)"
    return None


# --- the generators -----------------------------------------------------------------------

_SIZES = {
    "batch": Param("batch", "batch size B (default: drawn from 2..64)", None, int_in(1, 4096)),
    "seq_len": Param("seq_len", "sequence length L (default: drawn from 3..128)", None, int_in(1, 100_000)),
    "d_model": Param("d_model", "model width d_model (default: drawn, a multiple of n_heads)", None,
                     int_in(1, 100_000)),
    "n_heads": Param("n_heads", "number of heads h (default: drawn from 2, 4, 8, 12, 16)", None, int_in(1, 1024)),
}


def _params(*items: Param) -> dict[str, Param]:
    return {p.name: p for p in items}


def _ask(*choices: str) -> Param:
    return Param("ask", f"which sub-question: {', '.join(choices)} (default: drawn)", None, one_of(*choices), choices)


_GENERATORS: tuple[Generator, ...] = (
    Generator(
        "layer_norm",
        "LayerNorm of one token's vector: mean, sigma (biased), output; scale/shift invariance.",
        _params(
            Param("x", "the token's vector, pinned (default: drawn, distinct integers)", None,
                  numbers(3, 8, spread=True)),
            Param("size", "vector length, 3..8 (default: drawn from 3..5)", None, int_in(3, 8)),
            Param("low", "smallest drawn value", 0, int_in(-99, 99)),
            Param("high", "largest drawn value", 9, int_in(-99, 99)),
            Param("scale", "invariance: the input is multiplied by this (default: drawn from 2..5)", None,
                  int_in(1, 100)),
            Param("shift", "invariance: then this is added (default: drawn from -5..5, not 0)", None, int_in(-100, 100)),
            _ask("mean", "sigma", "output", "invariance"),
        ),
        {"x": [1, 2, 3, 4], "ask": "output"},
        "studytool.problems.norms:layer_norm",
        (_range_holds("size", "x", 5), _pinned_length("x", "size")),
    ),
    Generator(
        "batch_norm",
        "BatchNorm of a small batch: per-dimension mean/std, normalized matrix; LN on the same matrix; axes.",
        _params(
            Param("x", "the batch, rows = samples, pinned (default: drawn)", None,
                  matrix(4, 4, min_rows=2, min_cols=2, spread=True)),
            Param("batch", "number of samples (default: drawn from 3..4)", None, int_in(2, 4)),
            Param("features", "number of features per sample (default: 3)", None, int_in(2, 4)),
            Param("low", "smallest drawn value", 0, int_in(-99, 99)),
            Param("high", "largest drawn value", 15, int_in(-99, 99)),
            _ask("mean", "std", "output", "ln_output", "axis"),
        ),
        {"x": [[1, 10], [3, 14]], "ask": "output"},
        "studytool.problems.norms:batch_norm",
        (_small_batch, _range_holds("batch", "x", 4)),
        {"axis": "a choice among 4 fixed statements: the answer is one of 4 letters"},
    ),
    Generator(
        "positional_encoding",
        "Sinusoidal PE: one value PE(pos, j) or the row PE(pos, :), odd and even d_model.",
        _params(
            Param("d_model", "encoding width (default: drawn from 3..6, odd and even)", None, int_in(1, 1024)),
            Param("pos", "position (default: drawn from 0..9)", None, int_in(0, 10_000)),
            Param("j", "column for ask=value (default: drawn below d_model)", None, int_in(0, 1023)),
            _ask("value", "row"),
        ),
        {"d_model": 3, "pos": 1, "ask": "row"},
        "studytool.problems.positional:positional_encoding",
        (_index_below("j", "d_model"),),
    ),
    Generator(
        "softmax",
        "Softmax of a short score vector, or the largest probability.",
        _params(
            Param("x", "the scores, pinned (default: drawn, distinct integers)", None, numbers(2, 6, lo=-20, hi=20)),
            Param("size", "number of scores (default: drawn from 3..4)", None, int_in(2, 6)),
            Param("low", "smallest drawn score", -2, int_in(-20, 20)),
            Param("high", "largest drawn score", 3, int_in(-20, 20)),
            _ask("vector", "max"),
        ),
        {"x": [1, 2, 3], "ask": "vector"},
        "studytool.problems.attention:softmax",
        (_range_holds("size", "x", 4), _pinned_length("x", "size")),
    ),
    Generator(
        "attention_scores",
        "Tiny scaled dot-product attention: QK^T/sqrt(d_k), the weights, the output; d_k = d_model/h; the scale.",
        _params(
            Param("q", "queries, pinned (default: drawn integers in -2..2)", None, matrix(2, 4, lo=-10, hi=10)),
            Param("k", "keys, pinned (default: drawn integers in -2..2)", None, matrix(4, 4, min_rows=2, lo=-10, hi=10)),
            Param("v", "values, pinned (default: drawn integers in 0..4)", None, matrix(4, 4, min_rows=2, lo=-10, hi=10)),
            Param("len_q", "number of queries (default: 1)", None, int_in(1, 2)),
            Param("len_k", "number of keys (default: drawn from 2..3)", None, int_in(2, 4)),
            Param("d_k", "query/key width of the tiny matrices (default: drawn from 2, 4)", None, int_in(1, 4)),
            _SIZES["d_model"],
            _SIZES["n_heads"],
            _ask("scores", "weights", "output", "d_k", "scale"),
        ),
        {"d_model": 512, "n_heads": 8, "ask": "d_k"},
        "studytool.problems.attention:attention_scores",
        (_divisible, _attention_inputs, _pinned_length("q", "len_q"), _pinned_length("k", "len_k"),
         _pinned_length("v", "len_k")),
    ),
    Generator(
        "multi_head_shapes",
        "Shapes through multi-head self-attention: projection, split, transpose, scores, weighted sum, concat, output.",
        _params(
            _SIZES["batch"], _SIZES["seq_len"], _SIZES["d_model"], _SIZES["n_heads"],
            _ask("projection", "split", "transpose", "scores", "weighted_sum", "concat", "output"),
        ),
        {"batch": 32, "seq_len": 10, "d_model": 512, "n_heads": 8, "ask": "scores"},
        "studytool.problems.shapes:multi_head_shapes",
        (_divisible,),
    ),
    Generator(
        "causal_mask",
        "The n x n causal mask: its entries, how many are allowed/blocked, which positions step t sees.",
        _params(
            Param("n", "sequence length (default: drawn from 3..6 for the matrix and a row, 3..14 for counts)", None,
                  int_in(2, 14)),
            Param("t", "step for ask=visible (default: drawn below n)", None, int_in(0, 11)),
            _ask("matrix", "allowed", "blocked", "visible"),
        ),
        {"n": 4, "ask": "matrix"},
        "studytool.problems.masks:causal_mask",
        (_index_below("t", "n"),),
        {"matrix": "one lower-triangular matrix per hand-writable length n (3..6)"},
    ),
    Generator(
        "padding_mask",
        "The padding mask for a batch of lengths, or how many positions it blocks.",
        _params(
            Param("lengths", "real lengths of the sentences, pinned (default: drawn)", None,
                  numbers(1, 6, lo=1, hi=12, integers=True)),
            Param("batch", "number of sentences (default: drawn from 2..4)", None, int_in(1, 6)),
            Param("max_len", "padded length (default: drawn from 3..6)", None, int_in(2, 12)),
            _ask("matrix", "count"),
        ),
        {"lengths": [3, 5, 2], "max_len": 5, "ask": "matrix"},
        "studytool.problems.masks:padding_mask",
        (_pad_lengths,),
    ),
    Generator(
        "teacher_forcing",
        "Teacher forcing: the shifted-right decoder input, the labels, what step t sees and predicts.",
        _params(
            Param("target", "the target sentence as words, pinned (default: drawn)", None, tokens(2, 6)),
            Param("source", "the source sentence, shown for context (default: drawn with the target)", None, text),
            Param("t", "step for ask=visible/predict (default: drawn)", None, int_in(0, 6)),
            _ask("decoder_input", "labels", "visible", "predict"),
        ),
        {"target": ["我", "爱", "AI"], "source": "I love AI", "ask": "decoder_input"},
        "studytool.problems.masks:teacher_forcing",
        (_step_in_target,),
        {"predict": "the answer is the letter of one of the 4-8 shown tokens"},
    ),
    Generator(
        "cross_attention_shapes",
        "Cross-attention: Q from the decoder, K/V from the encoder; rectangular scores [B, h, L_tgt, L_src].",
        _params(
            _SIZES["batch"],
            Param("src_len", "source (encoder) length (default: drawn from 3..64)", None, int_in(1, 100_000)),
            Param("tgt_len", "target (decoder) length (default: drawn from 3..64, != src_len)", None,
                  int_in(1, 100_000)),
            _SIZES["d_model"], _SIZES["n_heads"],
            _ask("query", "key", "scores", "output", "source"),
        ),
        {"batch": 32, "src_len": 10, "tgt_len": 4, "d_model": 512, "n_heads": 8, "ask": "source"},
        "studytool.problems.shapes:cross_attention_shapes",
        (_divisible, _src_tgt_distinct),
        {"source": "a choice among 4 fixed statements: the answer is one of 4 letters"},
    ),
    Generator(
        "ffn_shapes",
        "The position-wise FFN: expand to d_ff = 4 d_model, ReLU, contract back; weight shapes.",
        _params(
            _SIZES["batch"], _SIZES["seq_len"], _SIZES["d_model"],
            Param("d_ff", "hidden width (default: 4 * d_model)", None, int_in(1, 1_000_000)),
            _ask("expand", "contract", "d_ff", "w1", "w2"),
        ),
        {"batch": 32, "seq_len": 10, "d_model": 512, "d_ff": 2048, "ask": "expand"},
        "studytool.problems.shapes:ffn_shapes",
    ),
    Generator(
        "param_count",
        "Parameter counts: embedding, MHA, FFN (with/without biases), encoder/decoder block, N layers, FFN share.",
        _params(
            _SIZES["d_model"], _SIZES["n_heads"],
            Param("d_ff", "FFN hidden width (default: 4 * d_model)", None, int_in(1, 1_000_000)),
            Param("vocab", "vocabulary size for ask=embedding (default: drawn)", None, int_in(1, 10_000_000)),
            Param("num_layers", "layers for ask=stack (default: drawn from 2..12)", None, int_in(1, 1000)),
            Param("convention", "blocks/stacks: 'notes' = weight matrices only (the notes' 3,145,728), "
                  "'full' = with biases and LayerNorms as PyTorch (default: drawn)", None, one_of("notes", "full"),
                  ("notes", "full")),
            _ask("embedding", "mha", "mha_bias", "ffn", "ffn_bias", "encoder_layer", "decoder_layer", "stack",
                 "ffn_share"),
        ),
        {"d_model": 512, "n_heads": 8, "d_ff": 2048, "ask": "encoder_layer", "convention": "notes"},
        "studytool.problems.params:param_count",
        (_divisible,),
    ),
    Generator(
        "attention_cost",
        "Multiply-adds of QK^T (B*h*L^2*d_k) vs one projection (B*L*d^2); where L^2 overtakes one projection "
        "(L = d) and a whole block (L = 6d).",
        _params(_SIZES["batch"], _SIZES["seq_len"], _SIZES["d_model"], _SIZES["n_heads"],
                _ask("scores", "projection", "crossover", "block")),
        {"batch": 32, "seq_len": 10, "d_model": 512, "n_heads": 8, "ask": "scores"},
        "studytool.problems.cost:attention_cost",
        (_divisible,),
    ),
)

# What interviewers ask next (the interview-next deck): KV cache, tied embeddings, the whole model, warm-up, temperature.
_GENERATORS += (
    Generator(
        "kv_cache",
        "KV-cache memory 2 * layers * B * L * d_model * bytes: the whole cache in MiB, or one more token in KiB.",
        _params(
            Param("num_layers", "decoder layers (default: drawn from 6, 12, 24, 32)", None, int_in(1, 1000)),
            Param("batch", "sequences decoded together (default: drawn from 1, 2, 4, 8)", None, int_in(1, 4096)),
            Param("seq_len", "tokens cached per sequence (default: drawn from 512..4096)", None, int_in(1, 1_000_000)),
            Param("d_model", "model width (default: drawn from 512..4096)", None, int_in(1, 100_000)),
            Param("bytes_per_value", "bytes per stored number: 1 int8, 2 fp16/bf16, 4 fp32 (default: drawn 2 or 4)",
                  None, lambda v: None if _is_int(v) and v in (1, 2, 4) else f"expected 1, 2 or 4, got {v!r}"),
            _ask("total", "per_token"),
        ),
        {"num_layers": 12, "batch": 1, "seq_len": 1024, "d_model": 768, "bytes_per_value": 2, "ask": "total"},
        "studytool.problems.kvcache:kv_cache",
    ),
    Generator(
        "tied_embeddings",
        "Parameters saved by tying the (V, d) matrices: encoder-decoder 3 -> 1, decoder-only 2 -> 1.",
        _params(
            Param("vocab", "vocabulary size V (default: drawn from 8000..50000)", None, int_in(1, 10_000_000)),
            Param("d_model", "model width (default: drawn from 256..1024)", None, int_in(1, 100_000)),
            _ask("encoder_decoder", "decoder_only"),
        ),
        {"vocab": 37000, "d_model": 512, "ask": "encoder_decoder"},
        "studytool.problems.model_size:tied_embeddings",
    ),
    Generator(
        "transformer_params",
        "The whole encoder-decoder Transformer in millions (nn.Transformer + embeddings + output): base ~ 63.1M.",
        _params(
            Param("vocab", "shared vocabulary size V (default: drawn from 8000..37000)", None, int_in(1, 10_000_000)),
            _SIZES["d_model"], _SIZES["n_heads"],
            Param("num_layers", "layers N of each stack (default: drawn from 2..12)", None, int_in(1, 1000)),
            _ask("tied", "untied"),
        ),
        {"vocab": 37000, "d_model": 512, "n_heads": 8, "num_layers": 6, "ask": "tied"},
        "studytool.problems.model_size:transformer_params",
        (_divisible,),
    ),
    Generator(
        "warmup_lr",
        "The paper's schedule lr = d^-0.5 * min(s^-0.5, s * warmup^-1.5): lr at step s, or the peak, x 1e-4.",
        _params(
            Param("d_model", "model width (default: drawn from 256..1024)", None, int_in(1, 100_000)),
            Param("warmup", "warm-up steps (default: drawn from 1000..8000)", None, int_in(1, 1_000_000)),
            Param("step", "training step s for ask=lr (default: drawn around warmup)", None, int_in(1, 10_000_000)),
            _ask("lr", "peak"),
        ),
        {"d_model": 512, "warmup": 4000, "ask": "peak"},
        "studytool.problems.training:warmup_lr",
    ),
    Generator(
        "temperature_softmax",
        "Sampling at temperature T: softmax(z / T) of next-token logits, or the top token's probability.",
        _params(
            Param("logits", "the logits z, pinned (default: drawn, distinct integers)", None, numbers(2, 6, lo=-20, hi=20)),
            Param("temperature", "T in 0.05..100 (default: drawn from 0.25, 0.5, 2, 4)", None, _temperature),
            _ask("vector", "top"),
        ),
        {"logits": [2, 1, 0], "temperature": 0.5, "ask": "vector"},
        "studytool.problems.decoding:temperature_softmax",
    ),
    Generator(
        "rms_norm",
        "RMSNorm of one vector (gamma = 1, eps ignored): the root mean square, or the output.",
        _params(
            Param("x", "the token's vector, pinned (default: drawn, distinct non-zero integers)", None,
                  numbers(2, 8, lo=-100, hi=100, spread=True)),
            _ask("rms", "output"),
        ),
        {"x": [1, 2, 3, 4], "ask": "output"},
        "studytool.problems.modern:rms_norm",
    ),
    Generator(
        "rope_score",
        "RoPE on a 2-d pair (theta = 1 rad per position): q rotated to position m, or the score (R_m q).(R_n k).",
        _params(
            Param("q", "the query pair, pinned (default: drawn integers in -3..3)", None, numbers(2, 2, lo=-10, hi=10)),
            Param("k", "the key pair, pinned (default: drawn integers in -3..3)", None, numbers(2, 2, lo=-10, hi=10)),
            Param("m", "the query's position (default: drawn from 1..5)", None, int_in(0, 100)),
            Param("n", "the key's position (default: drawn from 0..6, != m)", None, int_in(0, 100)),
            _ask("rotate", "score"),
        ),
        {"q": [1, 0], "k": [0, 1], "m": 2, "n": 3, "ask": "score"},
        "studytool.problems.modern:rope_score",
    ),
    Generator(
        "beam_search",
        "Greedy decoding vs beam search (k = 2) over two steps: which sequence each picks, the beam's probability.",
        _params(
            Param("p_first", "P(A) at step 1, pinned (default: drawn so that greedy misses the best sequence)", None,
                  _probability),
            Param("x_after_a", "P(X | A) at step 2, pinned (default: drawn)", None, _probability),
            Param("x_after_b", "P(X | B) at step 2, pinned (default: drawn)", None, _probability),
            _ask("greedy", "beam", "prob"),
        ),
        {"p_first": 0.6, "x_after_a": 0.55, "x_after_b": 0.9, "ask": "beam"},
        "studytool.problems.decoding:beam_search",
        small={"greedy": "the answer is one of the four two-word sequences (shuffled options)",
               "beam": "the answer is one of the four two-word sequences (shuffled options)"},
    ),
)

_BY_NAME: dict[str, Generator] = {g.name: g for g in _GENERATORS}


def names() -> list[str]:
    return list(_BY_NAME)


def get(name: str) -> Generator:
    """The generator called `name`; `KeyError` when there is none."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown generator {name!r} (known: {', '.join(_BY_NAME)})") from None

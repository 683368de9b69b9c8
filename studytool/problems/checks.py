"""What a generator's parameters may be: value checks, cross-parameter constraints, shared parameters.

A check takes a value and returns an error message, or None when the value is fine; a constraint
does the same for all of a generator's resolved parameters together. The family modules declare
their parameters with these next to their draw functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Check = Callable[[Any], "str | None"]  # a value -> an error message, or None when fine
Constraint = Callable[[Mapping[str, Any]], "str | None"]


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


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and abs(value) != float("inf")


def int_in(lo: int, hi: int) -> Check:
    def check(value: Any) -> str | None:
        if not is_int(value) or not lo <= value <= hi:
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
        ok = is_int if integers else is_number
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
        if not rows_ok or not all(is_number(v) for r in value for v in r):
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


def text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else f"expected a non-empty string, got {value!r}"


# --- cross-parameter constraints ----------------------------------------------------------


def divisible(p: Mapping[str, Any]) -> str | None:
    d, h = p.get("d_model"), p.get("n_heads")
    if d is not None and h is not None and d % h:
        return f"d_model ({d}) must be divisible by n_heads ({h})"
    return None


def range_holds(count: str, fixed: str, drawn_max: int) -> Constraint:
    """`low..high` must hold `count` distinct values (`drawn_max` when drawn) unless the values are pinned."""

    def check(p: Mapping[str, Any]) -> str | None:
        if p.get(fixed) is not None:
            return None
        needed = p[count] if p.get(count) is not None else drawn_max
        if p["high"] - p["low"] + 1 < needed:
            return f"low..high ({p['low']}..{p['high']}) must hold {needed} distinct integers"
        return None

    return check


def pinned_length(param: str, length: str) -> Constraint:
    def check(p: Mapping[str, Any]) -> str | None:
        if p.get(param) is not None and p.get(length) is not None and len(p[param]) != p[length]:
            return f"{param} has {len(p[param])} entries but {length} is {p[length]}"
        return None

    return check


def index_below(index: str, bound: str) -> Constraint:
    def check(p: Mapping[str, Any]) -> str | None:
        n = p.get(bound)
        if p.get(index) is not None and n is not None and p[index] >= n:
            return f"{index} ({p[index]}) must be below {bound} ({n})"
        return None

    return check


# --- parameters several families share ------------------------------------------------------

_SIZES = {
    "batch": Param("batch", "batch size B (default: drawn from 2..64)", None, int_in(1, 4096)),
    "seq_len": Param("seq_len", "sequence length L (default: drawn from 3..128)", None, int_in(1, 100_000)),
    "d_model": Param("d_model", "model width d_model (default: drawn, a multiple of n_heads)", None,
                     int_in(1, 100_000)),
    "n_heads": Param("n_heads", "number of heads h (default: drawn from 2, 4, 8, 12, 16)", None, int_in(1, 1024)),
}


# The notes' running example of one attention layer (B = 32, L = 10, d_model = 512, h = 8): the sizes a
# one-layer generator takes, and their values as its example.
NOTES_LAYER = {"batch": 32, "seq_len": 10, "d_model": 512, "n_heads": 8}


def sizes(*names: str) -> tuple[Param, ...]:
    """The shared size parameters called `names` (batch, seq_len, d_model, n_heads), in that order."""
    return tuple(_SIZES[name] for name in names)


def ask_param(*choices: str) -> Param:
    """The `ask` parameter: which sub-question (default: drawn)."""
    return Param("ask", f"which sub-question: {', '.join(choices)} (default: drawn)", None, one_of(*choices), choices)

"""Grading typed text against a `Variant`, and showing answers and the expected format.

Reading the text is `studytool.problems.reading`. Integers, shapes, choices and
sequences are exact; floats use the variant's tolerance. One grading policy:
round only the final answer. Worked solutions show their intermediates to 6
decimals, every 4-decimal answer is accepted within ±1e-4 (fixed and generated
cards alike), so an answer computed from the solution's own numbers and
rounded once is right. Input that cannot be read raises `AnswerFormatError`:
the caller asks again and does not count it as wrong.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Any

from studytool.i18n import _
from studytool.problems.reading import (
    AnswerFormatError, matrix_rows, normalise, number_tokens, parse_choice, parse_matrix, parse_scalar, parse_sequence,
    parse_shape, parse_vector, scalar_token,
)
from studytool.problems.variant import TRUE_FALSE, Tolerance, Variant, option_label

__all__ = ["AnswerFormatError", "Grade", "format_answer", "format_hint", "grade", "normalise", "parse"]


@dataclass(frozen=True)
class Grade:
    correct: bool
    expected: str           # canonical answer text; typed back, it grades correct
    hint: str | None = None  # a targeted hint when the answer matches a known wrong method
    close: bool = False     # not right, but right by the method: rounded early or off in the last digit (Hard)

    @property
    def verdict(self) -> str:
        """"correct", "close" or "wrong": how the answer is shown and recorded (close is Hard, not Again)."""
        return "correct" if self.correct else "close" if self.close else "wrong"


def _orders_all(variant: Variant) -> bool:
    """A sequence answer that puts every shown item in order (an order card), not a selection of them."""
    return len(variant.answer) == len(variant.options)


def parse(variant: Variant, text: str) -> Any:
    """The typed text as a value of the variant's answer kind; `AnswerFormatError` if unreadable."""
    if not isinstance(text, str):
        raise AnswerFormatError(_("expected text"))
    kind = variant.kind
    if kind == "scalar":
        return parse_scalar(text)
    if kind == "vector":
        given = parse_vector(text)
        if len(given) != len(variant.answer):
            raise AnswerFormatError(_("expected {n} numbers, e.g. {example}").format(
                n=len(variant.answer), example=_symbols(len(variant.answer))))
        return given
    if kind == "matrix":
        return _as_matrix(parse_matrix(text), variant.answer)
    if kind == "shape":
        return parse_shape(text)
    if kind == "choice":
        return parse_choice(text, variant.options)
    if kind == "sequence":
        return parse_sequence(text, variant.options, whole=_orders_all(variant))
    raise ValueError(f"{kind} answers are not graded: the learner rates them 1-4")


def _as_matrix(given: tuple[tuple[float, ...], ...], expected: Any) -> tuple[tuple[float, ...], ...]:
    rows, cols = len(expected), len(expected[0])
    if len(given) == 1 and len(given[0]) == rows * cols:  # typed flat: 1 2 3 4
        given = tuple(given[0][r * cols:(r + 1) * cols] for r in range(rows))
    if len(given) != rows or len(given[0]) != cols:
        raise AnswerFormatError(_("expected {rows} rows of {cols} numbers, e.g. {example}").format(
            rows=rows, cols=cols, example=_symbol_rows(rows, cols)))
    return given


# --- grading ------------------------------------------------------------------------------


def _close(given: float, expected: float, tolerance: Tolerance | None) -> bool:
    if tolerance is None:  # exact; a float typed for an integer (1.048576e6) still matches
        return given == expected
    allowed = tolerance.abs + tolerance.rel * abs(expected) + 1e-12
    decimals = _decimals(tolerance)
    # within the tolerance of the exact value, or of the key as shown (rounded): a fixed card's answer is
    # its rounded key, so a generated card measures from its shown key too and the two grade alike
    return abs(given - expected) <= allowed or decimals is not None and abs(given - round(expected, decimals)) <= allowed


def _flat(value: Any) -> list[float]:
    if isinstance(value, numbers.Real):
        return [value]
    return [x for item in value for x in _flat(item)]


def _matches(kind: str, given: Any, expected: Any, tolerance: Tolerance | None) -> bool:
    if kind in ("choice",):
        return frozenset(given) == frozenset(expected)
    if kind in ("shape", "sequence"):
        return tuple(given) == tuple(expected)
    if kind == "matrix" and (len(given) != len(expected) or any(len(a) != len(b) for a, b in zip(given, expected))):
        return False
    a, b = _flat(given), _flat(expected)
    return len(a) == len(b) and all(_close(x, y, tolerance) for x, y in zip(a, b))


def matches(variant: Variant, value: Any) -> bool:
    """`value` (e.g. a known wrong method's answer) would be graded right for `variant`."""
    try:
        return _matches(variant.kind, value, variant.answer, _hint_tolerance(variant, value))
    except (TypeError, ValueError):
        return False  # a value of another form never matches


def grade(variant: Variant, text: str) -> Grade:
    """Grade typed text; `AnswerFormatError` if unreadable, `ValueError` for recall variants."""
    if variant.kind == "recall":
        raise ValueError("recall answers are not graded: the learner rates them 1-4")
    given = parse(variant, text)
    expected = format_answer(variant)
    if _matches(variant.kind, given, variant.answer, variant.tolerance):
        return Grade(True, expected)
    _check_precision(variant, text, given)
    named = {hint.message for hint in variant.hints if _gives(variant, given, hint.answer)}
    if named:   # a targeted hint only when one mistake alone gives this answer: two would name the wrong one
        return Grade(False, expected, named.pop() if len(named) == 1 else None)
    rounded = _rounded_where(variant, given)
    if rounded is not None:
        return Grade(False, expected, rounded, close=True)
    return Grade(False, expected, _generic_hint(variant, given))


def _gives(variant: Variant, given: Any, wrong: Any) -> bool:
    """The known wrong method whose answer is `wrong` gives the typed `given`."""
    try:
        return _matches(variant.kind, given, wrong, _hint_tolerance(variant, wrong))
    except (TypeError, ValueError):
        return False  # a hint answer of another form never matches


# Off by this many tolerances at most: the last digit or two, a rounding slip rather than a wrong method.
_CLOSE_FACTOR = 10


def _typed_tokens(variant: Variant, text: str) -> list[str]:
    """The number tokens as typed, in the order `parse` reads them (for counting their decimals)."""
    if variant.kind == "scalar":
        return [scalar_token(text)]
    if variant.kind == "matrix":
        return [t for row in matrix_rows(text) for t in number_tokens(normalise(row))]
    return number_tokens(normalise(text))


def _typed_decimals(token: str) -> int | None:
    """Decimals a plain number was written with (`0.667` -> 3, `66.7%` -> 3); None for 2/3, 1e-3."""
    match = re.fullmatch(r"[+-]?\d*(?:\.(\d*))?(%?)", token)
    if not match or not re.search(r"\d", token):
        return None
    return len(match.group(1) or "") + (2 if match.group(2) else 0)


def _check_precision(variant: Variant, text: str, given: Any) -> None:
    """Ask again when the answer is right at the (fewer) decimals it was typed with.

    `0.667` for 0.6667 at 4 decimals is not wrong, only short: a format error naming the
    decimals wanted. Every entry must be within tolerance or right at its own precision,
    and at least one decimal typed (a bare integer is a committed answer, not a rounding).
    """
    decimals = _decimals(variant.tolerance)
    if variant.kind not in ("scalar", "vector", "matrix") or not decimals:
        return
    tokens, values, wanted = _typed_tokens(variant, text), _flat(given), _flat(variant.answer)
    if not len(tokens) == len(values) == len(wanted):
        return
    short = None
    for token, value, want in zip(tokens, values, wanted):
        if _close(value, want, variant.tolerance):
            continue
        typed = _typed_decimals(token)
        if typed is None or not 0 < typed < decimals or abs(value - want) > 0.5 * 10**-typed + 1e-12:
            return
        short = short or token
    if short:
        raise AnswerFormatError(_("give {d} decimals (your {given} rounds the same)").format(d=decimals, given=short))


def _hint_tolerance(variant: Variant, wrong: Any) -> Tolerance | None:
    """A wrong method's float result (e.g. √512 for an exact √64) is typed rounded: match it to 4 decimals."""
    if variant.tolerance is None and variant.kind in ("scalar", "vector", "matrix") \
            and any(not float(x).is_integer() for x in _flat(wrong)):
        return Tolerance(abs=1e-4)
    return variant.tolerance


# Right by the method with an intermediate number rounded early: every entry within this share of the key
# (σ = 2.586020 rounded to 2.59 moves (x − m) / σ by 0.15%; the K − 1 mistake moves it 13%, a guess to two
# decimals like -0.45 for -0.4472 0.6%).
_EARLY_ROUNDING = 0.005


def _rounded_where(variant: Variant, given: Any) -> str | None:
    """The hint for a near miss, saying where the rounding went; None when the answer is not near.

    Off by at most ten tolerances (the last shown digit): the final rounding. Further, but every entry within
    0.5% of the key and none with the wrong sign: an intermediate step was rounded (the method is right).
    """
    if variant.kind not in ("scalar", "vector", "matrix") or variant.tolerance is None:
        return None
    if _matches(variant.kind, given, variant.answer, _widened(variant.tolerance)):
        return _("close — off only in the last digit: round once, at the end, to {d} decimals").format(
            d=_decimals(variant.tolerance))
    a, b = _flat(given), _flat(variant.answer)
    if len(a) == len(b) and all(abs(x - y) <= _EARLY_ROUNDING * abs(y) + variant.tolerance.abs and x * y >= 0
                                for x, y in zip(a, b)):
        return _("close — right method, but a number in an earlier step was rounded: keep the worked steps' "
                 "6 decimals and round only the final answer")
    return None


def _generic_hint(variant: Variant, given: Any) -> str | None:
    if variant.kind == "shape" and sorted(given) == sorted(variant.answer):
        return _("Right sizes, wrong order: check which axis is which.")
    if variant.kind == "shape" and len(given) != len(variant.answer):
        return _("Expected {n} axes.").format(n=len(variant.answer))
    return None


def _widened(tolerance: Tolerance) -> Tolerance:
    return Tolerance(rel=_CLOSE_FACTOR * tolerance.rel, abs=_CLOSE_FACTOR * tolerance.abs)


# --- showing answers ----------------------------------------------------------------------


def _decimals(tolerance: Tolerance | None) -> int | None:
    """Decimals that stay within the tolerance; None: write the number in full."""
    if tolerance is None or tolerance.abs <= 0:
        return None
    # log10(2 * abs) in two terms: 2 * abs overflows to inf for abs past 9e307
    return max(0, math.ceil(-math.log10(tolerance.abs) - math.log10(2) - 1e-9))


def format_number(value: float, tolerance: Tolerance | None = None) -> str:
    """Integers in full; floats to the decimals the tolerance allows (in full when it allows none)."""
    decimals = _decimals(tolerance)
    if isinstance(value, numbers.Integral) or float(value).is_integer() and abs(value) < 2**53:
        if not decimals:
            return str(int(value))
    if decimals is None:
        return repr(float(value))
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def format_answer(variant: Variant) -> str:
    """The canonical answer text; typed back, it grades correct."""
    kind, answer, tol = variant.kind, variant.answer, variant.tolerance
    if kind == "scalar":
        return format_number(answer, tol)
    if kind == "vector":
        return "[" + ", ".join(format_number(x, tol) for x in answer) + "]"
    if kind == "matrix":
        return "[" + ", ".join("[" + ", ".join(format_number(x, tol) for x in row) + "]" for row in answer) + "]"
    if kind == "shape":
        return "[" + ", ".join(str(int(n)) for n in answer) + "]"
    if kind == "choice":
        return " ".join(option_label(kind, i) for i in sorted(answer))
    if kind == "sequence":
        return " ".join(option_label(kind, i) for i in answer)
    return str(answer)


def _tolerance_text(tolerance: Tolerance | None) -> str:
    decimals = _decimals(tolerance)
    if tolerance is None:
        return _("exact")
    if decimals is None:
        return _("within {rel:g} relative").format(rel=tolerance.rel)
    return _("round only the final answer: {d} decimals, within ±{abs:g}").format(d=decimals, abs=tolerance.abs)


# Format examples are symbols, or numbers checked against the answer: an example never gives the answer away.
_LETTERS = "abcdefgh"


def _names(n: int) -> list[str]:
    """n distinct symbols: letters while they last, else x1 … xn (a repeated name would read as a repeated value)."""
    return list(_LETTERS[:n]) if n <= len(_LETTERS) else [f"x{i}" for i in range(1, n + 1)]


def _symbols(n: int) -> str:
    return "[" + ", ".join(_names(n)) + "]"


def _symbol_rows(rows: int, cols: int) -> str:
    names = iter(_names(rows * cols))
    return "[" + ", ".join("[" + ", ".join(next(names) for _ in range(cols)) + "]" for _ in range(rows)) + "]"


def _unlike(answer: Any, candidates: tuple[str, ...]) -> str:
    """The first candidate number that is not (nearly) the answer."""
    return next(c for c in candidates if not math.isclose(parse_scalar(c), float(answer), abs_tol=1e-3))


def format_hint(variant: Variant) -> str:
    """The expected input format and the grading policy, shown with the prompt."""
    kind, tol = variant.kind, variant.tolerance
    if kind == "scalar" and tol is None:
        example = _unlike(variant.answer, ("123456", "654321"))
        return _("One number, e.g. {example} or {grouped} ({tolerance}).").format(
            example=example, grouped=f"{int(example):,}", tolerance=_tolerance_text(tol))
    if kind == "scalar":
        # symbols, not numbers: an example chosen to differ from the answer told where the answer was (issue 23)
        return _("One number, e.g. {example} or a fraction like {fraction} ({tolerance}).").format(
            example="x." + "x" * (_decimals(tol) or 1), fraction="a/b", tolerance=_tolerance_text(tol))
    if kind == "vector":
        n = len(variant.answer)
        return _("{n} numbers, e.g. {example} or {spaced} ({tolerance}).").format(
            n=n, example=_symbols(n), spaced=_symbols(n).strip("[]").replace(",", ""), tolerance=_tolerance_text(tol))
    if kind == "matrix":
        rows, cols = len(variant.answer), len(variant.answer[0])
        return _("{rows} rows of {cols} numbers, e.g. {example} ({tolerance}).").format(
            rows=rows, cols=cols, example=_symbol_rows(rows, cols), tolerance=_tolerance_text(tol))
    if kind == "shape":
        return _("A shape: the sizes in order, e.g. [a, b, …] or a×b×… (exact).")
    if kind == "choice" and tuple(variant.options) == TRUE_FALSE:
        return _("One answer: T/F, 对/错, or 1/2.")
    if kind == "choice":
        return _("The letter of the right option; when several are right, all their letters, separated by spaces.")
    if kind == "sequence" and _orders_all(variant):
        return _("All {n} item numbers in the right order, separated by spaces.").format(n=len(variant.options))
    if kind == "sequence":
        return _("The item numbers in the right order, separated by spaces.")
    return _("Answer in your own words, then rate yourself 1-4.")

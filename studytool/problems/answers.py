"""Reading what learners type, and grading it against a `Variant`.

Input is normalised first (Unicode NFKC plus a table for what NFKC leaves
alone), so full-width digits, commas, brackets and spaces from a Chinese IME
work. Integers, shapes, choices and sequences are exact; floats use the
variant's tolerance. Input that cannot be read raises `AnswerFormatError`
(one line saying what is expected): the caller asks again and does not count
it as wrong.
"""

from __future__ import annotations

import math
import numbers
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from studytool.i18n import _
from studytool.problems.variant import TRUE_FALSE, Tolerance, Variant, option_label


class AnswerFormatError(ValueError):
    """The input could not be read; the message says what format is expected."""


@dataclass(frozen=True)
class Grade:
    correct: bool
    expected: str           # canonical answer text; typed back, it grades correct
    hint: str | None = None  # a targeted hint when the answer matches a known wrong method


# What NFKC leaves alone but a Chinese IME produces.
_TABLE = str.maketrans({
    "、": ",", "，": ",", "。": ".", "；": ";", "：": ":",
    "×": "x", "✕": "x", "✖": "x", "⨉": "x", "·": " ", "∗": "*",
    "−": "-", "ー": "-", "—": "-", "–": "-", "‐": "-", "‑": "-", "﹣": "-",
    "【": "[", "】": "]", "〔": "(", "〕": ")", "「": "[", "」": "]", "『": "[", "』": "]",
    "《": "(", "》": ")", "〈": "(", "〉": ")",
    "\u3000": " ", "\u00a0": " ", "\t": " ",
})

_TRUE_WORDS = {"对", "正确", "是", "true", "t", "yes", "y", "√", "✓", "✔"}
_FALSE_WORDS = {"错", "错误", "否", "不对", "false", "f", "no", "n", "x", "✗", "✘"}  # × arrives as x


def normalise(text: str) -> str:
    """NFKC, the IME table, lower case, single spaces, stripped."""
    text = unicodedata.normalize("NFKC", text).translate(_TABLE).lower()
    return re.sub(r"\s+", " ", text).strip()


# --- numbers ------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?")
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:([, _'])\d{3})(?:\1\d{3})*(?:\.\d+)?")


def _number(token: str) -> int | float:
    """One number: 12, -0.4472, 1.5e6, 2/3, 66.7%."""
    if token.endswith("%") and _NUMBER.fullmatch(token[:-1]):
        return float(token[:-1]) / 100
    if re.fullmatch(r"[+-]?\d+", token):
        return int(token)  # exact, however large
    if _NUMBER.fullmatch(token):
        value = float(token)
    elif "/" in token and all(_NUMBER.fullmatch(part) for part in token.split("/", 1)):
        num, den = token.split("/", 1)
        if float(den) == 0:
            raise AnswerFormatError(_("division by zero in {token}").format(token=token))
        value = float(num) / float(den)
    else:
        raise AnswerFormatError(_("not a number: {token}").format(token=token[:40]))
    if not math.isfinite(value):
        raise AnswerFormatError(_("not a finite number: {token}").format(token=token[:40]))
    return value


def _strip_brackets(text: str) -> str:
    """Outer brackets, and a leading "=", "≈" or "约" (about) that some learners type."""
    return text.strip().lstrip("=≈~约").strip("[]() ").strip()


def parse_scalar(text: str) -> int | float:
    """`1048576`, `1,048,576`, `1 048 576`, `1.048576e6`, `-0.4472`, `2/3`."""
    text = _strip_brackets(normalise(text))
    if _GROUPED.fullmatch(text):
        text = re.sub(r"[, _']", "", text)
    if not text:
        raise AnswerFormatError(_("expected a number, e.g. 1048576 or -0.4472"))
    try:
        return _number(text)
    except AnswerFormatError:
        raise AnswerFormatError(_("expected one number, e.g. 1048576 or -0.4472")) from None


def _split_numbers(text: str) -> tuple[float, ...]:
    parts = [p for p in re.split(r"[,;\s]+", _strip_brackets(text)) if p]
    if not parts:
        raise AnswerFormatError(_("expected numbers, e.g. [1, 2, 3] or 1 2 3"))
    return tuple(_number(p) for p in parts)


def parse_vector(text: str) -> tuple[float, ...]:
    """`[a, b, c]`, `a b c`, `a，b，c`."""
    text = normalise(text)
    if text.count("[") > 1 or text.count("(") > 1:
        raise AnswerFormatError(_("expected one list of numbers, e.g. [1, 2, 3] or 1 2 3"))
    return _split_numbers(text)


def parse_matrix(text: str) -> tuple[tuple[float, ...], ...]:
    """`[[1, 2], [3, 4]]`, `1 2; 3 4`, or rows on separate lines."""
    raw = unicodedata.normalize("NFKC", text).translate(_TABLE)
    rows_text = re.findall(r"[\[(]([^\[\]()]*)[\])]", raw)
    if not rows_text:
        rows_text = [r for r in re.split(r"[;\n|]", raw) if r.strip()]
    if not rows_text:
        raise AnswerFormatError(_("expected rows of numbers, e.g. [[1, 2], [3, 4]] or 1 2; 3 4"))
    rows = tuple(_split_numbers(normalise(r)) for r in rows_text)
    if len({len(r) for r in rows}) != 1:
        raise AnswerFormatError(_("every row needs the same number of entries, e.g. [[1, 2], [3, 4]]"))
    return rows


def parse_shape(text: str) -> tuple[int, ...]:
    """`(32, 8, 10, 10)`, `32x8x10x10`, `32×8×10×10`, `[32,8,10,10]`, `torch.Size([32, 8])`."""
    text = normalise(text).removeprefix("torch.size")
    parts = [p for p in re.split(r"[,;x*\s]+", _strip_brackets(text)) if p]
    if not parts or not all(re.fullmatch(r"\+?\d+", p) and int(p) > 0 for p in parts):
        raise AnswerFormatError(_("expected a shape of positive integers, e.g. [32, 8, 10, 10] or 32x8x10x10"))
    return tuple(int(p) for p in parts)


def _option_index(token: str, n_options: int, true_false: bool) -> int | None:
    """The 0-based option a token names (a letter, a number, or 对/错 words), or None."""
    if true_false and token in _TRUE_WORDS:
        return 0
    if true_false and token in _FALSE_WORDS:
        return 1
    if re.fullmatch(r"[a-z]", token):
        index = ord(token) - ord("a")
    elif re.fullmatch(r"\d+", token):
        index = int(token) - 1
    else:
        return None
    return index if 0 <= index < n_options else None


def _option_tokens(text: str, n_options: int) -> list[str]:
    text = _strip_brackets(normalise(text))
    if re.fullmatch(r"[a-z]+", text) and len(text) <= n_options and text not in _TRUE_WORDS | _FALSE_WORDS:
        return list(text)  # "ac"
    if re.fullmatch(r"\d+", text) and n_options <= 9 and int(text) > n_options:
        return list(text)  # "312"
    return [t for t in re.split(r"[,;/\s]+|和|与|\band\b", text) if t]


def _true_false_error() -> AnswerFormatError:
    return AnswerFormatError(_("expected exactly one answer: T/F, 对/错, or 1/2"))


def parse_choice(text: str, options: tuple[str, ...]) -> frozenset[int]:
    """`B`, `b`, `2`, several for multi-answer: `A C`, `a,c`, `ac`; exactly one of T/F, 对/错, 1/2 for true/false."""
    true_false = tuple(options) == TRUE_FALSE
    tokens = _option_tokens(text, len(options))
    if true_false and len(tokens) != 1:
        raise _true_false_error()  # "1 2" is not an answer to a true/false statement
    if not tokens:
        raise AnswerFormatError(_("expected the letter of an option, e.g. B"))
    indices = [_option_index(t, len(options), true_false) for t in tokens]
    if None in indices:
        if true_false:
            raise _true_false_error()
        last = option_label("choice", len(options) - 1)
        raise AnswerFormatError(
            _("expected option letters A-{last} or numbers 1-{n}").format(last=last, n=len(options)))
    return frozenset(indices)


def _sequence_example(n: int) -> str:
    """`2 1 3 …`: a sample order of n item numbers that is not the shown one."""
    return " ".join(str(i) for i in [2, 1, *range(3, n + 1)][:n])


def parse_sequence(text: str, options: tuple[str, ...], whole: bool = True) -> tuple[int, ...]:
    """The shown items' numbers (or letters) in order: `3 1 2`, `3,1,2`, `312`, `C A B`.

    `whole`: the answer orders all the items, so fewer numbers, repeats or numbers outside 1-N are
    format errors (asked again), not wrong orders. Otherwise (some of the items, e.g. the tokens a
    decoder step sees) any count is an answer, but each item at most once.
    """
    n = len(options)
    indices = tuple(_option_index(t, n, False) for t in _option_tokens(text, n))
    if whole and (None in indices or sorted(indices) != list(range(n))):
        raise AnswerFormatError(_("give all {n} item numbers in order, each once, e.g. {example}").format(
            n=n, example=_sequence_example(n)))
    if not indices or None in indices:
        raise AnswerFormatError(_("expected the item numbers in order, e.g. 3 1 2"))
    if len(set(indices)) != len(indices):
        raise AnswerFormatError(_("each item may appear only once, e.g. 3 1 2"))
    return indices


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
            raise AnswerFormatError(_("expected {n} numbers, e.g. [a, b, c]").format(n=len(variant.answer)))
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
        raise AnswerFormatError(
            _("expected {rows} rows of {cols} numbers, e.g. [[1, 2], [3, 4]]").format(rows=rows, cols=cols))
    return given


# --- grading ------------------------------------------------------------------------------


def _close(given: float, expected: float, tolerance: Tolerance | None) -> bool:
    if tolerance is None:  # exact; a float typed for an integer (1.048576e6) still matches
        return given == expected
    return abs(given - expected) <= tolerance.abs + tolerance.rel * abs(expected) + 1e-12


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


def grade(variant: Variant, text: str) -> Grade:
    """Grade typed text; `AnswerFormatError` if unreadable, `ValueError` for recall variants."""
    if variant.kind == "recall":
        raise ValueError("recall answers are not graded: the learner rates them 1-4")
    given = parse(variant, text)
    expected = format_answer(variant)
    if _matches(variant.kind, given, variant.answer, variant.tolerance):
        return Grade(True, expected)
    _check_precision(variant, text, given)
    for hint in variant.hints:
        try:
            if _matches(variant.kind, given, hint.answer, _hint_tolerance(variant, hint.answer)):
                return Grade(False, expected, hint.message)
        except (TypeError, ValueError):
            continue  # a hint answer of another form never matches
    return Grade(False, expected, _generic_hint(variant, given))


# Off by this many tolerances at most: the last digit or two, a rounding slip rather than a wrong method.
_CLOSE_FACTOR = 10


def _typed_tokens(variant: Variant, text: str) -> list[str]:
    """The number tokens as typed, in the order `parse` reads them (for counting their decimals)."""
    if variant.kind == "scalar":
        token = _strip_brackets(normalise(text))
        return [re.sub(r"[, _']", "", token) if _GROUPED.fullmatch(token) else token]
    if variant.kind == "matrix":
        text = re.sub(r"[\[\]();|]", " ", unicodedata.normalize("NFKC", text).translate(_TABLE))
    return [p for p in re.split(r"[,;\s]+", _strip_brackets(normalise(text))) if p]


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
        return Tolerance(rel=1e-6, abs=5e-5)
    return variant.tolerance


def _generic_hint(variant: Variant, given: Any) -> str | None:
    if variant.kind in ("scalar", "vector", "matrix") and variant.tolerance is not None \
            and _matches(variant.kind, given, variant.answer, _widened(variant.tolerance)):
        return _("close — check the rounding in the last step")
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
    return max(0, math.ceil(-math.log10(2 * tolerance.abs) - 1e-9))


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
    return _("{d} decimals, within ±{abs:g}").format(d=decimals, abs=tolerance.abs)


def format_hint(variant: Variant) -> str:
    """The expected input format and tolerance, shown with the prompt."""
    kind, tol = variant.kind, variant.tolerance
    if kind == "scalar":
        if tol is None:
            return _("One number, e.g. 1048576 or 1,048,576 ({tolerance}).").format(tolerance=_tolerance_text(tol))
        return _("One number, e.g. -0.4472 or 2/3 ({tolerance}).").format(tolerance=_tolerance_text(tol))
    if kind == "vector":
        return _("{n} numbers, e.g. [a, b, c] or a b c ({tolerance}).").format(
            n=len(variant.answer), tolerance=_tolerance_text(tol))
    if kind == "matrix":
        return _("{rows} rows of {cols} numbers, e.g. [[1, 2], [3, 4]] or 1 2; 3 4 ({tolerance}).").format(
            rows=len(variant.answer), cols=len(variant.answer[0]), tolerance=_tolerance_text(tol))
    if kind == "shape":
        return _("A shape, e.g. [32, 8, 10, 10] or 32x8x10x10 (exact).")
    if kind == "choice" and tuple(variant.options) == TRUE_FALSE:
        return _("One answer: T/F, 对/错, or 1/2.")
    if kind == "choice":
        return _("The letter(s) of the right option(s), e.g. B or A C.")
    if kind == "sequence" and _orders_all(variant):
        return _("All {n} item numbers in the right order, e.g. {example}.").format(
            n=len(variant.options), example=_sequence_example(len(variant.options)))
    if kind == "sequence":
        return _("The item numbers in the right order, e.g. 3 1 2.")
    return _("Answer in your own words, then rate yourself 1-4.")

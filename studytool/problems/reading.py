"""Reading what learners type: one value of a variant's answer kind, or `AnswerFormatError`.

Input is normalised first (Unicode NFKC plus a table for what NFKC leaves
alone), so full-width digits, commas, brackets and spaces from a Chinese IME
work; a trailing full stop, a sign typed apart from its number (`- 1.3416`) and
a `tensor(...)` / `array(...)` / `torch.Size(...)` wrapper copied from Python
are read too. Text around the answer is not ignored: it is a format error, so
`junk [1, 2] 42 [3, 4]` is never read as a matrix. Numbers longer than
`MAX_DIGITS` digits are a format error, never a crash.
"""

from __future__ import annotations

import math
import re
import unicodedata

from studytool.i18n import _
from studytool.problems.variant import TRUE_FALSE, option_label


class AnswerFormatError(ValueError):
    """The input could not be read; the message says what format is expected."""


# What NFKC leaves alone but a Chinese IME produces.
_TABLE = str.maketrans({
    "、": ",", "，": ",", "。": ".", "；": ";", "：": ":",
    "×": "x", "✕": "x", "✖": "x", "⨉": "x", "·": " ", "∗": "*",
    "−": "-", "ー": "-", "—": "-", "–": "-", "‐": "-", "‑": "-", "﹣": "-",
    "【": "[", "】": "]", "〔": "(", "〕": ")", "「": "[", "」": "]", "『": "[", "』": "]",
    "《": "(", "》": ")", "〈": "(", "〉": ")",
    "\u3000": " ", "\u00a0": " ", "\t": " ",
})

TRUE_WORDS = {"对", "正确", "是", "真", "true", "t", "yes", "y", "√", "✓", "✔"}
FALSE_WORDS = {"错", "错误", "否", "不对", "假", "false", "f", "no", "n", "x", "✗", "✘"}  # × arrives as x

# No answer of a hand computation has this many digits; longer input is a slip (and int() of
# 4,300+ digits raises), so it is a format error.
MAX_DIGITS = 50

# The largest number in size a deck or calc takes: every integer up to it is exact in float64 (2^53 is 9.0e15),
# squares stay far from overflow (10^30), and it prints in 16 digits plus the decimals a tolerance asks for.
MAX_MAGNITUDE = 10**15


def power_of_ten(value: float) -> str:
    """10^15 as `1e15`, 10^-9 as `1e-9`: a bound as a deck or a command line may write it."""
    return f"1e{round(math.log10(value))}"

# `tensor([1, 2])`, `np.array([1, 2])`, `torch.Size([32, 8])`: the Python wrapper around a list.
_WRAPPER = re.compile(r"(?:[a-z_]+\.)*(?:tensor|array|size)\s*\((.*)\)", re.IGNORECASE)


def normalise(text: str) -> str:
    """NFKC, the IME table, single spaces, stripped; a trailing full stop and wrappers removed.

    The case stays as typed, so that an error quotes the learner's own `Two`; readers of words lowercase."""
    text = unicodedata.normalize("NFKC", text).translate(_TABLE)
    text = re.sub(r"\s+", " ", text).strip().rstrip(".").strip()
    wrapped = _WRAPPER.fullmatch(text)
    if wrapped:
        text = wrapped.group(1).strip()
    return re.sub(r"(?<![\w.])([+-]) (?=[\d.])", r"\1", text)   # "- 1.3416" -> "-1.3416"


# --- numbers ------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?", re.IGNORECASE)   # 1E6 as 1e6
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:([, _'])\d{3})(?:\1\d{3})*(?:\.\d+)?")


def _too_long(token: str) -> None:
    if sum(c.isdigit() for c in token) > MAX_DIGITS:
        raise AnswerFormatError(_("that number has more than {n} digits").format(n=MAX_DIGITS))


def number(token: str) -> int | float:
    """One number: 12, -0.4472, 1.5e6, 2/3, 66.7%."""
    _too_long(token)
    if token.endswith("%") and _NUMBER.fullmatch(token[:-1]):
        return float(token[:-1]) / 100
    if re.fullmatch(r"[+-]?\d+", token):
        return int(token)  # exact
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


def strip_brackets(text: str) -> str:
    """Outer brackets, and a leading "=", "≈" or "约" (about) that some learners type."""
    return text.strip().lstrip("=≈~约").strip("[]() ").strip()


def scalar_token(text: str) -> str:
    """The one number token of a scalar answer, digit grouping removed."""
    token = strip_brackets(normalise(text))
    return re.sub(r"[, _']", "", token) if _GROUPED.fullmatch(token) else token


def parse_scalar(text: str) -> int | float:
    """`1048576`, `1,048,576`, `1 048 576`, `1.048576e6`, `-0.4472`, `2/3`."""
    token = scalar_token(text)
    if not token:
        raise AnswerFormatError(_("expected one number"))
    _too_long(token)
    try:
        return number(token)
    except AnswerFormatError:
        raise AnswerFormatError(_("expected one number, such as 12 or 0.25")) from None


def number_tokens(text: str) -> list[str]:
    return [p for p in re.split(r"[,;\s]+", strip_brackets(text)) if p]


def _split_numbers(text: str) -> tuple[float, ...]:
    parts = number_tokens(text)
    if not parts:
        raise AnswerFormatError(_("expected numbers separated by commas or spaces"))
    return tuple(number(p) for p in parts)


def parse_vector(text: str) -> tuple[float, ...]:
    """`[a, b, c]`, `a b c`, `a，b，c`, `tensor([a, b, c])`."""
    text = normalise(text)
    if text.count("[") > 1 or text.count("(") > 1:
        raise AnswerFormatError(_("expected one list of numbers"))
    return _split_numbers(text)


_ROW = re.compile(r"[\[(]([^\[\]()]*)[\])]")


def matrix_rows(text: str) -> list[str]:
    """The rows' texts: bracketed rows (nothing but separators around them), else rows split by `;`, `|` or lines."""
    raw = unicodedata.normalize("NFKC", text).translate(_TABLE).strip().rstrip(".")
    wrapped = _WRAPPER.fullmatch(raw)
    raw = wrapped.group(1) if wrapped else raw
    rows_text = _ROW.findall(raw)
    if rows_text and _ROW.sub("", raw).strip(" ,;[]()\n"):
        raise AnswerFormatError(_("expected only rows of numbers, nothing around them"))
    return rows_text or [r for r in re.split(r"[;\n|]", raw) if r.strip()]


def parse_matrix(text: str) -> tuple[tuple[float, ...], ...]:
    """`[[1, 2], [3, 4]]`, `1 2; 3 4`, or rows on separate lines."""
    rows_text = matrix_rows(text)
    if not rows_text:
        raise AnswerFormatError(_("expected rows of numbers, rows in brackets or separated by ;"))
    rows = tuple(_split_numbers(normalise(r)) for r in rows_text)
    if len({len(r) for r in rows}) != 1:
        raise AnswerFormatError(_("every row needs the same number of entries"))
    return rows


def _axis(part: str) -> int | None:
    """One axis: a positive integer, or a product of them (`8*64` = 512); None if neither."""
    factors = [f.strip() for f in re.split(r"[x*]", part)]
    if not all(re.fullmatch(r"\+?\d+", f) and len(f) <= MAX_DIGITS for f in factors):
        return None
    size = math.prod(int(f) for f in factors)
    return size if size > 0 else None


def parse_shape(text: str) -> tuple[int, ...]:
    """`(32, 8, 10, 10)`, `32x8x10x10`, `[32,8,10,10]`, `torch.Size([32, 8])`; `[32, 10, 8*64]` is [32, 10, 512].

    With commas, each comma-separated part is one axis (a product stays one axis, so `3x2, 44, 96` has
    three axes); without commas, `x`, `*` and spaces separate the axes.
    """
    body = strip_brackets(normalise(text)).lower()   # 32X8 as 32x8
    parts = re.split(r"[,;]", body) if re.search(r"[,;]", body) else re.split(r"[x*\s]+", body)
    axes = [_axis(p) for p in parts if p.strip()]
    if not axes or None in axes:
        raise AnswerFormatError(_("expected a shape of positive integers, comma- or x-separated"))
    return tuple(axes)


# --- options ------------------------------------------------------------------------------


def _option_index(token: str, n_options: int, true_false: bool) -> int | None:
    """The 0-based option a token names (a letter, a number, or 对/错 words), or None."""
    if true_false and token in TRUE_WORDS:
        return 0
    if true_false and token in FALSE_WORDS:
        return 1
    if re.fullmatch(r"[a-z]", token):
        index = ord(token) - ord("a")
    elif re.fullmatch(r"\d{1,3}", token):
        index = int(token) - 1
    else:
        return None
    return index if 0 <= index < n_options else None


def _option_tokens(text: str, n_options: int) -> list[str]:
    text = strip_brackets(normalise(text)).lower()   # B as b, True as true
    if re.fullmatch(r"[a-z]+", text) and len(text) <= n_options and text not in TRUE_WORDS | FALSE_WORDS:
        return list(text)  # "ac"
    if re.fullmatch(r"\d{1,9}", text) and n_options <= 9 and int(text) > n_options:
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
        raise AnswerFormatError(_("expected the letter of an option"))
    indices = [_option_index(t, len(options), true_false) for t in tokens]
    if None in indices:
        if true_false:
            raise _true_false_error()
        last = option_label("choice", len(options) - 1)
        raise AnswerFormatError(
            _("expected option letters A-{last} or numbers 1-{n}").format(last=last, n=len(options)))
    return frozenset(indices)


def parse_sequence(text: str, options: tuple[str, ...], whole: bool = True) -> tuple[int, ...]:
    """The shown items' numbers (or letters) in order: `3 1 2`, `3,1,2`, `312`, `C A B`.

    `whole`: the answer orders all the items, so fewer numbers, repeats or numbers outside 1-N are
    format errors (asked again), not wrong orders. Otherwise (some of the items, e.g. the tokens a
    decoder step sees) any count is an answer, but each item at most once.
    """
    n = len(options)
    indices = tuple(_option_index(t, n, False) for t in _option_tokens(text, n))
    if whole and (None in indices or sorted(indices) != list(range(n))):
        raise AnswerFormatError(_("give all {n} item numbers 1-{n} in order, each once").format(n=n))
    if not indices or None in indices:
        raise AnswerFormatError(_("expected item numbers 1-{n} in order, separated by spaces").format(n=n))
    if len(set(indices)) != len(indices):
        raise AnswerFormatError(_("each item may appear only once"))
    return indices

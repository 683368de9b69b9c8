"""calc on extreme numbers: the right numbers to every decimal shown, or one line; never a warning, inf or nan.

The truth is exact decimal arithmetic on the numbers as typed (60 digits), not NumPy.
"""

import json
import warnings
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from studytool import calc
from studytool.cli import app
from studytool.errors import StudytoolError

runner = CliRunner()
SHOWN = Decimal("5e-7")   # half of the 6th decimal calc shows


@pytest.mark.parametrize("args, words", [
    (["layernorm", "1e308", "-1e308"], "1e308 is too large: calc takes numbers up to 1e15"),
    (["layernorm", "1e+308", "1e+308", "1"], "too large"),
    (["batchnorm", "1e308,1", "-1e308,2"], "too large"),
    (["softmax", "1e308", "-1e308"], "too large"),
    (["layernorm", "1", "1", "--eps", "0"], "σ² + ε is 0 here, too small to divide by in float64: LayerNorm needs"),
    (["batchnorm", "1,1", "1,2", "--eps", "0"], "BatchNorm needs a larger eps"),
    (["layernorm", "1e-160", "0", "--eps", "0"], "too small to divide by"),   # σ² is subnormal: few digits left
    (["layernorm", "2e4", "-2e4"], "cannot show their mean and σ² to 6 decimals"),
    (["layernorm", "1000000", "1000000.001", "--eps", "0"], "subtract a common offset first (LayerNorm gives"),
    (["softmax", "100000000000.1", "100000000000"], "subtract a common offset first (softmax gives"),
])
def test_numbers_float64_cannot_do_exactly_are_one_line_without_a_warning(args, words):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a NumPy RuntimeWarning fails the test
        result = runner.invoke(app, ["--lang", "en", "calc", *args])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studytool: ") and words in lines[0]


def test_the_reported_extremes_that_float64_can_do_are_right():
    # σ² = 1e8 is still shown to 6 decimals; 1e-140 has a normal square, so eps 0 is fine
    assert calc.layernorm([1e4, -1e4])["output"] == pytest.approx([1.0, -1.0], abs=1e-12)
    assert calc.layernorm([1e-140, 0.0], eps=0)["output"] == pytest.approx([1.0, -1.0], abs=1e-12)
    assert calc.softmax([1e9, 0.0])["output"] == [1.0, 0.0]


def exact_layernorm(texts: list[str], eps: float) -> list[Decimal] | None:
    """[mean, σ², σ, *output] of the typed numbers; None when σ² + ε is 0."""
    with localcontext() as context:
        context.prec = 60
        xs = [Decimal(t) for t in texts]
        mean = sum(xs) / len(xs)
        var = sum((x - mean) ** 2 for x in xs) / len(xs)
        if var + Decimal(eps) == 0:
            return None
        scale = (var + Decimal(eps)).sqrt()
        return [mean, var, var.sqrt(), *((x - mean) / scale for x in xs)]


def exact_softmax(texts: list[str]) -> list[Decimal]:
    with localcontext() as context:
        context.prec = 60
        xs = [Decimal(t) for t in texts]
        top = max(xs)
        weights = [(x - top).exp() for x in xs]
        return [w / sum(weights) for w in weights]


# typed numbers: a shared offset (0 to near the bound) plus small decimals, so some are close together for their size
OFFSETS = st.sampled_from(["0", "1000", "123456.5", "1000000", "123456789", "1000000000000", "999999999999990"])
DELTAS = st.decimals(min_value=-1000, max_value=1000, places=4, allow_nan=False, allow_infinity=False)
TYPED = st.builds(lambda offset, deltas: [str(Decimal(offset) + d) for d in deltas],
                  OFFSETS, st.lists(DELTAS, min_size=2, max_size=6))


def within_shown(got: list[float], want: list[Decimal]) -> bool:
    return all(abs(Decimal(g) - w) <= SHOWN for g, w in zip(got, want, strict=True))


@settings(max_examples=300, deadline=None)
@given(texts=TYPED, eps=st.sampled_from([0.0, 1e-5, 1e-3]))
def test_layernorm_is_right_to_every_decimal_shown_or_refused(texts, eps):
    truth = exact_layernorm(texts, eps)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r = calc.layernorm(calc.parse_vector(texts), eps=eps)
        except StudytoolError:
            return
    assert truth is not None   # σ² + ε = 0 is always refused
    assert within_shown([r["mean"], r["variance"], r["sigma"], *r["output"]], truth)
    json.dumps(r, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(columns=st.lists(TYPED.filter(lambda t: len(t) >= 2), min_size=1, max_size=3), eps=st.sampled_from([0.0, 1e-5]))
def test_batchnorm_is_right_to_every_decimal_shown_or_refused(columns, eps):
    batch = min(len(c) for c in columns)
    rows = [",".join(column[b] for column in columns) for b in range(batch)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r = calc.batchnorm(calc.parse_rows(rows), eps=eps)
        except StudytoolError:
            return
    for j, column in enumerate(columns):
        truth = exact_layernorm(column[:batch], eps)   # BatchNorm of a feature is LayerNorm over the batch
        assert truth is not None
        got = [r["mean"][j], r["variance"][j], r["sigma"][j], *(row[j] for row in r["output"])]
        assert within_shown(got, truth)
    json.dumps(r, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(texts=TYPED)
def test_softmax_is_right_to_every_decimal_shown_or_refused(texts):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            r = calc.softmax(calc.parse_vector(texts))
        except StudytoolError:
            return
    assert within_shown(r["output"], exact_softmax(texts))
    json.dumps(r, allow_nan=False)

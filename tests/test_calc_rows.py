"""`calc batchnorm`'s rows: each argument is one sample, whatever separates its numbers; one argument may hold
the whole batch as a matrix, written as answers take one (`[[1,2],[3,4]]`, `1 2; 3 4`, rows on lines)."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from studytool import calc
from studytool.cli import app
from studytool.errors import StudytoolError

TWO_BY_TWO = [[1.0, 2.0], [3.0, 4.0]]


def run(*args: str):
    return CliRunner().invoke(app, ["calc", "batchnorm", *args, "--json"], env={"STUDYTOOL_LANG": "en"})


@pytest.mark.parametrize("args", [
    ["1 2", "3 4"],                # the tester's: was 4 samples of 1 feature
    ["1,2", "3,4"],
    ["1, 2", "3, 4"],
    ["1，2", "3，4"],              # a Chinese IME's comma
    ["[1, 2]", "[3, 4]"],
    ["[[1,2],[3,4]]"],             # the tester's: was "not a number: 2]"
    ["[[1, 2], [3, 4]]"],
    ["tensor([[1., 2.], [3., 4.]])"],
    ["1 2; 3 4"],
    ["1,2\n3,4"],
    ["1,2 3,4"],                   # the quoted form of the help's `1,2 3,4`: commas within a row, spaces between
], ids=repr)
def test_each_argument_is_a_row_or_one_argument_the_matrix(args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["input"] == TWO_BY_TWO
    assert doc["mean"] == [2, 3] and doc["sigma"] == [1, 1]   # by hand: each column is its mean ± 1
    np.testing.assert_allclose(doc["output"], [[-1, -1], [1, 1]], atol=1e-4)


@pytest.mark.parametrize("args, said", [
    (["1 2 3 4"], "at least 2 samples"),        # one argument without row separators is one sample
    (["1, 2, 3, 4"], "at least 2 samples"),
    (["1 2; 3 4", "5 6"], "one row per argument"),   # a matrix among several rows: refused, never flattened
    (["[[1,2],[3]]"], "same number of features"),
    (["junk [1, 2] [3, 4]"], "nothing around them"),
])
def test_what_cannot_be_one_batch_is_one_line(args, said):
    result = run(*args)
    assert result.exit_code == 1 and result.stdout == ""
    assert said in result.stderr and result.stderr.count("\n") == 1


@given(st.lists(st.lists(st.integers(-99, 99), min_size=1, max_size=4), min_size=1, max_size=5),
       st.sampled_from([" ", ",", ", ", "  "]))
def test_any_separator_within_an_argument_keeps_it_one_row(matrix, separator):
    width = len(matrix[0])
    matrix = [row[:width] + [0] * (width - len(row)) for row in matrix]
    texts = [separator.join(str(v) for v in row) for row in matrix]
    if len(texts) == 1:
        texts.append(texts[0])   # a single argument is read as a matrix; two make this a batch of rows
        matrix.append(matrix[0])
    assert calc.parse_rows(texts) == [[float(v) for v in row] for row in matrix]


def test_a_matrix_argument_counts_toward_the_number_limit():
    with pytest.raises(StudytoolError, match="at most 10000 numbers"):
        calc.parse_rows(["; ".join(["1 2"] * 5001)])

"""Every size calc takes is bounded as its typed numbers are (reading.MAX_MAGNITUDE, 1e15), in the same words;
a count within the bound is printed whole, never cut off."""

import json
import re

import pytest
from typer.testing import CliRunner

from studytool.cli import app

TOO_LARGE = "is too large: calc takes numbers up to 1e15 in size (float64 keeps every integer exact up to there)"


def run(*args: str, width: int = 80):
    return CliRunner().invoke(app, ["--lang", "en", "calc", *args], env={"COLUMNS": str(width)})


@pytest.mark.parametrize("args, value", [
    (["params", "--d-model", "8000000000000000000", "--heads", "8"], "8000000000000000000"),   # was cut-off counts
    (["params", "--d-model", "99999999999999999999", "--heads", "8"], "99999999999999999999"),  # was "not divisible"
    (["params", "--d-ff", "1000000000000001"], "1000000000000001"),
    (["params", "--layers", "10000000000000000"], "10000000000000000"),
    (["params", "--vocab", "10000000000000000"], "10000000000000000"),
    (["params", "--heads", "10000000000000000"], "10000000000000000"),
    (["attention", "--batch", "1", "--seq", "9" * 30], "9" * 30),
    (["shapes", "--batch", "1", "--seq", "2", "--vocab", "2", "--tgt-seq", "2000000000000000"], "2000000000000000"),
    (["pe", "--d-model", "2000000000000000", "--positions", "1"], "2000000000000000"),
    (["mask", "--causal", "2000000000000000"], "2000000000000000"),
])
def test_a_size_past_1e15_is_the_same_line_as_a_typed_number_past_it(args, value):
    result = run(*args)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"studytool: {value} {TOO_LARGE}\n"


def test_a_typed_number_past_1e15_says_the_same():
    assert run("softmax", "1e308").stderr == f"studytool: 1e308 {TOO_LARGE}\n"


def test_the_largest_size_counts_exactly_and_prints_whole():
    """d_model = h = 1e15 (d_ff 4e15, N 6): the notes' weight matrices of one attention block are 4 d², of a FFN
    2 d d_ff, so the notes' count of the whole model (6 encoder blocks of attention + FFN, 6 decoder blocks with
    two attentions) is 6 (4 + 8) d² + 6 (8 + 8) d² = 168 d², by hand."""
    d = 10**15
    doc = json.loads(run("params", "--d-model", str(d), "--heads", str(d), "--no-bias", "--json").stdout)
    assert [row["notes"] for row in doc["rows"] if row["part"] == "transformer"] == [168 * d * d]
    shown = run("params", "--d-model", str(d), "--heads", str(d), "--no-bias", width=60).stdout
    assert "…" not in shown
    digits = re.sub(r"[^\d\n]", "", "".join(
        line.split("│")[-2] for line in shown.splitlines() if line.count("│") >= 3))   # the count column, joined
    assert str(168 * d * d) in digits.replace("\n", "")

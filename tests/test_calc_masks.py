"""`calc mask` and `calc attention --weights`: the data behind the pictures, against hand-written masks and PyTorch."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from studytool import calc
from studytool.cli import app
from studytool.errors import StudytoolError

runner = CliRunner()


def run(*args: str):
    result = runner.invoke(app, ["--lang", "en", "calc", *args])
    return result


def test_causal_mask_blocks_the_strict_upper_triangle():
    blocked = calc.mask(causal=3)["blocked"]
    assert blocked == [[False, True, True],
                       [False, False, True],
                       [False, False, False]]


def test_padding_mask_of_the_notes_batch():
    r = calc.mask(lengths=[3, 5, 2])
    assert (r["kind"], r["max_len"]) == ("padding", 5)
    assert np.array(r["blocked"], dtype=int).tolist() == [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 0, 1, 1, 1]]


def test_causal_mask_agrees_with_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of the engine")

    expected = torch.nn.Transformer.generate_square_subsequent_mask(7) == float("-inf")
    assert calc.mask(causal=7)["blocked"] == expected.tolist()


@given(st.lists(st.integers(1, 999), min_size=1, max_size=6), st.sampled_from([",", "，", " ", ", "]))
def test_lengths_parse_however_they_are_separated(lengths, sep):
    assert calc.parse_lengths(sep.join(map(str, lengths))) == lengths


@pytest.mark.parametrize("args, words", [
    (["mask"], "--causal N or --lengths"),
    (["mask", "--causal", "3", "--lengths", "2,3"], "--causal N or --lengths"),
    (["mask", "--causal", "0"], "positive"),
    (["mask", "--causal", "100000"], "too large"),
    (["mask", "--lengths", "3,0"], "from 1 on"),
    (["mask", "--lengths", "3,x"], "from 1 on"),
    (["mask", "--lengths", "9" * 5000], "from 1 on"),
    (["mask", "--lengths", ","], "empty"),
    (["attention", "--batch", "1", "--seq", "40", "--d-model", "8", "--heads", "2", "--weights"], "--seq 16"),
])
def test_bad_mask_input_is_one_line_and_exit_1(args, words):
    result = run(*args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studytool: ") and words in lines[0]


def test_mask_json_is_the_engines_mask():
    result = run("mask", "--lengths", "2,1", "--json")
    assert json.loads(result.stdout) == {"kind": "padding", "lengths": [2, 1], "max_len": 2,
                                         "blocked": [[False, False], [False, True]]}


def test_attention_weights_are_torchs_for_the_same_layer_and_input():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of the engine")

    from studytool.engine import MultiHeadAttention

    seq, d_model, heads, seed = 5, 16, 4, 3
    r = calc.attention_weights(seq, d_model, heads, seed)
    layer = MultiHeadAttention(d_model, heads, seed=seed)
    reference = torch.nn.MultiheadAttention(d_model, heads, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.from_numpy(layer.in_proj_weight))
        reference.in_proj_bias.copy_(torch.from_numpy(layer.in_proj_bias))
        reference.out_proj.weight.copy_(torch.from_numpy(layer.out_proj.weight))
        reference.out_proj.bias.copy_(torch.from_numpy(layer.out_proj.bias))
    x = torch.from_numpy(np.random.default_rng(seed).standard_normal((1, seq, d_model)))
    _out, expected = reference(x, x, x, average_attn_weights=False)  # (1, H, L, L)
    np.testing.assert_allclose(np.array(r["heads"]), expected[0].detach().numpy(), atol=1e-12)


def test_attention_json_only_adds_the_weights():
    args = ["attention", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "2", "--json"]
    plain = json.loads(run(*args).stdout)
    with_weights = json.loads(run(*args, "--weights", "--seed", "4").stdout)
    assert "weights" not in plain
    assert {k: v for k, v in with_weights.items() if k != "weights"} == plain
    heads = np.array(with_weights["weights"]["heads"])
    assert heads.shape == (2, 3, 3) and np.allclose(heads.sum(axis=-1), 1)


def test_library_errors_are_studytool_errors():
    with pytest.raises(StudytoolError):
        calc.mask()
    with pytest.raises(StudytoolError):
        calc.attention_weights(17, 8, 2, 0)

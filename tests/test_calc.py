"""`studytool calc`: the engine's numbers for a learner's input, checked against the notes, hand values and PyTorch."""

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from studytool import calc
from studytool.cli import app
from studytool.errors import StudytoolError

runner = CliRunner()


def run_json(*args: str):
    result = runner.invoke(app, ["calc", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # exactly one JSON document


# --- the notes' own numbers ----------------------------------------------------------------------


def test_layernorm_of_the_notes_vector():
    r = run_json("layernorm", "1", "2", "3", "4")
    assert r["mean"] == 2.5
    assert r["sigma"] == pytest.approx(1.118034, abs=1e-6)
    assert r["output"] == pytest.approx([-1.3416, -0.4472, 0.4472, 1.3416], abs=1e-4)


def test_layernorm_eps_goes_inside_the_square_root():
    r = run_json("layernorm", "2", "4", "6", "8", "--eps", "1")
    # variance 5, so (x - 5) / sqrt(5 + 1)
    assert r["output"] == pytest.approx([v / math.sqrt(6) for v in (-3, -1, 1, 3)])


def test_batchnorm_of_the_notes_batch():
    r = run_json("batchnorm", "1,10", "3,14")
    assert r["mean"] == [2, 12]
    assert r["sigma"] == [1, 2]
    np.testing.assert_allclose(r["output"], [[-1, -1], [1, 1]], atol=1e-4)


def test_softmax_takes_negative_numbers_as_values():
    r = run_json("softmax", "-1", "0", "2")
    total = math.exp(-1) + 1 + math.exp(2)
    assert r["output"] == pytest.approx([math.exp(-1) / total, 1 / total, math.exp(2) / total])
    assert r["sum"] == pytest.approx(1.0)


def test_a_double_dash_also_works_before_negative_numbers():
    result = runner.invoke(app, ["calc", "softmax", "--json", "--", "-1", "0", "2"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["input"] == [-1, 0, 2]


def test_a_quoted_batch_is_read_as_rows_too():
    r = run_json("batchnorm", "1,10 3,14")  # as the command's own help writes it
    assert r["mean"] == [2, 12]
    assert r["sigma"] == [1, 2]


def test_negative_entries_in_batchnorm_rows():
    r = run_json("batchnorm", "-1,2", "1,-2")
    np.testing.assert_allclose(r["output"], [[-1, 1], [1, -1]], atol=1e-4)


def test_pe_table_for_odd_d_matches_the_notes():
    r = run_json("pe", "--d-model", "3", "--positions", "4")
    notes = [
        [0.000000, 1.000000, 0.000000],
        [0.841471, 0.540302, 0.002154],
        [0.909297, -0.416147, 0.004309],
        [0.141120, -0.989992, 0.006463],
    ]
    np.testing.assert_allclose(r["table"], notes, atol=1e-6)


def test_params_under_the_notes_convention():
    r = run_json("params", "--d-model", "512", "--heads", "8", "--d-ff", "2048", "--layers", "6",
                 "--vocab", "30000", "--no-bias")
    notes = {row["part"]: row["notes"] for row in r["rows"]}
    assert r["conventions"] == ["notes"]
    assert notes["mha"] == 1_048_576
    assert notes["ffn"] == 2_097_152
    assert notes["encoder_layer"] == 3_145_728
    assert notes["encoder"] == 18_874_368
    assert notes["embedding"] == 15_360_000


def test_params_with_biases_count_like_torch_nn_transformer():
    r = run_json("params", "--d-model", "512", "--heads", "8", "--d-ff", "2048", "--layers", "6")
    full = {row["part"]: row["with_bias"] for row in r["rows"]}
    # hand-derived: 4d^2 + 4d; 2*d*d_ff + d_ff + d; 2d per LayerNorm
    assert full["mha"] == 4 * 512**2 + 4 * 512
    assert full["ffn"] == 2 * 512 * 2048 + 2048 + 512
    assert full["encoder_layer"] == full["mha"] + full["ffn"] + 2 * 1024
    assert full["transformer"] == 44_140_544  # torch.nn.Transformer() at its defaults
    assert "embedding" not in full  # no --vocab


def test_a_stack_is_shown_as_n_blocks_plus_the_final_layernorm():
    r = run_json("params", "--d-model", "512", "--heads", "8", "--d-ff", "2048", "--layers", "6")
    rows = {row["part"]: row for row in r["rows"]}
    assert rows["encoder_layers"]["with_bias"] == 6 * 3_152_384      # the 6 x block line, on its own
    assert rows["encoder_layers"]["notes"] == 6 * 3_145_728           # the notes' 18,874,368
    assert rows["encoder"]["with_bias"] == 6 * 3_152_384 + 2 * 512    # + the final LayerNorm's γ and β
    assert "final LayerNorm" in rows["encoder"]["label"] and "6" in rows["encoder"]["label"]
    assert rows["decoder"]["with_bias"] - rows["decoder_layers"]["with_bias"] == rows["layer_norm"]["with_bias"]
    table = runner.invoke(app, ["--lang", "en", "calc", "params", "--d-model", "512", "--heads", "8",
                                "--d-ff", "2048", "--layers", "6"]).stdout
    assert "18,914,304" in table and "18,915,328" in table and "final LayerNorm" in table


def test_params_agree_with_pytorch_modules():
    torch = pytest.importorskip("torch")

    def count(module):
        return sum(p.numel() for p in module.parameters())

    r = calc.params(d_model=64, heads=4, d_ff=96, layers=3)
    full = {row["part"]: row["with_bias"] for row in r["rows"]}
    nn = torch.nn
    assert full["mha"] == count(nn.MultiheadAttention(64, 4))
    assert full["encoder_layer"] == count(nn.TransformerEncoderLayer(64, 4, 96))
    assert full["decoder_layer"] == count(nn.TransformerDecoderLayer(64, 4, 96))
    model = nn.Transformer(64, 4, 3, 3, 96, batch_first=True)
    assert full["encoder"] == count(model.encoder)
    assert full["transformer"] == count(model)


def test_attention_chain_follows_the_notes():
    r = run_json("attention", "--batch", "32", "--seq", "10", "--d-model", "512", "--heads", "8")
    shapes = [tuple(step["shape"]) for step in r["steps"]]
    assert r["d_k"] == 64
    # the notes' chain: input, projection, split, transpose, scores, back, concat, final linear
    chain = [(32, 10, 512), (32, 10, 512), (32, 10, 8, 64), (32, 8, 10, 64), (32, 8, 10, 10), (32, 8, 10, 64),
             (32, 10, 512), (32, 10, 512)]
    rest = iter(shapes)
    assert all(shape in rest for shape in chain), shapes  # in this order
    assert shapes[-1] == (32, 10, 512)


def test_shapes_trace_the_whole_flow():
    r = run_json("shapes", "--batch", "32", "--seq", "10", "--d-model", "512", "--heads", "8",
                 "--vocab", "30000", "--tgt-seq", "4")
    shapes = [tuple(step["shape"]) for step in r["steps"]]
    parts = [step["part"] for step in r["steps"]]
    assert shapes[0] == (32, 10)                      # token ids
    assert (32, 10, 8, 64) in shapes                  # split heads
    assert (32, 8, 10, 10) in shapes                  # encoder self-attention scores
    assert (32, 8, 4, 4) in shapes                    # decoder masked self-attention scores
    assert (32, 8, 4, 10) in shapes                   # cross-attention: rectangular
    assert (32, 10, 2048) in shapes                   # FFN expands to 4 d_model
    assert shapes[-1] == (32, 4, 30000)               # softmax over the vocabulary
    assert parts.index("encoder") < parts.index("decoder") < parts.index("output")


@pytest.mark.parametrize("args", [
    ["layernorm", "1", "2", "3"],
    ["batchnorm", "1,10", "3,14"],
    ["softmax", "1", "2"],
    ["pe", "--d-model", "4", "--positions", "3"],
    ["attention", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "2"],
    ["params", "--d-model", "8", "--heads", "2", "--d-ff", "16", "--layers", "2", "--vocab", "10"],
    ["shapes", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "2", "--vocab", "10"],
    ["shapes", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "2", "--vocab", "10", "--tree"],
])
def test_every_subcommand_renders_a_table_and_prints_json(args):
    table = runner.invoke(app, ["calc", *args])
    assert table.exit_code == 0, table.output
    assert table.stdout.strip()
    assert isinstance(run_json(*args), dict)


# --- bad input: one line, exit 1, no traceback ---------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["layernorm"], "empty"),
    (["layernorm", "1", "abc"], "abc"),
    (["softmax", "nan"], "nan"),
    (["layernorm", "1", "2", "--eps", "-1"], "eps"),
    (["layernorm", "1", "2", "--eps", "nan"], "eps"),
    (["batchnorm", "1,2", "3"], "lengths"),
    (["batchnorm"], "empty"),
    (["batchnorm", "1,10,3,14"], "at least 2 samples"),
    (["pe", "--d-model", "0", "--positions", "3"], "d_model"),
    (["pe", "--d-model", "3", "--positions", "-2"], "positions"),
    (["attention", "--batch", "2", "--seq", "3", "--d-model", "10", "--heads", "3"], "divisible"),
    (["params", "--d-model", "-8", "--heads", "2", "--d-ff", "16", "--layers", "1"], "d_model"),
    (["params", "--d-model", "8", "--heads", "2", "--d-ff", "16", "--layers", "0"], "layers"),
    (["shapes", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "0", "--vocab", "10"], "heads"),
    (["shapes", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "2", "--vocab", "10",
      "--tgt-seq", "0"], "tgt_seq"),
    # past what NumPy can index even shape-only: the same line for every command that traces
    (["attention", "--batch", "1", "--seq", "99999999999"], "too large to trace"),
    (["attention", "--batch", "99999999999", "--seq", "99999999", "--d-model", "512"], "too large to trace"),
    (["attention", "--batch", "1", "--seq", "9" * 30], "calc takes numbers up to 1e15"),   # past every calc size
    (["shapes", "--batch", "1", "--seq", "2", "--vocab", "2", "--d-model", "99999999999", "--heads", "1"],
     "too large to trace"),
    (["attention", "--batch", "1", "--seq", "4", "--d-model", "2048", "--weights"], "--d-model 1024"),
    (["attention", "--batch", "1", "--seq", "4", "--d-model", "1024", "--heads", "1024", "--weights"],
     "--heads 16"),
])
def test_bad_input_is_one_line_and_exit_1(args, words):
    result = runner.invoke(app, ["--lang", "en", "calc", *args])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studytool: ")
    assert words in lines[0]


def test_library_errors_are_studytool_errors():
    with pytest.raises(StudytoolError):
        calc.params(d_model=10, heads=3, d_ff=40, layers=1)
    with pytest.raises(StudytoolError):
        calc.parse_vector(["1", "x"])


def test_vectors_may_be_typed_with_commas_full_width_commas_or_spaces():
    assert calc.parse_vector(["1,2", "3，4", "−5"]) == [1, 2, 3, 4, -5]


# --- properties ------------------------------------------------------------------------------------

finite = st.floats(-50, 50, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=1, max_size=8))
def test_softmax_is_a_distribution_that_keeps_the_order(xs):
    p = calc.softmax(xs)["output"]
    assert sum(p) == pytest.approx(1.0)
    assert all(0 <= v <= 1 for v in p)
    for i in range(len(xs)):
        for j in range(len(xs)):
            if xs[i] > xs[j]:
                assert p[i] >= p[j]


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=2, max_size=8).filter(lambda xs: max(xs) - min(xs) > 1e-3))
def test_layernorm_output_has_mean_0_and_variance_near_1(xs):
    r = calc.layernorm(xs)
    out = r["output"]
    assert sum(out) / len(out) == pytest.approx(0, abs=1e-9)
    assert r["sigma"] == pytest.approx(math.sqrt(sum((x - r["mean"]) ** 2 for x in xs) / len(xs)))
    variance = sum(v * v for v in out) / len(out)
    assert variance == pytest.approx(r["variance"] / (r["variance"] + 1e-5))


def test_layernorm_batchnorm_softmax_agree_with_pytorch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x = [0.5, -2.0, 3.25, 7.0, -1.5]
    assert calc.layernorm(x)["output"] == pytest.approx(F.layer_norm(torch.tensor(x, dtype=torch.float64), (5,)).tolist())
    assert calc.softmax(x)["output"] == pytest.approx(torch.softmax(torch.tensor(x, dtype=torch.float64), 0).tolist())
    rows = [[1.0, 10.0, -3.0], [3.0, 14.0, 2.0], [0.5, 9.0, 4.0]]
    expected = F.batch_norm(torch.tensor(rows, dtype=torch.float64), None, None, training=True)
    np.testing.assert_allclose(calc.batchnorm(rows)["output"], expected.numpy(), rtol=1e-12, atol=1e-12)


# --- the PE table fits the terminal ----------------------------------------------------------------


def render_pe_text(d_model: int, positions: int, width: int = 80) -> list[str]:
    from io import StringIO

    from rich.console import Console

    from studytool.cli.render.calc import render_pe

    out = StringIO()
    render_pe(calc.positional_encoding(d_model, positions), Console(file=out, width=width, color_system=None))
    return out.getvalue().splitlines()


def test_a_wide_pe_table_shows_its_first_and_last_dimensions_as_rows():
    lines = render_pe_text(512, 3)
    text = "\n".join(lines)
    assert all(len(line) <= 80 for line in lines)
    assert "0.841471" in text and "-0.416147" in text  # sin 1 at (pos 1, j 0); cos 2 at (pos 2, j 1)
    assert "511" in text and "⋮" in text
    assert "--json" in text  # says where the whole table is
    assert not re.search(r"\d…", text), text  # no number cut short


@pytest.mark.parametrize("width", [80, 60])
def test_many_positions_show_as_many_columns_as_fit(width):
    lines = render_pe_text(16, 30, width)
    text = "\n".join(lines)
    assert all(len(line) <= width for line in lines)
    assert not re.search(r"\d…", text), text
    assert "pos 0" in text and "pos 29" not in text and "--json" in text


def test_a_long_pe_table_prints_only_a_window():
    lines = render_pe_text(4, 100_000)
    assert len(lines) < 20
    assert "pos 99999" not in "\n".join(lines)


def test_a_small_pe_table_is_whole_and_says_nothing_about_json():
    text = "\n".join(render_pe_text(3, 4))
    assert "0.002154" in text and "-0.989992" in text  # the notes' odd-d table: PE(1, 2) and PE(3, 1)
    assert "--json" not in text


def test_a_pe_table_past_the_limit_is_refused_in_one_line():
    result = runner.invoke(app, ["--lang", "en", "calc", "pe", "--d-model", "512", "--positions", "100000"])
    assert result.exit_code == 1
    assert result.output.strip().startswith("studytool: ") and len(result.output.strip().splitlines()) == 1


# --- a shape is never split across lines ------------------------------------------------------------


def render_shapes_text(width: int, tree: bool) -> list[str]:
    from io import StringIO

    from rich.console import Console

    from studytool.cli.render.calc import render_shapes

    out = StringIO()
    result = calc.shapes(32, 10, 512, 8, 1000, None, 12)
    render_shapes(result, Console(file=out, width=width, color_system=None), tree=tree)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("tree", [True, False])
@pytest.mark.parametrize("width", [100, 60, 40])
def test_every_shape_stays_whole_on_one_line_however_narrow(width, tree):
    lines = render_shapes_text(width, tree)
    assert all(len(line) <= width for line in lines)
    # the long steps' shapes, written out by hand: [32, 8, 10, 10] is the scores of 8 heads over 10 source tokens
    for shape in ["[32, 8, 10, 10]", "[32, 12, 512]", "[32, 8, 12, 12]", "[32, 12, 1000]"]:
        assert any(shape in line for line in lines), (shape, lines)
    split = [line for line in lines if re.search(r"\[\d+(, \d+)*,?\s*(│|$)", line)]
    assert not split, split  # an opening bracket with no closing one on its line
    for fact in ["d_model = 512", "d_ff = 2048", "V = 1000"]:  # the header wraps between its facts
        assert any(fact in line for line in lines), (fact, lines)


# --- the notes' base model is the default ------------------------------------------------------------


def test_params_default_to_the_base_model_and_d_ff_follows_d_model():
    base = run_json("params", "--d-model", "512")
    assert (base["heads"], base["d_ff"], base["layers"]) == (8, 2048, 6)
    whole = {row["part"]: row for row in base["rows"]}["transformer"]
    assert whole["with_bias"] == 44_140_544  # nn.Transformer() at its defaults
    small = run_json("params", "--d-model", "64", "--heads", "4")
    assert small["d_ff"] == 256
    encoder_block = {row["part"]: row for row in small["rows"]}["encoder_layer"]
    assert encoder_block["notes"] == 4 * 64**2 + 2 * 64 * 256  # the notes' 4d² + 2·d·d_ff


def test_shapes_and_attention_default_to_d_model_512_and_8_heads():
    r = run_json("shapes", "--batch", "32", "--seq", "10", "--vocab", "1000")
    assert (r["d_model"], r["heads"], r["d_ff"]) == (512, 8, 2048)
    assert [32, 10, 8, 64] in [step["shape"] for step in r["steps"]]
    assert run_json("attention", "--batch", "32", "--seq", "10")["d_k"] == 64


@pytest.mark.parametrize("args", [["calc", "shapes", "--batch", "2", "--seq", "3", "--d-model", "8", "--heads", "2",
                                   "--vocab", "10"], ["calc", "shapes", "--batch", "2", "--seq", "3", "--d-model", "8",
                                   "--heads", "2", "--vocab", "10", "--tree"], ["calc", "attention", "--batch", "2",
                                                                                "--seq", "3"]])
def test_step_names_speak_the_interface_language(args):
    result = runner.invoke(app, ["--lang", "zh", *args], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "Q 投影" in result.stdout and "沿 key 维做 softmax" in result.stdout
    assert not any(english in result.stdout for english in ("projection", "softmax over", "split heads", "encoder"))

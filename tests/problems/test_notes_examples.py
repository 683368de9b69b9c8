"""The notes' own worked numbers, posed through the generators, come out as the notes print them."""

from __future__ import annotations

import numpy as np
import pytest

from studytool.problems import registry
from studytool.problems.answers import AnswerFormatError, format_answer, grade

NOTES_LN = "[-1.3416, -0.4472, 0.4472, 1.3416]"


def pose(name: str, **params):
    return registry.get(name).draw(np.random.default_rng(0), **params)


@pytest.mark.parametrize("x", [[1, 2, 3, 4], [2, 4, 6, 8]])
def test_layer_norm_of_the_notes_vectors(x):
    v = pose("layer_norm", x=x, ask="output")
    assert grade(v, NOTES_LN).correct
    with pytest.raises(AnswerFormatError, match="give 4 decimals"):  # the 30-second summary's 2 decimals: asked again
        grade(v, "[-1.34, -0.45, 0.45, 1.34]")


def test_layer_norm_statistics_of_the_notes():
    assert grade(pose("layer_norm", x=[1, 2, 3, 4], ask="mean"), "2.5").correct
    assert grade(pose("layer_norm", x=[1, 2, 3, 4], ask="sigma"), "1.118034").correct
    assert grade(pose("layer_norm", x=[2, 4, 6, 8], ask="mean"), "5").correct
    assert grade(pose("layer_norm", x=[2, 4, 6, 8], ask="sigma"), "2.2361").correct


def test_layer_norm_scaling_the_notes_vector_changes_nothing():
    v = pose("layer_norm", x=[1, 2, 3, 4], scale=2, shift=0, ask="invariance")
    assert "[2, 4, 6, 8]" in v.prompt
    assert grade(v, NOTES_LN).correct


def test_layer_norm_example_is_the_notes():
    v = registry.get("layer_norm").example()
    assert "[1, 2, 3, 4]" in v.prompt
    assert format_answer(v) == NOTES_LN


def test_batch_norm_of_the_notes_batch():
    x = [[1, 10], [3, 14]]
    assert grade(pose("batch_norm", x=x, ask="mean"), "[2, 12]").correct
    assert grade(pose("batch_norm", x=x, ask="std"), "[1, 2]").correct
    assert grade(pose("batch_norm", x=x, ask="output"), "[[-1, -1], [1, 1]]").correct
    assert grade(registry.get("batch_norm").example(), "[[-1, -1], [1, 1]]").correct


NOTES_PE_D3 = {
    0: "0.000000, 1.000000, 0.000000",
    1: "0.841471, 0.540302, 0.002154",
    2: "0.909297, -0.416147, 0.004309",
    3: "0.141120, -0.989992, 0.006463",
}


@pytest.mark.parametrize("pos", sorted(NOTES_PE_D3))
def test_positional_encoding_rows_of_the_notes(pos):
    assert grade(pose("positional_encoding", d_model=3, pos=pos, ask="row"), NOTES_PE_D3[pos]).correct


def test_positional_encoding_example_is_pos_1():
    assert grade(registry.get("positional_encoding").example(), NOTES_PE_D3[1]).correct


MHA_NOTES = {  # B=32, L=10, d_model=512, h=8 (section 3.3.2)
    "projection": "[32, 10, 512]",
    "split": "[32, 10, 8, 64]",
    "transpose": "[32, 8, 10, 64]",
    "scores": "[32, 8, 10, 10]",
    "concat": "[32, 10, 512]",
    "output": "[32, 10, 512]",
}


@pytest.mark.parametrize("ask", sorted(MHA_NOTES))
def test_multi_head_shapes_of_the_notes(ask):
    v = pose("multi_head_shapes", batch=32, seq_len=10, d_model=512, n_heads=8, ask=ask)
    assert grade(v, MHA_NOTES[ask]).correct


def test_encoder_self_test_question_1():
    """N=20, d=512, M=8: a 20x20 score matrix per head (8 of them), d_k = 64."""
    scores = pose("multi_head_shapes", batch=1, seq_len=20, d_model=512, n_heads=8, ask="scores")
    assert grade(scores, "1x8x20x20").correct
    assert grade(pose("attention_scores", d_model=512, n_heads=8, ask="d_k"), "64").correct
    assert grade(registry.get("attention_scores").example(), "64").correct


PARAMS_NOTES = [  # d=512, d_ff=2048, M=8 (P47 section 3) and V=30000 (section 3.1)
    ({"ask": "mha"}, "1,048,576"),
    ({"ask": "ffn"}, "2,097,152"),
    ({"ask": "encoder_layer", "convention": "notes"}, "3,145,728"),
    ({"ask": "stack", "convention": "notes", "num_layers": 6}, "18,874,368"),
    ({"ask": "embedding", "vocab": 30000}, "15,360,000"),
    ({"ask": "ffn_share"}, "2/3"),
]


@pytest.mark.parametrize(("params", "notes"), PARAMS_NOTES)
def test_param_counts_of_the_notes(params, notes):
    assert grade(pose("param_count", d_model=512, n_heads=8, d_ff=2048, **params), notes).correct


def test_param_count_example_is_one_encoder_block():
    assert grade(registry.get("param_count").example(), "3 145 728").correct


def test_full_convention_counts_like_pytorch():
    # nn.TransformerEncoderLayer(512, 8, 2048) has 3,152,384 parameters (weights, biases, two LayerNorms)
    v = pose("param_count", d_model=512, n_heads=8, d_ff=2048, ask="encoder_layer", convention="full")
    assert grade(v, "3152384").correct


def test_teacher_forcing_i_love_ai():
    v = registry.get("teacher_forcing").example()
    assert [v.options[i] for i in v.answer] == ["<s>", "我", "爱", "AI"]
    steps = {0: ["<s>"], 1: ["<s>", "我"], 2: ["<s>", "我", "爱"], 3: ["<s>", "我", "爱", "AI"]}
    predicts = {0: "我", 1: "爱", 2: "AI", 3: "<eos>"}
    for t in steps:
        seen = pose("teacher_forcing", target=["我", "爱", "AI"], source="I love AI", t=t, ask="visible")
        assert [seen.options[i] for i in seen.answer] == steps[t]
        predict = pose("teacher_forcing", target=["我", "爱", "AI"], source="I love AI", t=t, ask="predict")
        assert [predict.options[i] for i in predict.answer] == [predicts[t]]


def test_cross_attention_sources_of_the_notes():
    v = registry.get("cross_attention_shapes").example()
    (right,) = v.answer
    assert v.options[right].startswith("Q 取自目标侧解码器")


def test_ffn_expands_512_to_2048():
    v = registry.get("ffn_shapes").example()
    assert grade(v, "[32, 10, 2048]").correct
    assert grade(pose("ffn_shapes", batch=32, seq_len=10, d_model=512, ask="d_ff"), "2048").correct


@pytest.mark.parametrize("name", registry.names())
def test_every_example_poses_and_grades(name):
    v = registry.get(name).example()
    assert grade(v, format_answer(v)).correct
    assert v.solution

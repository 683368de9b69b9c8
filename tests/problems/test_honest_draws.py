"""Issue 12: a right answer means the learner knew it — draws are not degenerate, and rounding as the
worked solution shows is always right."""

from __future__ import annotations

import re

import numpy as np
import pytest

from studytool.problems import registry
from studytool.problems.answers import format_answer, grade, matches

SEEDS = range(300)


def draw(name: str, seed: int, **params):
    return registry.get(name).draw(np.random.default_rng(seed), **params)


def numbers(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"-?\d+\.\d+|-?\d+", text.replace("−", "-"))]


def rounded(values) -> str:
    """What a learner types: every entry rounded once, to 4 decimals."""
    return " ".join(f"{v:.4f}" for v in np.ravel(values))


def rows_after(step: str, marker: str) -> np.ndarray:
    """The matrix a step shows after `marker` (e.g. '：' or '= '), as displayed."""
    return np.array([numbers(row) for row in re.findall(r"\[([^\[\]]+)\]", step.split(marker, 1)[1])])


def test_batch_norm_defaults_to_at_least_three_samples_and_three_features():
    shapes = {np.array(draw("batch_norm", seed, ask="output").params["x"]).shape for seed in SEEDS}
    assert all(n >= 3 and d >= 3 for n, d in shapes)


@pytest.mark.parametrize(("name", "asks"), [
    ("batch_norm", ("mean", "std", "output", "ln_output")), ("layer_norm", ("mean", "sigma", "output", "invariance")),
    ("attention_scores", ("scores", "weights", "output")), ("padding_mask", ("matrix", "count")),
    ("positional_encoding", ("value", "row")), ("attention_cost", ("scores", "projection")),
    ("param_count", ("mha", "ffn", "encoder_layer", "stack", "ffn_share")),
])
def test_no_drawn_answer_is_also_a_known_wrong_methods_answer(name, asks):
    for ask in asks:
        for seed in range(150):
            variant = draw(name, seed, ask=ask)
            assert not any(matches(variant, hint.answer) for hint in variant.hints), (ask, seed, variant.prompt)


def test_batch_norm_never_equals_layer_norm_on_the_same_matrix():
    for seed in SEEDS:
        bn, ln = draw("batch_norm", seed, ask="output"), draw("batch_norm", seed, ask="ln_output")
        if bn.params["x"] == ln.params["x"]:
            assert not matches(bn, ln.answer)


def test_attention_values_have_distinct_rows():
    for seed in SEEDS:
        v = draw("attention_scores", seed, ask="output").params["v"]
        assert len({tuple(row) for row in v}) == len(v)


def test_the_ffn_share_varies_with_d_ff():
    shares = {format_answer(draw("param_count", seed, ask="ffn_share")) for seed in SEEDS}
    assert len(shares) >= 10


@pytest.mark.parametrize("params", [
    {"ask": "d_k"}, {"ask": "scale"}, {"ask": "crossover"}, {"ask": "mha"}, {"ask": "ffn"}, {"ask": "encoder_layer"},
    {"ask": "blocked"}, {"ask": "allowed"}, {"ask": "w1"}, {"ask": "ffn_share"},
])
def test_each_sub_question_gives_ten_distinct_answers_per_hundred_seeds(params):
    name = {"d_k": "attention_scores", "scale": "attention_scores", "crossover": "attention_cost",
            "blocked": "causal_mask", "allowed": "causal_mask", "w1": "ffn_shapes"}.get(params["ask"], "param_count")
    answers = {format_answer(draw(name, seed, **params)) for seed in range(100)}
    assert len(answers) >= 10, (name, params, answers)


def test_a_small_answer_space_is_declared_by_the_generator():
    assert registry.get("batch_norm").small_answer_space({"ask": "axis"})
    assert registry.get("batch_norm").small_answer_space({"ask": "output"}) is None


def test_worked_solutions_show_intermediates_to_six_decimals():
    steps = " ".join(draw("layer_norm", 3, ask="output", x=[1, 2, 3, 4]).solution)
    assert "1.118034" in steps and "-1.341641" in steps


# --- a learner who rounds only the final answer, working from the solution's own numbers ---------------


@pytest.mark.parametrize("seed", SEEDS)
def test_layer_norm_from_the_shown_mean_and_sigma(seed):
    variant = draw("layer_norm", seed, ask="output")
    m, sigma = numbers(variant.solution[0])[-1], numbers(variant.solution[3])[-1]
    x = np.array(variant.params["x"], dtype=float)
    assert grade(variant, rounded((x - m) / sigma)).correct


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_from_the_shown_exponentials_and_sum(seed):
    variant = draw("softmax", seed, ask="vector")
    exps = numbers(variant.solution[1].split("：", 1)[1])
    total = numbers(variant.solution[2])[-1]
    assert grade(variant, rounded(np.array(exps) / total)).correct


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_weights_from_the_shown_scaled_scores(seed):
    variant = draw("attention_scores", seed, ask="weights")
    scores = rows_after(variant.solution[1], "：")
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    assert grade(variant, rounded(weights / weights.sum(axis=1, keepdims=True))).correct


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_output_from_the_shown_weights(seed):
    variant = draw("attention_scores", seed, ask="output")
    weights = rows_after(variant.solution[2], "：")
    assert grade(variant, rounded(weights @ np.array(variant.params["v"], dtype=float))).correct


@pytest.mark.parametrize("seed", SEEDS)
def test_batch_norm_from_the_shown_column_statistics(seed):
    variant = draw("batch_norm", seed, ask="output")
    mean = np.array(numbers(variant.solution[0].split("=", 1)[1]))
    std = np.array(numbers(variant.solution[1].split("=", 1)[1]))
    x = np.array(variant.params["x"], dtype=float)
    assert grade(variant, rounded(((x - mean) / std)[variant.params["part"]])).correct   # one row of a 3 x 3 batch

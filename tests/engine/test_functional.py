"""The building blocks on the notes' own worked numbers and hand-derived values (no torch needed)."""

import warnings

import numpy as np
import pytest

from studytool.engine import (
    batch_norm,
    causal_mask,
    layer_norm,
    padding_mask,
    positional_encoding,
    scaled_dot_product_attention,
    softmax,
)

NOTES_LN = [-1.3416, -0.4472, 0.4472, 1.3416]


@pytest.mark.parametrize("x", [[1, 2, 3, 4], [2, 4, 6, 8]])
def test_layer_norm_of_the_notes_vectors(x):
    np.testing.assert_allclose(layer_norm(x), NOTES_LN, atol=5e-5)  # plain lists of ints are fine


def test_layer_norm_uses_biased_variance_and_eps_inside_the_root():
    # mean 2.5, biased variance 1.25: (x - 2.5) / sqrt(1.25 + 1e-5)
    expected = (np.array([1.0, 2, 3, 4]) - 2.5) / np.sqrt(1.25 + 1e-5)
    np.testing.assert_allclose(layer_norm(np.array([1.0, 2, 3, 4])), expected, rtol=1e-14)


def test_layer_norm_applies_gamma_and_beta_per_feature():
    out = layer_norm(np.array([[1.0, 3.0]]), weight=np.array([2.0, 10.0]), bias=np.array([0.5, -1.0]), eps=0.0)
    np.testing.assert_allclose(out, [[2 * -1 + 0.5, 10 * 1 - 1.0]])


def test_batch_norm_of_the_notes_example():
    out = batch_norm([[1, 10], [3, 14]], eps=0.0)
    np.testing.assert_allclose(out, [[-1, -1], [1, 1]])


def test_batch_norm_default_eps_is_inside_the_root():
    # feature 0 has variance 1: (1 - 2) / sqrt(1 + 1e-5)
    assert batch_norm(np.array([[1.0, 10.0], [3.0, 14.0]]))[0, 0] == pytest.approx(-1 / np.sqrt(1 + 1e-5))


def test_positional_encoding_table_for_odd_d_model():
    expected = [
        [0.0, 1.0, 0.0],
        [0.841471, 0.540302, 0.002154],
        [0.909297, -0.416147, 0.004309],
        [0.141120, -0.989992, 0.006463],
    ]
    np.testing.assert_allclose(positional_encoding(4, 3), expected, atol=5e-7)


def test_positional_encoding_pairs_sin_and_cos_on_the_same_frequency():
    pe = positional_encoding(50, 8)
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, rtol=1e-12)
    # column 2 and 3 use i = 1: frequency 1 / 10000^(2/8)
    np.testing.assert_allclose(pe[7, 2], np.sin(7 / 10000 ** 0.25))


def test_causal_mask_blocks_the_future():
    assert causal_mask(3).tolist() == [[False, True, True], [False, False, True], [False, False, False]]


def test_padding_mask_marks_positions_past_each_length():
    assert padding_mask([2, 4, 0], 4).tolist() == [
        [False, False, True, True],
        [False, False, False, False],
        [True, True, True, True],
    ]


@pytest.mark.parametrize("lengths", [[5], [-1], [[1, 2]]])
def test_padding_mask_rejects_impossible_lengths(lengths):
    with pytest.raises(ValueError):
        padding_mask(lengths, 4)


def test_softmax_of_a_hand_computed_row():
    e = np.exp([0.0, 1.0, 2.0])
    np.testing.assert_allclose(softmax(np.array([0.0, 1.0, 2.0])), e / e.sum())


def test_softmax_is_stable_for_huge_logits():
    np.testing.assert_allclose(softmax(np.array([1000.0, 1000.0])), [0.5, 0.5])


def test_attention_by_hand():
    q = np.array([[1.0, 0.0]])  # one query, d_k = 2
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[10.0, 0.0], [0.0, 10.0]])
    out, weights = scaled_dot_product_attention(q, k, v)
    a, b = np.exp(1 / np.sqrt(2)), 1.0  # scores 1/sqrt(2) and 0
    np.testing.assert_allclose(weights, [[a / (a + b), b / (a + b)]])
    np.testing.assert_allclose(out, [[10 * a / (a + b), 10 * b / (a + b)]])


def test_a_query_with_all_keys_blocked_gets_zero_weights_and_zero_output():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 4))
    mask = np.zeros((2, 3, 5), dtype=bool)
    mask[1, 2] = True  # batch 1, query 2: every key blocked
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert np.isfinite(out).all() and np.isfinite(weights).all()
    assert (weights[1, 2] == 0).all() and (out[1, 2] == 0).all()
    np.testing.assert_allclose(weights[0].sum(-1), 1.0)


def test_masked_keys_get_exactly_zero_weight():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 3))
    _, weights = scaled_dot_product_attention(x, x, x, causal_mask(4))
    assert (weights[causal_mask(4)] == 0).all()
    np.testing.assert_allclose(weights[0], [1, 0, 0, 0])


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: softmax(x),
        lambda x: layer_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32)),
        lambda x: batch_norm(x),
        lambda x: scaled_dot_product_attention(x, x, x, causal_mask(3))[0],
    ],
)
def test_float32_in_float32_out(fn):
    x = np.random.default_rng(2).normal(size=(3, 4)).astype(np.float32)
    assert fn(x).dtype == np.float32


def test_positional_encoding_in_float32_on_request():
    assert positional_encoding(3, 4, np.float32).dtype == np.float32

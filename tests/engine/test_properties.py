"""Properties that hold for any input (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from studytool.engine import (
    MetaArray,
    causal_mask,
    layer_norm,
    positional_encoding,
    rotary_embedding,
    scaled_dot_product_attention,
    softmax,
)

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
matrices = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(2, 8)), elements=finite)


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_layer_norm_rows_have_mean_0_and_variance_1(x):
    spread = x.std(axis=-1)
    x = x[spread > 1e-2]  # eps dominates a near-constant row
    out = layer_norm(x)
    np.testing.assert_allclose(out.mean(axis=-1), 0, atol=1e-9)
    var = x.var(axis=-1)
    np.testing.assert_allclose(out.var(axis=-1), var / (var + 1e-5), rtol=1e-9)


@settings(max_examples=60, deadline=None)
@given(matrices, finite)
def test_softmax_rows_sum_to_1_and_ignore_a_shift(x, shift):
    p = softmax(x)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-12)
    assert (p >= 0).all()
    np.testing.assert_allclose(softmax(x + shift), p, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.data())
def test_causal_mask_blocks_exactly_the_future(n, data):
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    assert causal_mask(n)[i, j] == (j > i)
    x = np.random.default_rng(n).normal(size=(n, 3))
    _, weights = scaled_dot_product_attention(x, x, x, causal_mask(n))
    assert (weights[i, i + 1 :] == 0).all() and (weights[i, : i + 1] > 0).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 20), st.integers(1, 17))
def test_adding_positional_encoding_changes_no_shape(batch, length, d_model):
    x = np.zeros((batch, length, d_model))
    pe = positional_encoding(length, d_model)
    assert (x + pe).shape == x.shape
    assert np.abs(pe).max() <= 1.0


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3), st.integers(1, 3), st.integers(1, 5), st.integers(1, 5),
    st.integers(1, 4), st.booleans(), st.sampled_from([np.float32, np.float64]),
)
def test_meta_arrays_predict_shape_and_dtype_of_attention(batch, heads, lq, lk, d_k, masked, dtype):
    rng = np.random.default_rng(0)
    q = rng.normal(size=(batch, heads, lq, d_k)).astype(dtype)
    k = rng.normal(size=(batch, heads, lk, d_k)).astype(dtype)
    mask = rng.random((batch, 1, lq, lk)) < 0.5 if masked else None
    real = scaled_dot_product_attention(q, k, k, mask)
    meta_q = MetaArray(q.shape, dtype)
    meta_k = MetaArray(k.shape, dtype)
    meta = scaled_dot_product_attention(meta_q, meta_k, meta_k, mask)
    assert [(m.shape, m.dtype) for m in meta] == [(r.shape, r.dtype) for r in real]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(0, 500), st.integers(0, 500), st.integers(1, 200), st.integers(0, 2**32 - 1))
def test_rope_scores_depend_only_on_the_offset(half_d, m, n, shift, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(1, 2 * half_d)), rng.normal(size=(1, 2 * half_d))

    def score(i, j):
        return float(rotary_embedding(q, [i])[0] @ rotary_embedding(k, [j])[0])

    assert abs(score(m + shift, n + shift) - score(m, n)) <= 1e-9 * (1 + np.abs(q).sum() * np.abs(k).sum())
    np.testing.assert_allclose(np.linalg.norm(rotary_embedding(q, [m])), np.linalg.norm(q), rtol=1e-12)

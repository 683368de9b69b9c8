"""Online-softmax attention equals full attention: torch's and the engine's, with masks, over any block size."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.engine import (
    SoftmaxStats,
    block_stats,
    causal_mask,
    merge_stats,
    online_softmax_attention,
    padding_mask,
    scaled_dot_product_attention,
    stats_output,
)

TOL = {np.float32: 1e-6, np.float64: 1e-12}


def qkv(rng, lead, length_q, length_k, d_k, d_v, dtype):
    q = rng.standard_normal((*lead, length_q, d_k)).astype(dtype)
    k = rng.standard_normal((*lead, length_k, d_k)).astype(dtype)
    v = rng.standard_normal((*lead, length_k, d_v)).astype(dtype)
    return q, k, v


def test_merge_of_two_blocks_worked_by_hand():
    # Block a: scores [0, 0] on values [1, 0], [0, 1] -> m = 0, l = 1 + 1 = 2, o = [1, 1].
    # Block b: score ln 2 on value [2, 2]            -> m = ln 2, l = 1, o = [2, 2].
    # All three keys: weights e^0 : e^0 : e^ln2 = 1 : 1 : 2, so out = ([1,0] + [0,1] + 2 [2,2]) / 4 = [1.25, 1.25].
    a = SoftmaxStats(0.0, 2.0, [1.0, 1.0])
    b = SoftmaxStats(math.log(2), 1.0, [2.0, 2.0])
    merged = merge_stats(a, b)
    assert merged.m == pytest.approx(math.log(2))
    assert merged.l == pytest.approx(2.0)  # 2 e^(0 - ln 2) + 1
    np.testing.assert_allclose(merged.o, [2.5, 2.5])  # [1, 1] e^(-ln 2) + [2, 2]
    np.testing.assert_allclose(stats_output(merged), [1.25, 1.25])
    np.testing.assert_allclose(stats_output(merge_stats(b, a)), [1.25, 1.25])  # order does not matter


def test_merging_with_an_empty_block_changes_nothing_and_two_empty_blocks_give_zeros():
    empty = SoftmaxStats(-np.inf, 0.0, [0.0, 0.0])
    a = SoftmaxStats(1.5, 3.0, [0.3, -0.6])
    merged = merge_stats(a, empty)
    assert (merged.m, merged.l) == (1.5, 3.0)
    np.testing.assert_array_equal(merged.o, [0.3, -0.6])
    both = merge_stats(empty, empty)
    assert both.m == -np.inf and both.l == 0
    np.testing.assert_array_equal(stats_output(both), [0.0, 0.0])  # zeros, not NaN


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_stats_of_all_keys_are_the_softmax_statistics(dtype):
    rng = np.random.default_rng(3)
    q, k, v = qkv(rng, (2,), 5, 9, 4, 3, dtype)
    stats = block_stats(q, k, v)
    s = q.astype(np.float64) @ k.astype(np.float64).swapaxes(-1, -2) / 2.0  # sqrt(d_k) = 2
    np.testing.assert_allclose(stats.m, s.max(axis=-1, keepdims=True), rtol=TOL[dtype])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(stats.l, e.sum(axis=-1, keepdims=True), rtol=10 * TOL[dtype])
    np.testing.assert_allclose(stats.o, e @ v, rtol=10 * TOL[dtype], atol=10 * TOL[dtype])


def test_a_key_block_size_below_one_is_refused():
    q, k, v = qkv(np.random.default_rng(0), (), 2, 3, 2, 2, np.float64)
    with pytest.raises(ValueError, match="block_size"):
        online_softmax_attention(q, k, v, block_size=0)


masks = st.sampled_from(["none", "causal", "padding", "random"])


def make_mask(kind, rng, batch, length_q, length_k):
    """A bool mask (True = blocked) broadcastable to (B, H, Lq, Lk); "random" blocks some rows entirely."""
    if kind == "causal":
        return causal_mask(max(length_q, length_k))[:length_q, :length_k]
    if kind == "padding":  # (B, Lk) -> (B, 1, 1, Lk), as MultiHeadAttention merges it; a length may be 0
        lengths = rng.integers(0, length_k + 1, size=batch)
        return padding_mask(lengths.tolist(), length_k)[:, None, None, :]
    if kind == "random":
        return rng.random((batch, 1, length_q, length_k)) < 0.6
    return None


@settings(max_examples=80, deadline=None)
@given(
    batch=st.integers(1, 3), heads=st.integers(1, 3), length_q=st.integers(1, 40), length_k=st.integers(1, 70),
    d_k=st.integers(1, 16), d_v=st.integers(1, 9), block=st.integers(1, 80), kind=masks,
    dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**32 - 1),
)
def test_equal_to_the_engines_full_attention(batch, heads, length_q, length_k, d_k, d_v, block, kind, dtype, seed):
    rng = np.random.default_rng(seed)
    q, k, v = qkv(rng, (batch, heads), length_q, length_k, d_k, d_v, dtype)
    mask = make_mask(kind, rng, batch, length_q, length_k)
    full, _weights = scaled_dot_product_attention(q, k, v, mask)
    ours = online_softmax_attention(q, k, v, mask, block_size=block)
    assert ours.shape == full.shape and ours.dtype == np.dtype(dtype)
    assert np.isfinite(ours).all()
    np.testing.assert_allclose(ours, full, rtol=0, atol=TOL[dtype])


def test_a_fully_blocked_row_is_zeros_as_in_the_full_path():
    rng = np.random.default_rng(1)
    q, k, v = qkv(rng, (2, 2), 4, 6, 3, 5, np.float32)
    mask = np.zeros((2, 1, 4, 6), dtype=bool)
    mask[0, :, 2] = True  # query 2 of the first sentence sees no key
    mask[1] = True  # the second sentence sees nothing at all
    ours = online_softmax_attention(q, k, v, mask, block_size=4)
    np.testing.assert_array_equal(ours[0, :, 2], 0.0)
    np.testing.assert_array_equal(ours[1], 0.0)
    np.testing.assert_allclose(ours, scaled_dot_product_attention(q, k, v, mask)[0], atol=1e-6)


torch_cases = [
    ("none", np.float32), ("causal", np.float32), ("padding", np.float32),
    ("none", np.float64), ("causal", np.float64), ("padding", np.float64),
]


@pytest.mark.parametrize(("kind", "dtype"), torch_cases)
@pytest.mark.parametrize("block", [1, 16, 50, 128])
def test_equal_to_torch_scaled_dot_product_attention(kind, dtype, block):
    torch = pytest.importorskip("torch", reason="torch is the oracle of the engine's attention")
    rng = np.random.default_rng(7)
    batch, heads, length = 3, 4, 100
    q, k, v = qkv(rng, (batch, heads), length, length, 16, 16, dtype)
    mask = make_mask(kind, rng, batch, length, length)
    if kind == "padding":  # torch's math path gives NaN on a row with no key: keep at least one key per sentence
        mask = padding_mask([100, 37, 1], length)[:, None, None, :]
    ours = online_softmax_attention(q, k, v, mask, block_size=block)
    allowed = None if mask is None else torch.from_numpy(~np.ascontiguousarray(mask))  # torch: True = may attend
    theirs = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), attn_mask=allowed
    ).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL[dtype])


def test_the_online_path_never_holds_the_whole_score_matrix():
    import tracemalloc

    rng = np.random.default_rng(2)
    q, k, v = qkv(rng, (1,), 1024, 1024, 16, 16, np.float32)
    mask = causal_mask(1024)
    whole_scores = 1024 * 1024 * 4  # bytes of the (Lq, Lk) float32 matrix the full path makes
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        online_softmax_attention(q, k, v, mask, block_size=64)
        online_peak = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        scaled_dot_product_attention(q, k, v, mask)
        full_peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert full_peak >= whole_scores  # NumPy reports its buffers to tracemalloc: the measure sees the matrix
    assert online_peak < whole_scores / 4  # one (Lq, 64) block of scores, the running statistics, the output

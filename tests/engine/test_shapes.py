"""trace_shapes: the data flow of the whole Transformer, step by step."""

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.engine import ShapeStep, trace_shapes
import studytool.engine.shapes as shapes_module


def shape_of(steps, name):
    found = [s.shape for s in steps if s.name == name]
    assert found, f"no step named {name!r}"
    return found[0]


def test_the_issue_example_b32_l10_d512_h8_v30000():
    steps = trace_shapes(32, 10, 512, 8, 30000)
    assert steps[0] == ShapeStep("source token ids", (32, 10), "input")
    encoder = [s.shape for s in steps if s.part == "encoder"]
    # [32,10] -> [32,10,512] -> [32,10,8,64] -> [32,8,10,64] -> [32,8,10,10] -> ... -> [32,10,2048]
    chain = [(32, 10, 512), (32, 10, 8, 64), (32, 8, 10, 64), (32, 8, 10, 10), (32, 10, 2048)]
    positions = [encoder.index(shape) for shape in chain]
    assert positions == sorted(positions)
    assert steps[-2] == ShapeStep("linear to vocabulary (logits)", (32, 10, 30000), "output")
    assert steps[-1].name == "softmax over vocabulary" and steps[-1].shape == (32, 10, 30000)


def test_the_steps_come_in_data_flow_order():
    names = [s.name for s in trace_shapes(2, 5, 16, 4, 50, d_ff=32)]
    expected_order = [
        "source token ids",
        "source embedding",
        "source + positional encoding",
        "self-attention: Q projection",
        "self-attention: split heads Q",
        "self-attention: transpose heads Q",
        "self-attention: attention scores Q·K^T/sqrt(d_k)",
        "self-attention: softmax over keys",
        "self-attention: weighted sum of V",
        "self-attention: concat heads",
        "self-attention: output projection W_O",
        "self-attention: add & norm",
        "FFN: FFN expand",
        "FFN: ReLU",
        "FFN: FFN contract",
        "FFN: add & norm",
        "masked self-attention: attention scores Q·K^T/sqrt(d_k)",
        "cross-attention: attention scores Q·K^T/sqrt(d_k)",
        "linear to vocabulary (logits)",
        "softmax over vocabulary",
    ]
    positions = [names.index(name) for name in expected_order]
    assert positions == sorted(positions)
    parts = [s.part for s in trace_shapes(2, 5, 16, 4, 50, d_ff=32)]
    assert parts == sorted(parts, key=["input", "encoder", "decoder", "output"].index)


def test_cross_attention_scores_are_rectangular():
    steps = trace_shapes(3, 7, 16, 4, 50, d_ff=32, tgt_len=5)
    assert shape_of(steps, "masked self-attention: attention scores Q·K^T/sqrt(d_k)") == (3, 4, 5, 5)
    assert shape_of(steps, "cross-attention: attention scores Q·K^T/sqrt(d_k)") == (3, 4, 5, 7)
    assert shape_of(steps, "cross-attention: K projection") == (3, 7, 16)
    assert shape_of(steps, "cross-attention: weighted sum of V") == (3, 4, 5, 4)
    assert steps[-1].shape == (3, 5, 50)


def test_huge_sizes_are_traced_without_allocating():
    tracemalloc.start()
    try:
        steps = trace_shapes(8, 8192, 4096, 32, 50_000, d_ff=16384)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # the scores alone would be 8*32*8192*8192 floats = 128 GiB
    assert shape_of(steps, "self-attention: attention scores Q·K^T/sqrt(d_k)") == (8, 32, 8192, 8192)
    assert shape_of(steps, "FFN: FFN expand") == (8, 8192, 16384)
    assert steps[-1].shape == (8, 8192, 50_000)


def test_real_and_shape_only_runs_record_the_same_steps(monkeypatch):
    real = trace_shapes(2, 5, 12, 3, 40, d_ff=20, tgt_len=4)
    monkeypatch.setattr(shapes_module, "_REAL_LIMIT", 0)  # force the shape-only path
    assert trace_shapes(2, 5, 12, 3, 40, d_ff=20, tgt_len=4) == real


@pytest.mark.parametrize(
    "args", [(0, 5, 16, 4, 50), (2, 5, 18, 4, 50), (2, 5, 16, 4, -1), (2, 5.5, 16, 4, 50)]
)
def test_bad_sizes_are_value_errors(args):
    with pytest.raises(ValueError):
        trace_shapes(*args)


# --- sizes past what NumPy can index -------------------------------------------------------------------


def test_the_largest_array_numpy_can_index_is_traced_and_one_more_element_is_refused():
    # with L = H = d = d_ff = V = 1 the largest array is the fused Q, K, V projection (B, 1, 3)
    batch = shapes_module.MAX_ELEMENTS // 3
    steps = trace_shapes(batch, 1, 1, 1, 1, d_ff=1)
    assert shape_of(steps, "softmax over vocabulary") == (batch, 1, 1)
    with pytest.raises(shapes_module.TooLargeToTrace):
        trace_shapes(batch + 1, 1, 1, 1, 1, d_ff=1)


def test_a_weight_matrix_past_the_limit_is_refused_though_no_activation_is():
    # the fused (3d, d) projection of d = 2 x 10^9 has 1.2 x 10^19 elements; one token's activation 6 x 10^9
    with pytest.raises(shapes_module.TooLargeToTrace):
        trace_shapes(1, 1, 2 * 10**9, 1, 1, d_ff=1)


@settings(max_examples=200, deadline=None)
@given(batch=st.integers(1, 10**12), length=st.integers(1, 10**12), d_k=st.integers(1, 10**7),
       heads=st.integers(1, 64), vocab=st.integers(1, 10**12), d_ff=st.integers(1, 10**12))
def test_any_size_is_traced_or_refused_as_too_large_and_nothing_else(batch, length, d_k, heads, vocab, d_ff):
    d_model = d_k * heads
    try:
        steps = trace_shapes(batch, length, d_model, heads, vocab, d_ff=d_ff)
    except shapes_module.TooLargeToTrace:
        # refused only when an array the trace makes really is past the limit
        assert max(batch * heads * length**2, batch * length * max(3 * d_model, d_ff, vocab), vocab * d_model,
                   d_model * max(3 * d_model, d_ff)) > shapes_module.MAX_ELEMENTS
        return
    assert shape_of(steps, "softmax over vocabulary") == (batch, length, vocab)

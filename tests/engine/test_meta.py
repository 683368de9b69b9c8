"""MetaArray answers like NumPy would, without data."""

import numpy as np
import pytest

from studytool.engine import MetaArray, causal_mask, positional_encoding


def meta(a):
    return MetaArray(a.shape, a.dtype)


CASES = [
    lambda a, b: a @ b.T,
    lambda a, b: (a + 1.0) * 2,
    lambda a, b: np.maximum(a, 0.0),
    lambda a, b: a.reshape(3, 2, -1).transpose(1, 0, 2),
    lambda a, b: a.swapaxes(0, 1),
    lambda a, b: a.mean(axis=-1, keepdims=True),
    lambda a, b: a.max(axis=0),
    lambda a, b: a[:, 1:3],
    lambda a, b: np.where(a > 0, a, -np.inf),
    lambda a, b: np.exp(a - a.max(axis=-1, keepdims=True)),
]


@pytest.mark.parametrize("op", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_operations_match_numpy(op, dtype):
    a = np.arange(24, dtype=dtype).reshape(6, 4)
    b = np.ones((5, 4), dtype=dtype)
    real, shaped = op(a, b), op(meta(a), meta(b))
    assert (shaped.shape, shaped.dtype) == (real.shape, real.dtype)


def test_gather_and_like_constructors():
    table = MetaArray((50_000, 4096))
    assert table[MetaArray((8, 8192), np.int64)].shape == (8, 8192, 4096)
    like = MetaArray((1,))
    assert positional_encoding(8192, 4096, np.float32, like=like).shape == (8192, 4096)
    assert causal_mask(8192, like=like).dtype == np.bool_


def test_mismatches_are_still_errors():
    with pytest.raises(ValueError):
        MetaArray((2, 3)) @ MetaArray((4, 5))
    with pytest.raises(ValueError):
        MetaArray((2, 3)) + MetaArray((4, 5))
    with pytest.raises(ValueError):
        MetaArray((2, 3)).reshape(4, 2)


def test_indexing_is_bounded_by_elements_like_every_other_operation_not_by_float64_bytes():
    # 2^62 float64 elements would be 2^65 bytes: the zero-stride view NumPy answers indexing on must not care
    big = MetaArray((2**31, 2**31), np.float64)
    assert (big + 1.0).shape == (2**31, 2**31)
    assert big[:, :5].shape == (2**31, 5)

"""RMSNorm, SwiGLU and RoPE agree with PyTorch (or a reference written here): float64 <= 1e-10, float32 <= 1e-5."""

import numpy as np
import pytest

from studytool.engine import RMSNorm, SwiGLUFeedForward, count_params, rms_norm, rotary_embedding, silu

torch = pytest.importorskip("torch")
F = torch.nn.functional

TOL = {np.float64: 1e-10, np.float32: 1e-5}
TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}
DTYPES = [np.float64, np.float32]


def randn(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


def assert_close(ours, theirs, dtype):
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else theirs
    assert ours.shape == theirs.shape
    assert ours.dtype == np.dtype(dtype)
    assert np.abs(ours - theirs).max() <= TOL[dtype], np.abs(ours - theirs).max()


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_function_with_torchs_default_eps_and_an_explicit_one(dtype):
    rng = np.random.default_rng(0)
    x, w = randn(rng, 2, 5, 6, dtype=dtype) * 3, randn(rng, 6, dtype=dtype)
    assert_close(rms_norm(x, w), F.rms_norm(t(x), (6,), t(w)), dtype)  # eps=None on both sides
    assert_close(rms_norm(x, eps=1e-6), F.rms_norm(t(x), (6,), eps=1e-6), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_eps_default_is_the_dtypes_epsilon_as_in_torch(dtype):
    x = np.full((1, 4), 1e-5, dtype=dtype)  # tiny inputs: eps decides the result
    theirs = torch.nn.RMSNorm(4, dtype=TORCH_DTYPE[dtype])
    with torch.inference_mode():
        assert_close(RMSNorm(4, dtype=dtype)(x), theirs(t(x)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_module_loads_torch_weights(dtype):
    theirs = torch.nn.RMSNorm(8, eps=1e-5, dtype=TORCH_DTYPE[dtype])
    with torch.no_grad():
        theirs.weight.uniform_(-2, 2)
    ours = RMSNorm(8, eps=1e-5, dtype=dtype)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = randn(np.random.default_rng(1), 3, 4, 8, dtype=dtype)
    with torch.inference_mode():
        assert_close(ours(x), theirs(t(x)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_silu(dtype):
    x = np.concatenate([randn(np.random.default_rng(2), 50, dtype=dtype) * 10, np.array([-800.0, 800.0], dtype)])
    assert_close(silu(x), F.silu(t(x)), dtype)


class TorchSwiGLU(torch.nn.Module):
    """The reference: w2(silu(w1 x) * w3 x) from nn.Linear and F.silu, LLaMA's names."""

    def __init__(self, d_model, d_ff, bias, dtype):
        super().__init__()
        self.w1 = torch.nn.Linear(d_model, d_ff, bias=bias, dtype=dtype)
        self.w2 = torch.nn.Linear(d_ff, d_model, bias=bias, dtype=dtype)
        self.w3 = torch.nn.Linear(d_model, d_ff, bias=bias, dtype=dtype)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [False, True])
def test_swiglu_feed_forward(dtype, bias):
    theirs = TorchSwiGLU(12, 32, bias, TORCH_DTYPE[dtype])
    ours = SwiGLUFeedForward(12, 32, bias=bias, dtype=dtype)
    shapes = {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert {k: v.shape for k, v in ours.state_dict().items()} == shapes
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = randn(np.random.default_rng(3), 2, 5, 12, dtype=dtype)
    with torch.inference_mode():
        assert_close(ours(x), theirs(t(x)), dtype)
    unique = sum(p.numel() for p in theirs.parameters())
    assert ours.num_params() == count_params("swiglu_ffn", d_model=12, d_ff=32, bias=bias) == unique


def test_swiglu_at_eight_thirds_d_keeps_the_relu_ffn_count():
    d = 768  # 8/3 * 768 = 2048 exactly
    swiglu = count_params("swiglu_ffn", d_model=d, d_ff=8 * d // 3, bias=False)
    assert swiglu == count_params("ffn", d_model=d, bias=False) == 2 * 768 * 3072


def rope_reference(x, positions, base=10000.0):
    """Meta's LLaMA apply_rotary_emb: adjacent pairs as complex numbers times e^{i m theta_k}."""
    x = torch.from_numpy(np.ascontiguousarray(x))
    d = x.shape[-1]
    theta = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))  # (d/2,)
    angles = torch.outer(torch.as_tensor(positions, dtype=torch.float64), theta)  # (L, d/2)
    rotation = torch.polar(torch.ones_like(angles), angles)
    complex_dtype = torch.complex128 if x.dtype == torch.float64 else torch.complex64
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(pairs * rotation.to(complex_dtype)).flatten(-2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_rotary_embedding_matches_the_complex_number_form(dtype, base):
    x = randn(np.random.default_rng(4), 2, 3, 7, 16, dtype=dtype)  # (B, H, L, d_k)
    positions = [0, 1, 2, 5, 9, 100, 2047]
    assert_close(rotary_embedding(x, positions, base=base), rope_reference(x, positions, base), dtype)


def test_rotary_embedding_rotates_pairs_by_position_times_frequency():
    x = np.array([[1.0, 0.0, 1.0, 0.0]])  # one token, pairs (x0, x1) and (x2, x3)
    out = rotary_embedding(x, [3])
    # pair 0 turns by 3 * 10000^0 = 3 rad, pair 1 by 3 * 10000^(-2/4) = 0.03 rad
    np.testing.assert_allclose(out, [[np.cos(3), np.sin(3), np.cos(0.03), np.sin(0.03)]], rtol=1e-14)
    np.testing.assert_array_equal(rotary_embedding(x, [0]), x)  # position 0 is not rotated


def test_rotary_embedding_keeps_norms_and_the_dot_product_sees_only_the_offset():
    rng = np.random.default_rng(5)
    q, k = randn(rng, 1, 32), randn(rng, 1, 32)
    np.testing.assert_allclose(np.linalg.norm(rotary_embedding(q, [17])), np.linalg.norm(q), rtol=1e-13)

    def score(m, n):
        return float(rotary_embedding(q, [m])[0] @ rotary_embedding(k, [n])[0])

    for m, n in [(5, 2), (0, 0), (3, 11)]:
        for shift in (1, 40, 1000):
            assert score(m + shift, n + shift) == pytest.approx(score(m, n), abs=1e-10)
    assert score(5, 2) != pytest.approx(score(5, 3), abs=1e-3)  # a different offset does change it


def test_rotary_embedding_takes_per_batch_positions_and_rejects_odd_d():
    x = randn(np.random.default_rng(6), 2, 3, 4)
    per_batch = rotary_embedding(x, [[0, 1, 2], [4, 5, 6]])  # (B, L)
    np.testing.assert_allclose(per_batch[1], rotary_embedding(x[1], [4, 5, 6]))
    with pytest.raises(ValueError, match="even"):
        rotary_embedding(np.zeros((2, 3)), [0, 1])

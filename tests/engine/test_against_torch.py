"""The engine agrees with PyTorch: float64 max |diff| <= 1e-10, float32 <= 1e-5, weights loaded unchanged."""

import numpy as np
import pytest

from studytool.engine import (
    DecoderLayer,
    Encoder,
    EncoderLayer,
    FeedForward,
    MultiHeadAttention,
    Transformer,
    batch_norm,
    causal_mask,
    layer_norm,
    padding_mask,
    positional_encoding,
    scaled_dot_product_attention,
    softmax,
)

torch = pytest.importorskip("torch")
F = torch.nn.functional

pytestmark = [  # PyTorch's notes about its own nested-tensor fast path
    pytest.mark.filterwarnings("ignore:.*nested tensor:UserWarning"),
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"),
]

TOL = {np.float64: 1e-10, np.float32: 1e-5}
TORCH_DTYPE = {np.float64: torch.float64, np.float32: torch.float32}
DTYPES = [np.float64, np.float32]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def randn(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


def weights_of(module):
    return {key: value.detach().numpy() for key, value in module.state_dict().items()}


def assert_close(ours, theirs, dtype, where=None):
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else theirs
    assert ours.shape == theirs.shape
    assert ours.dtype == np.dtype(dtype)
    diff = np.abs(ours - theirs)
    if where is not None:
        diff = diff[where]
    assert diff.max() <= TOL[dtype], diff.max()


def lengths_mask(lengths, max_len):
    """Our padding_mask, cross-checked against the same mask built the PyTorch way."""
    mask = padding_mask(lengths, max_len)
    theirs = torch.arange(max_len)[None, :] >= torch.tensor(lengths)[:, None]
    assert (mask == theirs.numpy()).all()
    return mask


# --- functions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax(dtype):
    x = randn(np.random.default_rng(0), 3, 4, 7, dtype=dtype) * 5
    for axis in (-1, 0, 1):
        assert_close(softmax(x, axis=axis), torch.softmax(t(x), dim=axis), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm(dtype):
    rng = np.random.default_rng(1)
    x, w, b = randn(rng, 2, 5, 6, dtype=dtype), randn(rng, 6, dtype=dtype), randn(rng, 6, dtype=dtype)
    assert_close(layer_norm(x, w, b, eps=1e-6), F.layer_norm(t(x), (6,), t(w), t(b), eps=1e-6), dtype)
    assert_close(layer_norm(x), F.layer_norm(t(x), (6,)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_is_training_mode_batchnorm(dtype):
    x = randn(np.random.default_rng(2), 8, 5, dtype=dtype)
    ref = F.batch_norm(t(x), None, None, training=True, eps=1e-5)
    assert_close(batch_norm(x), ref, dtype)


def test_positional_encoding_matches_the_usual_pytorch_recipe():
    length, d_model = 20, 16  # the even-d recipe from the PyTorch tutorial
    position = torch.arange(length, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-np.log(10000.0) / d_model))
    pe = torch.zeros(length, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    assert_close(positional_encoding(length, d_model), pe, np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scaled_dot_product_attention_with_a_mask(dtype):
    rng = np.random.default_rng(3)
    q, k, v = randn(rng, 2, 3, 4, 5, dtype=dtype), randn(rng, 2, 3, 6, 5, dtype=dtype), randn(rng, 2, 3, 6, 7, dtype=dtype)
    mask = rng.random((2, 1, 4, 6)) < 0.4
    mask[..., 0] = False  # keep one key per query: PyTorch gives NaN for a fully blocked row
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert_close(out, F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(~mask)), dtype)  # torch: True = keep
    scores = torch.matmul(t(q), t(k).transpose(-1, -2)) / np.sqrt(5)
    assert_close(weights, torch.softmax(scores.masked_fill(t(mask), float("-inf")), dim=-1), dtype)


# --- modules -----------------------------------------------------------------------------------


def torch_mha(d, h, dtype, bias=True):
    return torch.nn.MultiheadAttention(d, h, bias=bias, batch_first=True, dtype=TORCH_DTYPE[dtype]).eval()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("d, h", [(12, 4), (15, 5), (8, 1)])  # d_k = 3 and 3 (odd), one head
def test_multi_head_self_attention_with_padding_and_causal_masks(dtype, d, h):
    rng = np.random.default_rng(4)
    theirs = torch_mha(d, h, dtype)
    ours = MultiHeadAttention(d, h, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    x = randn(rng, 3, 5, d, dtype=dtype)
    kpm = lengths_mask([5, 3, 1], 5)
    out, weights = ours(x, x, x, key_padding_mask=kpm, attn_mask=causal_mask(5))
    with torch.inference_mode():
        ref, ref_w = theirs(t(x), t(x), t(x), key_padding_mask=t(kpm), attn_mask=t(causal_mask(5)),
                            average_attn_weights=False)
    assert_close(out, ref, dtype)
    assert_close(weights, ref_w, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
def test_cross_attention_with_lq_different_from_lk(dtype, bias):
    rng = np.random.default_rng(5)
    theirs = torch_mha(12, 3, dtype, bias=bias)
    ours = MultiHeadAttention(12, 3, bias=bias, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    query, memory, value = randn(rng, 2, 3, 12, dtype=dtype), randn(rng, 2, 7, 12, dtype=dtype), randn(rng, 2, 7, 12, dtype=dtype)
    kpm = lengths_mask([7, 4], 7)
    with torch.inference_mode():
        for key, val in ((memory, memory), (memory, value)):  # shared K/V source, then three sources
            out, weights = ours(query, key, val, key_padding_mask=kpm)
            ref, ref_w = theirs(t(query), t(key), t(val), key_padding_mask=t(kpm), average_attn_weights=False)
            assert weights.shape == (2, 3, 3, 7)
            assert_close(out, ref, dtype)
            assert_close(weights, ref_w, dtype)


def test_per_head_attn_mask_in_pytorch_layout():
    rng = np.random.default_rng(6)
    theirs, ours = torch_mha(8, 2, np.float64), MultiHeadAttention(8, 2)
    ours.load_state_dict(weights_of(theirs))
    x = randn(rng, 2, 4, 8)
    mask = rng.random((2 * 2, 4, 4)) < 0.3  # (B * H, Lq, Lk)
    mask[..., 0] = False
    with torch.inference_mode():
        ref, _ = theirs(t(x), t(x), t(x), attn_mask=t(mask))
    assert_close(ours(x, x, x, attn_mask=mask)[0], ref, np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
def test_feed_forward(dtype):
    theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=TORCH_DTYPE[dtype])
    ours = FeedForward(8, 16, dtype=dtype)
    ours.load_state_dict({k: v for k, v in weights_of(theirs).items() if k.startswith("linear")})
    x = randn(np.random.default_rng(7), 2, 3, 8, dtype=dtype)
    with torch.inference_mode():
        ref = theirs.linear2(torch.relu(theirs.linear1(t(x))))
    assert_close(ours(x), ref, dtype)


def encoder_layer_pair(dtype, norm_first, d=12, h=3, d_ff=20, bias=True):
    theirs = torch.nn.TransformerEncoderLayer(
        d, h, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first, bias=bias,
        layer_norm_eps=1e-6, dtype=TORCH_DTYPE[dtype],
    ).eval()
    ours = EncoderLayer(d, h, d_ff, norm_first=norm_first, bias=bias, eps=1e-6, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    return ours, theirs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_on_a_padded_batch(dtype, norm_first):
    ours, theirs = encoder_layer_pair(dtype, norm_first)
    x = randn(np.random.default_rng(8), 3, 6, 12, dtype=dtype)
    kpm = lengths_mask([6, 4, 2], 6)
    with torch.inference_mode():
        ref = theirs(t(x), src_key_padding_mask=t(kpm))
    # PyTorch's inference fast path may leave anything at padded positions; compare the real tokens.
    assert_close(ours(x, src_key_padding_mask=kpm), ref, dtype, where=~kpm)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_without_biases_and_with_a_causal_mask(norm_first):
    ours, theirs = encoder_layer_pair(np.float64, norm_first, d=10, h=2, bias=False)
    assert "norm1.bias" not in ours.state_dict()
    x = randn(np.random.default_rng(9), 2, 5, 10)
    with torch.inference_mode():
        ref = theirs(t(x), src_mask=t(causal_mask(5)))
    assert_close(ours(x, src_mask=causal_mask(5)), ref, np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_with_causal_and_memory_padding_masks(dtype, norm_first):
    theirs = torch.nn.TransformerDecoderLayer(
        12, 4, 24, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=TORCH_DTYPE[dtype]
    ).eval()
    ours = DecoderLayer(12, 4, 24, norm_first=norm_first, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    rng = np.random.default_rng(10)
    tgt, memory = randn(rng, 2, 4, 12, dtype=dtype), randn(rng, 2, 7, 12, dtype=dtype)
    tgt_kpm, mem_kpm = lengths_mask([4, 3], 4), lengths_mask([7, 5], 7)
    args = dict(tgt_mask=causal_mask(4), tgt_key_padding_mask=tgt_kpm, memory_key_padding_mask=mem_kpm)
    with torch.inference_mode():
        ref = theirs(t(tgt), t(memory), **{k: t(v) for k, v in args.items()})
    assert_close(ours(tgt, memory, **args), ref, dtype)


def test_encoder_stack_with_final_norm():
    theirs = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=torch.float64),
        num_layers=3, norm=torch.nn.LayerNorm(8, dtype=torch.float64), enable_nested_tensor=False,
    ).eval()
    ours = Encoder(8, 2, 16, num_layers=3)
    ours.load_state_dict(weights_of(theirs))
    x = randn(np.random.default_rng(11), 2, 5, 8)
    with torch.inference_mode():
        assert_close(ours(x), theirs(t(x)), np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm_first", [False, True])
def test_a_small_full_transformer(dtype, norm_first):
    theirs = torch.nn.Transformer(
        16, 4, 2, 2, 32, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=TORCH_DTYPE[dtype]
    ).eval()
    ours = Transformer(16, 4, 2, 2, 32, norm_first=norm_first, dtype=dtype)
    assert {k: v.shape for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()
    }
    ours.load_state_dict(weights_of(theirs))
    rng = np.random.default_rng(12)
    src, tgt = randn(rng, 3, 6, 16, dtype=dtype), randn(rng, 3, 4, 16, dtype=dtype)
    src_kpm = lengths_mask([6, 5, 3], 6)
    args = dict(tgt_mask=causal_mask(4), src_key_padding_mask=src_kpm, memory_key_padding_mask=src_kpm)
    with torch.inference_mode():
        ref = theirs(t(src), t(tgt), **{k: t(v) for k, v in args.items()})
    assert_close(ours(src, tgt, **args), ref, dtype)


def test_default_transformer_has_pytorchs_keys_shapes_and_count():
    theirs = torch.nn.Transformer()
    ours = Transformer(device="meta")  # same sizes, no memory spent on our side
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(ours.state_dict()[k].shape == tuple(v.shape) for k, v in theirs.state_dict().items())
    assert ours.num_params() == sum(p.numel() for p in theirs.parameters()) == 44_140_544

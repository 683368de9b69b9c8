"""Incremental decoding with a KV cache equals the full causal forward (float64, <= 1e-6), ours and PyTorch's."""

import numpy as np
import pytest

from studytool.engine import Encoder, KVCache, LayerCache, MultiHeadAttention, causal_mask, kv_cache_bytes

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")

TOL = 1e-6


def weights_of(module):
    return {key: value.detach().numpy() for key, value in module.state_dict().items()}


def one_token_at_a_time(step, x, cache):
    """Feed x (B, L, d) to `step` one position at a time; the outputs side by side (B, L, d)."""
    return np.concatenate([step(x[:, i : i + 1], cache) for i in range(x.shape[1])], axis=1)


@pytest.mark.parametrize("d, h", [(12, 3), (8, 1)])
def test_cached_self_attention_equals_the_causal_forward_and_torch(d, h):
    theirs = torch.nn.MultiheadAttention(d, h, batch_first=True, dtype=torch.float64).eval()
    mha = MultiHeadAttention(d, h)
    mha.load_state_dict(weights_of(theirs))
    x = np.random.default_rng(0).standard_normal((2, 6, d))
    full, _ = mha(x, x, x, attn_mask=causal_mask(6))
    with torch.inference_mode():
        ref, _ = theirs(*(torch.from_numpy(x),) * 3, attn_mask=torch.from_numpy(causal_mask(6)))

    def step(token, cache):
        return mha(token, token, token, cache=cache)[0]

    cache = LayerCache()
    stepped = one_token_at_a_time(step, x, cache)
    assert np.abs(stepped - full).max() <= TOL
    assert np.abs(stepped - ref.numpy()).max() <= TOL
    assert cache.keys.shape == cache.values.shape == (2, h, 6, d // h)


def test_the_last_step_attends_to_every_cached_key():
    mha = MultiHeadAttention(8, 2)
    x = np.random.default_rng(1).standard_normal((1, 4, 8))
    cache = LayerCache()
    for i in range(4):
        token = x[:, i : i + 1]
        _, weights = mha(token, token, token, cache=cache)
        assert weights.shape == (1, 2, 1, i + 1)
    assert (weights > 0).all()  # one new query, no mask: every key so far is visible
    np.testing.assert_allclose(weights.sum(-1), 1.0)


def gpt_pair(norm_first, layers=2, d=12, h=4, d_ff=24):
    """A decoder-only stack (GPT): torch's TransformerEncoder with a causal mask, and ours with its weights."""
    layer = torch.nn.TransformerEncoderLayer(
        d, h, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=torch.float64
    )
    norm = torch.nn.LayerNorm(d, dtype=torch.float64)
    theirs = torch.nn.TransformerEncoder(layer, layers, norm=norm, enable_nested_tensor=False).eval()
    ours = Encoder(d, h, d_ff, layers, norm_first=norm_first)
    ours.load_state_dict(weights_of(theirs))
    return ours, theirs


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_only_stack_token_by_token_equals_the_full_causal_forward(norm_first):
    ours, theirs = gpt_pair(norm_first)
    x = np.random.default_rng(2).standard_normal((3, 7, 12))
    full = ours(x, mask=causal_mask(7))
    with torch.inference_mode():
        ref = theirs(torch.from_numpy(x), mask=torch.from_numpy(causal_mask(7))).numpy()
    cache = KVCache(2)
    stepped = one_token_at_a_time(lambda token, c: ours(token, cache=c), x, cache)
    assert np.abs(full - ref).max() <= 1e-10
    assert np.abs(stepped - full).max() <= TOL
    assert np.abs(stepped - ref).max() <= TOL
    assert cache.length == 7


def test_a_prompt_prefilled_at_once_then_one_token_per_step():
    ours, _ = gpt_pair(norm_first=True)
    x = np.random.default_rng(3).standard_normal((2, 6, 12))
    full = ours(x, mask=causal_mask(6))
    cache = KVCache(2)
    prefill = ours(x[:, :4], cache=cache)  # four positions at once: the cache builds their causal mask
    rest = one_token_at_a_time(lambda token, c: ours(token, cache=c), x[:, 4:], cache)
    assert np.abs(np.concatenate([prefill, rest], axis=1) - full).max() <= TOL
    # without the mask inside the prefill the first positions would see the future
    unmasked = ours(x[:, :4])
    assert np.abs(unmasked[:, 0] - full[:, 0]).max() > 1e-3


@pytest.mark.parametrize("dtype, width", [(np.float64, 8), (np.float32, 4)])
def test_kv_cache_bytes_is_what_the_cache_holds(dtype, width):
    layers, batch, length, d = 3, 2, 5, 16
    model = Encoder(d, 4, 32, layers, dtype=dtype)
    cache = KVCache(layers)
    model(np.zeros((batch, length, d)), cache=cache)
    assert cache.nbytes == kv_cache_bytes(layers, batch, length, d, bytes_per_value=width)


def test_kv_cache_bytes_of_a_7b_model():
    # 32 layers, d=4096, float16: 0.5 MiB per token, 2 GiB for one 4096-token sequence
    assert kv_cache_bytes(32, 1, 1, 4096) == 2**19
    assert kv_cache_bytes(32, 1, 4096, 4096, bytes_per_value=2) == 2 * 2**30


@pytest.mark.parametrize("size", [0, -1, 2.5, True])
def test_kv_cache_bytes_rejects_bad_sizes(size):
    with pytest.raises(ValueError):
        kv_cache_bytes(2, size, 4, 8)


def test_a_cache_is_for_unmasked_self_attention_only():
    mha = MultiHeadAttention(8, 2)
    x, y = np.zeros((1, 2, 8)), np.ones((1, 2, 8))
    with pytest.raises(ValueError, match="KV cache"):
        mha(x, y, y, cache=LayerCache())
    with pytest.raises(ValueError, match="KV cache"):
        mha(x, x, x, attn_mask=causal_mask(2), cache=LayerCache())


def test_encoder_decoder_token_by_token_projects_the_memory_once():
    from studytool.engine import Decoder
    from studytool.engine.tracing import observing

    layer = torch.nn.TransformerDecoderLayer(12, 4, 24, dropout=0.0, batch_first=True, dtype=torch.float64)
    theirs = torch.nn.TransformerDecoder(layer, 2, norm=torch.nn.LayerNorm(12, dtype=torch.float64)).eval()
    ours = Decoder(12, 4, 24, num_layers=2)
    ours.load_state_dict(weights_of(theirs))
    rng = np.random.default_rng(4)
    tgt, memory = rng.standard_normal((2, 5, 12)), rng.standard_normal((2, 7, 12))
    mem_kpm = np.array([[False] * 7, [False] * 4 + [True] * 3])  # the second source is padded
    full = ours(tgt, memory, tgt_mask=causal_mask(5), memory_key_padding_mask=mem_kpm)
    with torch.inference_mode():
        ref = theirs(torch.from_numpy(tgt), torch.from_numpy(memory), tgt_mask=torch.from_numpy(causal_mask(5)),
                     memory_key_padding_mask=torch.from_numpy(mem_kpm)).numpy()
    cache, seen = KVCache(2), []
    with observing(lambda name, array: seen.append(name)):
        stepped = one_token_at_a_time(
            lambda token, c: ours(token, memory, memory_key_padding_mask=mem_kpm, cache=c), tgt, cache
        )
    assert np.abs(full - ref).max() <= 1e-10
    assert np.abs(stepped - full).max() <= TOL
    assert np.abs(stepped - ref).max() <= TOL
    assert seen.count("cross-attention: K projection") == 2  # once per layer, at the first step
    assert seen.count("masked self-attention: K projection") == 2 * 5  # every layer, every step
    assert cache.memory[0].keys.shape == (2, 4, 7, 3) and cache.length == 5

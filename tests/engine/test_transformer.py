"""A layer takes the batch a few sentences at a time: the same output as all at once, and torch's."""

import numpy as np
import pytest

import studytool.engine.transformer as transformer
from studytool.engine import DecoderLayer, EncoderLayer, causal_mask, padding_mask

torch = pytest.importorskip("torch", reason="torch is the oracle of the engine's layers")


@pytest.fixture
def one_sentence_per_chunk(monkeypatch):
    """A chunk budget smaller than one sentence's scores: every sentence is a chunk of its own."""
    monkeypatch.setattr(transformer, "CHUNK_NUMBERS", 1)


def weights_of(module):
    return {key: value.detach().numpy() for key, value in module.state_dict().items()}


def whole_batch(layer, *args, **kwargs):
    """The layer's output with the real chunk budget: these small batches go through as one chunk."""
    assert transformer.CHUNK_NUMBERS == 2**21
    return layer(*args, **kwargs)


@pytest.mark.parametrize("masks", ["none", "causal", "padding", "both", "per-head", "per-head 4-D"])
def test_sentence_by_sentence_is_the_whole_batch(monkeypatch, masks):
    rng = np.random.default_rng(0)
    batch, length, d_model, heads = 3, 6, 12, 3
    x, memory = rng.standard_normal((batch, length, d_model)), rng.standard_normal((batch, length + 2, d_model))
    kwargs, cross = {}, {}
    if masks in ("causal", "both"):
        kwargs["src_mask"] = causal_mask(length)
    if masks in ("padding", "both"):
        kwargs["src_key_padding_mask"] = padding_mask([6, 2, 4], length)
        cross["memory_key_padding_mask"] = padding_mask([8, 1, 5], length + 2)
    if masks.startswith("per-head"):  # torch's (B * H, Lq, Lk) mask, a row of each sentence fully blocked
        mask = rng.random((batch * heads, length, length)) < 0.4
        mask[:, 1] = True
        kwargs["src_mask"] = mask if masks == "per-head" else mask.reshape(batch, heads, length, length)
        cross["memory_mask"] = (rng.random((batch * heads, length, length + 2)) < 0.4)
    encoder, decoder = EncoderLayer(d_model, heads, 20), DecoderLayer(d_model, heads, 20)
    decoder_kwargs = {"tgt_mask": kwargs.get("src_mask"), "tgt_key_padding_mask": kwargs.get("src_key_padding_mask"),
                      **cross}
    whole = whole_batch(encoder, x, **kwargs), whole_batch(decoder, x, memory, **decoder_kwargs)
    monkeypatch.setattr(transformer, "CHUNK_NUMBERS", 1)
    np.testing.assert_array_equal(encoder(x, **kwargs), whole[0])
    np.testing.assert_array_equal(decoder(x, memory, **decoder_kwargs), whole[1])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_layers_in_chunks_agree_with_torch(one_sentence_per_chunk, dtype):
    tol = {np.float64: 1e-10, np.float32: 1e-5}[dtype]
    torch_dtype = {np.float64: torch.float64, np.float32: torch.float32}[dtype]
    rng = np.random.default_rng(1)
    src, tgt = rng.standard_normal((3, 7, 16)).astype(dtype), rng.standard_normal((3, 5, 16)).astype(dtype)
    src_pad = padding_mask([7, 3, 5], 7)
    theirs = torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, dtype=torch_dtype).eval()
    ours = EncoderLayer(16, 4, 32, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    with torch.inference_mode():
        expected = theirs(torch.from_numpy(src), src_key_padding_mask=torch.from_numpy(src_pad)).numpy()
    got = ours(src, src_key_padding_mask=src_pad)
    assert np.abs(got[~src_pad] - expected[~src_pad]).max() <= tol  # torch's fast path zeroes padded rows

    theirs = torch.nn.TransformerDecoderLayer(16, 4, 32, batch_first=True, dtype=torch_dtype).eval()
    ours = DecoderLayer(16, 4, 32, dtype=dtype)
    ours.load_state_dict(weights_of(theirs))
    with torch.inference_mode():
        expected = theirs(torch.from_numpy(tgt), torch.from_numpy(src), tgt_mask=torch.from_numpy(causal_mask(5)),
                          memory_key_padding_mask=torch.from_numpy(src_pad)).numpy()
    got = ours(tgt, src, tgt_mask=causal_mask(5), memory_key_padding_mask=src_pad)
    assert np.abs(got - expected).max() <= tol

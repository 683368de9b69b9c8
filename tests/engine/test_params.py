"""Parameter counts: the notes' table (weights only) and PyTorch's own totals (with biases and norms)."""

import pytest

from studytool.engine import PARTS, Decoder, DecoderLayer, Encoder, EncoderLayer, FeedForward
from studytool.engine import MultiHeadAttention, Transformer, count_params

NOTES = dict(d_model=512, n_heads=8, d_ff=2048, bias=False, norm=False)


@pytest.mark.parametrize(
    "part, kwargs, expected",
    [
        ("mha", {}, 1_048_576),  # 4 d^2
        ("ffn", {}, 2_097_152),  # 2 d d_ff
        ("encoder_layer", {}, 3_145_728),
        ("encoder", {"num_layers": 6}, 18_874_368),
        ("embedding", {"vocab": 30000}, 15_360_000),
    ],
)
def test_the_notes_parameter_table(part, kwargs, expected):
    assert count_params(part, **NOTES, **kwargs) == expected


@pytest.mark.parametrize(
    "part, expected",
    [("encoder_layer", 3_152_384), ("decoder_layer", 4_204_032), ("transformer", 44_140_544)],
)
def test_pytorch_default_counts(part, expected):
    assert count_params(part, d_model=512, n_heads=8, d_ff=2048, num_layers=6) == expected


def test_d_ff_defaults_to_four_times_d_model():
    assert count_params("ffn", d_model=8) == count_params("ffn", d_model=8, d_ff=32) == 2 * 8 * 32 + 32 + 8


def test_output_projection_and_layer_norm():
    assert count_params("output_projection", d_model=4, vocab=10) == 4 * 10 + 10
    assert count_params("output_projection", d_model=4, vocab=10, bias=False) == 40
    assert count_params("layer_norm", d_model=6) == 12
    assert count_params("layer_norm", d_model=6, bias=False) == 6  # gamma only, as LayerNorm(bias=False)


@pytest.mark.parametrize("bias", [True, False])
def test_closed_forms_equal_the_built_modules(bias):
    d, h, ff, n = 12, 3, 20, 2
    kw = dict(d_model=d, n_heads=h, d_ff=ff, num_layers=n, bias=bias)
    built = {
        "mha": MultiHeadAttention(d, h, bias=bias),
        "ffn": FeedForward(d, ff, bias=bias),
        "encoder_layer": EncoderLayer(d, h, ff, bias=bias),
        "decoder_layer": DecoderLayer(d, h, ff, bias=bias),
        "encoder": Encoder(d, h, ff, n, bias=bias),
        "decoder": Decoder(d, h, ff, n, bias=bias),
        "transformer": Transformer(d, h, n, n, ff, bias=bias),
    }
    for part, module in built.items():
        assert count_params(part, **kw) == module.num_params(), part


def test_the_default_transformer_counts_like_pytorch_without_allocating():
    assert Transformer(device="meta").num_params() == 44_140_544


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(part="attention", d_model=8),
        dict(part="mha", d_model=10, n_heads=4),
        dict(part="mha", d_model=0),
        dict(part="embedding", d_model=8),
        dict(part="encoder", d_model=8, num_layers=0),
    ],
)
def test_bad_arguments_are_value_errors(kwargs):
    with pytest.raises(ValueError):
        count_params(kwargs.pop("part"), **kwargs)


def test_every_part_is_countable():
    for part in PARTS:
        assert count_params(part, d_model=8, n_heads=2, vocab=5) > 0


def test_numpy_integers_are_counted_exactly():
    import numpy as np

    assert count_params("embedding", d_model=np.int64(4096), vocab=np.int32(50_000)) == 204_800_000
    assert isinstance(count_params("mha", d_model=np.int64(64), n_heads=np.int64(8)), int)


def torch_seq2seq(vocab, d_model, n_heads, num_layers, d_ff, tied, bias=True):
    """nn.Transformer with source/target embeddings and an output projection, on the meta device (no memory)."""
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of the parameter counts")

    kw = dict(device="meta")
    model = torch.nn.Module()
    model.transformer = torch.nn.Transformer(
        d_model, n_heads, num_layers, num_layers, d_ff, bias=bias, batch_first=True, **kw
    )
    model.src_embed = torch.nn.Embedding(vocab, d_model, **kw)
    model.tgt_embed = model.src_embed if tied else torch.nn.Embedding(vocab, d_model, **kw)
    model.generator = torch.nn.Linear(d_model, vocab, bias=bias, **kw)
    if tied:
        model.generator.weight = model.src_embed.weight
    return model


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize(
    "vocab, d_model, n_heads, num_layers, d_ff, bias",
    [(37000, 512, 8, 6, 2048, True), (1000, 64, 4, 2, 96, True), (1000, 64, 4, 2, 96, False)],
)
def test_whole_model_counts_unique_parameters_like_torch(tied, vocab, d_model, n_heads, num_layers, d_ff, bias):
    pytest.importorskip("torch")
    model = torch_seq2seq(vocab, d_model, n_heads, num_layers, d_ff, tied, bias)
    unique = sum(p.numel() for p in model.parameters())  # parameters() yields a shared tensor once
    kw = dict(d_model=d_model, n_heads=n_heads, num_layers=num_layers, d_ff=d_ff, vocab=vocab, bias=bias)
    assert count_params("model", tied=tied, **kw) == unique
    output = count_params("output_projection", tied=tied, **kw)
    assert output == sum(p.numel() for p in model.generator.parameters()) - (vocab * d_model if tied else 0)


def test_transformer_base_with_tied_embeddings_is_about_65m():
    base = dict(d_model=512, n_heads=8, d_ff=2048, num_layers=6, vocab=37000)
    tied = count_params("model", tied=True, **base)
    assert tied == 44_140_544 + 37000 * 512 + 37000  # the stacks, one shared table, the output bias
    assert 60e6 < tied < 66e6  # the paper's Table 3: 65M
    assert count_params("model", **base) - tied == 2 * 37000 * 512  # untied: two more tables
    assert count_params("output_projection", tied=True, bias=False, **base) == 0

"""Module behaviour that needs no PyTorch: strict loading, seeds, dtypes, devices."""

import numpy as np
import pytest

from studytool.engine import (
    Decoder,
    EncoderLayer,
    LayerNorm,
    MetaArray,
    MultiHeadAttention,
    Transformer,
    causal_mask,
    layer_norm,
)


def test_state_dict_keys_follow_pytorch_names():
    keys = list(EncoderLayer(8, 2, 16).state_dict())
    assert keys == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias",
        "self_attn.out_proj.weight", "self_attn.out_proj.bias",
        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
        "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
    ]
    keys = Decoder(8, 2, 16, num_layers=2).state_dict()
    assert "layers.1.multihead_attn.in_proj_weight" in keys and "norm.weight" in keys
    assert "layers.0.norm3.bias" in keys


def test_mha_parameter_shapes():
    shapes = {k: v.shape for k, v in MultiHeadAttention(12, 3).state_dict().items()}
    assert shapes == {
        "in_proj_weight": (36, 12), "in_proj_bias": (36,), "out_proj.weight": (12, 12), "out_proj.bias": (12,)
    }


def test_load_state_dict_round_trip_changes_the_output():
    a, b = EncoderLayer(8, 2, 16, seed=1), EncoderLayer(8, 2, 16, seed=2)
    x = np.random.default_rng(0).normal(size=(2, 3, 8))
    assert not np.allclose(a(x), b(x))
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(a(x), b(x))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.pop("norm2.bias"), "missing key in state_dict: 'norm2.bias'"),
        (lambda d: d.update({"norm3.weight": np.ones(8)}), "unexpected key in state_dict: 'norm3.weight'"),
        (lambda d: d.update({"linear1.weight": np.ones((8, 16))}), "shape mismatch for 'linear1.weight'"),
    ],
)
def test_load_state_dict_is_strict_and_names_the_key(edit, message):
    layer = EncoderLayer(8, 2, 16)
    before = layer.state_dict()
    state = layer.state_dict()
    edit(state)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        layer.load_state_dict(state)
    after = layer.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # nothing half-loaded


def test_state_dict_returns_copies():
    layer = LayerNorm(4)
    layer.state_dict()["weight"][:] = 7
    np.testing.assert_array_equal(layer.weight, np.ones(4))


def test_same_seed_same_weights_different_seed_different_weights():
    a, b, c = (Transformer(8, 2, 1, 1, 16, seed=s).state_dict() for s in (3, 3, 4))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["encoder.layers.0.linear1.weight"], c["encoder.layers.0.linear1.weight"])
    # layers are initialised independently, not copies of one another
    two = Decoder(8, 2, 16, num_layers=2).state_dict()
    assert not np.array_equal(two["layers.0.linear1.weight"], two["layers.1.linear1.weight"])


def test_a_float32_model_returns_float32_for_float64_input():
    model = Transformer(8, 2, 1, 1, 16, dtype=np.float32)
    assert all(v.dtype == np.float32 for v in model.state_dict().values())
    rng = np.random.default_rng(0)
    out = model(rng.normal(size=(2, 3, 8)), rng.normal(size=(2, 4, 8)), tgt_mask=causal_mask(4))
    assert out.dtype == np.float32


def test_a_float32_model_never_computes_in_float64(monkeypatch):
    # Run the same forward pass on shape-only arrays and watch every dtype that comes out of it.
    seen = set()
    original = MetaArray.__init__

    def watch(self, shape, dtype=np.float64):
        original(self, shape, dtype)
        seen.add(self.dtype)

    monkeypatch.setattr(MetaArray, "__init__", watch)
    model = Transformer(16, 4, 1, 1, 32, dtype=np.float32, device="meta")
    src, tgt = MetaArray((2, 5, 16), np.float32), MetaArray((2, 3, 16), np.float32)
    out = model(src, tgt, tgt_mask=causal_mask(3), src_key_padding_mask=np.zeros((2, 5), bool))
    assert out.shape == (2, 3, 16)
    assert {dt for dt in seen if dt.kind == "f"} == {np.dtype(np.float32)}


def test_the_input_is_not_modified():
    x = np.random.default_rng(0).normal(size=(2, 3, 8))
    copy = x.copy()
    EncoderLayer(8, 2, 16)(x)
    Transformer(8, 2, 1, 1, 16, norm_first=True)(x, x)
    np.testing.assert_array_equal(x, copy)


def test_fresh_layer_norm_module_is_the_plain_normalisation():
    x = np.random.default_rng(0).normal(size=(3, 5))
    np.testing.assert_allclose(LayerNorm(5)(x), layer_norm(x))


@pytest.mark.parametrize(
    "build",
    [
        lambda: MultiHeadAttention(10, 4),
        lambda: EncoderLayer(8, 2, 16, dtype=np.int64),
        lambda: EncoderLayer(8, 2, 16, device="cuda"),
    ],
)
def test_bad_construction_is_a_value_error(build):
    with pytest.raises(ValueError):
        build()


def test_masks_may_be_nested_lists():
    mha = MultiHeadAttention(8, 2)
    x = np.random.default_rng(0).normal(size=(1, 3, 8))
    np.testing.assert_array_equal(
        mha(x, x, x, key_padding_mask=[[False, False, True]])[1],
        mha(x, x, x, key_padding_mask=np.array([[False, False, True]]))[1],
    )


def test_masks_must_be_bool():
    mha = MultiHeadAttention(8, 2)
    x = np.zeros((1, 3, 8))
    with pytest.raises(ValueError, match="bool"):
        mha(x, x, x, attn_mask=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="d_model=8"):
        mha(np.zeros((1, 3, 6)), x, x)


def test_meta_device_builds_shapes_without_data():
    model = Transformer(4096, 32, 1, 1, 16384, device="meta")
    weight = model.state_dict()["encoder.layers.0.self_attn.in_proj_weight"]
    assert isinstance(weight, MetaArray) and weight.shape == (3 * 4096, 4096)


def test_a_config_says_the_settings_once_and_keywords_still_work():
    from studytool.engine import ModuleConfig

    config = ModuleConfig(norm_first=True, eps=1e-6, bias=False, seed=5, dtype=np.float32)
    by_config = EncoderLayer(8, 2, 16, config=config)
    by_keywords = EncoderLayer(8, 2, 16, norm_first=True, eps=1e-6, bias=False, seed=5, dtype=np.float32)
    a, b = by_config.state_dict(), by_keywords.state_dict()
    assert list(a) == list(b) and "norm1.bias" not in a
    assert all(np.array_equal(a[k], b[k]) and a[k].dtype == np.float32 for k in a)
    x = np.random.default_rng(0).normal(size=(2, 3, 8))
    np.testing.assert_array_equal(by_config(x), by_keywords(x))
    overridden = EncoderLayer(8, 2, 16, config=config, bias=True)  # a keyword overrides the config
    assert "norm1.bias" in overridden.state_dict() and overridden.norm_first


def test_config_settings_are_checked():
    from studytool.engine import ModuleConfig

    with pytest.raises(ValueError, match="device"):
        ModuleConfig(device="cuda")
    with pytest.raises(ValueError, match="floating"):
        ModuleConfig(dtype=np.int32)
    with pytest.raises(TypeError):
        EncoderLayer(8, 2, 16, norm_frist=True)  # a misspelt setting is not silently ignored


def test_an_observer_sees_the_named_points_and_the_maths_does_not_know_it():
    import ast
    from pathlib import Path

    import studytool.engine.functional as functional
    from studytool.engine.tracing import observing

    seen = []
    x = np.random.default_rng(0).normal(size=(1, 3, 8))
    with observing(lambda name, array: seen.append((name, array.shape))):
        EncoderLayer(8, 2, 16)(x)
    assert seen[0] == ("self-attention: Q projection", (1, 3, 8))
    assert ("FFN: ReLU", (1, 3, 16)) in seen and seen[-1] == ("FFN: add & norm", (1, 3, 8))
    tree = ast.parse(Path(functional.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "tracing" not in imported  # functional.py is maths only

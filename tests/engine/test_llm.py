"""The LLM family's own rules, without an oracle: reading config.json, ties, GQA, routing, masks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.engine import ConfigError, DecoderLM, LLMConfig, from_hf
from studytool.engine.llm import attention_mask, grouped_query_attention, preset, route

LLAMA = {"model_type": "llama", "hidden_size": 16, "num_attention_heads": 4, "num_key_value_heads": 2,
         "num_hidden_layers": 1, "intermediate_size": 24, "vocab_size": 11}


@pytest.mark.parametrize("field", ["hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
                                   "vocab_size"])
def test_a_missing_size_is_named(field):
    config = {key: value for key, value in LLAMA.items() if key != field}
    with pytest.raises(ConfigError, match=repr(field)):
        from_hf(config)


@pytest.mark.parametrize("model_type", ["mistral", "qwen2", "mixtral"])
def test_kv_heads_are_required_where_transformers_default_is_a_surprise(model_type):
    config = {**LLAMA, "model_type": model_type, "num_local_experts": 4, "num_experts_per_tok": 2}
    del config["num_key_value_heads"]
    with pytest.raises(ConfigError, match="num_key_value_heads"):
        from_hf(config)


def test_llama_without_kv_heads_is_multi_head():
    config = {key: value for key, value in LLAMA.items() if key != "num_key_value_heads"}
    assert from_hf(config).n_kv_heads == 4
    assert from_hf({**LLAMA, "num_key_value_heads": None}).n_kv_heads == 4  # transformers: None -> MHA


@pytest.mark.parametrize(("config", "message"), [
    ({**LLAMA, "model_type": "bert"}, "unknown model_type 'bert'"),
    ({key: value for key, value in LLAMA.items() if key != "model_type"}, "'model_type'"),
    ({**LLAMA, "hidden_size": 0}, "hidden_size must be a positive integer"),
    ({**LLAMA, "hidden_size": 12.5}, "hidden_size must be a positive integer"),
    ({**LLAMA, "num_hidden_layers": True}, "num_hidden_layers must be a positive integer"),
    ({**LLAMA, "num_key_value_heads": 3}, "not a multiple"),
    ({**LLAMA, "hidden_act": "relu6"}, "unknown activation"),
    ({**LLAMA, "rms_norm_eps": "small"}, "rms_norm_eps must be a number"),
    ({**LLAMA, "tie_word_embeddings": "yes"}, "tie_word_embeddings must be true or false"),
    ({**LLAMA, "attention_bias": 1}, "attention_bias must be true or false"),
    ({"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_layer": 1, "n_positions": -1, "vocab_size": 5},
     "n_positions must be a positive integer"),
    ({**LLAMA, "rope_scaling": {"rope_type": ["llama3"]}}, "rope_type must be a name"),
    ({**LLAMA, "model_type": "mixtral", "num_local_experts": 2, "num_experts_per_tok": 3}, "num_experts_per_tok"),
    ({**LLAMA, "model_type": "mixtral", "num_local_experts": 2, "num_experts_per_tok": None},
     "num_experts_per_tok must be a positive integer, got None"),  # was a TypeError (found by the fuzz test below)
    ({**LLAMA, "hidden_size": 18}, "not divisible"),
    ([1, 2], "JSON object"),
])
def test_bad_configs_are_one_clear_line(config, message):
    with pytest.raises(ConfigError, match=message) as raised:
        from_hf(config)
    assert "\n" not in str(raised.value)


def test_gemma_defaults_follow_transformers():
    """Gemma: tied head, (1 + w) RMSNorm, √d embedding scale, tanh GELU unless the config says otherwise."""
    config = from_hf({**LLAMA, "model_type": "gemma", "head_dim": 8})
    assert (config.tied_head, config.norm_offset, config.embed_scale, config.activation) == (
        True, True, True, "gelu_pytorch_tanh")
    assert config.head_dim == 8


def test_rope_theta_from_either_place():
    """Hub files say rope_theta at the top; transformers 5 writes it into rope_parameters."""
    assert from_hf({**LLAMA, "rope_theta": 5e5}).rope_theta == 5e5
    assert from_hf({**LLAMA, "rope_parameters": {"rope_type": "default", "rope_theta": 1e6}}).rope_theta == 1e6


def test_a_tied_head_must_equal_its_embedding():
    model = DecoderLM(from_hf(preset("gpt2") | {"n_layer": 1, "n_embd": 8, "n_head": 2, "vocab_size": 5,
                                                "n_positions": 4}))
    state = model.state_dict()
    model.load_state_dict(state)
    assert model.lm_head.weight is model.transformer.wte.weight  # still one array after loading
    state["lm_head.weight"] = state["lm_head.weight"] + 1
    with pytest.raises(ValueError, match="lm_head.weight differs"):
        model.load_state_dict(state)


def test_learned_positions_bound_the_length():
    model = DecoderLM(from_hf({"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_layer": 1, "n_positions": 4,
                               "vocab_size": 5}))
    assert model(np.zeros((1, 4), dtype=int)).shape == (1, 4, 5)
    with pytest.raises(ValueError, match="4 learned positions"):
        model(np.zeros((1, 5), dtype=int))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_gqa_equals_attention_with_each_kv_head_copied_to_its_group(kv_heads, groups, length, seed):
    """Query head h reads KV head h // groups: the same as repeating each KV head `groups` times (repeat_kv)."""
    from studytool.engine import causal_mask, scaled_dot_product_attention

    rng = np.random.default_rng(seed)
    q = rng.standard_normal((2, kv_heads * groups, length, 4))
    k, v = rng.standard_normal((2, 2, kv_heads, length, 4))
    mask = causal_mask(length)
    expected, _ = scaled_dot_product_attention(q, np.repeat(k, groups, axis=1), np.repeat(v, groups, axis=1), mask)
    np.testing.assert_allclose(grouped_query_attention(q, k, v, mask), expected, rtol=0, atol=1e-12)


def test_router_by_hand():
    """Logits [1, 3, 2, 0], top 2: experts 1 and 2, weights softmax([3, 2]) = [e/(e+1), 1/(e+1)]."""
    chosen, weights = route(np.array([[1.0, 3.0, 2.0, 0.0]]), 2)
    assert chosen.tolist() == [[1, 2]]
    e = np.e
    np.testing.assert_allclose(weights, [[e / (e + 1), 1 / (e + 1)]], rtol=1e-15)


def test_sliding_window_mask_by_hand():
    """Window 2: each query sees itself and the one before it."""
    assert (~attention_mask(4, 2)).astype(int).tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]


def test_a_config_can_be_built_directly():
    config = LLMConfig("llama", vocab_size=10, d_model=8, n_layers=1, n_heads=2, n_kv_heads=1, head_dim=4, d_ff=16)
    assert config.groups == 2
    assert DecoderLM(config, dtype=np.float32)(np.array([[1, 2, 3]])).dtype == np.float32


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**6) | st.floats(allow_nan=False)
                           | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=5)
FIELDS = ["model_type", "vocab_size", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
          "num_hidden_layers", "intermediate_size", "hidden_act", "rms_norm_eps", "rope_theta", "rope_scaling",
          "rope_parameters", "tie_word_embeddings", "attention_bias", "mlp_bias", "sliding_window",
          "num_local_experts", "num_experts_per_tok", "n_embd", "n_head", "n_layer", "n_positions", "n_inner",
          "activation_function", "layer_norm_epsilon"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["gpt2", "llama", "mistral", "qwen2", "gemma", "mixtral"]),
       st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=8))
def test_any_json_is_a_config_or_one_config_error(model_type, changes):
    """Whatever a config.json holds, from_hf gives a config whose accounting works, or a ConfigError."""
    from studytool.engine import forward_flops, kv_cache, parameter_counts, training_memory

    base = preset("gpt2") if model_type == "gpt2" else {**LLAMA, "model_type": model_type, "head_dim": 4,
                                                          "num_local_experts": 4, "num_experts_per_tok": 2}
    try:
        config = from_hf({**base, **changes})
    except ConfigError as error:
        assert "\n" not in str(error)
        return
    assert parameter_counts(config)["total"] > 0
    assert forward_flops(config, 2, 3)["forward"] > 0
    assert kv_cache(config, 2, 3)["bytes"] > 0 and training_memory(config, 2, 3)["adamw_fp32"]["total"] > 0


@pytest.mark.parametrize("name", ["gpt2", "llama-3-8b", "mixtral-8x7b", "qwen2-0.5b", "gemma-2b"])
def test_the_engine_builds_full_size_presets_shape_only(name):
    """On the meta device (MetaArray, no memory) a preset's model has the shapes transformers' has: its
    parameter count is the published one (checked against transformers in test_accounting.py)."""
    from studytool.engine import parameter_counts

    config = from_hf(preset(name))
    assert DecoderLM(config, device="meta").num_params() == parameter_counts(config)["total"]


def test_a_scaled_rope_is_counted_but_not_run():
    """Llama 3.1's "llama3" RoPE changes the angles, not the sizes: accounting works, the forward refuses."""
    from studytool.engine import parameter_counts

    config = from_hf({**LLAMA, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}})
    assert config.rope_type == "llama3"
    assert parameter_counts(config) == parameter_counts(from_hf(LLAMA))
    with pytest.raises(ConfigError, match="only the default RoPE, not rope_type 'llama3'"):
        DecoderLM(config)

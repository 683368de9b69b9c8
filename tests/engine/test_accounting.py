"""Closed-form LLM accounting against independent truths: published counts, hand arithmetic, and transformers.

The oracle tests build transformers' model on the meta device (shapes only, no memory) from the same
config.json: parameters must equal `sum(p.numel())` exactly, and forward FLOPs what
`torch.utils.flop_counter.FlopCounterMode` counts on that model, exactly (the issue asks within 0.5%;
a mixture on a small real model, since routing needs numbers); the KV cache must be the bytes
transformers' own cache holds, and AdamW's moments the bytes torch.optim.AdamW keeps.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studytool.engine import LLMConfig, forward_flops, from_hf, kv_cache, parameter_counts, training_memory
from studytool.engine.llm import preset, preset_names

PRESETS = ["gpt2", "gpt2-xl", "llama-3-8b", "mistral-7b", "mixtral-8x7b", "qwen2-0.5b", "gemma-2b"]


# --- published figures and hand arithmetic (no oracle needed) ------------------------------------------------


def test_the_issue_s_presets_are_bundled():
    assert set(PRESETS) <= set(preset_names())


def test_gpt2_has_124_439_808_parameters():
    """The figure every GPT-2 reproduction quotes (nanoGPT, Hugging Face's model card: 124M)."""
    counts = parameter_counts(from_hf(preset("gpt2")))
    assert counts["total"] == 124_439_808
    assert counts["embedding"] == 50257 * 768 + 1024 * 768  # token and position tables
    assert counts["head"] == 0  # tied


def test_gpt2_layer_by_hand():
    """Attention 4 d² + 4 d, MLP 8 d² + 5 d, two LayerNorms 4 d; d = 768."""
    d = 768
    per_layer = parameter_counts(from_hf(preset("gpt2")))["per_layer"]
    assert per_layer == {"attention": 4 * d * d + 4 * d, "mlp": 8 * d * d + 5 * d, "norms": 4 * d,
                         "total": 12 * d * d + 13 * d}


def test_published_sizes_of_the_presets():
    """Model cards: Llama 3 8B 8.03B, Mistral 7B 7.24B, Mixtral 46.7B total / 12.9B active, Qwen2 0.49B."""
    def billions(name, key="total"):
        return round(parameter_counts(from_hf(preset(name)))[key] / 1e9, 2)

    assert billions("llama-3-8b") == 8.03
    assert billions("mistral-7b") == 7.24
    assert billions("mixtral-8x7b") == 46.70
    assert billions("mixtral-8x7b", "active") == 12.88
    assert billions("qwen2-0.5b") == 0.49
    assert billions("gpt2-xl") == 1.56


def test_kv_cache_of_llama_3_8b_by_hand():
    """2 (K, V) x 32 layers x 8 KV heads x 128 dims x 2 bytes = 128 KiB per token; MHA would be 4x."""
    cache = kv_cache(from_hf(preset("llama-3-8b")), batch=4, seq=8192, dtype="bf16")
    assert cache["bytes_per_token"] == 2 * 32 * 8 * 128 * 2 == 131072
    assert cache["bytes"] == 131072 * 4 * 8192
    assert cache["multi_head_bytes_per_token"] == 4 * 131072


def test_mistral_s_rolling_buffer_holds_the_window():
    """Mistral 7B's window W = 4096: 32k tokens cache 4096 (the paper's 8x saving at 32k); shorter ones all."""
    config = from_hf(preset("mistral-7b"))
    per_token = 2 * 32 * 8 * 128 * 2
    assert kv_cache(config, 1, 32768)["bytes"] == per_token * 4096
    assert kv_cache(config, 1, 1000)["bytes"] == per_token * 1000


@pytest.mark.parametrize(("dtype", "width"), [("fp32", 4), ("bf16", 2), ("fp16", 2), ("int8", 1)])
def test_kv_cache_scales_with_the_dtype(dtype, width):
    assert kv_cache(from_hf(preset("gpt2")), 1, 1, dtype)["bytes_per_token"] == 2 * 12 * 768 * width


def test_forward_flops_of_a_tiny_model_by_hand():
    """d=4, h=2, 1 layer, d_ff=8, V=10, B=1, L=3: every matmul written out."""
    cfg = LLMConfig("llama", vocab_size=10, d_model=4, n_layers=1, n_heads=2, n_kv_heads=1, head_dim=2, d_ff=8)
    t = 3
    expected = (2 * t * 4 * 4  # q: (3, 4) @ (4, 4)
                + 2 * 2 * t * 4 * 2  # k, v: (3, 4) @ (4, 2)
                + 2 * (2 * 2 * 3 * 3 * 2)  # scores and weighted values: 2 heads, (3, 2) @ (2, 3), (3, 3) @ (3, 2)
                + 2 * t * 4 * 4  # o
                + 3 * 2 * t * 4 * 8  # gate, up, down
                + 2 * t * 4 * 10  # head
                + 2 * t * 1)  # RoPE's angles: positions (3, 1) @ inverse frequencies (1, 1)
    flops = forward_flops(cfg, 1, 3)
    assert flops["forward"] == expected
    assert flops["training_step"] == 3 * (expected - 6) + 6  # the angle table has no backward
    assert flops["per_token"] == expected // 3


def test_adamw_and_activation_memory_by_hand():
    """16 bytes per parameter both ways; Korthikanti et al. eq. (1): s b h (34 + 5 a s / h) per layer."""
    cfg = from_hf(preset("gpt2"))
    n = 124_439_808
    memory = training_memory(cfg, batch=2, seq=1024)
    assert memory["adamw_fp32"] == {"weights": 4 * n, "gradients": 4 * n, "adam_moments": 8 * n, "total": 16 * n}
    assert memory["adamw_mixed"]["total"] == 16 * n and memory["adamw_mixed"]["master_weights"] == 4 * n
    s, b, h, a = 1024, 2, 768, 12
    assert memory["activations"]["full"] == 12 * s * b * h * (34 + 5 * a * s // h)  # 5 a s / h = 80 here
    assert memory["activations"]["checkpointed"] == 12 * 2 * s * b * h
    assert "Korthikanti" in memory["activations"]["source"]


def test_mixture_active_parameters_drop_the_idle_experts():
    counts = parameter_counts(from_hf(preset("mixtral-8x7b")))
    assert counts["total"] - counts["active"] == 32 * (8 - 2) * 3 * 4096 * 14336


# --- transformers as the oracle ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle():
    torch = pytest.importorskip("torch", reason="torch runs the transformers oracle (CI installs it)")
    transformers = pytest.importorskip("transformers", reason="transformers is the accounting oracle (CI installs it)")
    transformers.logging.set_verbosity_error()  # drawn vocabularies are smaller than the configs' default token ids
    return torch, transformers


def meta_model(oracle, config: dict):
    """transformers' model for a config.json dict, on the meta device: shapes, no memory."""
    torch, transformers = oracle
    fields = {key: value for key, value in config.items() if key != "model_type"}
    hf_config = transformers.AutoConfig.for_model(config["model_type"], **fields)
    with torch.device("meta"):
        return transformers.AutoModelForCausalLM.from_config(hf_config, attn_implementation="eager")


def flop_counter():
    """torch's FlopCounterMode, the FLOP oracle (torch is test-only: CI installs it)."""
    return pytest.importorskip("torch.utils.flop_counter", reason="torch counts the FLOPs (CI installs it)").FlopCounterMode


def counted_flops(oracle, model, batch: int, seq: int) -> int:
    torch, _ = oracle
    FlopCounterMode = flop_counter()

    ids = torch.zeros((batch, seq), dtype=torch.long, device="meta")
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(ids)
    return counter.get_total_flops()


@pytest.mark.parametrize("name", PRESETS)
def test_preset_parameters_equal_transformers_exactly(oracle, name):
    config = preset(name)
    model = meta_model(oracle, config)
    counts = parameter_counts(from_hf(config))
    assert counts["total"] == sum(p.numel() for p in model.parameters())
    embedding = model.get_input_embeddings().weight.numel()
    if config["model_type"] == "gpt2":
        embedding += model.transformer.wpe.weight.numel()
    assert counts["embedding"] == embedding


LLAMA_3_1_8B = {  # meta-llama/Llama-3.1-8B's config.json: Llama 3's sizes, a scaled RoPE, 128k positions
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                            "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
    "vocab_size": 128256}


def test_llama_3_1_with_its_scaled_rope_against_transformers(oracle):
    model = meta_model(oracle, LLAMA_3_1_8B)
    config = from_hf(LLAMA_3_1_8B)
    assert parameter_counts(config)["total"] == sum(p.numel() for p in model.parameters()) == 8_030_261_248
    assert forward_flops(config, 1, 64)["forward"] == counted_flops(oracle, model, 1, 64)


def test_mixtral_active_parameters_against_transformers(oracle):
    """Active = all parameters minus, in every layer, the (E - k) experts a token does not visit."""
    config = preset("mixtral-8x7b")
    model = meta_model(oracle, config)
    experts = model.model.layers[0].mlp.experts
    one_expert = experts.gate_up_proj[0].numel() + experts.down_proj[0].numel()
    idle = config["num_hidden_layers"] * (config["num_local_experts"] - config["num_experts_per_tok"]) * one_expert
    assert parameter_counts(from_hf(config))["active"] == sum(p.numel() for p in model.parameters()) - idle


@pytest.mark.parametrize("name", [p for p in PRESETS if p != "mixtral-8x7b"])
def test_preset_forward_flops_match_flop_counter(oracle, name):
    config = preset(name)
    counted = counted_flops(oracle, meta_model(oracle, config), batch=2, seq=128)
    assert forward_flops(from_hf(config), 2, 128)["forward"] == counted  # exact; the issue asks within 0.5%


@st.composite
def configs(draw, dense: bool = False):
    """A config.json of any supported type with sizes a real model could have (scaled down)."""
    types = ["gpt2", "llama", "mistral", "qwen2", "gemma"] + ([] if dense else ["mixtral"])
    model_type = draw(st.sampled_from(types))
    kv_heads = draw(st.integers(1, 4))
    heads = kv_heads * draw(st.integers(1, 4))
    head_dim = 2 * draw(st.integers(1, 16))
    common = {"vocab_size": draw(st.integers(1, 3000))}
    if model_type == "gpt2":
        return {"model_type": "gpt2", "n_embd": heads * head_dim, "n_head": heads, "n_layer": draw(st.integers(1, 4)),
                "n_positions": draw(st.integers(1, 600)), "n_inner": draw(st.none() | st.integers(1, 300)),
                "tie_word_embeddings": draw(st.booleans()), **common}
    config = {"model_type": model_type, "hidden_size": heads * draw(st.integers(1, 50)), "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "head_dim": head_dim, "num_hidden_layers": draw(st.integers(1, 4)),
              "intermediate_size": draw(st.integers(1, 400)), "tie_word_embeddings": draw(st.booleans()), **common}
    if model_type == "llama":
        config |= {"attention_bias": draw(st.booleans()), "mlp_bias": draw(st.booleans())}
    if model_type == "mixtral":
        experts = draw(st.integers(1, 8))
        config |= {"num_local_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts))}
    return config


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(config=configs())
def test_drawn_configs_parameters_equal_transformers_exactly(oracle, config):
    model = meta_model(oracle, config)
    assert parameter_counts(from_hf(config))["total"] == sum(p.numel() for p in model.parameters())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(config=configs(dense=True), batch=st.integers(1, 3), seq=st.integers(1, 64))
def test_drawn_configs_forward_flops_match_flop_counter(oracle, config, batch, seq):
    counted = counted_flops(oracle, meta_model(oracle, config), batch, seq)
    assert forward_flops(from_hf(config), batch, seq)["forward"] == counted


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(experts=st.integers(1, 6), data=st.data(), batch=st.integers(1, 3), seq=st.integers(1, 9))
def test_mixture_flops_match_the_counter_on_a_real_mixtral(oracle, experts, data, batch, seq):
    """Routing needs real numbers, so a small real Mixtral with transformers' eager experts (its default
    grouped_mm is not an op the counter knows): router plus each token's top-k experts, exactly."""
    torch, transformers = oracle
    FlopCounterMode = flop_counter()

    config = {"model_type": "mixtral", "hidden_size": 16, "num_attention_heads": 4, "num_key_value_heads": 2,
              "num_hidden_layers": 2, "intermediate_size": 24, "vocab_size": 37, "num_local_experts": experts,
              "num_experts_per_tok": data.draw(st.integers(1, experts))}
    fields = {key: value for key, value in config.items() if key != "model_type"}
    model = transformers.AutoModelForCausalLM.from_config(
        transformers.AutoConfig.for_model("mixtral", **fields), attn_implementation="eager",
        experts_implementation="eager")
    ids = torch.randint(0, 37, (batch, seq), generator=torch.Generator().manual_seed(experts))
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(ids)
    assert forward_flops(from_hf(config), batch, seq)["forward"] == counter.get_total_flops()


def test_training_step_is_forward_and_backward_as_counted(oracle):
    """The counter over forward and backward of a real (tiny) GPT-2 sees exactly 3x the forward matmuls."""
    torch, transformers = oracle
    FlopCounterMode = flop_counter()

    config = {"model_type": "gpt2", "n_embd": 16, "n_head": 4, "n_layer": 2, "n_positions": 32, "vocab_size": 50}
    fields = {key: value for key, value in config.items() if key != "model_type"}
    model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model("gpt2", **fields))
    ids = torch.zeros((3, 9), dtype=torch.long)
    with FlopCounterMode(display=False) as counter:
        model(ids).logits.sum().backward()
    assert forward_flops(from_hf(config), 3, 9)["training_step"] == counter.get_total_flops()


@pytest.mark.parametrize("name", ["gpt2", "llama-3-8b", "mistral-7b", "qwen2-0.5b", "gemma-2b", "mixtral-8x7b"])
def test_kv_cache_equals_what_transformers_caches(oracle, name):
    """A scaled-down model of the preset's kind (its heads and KV heads, smaller sizes) run in bfloat16:
    the bytes in transformers' cache after L tokens are bytes_per_token x B x L."""
    torch, transformers = oracle
    config = preset(name)
    small = dict(config)
    if config["model_type"] == "gpt2":
        small |= {"n_layer": 2, "n_embd": 2 * 8, "n_head": 2, "vocab_size": 11}
    else:
        small |= {"num_hidden_layers": 2, "hidden_size": 4 * config["num_attention_heads"], "head_dim": 4,
                  "intermediate_size": 8, "vocab_size": 11}
    fields = {key: value for key, value in small.items() if key != "model_type"}
    model = transformers.AutoModelForCausalLM.from_config(
        transformers.AutoConfig.for_model(small["model_type"], **fields), dtype=torch.bfloat16)
    batch, seq = 2, 5  # shorter than Mistral's window: every token is kept
    with torch.no_grad():
        cache = model(torch.zeros((batch, seq), dtype=torch.long), use_cache=True).past_key_values
    held = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    assert kv_cache(from_hf(small), batch, seq, "bf16")["bytes"] == held


def test_adamw_moments_equal_torch_s_state(oracle):
    """torch.optim.AdamW keeps exp_avg and exp_avg_sq in fp32: 8 bytes per parameter."""
    torch, transformers = oracle
    config = {"model_type": "llama", "hidden_size": 16, "num_attention_heads": 4, "num_key_value_heads": 2,
              "num_hidden_layers": 2, "intermediate_size": 24, "vocab_size": 30}
    fields = {key: value for key, value in config.items() if key != "model_type"}
    model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model("llama", **fields))
    optimizer = torch.optim.AdamW(model.parameters())
    model(torch.zeros((1, 4), dtype=torch.long)).logits.sum().backward()
    optimizer.step()
    moments = sum(t.nbytes for state in optimizer.state.values() for key, t in state.items() if key != "step")
    grads = sum(p.grad.nbytes for p in model.parameters())
    memory = training_memory(from_hf(config))["adamw_fp32"]
    assert memory["adam_moments"] == moments
    assert memory["gradients"] == grads

"""The registry: the 37 names decks refer to, typed parameters, validation."""

from __future__ import annotations

import numpy as np
import pytest

from studytool.problems import registry

CONTRACT_NAMES = {
    "layer_norm", "batch_norm", "positional_encoding", "softmax", "attention_scores", "multi_head_shapes",
    "causal_mask", "padding_mask", "teacher_forcing", "cross_attention_shapes", "ffn_shapes", "param_count",
    "attention_cost",
    # what interviewers ask next (the interview-next deck)
    "kv_cache", "tied_embeddings", "transformer_params", "warmup_lr", "temperature_softmax", "rms_norm", "rope_score",
    "beam_search",
    # Post-LN vs Pre-LN (issue 16's level 3: stacks)
    "pre_post_ln",
    # the LLM era (the llm-interview deck)
    "gqa_kv_cache", "training_memory", "activation_memory", "weight_memory", "llm_flops", "chinchilla", "speculative_tokens",
    "decoder_params", "moe_params", "lora_params", "online_softmax", "bpe_merges", "nucleus_sampling",
    "position_scaling", "dpo_loss",
}


def test_the_registry_holds_exactly_the_contract_names():
    assert set(registry.names()) == CONTRACT_NAMES


def test_unknown_generator_is_a_key_error():
    with pytest.raises(KeyError, match="layer_norm"):
        registry.get("layernorm")


@pytest.mark.parametrize("name", sorted(CONTRACT_NAMES))
def test_every_param_has_a_description_and_a_valid_default(name):
    generator = registry.get(name)
    assert "ask" in generator.params
    for param in generator.params.values():
        assert param.description
        assert param.problem(param.default) is None
    assert generator.validate({}) == []
    assert generator.validate(generator.example_params) == []


def test_unknown_and_bad_params_each_get_a_message():
    problems = registry.get("layer_norm").validate({"sizes": 4, "size": 20, "x": [3, 3, 3], "ask": "median"})
    assert len(problems) == 4
    assert any("sizes" in p and "unknown" in p for p in problems)
    assert any(p.startswith("size:") for p in problems)
    assert any(p.startswith("x:") and "equal" in p for p in problems)
    assert any(p.startswith("ask:") and "median" in p for p in problems)


@pytest.mark.parametrize(("name", "params", "fragment"), [
    ("multi_head_shapes", {"d_model": 100, "n_heads": 8}, "divisible"),
    ("cross_attention_shapes", {"src_len": 7, "tgt_len": 7}, "differ"),
    ("batch_norm", {"batch": 4, "features": 4}, "at most 12"),
    ("padding_mask", {"lengths": [3, 7], "max_len": 5}, "max_len"),
    ("teacher_forcing", {"target": ["我", "爱"], "t": 5}, "at most"),
    ("layer_norm", {"x": [1, 2, 3], "size": 4}, "size"),
    ("causal_mask", {"n": 3, "t": 3}, "below"),
    ("layer_norm", {"low": 0, "high": 2, "size": 5}, "distinct"),
])
def test_inconsistent_params_are_reported(name, params, fragment):
    problems = registry.get(name).validate(params)
    assert len(problems) == 1 and fragment in problems[0]


def test_draw_refuses_bad_params():
    with pytest.raises(ValueError, match="unknown parameter"):
        registry.get("softmax").draw(np.random.default_rng(0), warmth=2)   # (temperature is one since issue 23)


def test_yaml_style_values_are_checked_for_type():
    generator = registry.get("param_count")
    assert generator.validate({"d_model": "512"})
    assert generator.validate({"d_model": True})
    assert generator.validate({"convention": "paper"})
    assert registry.get("batch_norm").validate({"x": [[1, 2], [3]]})


def test_pinned_params_override_drawing():
    v = registry.get("multi_head_shapes").draw(np.random.default_rng(7), batch=4, seq_len=9, d_model=96, n_heads=3,
                                               ask="split")
    assert v.answer == (4, 9, 3, 32)


LIGHT_PROBE = """
import sys
from studytool.problems import registry
for name in registry.names():
    registry.get(name).validate(registry.get(name).example_params)
print(" ".join(m for m in ("numpy", "studytool.engine") if m in sys.modules))
"""


def test_listing_and_checking_generators_imports_neither_numpy_nor_the_engine():
    """What the deck loader does: every family module is imported to find its generators, none imports NumPy."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", LIGHT_PROBE], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.split() == []


def test_the_probe_sees_numpy_once_a_generator_draws():
    import subprocess
    import sys

    probe = LIGHT_PROBE.replace("validate(registry.get(name).example_params)", "example()")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.split() == ["numpy", "studytool.engine"]


def test_a_generator_is_declared_in_its_family_module():
    assert registry.get("param_count").function.__module__ == "studytool.problems.params"
    assert registry.get("layer_norm").function.__module__ == "studytool.problems.norms"


def test_two_generators_of_one_name_in_different_modules_are_refused():
    def impostor(rng, **params):
        raise AssertionError("never drawn")

    impostor.__module__ = "somewhere.else"
    with pytest.raises(ValueError, match="two generators are called 'softmax'"):
        registry.generator("softmax", "a second softmax", asks=("all",), params=(), example={})(impostor)
    assert registry.get("softmax").function.__module__ == "studytool.problems.attention"

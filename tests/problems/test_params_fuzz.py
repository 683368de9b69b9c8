"""Any mix of pinned and drawn parameters: either `validate` names the problem, or the draw works."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studytool.problems import registry
from studytool.problems.answers import format_answer, grade

small = st.integers(-9, 9)
matrix = st.integers(1, 4).flatmap(
    lambda cols: st.lists(st.lists(st.integers(-3, 3), min_size=cols, max_size=cols), min_size=1, max_size=4))

VALUES = {
    "x": st.lists(small, min_size=2, max_size=8) | st.lists(st.lists(small, min_size=2, max_size=3), min_size=2,
                                                            max_size=3),
    "size": st.integers(1, 9), "low": st.integers(-10, 10), "high": st.integers(-10, 10),
    "scale": st.integers(0, 6), "shift": st.integers(-6, 6),
    "batch": st.integers(1, 70), "features": st.integers(1, 4), "seq_len": st.integers(1, 130),
    "d_model": st.integers(1, 1100), "n_heads": st.integers(1, 20), "src_len": st.integers(1, 70),
    "tgt_len": st.integers(1, 70), "d_ff": st.integers(1, 5000), "vocab": st.integers(1, 50000),
    "num_layers": st.integers(1, 13), "pos": st.integers(0, 20), "j": st.integers(0, 10), "n": st.integers(1, 13),
    "t": st.integers(0, 12), "lengths": st.lists(st.integers(1, 12), min_size=1, max_size=6),
    "max_len": st.integers(1, 12), "q": matrix, "k": matrix, "v": matrix, "len_q": st.integers(1, 3),
    "len_k": st.integers(1, 5), "d_k": st.integers(1, 5),
    "target": st.lists(st.sampled_from(["我", "爱", "AI", "深度", "学习", "狗", "猫"]), min_size=1, max_size=7,
                       unique=True),
    "source": st.sampled_from(["I love AI", "deep learning"]), "convention": st.sampled_from(["notes", "full"]),
    "bytes_per_value": st.integers(0, 5), "warmup": st.integers(0, 10_000), "step": st.integers(0, 100_000),
    "logits": st.lists(st.integers(-25, 25), min_size=1, max_size=7),
    "temperature": st.floats(-1, 10) | st.sampled_from([0.25, 0.5, 2.0]), "m": st.integers(0, 12),
    "p_first": st.sampled_from([0.0, 0.5, 0.55, 0.6, 1.2]), "x_after_a": st.sampled_from([0.3, 0.5, 0.55, 0.9]),
    "x_after_b": st.sampled_from([0.1, 0.8, 0.95, 2.0]),
    "norm_first": st.booleans() | st.sampled_from([0, "yes"]), "decimals": st.booleans(), "bias": st.booleans(),
    "sublayer": st.sampled_from(["attention", "ffn", "layer", "mlp"]), "decoder_layers": st.integers(0, 13),
    "pad": st.integers(0, 7), "part": st.integers(-1, 4), "other": st.integers(0, 20), "masked": st.integers(-1, 6), "memory": st.sampled_from([0, 1, 2, 3, 4, True]), "d_ff_multiple": st.integers(0, 17),
    "share": st.sampled_from(["1/2", "2/3", "0.5", 3]), "scaled": st.booleans() | st.sampled_from([0, "yes"]),
    "kv_heads": st.integers(0, 9), "padded": st.booleans() | st.sampled_from([1]),
    "flat": st.booleans() | st.sampled_from([1]), "by_sight": st.booleans() | st.sampled_from([1]),
    "gain": st.lists(st.integers(-3, 3) | st.sampled_from([0.5, 1.5]), min_size=2, max_size=8),
    "residual": st.lists(st.integers(-5, 5), min_size=2, max_size=9),
    "gamma": st.lists(st.integers(-3, 3) | st.sampled_from([0.5, 1.5]), min_size=2, max_size=5),
    "beta": st.lists(st.integers(-3, 3), min_size=2, max_size=5),
    "w": st.lists(st.integers(-3, 3) | st.sampled_from([0.5, -1.5]), min_size=2, max_size=7),
    # the LLM era (llm-interview deck)
    "n_kv_heads": st.integers(0, 20), "head_dim": st.integers(1, 300), "block_size": st.integers(0, 64),
    "named_dtype": st.booleans() | st.just(1), "params_billion": st.floats(0, 2000), "gpus": st.integers(0, 600),
    "setup": st.sampled_from(["fp32_adamw", "mixed_master", "bf16_all", "adam"]), "stage": st.integers(0, 4),
    "gpu_memory": st.integers(0, 200), "bits": st.integers(0, 17), "group": st.integers(0, 512),
    "embed_billion": st.floats(0, 5), "context": st.integers(0, 5000), "tokens_billion": st.floats(0, 20000),
    "peak_tflops": st.sampled_from([0, 312, 989]), "utilization": st.floats(0, 1.2),
    "throughput": st.floats(0, 1e6), "step_tokens": st.integers(0, 2**22), "step_seconds": st.floats(0, 20),
    "compute": st.floats(0, 1e5), "days": st.floats(0, 100), "alpha": st.floats(0, 1), "gamma": st.integers(0, 70),
    "cost": st.floats(0, 1.5), "gqa": st.booleans(), "experts": st.integers(0, 40), "top_k": st.integers(0, 9),
    "rank": st.integers(0, 70), "targets": st.sampled_from(["qv", "attention", "all", "mlp"]),
    "scores": st.lists(st.integers(-5, 5), min_size=3, max_size=9), "values": st.lists(small, min_size=3, max_size=9),
    "blocks": st.integers(1, 4), "block_keys": st.integers(1, 4), "merges": st.integers(-1, 7),
    "words": st.dictionaries(st.sampled_from(["low", "lower", "newest", "widest", "ab", "Zed", "tree"]),
                             st.integers(0, 12), min_size=1, max_size=5),
    "probs": st.lists(st.sampled_from([0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.0]), min_size=2, max_size=7),
    "p": st.sampled_from([0.0, 0.5, 0.75, 0.9, 1.0, 1.5]), "word": st.integers(0, 6),
    "from_logits": st.booleans(), "head": st.integers(0, 20), "distance": st.integers(0, 30),
    "farther": st.integers(0, 40), "base": st.sampled_from([1, 10000, 500000]), "position": st.integers(0, 10**6),
    "policy_chosen": st.floats(-50, 1), "policy_rejected": st.floats(-50, 1), "ref_chosen": st.floats(-50, 1),
    "ref_rejected": st.floats(-50, 1), "per_token": st.booleans(), "beta": st.sampled_from([0, 0.1, 0.5, 20]),
    "tokens": st.just({"policy_chosen": [-1.0, -2.0], "policy_rejected": [-3.0, -0.5], "ref_chosen": [-1.5, -2.0],
                       "ref_rejected": [-2.0, -1.0]}) | st.just({"policy_chosen": [1.0]}),
}


def params_for(name: str):
    generator = registry.get(name)
    fields = {p: st.sampled_from(generator.params["ask"].choices) if p == "ask" else VALUES[p]
              for p in generator.params}
    return st.fixed_dictionaries({}, optional=fields)


@pytest.mark.parametrize("name", registry.names())
def test_valid_params_draw_and_grade_invalid_ones_are_refused(name):
    generator = registry.get(name)

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(params_for(name), st.integers(0, 2**32 - 1))
    def check(params, seed):
        problems = generator.validate(params)
        rng = np.random.default_rng(seed)
        if problems:
            with pytest.raises(ValueError):
                generator.draw(rng, **params)
            return
        variant = generator.draw(rng, **params)
        if variant.kind not in ("choice", "sequence"):
            flat = np.asarray(variant.answer, dtype=float).ravel()
            assert all(math.isfinite(x) for x in flat)
        assert grade(variant, format_answer(variant)).correct

    check()

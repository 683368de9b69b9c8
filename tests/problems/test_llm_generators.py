"""The LLM-era generators (the llm-interview deck): right against torch and the papers' numbers, and fair items by
issue 23's rules at every level (sizes stated, varied answers, no answer on screen, level 3 a longer question, no
knowledge-free rule beating chance)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from llm_oracles import INDEPENDENT, bpe
from studytool.decks.loader import load_deck_file
from studytool.problems import registry
from studytool.problems.answers import AnswerFormatError, format_answer, grade

DECK = Path(__file__).parents[2] / "studytool" / "decks" / "bundled" / "llm-interview.yaml"
CARDS = [card for card in load_deck_file(DECK).cards if card.kind == "generated"]
SEEDS = range(100)


def draw(name: str, seed: int = 0, **params):
    return registry.get(name).draw(np.random.default_rng(seed), **params)


# --- facts every interviewer checks, from the models' own published counts --------------------------------------


def test_the_famous_parameter_counts():
    assert draw("decoder_params", ask="gpt", vocab=50257, context=1024, d_model=768, num_layers=12).answer == 124_439_808
    llama3 = dict(vocab=128256, d_model=4096, num_layers=32, n_heads=32, n_kv_heads=8, d_ff=14336)
    assert draw("decoder_params", ask="llama", **llama3).answer == 8_030_261_248          # Meta-Llama-3-8B
    llama2 = dict(vocab=32000, d_model=4096, num_layers=32, n_heads=32, n_kv_heads=32, d_ff=11008)
    assert draw("decoder_params", ask="llama", **llama2).answer == 6_738_415_616          # Llama-2-7b
    mixtral = dict(d_model=4096, d_ff=14336, num_layers=32, experts=8, top_k=2, vocab=32000, n_heads=32, n_kv_heads=8)
    assert draw("moe_params", ask="total", **mixtral).answer == 46_702_792_704            # Mixtral-8x7B: 46.7B
    assert draw("moe_params", ask="active", **mixtral).answer == 12_879_925_248           # 12.9B active


def test_the_papers_worked_numbers():
    kv = dict(num_layers=32, n_heads=32, n_kv_heads=8, head_dim=128, bytes_per_value=2, batch=1, seq_len=8192)
    assert draw("gqa_kv_cache", ask="per_token", **kv).answer == 128                       # Llama-3-8B, bf16: 128 KiB
    zero = {stage: draw("training_memory", ask="zero", params_billion=7.5, gpus=64, stage=stage).answer
            for stage in (1, 2, 3)}
    assert [round(zero[s], 1) for s in (1, 2, 3)] == [31.4, 16.6, 1.9]                     # ZeRO's Figure 1
    chinchilla = draw("chinchilla", ask="params", compute=576).answer                      # C = 5.76e23
    assert 69 < chinchilla < 70 and draw("chinchilla", ask="tokens", compute=576).answer == pytest.approx(20 * chinchilla)
    assert draw("speculative_tokens", ask="expected", alpha=0.8, gamma=4).answer == pytest.approx(3.3616)
    assert draw("lora_params", ask="count", d_model=4096, rank=8, num_layers=32).answer == 4_194_304
    assert draw("weight_memory", ask="grouped", params_billion=7, bits=4, group=128).answer == pytest.approx(3.609375)
    gpt2_token = draw("llm_flops", ask="forward_token", num_layers=12, d_model=768, context=1024, vocab=50257).answer
    assert gpt2_token == 12 * 24 * 768**2 + 12 * 4 * 1024 * 768 + 2 * 768 * 50257        # 284,812,800
    assert draw("position_scaling", ask="alibi", n_heads=8, head=1, distance=3).answer == -1.5   # slope 1/2


def test_the_bpe_merges_are_cs336s_handout_example():
    # CS336 assignment 1 §2.5: s t, e st, o w, l ow, w est, n e (ties to the lexicographically greater pair)
    words = {"low": 5, "lower": 2, "widest": 3, "newest": 6}
    learned, _ = bpe(words, 6)
    assert learned == [("s", "t"), ("e", "st"), ("o", "w"), ("l", "ow"), ("w", "est"), ("n", "e")]
    for k, pair in enumerate(learned):
        v = draw("bpe_merges", ask="next_pair", words=words, merges=k)
        assert v.options[next(iter(v.answer))] == f"{pair[0]} + {pair[1]}"


# --- against torch ------------------------------------------------------------------------------------------------


def test_online_softmax_is_torchs_attention_row():
    torch = pytest.importorskip("torch", reason="torch is the oracle of the attention row")
    for seed in range(50):
        v = draw("online_softmax", seed, ask="output", blocks=3 if seed % 2 else 2)
        scores, values = (torch.tensor(v.params[k], dtype=torch.float64) for k in ("scores", "values"))
        assert v.answer == pytest.approx(float(torch.softmax(scores, 0) @ values), abs=1e-12)


def test_truncated_sampling_is_torchs_softmax_renormalised():
    torch = pytest.importorskip("torch", reason="torch is the oracle of softmax")
    for seed in range(60):
        v = draw("nucleus_sampling", seed, ask="top_p" if seed % 2 else "top_k", from_logits=True)
        probs = torch.softmax(torch.tensor(v.params["logits"], dtype=torch.float64) / v.params["temperature"], 0)
        ranked, order = torch.sort(probs, descending=True)
        keep = v.params["k"] if "k" in v.params else int((torch.cumsum(ranked, 0) < v.params["p"]).sum()) + 1
        kept = order[:keep]
        assert v.answer == pytest.approx(float(probs[v.params["word"]] / probs[kept].sum()), abs=1e-12)
        assert v.params["word"] in kept.tolist()


def test_dpo_loss_is_torchs_logsigmoid():
    torch = pytest.importorskip("torch", reason="torch is the oracle of log-sigmoid")
    for seed in range(50):
        v = draw("dpo_loss", seed, ask="loss", per_token=bool(seed % 2))
        margin = draw("dpo_loss", seed, **{**v.params, "ask": "margin"}).answer
        assert v.answer == pytest.approx(-float(torch.nn.functional.logsigmoid(torch.tensor(margin, dtype=torch.float64))),
                                         abs=1e-12)
    assert registry.get("dpo_loss").example().answer == pytest.approx(math.log1p(math.exp(-0.2)))   # the example


def test_prefill_flops_are_what_torchs_flop_counter_counts():
    torch = pytest.importorskip("torch", reason="torch's FlopCounterMode is the oracle of FLOPs")
    from torch.utils.flop_counter import FlopCounterMode

    n, d, length, vocab = 2, 64, 32, 500
    x = torch.randn(1, length, d)
    layers = [(torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d), torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d))
              for _ in range(n)]
    head = torch.nn.Linear(d, vocab, bias=False)
    with FlopCounterMode(display=False) as counter:   # a dense GPT block, four heads, every L x L score computed
        for qkv, out, up, down in layers:
            q, k, val = qkv(x).view(1, length, 3, 4, d // 4).permute(2, 0, 3, 1, 4)
            weights = torch.softmax(q @ k.transpose(-1, -2) / 4, -1)
            x = x + out((weights @ val).transpose(1, 2).reshape(1, length, d))
            x = x + down(torch.nn.functional.gelu(up(x)))
        head(x)
    counted = counter.get_total_flops()
    attention = draw("llm_flops", ask="attention", num_layers=n, d_model=d, context=length, vocab=vocab).answer
    share = draw("llm_flops", ask="attention_share", num_layers=n, d_model=d, context=length, vocab=vocab).answer
    assert attention / share == pytest.approx(counted, rel=1e-12)


# --- issue 23: a fair item at every level --------------------------------------------------------------------------


def shown(card, level):
    return [card.pose(seed, level=level) for seed in SEEDS]


def copied(v) -> bool:
    """A number written in the prompt, typed back, is graded right."""
    for text in re.findall(r"-?\d[\d,]*(?:\.\d+)?", v.prompt.replace("−", "-")) if v.kind == "scalar" else ():
        try:
            if grade(v, text).correct:
                return True
        except AnswerFormatError:
            continue
    return False


def steps(variants) -> float:
    return sum(len(v.solution) for v in variants) / len(variants)


@pytest.mark.parametrize("card", CARDS, ids=lambda card: card.id)
def test_each_card_is_a_fair_item_at_every_level(card):
    levels = {level: shown(card, level) for level in (1, 2, 3)}
    for level, variants in levels.items():
        assert all(v.level == level for v in variants), f"level {level} fell back to level 1"
        if variants[0].kind != "choice":
            assert len({format_answer(v) for v in variants}) >= 20, f"level {level}: few distinct answers"
        for v in variants:
            assert grade(v, format_answer(v)).correct
            assert not copied(v), f"level {level}: the answer is on screen: {v.prompt}"
            assert INDEPENDENT[v.generator](v.params, v) is True or math.isclose(
                INDEPENDENT[v.generator](v.params, v), v.answer, rel_tol=1e-9, abs_tol=1e-9)
    assert steps(levels[3]) > steps(levels[1]), "level 3 must ask at least one more step than level 1"
    assert all(v.kind in ("scalar", "choice") for v in levels[1])   # one number (or a letter) to type at level 1


def test_no_blind_rule_answers_the_bpe_choice():
    """First option, longest option, the pair of the most repeated letters: none beats chance (25%) by 10 points."""
    firsts = longest = 0
    variants = [draw("bpe_merges", seed, level=level, ask="next_pair") for seed in range(100) for level in (1, 2, 3)]
    for v in variants:
        (key,) = v.answer
        firsts += key == 0
        widths = [len(option) for option in v.options]
        longest += widths[key] == max(widths) and widths.count(max(widths)) == 1
    assert firsts / len(variants) <= 0.35 and longest / len(variants) <= 0.35


def test_the_training_setups_bytes_are_the_engines_adamw_accounting():
    """training_memory's questions are per parameter, the engine's accounting per model: they agree on AdamW."""
    from studytool import engine
    from studytool.problems.llm_memory import training_bytes

    config = engine.LLMConfig("llama", vocab_size=1000, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, head_dim=16,
                              d_ff=128)
    memory, n = engine.training_memory(config), engine.parameter_counts(config)["total"]
    assert memory["adamw_fp32"]["total"] == training_bytes("fp32_adamw") * n == 16 * n
    assert memory["adamw_mixed"]["total"] == training_bytes("mixed_master") * n
    assert engine.kv_cache(config, 3, 7, "bf16")["bytes"] == draw(
        "gqa_kv_cache", ask="total", num_layers=2, n_heads=4, n_kv_heads=2, head_dim=16, bytes_per_value=2, batch=3,
        seq_len=7).answer * 2**30

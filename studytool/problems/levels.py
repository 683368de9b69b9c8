"""Levels: a generated card's questions grow as the learner masters it.

Level 1 is each generator's defaults at the notes' sizes: vectors of 3-4 numbers,
matrices of at most 3 x 3, d_model 3-4 for a PE row, small B and L, and at most 4
computed (non-integer) numbers to type (a larger result is asked one row or one
entry at a time; 0/1 mask rows are not computed numbers). Level 2 is in between:
more of the same method, longer vectors and wider ranges with negatives, odd
d_model and heads that are not a power of two, at most 8 computed numbers to type.
Level 3 asks a combined question, one more reasoning step than level 1 that the
worked solution shows (LayerNorm then the residual add, softmax with a
temperature and a mask, ...), never only bigger numbers. Some generators combine
already at level 2 (the causal mask with padded keys, an encoder-decoder's norms)
or grow by closeness rather than size (beam search's closer calls). Every level is
held to level 1's fairness: 20 answers in a hundred showings unless few by nature,
no rule that needs no knowledge beating chance, and no draw a known wrong method
also answers (`decks audit`, `studytool/decks/fairness.py`, tests/problems/test_levels.py).

A showing's level follows the card's FSRS stability (`level_for`): under 7 days
1, 7 to 30 days 2, over 30 days 3, and level 1 while the card relearns after a
lapse. `quiz --level N` and `worksheet --level N` pin it.

Each level is a set of parameter draws applied only where the card's own
`params` leave a parameter open, so a card that pins its sizes keeps them and
every level keeps each rule of a fair item (the generator's checks and
constraints validate the drawn values as they do a deck's). The one exception
is `GROWN`: every bundled card pins its sub-question, so level 3 grows a pinned
one into the combined question that contains it (the padding count into the
count with the causal mask as well, a weights-only count into the count with
biases and LayerNorms, a cross-attention K or Q shape into the rectangular
scores that need both lengths, the Q projection into Q split into heads).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

LEVELS = (1, 2, 3)
RELEARNING = 3           # the stored FSRS state of a card relearning after a lapse
STABLE_DAYS = (7.0, 30.0)  # stability thresholds between levels 1, 2 and 3

Draw = Any   # a tuple of choices, or a function rng -> value


def level_for(stability: float | None, state: int | None) -> int:
    """The level of a card's next showing from its memory state (None: a new card, level 1)."""
    if stability is None:
        return 1
    if state == RELEARNING:   # a lapse: back to the notes' sizes until the card is learnt again (issue 23)
        return 1
    return 1 + sum(stability >= days for days in STABLE_DAYS)


def _distinct(size: int, low: int, high: int, nonzero: bool = False) -> Callable[[Any], list[int]]:
    """Draw `size` distinct integers in low..high (not 0 when `nonzero`, and then with a non-zero sum: RMSNorm
    of a zero-mean vector is its LayerNorm, the wrong method's answer, and a level's vector is never redrawn)."""
    def draw(rng) -> list[int]:
        pool = [v for v in range(low, high + 1) if not (nonzero and v == 0)]
        while True:
            drawn = [int(v) for v in rng.choice(pool, size=size, replace=False)]
            if not nonzero or sum(drawn):
                return drawn
    return draw


def _unsaturated(size: int, low: int, high: int, temperatures: tuple[float, ...]) -> Callable[[Any], tuple]:
    """Logits, a temperature and a masked position (never the top logit) whose softmax over the unmasked logits
    shows no 0.0000 or 1.0000 (a near-one-hot key asks nothing)."""
    def draw(rng) -> tuple[list[int], float, int]:
        import numpy as np
        from studytool import engine
        from studytool.problems.drawing import saturated

        while True:
            logits, t = _distinct(size, low, high)(rng), temperatures[int(rng.integers(len(temperatures)))]
            weight = engine.softmax(np.asarray(logits) / t)   # a banned word whose probability is seen (>= 2%)
            masked = int(rng.choice([i for i in range(size) if i != int(np.argmax(logits))] or [0]))
            if weight[masked] < 0.02:
                continue
            if not saturated(engine.softmax(np.delete(np.asarray(logits), masked) / t)):
                return logits, t, masked
    return draw


BEAM = ("p_first", "x_after_a", "x_after_b")


def _close_call(most: float) -> Callable[[Any], tuple[float, float, float]]:
    """P(A), P(X | A), P(X | B) where the best sequences after A and after B differ by 0.01..`most`: the closer
    the call, the more the products must be worked out rather than eyed. Half the draws B's wins (greedy, A
    first, misses it), half A's."""
    def draw(rng) -> tuple[float, float, float]:
        b_wins = bool(rng.integers(3, 7) % 2)   # not level 1's rng.integers(2): each level decides afresh
        while True:
            first, flat, sharp = (int(rng.integers(lo, hi)) / 100 for lo, hi in ((52, 66), (52, 70), (70, 99)))
            margin = (1 - first) * sharp - first * flat   # B's best over A's best
            if 0.01 < (margin if b_wins else -margin) <= most:
                return (first, flat if rng.integers(2) else round(1 - flat, 2),
                        sharp if rng.integers(2) else round(1 - sharp, 2))
    return draw


# d_model with a head count that divides it: odd head counts, heads that are not a power of two
# 24 of each, every d_model and every d_k = d_model / h distinct: an answer that depends on d or d_k alone
# (a parameter count, d_k, the scale, the crossover length) then takes 20 values in 100 draws, as `decks audit` asks
_ODD_HEADS = ((96, 3), (240, 5), (360, 6), (392, 7), (648, 9), (660, 10), (480, 12), (132, 3), (260, 5), (384, 6),
              (252, 7), (720, 9), (420, 10), (600, 12), (162, 3), (350, 5), (456, 6), (588, 7), (792, 9), (460, 10),
              (696, 12), (186, 3), (340, 5), (444, 6))
_AWKWARD_HEADS = ((1200, 15), (1536, 24), (2560, 20), (1000, 8), (1800, 25), (2100, 14), (1320, 12), (2880, 30),
                  (1512, 18), (2704, 26), (1500, 15), (2160, 24), (2240, 20), (960, 8), (3400, 25), (2016, 14),
                  (1056, 12), (2280, 30), (1656, 18), (3016, 26), (1980, 15), (3360, 24), (2960, 20), (1184, 8))
HEADS = ("d_model", "n_heads")


def _targets(shortest: int, longest: int) -> tuple[tuple[str, list[str]], ...]:
    """Teacher forcing's (source, target words) pairs of `shortest`..`longest` words."""
    from studytool.problems.sentences import LONGER_SENTENCES, SENTENCES

    pairs = dict.fromkeys((*SENTENCES, *LONGER_SENTENCES))
    return tuple((source, list(words)) for source, words in pairs if shortest <= len(words) <= longest)

# query heads with the K/V heads that divide them, as GQA models ship (Llama-3 32/8, Llama-2-70B 64/8, Qwen 28/4 ...)
_GQA = ((32, 8), (40, 8), (48, 8), (64, 8), (64, 4), (96, 8), (28, 4), (24, 8), (128, 8))


def _tenths(low: int, high: int) -> Callable[[Any], float]:
    """A size in billions with one decimal, low/10 .. high/10."""
    return lambda rng: int(rng.integers(low, high)) / 10


def _budget(low: int, high: int) -> Callable[[Any], float]:
    """A compute budget m × 10^e in units of 10²¹ FLOPs, m with one decimal, e in low..high − 1."""
    return lambda rng: int(rng.integers(10, 100)) / 10 * 10.0 ** int(rng.integers(low, high))


# generator -> level -> parameter (or a tuple of parameters drawn together) -> the draw
TABLE: dict[str, dict[int, dict[Any, Draw]]] = {
    # level 3: Post-LN's Add & Norm, a sub-layer output added first (4 numbers, as level 1: the step is the growth)
    "layer_norm": {2: {"size": (6, 7), "low": (-9,), "high": (9,)},
                   3: {"size": (4,), "low": (-9,), "high": (9,), "residual": _distinct(4, -5, 5, nonzero=True),
                       "ask": ("invariance", "output")}},
    # level 3: the same 3 features with learnable γ, β applied last (one more step)
    "batch_norm": {2: {("batch", "features"): ((4, 3), (3, 4)), "low": (-9,), "high": (9,)},   # at most 12 numbers
                   3: {("batch", "features"): ((4, 3),), "low": (-20,), "high": (20,),
                       ("gamma", "beta"): lambda rng: ([int(v) for v in rng.choice([-3, -2, 2, 3, 4], 3)],
                                                       [int(v) for v in rng.choice([-2, -1, 1, 2, 3], 3)]),
                       "ask": ("output", "ln_output")}},
    # level 3: softmax with a temperature and a mask (4 scores, as level 1: the steps are the growth)
    "softmax": {2: {"size": (5,), "low": (-5,), "high": (5,)},
                3: {"size": (4,), "low": (-3,), "high": (4,), "temperature": (0.5, 1.5, 2, 4)}},
    # level 2: a row of at most 8 numbers to type
    "positional_encoding": {2: {"d_model": (5, 6, 7, 8), "pos": lambda rng: int(rng.integers(10, 60))},
                            3: {"d_model": (3, 4), "pos": lambda rng: int(rng.integers(2, 40)), "ask": ("dot",)}},
    "attention_scores": {2: {"len_q": (2,), "len_k": (3,), HEADS: _ODD_HEADS},
                         3: {"len_q": (2,), "len_k": (4,), "d_k": (4,), HEADS: _AWKWARD_HEADS, "padded": (True,),
                             "ask": ("output", "weights")}},   # level 3: the last key padded, one more step
    "multi_head_shapes": {2: {HEADS: _ODD_HEADS}, 3: {HEADS: _AWKWARD_HEADS}},
    "cross_attention_shapes": {2: {HEADS: _ODD_HEADS},
                               3: {HEADS: _AWKWARD_HEADS, ("src_len", "tgt_len"): ((37, 23), (61, 100), (45, 17))}},
    # d_ff left to the learner (4 d_model): a stated d_ff is the answer of expand, w1, w2 and d_ff, copied
    "ffn_shapes": {2: {"d_model": (96, 160, 224, 288, 360, 480, 560, 720, 800, 880, 112, 176, 208, 240, 272, 304,
                                   336, 400, 440, 520, 600, 640, 680, 760)},
                   3: {"d_model": (1000, 1200, 1400, 1800, 2200, 2560, 3000, 3600, 4200, 5000, 1100, 1300, 1500, 1600,
                                   1700, 1900, 2000, 2400, 2800, 3200, 3400, 3800, 4400, 4800),
                       "flat": (True,)}},   # level 3: B and L flattened first, as implementations do
    # level 3: the block's crossover with another d_ff than 4 d_model (worked out, not remembered as 6d)
    "attention_cost": {2: {HEADS: _ODD_HEADS}, 3: {HEADS: _AWKWARD_HEADS, "d_ff_multiple": (2, 3, 5, 6, 8)}},
    # level 3: with biases and LayerNorms, and the count's size in MiB at fp16 or fp32 (one more step)
    "param_count": {2: {HEADS: _ODD_HEADS, "convention": ("notes",)},
                    3: {HEADS: _AWKWARD_HEADS, "convention": ("full",), "memory": (2, 4)}},
    "transformer_params": {2: {HEADS: _ODD_HEADS, "num_layers": (8, 10)},
                           3: {HEADS: _AWKWARD_HEADS, "num_layers": (16, 24), "ask": ("untied",), "memory": (2, 4)}},
    # with the key padding mask, n left to each sub-question (n = 7 at level 2 made the blocked count always 21);
    # never one padded key: its rows all equal a wrong method's
    "causal_mask": {2: {"pad": (2, 3)}, 3: {"pad": (3, 4)}},
    "padding_mask": {2: {"batch": (4, 5), "max_len": (7, 8, 9)},
                     3: {"batch": (3, 4), "max_len": (5, 6), "ask": ("causal_count",)}},   # with the causal mask
    "teacher_forcing": {2: {"ask": ("visible", "labels"), ("source", "target"): _targets(4, 4)},
                        # longer sentences; level 3 names the step by what it sees (one more step)
                        3: {"ask": ("predict",), ("source", "target"): _targets(5, 6), "by_sight": (True,)}},
    "kv_cache": {2: {"bytes_per_value": (1,), "num_layers": (20, 24, 28, 36, 40, 44)},
                 # level 3: grouped-query attention at the drawn dtype (one more step)
                 3: {"num_layers": (48, 60, 80, 96), "d_model": (2048, 3072, 4096, 5120, 8192),
                     ("n_heads", "kv_heads"): ((32, 8), (32, 4), (16, 4), (32, 2), (64, 8), (16, 2)),
                     "ask": ("total",)}},
    "tied_embeddings": {2: {"vocab": (30522, 32000, 32768, 40000, 50257), "d_model": (768, 1024, 1280, 1536, 2048)},
                        3: {"vocab": (50257, 49152, 65536, 100000, 128000), "d_model": (1600, 2048, 2560, 4096, 5120),
                            "ask": ("encoder_decoder",), "memory": (2, 4)}},
    # no perfect squares at level 3: 1600 and 10000 made the peak 0.025 × 0.01 = 2.5 exactly
    "warmup_lr": {2: {"warmup": (2500, 3000, 3500, 4000, 5000, 6000), "d_model": (384, 640, 768, 896, 960)},
                  3: {"warmup": (6000, 9000, 12000, 15000, 18000, 21000),
                      "d_model": (1280, 1792, 2560, 3200, 3840, 4480)}},
    # level 3: five logits at awkward temperatures (T = 0.1 made answers one-hot, 1.0000, 0.0000, ...; with T >= 0.6
    # and five distinct logits in -3..5 the top gap is at most 5, e^(-5/0.6) = 0.0002: nothing rounds to 1)
    "temperature_softmax": {2: {"temperature": (0.25, 3)},
                            3: {("logits", "temperature", "masked"): _unsaturated(5, -3, 5, (0.6, 0.75, 1.5, 2.5)),
                                "ask": ("vector",)}},
    # level 3: RMSNorm then its learnable gain; RoPE's score then attention's scaling (one more step each)
    "rms_norm": {2: {"x": _distinct(5, -9, 9, nonzero=True)},
                 3: {("x", "gain"): lambda rng: (_distinct(4, -9, 9, nonzero=True)(rng),
                                                 [float(v) for v in rng.choice([-1, 0.5, 1.5, 2, 3], 4)])}},
    "rope_score": {2: {"m": (6, 7), "n": (0, 2)}, 3: {"m": (9,), "n": (3,), "scaled": (True,), "ask": ("score",)}},
    "beam_search": {2: {"ask": ("beam",), BEAM: _close_call(0.08)}, 3: {"ask": ("prob",), BEAM: _close_call(0.03)}},
    # an encoder-decoder (3 norms a decoder layer, a final one per Pre-LN stack); level 3: a whole layer's two
    # residual steps, and the norms' parameters with and without biases
    "pre_post_ln": {2: {"size": (5, 6), "low": (-9,), "high": (9,), "decimals": (True,),
                        "decoder_layers": (2, 3, 4, 6, 8, 12), "d_model": (300, 384, 640, 1000, 1280)},
                    3: {"sublayer": ("layer",), "size": (5,), "low": (-9,), "high": (9,), "decimals": (True,),
                        "decoder_layers": (3, 6, 12, 24), "d_model": (1000, 1536, 2560, 4096, 5120),
                        "bias": (False, True), "ask": ("output", "stream", "norm_params")}},
    # the LLM era (llm-interview deck): level 3 is the combined question, by GROWN below or by a step the draw adds
    # (a precision named without its bytes, per-token log-probabilities to sum, logits to softmax first, a third block)
    "gqa_kv_cache": {2: {"num_layers": (40, 48, 60, 64, 80), ("n_heads", "n_kv_heads"): _GQA, "head_dim": (96, 128, 192)},
                     3: {"num_layers": (40, 48, 60, 64, 80), ("n_heads", "n_kv_heads"): _GQA, "head_dim": (96, 128, 192),
                         "named_dtype": (True,)}},
    "training_memory": {2: {"params_billion": _tenths(80, 1800), "gpus": (96, 256, 512)},
                        3: {"params_billion": _tenths(300, 4000)}},
    "activation_memory": {2: {"num_layers": (16, 24, 32), "d_model": (1536, 2048, 2560), "seq_len": (4096,)},
                          3: {"num_layers": (16, 24, 32), "d_model": (1536, 2048, 2560), "seq_len": (2048, 4096)}},
    "weight_memory": {2: {"params_billion": _tenths(100, 1800), "group": (32, 64, 128, 256)},
                      3: {"params_billion": _tenths(100, 4000), "group": (32, 64, 128, 256)}},
    "llm_flops": {2: {"num_layers": (8, 12, 16), "d_model": (384, 512, 640, 768), "vocab": (16000, 32000, 50257)},
                  3: {"num_layers": (24, 32), "d_model": (1024, 1536, 2048), "vocab": (32000, 50257, 128256)}},
    "chinchilla": {2: {"compute": _budget(3, 5)}, 3: {"gpus": (1024, 2048, 4096, 8192, 16384)}},
    "speculative_tokens": {2: {"gamma": (5, 6, 7, 8)}, 3: {"gamma": (3, 4, 5, 6, 7, 8)}},
    "decoder_params": {2: {"gqa": (True,), "d_model": (512, 640, 768, 1024), "num_layers": (6, 8, 12)},
                       3: {"gqa": (True,), "d_model": (1024, 1536, 2048), "num_layers": (12, 16, 24)}},
    "moe_params": {2: {"d_model": (512, 768, 1024), "experts": (8, 16, 32)},
                   3: {"d_model": (512, 768, 1024), "experts": (8, 16, 32)}},
    "lora_params": {2: {"targets": ("attention",)}, 3: {"targets": ("all",)}},
    "online_softmax": {2: {"block_keys": (3,)}, 3: {"blocks": (3,)}},
    "bpe_merges": {2: {"merges": (1, 2)}, 3: {"merges": (2, 3)}},
    "nucleus_sampling": {2: {"from_logits": (True,), "temperature": (1,)},
                         3: {"from_logits": (True,), "temperature": (0.5, 0.8, 1.5, 2)}},
    "position_scaling": {2: {"n_heads": (12, 32), "head_dim": (64, 96, 256)},
                         3: {"n_heads": (12, 16, 32), "head_dim": (64, 96, 128, 256)}},
    "dpo_loss": {2: {"beta": (0.05, 0.3, 1.0)}, 3: {"per_token": (True,)}},
}


# generator -> parameter -> {what a card pins: what level 3 asks instead}; only where the level-3 question
# contains the pinned one (and no bundled card's `why` speaks of the pinned one alone)
GROWN: dict[str, dict[str, dict[Any, Any]]] = {
    "positional_encoding": {"ask": {"row": "dot", "value": "dot"}},   # PE values, then a dot product of two rows
    "padding_mask": {"ask": {"count": "causal_count", "matrix": "causal_count"}},
    "param_count": {"ask": {"mha": "mha_bias", "ffn": "ffn_bias", "ffn_share": "ffn_share_model"},
                    "convention": {"notes": "full"}},
    # each shape question grows into the next step of the data flow, which needs it
    "cross_attention_shapes": {"ask": {"key": "scores", "query": "scores", "scores": "output", "source": "output",
                                       "output": "add_norm"}},
    "multi_head_shapes": {"ask": {"projection": "split", "split": "transpose", "transpose": "scores",
                                  "scores": "weighted_sum", "weighted_sum": "concat", "concat": "output"}},
    "ffn_shapes": {"ask": {"expand": "contract", "d_ff": "contract"}},
    "attention_scores": {"ask": {"d_k": "scale", "scale": "weights", "scores": "weights", "weights": "output"}},
    "attention_cost": {"ask": {"scores": "attention", "projection": "projections", "crossover": "block"}},
    "batch_norm": {"ask": {"mean": "std", "std": "output"}},
    "teacher_forcing": {"ask": {"decoder_input": "labels", "labels": "predict", "visible": "predict"}},
    "kv_cache": {"ask": {"per_token": "total"}},
    "beam_search": {"ask": {"beam": "runner_up", "prob": "runner_up"}},
    "warmup_lr": {"ask": {"peak": "fraction", "lr": "fraction"}},   # the peak, then the step where lr falls to a share
    "gqa_kv_cache": {"ask": {"per_token": "total", "pages": "waste"}},
    "training_memory": {"ask": {"total": "gpus", "mixed": "gpus", "zero": "gpus"}},
    "weight_memory": {"ask": {"grouped": "embed"}},
    "activation_memory": {"ask": {"full": "checkpoint_saving"}},
    "llm_flops": {"ask": {"forward_token": "token_share", "attention": "attention_share", "train": "train_days",
                          "mfu": "mfu_step"}},
    "chinchilla": {"ask": {"params": "params_cluster", "tokens": "tokens_cluster"}},
    "speculative_tokens": {"ask": {"expected": "speedup"}},
    "decoder_params": {"ask": {"gpt": "embed_share"}},
    "moe_params": {"ask": {"total": "flops_token", "active": "flops_token"}},
    "position_scaling": {"ask": {"alibi": "alibi_weight", "ntk_base": "ntk_angle"}},
}


def draws(generator: str, level: int, given: Mapping[str, Any], rng) -> dict[str, Any]:
    """The parameters `level` draws for `generator` where `given` (the card's own) leaves them open, and at
    level 3 what `GROWN` grows the pinned ones into.

    A group drawn together (d_model with its head count) is drawn only when the card pins none of it.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be 1, 2 or 3, got {level!r}")
    drawn: dict[str, Any] = {}
    for names, draw in TABLE.get(generator, {}).get(level, {}).items():
        group = names if isinstance(names, tuple) else (names,)
        if any(given.get(name) is not None for name in group):
            continue
        value = draw(rng) if callable(draw) else draw[int(rng.integers(len(draw)))]
        drawn.update(zip(group, value) if isinstance(names, tuple) else {names: value})
    if level == 3:
        drawn |= {name: grown[given[name]] for name, grown in GROWN.get(generator, {}).items()
                  if given.get(name) in grown}
    return drawn

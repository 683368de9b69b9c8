"""Every generator, many seeds: answerable, gradeable, and right by an independent hand computation.

The expected answers below are written with plain Python and the formulas from the notes, not
with the engine call the generator used.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from llm_oracles import INDEPENDENT as LLM_ERA
from studytool.problems import registry
from studytool.problems.answers import AnswerFormatError, format_answer, format_hint, grade
from studytool.problems.variant import Variant

SEEDS = range(500)


def full_width(text: str) -> str:
    """What a Chinese IME in full-width mode types for the same keys."""
    return "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# --- independent computations -------------------------------------------------------------


def mean(xs):
    return sum(xs) / len(xs)


def pstd(xs):
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def ln(xs):
    m, s = mean(xs), pstd(xs)
    return [(x - m) / s for x in xs]


def column(rows, j):
    return [r[j] for r in rows]


def softmax(xs):
    exps = [math.exp(x) for x in xs]
    return [e / sum(exps) for e in exps]


def pe(pos, j, d):
    angle = pos / 10000 ** (2 * (j // 2) / d)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def transpose(a):
    return [list(r) for r in zip(*a)]


def option_text(v: Variant) -> str:
    (index,) = v.answer
    return v.options[index]


def tokens(v: Variant) -> list[str]:
    return [v.options[i] for i in v.answer]


def layer_norm(p, v):
    x = [a + b for a, b in zip(p["x"], p.get("residual", [0] * len(p["x"])))]   # Add & Norm: x + s first
    if p["ask"] == "invariance":
        return ln([p["scale"] * e + p["shift"] for e in x])
    return {"mean": mean(x), "sigma": pstd(x), "output": ln(x)}[p["ask"]]


def batch_norm(p, v):
    x, ask = p["x"], p["ask"]
    cols = [column(x, j) for j in range(len(x[0]))]
    if ask == "axis":
        return option_text(v) == "BN：按列跨样本统计；LN：按行跨特征统计"
    if ask == "mean":
        return [mean(c) for c in cols]
    if ask == "std":
        return [pstd(c) for c in cols]
    affine = lambda row: [g * e + b for g, e, b in zip(p["gamma"], row, p["beta"])] if "gamma" in p else row  # noqa
    if ask == "output":
        out = [affine(row) for row in transpose([[(e - mean(c)) / pstd(c) for e in c] for c in cols])]
        return out[p["part"]] if "part" in p else out
    out = [affine(ln(r)) for r in x]
    return [row[p["part"]] for row in out] if "part" in p else out


def positional_encoding(p, v):
    d, pos = p["d_model"], p["pos"]
    if p["ask"] == "dot":
        return sum(pe(pos, j, d) * pe(p["other"], j, d) for j in range(d))
    return [pe(pos, j, d) for j in range(d)] if p["ask"] == "row" else pe(pos, p["j"], d)


def masked_softmax(xs, t, masked):
    """softmax(x / T) with position `masked` at −∞ (probability 0); no mask when it is None."""
    kept = softmax([x / t for i, x in enumerate(xs) if i != masked])
    return kept if masked is None else kept[:masked] + [0.0] + kept[masked:]


def softmax_(p, v):
    probs = masked_softmax(p["x"], p.get("temperature", 1), p.get("masked"))
    return probs if p["ask"] == "vector" else max(probs)


def attention_scores(p, v):
    ask = p["ask"]
    if ask == "d_k":
        return p["d_model"] / p["n_heads"]
    if ask == "scale":
        return math.sqrt(p["d_model"] / p["n_heads"])
    q, k, val = p["q"], p["k"], p["v"]
    scale = math.sqrt(len(q[0]))
    scores = [[s / scale for s in row] for row in matmul(q, transpose(k))]
    padded = len(k) - 1 if p.get("padded") else None   # the last key masked for every query
    weights = [masked_softmax(row, 1, padded) for row in scores]
    result = {"scores": scores, "weights": weights, "output": matmul(weights, val)}[ask]
    return result[0] if len(q) == 1 else result


def multi_head_shapes(p, v):
    b, n, d, h = p["batch"], p["seq_len"], p["d_model"], p["n_heads"]
    return {"projection": [b, n, d], "split": [b, n, h, d // h], "transpose": [b, h, n, d // h],
            "scores": [b, h, n, n], "weighted_sum": [b, h, n, d // h], "concat": [b, n, d],
            "output": [b, n, d]}[p["ask"]]


def causal_mask(p, v):
    n, ask = p["n"], p["ask"]
    allowed = [[1 if j <= i else 0 for j in range(n)] for i in range(n)]
    return {"matrix": allowed, "allowed": n * (n + 1) / 2, "blocked": n * (n - 1) / 2,
            "visible": allowed[p.get("t", 0)]}[ask]


def padding_mask(p, v):
    m = [[1 if j >= length else 0 for j in range(p["max_len"])] for length in p["lengths"]]
    if p["ask"] == "causal_count":   # with the causal mask: a future key (j > i) or a padded one (j >= length)
        return sum(j > i or j >= n for n in p["lengths"] for i in range(p["max_len"]) for j in range(p["max_len"]))
    return m if p["ask"] == "matrix" else sum(map(sum, m))


def teacher_forcing(p, v):
    target, ask = p["target"], p["ask"]
    decoder_input, labels = ["<s>", *target], [*target, "<eos>"]
    if ask == "predict":
        return option_text(v) == labels[p["t"]]
    got = tokens(v)
    return got == {"decoder_input": decoder_input, "labels": labels,
                   "visible": decoder_input[:p.get("t", 0) + 1]}[ask]


def cross_attention_shapes(p, v):
    b, ls, lt, d, h = p["batch"], p["src_len"], p["tgt_len"], p["d_model"], p["n_heads"]
    if p["ask"] == "source":
        return option_text(v) == "Q 取自目标侧解码器；K、V 取自源句侧编码器"
    return {"query": [b, lt, d], "key": [b, ls, d], "scores": [b, h, lt, ls], "output": [b, lt, d],
            "add_norm": [b, lt, d]}[p["ask"]]   # the residual add keeps the query's shape


def ffn_shapes(p, v):
    b, n, d, f = p["batch"], p["seq_len"], p["d_model"], p["d_ff"]
    rows = [b * n] if p.get("flat") else [b, n]   # flattened: one axis of B·L tokens
    return {"expand": [*rows, f], "contract": [*rows, d], "d_ff": f, "w1": [d, f], "w2": [f, d]}[p["ask"]]


def param_count(p, v):
    d, f, ask = p["d_model"], p["d_ff"], p["ask"]
    full = p.get("convention") == "full"
    attn = 4 * d * d + (4 * d if full else 0)
    ffn = 2 * d * f + (f + d if full else 0)
    norms = 2 * d if full else 0
    encoder_layer = attn + ffn + 2 * norms
    return in_mib(p, {
        "embedding": p.get("vocab", 0) * d,
        "mha": 4 * d * d, "mha_bias": 4 * d * d + 4 * d,
        "ffn": 2 * d * f, "ffn_bias": 2 * d * f + f + d,
        "encoder_layer": encoder_layer,
        "decoder_layer": 2 * attn + ffn + 3 * norms,
        "stack": p.get("num_layers", 0) * encoder_layer + norms,
        "ffn_share": ffn / encoder_layer,
        "ffn_share_model": ask == "ffn_share_model" and p["num_layers"] * ffn / (p["num_layers"] * (attn + ffn)
                                                                                 + p["vocab"] * d),
    }[ask])


def in_mib(p, count):
    """Level 3 carries a count one step further: its size at `memory` bytes a value, in MiB (2^20 bytes)."""
    return count * p["memory"] / 2**20 if "memory" in p else count


def attention_cost(p, v):
    b, n, d, h = p["batch"], p["seq_len"], p["d_model"], p["n_heads"]
    # the block: 2·B·L²·d (QKᵀ, AV) = 4·B·L·d² (projections) + 2·B·L·d·4d (FFN)  =>  L = 6d
    # with d_ff = m·d: 2·B·L²·d = 4·B·L·d² + 2·B·L·d·m·d  =>  L = (2 + m)·d
    return {"scores": b * h * n * n * (d // h), "projection": b * n * d * d, "crossover": d,
            "block": (2 + p.get("d_ff_multiple", 4)) * d, "attention": 2 * b * n * n * d,
            "projections": 4 * b * n * d * d}[p["ask"]]


def kv_cache(p, v):
    # K and V, every layer, one token; with GQA only kv_heads heads of d_model / n_heads each
    width = p["kv_heads"] * p["d_model"] // p["n_heads"] if "kv_heads" in p else p["d_model"]
    numbers = 2 * p["num_layers"] * width * p["bytes_per_value"]
    return {"total": numbers * p["batch"] * p["seq_len"] / 2**20, "per_token": numbers / 1024}[p["ask"]]


def tied_embeddings(p, v):
    return in_mib(p, {"encoder_decoder": 2 * p["vocab"] * p["d_model"],
                      "decoder_only": p["vocab"] * p["d_model"]}[p["ask"]])


def transformer_params(p, v):
    d, n, vocab = p["d_model"], p["num_layers"], p["vocab"]
    attention, ffn, norm = 4 * d * d + 4 * d, 2 * d * 4 * d + 4 * d + d, 2 * d
    stacks = n * (attention + ffn + 2 * norm) + n * (2 * attention + ffn + 3 * norm) + 2 * norm
    embeddings = vocab * d if p["ask"] == "tied" else 3 * vocab * d
    total = stacks + embeddings + vocab   # + the output layer's bias
    return in_mib(p, total) if "memory" in p else total / 1e6


def warmup_lr(p, v):
    d, w = p["d_model"], p["warmup"]
    if p["ask"] == "fraction":   # past the peak lr = peak · (s / w)^(−0.5) = f · peak
        a, b = map(int, p["share"].split("/"))
        return w * b * b / (a * a)
    s = w if p["ask"] == "peak" else p["step"]
    return 1e4 / math.sqrt(d) * min(1 / math.sqrt(s), s / w**1.5)


def temperature_softmax(p, v):
    probs = masked_softmax(p["logits"], p["temperature"], p.get("masked"))
    return probs if p["ask"] == "vector" else max(probs)


def rms_norm(p, v):
    rms = math.sqrt(mean([x * x for x in p["x"]]))
    return rms if p["ask"] == "rms" else [g * x / rms for g, x in zip(p.get("gain", [1] * len(p["x"])), p["x"])]


def rope_score(p, v):
    # a pair (a, b) at position t is the complex number a + bi times e^(i·t)
    q, k = complex(*p["q"]) * complex(math.cos(p["m"]), math.sin(p["m"])), complex(*p["k"]) * complex(
        math.cos(p["n"]), math.sin(p["n"]))
    if p["ask"] == "rotate":
        return [q.real, q.imag]
    return (q.real * k.real + q.imag * k.imag) / (math.sqrt(2) if p.get("scaled") else 1)   # d_k = 2


def beam_search(p, v):
    # every two-word sequence by brute force: greedy takes the larger word at each step, the beam the best product
    first = {"A": p["p_first"], "B": 1 - p["p_first"]}
    second = {"A": {"X": p["x_after_a"], "Y": 1 - p["x_after_a"]}, "B": {"X": p["x_after_b"], "Y": 1 - p["x_after_b"]}}
    joint = {f"{a} {b}": first[a] * q for a in "AB" for b, q in second[a].items()}
    top = max(first, key=first.get)
    greedy = f"{top} {max(second[top], key=second[top].get)}"
    best = max(joint, key=joint.get)
    if p["ask"] == "prob":
        return joint[best]
    if p["ask"] == "runner_up":   # the beam keeps the two best sequences
        return sorted(joint.values())[-2]
    return option_text(v) == (greedy if p["ask"] == "greedy" else best)


def pre_post_ln(p, v):
    # 2 norms an encoder layer, 3 a decoder layer, and Pre-LN ends each stack with one more
    if p["ask"] in ("count", "norm_params"):
        count = 2 * p["num_layers"] + 3 * p["decoder_layers"] + (1 + (p["decoder_layers"] > 0)) * p["norm_first"]
        return count if p["ask"] == "count" else count * p["d_model"] * (2 if p["bias"] else 1)
    attention, ffn = (lambda y: [w * e for w, e in zip(p["w"], y)]), (lambda y: [max(e, 0) for e in y])
    x = p["x"]
    for f in {"attention": [attention], "ffn": [ffn], "layer": [attention, ffn]}[p["sublayer"]]:
        x = [a + b for a, b in zip(x, f(ln(x)))] if p["norm_first"] else ln([a + b for a, b in zip(x, f(x))])
    return pstd(x) if p["ask"] == "stream" else x


INDEPENDENT = {
    "layer_norm": layer_norm, "batch_norm": batch_norm, "positional_encoding": positional_encoding,
    "softmax": softmax_, "attention_scores": attention_scores, "multi_head_shapes": multi_head_shapes,
    "causal_mask": causal_mask, "padding_mask": padding_mask, "teacher_forcing": teacher_forcing,
    "cross_attention_shapes": cross_attention_shapes, "ffn_shapes": ffn_shapes, "param_count": param_count,
    "attention_cost": attention_cost, "kv_cache": kv_cache, "tied_embeddings": tied_embeddings,
    "transformer_params": transformer_params, "warmup_lr": warmup_lr, "temperature_softmax": temperature_softmax,
    "rms_norm": rms_norm, "rope_score": rope_score, "beam_search": beam_search, "pre_post_ln": pre_post_ln,
}
INDEPENDENT |= LLM_ERA   # the llm-interview deck's generators, computed by hand in llm_oracles.py


def flat(value) -> list[float]:
    if isinstance(value, (int, float)):
        return [float(value)]
    return [x for item in value for x in flat(item)]


def agrees(v: Variant, expected) -> bool:
    if isinstance(expected, bool):  # choice/sequence checks return whether the posed answer is the right one
        return expected
    got, want = flat(v.answer), flat(expected)
    return len(got) == len(want) and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(got, want))


# --- perturbing a right answer into a wrong one -----------------------------------------------


def perturbed(v: Variant) -> str:
    step = max(0.01, 3 * v.tolerance.abs) if v.tolerance is not None else 1   # outside a coarse tolerance too
    if v.kind == "scalar":
        return format_answer(Variant(v.prompt, "scalar", v.answer + step, v.tolerance))
    if v.kind == "vector":
        return format_answer(Variant(v.prompt, "vector", (v.answer[0] + step, *v.answer[1:]), v.tolerance))
    if v.kind == "matrix":
        first = (v.answer[0][0] + step, *v.answer[0][1:])
        return format_answer(Variant(v.prompt, "matrix", (first, *v.answer[1:]), v.tolerance))
    if v.kind == "shape":
        return format_answer(Variant(v.prompt, "shape", (v.answer[0] + 1, *v.answer[1:])))
    if v.kind == "choice":
        wrong = frozenset({(min(v.answer) + 1) % len(v.options)})
        return format_answer(Variant(v.prompt, "choice", wrong, options=v.options))
    if v.kind == "sequence":
        others = [i for i in range(len(v.options)) if i not in v.answer]
        wrong = v.answer[::-1] if len(v.answer) > 1 else (others[0],)
        return format_answer(Variant(v.prompt, "sequence", wrong, options=v.options))
    raise AssertionError(v.kind)


# --- the tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", registry.names())
def test_every_variant_is_answerable_and_right(name):
    generator = registry.get(name)
    asks = set()
    for seed in SEEDS:
        v = generator.draw(np.random.default_rng(seed))
        asks.add(v.params.get("ask"))
        context = f"{name} seed {seed}: {v.prompt}"
        assert v.generator == name
        assert "{" not in v.prompt and "}" not in v.prompt, context
        assert not any("{" in step for step in v.solution), context
        assert v.solution, context
        assert all(math.isfinite(x) for x in flat(v.answer)) if v.kind not in ("choice", "sequence") else True
        assert agrees(v, INDEPENDENT[name](v.params, v)), context

        canonical = format_answer(v)
        assert grade(v, canonical).correct, context
        assert grade(v, full_width(canonical)).correct, context
        wrong = grade(v, perturbed(v))
        assert not wrong.correct, context
        assert wrong.expected == canonical
        with pytest.raises(AnswerFormatError):
            grade(v, "hello?")
        assert format_hint(v)
    assert asks == set(generator.params["ask"].choices)  # every sub-question comes up


@pytest.mark.parametrize("name", registry.names())
def test_variants_are_reproducible_from_the_seed(name):
    generator = registry.get(name)
    for seed in range(20):
        a = generator.draw(np.random.default_rng(seed))
        b = generator.draw(np.random.default_rng(seed))
        assert a == b


@pytest.mark.parametrize("name", registry.names())
def test_the_drawn_params_pose_the_same_question_again(name):
    generator = registry.get(name)
    for seed in range(50):
        v = generator.draw(np.random.default_rng(seed))
        again = generator.draw(np.random.default_rng(seed + 1000), **v.params)
        assert again.prompt == v.prompt or v.options  # option order is shuffled by the rng
        assert agrees(again, INDEPENDENT[name](again.params, again))
        if v.kind not in ("choice", "sequence"):
            assert again.answer == v.answer


def gives(v, wrong, text: str) -> bool:
    """Typing `text` is what the wrong method with answer `wrong` gives."""
    try:
        return grade(Variant(v.prompt, v.kind, wrong, v.tolerance, options=v.options), text).correct
    except AnswerFormatError:
        return False


@pytest.mark.parametrize("name", registry.names())
def test_known_wrong_methods_get_their_hint(name):
    """Typing a hint's own answer gives its message (unless it happens to be right)."""
    generator = registry.get(name)
    seen = 0
    for seed in range(100):
        v = generator.draw(np.random.default_rng(seed))
        for hint in v.hints:
            text = format_answer(Variant(v.prompt, v.kind, hint.answer, v.tolerance, options=v.options))
            try:
                result = grade(v, text)
            except AnswerFormatError:
                continue  # a hint of another length (e.g. row means of a non-square batch) is never typed
            alone = all(other.message == hint.message or not gives(v, other.answer, text) for other in v.hints)
            if not result.correct and alone:   # a second mistake giving the same answer: no hint names one
                assert result.hint is not None, f"{name} seed {seed}: {text}"
                seen += 1
    assert seen > 0


@pytest.mark.parametrize(("typed", "word"), [("10", "和"), ("3.3333", "K−1")])
def test_layer_norm_mean_recognises_summing_and_dividing_by_k_minus_1(typed, word):
    v = registry.get("layer_norm").draw(np.random.default_rng(0), x=[1, 2, 3, 4], ask="mean")
    assert grade(v, "2.5").correct  # (1 + 2 + 3 + 4) / 4
    result = grade(v, typed)        # the sum 10; 10 / 3
    assert not result.correct and word in (result.hint or "")


def test_the_crossover_solution_uses_only_the_questions_numbers():
    # the card pins seq_len=20 for its example, but L is the unknown: no step may compute with it
    generator = registry.get("attention_cost")
    for seed in range(50):
        v = generator.draw(np.random.default_rng(seed), ask="crossover", seq_len=20)
        in_question = set(re.findall(r"\d+", v.prompt)) | {str(v.answer)}
        for step in v.solution:
            assert set(re.findall(r"\d+", step)) <= in_question, (step, v.prompt)
    notes = generator.draw(np.random.default_rng(0), ask="crossover", batch=1, seq_len=20, d_model=512, n_heads=8)
    assert notes.answer == 512  # B·L²·d = B·L·d² at L = d
    assert not any("20" in step for step in notes.solution)


# --- what interviewers ask next: against PyTorch and the paper's own numbers --------------------


def test_the_base_model_count_is_torchs_transformer_plus_one_shared_embedding():
    torch = pytest.importorskip("torch")
    body = sum(p.numel() for p in torch.nn.Transformer(512, 8, 6, 6, 2048).parameters())   # 44,140,544
    vocab = 37000
    v = registry.get("transformer_params").example()
    assert v.answer * 1e6 == pytest.approx(body + vocab * 512 + vocab)   # one (V, d) matrix + the output bias
    assert grade(v, "63.1").correct and not grade(v, "65").correct     # the paper's Table 3 rounds it to 65M


def test_the_warmup_peak_is_the_papers():
    v = registry.get("warmup_lr").example()             # d_model 512, warmup 4000
    assert v.answer == pytest.approx(6.9877, abs=1e-4)   # 512^-0.5 · 4000^-0.5 = 6.9877e-4
    late = registry.get("warmup_lr").draw(np.random.default_rng(0), d_model=512, warmup=4000, step=16000, ask="lr")
    assert late.answer == pytest.approx(v.answer / 2)   # four times the warm-up: half the peak (1/sqrt(s))


def test_temperature_softmax_is_torchs():
    torch = pytest.importorskip("torch")
    for t in (0.25, 0.5, 2.0, 4.0):
        v = registry.get("temperature_softmax").draw(np.random.default_rng(1), logits=[3, -1, 0, 2], temperature=t,
                                                     ask="vector")
        expected = torch.softmax(torch.tensor([3.0, -1.0, 0.0, 2.0], dtype=torch.float64) / t, dim=0).tolist()
        assert v.answer == pytest.approx(tuple(expected), abs=1e-12)


def test_the_kv_cache_of_gpt2_small_is_36_mib():
    v = registry.get("kv_cache").example()              # 12 layers, d 768, B 1, L 1024, fp16
    assert v.answer == 2 * 12 * 1 * 1024 * 768 * 2 / 2**20 == 36


def test_worked_solutions_name_the_engine_steps_in_the_interface_language(monkeypatch):
    from studytool.i18n import set_language

    english = ("projection", "split heads", "transpose heads", "softmax over keys", "FFN expand", "add & norm")
    try:
        set_language("zh")
        for name in ("multi_head_shapes", "cross_attention_shapes", "ffn_shapes"):
            for seed in range(40):
                steps = " ".join(registry.get(name).draw(np.random.default_rng(seed)).solution)
                assert not any(word in steps for word in english), (name, seed, steps)
        set_language("en")
        steps = registry.get("multi_head_shapes").draw(np.random.default_rng(0), ask="output").solution
        assert any("Q projection" in step for step in steps)
    finally:
        set_language(None)


def test_rms_norm_is_torchs():
    torch = pytest.importorskip("torch")
    v = registry.get("rms_norm").draw(np.random.default_rng(0), x=[3, -1, 4, 2], ask="output")
    expected = torch.nn.RMSNorm(4, eps=0.0, elementwise_affine=False)(torch.tensor([3.0, -1.0, 4.0, 2.0],
                                                                                  dtype=torch.float64))
    assert v.answer == pytest.approx(tuple(expected.tolist()), abs=1e-12)


def test_rope_scores_depend_only_on_the_distance():
    generator = registry.get("rope_score")
    scores = {generator.draw(np.random.default_rng(0), q=[2, -1], k=[1, 3], m=m, n=m + 2, ask="score").answer
              for m in range(6)}
    assert max(scores) - min(scores) < 1e-12   # (R_m q)·(R_(m+2) k) is the same for every m


def test_drawn_beam_questions_separate_the_two_prefixes_and_either_may_win():
    # issue 23: the best sequence always started with the less likely first word, so that rule scored 100%
    generator = registry.get("beam_search")
    starts = {"A": 0, "B": 0}
    for seed in range(200):
        p = generator.draw(np.random.default_rng(seed), ask="prob").params
        first = {"A": p["p_first"], "B": 1 - p["p_first"]}
        after = {"A": p["x_after_a"], "B": p["x_after_b"]}
        joint = {(a, b): first[a] * (after[a] if b == "X" else 1 - after[a]) for a in "AB" for b in "XY"}
        best = max(joint, key=joint.get)
        other = max(v for k, v in joint.items() if k[0] != best[0])
        assert p["p_first"] > 0.5 and joint[best] > other + 0.01   # greedy starts with A; a clear margin
        starts[best[0]] += 1
    assert 70 <= starts["B"] <= 130, starts

"""Hand computations of the LLM-era generators' answers (plain Python and the papers' formulas, never the engine).

Imported by test_generators.py (its INDEPENDENT table) and test_llm.py. Each takes the drawn params and the variant
and returns the expected answer, or, for a choice, whether the posed key is the right option.
"""

from __future__ import annotations

import math

BYTES = {"fp32_adamw": 16, "fp32_momentum": 12, "fp32_sgd": 8, "mixed_master": 16, "bf16_fp32_states": 12,
         "bf16_all": 8}


def gqa_kv_cache(p, v):
    token = 2 * p["num_layers"] * p["n_kv_heads"] * p["head_dim"] * p["bytes_per_value"]   # K and V, every layer
    mha = 2 * p["num_layers"] * p["n_heads"] * p["head_dim"] * p["bytes_per_value"]
    cached = p["batch"] * p["seq_len"]
    block = p.get("block_size") or 1
    slots = -(-p["seq_len"] // block) * block   # whole PagedAttention blocks
    return {"per_token": token / 1024, "total": token * cached / 2**30, "saved": (mha - token) * cached / 2**30,
            "pages": slots * token / 2**20, "waste": (slots - p["seq_len"]) * token / 2**20}[p["ask"]]


def training_memory(p, v):
    psi, ask = p["params_billion"], p["ask"]
    if ask in ("total", "mixed"):
        return BYTES[p["setup"]] * psi
    if ask == "zero":
        kept, split = {1: (4, 12), 2: (2, 14), 3: (0, 16)}[p["stage"]]   # ZeRO §5, mixed-precision Adam
        return kept * psi + split * psi / p["gpus"]
    return math.ceil(BYTES[p["setup"]] * psi / p["gpu_memory"] - 1e-9)


def activation_memory(p, v):
    n, s, b, h, a = p["num_layers"], p["seq_len"], p["batch"], p["d_model"], p["n_heads"]
    full = n * s * b * h * (34 + 5 * a * s / h)     # Korthikanti et al. 2022, eq. (1), bytes a layer
    return (full if p["ask"] == "full" else full - n * 2 * s * b * h) / 2**30


def weight_memory(p, v):
    bits = p["bits"] + 16 / p["group"]
    if p["ask"] == "grouped":
        return p["params_billion"] * bits / 8
    return (p["params_billion"] - p["embed_billion"]) * bits / 8 + 2 * p["embed_billion"]


def llm_flops(p, v):
    ask = p["ask"]
    if ask in ("forward_token", "token_share", "attention", "attention_share"):
        n, d, length, vocab = p["num_layers"], p["d_model"], p["context"], p["vocab"]
        if ask in ("forward_token", "token_share"):
            dense, attention, head = n * 24 * d * d, n * 4 * length * d, 2 * d * vocab
        else:   # QKV 6Ld², O 2Ld², MLP 16Ld²; QK^T and PV 2L²d each
            dense, attention, head = n * 24 * length * d * d, n * 4 * length * length * d, 2 * length * d * vocab
        whole = dense + attention + head
        return whole if ask == "forward_token" else attention if ask == "attention" else attention / whole
    n_params = p["params_billion"] * 1e9
    if ask in ("train", "train_days"):
        flops = 6 * n_params * p["tokens_billion"] * 1e9
        if ask == "train":
            return flops / 1e21
        return flops / (p["gpus"] * p["peak_tflops"] * 1e12 * p["utilization"]) / 86400
    rate = p["throughput"] * 1000 if ask == "mfu" else p["step_tokens"] / p["step_seconds"]
    return 6 * n_params * rate / (p["gpus"] * p["peak_tflops"] * 1e12)


def chinchilla(p, v):
    if p["ask"].endswith("_cluster"):
        c = p["gpus"] * p["peak_tflops"] * 1e12 * p["utilization"] * p["days"] * 86400
    else:
        c = p["compute"] * 1e21
    n = math.sqrt(c / 120)          # C = 6 N D with D = 20 N
    return (n if p["ask"].startswith("params") else 20 * n) / 1e9


def speculative_tokens(p, v):
    a, g = p["alpha"], p["gamma"]
    expected = sum(a**i for i in range(g + 1))   # draft token i is used with probability a^i; one target token always
    return expected if p["ask"] == "expected" else expected / (g * p["cost"] + 1)


def decoder_params(p, v):
    d, n, vocab = p["d_model"], p["num_layers"], p["vocab"]
    if p["ask"] in ("gpt", "embed_share"):
        layer = 2 * 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d)
        embeddings = vocab * d + p["context"] * d
        total = n * layer + embeddings + 2 * d
        return total if p["ask"] == "gpt" else embeddings / total
    h, kv, f = p["n_heads"], p["n_kv_heads"], p["d_ff"]
    hd = d // h
    layer = d * h * hd + 2 * d * kv * hd + h * hd * d + 3 * d * f + 2 * d
    return n * layer + 2 * vocab * d + d


def moe_params(p, v):
    d, f, n, e, k, vocab = (p[name] for name in ("d_model", "d_ff", "num_layers", "experts", "top_k", "vocab"))
    hd = d // p["n_heads"]
    attention = d * p["n_heads"] * hd + 2 * d * p["n_kv_heads"] * hd + p["n_heads"] * hd * d
    expert = 3 * d * f
    if p["ask"] == "flops_token":
        return 2 * (n * (attention + d * e + k * expert) + vocab * d)
    experts = e if p["ask"] == "total" else k
    return n * (attention + d * e + 2 * d + experts * expert) + 2 * vocab * d + d


def lora_params(p, v):
    d, r = p["d_model"], p["rank"]
    shapes = [(d, d), (d, d)]
    if p["targets"] != "qv":
        width = p["n_kv_heads"] * d // p["n_heads"]
        shapes = [(d, d), (d, width), (d, width), (d, d)]
        if p["targets"] == "all":
            shapes += [(d, p["d_ff"]), (d, p["d_ff"]), (p["d_ff"], d)]
    added = sum(r * (a + b) for a, b in shapes)
    return p["num_layers"] * added if p["ask"] == "count" else 100 * added / sum(a * b for a, b in shapes)


def online_softmax(p, v):
    top = max(p["scores"])
    exps = [math.exp(s - top) for s in p["scores"]]
    if p["ask"] == "sum":
        return sum(exps)
    return sum(e * x for e, x in zip(exps, p["values"])) / sum(exps)


def bpe(words: dict[str, int], merges: int) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """BPE by CS336's rules, from scratch: the most frequent pair (weighted by word counts), ties to the greater."""
    split = {w: list(w) for w in words}
    learned = []
    for _ in range(merges):
        counts: dict[tuple[str, str], int] = {}
        for w, tokens in split.items():
            for pair in zip(tokens, tokens[1:]):
                counts[pair] = counts.get(pair, 0) + words[w]
        if not counts:
            break
        best = max(counts, key=lambda pair: (counts[pair], pair))
        learned.append(best)
        for w, tokens in split.items():
            out, i = [], 0
            while i < len(tokens):
                if tuple(tokens[i:i + 2]) == best:
                    out.append(tokens[i] + tokens[i + 1])
                    i += 2
                else:
                    out.append(tokens[i])
                    i += 1
            split[w] = out
    return learned, split


def bpe_merges(p, v):
    if p["ask"] == "next_pair":
        learned, _ = bpe(p["words"], p["merges"] + 1)
        (index,) = v.answer
        return v.options[index] == f"{learned[-1][0]} + {learned[-1][1]}"
    _, split = bpe(p["words"], p["merges"])
    return sum(len(tokens) * p["words"][w] for w, tokens in split.items())


def nucleus_sampling(p, v):
    if "logits" in p:
        exps = [math.exp(z / p["temperature"]) for z in p["logits"]]
        probs = [e / sum(exps) for e in exps]
    else:
        probs = [x / sum(p["probs"]) for x in p["probs"]]
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    if p["ask"] == "top_k":
        kept = order[:p["k"]]
    else:
        kept, mass = [], 0.0
        for i in order:
            kept.append(i)
            mass += probs[i]
            if mass >= p["p"]:
                break
    return probs[p["word"]] / sum(probs[i] for i in kept)


def position_scaling(p, v):
    ask = p["ask"]
    if ask.startswith("alibi"):
        slope = 2 ** (-8 * p["head"] / p["n_heads"])
        if ask == "alibi":
            return -slope * p["distance"]
        return 1 / (1 + math.exp(-slope * (p["farther"] - p["distance"])))
    d = p["head_dim"]
    base = p["base"] * p["scale"] ** (d / (d - 2))
    return base if ask == "ntk_base" else p["position"] * base ** (-(d - 2) / d)


def dpo_loss(p, v):
    names = ("policy_chosen", "policy_rejected", "ref_chosen", "ref_rejected")
    logp = {name: sum(p["tokens"][name]) for name in names} if "tokens" in p else {name: p[name] for name in names}
    margin = p["beta"] * ((logp["policy_chosen"] - logp["ref_chosen"]) - (logp["policy_rejected"] - logp["ref_rejected"]))
    return margin if p["ask"] == "margin" else math.log1p(math.exp(-margin))


INDEPENDENT = {
    "gqa_kv_cache": gqa_kv_cache, "training_memory": training_memory, "weight_memory": weight_memory,
    "activation_memory": activation_memory,
    "llm_flops": llm_flops, "chinchilla": chinchilla, "speculative_tokens": speculative_tokens,
    "decoder_params": decoder_params, "moe_params": moe_params, "lora_params": lora_params,
    "online_softmax": online_softmax, "bpe_merges": bpe_merges, "nucleus_sampling": nucleus_sampling,
    "position_scaling": position_scaling, "dpo_loss": dpo_loss,
}

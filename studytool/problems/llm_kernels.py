"""The LLM era's small algorithms, on the engine's kernels: FlashAttention's online-softmax merge, BPE training by
CS336's rules, and truncated sampling (top-k, top-p)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, is_int, is_number, numbers
from studytool.problems.drawing import FOUR_DECIMALS, TRIES, num, on_screen, pick, plain, redrawn, vec
from studytool.problems.llm_memory import _wrong
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

SOFTMAX_ASKS = ("sum", "output")


def _stats_text(index: int, stats) -> str:
    m, l, o = (float(x) for x in (stats.m, stats.l, stats.o))
    return f"第 {index} 块：m{_SUB[index]} = {num(m)}，ℓ{_SUB[index]} = {num(l)}，o{_SUB[index]} = {num(o)}"


_SUB = {1: "₁", 2: "₂", 3: "₃"}


@generator(
    "online_softmax",
    "FlashAttention's online softmax: one query row's keys in blocks, each summed up as (max m, exp-sum l, "
    "unnormalised output o); merged l, or the row's output o / l.",
    asks=SOFTMAX_ASKS,
    params=(
        Param("scores", "the row's scaled scores, pinned (default: drawn integers)", None, numbers(4, 9, lo=-20, hi=20)),
        Param("values", "each key's value (one number a key), pinned (default: drawn)", None, numbers(4, 9)),
        Param("blocks", "blocks of keys: 2, or 3 (level 3)", 2, lambda v: None if v in (2, 3) and is_int(v) else
              f"expected 2 or 3, got {v!r}"),
        Param("block_keys", "keys a block when the scores are drawn: 2, or 3 (level 2)", 2,
              lambda v: None if v in (2, 3) and is_int(v) else f"expected 2 or 3, got {v!r}"),
    ),
    example={"scores": [1, 3, 2, 0], "values": [2, -1, 4, 3], "ask": "output"},
    constraints=(lambda p: "scores and values must have the same length" if p.get("scores") and p.get("values") and
                 len(p["scores"]) != len(p["values"]) else None,
                 lambda p: "scores must split into equal blocks" if p.get("scores") and
                 len(p["scores"]) % p["blocks"] else None,
                 lambda p: "values pinned without scores need blocks × block_keys entries" if p.get("values") and
                 not p.get("scores") and len(p["values"]) != p["blocks"] * p["block_keys"] else None),
)
def online_softmax(rng: np.random.Generator, *, scores, values, blocks, block_keys, ask) -> Variant:
    """Merging the blocks of one attention row (params: scores, values, blocks, ask); the answer is the engine's
    merge_stats over block_stats, equal to softmax(scores) · values."""
    return redrawn(lambda: _online(rng, scores, values, blocks, block_keys, ask))


def _online(rng, scores, values, blocks, block_keys, ask) -> Variant:
    import numpy as np

    from studytool import engine

    s = list(scores) if scores is not None else _block_maxima_differ(rng, blocks, block_keys)
    v = list(values) if values is not None else [int(x) for x in rng.integers(-5, 6, len(s))]
    params = {"scores": plain(s), "values": plain(v), "blocks": blocks, "ask": ask}
    width = len(s) // blocks
    parts = [engine.block_stats(np.ones((1, 1)), np.asarray(s[i:i + width], float)[:, None],
                                np.asarray(v[i:i + width], float)[:, None]) for i in range(0, len(s), width)]
    parts = [engine.SoftmaxStats(float(p.m[0, 0]), float(p.l[0, 0]), float(p.o[0, 0])) for p in parts]
    merged, steps = parts[0], []
    for index, part in enumerate(parts[1:], start=2):
        m = max(merged.m, part.m)
        grown = engine.merge_stats(merged, part)
        old, new = math.exp(merged.m - m), math.exp(part.m - m)
        steps += [f"并入第 {index} 块：m = max({num(merged.m)}, {num(part.m)}) = {num(m)}；"
                  f"ℓ = e^({num(merged.m)} − {num(m)}) × {num(merged.l)} + e^({num(part.m)} − {num(m)}) × {num(part.l)}"
                  f" = {num(old)} × {num(merged.l)} + {num(new)} × {num(part.l)} = {num(float(grown.l))}",
                  f"o = {num(old)} × {num(merged.o)} + {num(new)} × {num(part.o)} = {num(float(grown.o))}"]
        merged = engine.SoftmaxStats(float(grown.m), float(grown.l), float(grown.o))
    head = (f"FlashAttention 把一行注意力分数的 key 分成 {blocks} 块处理（每个 key 的 value 是一个数）。每块记下三样："
            "块内最大分数 m、以它为基准的指数和 ℓ = Σ e^(s − m)、未归一化的输出 o = Σ e^(s − m)·v。"
            + "；".join(_stats_text(i, p) for i, p in enumerate(parts, start=1)) + "。")
    full = engine.softmax(np.asarray(s, float))
    check = f"核对：对整行分数 {vec(s)} 直接 softmax 再乘 values {vec(v)}，得 {num(float(full @ np.asarray(v, float)))}"
    if ask == "sum":
        answer = float(merged.l)
        hints = (Hint(sum(p.l for p in parts), "各块的 ℓ 基准（各自的最大值）不同：先乘 e^(m_i − m) 换到同一个最大值再加。"),
                 Hint(sum(p.l * math.exp(p.m) for p in parts), "基准是全局最大值 m，不是 0：乘 e^(m_i − m)。"))
        return Variant(head + "合并所有块后，以整行最大分数为基准的 ℓ 是多少？", "scalar", answer, FOUR_DECIMALS,
                       tuple(steps), _wrong(hints, answer), params=params)
    answer = float(engine.stats_output(engine.SoftmaxStats(merged.m, merged.l, merged.o)))
    steps += [f"输出 = o / ℓ = {num(merged.o)} / {num(merged.l)} = {num(answer)}", check]
    hints = (Hint(sum(p.o for p in parts) / sum(p.l for p in parts), "合并前要把各块的 ℓ 和 o 乘 e^(m_i − m) 换到同一个基准。"),
             Hint(sum(p.o / p.l for p in parts) / len(parts), "不能把各块的输出直接平均：块的权重是它们的 ℓ（换到同一基准后）。"),
             Hint(float(merged.o), "还要除以总的 ℓ（归一化）。"))
    return Variant(head + "合并所有块后，这一行的注意力输出（softmax 加权的 value）是多少？", "scalar", answer, FOUR_DECIMALS,
                   tuple(steps), _wrong(hints, answer), params=params)


def _block_maxima_differ(rng, blocks: int, size: int) -> list[int]:
    """Integer scores in -2..4 whose blocks have different maxima (equal maxima make every rescaling factor 1)."""
    while True:
        drawn = [int(x) for x in rng.integers(-2, 5, blocks * size)]
        maxima = [max(drawn[i:i + size]) for i in range(0, len(drawn), size)]
        if len(set(maxima)) == blocks:
            return drawn


BPE_ASKS = ("next_pair", "tokens_after")
# words whose letters share pairs, so that counts compete and merged tokens meet again
WORDS = ("low", "lower", "lowest", "slow", "slower", "newer", "newest", "new", "news", "wider", "widest", "snow",
         "tower", "towel", "owner", "sweet", "street", "tree", "free", "wee", "west", "nest", "test", "rest")


def _words(value: Any) -> str | None:
    ok = isinstance(value, dict) and 2 <= len(value) <= 6 and all(
        isinstance(w, str) and w.isalpha() and w.islower() and len(w) <= 12 and is_int(c) and 1 <= c <= 99
        for w, c in value.items())
    return None if ok else f"expected 2..6 lowercase words with counts 1..99, got {value!r}"


def _pairs_after(words: dict[str, int], merges: list[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Each adjacent pair's count, weighted by the words' counts, after applying `merges` in order."""
    counts: dict[tuple[str, str], int] = {}
    for word, times in words.items():
        tokens = list(word)
        for pair in merges:
            tokens = _merged(tokens, pair)
        for pair in zip(tokens, tokens[1:]):
            counts[pair] = counts.get(pair, 0) + times
    return counts


def _too_small(words: dict[str, int], merges: int | None) -> str | None:
    """A pinned corpus must hold k + 1 merges and, at the asked one, four different pairs to offer. Pure Python (the
    most frequent pair, ties to the greater, as the engine trains) so that checking a deck imports neither NumPy nor
    the engine."""
    k = 1 if merges is None else merges   # the larger of the two asks' default
    done: list[tuple[str, str]] = []
    for _ in range(k + 1):
        counts = _pairs_after(words, done)
        if len(done) == k and len(counts) < 4 or not counts:
            return f"words: too few pairs for {k + 1} merges with four different pairs to choose from"
        done.append(max(counts, key=lambda pair: (counts[pair], pair)))
    return None


def _pair(pair: tuple[str, str]) -> str:
    return f"{pair[0]} + {pair[1]}"


@generator(
    "bpe_merges",
    "BPE training by CS336's rules on a toy corpus of words with counts: the next pair merged after k merges, or how "
    "many tokens the corpus holds after k merges.",
    asks=BPE_ASKS,
    params=(
        Param("words", "the corpus: word -> count, pinned (default: drawn)", None, _words),
        Param("merges", "merges already done, k (default: 0 for next_pair, 1 for tokens_after; levels add more)", None,
              int_in(0, 6)),
    ),
    example={"words": {"low": 5, "lower": 2, "newest": 6, "widest": 3}, "ask": "next_pair"},
    constraints=(lambda p: _too_small(p["words"], p["merges"]) if p.get("words") is not None else None,),
    small={"next_pair": "the answer is one of four shuffled pairs (a letter)"},
)
def bpe_merges(rng: np.random.Generator, *, words, merges, ask) -> Variant:
    """BPE on a toy corpus (params: words, merges, ask), trained by the engine's train_bpe (CS336: most frequent pair,
    ties to the lexicographically greater pair, never across words)."""
    for _ in range(TRIES):
        variant = _bpe(rng, words, merges, ask)
        if variant is not None and (variant.kind == "choice" or not on_screen(variant.prompt, variant.answer)):
            return variant
    raise ValueError("bpe_merges: no corpus with enough distinct pairs for these params")


def _bpe(rng, words, merges, ask) -> Variant | None:
    from collections import Counter

    from studytool import engine

    corpus = dict(words) if words is not None else {
        str(w): int(rng.integers(2, 10)) for w in rng.choice(WORDS, int(rng.integers(3, 5)), replace=False)}
    k = merges if merges is not None else (0 if ask == "next_pair" else 1)
    text = " ".join(" ".join([w] * c) for w, c in corpus.items())
    learned = engine.train_bpe(text, k + 1)
    if len(learned) < k + 1:
        return None
    done = [m.pair for m in learned[:k]]
    params = {"words": corpus, "merges": k, "ask": ask}
    listing = "，".join(f"{w} ×{c}" for w, c in corpus.items())
    head = (f"在一个玩具语料上训练 BPE（按 CS336 作业 1 的规则：从单个字符开始，每次合并频次最高的相邻对，频次按词的"
            f"出现次数加权；频次相同时取字典序更大的一对，按 Python 比较元组；合并不跨词）。语料：{listing}。")
    split = {w: list(w) for w in corpus}
    steps = []
    for number, merge in enumerate(learned[:k], start=1):
        steps.append(f"第 {number} 次合并 {_pair(merge.pair)}（频次 {merge.count}）")
        split = {w: _merged(tokens, merge.pair) for w, tokens in split.items()}
    if ask == "next_pair":
        counts: Counter = Counter()
        for w, tokens in split.items():
            for pair in zip(tokens, tokens[1:]):
                counts[pair] += corpus[w]
        right = learned[k]
        unweighted: Counter = Counter(pair for tokens in split.values() for pair in zip(tokens, tokens[1:]))
        ranked = sorted(counts, key=lambda pair: (-counts[pair], pair))
        tied = [p for p in ranked if counts[p] == right.count and p != right.pair]
        picks = [*tied[:1], max(unweighted, key=lambda p: (unweighted[p], p)), *ranked]
        wrong = list(dict.fromkeys(p for p in picks if p != right.pair))[:3]
        if len(wrong) < 3:
            return None
        # after a merge the right pair often holds the merged (longer) token: one distractor as long, or length tells
        # (none in the corpus: the pair the other way round, the learner's order slip, is as long)
        long = [p for p in ranked if p != right.pair and p not in wrong and len(_pair(p)) >= len(_pair(right.pair))]
        swapped = (right.pair[1], right.pair[0])
        if all(len(_pair(p)) < len(_pair(right.pair)) for p in wrong) and (long or swapped != right.pair):
            wrong[-1] = long[0] if long else swapped
        order = rng.permutation(4)
        options = [_pair(p) for p in [right.pair, *wrong]]
        shown = tuple(options[i] for i in order)
        steps.append("这时各相邻对的频次：" + "，".join(f"{_pair(p)} {counts[p]}" for p in ranked[:6]))
        steps.append(f"最高的是 {_pair(right.pair)}（{right.count}）" +
                     (f"，与 {'、'.join(_pair(p) for p in tied)} 并列，取字典序更大的" if tied else ""))
        hints = [Hint(frozenset({shown.index(_pair(tied[0]))}), "并列时取字典序更大的一对（CS336 的规则）。")] if tied else []
        most_types = max(unweighted, key=lambda p: (unweighted[p], p))
        if most_types != right.pair and _pair(most_types) in shown and (not tied or most_types != tied[0]):
            hints.append(Hint(frozenset({shown.index(_pair(most_types))}), "频次要按每个词出现的次数加权。"))
        which = "第一次" if k == 0 else f"做完前 {k} 次合并后，第 {k + 1} 次"
        return Variant(head + f"{which}合并的是哪一对？", "choice", frozenset({shown.index(options[0])}), None,
                       tuple(steps), tuple(hints), shown, params=params)
    total = sum(len(tokens) * corpus[w] for w, tokens in split.items())
    before = sum(len(w) * c for w, c in corpus.items())
    steps.append("合并后各词：" + "，".join(f"{w} → {' '.join(t)}（{len(t)} 个 × {corpus[w]}）" for w, t in split.items()))
    steps.append(f"共 {total} 个 token（合并前 {before} 个字符）")
    hints = (Hint(sum(len(t) for t in split.values()), "每个词出现多次：乘它的次数。"),
             Hint(before - k, "一次合并在语料里可能替换很多处，不是只少一个 token。"))
    return Variant(head + f"做完前 {k} 次合并后，整个语料（按出现次数计）共有多少个 token？", "scalar", total, None,
                   tuple(steps), _wrong(hints, total), params=params)


def _merged(tokens: list[str], pair: tuple[str, str]) -> list[str]:
    """`engine.bpe`'s merge of one word, again here: checking a pinned corpus (`_too_small`) imports no engine."""
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and (tokens[i], tokens[i + 1]) == pair:
            out.append(tokens[i] + tokens[i + 1])
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


SAMPLING_ASKS = ("top_p", "top_k")
TOP_P = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)
NAMES = ("猫", "狗", "鱼", "鸟", "马", "牛")


def _probability(value: Any) -> str | None:
    return None if is_number(value) and 0 < value <= 1 else f"expected a number in (0, 1], got {value!r}"


@generator(
    "nucleus_sampling",
    "Truncated sampling: the renormalised probability of one word after top-p (nucleus) or top-k, from probabilities "
    "or (level 3) from logits at a temperature.",
    asks=SAMPLING_ASKS,
    params=(
        Param("probs", "next-word probabilities, pinned (default: drawn, distinct, two decimals)", None,
              numbers(3, 6, lo=0, hi=1)),
        Param("logits", "next-word logits instead of probabilities (level 3; default: none)", None,
              numbers(3, 6, lo=-20, hi=20)),
        Param("temperature", "temperature applied to the logits (default: 1)", None,
              lambda v: None if is_number(v) and 0.05 <= v <= 100 else f"expected 0.05..100, got {v!r}"),
        Param("p", "top-p threshold (default: drawn)", None, _probability),
        Param("k", "top-k size (default: drawn)", None, int_in(1, 100)),
        Param("word", "which word's probability is asked (index; default: drawn among those kept)", None,
              int_in(0, 5)),
        Param("from_logits", "draw logits and a temperature instead of probabilities (level 3)", False,
              lambda v: None if isinstance(v, bool) else f"expected true or false, got {v!r}"),
    ),
    example={"probs": [0.4, 0.25, 0.15, 0.12, 0.08], "p": 0.75, "word": 0, "ask": "top_p"},
    constraints=(lambda p: _truncation_problem(p),),
)
def nucleus_sampling(rng: np.random.Generator, *, probs, logits, temperature, p, k, word, from_logits,
                     ask) -> Variant:
    """Top-p or top-k, then renormalise (params: probs or logits/temperature, p, k, word, ask); the engine's
    sampling_distribution (temperature, then top-k, then top-p, as Hugging Face's generate)."""
    for _ in range(TRIES):
        variant = _sampling(rng, probs, logits, temperature, p, k, word, from_logits, ask)
        if variant is not None and not on_screen(variant.prompt, variant.answer):
            return variant
    if variant is None:
        raise ValueError("nucleus_sampling: these params keep a single word or all of them")
    return variant


def _sampling(rng, probs, logits, temperature, p, k, word, from_logits, ask) -> Variant | None:
    import numpy as np

    from studytool import engine

    use_logits = logits is not None or (from_logits and probs is None)
    if use_logits:
        z = list(logits) if logits is not None else [int(x) / 10 for x in rng.choice(np.arange(-20, 31), 5, replace=False)]
        t = temperature if temperature is not None else pick(rng, (0.5, 0.8, 1.5, 2.0))
        given = engine.softmax(np.asarray(z, float) / t)
        params: dict[str, Any] = {"logits": plain(z), "temperature": t}
    else:
        q = list(probs) if probs is not None else _distinct_probs(rng)
        given = np.asarray(q, float) / sum(q)
        params = {"probs": plain(q)}
    n = len(given)
    if ask == "top_p":
        cut = p if p is not None else pick(rng, TOP_P)
        sums = np.cumsum(np.sort(given)[::-1])
        if any(abs(s - cut) < 1e-9 for s in sums):
            return None   # a prefix summing exactly to p: "reaches" and "crosses" would disagree
        dist = engine.sampling_distribution(np.log(given), top_p=cut)
        params["p"] = cut
    else:
        size = k if k is not None else int(rng.integers(2, n))
        dist = engine.sampling_distribution(np.log(given), top_k=size)
        params["k"] = size
    kept = [int(i) for i in dist.kept]
    if not 2 <= len(kept) < n:
        return None   # one word kept makes the answer 1; every word kept leaves the distribution as given
    asked = word if word is not None else kept[int(rng.integers(len(kept)))]
    if asked not in kept:
        return None
    params |= {"word": asked, "ask": ask}
    answer = float(dist.probs[asked])
    names = NAMES[:n]
    if use_logits:
        head = (f"下一个词的 logits：" + "，".join(f"{w} {x:g}" for w, x in zip(names, z)) +
                f"。先按温度 T = {t:g} 做 softmax(z / T)。")
        steps = [f"softmax(z / T) = " + "，".join(f"{w} {num(x)}" for w, x in zip(names, given))]
    else:
        head = "下一个词的概率：" + "，".join(f"{w} {x:g}" for w, x in zip(names, params["probs"])) + "。"
        steps = []
    order = sorted(range(n), key=lambda i: -given[i])
    mass = float(sum(given[i] for i in kept))
    if ask == "top_p":
        rule = f"用 top-p 采样，p = {params['p']:g}（从大到小累加，取累计概率第一次达到 p 的最小集合）"
        running = np.cumsum([given[i] for i in order])
        steps.append("从大到小累加：" + "，".join(f"{names[i]} {num(s)}" for i, s in zip(order, running)) +
                     f"；到 {names[kept[-1]]} 第一次达到 {params['p']:g}，保留 {'、'.join(names[i] for i in kept)}")
    else:
        rule = f"用 top-k 采样，k = {params['k']}（只保留概率最大的 k 个词）"
        steps.append(f"概率最大的 {params['k']} 个：{'、'.join(names[i] for i in kept)}")
    steps.append(f"保留的概率之和 {num(mass)}；{names[asked]}：{num(given[asked])} / {num(mass)} = {num(answer)}")
    hints = (Hint(float(given[asked]), "截断之后要重新归一化：除以保留下来的概率之和。"),)
    if ask == "top_p":
        wider = order[:len(kept) + 1]
        hints += (Hint(float(given[asked] / sum(given[i] for i in wider)), "达到 p 就停：不要再多取一个词。"),)
    prompt = head + rule + f"，截断并重新归一化后，“{names[asked]}”被采样到的概率是多少？"
    return Variant(prompt, "scalar", answer, FOUR_DECIMALS, tuple(steps), _wrong(hints, answer), params=params)


def _truncation_problem(p) -> str | None:
    """Pinned words and cut-off must keep two words or more but not all (and keep the asked word). Pure Python, as the
    engine's sampling_distribution cuts, so that checking a deck imports neither NumPy nor the engine."""
    if p.get("probs") is not None and p.get("logits") is not None:
        return "give probs or logits, not both"
    if p.get("probs") is not None:
        if sum(p["probs"]) <= 0:
            return "probs must have a positive sum"
        given = [x / sum(p["probs"]) for x in p["probs"]]
    elif p.get("logits") is not None:
        scaled = [z / (p.get("temperature") or 1) for z in p["logits"]]
        exps = [math.exp(z - max(scaled)) for z in scaled]
        given = [e / sum(exps) for e in exps]
    elif p.get("word") is not None:
        return "word needs pinned probs or logits"
    elif p.get("p") is not None and p["p"] > 0.95:
        return "p above 0.95 keeps every one of five drawn words (each has 0.03 or more)"
    elif p.get("k") is not None and not 2 <= p["k"] <= 4:
        return "k must keep 2..4 of five drawn words"
    else:
        return None
    if p.get("word") is not None and p["word"] >= len(given):
        return f"word {p['word']} is not one of the {len(given)} words"
    if len({round(x, 12) for x in given}) < len(given) or min(given) <= 0:
        return "the words' probabilities must be positive and distinct (a tie leaves the cut-off undefined)"
    for ask in (p["ask"],) if p.get("ask") else SAMPLING_ASKS:
        pinned = p.get("p") if ask == "top_p" else p.get("k")
        cuts = (pinned,) if pinned is not None else TOP_P if ask == "top_p" else tuple(range(2, len(given)))
        if not any(_keeps(given, ask, cut, p.get("word")) for cut in cuts):
            return f"no {'p' if ask == 'top_p' else 'k'} keeps two words or more but not all" + (
                f", word {p['word']} among them" if p.get("word") is not None else "")
    return None


def _keeps(given: list[float], ask: str, cut, word) -> bool:
    """Whether cutting `given` at `cut` keeps 2..n-1 words (`word` among them), no prefix summing exactly to p."""
    order = sorted(range(len(given)), key=lambda i: -given[i])
    if ask == "top_k":
        kept = order[:cut]
    else:
        kept, mass = [], 0.0
        for i in order:
            kept.append(i)
            mass += given[i]
            if abs(mass - cut) < 1e-9:
                return False   # "reaches" p and "crosses" p would disagree
            if mass > cut:
                break
    return 2 <= len(kept) < len(given) and (word is None or word in kept)


def _distinct_probs(rng) -> list[float]:
    """Five distinct probabilities of two decimals, summing to 1, none below 0.03."""
    while True:
        cuts = sorted(int(x) + 3 for x in rng.choice(95, 4, replace=False))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, 100])]
        if min(parts) >= 3 and len(set(parts)) == 5:
            return [x / 100 for x in parts]

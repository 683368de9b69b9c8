"""Decoding: softmax at temperature T over next-token logits, computed by the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studytool.problems.checks import int_in, is_number, numbers
from studytool.problems.drawing import FOUR_DECIMALS, TRIES, distinct_ints, floats, num, pick, plain, saturated, vec
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

ASKS = ("vector", "top")


def _temperature(value: Any) -> str | None:
    # below 0.05 the scaled logits overflow exp() long before the answer says anything new
    return None if is_number(value) and 0.05 <= value <= 100 else f"expected a number in 0.05..100, got {value!r}"


@generator(
    "temperature_softmax",
    "Sampling at temperature T: softmax(z / T) of next-token logits, or the top token's probability.",
    asks=ASKS,
    params=(
        Param("logits", "the logits z, pinned (default: drawn, distinct integers)", None, numbers(2, 6, lo=-20, hi=20)),
        Param("temperature", "T in 0.05..100 (default: drawn from 0.25, 0.5, 2, 4)", None, _temperature),
        Param("masked", "a banned word's position (from 0), its logit set to −∞ (level 3; default: none)", None,
              int_in(0, 5)),
    ),
    example={"logits": [2, 1, 0], "temperature": 0.5, "ask": "vector"},
    constraints=(lambda p: None if p.get("masked") is None or p.get("logits") is not None
                 and p["masked"] < len(p["logits"]) and p["logits"][p["masked"]] < max(p["logits"])
                 else "masked needs pinned logits, and may be neither past their end nor the largest",),
)
def temperature_softmax(rng: np.random.Generator, *, logits, temperature, masked, ask) -> Variant:
    """softmax(z / T) for sampling (params: logits, temperature, ask).

    T < 1 sharpens the distribution towards greedy decoding, T > 1 flattens it; the order of the
    tokens never changes, so greedy decoding picks the same token at every T.
    """
    import numpy as np
    from studytool import engine

    for _ in range(TRIES):   # drawn logits and T: never a probability that shows as 0.0000 or 1.0000
        z = np.asarray(logits if logits is not None else distinct_ints(rng, int(rng.integers(3, 5)), -1, 4),
                       dtype=float)
        t = temperature if temperature is not None else float(pick(rng, (0.5, 2.0, 0.25, 4.0)))
        p = engine.softmax(z / t)
        if not saturated(p) or logits is not None and temperature is not None:
            break
    plain_p = engine.softmax(z)
    params = {"logits": plain(list(logits if logits is not None else z.astype(int))), "temperature": t, "ask": ask}
    scaled = z / t
    banned = ()
    if masked is not None:   # level 3: one word banned (−∞) as well, one more step
        params["masked"] = masked
        scaled = np.where(np.arange(len(z)) == masked, -np.inf, scaled)
        p = engine.softmax(scaled)
        banned = (f"掩码：第 {masked + 1} 个词被禁止，logit 设为 −∞，概率恰为 0；只在其余的词之间归一化",)
    e = np.exp(scaled - scaled.max())
    steps = (f"先除以温度：z / T = {vec(z)} / {t:g} = {vec(z / t)}", *banned,
             f"减去最大值后取指数：{vec(e)}，求和 {num(e.sum())}",
             f"逐个除以和：softmax(z / T) = {vec(p)}",
             f"对照 T = 1：{vec(plain_p)}；" + ("T < 1 让分布更尖，趋向贪心解码" if t < 1 else "T > 1 让分布更平，采样更随机")
             + "；排序不变，贪心解码选的词不受 T 影响")
    head = f"下一个词的 logits z = {vec(z)}，按温度 T = {t:g} 采样。"
    unmasked = engine.softmax(z / t)
    if masked is not None:
        head += f"第 {masked + 1} 个词被禁止采样（logit 设为 −∞）。"
        plain_p = engine.softmax(np.where(np.arange(len(z)) == masked, -np.inf, z))   # the mask, but no T
    if ask == "vector":
        hints = (Hint(floats(plain_p), "别忘了先除以温度 T，再做 softmax。"),
                 Hint(floats(engine.softmax(z * t)), "是除以 T，不是乘以 T。"))
        if masked is not None:
            hints += (Hint(floats(unmasked), "别忘了掩码：被禁止的词概率为 0，只在其余的词之间归一化。"),)
        return Variant(head + f"采样用的概率分布 softmax(z / T) 是什么？（{len(z)} 个概率）", "vector", floats(p),
                       FOUR_DECIMALS, steps, hints, params=params)
    top = int(np.argmax(z))
    hints = (Hint(float(plain_p[top]), "别忘了先除以温度 T，再做 softmax。"),
             Hint(float(engine.softmax(z * t)[top]), "是除以 T，不是乘以 T。"))
    if masked is not None:
        hints += (Hint(float(unmasked[top]), "别忘了掩码：被禁止的词概率为 0，只在其余的词之间归一化。"),)
    return Variant(head + f"logit 最大的那个词（z = {num(z[top])}）被采样到的概率是多少？", "scalar", float(p[top]),
                   FOUR_DECIMALS, steps, hints, params=params)


BEAM_ASKS = ("greedy", "beam", "prob", "runner_up")
_FIRST = (0.52, 0.55, 0.58, 0.6, 0.62)   # P(A) at step 1: A looks better at first
_FLAT = (0.52, 0.55, 0.58, 0.6, 0.65)    # after A the next word is uncertain (never 0.5: greedy needs no tie-break)
_SHARP = (0.75, 0.8, 0.85, 0.9, 0.95, 0.98)   # after B it is nearly sure


def _two_steps(rng: np.random.Generator) -> tuple[float, float, float]:
    """P(A), P(X | A), P(X | B) with a clear margin between the two prefixes' best sequences (so rounding never
    decides). Greedy takes A first; in half the draws the most probable sequence starts with B (greedy misses
    it), in the other half with A: whichever wins, only the two products tell, never "the surprise word"."""
    b_wins = bool(rng.integers(2))
    while True:
        first, flat, sharp = pick(rng, _FIRST), pick(rng, _FLAT), pick(rng, _SHARP)
        margin = round((1 - first) * sharp - first * flat, 6)   # B's best over A's best
        if (margin > 0) == b_wins and abs(margin) > 0.01:
            x_after_a = flat if rng.integers(2) else round(1 - flat, 2)   # which word the flat branch prefers
            x_after_b = sharp if rng.integers(2) else round(1 - sharp, 2)
            return first, x_after_a, x_after_b


def _probability(value: Any) -> str | None:
    # strictly between 0 and 1 and not 0.5: a tie would leave greedy decoding undefined
    ok = is_number(value) and 0.01 <= value <= 0.99 and value != 0.5
    return None if ok else f"expected a probability in 0.01..0.99 other than 0.5, got {value!r}"


@generator(
    "beam_search",
    "Greedy decoding vs beam search (k = 2) over two steps: which sequence each picks, the beam's probability.",
    asks=BEAM_ASKS,
    params=(
        Param("p_first", "P(A) at step 1, pinned (default: drawn so that greedy misses the best sequence)", None,
            _probability),
        Param("x_after_a", "P(X | A) at step 2, pinned (default: drawn)", None, _probability),
        Param("x_after_b", "P(X | B) at step 2, pinned (default: drawn)", None, _probability),
    ),
    example={"p_first": 0.6, "x_after_a": 0.55, "x_after_b": 0.9, "ask": "beam"},
    small={"greedy": "the answer is one of the four two-word sequences (shuffled options)",
          "beam": "the answer is one of the four two-word sequences (shuffled options)"},
)
def beam_search(rng: np.random.Generator, *, p_first, x_after_a, x_after_b, ask) -> Variant:
    """Greedy decoding vs beam search (k = 2) over two steps of two words each (params: p_first, x_after_a,
    x_after_b, ask).

    Drawn probabilities make greedy choose A first; the most probable sequence starts with B in half the
    draws (greedy misses it: the point of keeping k candidates) and with A in the other half.
    """
    import numpy as np

    if p_first is None or x_after_a is None or x_after_b is None:
        drawn = _two_steps(rng)
        p_first, x_after_a, x_after_b = (v if v is not None else d for v, d in zip((p_first, x_after_a, x_after_b), drawn))
    first = {"A": p_first, "B": round(1 - p_first, 6)}
    second = {"A": {"X": x_after_a, "Y": round(1 - x_after_a, 6)}, "B": {"X": x_after_b, "Y": round(1 - x_after_b, 6)}}
    joint = {f"{w1} {w2}": first[w1] * p for w1 in "AB" for w2, p in second[w1].items()}
    top = max(first, key=first.get)
    greedy = f"{top} {max(second[top], key=second[top].get)}"
    best = max(joint, key=joint.get)
    options = tuple(np.asarray(list(joint), dtype=object)[rng.permutation(4)])   # shuffled: no telling position
    params = {"p_first": p_first, "x_after_a": x_after_a, "x_after_b": x_after_b, "ask": ask}
    table = "；".join(f"P({w2} | {w1}) = {p:g}" for w1 in "AB" for w2, p in second[w1].items())
    head = (f"一个两步的解码：第 1 步 P(A) = {first['A']:g}、P(B) = {first['B']:g}；第 2 步 {table}。"
            "每步只有这两个候选词，两步后结束。")
    ranked = sorted(joint.items(), key=lambda item: -item[1])
    steps = (f"贪心：第 1 步取 {top}，第 2 步在 {top} 之后取 {greedy[-1]}，得 {greedy}，概率 {num(joint[greedy])}",
             "束宽 k = 2：第 1 步保留 A、B 两个前缀；第 2 步扩展出 4 个序列，按整句概率排序：" +
             "，".join(f"{seq} = {num(p)}" for seq, p in ranked),
             f"beam search 得 {best}（{num(joint[best])}）" + ("，比贪心的结果更可能：第 1 步稍差的前缀后面跟着一个几乎确定的词"
                                                       if best != greedy else "，这里与贪心相同"))
    if ask == "runner_up":   # level 3: the whole final beam, ranked, not only its best sequence
        second, p_second = ranked[1]
        steps += (f"束宽 k = 2，最后留在束里的是前两名：{best} 和 {second}；第二条的概率 = {num(p_second)}",)
        hints = tuple(h for h in (Hint(joint[best], "那是束里最好的一条；问的是留在束里的第二条。"),
                                  Hint(ranked[2][1], "那是第三名；束宽 k = 2 只留前两名。"))
                      if abs(h.answer - p_second) > 1e-9)
        return Variant(head + "束宽 k = 2 的 beam search 结束时，束里保留两条完整序列。概率较小的那一条（第二名）概率是多少？",
                       "scalar", p_second, FOUR_DECIMALS, steps, hints, params=params)
    if ask == "prob":
        hints = (Hint(joint[greedy], "那是贪心结果的概率；beam search 保留两个前缀，找到的是整句概率最高的序列。"),
                 Hint(max(second["B"].values()), "整句概率要把两步相乘：P(第一个词) × P(第二个词 | 第一个词)。"))
        return Variant(head + "束宽 k = 2 的 beam search 选出的整句，概率是多少？", "scalar", joint[best], FOUR_DECIMALS,
                       steps, tuple(h for h in hints if abs(h.answer - joint[best]) > 1e-9), params=params)
    right, other = (greedy, best) if ask == "greedy" else (best, greedy)
    hints = (Hint(frozenset({options.index(other)}),
                  "那是 beam search 的结果；贪心每步只看当前最大的词。" if ask == "greedy" else
                  "那是贪心的结果；beam search 保留两个前缀，比的是整句概率。"),) if other != right else ()
    which = "贪心解码（每步取概率最大的词）" if ask == "greedy" else "束宽 k = 2 的 beam search（按整句概率）"
    return Variant(head + f"{which}输出哪个序列？", "choice", frozenset({options.index(right)}), None, steps, hints,
                   options, params=params)

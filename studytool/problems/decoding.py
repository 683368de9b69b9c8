"""Decoding: softmax at temperature T over next-token logits, computed by the engine."""

from __future__ import annotations

import numpy as np

from studytool import engine
from studytool.problems.drawing import FOUR_DECIMALS, distinct_ints, floats, num, pick, plain, vec
from studytool.problems.variant import Hint, Variant

ASKS = ("vector", "top")


def temperature_softmax(rng: np.random.Generator, *, logits, temperature, ask) -> Variant:
    """softmax(z / T) for sampling (params: logits, temperature, ask).

    T < 1 sharpens the distribution towards greedy decoding, T > 1 flattens it; the order of the
    tokens never changes, so greedy decoding picks the same token at every T.
    """
    ask = ask or pick(rng, ASKS)
    z = np.asarray(logits if logits is not None else distinct_ints(rng, int(rng.integers(3, 5)), -1, 4), dtype=float)
    t = temperature if temperature is not None else float(pick(rng, (0.5, 2.0, 0.25, 4.0)))
    p = engine.softmax(z / t)
    plain_p = engine.softmax(z)
    params = {"logits": plain(list(logits if logits is not None else z.astype(int))), "temperature": t, "ask": ask}
    scaled = z / t
    e = np.exp(scaled - scaled.max())
    steps = (f"先除以温度：z / T = {vec(z)} / {t:g} = {vec(scaled)}",
             f"减去最大值后取指数：{vec(e)}，求和 {num(e.sum())}",
             f"逐个除以和：softmax(z / T) = {vec(p)}",
             f"对照 T = 1：{vec(plain_p)}；" + ("T < 1 让分布更尖，趋向贪心解码" if t < 1 else "T > 1 让分布更平，采样更随机")
             + "；排序不变，贪心解码选的词不受 T 影响")
    head = f"下一个词的 logits z = {vec(z)}，按温度 T = {t:g} 采样。"
    if ask == "vector":
        hints = (Hint(floats(plain_p), "别忘了先除以温度 T，再做 softmax。"),
                 Hint(floats(engine.softmax(z * t)), "是除以 T，不是乘以 T。"))
        return Variant(head + f"采样用的概率分布 softmax(z / T) 是什么？（{len(z)} 个概率）", "vector", floats(p),
                       FOUR_DECIMALS, steps, hints, params=params)
    top = int(np.argmax(z))
    hints = (Hint(float(plain_p[top]), "别忘了先除以温度 T，再做 softmax。"),
             Hint(float(engine.softmax(z * t)[top]), "是除以 T，不是乘以 T。"))
    return Variant(head + f"logit 最大的那个词（z = {num(z[top])}）被采样到的概率是多少？", "scalar", float(p[top]),
                   FOUR_DECIMALS, steps, hints, params=params)

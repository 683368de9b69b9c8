"""Preference optimisation: DPO's loss from the policy's and the reference model's log-probabilities."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from studytool.problems.checks import is_number, numbers
from studytool.problems.drawing import FOUR_DECIMALS, num, pick, plain, redrawn
from studytool.problems.llm_memory import _g, _wrong
from studytool.problems.registry import Param, generator
from studytool.problems.variant import Hint, Variant

if TYPE_CHECKING:
    import numpy as np

ASKS = ("loss", "margin")
RESPONSES = ("policy_chosen", "policy_rejected", "ref_chosen", "ref_rejected")
_SAID = {"policy_chosen": "策略 log π(y_w|x)", "policy_rejected": "策略 log π(y_l|x)",
         "ref_chosen": "参考 log π_ref(y_w|x)", "ref_rejected": "参考 log π_ref(y_l|x)"}


def _log_prob(value: Any) -> str | None:
    return None if is_number(value) and -1000 <= value <= 0 else f"expected a log-probability in -1000..0, got {value!r}"


def neg_log_sigmoid(z: float) -> float:
    """-log σ(z), through the engine's stable softmax: σ(z) = softmax([z, 0])[0]."""
    from studytool import engine

    return -math.log(float(engine.softmax([z, 0.0])[0]))


@generator(
    "dpo_loss",
    "DPO: -log σ(β·[(log π − log π_ref)(y_w) − (log π − log π_ref)(y_l)]), from whole-response log-probabilities or "
    "(level 3) from each token's.",
    asks=ASKS,
    params=(
        *(Param(name, f"{name.replace('_', ' ')} log-probability of the whole response (default: drawn)", None,
                _log_prob) for name in RESPONSES),
        Param("tokens", "each response's per-token log-probabilities, policy then reference (level 3; default: none)",
              None, lambda v: None if isinstance(v, dict) and set(v) == set(RESPONSES) and all(
                  numbers(2, 6, lo=-20, hi=0)(v[k]) is None for k in RESPONSES) else "expected four lists"),
        Param("per_token", "give per-token log-probabilities to sum first (level 3)", False,
              lambda v: None if isinstance(v, bool) else f"expected true or false, got {v!r}"),
        Param("beta", "β, the KL weight (default: drawn from 0.1..0.5)", None,
              lambda v: None if is_number(v) and 0 < v <= 10 else f"expected a number in (0, 10], got {v!r}"),
    ),
    example={"policy_chosen": -12.0, "policy_rejected": -15.0, "ref_chosen": -13.0, "ref_rejected": -14.0,
             "beta": 0.1, "ask": "loss"},
)
def dpo_loss(rng: np.random.Generator, *, policy_chosen, policy_rejected, ref_chosen, ref_rejected, tokens, per_token,
             beta, ask) -> Variant:
    """DPO's loss or its implicit reward margin (params: log-probabilities, beta, ask); arXiv 2305.18290 eq. (7).
    The example: β = 0.1, log-ratios +1 and −1: −log σ(0.2) = 0.5981."""
    given = {"policy_chosen": policy_chosen, "policy_rejected": policy_rejected, "ref_chosen": ref_chosen,
             "ref_rejected": ref_rejected}
    return redrawn(lambda: _dpo(rng, given, tokens, per_token, beta, ask))


def _dpo(rng, given, tokens, per_token, beta, ask) -> Variant:
    b = beta if beta is not None else pick(rng, (0.1, 0.2, 0.25, 0.5))
    params: dict[str, Any] = {"beta": b, "ask": ask}
    steps: list[str] = []
    if tokens is not None or (per_token and all(v is None for v in given.values())):
        each = tokens if tokens is not None else {name: [-int(x) / 10 for x in rng.integers(1, 40, 3)]
                                                  for name in RESPONSES}
        logp = {name: round(sum(each[name]), 10) for name in RESPONSES}
        params["tokens"] = plain(each)
        listing = "；".join(f"{_SAID[n]} 的各 token：[{', '.join(_g(x) for x in each[n])}]" for n in RESPONSES)
        steps += [f"整句的对数概率是各 token 之和：" + "，".join(f"{_SAID[n]} = {num(logp[n])}" for n in RESPONSES)]
        data = f"每个回答 3 个 token，各 token 的对数概率（自然对数）——{listing}。"
    else:
        logp = {name: (value if value is not None else -float(int(rng.integers(20, 200)) / 10))
                for name, value in given.items()}
        params |= logp
        data = "整句的对数概率（自然对数）：" + "，".join(f"{_SAID[n]} = {_g(logp[n])}" for n in RESPONSES) + "。"
    chosen = logp["policy_chosen"] - logp["ref_chosen"]
    rejected = logp["policy_rejected"] - logp["ref_rejected"]
    margin = b * (chosen - rejected)
    head = f"DPO 训练（β = {b:g}）：同一提示 x 的一对回答，y_w 更好、y_l 更差。{data}"
    steps += [f"好回答的对数比值 log π/π_ref = {num(logp['policy_chosen'])} − ({num(logp['ref_chosen'])}) = {num(chosen)}",
              f"差回答的对数比值 = {num(logp['policy_rejected'])} − ({num(logp['ref_rejected'])}) = {num(rejected)}",
              f"β × 差 = {b:g} × ({num(chosen)} − ({num(rejected)})) = {num(margin)}"]
    if ask == "margin":
        hints = (Hint(chosen - rejected, f"别忘了乘 β = {b:g}。"),
                 Hint(b * (logp["policy_chosen"] - logp["policy_rejected"]), "要减去参考模型的对数概率：用 log π − log π_ref。"))
        return Variant(head + "DPO 隐含的奖励差 β·[log π/π_ref(y_w) − log π/π_ref(y_l)] 是多少？", "scalar", margin,
                       FOUR_DECIMALS, tuple(steps), _wrong(hints, margin), params=params)
    loss = neg_log_sigmoid(margin)
    steps.append(f"损失 = −log σ({num(margin)}) = log(1 + exp({num(-margin)})) = {num(loss)}")
    hints = (Hint(neg_log_sigmoid(chosen - rejected), f"σ 里面要乘 β = {b:g}。"),
             Hint(neg_log_sigmoid(b * (logp["policy_chosen"] - logp["policy_rejected"])),
                  "要减去参考模型的对数概率：用 log π − log π_ref。"),
             Hint(neg_log_sigmoid(-margin), "好回答在前：σ(β·[好 − 差])，不是差 − 好。"))
    return Variant(head + "这一对的 DPO 损失 −log σ(β·[log π/π_ref(y_w) − log π/π_ref(y_l)]) 是多少？", "scalar", loss,
                   FOUR_DECIMALS, tuple(steps), _wrong(hints, loss), params=params)

"""Which tokens a sampler may draw from a logit vector: temperature, then top-k, then top-p (nucleus).

The order is Hugging Face `generate`'s (TemperatureLogitsWarper, TopKLogitsWarper,
TopPLogitsWarper): temperature reshapes the distribution, top-k keeps the k most likely tokens,
top-p then keeps the smallest set of those, most likely first, whose probability reaches p
(Holtzman et al. 2019). What is kept is renormalised to sum to 1.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .functional import Array, _as_float, softmax


class SamplingDistribution(NamedTuple):
    """kept: the token ids that may be drawn, most likely first (ties: lower id first);
    probs: (V,) their renormalised probabilities, 0 for every other token."""

    kept: np.ndarray
    probs: Array


def sampling_distribution(
    logits: Array, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None
) -> SamplingDistribution:
    """The kept tokens and renormalised probabilities for one logit vector (V,).

    temperature > 0 divides the logits (below 1 sharpens, above 1 flattens); top_k >= 1 keeps at
    most k tokens (all of them when k >= V); 0 < top_p <= 1 keeps tokens in order of probability
    until their mass reaches top_p, so the token that crosses p is kept, and at least one is.
    None switches a filter off. Top-p measures the mass after temperature and top-k.
    """
    logits = _as_float(logits)
    if logits.ndim != 1 or logits.size == 0:
        raise ValueError(f"logits must be one non-empty vector (V,), got shape {logits.shape}")
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be at least 1, got {top_k}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], got {top_p}")
    order = np.argsort(-logits, kind="stable")  # (V,) token ids, most likely first
    probs = softmax(logits[order] / temperature)  # (V,) in that order
    kept = len(order) if top_k is None else min(top_k, len(order))
    if top_p is not None and top_p < 1:  # p = 1 keeps everything (cumulative sums may round past 1)
        probs = probs[:kept] / probs[:kept].sum()  # top-p measures what top-k left
        before = np.concatenate([[0.0], np.cumsum(probs)[:-1]])  # mass of the tokens ranked above each one
        kept = max(1, int(np.count_nonzero(before < top_p)))  # before never decreases: the kept set is a prefix
    out = np.zeros_like(probs, shape=logits.shape)
    out[order[:kept]] = probs[:kept] / probs[:kept].sum()
    return SamplingDistribution(order[:kept], out)

"""K different posings of one card, for exports that fix K variants per generated card.

A generator with a small parameter space (e.g. a few embedding sizes) repeats itself: two seeds can pose
the same question with the same answer. `distinct_variants` takes seeds in the caller's order and keeps
only posings not seen before, so the result is deterministic for the same seeds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from studytool.problems.answers import format_answer
from studytool.problems.variant import Variant


class Poses(Protocol):
    """Anything posed by seed, such as `studytool.decks.model.Card`."""

    def pose(self, seed: int | None = None) -> Variant: ...


def variant_key(variant: Variant) -> tuple[str, tuple[str, ...], str]:
    """What a learner sees and must answer: the prompt, the options as shown, the canonical answer."""
    return variant.prompt, tuple(variant.options), format_answer(variant)


def distinct_variants(
    card: Poses, k: int, seeds: Iterable[int | None], tries: int | None = None
) -> list[tuple[int | None, Variant]]:
    """Up to `k` (seed, variant) pairs with different keys, taking `seeds` in order and skipping repeats.

    At most `tries` seeds are posed (default 20 * k), so a card with fewer than k different posings
    (a fixed card has one) gives fewer pairs instead of running on.
    """
    tries = 20 * k if tries is None else tries
    found: dict[tuple, tuple[int | None, Variant]] = {}
    for tried, seed in enumerate(seeds):
        if len(found) == k or tried == tries:
            break
        variant = card.pose(seed)
        found.setdefault(variant_key(variant), (seed, variant))
    return list(found.values())

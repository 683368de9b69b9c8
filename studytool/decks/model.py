"""A validated card, as the loader builds it and every layer above uses it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

CardKind = Literal["recall", "choice", "truefalse", "number", "vector", "shape", "order", "generated"]


@dataclass(frozen=True)
class Card:
    deck: str                 # deck id
    id: str                   # card id, unique within the deck
    kind: CardKind
    topic: str                # an explain topic id
    tags: tuple[str, ...] = ()
    source: str = ""          # lecture and page/section
    why: str | None = None    # shown after answering
    body: dict[str, Any] = field(default_factory=dict)  # the kind's own fields (q, a, options, answer, generator, params, example ...)
    file: str = ""            # where it was read, for messages
    line: int = 0

    @property
    def key(self) -> str:
        """Progress is keyed by deck/id, never by text."""
        return f"{self.deck}/{self.id}"

    def pose(self, seed: int | None = None):
        """The card as a `Variant` to show and grade.

        A generated card draws a fresh variant from its generator with
        `numpy.random.default_rng(seed)`; `seed=None` poses the notes' own
        example. Fixed cards ignore the seed.
        """
        raise NotImplementedError  # built by the decks issue


@dataclass(frozen=True)
class Deck:
    deck: str
    title: str
    source: str
    cards: tuple[Card, ...]
    file: str = ""

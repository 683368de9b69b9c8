"""A validated card, as the loader builds it and every layer above uses it."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from studytool.problems.variant import TRUE_FALSE, Tolerance, Variant

CardKind = Literal["recall", "choice", "truefalse", "number", "vector", "shape", "order", "generated"]
TAGS = ("self-test", "interview", "mistake", "example", "extra", "fact")   # the tags a card may carry


@dataclass(frozen=True)
class Card:
    deck: str                 # deck id
    id: str                   # card id, unique within the deck
    kind: CardKind
    topic: str                # an explain topic id
    tags: tuple[str, ...] = ()
    source: str = ""          # lecture and page/section
    why: str | None = None    # shown after answering
    body: dict[str, Any] = field(default_factory=dict)  # the kind's own fields: q, a, options, answer,
                                                        # generator, params, example ... (plain YAML values)
    file: str = ""            # where it was read, for messages
    line: int = 0
    formerly: tuple[str, ...] = ()   # ids the card had before a rename; progress under them moves here

    @property
    def key(self) -> str:
        """Progress is keyed by deck/id, never by text."""
        return f"{self.deck}/{self.id}"

    def pose(self, seed: int | None = None, level: int = 1) -> Variant:
        """The card as a `Variant` to show and grade.

        A generated card draws from its generator with
        `numpy.random.default_rng(seed)` and its `params`; `seed=None` poses the
        notes' own numbers (`example` merged over `params`, drawn with seed 0).
        The seed also lays out a fixed card: a choice card's options are shuffled
        (pinned ones stay in place), a true/false card shows its true or its false
        form, an order card its items shuffled; `params` records the layout
        (`order`, `form`) so the log can replay it. The layout is drawn from the card's
        key with the seed, so cards shown with one seed are not laid out alike, and
        `seed=None` too gives each card its own fixed layout. `level` (1-3) grows a generated
        card's question (`problems/levels.py`); the notes' own numbers are level 1.
        """
        layout = f"{self.key}/{seed}"
        if self.kind == "generated" and seed is not None:
            return replace(_pose_generated(self.body, seed, layout, level), seed=seed)
        return replace(_POSE[self.kind](self.body, seed, layout), seed=seed)

    @property
    def question(self) -> str:
        """The question as text, for listings: q, the statement, or the generator call."""
        if self.kind == "generated":
            pinned = {**self.body.get("params", {}), **self.body.get("example", {})}
            args = ", ".join(f"{name}={value}" for name, value in pinned.items())
            return f"{self.body['generator']}({args})"
        return self.body.get("q") or self.body["statement"]


FLOAT_TOLERANCE = Tolerance(abs=1e-4)   # 4 decimals: the one policy, fixed and generated alike


def _numeric_tolerance(body: dict[str, Any], values: list[int | float]) -> Tolerance | None:
    """The card's absolute tolerance; default exact for integers, 4 decimals for floats."""
    if "tolerance" in body:
        return Tolerance(abs=body["tolerance"])
    return None if all(isinstance(v, int) for v in values) else FLOAT_TOLERANCE


def _letters(answer: str | list[str]) -> frozenset[int]:
    return frozenset("ABCDEFGH".index(letter) for letter in ([answer] if isinstance(answer, str) else answer))


def _pose_recall(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    return Variant(prompt=body["q"], kind="recall", answer=body["a"])


def shuffled_order(n: int, pinned: frozenset[int], layout: str) -> list[int]:
    """order[shown position] = written index: the unpinned options permuted by `layout`, pinned ones in place."""
    free = [i for i in range(n) if i not in pinned]
    moved = random.Random(layout).sample(free, len(free))   # stdlib: a fixed card needs no NumPy
    order = list(range(n))
    for slot, index in zip(free, moved):
        order[slot] = index
    return order


def _pose_choice(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    written = body["options"]
    order = shuffled_order(len(written), _letters(body.get("pin", [])), layout)
    right = _letters(body["answer"])
    return Variant(prompt=body["q"], kind="choice", answer=frozenset(order.index(i) for i in right),
                   options=tuple(written[i] for i in order), params={"order": order})


def _pose_truefalse(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    # half the showings state the written statement, half its opposite, so 错 is no safe bet
    shown_true = random.Random(layout).random() < 0.5
    statement = body["statement"] if shown_true == body["answer"] else body["opposite"]
    return Variant(prompt=statement, kind="choice", answer=frozenset({0 if shown_true else 1}),
                   options=TRUE_FALSE, params={"form": "true" if shown_true else "false"})


def _pose_number(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    answer = body["answer"]
    return Variant(prompt=body["q"], kind="scalar", answer=answer, tolerance=_numeric_tolerance(body, [answer]))


def _pose_vector(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    answer = body["answer"]
    return Variant(prompt=body["q"], kind="vector", answer=tuple(float(v) for v in answer),
                   tolerance=_numeric_tolerance(body, answer))


def _pose_shape(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    return Variant(prompt=body["q"], kind="shape", answer=tuple(body["answer"]))


def _pose_order(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    items = body["items"]
    shown = shuffled_order(len(items), frozenset(), layout)
    if shown == list(range(len(items))):   # shown in order would give the answer away
        shown = shown[1:] + shown[:1]
    # answer: the shown positions of the items, in the right order
    return Variant(prompt=body["q"], kind="sequence", answer=tuple(shown.index(i) for i in range(len(items))),
                   options=tuple(items[i] for i in shown), params={"order": shown})


def _pose_generated(body: dict[str, Any], seed: int | None, layout: str, level: int = 1) -> Variant:
    import numpy as np

    from studytool.problems import registry

    params = dict(body.get("params", {}))
    if seed is None:
        params |= body.get("example", {})
    return registry.get(body["generator"]).draw(np.random.default_rng(0 if seed is None else seed), level=level,
                                                **params)


_POSE = {
    "recall": _pose_recall, "choice": _pose_choice, "truefalse": _pose_truefalse, "number": _pose_number,
    "vector": _pose_vector, "shape": _pose_shape, "order": _pose_order, "generated": _pose_generated,
}


@dataclass(frozen=True)
class Deck:
    deck: str
    title: str
    source: str
    cards: tuple[Card, ...]
    file: str = ""
    formerly: tuple[str, ...] = ()   # ids the deck had before a rename; progress under them moves here

    @property
    def kinds(self) -> dict[str, int]:
        """Card count per kind present, in the order of `CardKind`."""
        counts = {kind: sum(card.kind == kind for card in self.cards) for kind in get_args(CardKind)}
        return {kind: n for kind, n in counts.items() if n}

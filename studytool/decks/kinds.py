"""One spec per card kind: its fields (each with a field type), the required ones, how it is posed, its help.

`decks/validate.py` checks a card against its kind's spec (each field type's converter is in
`decks/fields.py`) and `decks/schema.py` writes `bundled/schema.json` from the same specs, so a
new kind, or a new field of one, is added here once. Posing needs no NumPy for a fixed card.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from studytool.i18n import _
from studytool.problems.variant import TRUE_FALSE, Tolerance, Variant

CardKind = Literal["recall", "choice", "truefalse", "number", "vector", "shape", "order", "generated"]
TAGS = ("self-test", "interview", "mistake", "example", "extra", "fact")   # the tags a card may carry
Pose = Callable[[dict[str, Any], "int | None", str], Variant]   # (body, seed, layout key) -> Variant


@dataclass(frozen=True)
class Field:
    type: str              # a field type of `decks/fields.py` (its converter and its JSON Schema)
    description: str = ""  # for schema.json; English, as the rest of the schema


@dataclass(frozen=True)
class Kind:
    name: str
    fields: Mapping[str, Field]    # the kind's own fields (the card's body)
    required: tuple[str, ...]      # of its own fields, and common ones it needs besides id, kind, topic
    pose: Pose
    help: Callable[[], str]        # which fields it has, in the interface language (said for a misplaced field)


# Every card has these; `id`, `kind` and `topic` are required.
COMMON = {
    "id": Field("id", "Unique within the deck; progress is keyed by deck/id."),
    "kind": Field("kind"),
    "topic": Field("topic", "An explain topic id."),
    "tags": Field("tags"),
    "source": Field("text", "Lecture and page or section."),
    "why": Field("text", "Shown after answering (required for truefalse)."),
    "formerly": Field("former", "Ids this card had before a rename; recorded progress under them moves to the new id."),
}
REQUIRED_COMMON = ("id", "kind", "topic")

DECK = {
    "deck": Field("id", "The deck id, unique across all decks."),
    "formerly": Field("former", "Ids this deck had before a rename; recorded progress under them moves to the new id."),
    "title": Field("text"),
    "source": Field("text", "Where the cards come from, e.g. a lecture and its pages."),
    "cards": Field("cards"),
}
REQUIRED_DECK = ("deck", "title", "cards")


# --- posing: a card's body as the Variant shown and graded ---

FLOAT_TOLERANCE = Tolerance(abs=1e-4)   # 4 decimals: the one policy, fixed and generated alike
# A card's tolerance is 0 (exact) or from this on: 9 decimals, so a key of up to 16 digits shows in 25 and can
# be typed back (a typed number has at most 50); finer asks for digits a float64 answer does not carry.
MIN_TOLERANCE = 1e-9


def _numeric_tolerance(body: dict[str, Any], values: list[int | float]) -> Tolerance | None:
    """The card's absolute tolerance; default exact for integers, 4 decimals for floats."""
    if "tolerance" in body:
        return Tolerance(abs=body["tolerance"])
    return None if all(isinstance(v, int) for v in values) else FLOAT_TOLERANCE


def _letters(answer: str | list[str]) -> frozenset[int]:
    return frozenset("ABCDEFGH".index(letter) for letter in ([answer] if isinstance(answer, str) else answer))


def shuffled_order(n: int, pinned: frozenset[int], layout: str) -> list[int]:
    """order[shown position] = written index: the unpinned options permuted by `layout`, pinned ones in place."""
    free = [i for i in range(n) if i not in pinned]
    moved = random.Random(layout).sample(free, len(free))   # stdlib: a fixed card needs no NumPy
    order = list(range(n))
    for slot, index in zip(free, moved):
        order[slot] = index
    return order


def _pose_recall(body: dict[str, Any], seed: int | None, layout: str) -> Variant:
    return Variant(prompt=body["q"], kind="recall", answer=body["a"])


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
    # any order, the right one included: never showing it let a learner rule one permutation out (issue 23)
    shown = shuffled_order(len(items), frozenset(), layout)
    # answer: the shown positions of the items, in the right order
    return Variant(prompt=body["q"], kind="sequence", answer=tuple(shown.index(i) for i in range(len(items))),
                   options=tuple(items[i] for i in shown), params={"order": shown})


def pose_generated(body: dict[str, Any], seed: int | None, layout: str, level: int = 1) -> Variant:
    import numpy as np

    from studytool.problems import registry

    params = dict(body.get("params", {}))
    if seed is None:
        params |= body.get("example", {})
    return registry.get(body["generator"]).draw(np.random.default_rng(0 if seed is None else seed), level=level,
                                                **params)


# --- the kinds ---

_Q = Field("text")
_TOLERANCE = Field("tolerance")

KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("recall", {"q": _Q, "a": Field("text")}, ("q", "a"), _pose_recall,
         lambda: _("recall cards have 'q' and the reference answer 'a'")),
    Kind("choice", {"q": _Q, "options": Field("options", "The options, shown as A, B, C ..."),
                    "answer": Field("letters", "The right option's letter, or a list of letters when several are right."),
                    "pin": Field("letters", "Letters of options that stay in place when the options are shuffled "
                                            "(e.g. 以上都不对).")},
         ("q", "options", "answer"), _pose_choice,
         lambda: _("choice cards have 'q', 'options', 'answer' (a letter, or a list of letters) and an optional "
                   "'pin' (letters of options that stay in place when the options are shuffled)")),
    # both forms: a showing states one of them, so always answering 错 (or 对) scores half
    Kind("truefalse", {"statement": Field("text"), "answer": Field("boolean"),
                       "opposite": Field("text", "The statement with the other truth value; a showing states one of "
                                                 "the two.")},
         ("statement", "answer", "opposite", "why"), _pose_truefalse,
         lambda: _("truefalse cards have 'statement', 'answer' (true or false), 'opposite' (the statement with "
                   "the other truth value) and 'why'; no 'q'")),
    Kind("number", {"q": _Q, "answer": Field("number"), "tolerance": _TOLERANCE}, ("q", "answer"), _pose_number,
         lambda: _("number cards have 'q', 'answer' (a number) and an optional 'tolerance'")),
    Kind("vector", {"q": _Q, "answer": Field("numbers"), "tolerance": _TOLERANCE}, ("q", "answer"), _pose_vector,
         lambda: _("vector cards have 'q', 'answer' (a list of numbers) and an optional 'tolerance'")),
    Kind("shape", {"q": _Q, "answer": Field("shape")}, ("q", "answer"), _pose_shape,
         lambda: _("shape cards have 'q' and 'answer' (a list of positive integers)")),
    Kind("order", {"q": _Q, "items": Field("order_items", "The steps in the right order; shown shuffled.")},
         ("q", "items"), _pose_order,
         lambda: _("order cards list 'items' in the right order; they have no 'answer'")),
    Kind("generated", {"generator": Field("generator", "A generator of the problems registry."),
                       "params": Field("mapping", "Overrides of the generator's defaults."),
                       "example": Field("mapping", "The notes' own numbers, pinned: the first showing and 'explain' "
                                                   "use them.")},
         ("generator",), pose_generated,
         lambda: _("generated cards have 'generator' and optional 'params' and 'example'; "
                   "the generator writes the question and answer")),
)}

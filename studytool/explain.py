"""What `studytool explain` shows: a topic, a live example the engine computes, the cards that drill it.

Pure data; `studytool.cli.render.explain` draws it with rich (for the CLI and the quiz's `:explain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studytool.decks.model import Card, Deck
from studytool.decks.topics import Topic, dependents, group_titles, load_topics, prerequisites, resolve


@dataclass(frozen=True)
class Example:
    """One posed variant of the topic's generator, with its answer and worked steps."""

    generator: str
    seed: int | None        # None: the notes' own numbers
    prompt: str
    kind: str               # the variant's answer kind (scalar, vector, choice, sequence ...)
    options: tuple[str, ...]  # choice options (lettered) / sequence items (numbered), in the order shown
    answer: str             # the canonical answer text
    solution: tuple[str, ...]
    params: dict


PE_PICTURE_POSITIONS, PE_PICTURE_DIMS = 24, 12  # enough for the sin/cos bands to show their slowing
NOTES_PE_TOKENS, NOTES_PE_DIMS = ("我", "是", "一条", "狗"), 3  # the notes' own table


@dataclass(frozen=True)
class Picture:
    """What a topic is drawn as, next to its text.

    kind "pe": `table` (positions x dimensions) beside the notes' d = 3 table `notes` of `notes_tokens`;
    kind "weights": `weights` (L_q x L_k) of the worked example's Q and K.
    """

    kind: str
    data: dict


def picture_of(example: Example | None) -> Picture | None:
    """The picture of an example's generator, computed by the engine; None where there is none."""
    if example is None:
        return None
    from studytool import engine

    if example.generator == "positional_encoding":
        return Picture("pe", {
            "table": engine.positional_encoding(PE_PICTURE_POSITIONS, PE_PICTURE_DIMS).tolist(),
            "notes": engine.positional_encoding(len(NOTES_PE_TOKENS), NOTES_PE_DIMS).tolist(),
            "notes_tokens": list(NOTES_PE_TOKENS),
        })
    if example.generator == "attention_scores" and {"q", "k", "v"} <= example.params.keys():
        import numpy as np

        q, k, v = (np.asarray(example.params[name], dtype=float) for name in ("q", "k", "v"))
        _out, weights = engine.scaled_dot_product_attention(q, k, v)  # (L_q, L_k)
        return Picture("weights", {"weights": weights.tolist()})
    return None


@dataclass(frozen=True)
class Explanation:
    topic: Topic
    group_title: str
    example: Example | None
    cards: tuple[Card, ...]  # every loaded card whose topic is this one
    requires: tuple[Topic, ...] = ()      # what to know first (the topic graph)
    required_by: tuple[Topic, ...] = ()   # what builds on it
    picture: Picture | None = None        # drawn beside the idea (masks are drawn in their worked steps)

    @property
    def quiz_command(self) -> str:
        return f"studytool quiz --topic {self.topic.id}"


def topic_index() -> list[tuple[str, list[Topic]]]:
    """Topics grouped by part of the architecture: [(group title, topics)], in display order."""
    topics = load_topics()
    return [
        (title, [t for t in topics if t.group == key])
        for key, title in group_titles().items()
        if any(t.group == key for t in topics)
    ]


def pose_example(topic: Topic, seed: int | None = None) -> Example | None:
    """The topic's live example: the notes' numbers (seed None) or a fresh draw from `seed`.

    A fresh draw keeps the topic's sub-question (`ask`) so the example stays on the topic;
    every number is drawn anew.
    """
    if topic.generator is None:
        return None
    import numpy as np

    from studytool.problems import registry
    from studytool.problems.answers import format_answer

    generator = registry.get(topic.generator)
    if seed is None:
        variant = generator.draw(np.random.default_rng(0), **topic.example)
    else:
        keep = {"ask": topic.example["ask"]} if "ask" in topic.example else {}
        variant = generator.draw(np.random.default_rng(seed), **keep)
    return Example(
        generator=topic.generator,
        seed=seed,
        prompt=variant.prompt,
        kind=variant.kind,
        options=tuple(variant.options),
        answer=format_answer(variant),
        solution=tuple(variant.solution),
        params=dict(variant.params),
    )


def drilling_cards(topic: Topic, decks: Sequence[Deck]) -> tuple[Card, ...]:
    return tuple(card for deck in decks for card in deck.cards if card.topic == topic.id)


def explain(query: str, decks: Sequence[Deck], seed: int | None = None) -> Explanation:
    """Resolve `query` to a topic and gather everything `explain` shows about it."""
    topic = resolve(query)
    example = pose_example(topic, seed)
    return Explanation(
        topic=topic,
        group_title=group_titles().get(topic.group, topic.group),
        example=example,
        cards=drilling_cards(topic, decks),
        requires=prerequisites(topic.id),
        required_by=dependents(topic.id),
        picture=picture_of(example),
    )

"""A validated card, as the loader builds it and every layer above uses it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, get_args

from studytool.decks.kinds import KINDS, CardKind, pose_generated
from studytool.problems.variant import Variant


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
            return replace(pose_generated(self.body, seed, layout, level), seed=seed)
        return replace(KINDS[self.kind].pose(self.body, seed, layout), seed=seed)

    @cached_property
    def question(self) -> str:
        """The question as text, for listings and search: q, the statement, or a generated card posed with the
        notes' own numbers (what a learner reads, not the generator call behind it)."""
        if self.kind == "generated":
            return self.pose().prompt
        return self.body.get("q") or self.body["statement"]


@dataclass(frozen=True)
class Deck:
    deck: str
    title: str
    source: str
    cards: tuple[Card, ...]
    file: str = ""
    formerly: tuple[str, ...] = ()   # ids the deck had before a rename; progress under them moves here

    @cached_property
    def language(self) -> str:
        """The language its cards are written in ("zh" or "en"): that of most questions (a generated card's is
        Chinese: the generators write Chinese)."""
        from studytool.i18n import is_chinese

        chinese = [card.kind == "generated" or is_chinese(card.body.get("q") or card.body.get("statement") or "")
                   for card in self.cards]
        return "zh" if 2 * sum(chinese) > len(chinese) else "en"

    @property
    def chrome(self) -> str | None:
        """The language of the interface text around its cards (format lines, hints, legends): Chinese for a deck
        in Chinese, whatever the locale; None (the learner's language) for any other (`i18n.speaking`)."""
        return "zh" if self.language == "zh" else None

    @property
    def kinds(self) -> dict[str, int]:
        """Card count per kind present, in the order of `CardKind`."""
        counts = {kind: sum(card.kind == kind for card in self.cards) for kind in get_args(CardKind)}
        return {kind: n for kind, n in counts.items() if n}

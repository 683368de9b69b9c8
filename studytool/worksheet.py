"""A printable worksheet: the selected cards posed with their seeds, then the answer key.

The cards and variant seeds come from `studytool.decks.select.plan`, the rule `quiz`
uses, so `worksheet --seed S` and `quiz --seed S` pose the same questions in the same
order. Same seed and options give byte-identical output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from studytool.decks.model import Deck
from studytool.i18n import _, speaking
from studytool.problems.answers import format_answer, format_hint
from studytool.problems.variant import option_label


@dataclass(frozen=True)
class Item:
    card: str                   # deck/id
    kind: str                   # the card's kind, as in the decks and quiz: number, truefalse, order, generated, ...
    answer_kind: str            # what the answer is: scalar, vector, matrix, shape, choice, sequence, recall
    prompt: str
    options: tuple[str, ...]    # choice options / sequence items, as shown
    answer: str                 # canonical text the grader accepts (recall: the reference answer)
    answer_format: str          # how to write the answer, with the tolerance
    solution: tuple[str, ...]   # worked steps
    why: str | None
    source: str
    level: int = 1              # how far a generated question has grown (`problems/levels.py`)

    def to_json(self) -> dict:
        return {"card": self.card, "kind": self.kind, "answer_kind": self.answer_kind, "prompt": self.prompt,
                "options": list(self.options),
                "answer": self.answer, "format": self.answer_format, "solution": list(self.solution),
                "why": self.why, "source": self.source, "level": self.level}


@dataclass(frozen=True)
class Worksheet:
    seed: int
    items: tuple[Item, ...]


def build(decks: Sequence[Deck], *, deck_ids: Sequence[str] = (), tags: Sequence[str] = (), topic: str | None = None,
          count: int | None = None, seed: int | None = None, level: int = 1) -> Worksheet:
    """Pose the selected cards (`plan`'s order and variant seeds) at `level` (1-3); `seed=None` picks one."""
    from studytool.decks.select import plan

    posings = plan(decks, deck_ids=deck_ids, tags=tags, topic=topic, count=count, seed=seed)
    chrome = {deck.deck: deck.chrome for deck in decks}   # a Chinese deck's format lines are Chinese, as in quiz
    items = []
    for posing in posings:
        card, variant = posing.card, posing.card.pose(posing.seed, level)
        with speaking(chrome.get(card.deck)):
            answer_format = format_hint(variant)
        items.append(Item(card.key, card.kind, variant.kind, variant.prompt, variant.options, format_answer(variant),
                          answer_format, variant.solution, card.why, card.source, variant.level))
    return Worksheet(posings.seed, tuple(items))


def _options(item: Item) -> list[str]:
    return [f"   - {option_label(item.answer_kind, i)}. {_one_line(text)}" for i, text in enumerate(item.options)]


# A code span the card wrote, or a <token> such as <s> or <eos>, which a renderer would read as an HTML tag.
_CODE = re.compile(r"(`[^`\n]+`|<[A-Za-z/][\w/-]*>)")
# Backslash-escaped outside code: \ * < > | ~, and _ unless inside a word (d_model stays as typed).
_SPECIAL = re.compile(r"([\\*<>|~]|(?<![^\W_])_|_(?![^\W_]))")


def _md(text: str) -> str:
    """Card text as Markdown that renders as the same text: tokens in code spans, the rest escaped."""
    out = []
    for i, part in enumerate(_CODE.split(text)):  # odd parts are the matches
        if i % 2 == 0:
            out.append(_SPECIAL.sub(r"\\\1", part))
        else:
            out.append(part if part.startswith("`") else f"`{part}`")
    return "".join(out)


def _one_line(text: str) -> str:
    """Card text, escaped, kept inside its list item."""
    return _md(text.strip()).replace("\n", "\n   ")


def to_markdown(sheet: Worksheet) -> str:
    lines = [f"# {_('Transformer worksheet')}", "",
             _("{n} questions · seed {seed} (run again with --seed {seed} for the same sheet)").format(
                 n=len(sheet.items), seed=sheet.seed), "", f"## {_('Questions')}", ""]
    for number, item in enumerate(sheet.items, 1):
        lines.append(f"{number}. {_one_line(item.prompt)}")
        lines += _options(item)
        lines += ["", f"   *{_md(item.answer_format)}*  `{item.card}`", ""]
    lines += [f"## {_('Answer key')}", ""]
    for number, item in enumerate(sheet.items, 1):
        label = _("Reference answer") if item.answer_kind == "recall" else _("Answer")
        lines.append(f"{number}. **{_('{label}: ').format(label=label).rstrip()}** {_one_line(item.answer)}")
        lines += [f"   - {_one_line(step)}" for step in item.solution]
        if item.why:
            lines.append(f"   - {_('{label}: ').format(label=_('Why'))}{_one_line(item.why)}")
        if item.source:
            lines.append(f"   - {_('{label}: ').format(label=_('Source'))}{_md(item.source)}")
        lines.append("")
    return "\n".join(lines)


def to_json(sheet: Worksheet) -> list[dict]:
    return [item.to_json() for item in sheet.items]

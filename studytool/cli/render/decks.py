"""Rich rendering (and JSON) for `studytool decks list` and `decks show`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from studytool.decks.model import Deck
from studytool.i18n import _


def deck_list_json(decks: Sequence[Deck]) -> list[dict[str, Any]]:
    return [{"deck": d.deck, "title": d.title, "source": d.source, "file": d.file, "cards": len(d.cards),
             "kinds": d.kinds} for d in decks]


def deck_json(deck: Deck) -> dict[str, Any]:
    cards = [{"id": c.id, "kind": c.kind, "topic": c.topic, "tags": list(c.tags), "source": c.source,
              "why": c.why, **c.body} for c in deck.cards]
    return {"deck": deck.deck, "title": deck.title, "source": deck.source, "file": deck.file, "cards": cards}


def render_deck_list(decks: Sequence[Deck], console: Console) -> None:
    # The deck id is what `--deck` takes, so it is never cut; title, source and kinds wrap in what is
    # left, and the source goes when three wrapped columns would each get fewer than 16 cells.
    headers = (_("Deck"), _("Cards"))
    deck_width = max(cell_len(headers[0]), *(cell_len(d.deck) for d in decks)) if decks else cell_len(headers[0])
    cards_width = max(cell_len(headers[1]), *(len(str(len(d.cards))) for d in decks)) if decks else cell_len(headers[1])
    left = console.width - (deck_width + 3) - (cards_width + 3) - 1   # a column costs its width plus 3
    with_source = left // 3 - 3 >= 16
    table = Table()
    table.add_column(headers[0], no_wrap=True, min_width=deck_width)
    table.add_column(_("Title"), overflow="fold")
    if with_source:
        table.add_column(_("Source"), overflow="fold")
    table.add_column(headers[1], no_wrap=True, min_width=cards_width, justify="right")
    table.add_column(_("Kinds"), overflow="fold")
    for d in decks:
        kinds = ", ".join(f"{kind} {n}" for kind, n in d.kinds.items())
        table.add_row(d.deck, d.title, *([d.source] if with_source else []), str(len(d.cards)), kinds)
    console.print(table)


def render_deck(deck: Deck, console: Console) -> None:
    # The id is how a card is named everywhere, so it is never cut; the question takes what is
    # left, one line each. Tags, topic, then kind go when keeping them would leave the question too little.
    rows = [{"id": c.id, "kind": c.kind, "topic": c.topic, "tags": ", ".join(c.tags),
             "question": " ".join(c.question.split())} for c in deck.cards]
    headers = {"id": _("ID"), "kind": _("Kind"), "topic": _("Topic"), "tags": _("Tags")}
    widths = {key: max(cell_len(headers[key]), *(cell_len(row[key]) for row in rows)) for key in headers}
    shown = list(headers)

    def left() -> int:   # the question's width: a column costs its width plus 3 for padding and border
        return console.width - sum(widths[key] + 3 for key in shown) - 4

    while len(shown) > 1 and left() < 30:
        shown.pop()
    table = Table(title=f"{deck.deck}: {deck.title}")
    for key in shown:
        table.add_column(headers[key], no_wrap=True, min_width=widths[key])
    table.add_column(_("Question"), no_wrap=True, overflow="ellipsis", max_width=max(left(), 10))
    for row in rows:
        table.add_row(*(row[key] for key in shown), row["question"])
    console.print(table)

"""Options that several commands share, declared once as `Annotated` aliases."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def ids_within_bound(value: str | list[str] | None) -> str | list[str] | None:
    """The check of a deck, card (DECK/ID), topic, tag or setting named on the command line, as its `callback`:
    each id within `MAX_ID` characters, so that a 100,000-digit one is refused in a line, not quoted back whole."""
    from studytool.decks import MAX_ID
    from studytool.i18n import _

    for named in [value] if isinstance(value, str) else value or []:
        longest = max(len(part) for part in named.split("/", 1))
        if longest > MAX_ID:
            raise typer.BadParameter(_("an id has at most {most} characters, not {n}").format(
                most=MAX_ID, n=f"{longest:,}"))
    return value


Decks = Annotated[list[str], typer.Option("--deck", metavar="DECK", callback=ids_within_bound,
                                          help="Only this deck (repeatable).")]
Tags = Annotated[list[str], typer.Option("--tag", metavar="TAG", callback=ids_within_bound,
                                         help="Only cards with this tag (repeatable).")]
Topic = Annotated[Optional[str], typer.Option("--topic", metavar="TOPIC", callback=ids_within_bound,
                                               help="Only cards on this topic (id or alias).")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
DModel = Annotated[int, typer.Option("--d-model", metavar="D", show_default=False,
                                     help="Model width d_model (default: 512, the notes' base model).")]
Heads = Annotated[int, typer.Option("--heads", metavar="H", show_default=False,
                                    help="Number of heads h (must divide d_model; default: 8).")]
DFF = Annotated[Optional[int], typer.Option("--d-ff", metavar="D_FF", help="FFN hidden width (default: 4 * d_model).")]
Batch = Annotated[int, typer.Option("--batch", metavar="B", help="Batch size B.")]
Seq = Annotated[int, typer.Option("--seq", metavar="L", help="Sequence length L (the source's, in a whole model).")]


def within(low: float, high: float | None = None):
    """The check of a number option's bounds, as its `callback`.

    Not typer's `min=`/`max=`: those print `[x>=1]` in help; a value out of range is explained when it is given.
    """
    from studytool.i18n import _

    def check(value: float | None) -> float | None:
        if value is not None and (value < low or (high is not None and value > high)):
            if high is None:
                raise typer.BadParameter(_("must be {ge} or more, not {input}").format(ge=low, input=value))
            raise typer.BadParameter(_("must be from {ge} to {le}, not {input}").format(ge=low, le=high, input=value))
        return value

    return check


def seed_option(help: str) -> object:
    """`--seed S`: the same seed poses the same cards and variants (quiz, worksheet, explain)."""
    return typer.Option("--seed", metavar="S", callback=within(0), help=help)

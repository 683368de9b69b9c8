"""`studytool worksheet`: a printable sheet of questions with the answer key."""

import sys
from enum import Enum
from typing import Annotated, Optional

import typer

from studytool.cli.options import Decks, Tags, Topic, seed_option, within


class Format(str, Enum):
    md = "md"
    json = "json"


def worksheet_command(
    ctx: typer.Context,
    deck: Decks = [],
    tag: Tags = [],
    topic: Topic = None,
    count: int = typer.Option(10, "--count", metavar="N", callback=within(1), help="How many questions."),
    seed: Annotated[Optional[int], seed_option("Same seed, same questions as quiz --seed.")] = None,
    level: int = typer.Option(1, "--level", metavar="N", callback=within(1, 3),
                              help="Generated questions at level 1-3 (1 = the notes' sizes, at most 4 numbers to "
                                   "type; 2 = larger, at most 8; 3 = a combined question, one more step; as quiz "
                                   "--level)."),
    format_: Format = typer.Option(Format.md, "--format", metavar="md|json",
                                   help="md (printable Markdown) or json (one JSON document)."),
) -> None:
    """A printable sheet: questions, then the answer key with worked solutions."""
    from studytool.cli.render.common import print_json
    from studytool.decks.loader import load_decks
    from studytool.worksheet import build, to_json, to_markdown

    sheet = build(load_decks(ctx.obj), deck_ids=deck, tags=tag, topic=topic, count=count, seed=seed, level=level)
    if format_ is Format.json:
        print_json(to_json(sheet))
    else:
        sys.stdout.write(to_markdown(sheet))

"""`studytool decks`: list, show and check decks."""

from pathlib import Path
from typing import Optional

import typer

from studytool.cli.options import Json, ids_within_bound
from studytool.cli.style import Group
from studytool.i18n import _

app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True)   # its help: GROUPS in cli/app.py


@app.command("list")
def decks_list(ctx: typer.Context, json_: Json = False) -> None:
    """The installed decks: titles, sources and card counts by kind."""
    from studytool.cli.render.common import console, print_json
    from studytool.cli.render.decks import deck_list_json, render_deck_list
    from studytool.decks.loader import load_decks

    decks = load_decks(ctx.obj)
    if json_:
        print_json(deck_list_json(decks))
    else:
        render_deck_list(decks, console())


@app.command("show")
def decks_show(
    ctx: typer.Context,
    deck_id: str = typer.Argument(..., metavar="DECK", callback=ids_within_bound,
                                  help="A deck id (see 'studytool decks list')."),
    json_: bool = typer.Option(False, "--json", help="One JSON document with every field of every card."),
) -> None:
    """The cards of one deck: id, kind, topic, tags and the question."""
    from studytool.cli.render.common import console, print_json
    from studytool.cli.render.decks import deck_json, render_deck
    from studytool.decks.loader import get_deck

    found = get_deck(ctx.obj, deck_id)
    if json_:
        print_json(deck_json(found))
    else:
        render_deck(found, console())


@app.command("audit")
def decks_audit(
    ctx: typer.Context,
    deck: Optional[str] = typer.Argument(None, metavar="DECK", callback=ids_within_bound,
                                         help="A deck id (default: every installed deck)."),
    json_: Json = False,
) -> None:
    """Does a right answer mean the learner knew it? Check the cards; exit 1 if a check fails.

    Measures answer positions, true/false balance, format lines, fixed numbers, near-duplicates, variety.

    From your review log: item statistics per card (share right, median time, hinted answers).
    """
    from rich.progress import Progress

    from studytool.cli.render.audit import audit_json, render_audit
    from studytool.cli.render.common import console, err_console, print_json
    from studytool.decks.audit import audit
    from studytool.decks.loader import get_deck, load_decks
    from studytool.study.store import open_store

    decks = [get_deck(ctx.obj, deck)] if deck else load_decks(ctx.obj)
    with open_store(ctx.obj.db_path, create=False) as store:   # only reads: creates no database
        log = store.answers_log()
    # Each card is posed 100 times: a bar for someone watching a terminal; a pipe or --json gets the result only.
    with Progress(console=err_console(), transient=True, disable=json_ or not err_console().is_terminal) as bar:
        task = bar.add_task(_("Auditing"), total=None)
        result = audit(decks, log, progress=lambda done, total: bar.update(task, completed=done, total=total))
    if json_:
        print_json(audit_json(result))
    else:
        render_audit(result, console())
    if not result.passed:
        raise typer.Exit(1)


@app.command("check")
def decks_check(
    ctx: typer.Context,
    paths: Optional[list[Path]] = typer.Argument(None, metavar="PATH...",
                                                 help="Deck files or folders (default: all installed decks)."),
) -> None:
    """Validate decks: 'ok: N decks, M cards', or every problem as FILE:LINE:COL and exit 1."""
    from studytool.decks.glossary import check_vocabulary
    from studytool.decks.loader import check_decks
    from studytool.decks.loader import check_topic_files

    result = check_decks(ctx.obj, paths or ())
    problems = result.problems + check_topic_files(paths or ()) + check_vocabulary(paths or ())
    if problems:
        typer.echo("\n".join(problems))
        raise typer.Exit(1)
    decks = (_("{n} deck") if len(result.decks) == 1 else _("{n} decks")).format(n=len(result.decks))
    cards = (_("{n} card") if result.cards == 1 else _("{n} cards")).format(n=result.cards)
    typer.echo(_("ok: {decks}, {cards}").format(decks=decks, cards=cards))

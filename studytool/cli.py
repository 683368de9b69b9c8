"""The command line. Each command parses, calls one library function, renders.

Nothing heavy is imported at module level: numpy, yaml, fsrs and genanki are
imported inside the commands that need them, so `studytool --help` is fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from typer.core import TyperGroup

from studytool import __version__
from studytool.config import Settings
from studytool.errors import StudytoolError
from studytool.i18n import _


class _Group(TyperGroup):
    """The top-level group: a `StudytoolError` from any command becomes `studytool: message` and exit 1.

    Done here rather than only in `main()` so that tests driving `app` with
    typer's `CliRunner` see exactly what a user sees.
    """

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except StudytoolError as error:
            sys.stderr.write(f"studytool: {error}\n")
            raise typer.Exit(1) from None


app = typer.Typer(
    cls=_Group,
    name="studytool",
    help="Study the Transformer: flashcards, fresh numeric variants, spaced repetition.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)
decks_app = typer.Typer(help="List, show and check decks.", no_args_is_help=True)
calc_app = typer.Typer(help="Compute with the bundled Transformer engine.", no_args_is_help=True)
export_app = typer.Typer(help="Export decks to other tools.", no_args_is_help=True)
app.add_typer(decks_app, name="decks")
app.add_typer(calc_app, name="calc")
app.add_typer(export_app, name="export")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studytool {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    db: Optional[Path] = typer.Option(None, "--db", help="Progress database (default: $STUDYTOOL_HOME/studytool.db)."),
    deck_path: list[Path] = typer.Option([], "--deck-path", help="Extra deck file or folder (repeatable)."),
    lang: Optional[str] = typer.Option(None, "--lang", help="Interface language: en or zh (default: $STUDYTOOL_LANG, then the locale)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    from studytool.i18n import LANGUAGES, set_language

    if lang is not None and lang.lower() not in LANGUAGES:
        raise typer.BadParameter(f"{lang!r} is not one of 'en', 'zh'.", param_hint="'--lang'")
    set_language(lang.lower() if lang else None)
    ctx.obj = Settings(db=db, deck_paths=list(deck_path))


# --- export ---


def _export(write, out: Path, settings: Settings, deck_ids: list[str], variants: int) -> None:
    """Run one export writer with a progress bar on stderr, then say what was written."""
    from rich.progress import Progress

    from studytool.decks.loader import load_decks
    from studytool.render import console, err_console

    decks = load_decks(settings)
    with Progress(console=err_console(), transient=True) as bar:
        task = bar.add_task(_("Writing"), total=None)
        exported = write(decks, out, deck_ids=deck_ids, variants=variants,
                         progress=lambda done, total: bar.update(task, completed=done, total=total))
    console().print(_("Wrote {notes} notes from {decks} decks to {path}").format(
        notes=exported.notes, decks=exported.decks, path=out))


@export_app.command("anki")
def export_anki(
    ctx: typer.Context,
    out: Path = typer.Argument(..., help="The .apkg file to write."),
    deck: list[str] = typer.Option([], "--deck", help="Export only this deck (repeatable)."),
    variants: int = typer.Option(3, "--variants", min=1, help="Fixed variants per generated card."),
) -> None:
    """Write an Anki package: one Anki deck per deck; re-importing updates the notes."""
    from studytool.export import write_anki

    _export(write_anki, out, ctx.obj, deck, variants)


@export_app.command("csv")
def export_csv(
    ctx: typer.Context,
    out: Path = typer.Argument(..., help="The .csv file to write (UTF-8 with BOM)."),
    deck: list[str] = typer.Option([], "--deck", help="Export only this deck (repeatable)."),
    variants: int = typer.Option(1, "--variants", min=1, help="Rows per generated card."),
) -> None:
    """Write every card as a CSV row for spreadsheets."""
    from studytool.export import write_csv

    _export(write_csv, out, ctx.obj, deck, variants)


def main() -> None:
    try:
        app()
    except StudytoolError as error:  # raised while parsing, before any command runs
        sys.stderr.write(f"studytool: {error}\n")
        sys.exit(1)

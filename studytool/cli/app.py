"""The app: global options, the command groups, and the entry point.

Nothing heavy is imported at module level: numpy, yaml, fsrs and genanki are
imported inside the commands that need them, so `studytool --help` is fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from studytool import __version__
from studytool.cli.commands import calc, decks, explain, export, study, worksheet
from studytool.cli.commands import cards, config
from studytool.cli.commands import backup
from studytool.cli.style import Group
from studytool.config import Settings

app = typer.Typer(
    cls=Group,
    name="studytool",
    help="Study the Transformer: flashcards, fresh numeric variants, spaced repetition.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["--help", "-h"]},   # inherited by every command
)
app.add_typer(decks.app, name="decks")
app.add_typer(calc.app, name="calc")
app.add_typer(export.app, name="export")
app.command("explain")(explain.explain_command)
app.command("quiz")(study.quiz_command)
app.command("review")(study.review_command)
app.command("stats")(study.stats_command)
app.command("worksheet")(worksheet.worksheet_command)
app.add_typer(cards.app, name="cards")
app.command("config")(config.config_command)
app.command("optimize")(config.optimize_command)
app.add_typer(backup.app, name="backup")


def _language(value: Optional[str]) -> Optional[str]:
    """Set the interface language as soon as `--lang` is parsed, so that an unknown command is reported in it."""
    from studytool.i18n import LANGUAGES, set_language

    if value is not None and value.lower() not in LANGUAGES:
        raise typer.BadParameter(f"{value!r} is not one of 'en', 'zh'.")
    set_language(value.lower() if value else None)
    return value


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studytool {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    db: Optional[Path] = typer.Option(None, "--db", metavar="PATH", help="Progress database (default: $STUDYTOOL_HOME/studytool.db)."),
    deck_path: list[Path] = typer.Option([], "--deck-path", metavar="PATH", help="Extra deck file or folder (repeatable)."),
    lang: Optional[str] = typer.Option(None, "--lang", metavar="en|zh", callback=_language, is_eager=True,
                                       help="Interface language: en or zh (default: $STUDYTOOL_LANG, then the locale)."),
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    ctx.obj = Settings(db=db, deck_paths=list(deck_path))


def main() -> None:
    from studytool.cli.safety import run

    run(app)   # one line for closed streams, full disks, encodings, errors raised while parsing

"""The app: global options, the command groups, and the entry point.

Nothing heavy is imported at module level: numpy, yaml, fsrs and genanki are
imported inside the commands that need them, so `studytool --help` is fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click
import typer

from studytool import __version__
from studytool.cli.commands import backup, calc, cards, config, decks, explain, export, study, worksheet
from studytool.cli.style import Group
from studytool.config import Settings
from studytool.i18n import LANGUAGES

app = typer.Typer(
    cls=Group,
    name="studytool",
    help="Study the Transformer: flashcards, fresh numeric variants, spaced repetition.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["--help", "-h"]},   # inherited by every command
)
# Help lists the commands in three panels, in the order a learner meets them.
STUDY, PROGRESS, TOOLS = "Study", "Your cards and progress", "Decks and tools"
app.command("quiz", rich_help_panel=STUDY)(study.quiz_command)
app.command("review", rich_help_panel=STUDY)(study.review_command)
app.command("explain", rich_help_panel=STUDY)(explain.explain_command)
app.command("worksheet", rich_help_panel=STUDY)(worksheet.worksheet_command)
app.command("stats", rich_help_panel=PROGRESS)(study.stats_command)
app.add_typer(cards.app, name="cards", rich_help_panel=PROGRESS)
app.command("config", rich_help_panel=PROGRESS)(config.config_command)
app.command("optimize", rich_help_panel=PROGRESS)(config.optimize_command)
app.add_typer(backup.app, name="backup", rich_help_panel=PROGRESS)
app.add_typer(calc.app, name="calc", rich_help_panel=TOOLS)
app.add_typer(decks.app, name="decks", rich_help_panel=TOOLS)
app.add_typer(export.app, name="export", rich_help_panel=TOOLS)


def _language(value: Optional[str]) -> Optional[str]:
    """Set the interface language as soon as `--lang` is parsed, so that an unknown command is reported in it."""
    from studytool.i18n import set_language

    set_language(value)
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
                                       click_type=click.Choice(LANGUAGES, case_sensitive=False),
                                       help="Interface language: en or zh (default: $STUDYTOOL_LANG, then the locale)."),
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    ctx.obj = Settings(db=db, deck_paths=list(deck_path))


def main() -> None:
    from studytool.cli.safety import run

    run(app)   # one line for closed streams, full disks, encodings, errors raised while parsing

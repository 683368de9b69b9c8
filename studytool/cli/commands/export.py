"""`studytool export`: the decks as an Anki package or a CSV file."""

from collections.abc import Callable

import typer

from studytool.cli.options import Decks, within
from studytool.cli.style import Group
from studytool.i18n import _

app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True)   # its help: GROUPS in cli/app.py


def _export(write, done: Callable[[int], str], out: str, settings, deck_ids: list[str], variants: int,
            force: bool, with_progress: bool = False) -> None:
    """Run one export writer with a progress bar on stderr, then say what was written (`done(decks)`);
    `with_progress`: the learner's schedules and review log go along (`export anki --progress`)."""
    from rich.progress import Progress

    from studytool.cli.render.common import console, err_console
    from studytool.decks.loader import load_decks

    decks = load_decks(settings)
    extra = {"scheduling": _scheduling(settings, decks)} if with_progress else {}
    # The bar is for people watching a terminal; logs and pipes get only the final line.
    with Progress(console=err_console(), transient=True, disable=not err_console().is_terminal) as bar:
        task = bar.add_task(_("Writing"), total=None)
        exported = write(decks, out, deck_ids=deck_ids, variants=variants, force=force, protected=[settings.db_path],
                         progress=lambda written, total: bar.update(task, completed=written, total=total), **extra)
    if with_progress:
        err_console().print(_("With --progress each generated card is exported as the variant you last answered "
                              "(--variants does not apply)."), markup=False)
    # With `-` the file is stdout, so the summary goes to stderr to keep the data clean.
    to_stdout = exported.path is None
    screen = err_console() if to_stdout else console()
    path = _("standard output") if to_stdout else exported.path
    screen.print(done(exported.decks).format(count=exported.notes, decks=exported.decks, path=path), markup=False)


def _scheduling(settings, decks):
    """Every card's progress, read from the progress database (none yet: every card new)."""
    from studytool.study.anki_schedule import scheduling_of
    from studytool.config import now
    from studytool.study.store import open_store

    settings.check_home()
    with open_store(settings.db_path, create=False) as store:
        return scheduling_of(store, [card.key for deck in decks for card in deck.cards], now())


def _command(name: str, writer: str, metavar: str, out_help: str, variants: int, variants_help: str,
             done: Callable[[int], str], summary: str, carries_progress: bool = False) -> None:
    """Declare `export NAME`: the one shape both formats share (OUT, --deck, --variants, --force); Anki's also
    takes --progress."""

    def command(
        ctx: typer.Context,
        out: str = typer.Argument(..., metavar=metavar, help=out_help),   # str: a Path drops a trailing "/"
        deck: Decks = [],
        variants: int = typer.Option(variants, "--variants", callback=within(1, 100), metavar="K", help=variants_help),
        force: bool = typer.Option(False, "--force", help="Replace OUT even if it is not an earlier studytool export."),
        with_progress: bool = typer.Option(
            False, "--progress", hidden=not carries_progress,
            help="Carry your progress: each card's schedule, FSRS memory, flags and review log (import into Anki "
                 "with scheduling)."),
    ) -> None:
        from studytool import export
        from studytool.errors import StudytoolError

        if with_progress and not carries_progress:
            raise StudytoolError(_("--progress is for `export anki`"))
        _export(getattr(export, writer), done, out, ctx.obj, deck, variants, force, with_progress)

    command.__doc__ = summary
    app.command(name)(command)


_command("anki", "write_anki", "OUT.apkg", "The .apkg file to write (a folder, ending in /: studytool.apkg in it).", 3,
         "Fixed variants per generated card (at most 100).",
         lambda decks: (_("Wrote {count} Anki notes from 1 deck to {path}") if decks == 1
                        else _("Wrote {count} Anki notes from {decks} decks to {path}")),
         "Write an Anki package: one Anki deck per deck; re-importing updates the notes.", carries_progress=True)
_command("csv", "write_csv", "OUT.csv",
         "The .csv file to write (UTF-8 with BOM; a folder, ending in /: studytool.csv in it); - for stdout.", 1,
         "Rows per generated card (at most 100).",
         lambda decks: (_("Wrote {count} rows from 1 deck to {path}") if decks == 1
                        else _("Wrote {count} rows from {decks} decks to {path}")),
         "Write every card as a CSV row for spreadsheets.")

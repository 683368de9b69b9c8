"""`studytool sync [DIR]`: merge this computer's progress with the others' through a shared folder."""

from typing import Optional

import typer

from studytool.cli.options import Json
from studytool.i18n import _


def sync_command(
    ctx: typer.Context,
    folder: Optional[str] = typer.Argument(
        None, metavar="DIR", help="A folder kept equal across your computers (remembered as 'config sync_dir')."),
    show_status: bool = typer.Option(False, "--status", help="Show the folder, the devices and what waits; merge nothing."),
    as_json: Json = False,
) -> None:
    """Merge progress with your other computers through a folder that Syncthing, Dropbox, git ... keep equal.

    Each computer appends its own answers to DIR/<device>.jsonl and reads the others'; every computer then
    replays each card's merged history and computes the same schedule. No server, no account.
    """
    from studytool.config import now
    from studytool.cli.render.common import console, err_console, print_json
    from studytool.cli.render.sync import render_report, render_status
    from studytool.errors import StudytoolError
    from studytool.study import settings, sync
    from studytool.study.store import open_store

    ctx.obj.check_home()
    with open_store(ctx.obj.db_path, create=not show_status) as store:
        if show_status:
            remembered = folder or settings.get(store, "sync_dir")
            found = sync.status(store, sync.folder_of(remembered) if remembered else None)
            print_json(found.to_json()) if as_json else render_status(console(), found)
            return
        remembered = sync.remember(store, folder)
        if remembered is None:
            raise StudytoolError(_("no sync folder yet: `studytool sync DIR` names one (it is remembered)"))
        report = sync.sync(store, remembered, now())
    for problem in report.problems:
        err_console().print(problem, markup=False, highlight=False, soft_wrap=True)
    if as_json:
        print_json(report.to_json())
    else:
        render_report(console(), report)

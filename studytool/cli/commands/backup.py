"""`studytool backup`: back up the progress database now, list the backups, restore one."""

from typing import Optional

import typer

from studytool.cli.options import Json
from studytool.cli.style import Group
from studytool.i18n import _

app = typer.Typer(cls=Group, add_completion=False, invoke_without_command=True)   # its help: GROUPS in cli/app.py


@app.callback()
def backup_now(ctx: typer.Context) -> None:
    """Without a subcommand: check the database in full and back it up now (backups/ beside it)."""
    if ctx.invoked_subcommand is not None:
        return
    from studytool.cli.render.common import console
    from studytool.study import migrations

    db = ctx.obj.db_path
    taken = migrations.back_up(db)
    console().print(_("Backed up {db} to {path} ({answers} answers)").format(db=db, path=taken.path,
                                                                          answers=taken.answers), markup=False)


@app.command("list")
def backup_list(ctx: typer.Context, json_: Json = False) -> None:
    """The backups, taken last first: name, time, size and answers, and which one restore picks without a NAME."""
    from studytool.cli.render.backup import backup_list_json, render_backup_list
    from studytool.cli.render.common import console, print_json
    from studytool.study import backup

    found = backup.backups(ctx.obj.db_path)
    chosen = backup.newest_good(ctx.obj.db_path) if found else None
    if json_:
        print_json(backup_list_json(found, chosen))
    else:
        render_backup_list(found, chosen, backup.folder_for(ctx.obj.db_path), console())


@app.command("restore")
def backup_restore(
    ctx: typer.Context,
    name: Optional[str] = typer.Argument(None, metavar="NAME", help="A backup's name (default: the newest good one)."),
    force: bool = typer.Option(False, "--force", help="Replace the database even if it is healthy."),
) -> None:
    """Put a backup (default: the one taken last that passes the integrity check) in place of the database;
    the replaced file is kept beside it."""
    from studytool.cli.render.backup import taken
    from studytool.cli.render.common import console
    from studytool.study import backup

    done = backup.restore(ctx.obj.db_path, name, force=force)
    console().print(_("Restored {name} (taken {time}, {answers} answers) to {db}").format(
        name=done.backup.name, time=taken(done.backup), answers=done.backup.answers, db=ctx.obj.db_path),
        markup=False)
    if done.replaced is not None:
        answers = "?" if done.replaced_answers is None else done.replaced_answers
        console().print(_("The replaced database ({answers} answers) is kept as {path}").format(
            answers=answers, path=done.replaced), markup=False)

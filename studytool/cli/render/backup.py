"""The backup list as a table or JSON."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from studytool.i18n import _
from studytool.study.backup import Backup


def taken(backup: Backup) -> str:
    """When a backup was taken, local time (by the clock then: `STUDYTOOL_NOW` if it was set)."""
    return backup.time.astimezone().strftime("%Y-%m-%d %H:%M")


def backup_list_json(found: list[Backup], chosen: Backup | None) -> list[dict]:
    """`restore_default`: the one `backup restore` puts back without a NAME."""
    return [{"name": b.name, "time": b.time.isoformat(), "size": b.size, "answers": b.answers, "number": b.number,
             "restore_default": b == chosen} for b in found]


def render_backup_list(found: list[Backup], chosen: Backup | None, folder: Path, console: Console) -> None:
    if not found:
        console.print(_("No backups yet in {folder} (one is taken before the first answer of each day)").format(
            folder=folder), markup=False)
        return
    table = Table(title=str(folder))
    for heading in (_("Name"), _("Taken"), _("Size"), _("Answers")):
        table.add_column(heading, justify="right" if heading != _("Name") else "left")
    for backup in found:
        answers = "?" if backup.answers is None else str(backup.answers)
        table.add_row(backup.name, taken(backup), _size(backup.size), answers)
    console.print(table)
    if chosen is None:
        console.print(_("None of these passes the integrity check."), markup=False)
    else:
        console.print(_("Without a NAME, 'studytool backup restore' puts back {name} (taken {time}, {answers} answers): "
                        "the one taken last that passes the integrity check.").format(
            name=chosen.name, time=taken(chosen), answers=chosen.answers), markup=False)


def _size(size: int) -> str:
    return f"{size / 1024:.0f} KiB" if size < 1024 * 1024 else f"{size / (1024 * 1024):.1f} MiB"

"""What `sync` did, and `sync --status`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from studytool.i18n import _
from studytool.study.sync import Report, Status


def render_report(console: Console, report: Report) -> None:
    if report.rebuilt:
        console.print(_("This computer's journal was missing or cut short: written again whole"), markup=False)
    console.print(_("Synced with {folder}: {written} events written, {read} read, {cards} cards rescheduled").format(
        folder=report.folder, written=report.written, read=report.read, cards=report.cards), markup=False)


def render_status(console: Console, status: Status) -> None:
    console.print(_("Sync folder: {folder}").format(folder=status.folder or _("(none; `studytool sync DIR` sets one)")),
                  markup=False)
    console.print(_("This computer: {device}").format(device=status.device or _("(none yet)")), markup=False)
    console.print(_("Last sync: {when}").format(when=status.last_sync or _("never")), markup=False)
    console.print(_("Waiting: {write} answers to write, {read} events to read").format(
        write=status.to_write, read=status.to_read), markup=False)
    if status.devices:
        table = Table(_("device"), _("last event"), _("events"))
        for device in status.devices:
            name = device["device"] + (" " + _("(this computer)") if device["this"] else "")
            table.add_row(name, device["last_event"] or _("no events yet"), str(device["events"]))
        console.print(table)

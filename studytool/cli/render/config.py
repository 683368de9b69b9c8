"""Rich rendering for `studytool config` and `studytool optimize`."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from studytool.cli.render.common import emit
from studytool.i18n import _
from studytool.study.optimize import ADVISED_REVIEWS, Fit
from studytool.study.settings import KEYS, Entry, format_parameters


def _source(entry: Entry) -> str:
    return {"default": _("default"), "global": _("set"), "deck": _("set for {deck}")}[entry.source].format(
        deck=entry.deck)


def render_entries(console: Console, entries: Sequence[Entry], *, with_help: bool) -> None:
    """All settings as a table with what each does; one setting as `key = value (where from)`. A stored value that
    does not read is shown with control characters visible, marked, and followed by the commands that repair it."""
    from studytool.cli.safety import visible

    if not with_help:
        for entry in entries:
            console.print(escape(f"{entry.key} = {visible(entry.text())}  ({_source(entry)})"))
    else:
        table = Table()
        for header in (_("Setting"), _("Value"), _("From"), _("What it does")):
            table.add_column(header, overflow="fold")
        for entry in entries:
            source = f"[red]{escape(_('invalid'))}[/]" if entry.bad is not None else _source(entry)
            table.add_row(entry.key, escape(visible(entry.text())), source, escape(KEYS[entry.key].help()))
        emit(console, table)
    for entry in entries:
        if entry.bad is not None:
            console.print(escape(_("{name}: the stored value is not valid, it must be {expected}; run {repair}").format(
                name=entry.key, expected=entry.problem, repair=entry.repair())), style="red")


def render_fit(console: Console, fit: Fit, *, dry_run: bool) -> None:
    console.print(_("Fitted FSRS to {reviews} reviews ({items} training items).").format(
        reviews=fit.reviews, items=fit.items))
    if fit.few:
        console.print(_("Warning: {reviews} reviews are few for a trustworthy fit; Anki advises optimizing after "
                        "{advised} or more, and until then the fitted parameters may still move a lot.").format(
            reviews=fit.reviews, advised=ADVISED_REVIEWS))
    if fit.partial:
        console.print(_("Under 64 items the optimizer fits only the four initial stabilities (w0-w3)."))
    console.print(_("Log loss: {default:.4f} with the default parameters, {optimized:.4f} fitted "
                    "(RMSE {rmse_default:.1%} -> {rmse_optimized:.1%}).").format(
        default=fit.log_loss_default, optimized=fit.log_loss_optimized,
        rmse_default=fit.rmse_default, rmse_optimized=fit.rmse_optimized))
    console.print(escape(_("Parameters: {parameters}").format(parameters=format_parameters(fit.parameters))))
    if dry_run:
        console.print(_("Not stored (--dry-run)."))
    elif fit.stored:
        console.print(_("Stored as config parameters: reviews are scheduled with them from now on."))
    else:
        console.print(_("Not stored: the parameters in use ({current:.4f}) predict your reviews as well or better.")
                      .format(current=fit.log_loss_current))

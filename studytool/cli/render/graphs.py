"""Anki's statistics graphs in text (`stats`): each a rich renderable that reads without colour."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from studytool.cli.render.common import emit
from studytool.cli.render.pictures import BarList, ColumnChart
from studytool.i18n import _
from studytool.study.graphs import Graphs


def _counts(rows: Sequence[tuple[str, int]]) -> BarList:
    """A histogram: each bar its share of all, its count written beside it."""
    total = sum(n for _label, n in rows)
    return BarList([(label, n / total if total else 0.0, str(n)) for label, n in rows])


def _heading(console: Console, text: str) -> None:
    emit(console, f"\n[bold]{text}[/]")


def _range_word(name: str) -> str:
    return {"1m": _("last month"), "3m": _("last 3 months"), "1y": _("last year"), "all": _("all time")}[name]


def show_graphs(console: Console, graphs: Graphs) -> None:
    today = graphs.today
    share = f"{100 * today['correct_share']:.0f}%" if today["correct_share"] is not None else "—"
    _heading(console, _("Today"))
    emit(console, _("Studied {n} answers in {minutes} min; Again {again}; correct {share}").format(
        n=today["answered"], minutes=round(today["seconds"] / 60), again=today["again"], share=share))
    days = graphs.reviews_per_day
    total = sum(seconds for _day, _n, seconds in days)
    _heading(console, _("Answers per day, {range} ({hours} h in all)").format(range=_range_word(graphs.range),
                                                                             hours=f"{total / 3600:.1f}"))
    emit(console, ColumnChart([n for _day, n, _s in days], [day.strftime("%m-%d") for day, _n, _s in days]))
    names = {"new": _("new"), "learning": _("learning"), "relearning": _("relearning"), "young": _("young"),
             "mature": _("mature"), "suspended": _("suspended"), "buried": _("buried")}
    _heading(console, _("Card counts"))
    emit(console, _counts([(names[kind], n) for kind, n in graphs.card_counts.items()]))
    for title, rows in ((_("Review intervals (days)"), graphs.intervals), (_("Stability (days)"), graphs.stability),
                        (_("Difficulty"), graphs.difficulty), (_("Retrievability now"), graphs.retrievability)):
        _heading(console, title)
        emit(console, _counts(rows) if any(n for _label, n in rows) else f"[dim]{_('No review cards.')}[/]")
    hours = [(f"{hour:02d}:00", right / n, f"{right}/{n}") for hour, n, right in graphs.hourly if n]
    _heading(console, _("Hourly breakdown: correct by hour, {range}").format(range=_range_word(graphs.range)))
    emit(console, BarList(hours) if hours else f"[dim]{_('No reviews in this range.')}[/]")
    _heading(console, _("Answer buttons, {range}").format(range=_range_word(graphs.range)))
    emit(console, _buttons(graphs))


def _buttons(graphs: Graphs) -> Table:
    table = Table(show_edge=False)
    table.add_column(_("Card type"))
    for word in (_("1 Again"), _("2 Hard"), _("3 Good"), _("4 Easy"), _("Correct")):
        table.add_column(word, justify="right")
    names = {"learning": _("learning"), "young": _("young"), "mature": _("mature")}
    for kind, ratings in graphs.answer_buttons.items():
        answered = sum(ratings.values())
        right = f"{100 * (answered - ratings['1']) / answered:.0f}%" if answered else "—"
        table.add_row(names[kind], *(str(ratings[str(rating)]) for rating in (1, 2, 3, 4)), right)
    return table

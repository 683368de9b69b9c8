"""Pictures drawn with text: a study calendar, column and bar charts, heatmaps and mask grids.

Every picture carries its meaning in the glyphs (shades ░▒▓█, signs, ■ □), so it reads without colour
(`NO_COLOR`, a pipe); colour only repeats it. Where the output encoding cannot show the glyphs
(`PYTHONIOENCODING=ascii`, a latin-1 terminal) an ASCII set stands in. Widths are counted in terminal
cells (`cell_len`), so Chinese labels line up, and each picture gives up columns rather than wrap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from studytool.i18n import _


@dataclass(frozen=True)
class Glyphs:
    zero: str                 # a cell with nothing in it (still visible, so the grid shows)
    shades: str               # four levels, lightest first
    eighths: str              # column-chart tops, 1/8 to 8/8 of a row
    blocked: str
    visible: str
    more: str                 # columns left out
    axis: str                 # a chart's y axis, its corner and its x axis
    at_most: str


UNICODE = Glyphs("·", "░▒▓█", "▁▂▃▄▅▆▇█", "■", "□", "…", "│└─", "≤")
ASCII = Glyphs(".", ":=#@", "___===##", "#", ".", ">", "|+-", "<=")
SHADE_STYLES = ("green", "green", "bold green", "bold bright_green")
SIGN_STYLES = {1: "red", -1: "blue"}  # repeats the sign glyph, as a diverging palette does


def glyphs_for(encoding: str) -> Glyphs:
    """The Unicode set when the output encoding can write all of it, else ASCII."""
    try:
        "".join(vars(UNICODE).values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ASCII
    return UNICODE


def pad(text: str, width: int, right: bool = False) -> str:
    """Pad to `width` terminal cells (a Chinese character takes two)."""
    space = " " * max(0, width - cell_len(text))
    return space + text if right else text + space


def level(value: float, top: float) -> int:
    """0 for nothing, else 1-4: which quarter of `top` the magnitude reaches."""
    if top <= 0 or abs(value) < top / 8:
        return 0
    return max(1, min(4, math.ceil(4 * abs(value) / top - 1e-9)))


def legend_bounds(top: float) -> tuple[float, ...]:
    """A heatmap legend's numbers as it prints them (2 decimals): `·` below the first, a shade up to each next."""
    return tuple(float(f"{fraction * top:.2f}") for fraction in (1 / 8, 1 / 4, 1 / 2, 3 / 4, 1))


def shown_level(value: float, top: float, printed: bool = False) -> int:
    """A heatmap cell's shade (0-4) by the ranges the legend states, its printed numbers (`· <0.12` where top/8 is
    0.125): a value on a boundary takes the shade the legend names for it. A cell that prints its value is judged
    by the value as printed (2 decimals), so `0.25` is never drawn above `≤0.25`."""
    bounds = legend_bounds(top)
    magnitude = float(f"{abs(value):.2f}") if printed else abs(value)
    if top <= 0 or magnitude < bounds[0] - 1e-9:   # 1e-9: float noise, as in 0.1 + 0.2
        return 0
    return 1 + sum(magnitude > bound + 1e-9 for bound in bounds[1:4])


class _Picture:
    """A renderable drawn as whole lines; `lines` gets the width and the glyph set."""

    def lines(self, width: int, glyphs: Glyphs) -> list[Text]:
        raise NotImplementedError

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width, glyphs_for(options.encoding)):
            line.no_wrap, line.overflow = True, "crop"
            yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((line.cell_len for line in self.lines(options.max_width, glyphs_for(options.encoding))),
                     default=0)
        return Measurement(widest, widest)


def weekdays() -> tuple[str, ...]:
    """Monday first, as `date.weekday()` counts."""
    return _("Mon"), _("Tue"), _("Wed"), _("Thu"), _("Fri"), _("Sat"), _("Sun")


def months() -> tuple[str, ...]:
    return (_("Jan"), _("Feb"), _("Mar"), _("Apr"), _("May"), _("Jun"), _("Jul"), _("Aug"), _("Sep"), _("Oct"),
            _("Nov"), _("Dec"))


class Calendar(_Picture):
    """Answers per day as GitHub draws them: a column per week (Monday first), a row per weekday."""

    def __init__(self, days: Sequence[tuple[date, int]]):
        self.days = dict(days)
        self.top = max(self.days.values(), default=0)

    def lines(self, width: int, glyphs: Glyphs) -> list[Text]:
        first, last = min(self.days), max(self.days)
        start = date.fromordinal(first.toordinal() - first.weekday())
        weeks = (last.toordinal() - start.toordinal()) // 7 + 1
        labels = weekdays()
        label_width = max(cell_len(label) for label in labels) + 1
        cell = 2 if label_width + 2 * weeks <= width else 1
        shown = max(1, min(weeks, (width - label_width) // cell))
        start = date.fromordinal(start.toordinal() + 7 * (weeks - shown))  # the newest weeks stay
        rows = [self._months(start, shown, label_width, cell, width)]
        for weekday, label in enumerate(labels):
            row = Text(pad(label, label_width), style="dim")
            for week in range(shown):
                day = date.fromordinal(start.toordinal() + 7 * week + weekday)
                row.append_text(self._cell(day, first, last, glyphs).append(" " * (cell - 1)))
            rows.append(row)
        rows.append(self._legend(glyphs))
        return rows

    def _cell(self, day: date, first: date, last: date, glyphs: Glyphs) -> Text:
        if not first <= day <= last:
            return Text(" ")
        n = self.days.get(day, 0)
        shade = max(level(n, self.top), 1 if n else 0)   # a day with any answer is a study day, however light
        return Text(glyphs.shades[shade - 1], SHADE_STYLES[shade - 1]) if shade else Text(glyphs.zero, "dim")

    @staticmethod
    def _months(start: date, weeks: int, label_width: int, cell: int, width: int) -> Text:
        """Month names over the first week column of each month, where there is room for them. The last week's
        name may run past the grid, as far as the picture may be wide; where even that is too narrow, it ends at
        the edge, over the week before, rather than go missing."""
        line, free, names = " " * label_width, 0, months()
        for week in range(weeks):
            monday = date.fromordinal(start.toordinal() + 7 * week)
            name = names[monday.month - 1]
            at = label_width + week * cell
            if week == weeks - 1:
                at = min(at, width - cell_len(name))
            if (week == 0 or monday.day <= 7) and at >= free and at + cell_len(name) <= width:
                line = pad(line, at) + name
                free = at + cell_len(name) + 1
        return Text(line, style="dim")

    def _legend(self, glyphs: Glyphs) -> Text:
        """`· 0  ░ 1-2  ▒ 3-5 …`: the counts each shade stands for."""
        legend = Text(glyphs.zero, "dim").append(" 0")
        low = 1
        for shade in range(1, 5):
            high = math.floor(shade * self.top / 4 + 1e-9)
            if high < low:
                continue
            span = str(low) if high == low else f"{low}-{high}"
            legend.append("  ").append(glyphs.shades[shade - 1], SHADE_STYLES[shade - 1]).append(f" {span}")
            low = high + 1
        return legend


class ColumnChart(_Picture):
    """One column per value, `height` rows tall, the top row in eighths; labels under every `every`-th column."""

    def __init__(self, values: Sequence[int], labels: Sequence[str], height: int = 6, every: int = 7):
        self.values, self.labels, self.height, self.every = list(values), list(labels), height, every

    def lines(self, width: int, glyphs: Glyphs) -> list[Text]:
        top = max(self.values, default=0)
        axis = len(str(top)) + 1
        cell = max(1, min(3, (width - axis - 1) // max(1, len(self.values))))
        values = self.values[: max(1, (width - axis - 1) // cell)]
        bar = max(1, cell - 1) if cell > 1 else 1
        rows = []
        for row in range(self.height, 0, -1):
            tick = "0" if row == 1 else (str(top) if row == self.height and top else "")
            line = Text(pad(tick, axis - 1, right=True) + glyphs.axis[0], style="dim")
            for value in values:
                eighths = round(8 * self.height * value / top) if top else 0
                filled = min(8, max(0, eighths - 8 * (row - 1)))
                if row == 1 and value and not filled:
                    filled = 1  # a day with anything due shows, however small next to the busiest
                line.append((glyphs.eighths[filled - 1] if filled else " ") * bar, "cyan")
                line.append(" " * (cell - bar))
            rows.append(line)
        rows.append(Text(" " * (axis - 1) + glyphs.axis[1] + glyphs.axis[2] * (cell * len(values)), style="dim"))
        rows.append(self._labels(len(values), axis, cell))
        return rows

    def _labels(self, count: int, axis: int, cell: int) -> Text:
        line = " " * axis
        for i in range(0, count, self.every):
            at = axis + i * cell
            if cell_len(line) <= at and at + cell_len(self.labels[i]) <= axis + count * cell + 2:
                line = pad(line, at) + self.labels[i]
        return Text(line, style="dim")


class BarList(_Picture):
    """A labelled horizontal bar per row, for shares in [0, 1], at most MOST cells long."""

    MOST = 40

    def __init__(self, rows: Sequence[tuple[str, float, str]]):
        self.rows = list(rows)

    def lines(self, width: int, glyphs: Glyphs) -> list[Text]:
        label_width = max((cell_len(label) for label, _share, _note in self.rows), default=0) + 1
        note_width = max((cell_len(note) for _label, _share, note in self.rows), default=0)
        room = max(1, min(self.MOST, width - label_width - note_width - 8))
        lines = []
        for label, share, note in self.rows:
            line = Text(pad(label, label_width), style="dim")
            filled = round(room * share)
            line.append(glyphs.shades[3] * filled, "green").append(glyphs.shades[0] * (room - filled), "dim")
            line.append(f" {100 * share:>3.0f}% ").append(note, "dim")
            lines.append(line)
        return lines


def _signed_cell(value: float, top: float, glyphs: Glyphs) -> Text:
    """Two cells: the sign, then the shade of the magnitude (`+▓`, `-░`); ` ·` near zero."""
    shade = shown_level(value, top)
    if not shade:
        return Text(" " + glyphs.zero, "dim")
    sign = 1 if value > 0 else -1
    return Text(("+" if sign > 0 else "-") + glyphs.shades[shade - 1], SIGN_STYLES[sign])


class Heatmap(_Picture):
    """A matrix: row labels down the left, column labels across the top; signed cells show `+`/`-` and a shade.

    With `numbers` (for values in [0, 10), such as weights), each cell also prints its value (`▓▓ 0.42`) when the
    width allows.
    """

    def __init__(self, matrix: Sequence[Sequence[float]], row_labels: Sequence[str], col_labels: Sequence[str],
                 *, signed: bool, top: float = 1.0, numbers: bool = False, corner: str = "", title: str | None = None):
        self.matrix, self.row_labels, self.col_labels = matrix, list(row_labels), list(col_labels)
        self.signed, self.top, self.numbers, self.corner, self.title = signed, top, numbers, corner, title

    def _cell(self, value: float, glyphs: Glyphs, numbers: bool) -> Text:
        if self.signed:
            cell = _signed_cell(value, self.top, glyphs)
        else:
            shade = shown_level(value, self.top, printed=numbers)
            cell = Text(glyphs.shades[shade - 1] * 2, SHADE_STYLES[shade - 1]) if shade else Text(" " + glyphs.zero,
                                                                                                   "dim")
        return cell.append(f" {value:.2f}") if numbers else cell

    def layout(self, width: int) -> tuple[int, int, bool, int]:
        """(label width, cell width, numbers shown, columns shown) for a picture `width` cells wide."""
        label_width = max([cell_len(self.corner)] + [cell_len(label) for label in self.row_labels]) + 1
        numbers = self.numbers and label_width + 8 * len(self.col_labels) <= width
        cell = 8 if numbers else max(3, max((cell_len(label) for label in self.col_labels), default=0) + 1)
        columns = len(self.col_labels)
        shown = columns if label_width + cell * columns <= width else max(1, (width - label_width - 1) // cell)
        return label_width, cell, numbers, shown

    def lines(self, width: int, glyphs: Glyphs) -> list[Text]:
        label_width, cell, numbers, shown = self.layout(width)
        columns = len(self.col_labels)
        head = pad(self.corner, label_width) + "".join(pad(label, cell - 1, right=True) + " "
                                                        for label in self.col_labels[:shown])
        lines = [Text(self.title, style="bold")] if self.title else []
        lines.append(Text(head.rstrip() + (" " + glyphs.more if shown < columns else ""), style="dim"))
        for label, row in zip(self.row_labels, self.matrix):
            line = Text(pad(label, label_width), style="dim")
            for value in row[:shown]:
                line.append(" " * (cell - 3 if not numbers else 0)).append_text(self._cell(value, glyphs, numbers))
                line.append(" ")
            lines.append(line.append(glyphs.more if shown < columns else ""))
        return lines


class MaskGrid(_Picture):
    """A mask: row = query, column = key; ■ blocked, □ visible."""

    def __init__(self, blocked: Sequence[Sequence[bool]], row_labels: Sequence[str] | None = None,
                 title: str | None = None):
        self.blocked = [list(map(bool, row)) for row in blocked]
        keys = len(self.blocked[0]) if self.blocked else 0
        self.row_labels = list(row_labels) if row_labels is not None else [str(i) for i in range(len(self.blocked))]
        self.col_labels = [str(j) for j in range(keys)]
        self.title = title

    def lines(self, width: int, glyphs: Glyphs) -> list[Text]:
        label_width = max([cell_len(label) for label in self.row_labels] + [1]) + 1
        keys = len(self.col_labels)
        cell = max(2, max((len(label) for label in self.col_labels), default=1) + 1)
        if label_width + cell * keys > width:
            cell = 1
        shown = keys if label_width + cell * keys <= width else max(1, width - label_width - 1)
        lines = [Text(self.title, style="bold")] if self.title else []
        if cell > 1:
            head = pad("", label_width) + "".join(pad(label, cell) for label in self.col_labels[:shown])
            lines.append(Text(head.rstrip(), style="dim"))
        for label, row in zip(self.row_labels, self.blocked):
            line = Text(pad(label, label_width), style="dim")
            for is_blocked in row[:shown]:
                line.append(glyphs.blocked if is_blocked else glyphs.visible, "red" if is_blocked else "green")
                line.append(" " * (cell - 1))
            lines.append(line.append(glyphs.more if shown < keys else ""))
        return lines


class MaskLegend:
    """`■ blocked  □ visible  (row = query, column = key)` in the glyphs the output can show; wraps as text."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        glyphs = glyphs_for(options.encoding)
        yield Text.assemble((glyphs.blocked, "red"), " ", _("blocked"), "  ", (glyphs.visible, "green"), " ",
                            _("visible"), "  ", _("(row = query, column = key)"), style="dim")


def padding_grids(blocked: Sequence[Sequence[bool]]) -> list[MaskGrid]:
    """A (B, L) padding mask as B query x key grids: every query of sentence b is blocked from its padding keys."""
    return [MaskGrid([row] * len(row), title=_("sentence {b} (length {n})").format(b=b, n=row.count(False)))
            for b, row in enumerate([list(map(bool, row)) for row in blocked])]


def shade_legend(console: Console, top: float, signed: bool) -> Text:
    """What each shade stands for: `· < 0.12  ░ ≤ 0.25  ▒ ≤ 0.50  ▓ ≤ 0.75  █ ≤ 1.00` (of `top`)."""
    glyphs = glyphs_for(console.encoding)
    legend = Text(style="dim")
    if signed:
        legend.append("+", SIGN_STYLES[1]).append(" >0  ").append("-", SIGN_STYLES[-1]).append(" <0   ")
    zero, *bounds = legend_bounds(top)   # the numbers `shown_level` shades by
    legend.append(glyphs.zero).append(f" <{zero:.2f}")
    for shade, bound in enumerate(bounds):
        legend.append("  ").append(glyphs.shades[shade], SHADE_STYLES[shade])
        legend.append(f" {glyphs.at_most}{bound:.2f}")
    return legend


PE_PLOT_POSITIONS = 48   # rows of a PE heatmap; the bands show long before


def pe_heatmap(table: Sequence[Sequence[float]]) -> Heatmap:
    """A PE table (positions x dimensions) as a signed heatmap: sin and cos bands, slower to the right."""
    rows = table[:PE_PLOT_POSITIONS]
    return Heatmap(rows, [str(pos) for pos in range(len(rows))], [str(j) for j in range(len(table[0]))],
                   signed=True, corner="pos\\j")


def weights_heatmaps(heads: Sequence[Sequence[Sequence[float]]], titled: bool = True) -> list[Heatmap]:
    """Per-head attention weights (H, L_q, L_k), each row summing to 1; shaded against the largest weight."""
    top = max(max(max(row) for row in head) for head in heads)
    return [Heatmap(head, [f"q{i}" for i in range(len(head))], [f"k{j}" for j in range(len(head[0]))],
                    signed=False, top=top, numbers=True, title=_("head {h}").format(h=h) if titled else None)
            for h, head in enumerate(heads)]


def step_picture(step: str) -> tuple[str, object] | None:
    """A worked step that carries a mask (`studytool.problems.masks.MaskStep`): its lead words, and the grid
    (a padding mask: one grid per sentence) with the legend to draw in place of the written matrix."""
    from rich.columns import Columns
    from rich.console import Group

    blocked = getattr(step, "blocked", None)
    if blocked is None:
        return None
    if step.kind == "padding":
        grids = Columns(padding_grids(blocked), padding=(0, 3))
    else:
        grids = MaskGrid(blocked, row_labels=[str(step.first_row + i) for i in range(len(blocked))])
    return step.lead.rstrip(), Group(grids, MaskLegend())

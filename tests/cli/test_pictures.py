"""The pictures (cli/render/pictures.py) pinned as text: golden layouts at 60, 100 and 200 columns, the same
meaning without colour, ASCII where the encoding cannot show blocks, and Chinese labels in line.

Golden files live in tests/cli/golden/; after a deliberate change of layout, rewrite them with
`STUDYTOOL_UPDATE_GOLDEN=1 pytest tests/cli/test_pictures.py` and read the diff before committing it.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest
from rich.cells import cell_len
from rich.console import Console

from studytool.cli.render.pictures import (
    ASCII, UNICODE, BarList, Calendar, ColumnChart, Heatmap, MaskGrid, glyphs_for, padding_grids, pe_heatmap,
    shade_legend, weights_heatmaps,
)

GOLDEN = Path(__file__).parent / "golden"
WIDTHS = (60, 100, 200)
TODAY = date(2026, 3, 1)  # a Sunday
COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|9[0-7]|38;[25];[0-9;]+)m")


class Output(io.StringIO):
    """A text stream that reports an encoding, as sys.stdout does."""

    def __init__(self, encoding: str):
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:
        return self._encoding


def draw(picture: object, width: int, encoding: str = "utf-8", **console: object) -> str:
    out = Output(encoding)
    Console(file=out, width=width, color_system=None, highlight=False, **console).print(picture)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("STUDYTOOL_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8"), f"{path.name} differs"


def history() -> list[tuple[date, int]]:
    """26 weeks of answers: every third day 0, otherwise (day number % 12)."""
    first = TODAY - timedelta(days=26 * 7 - 1)
    days = [first + timedelta(days=d) for d in range(26 * 7)]
    return [(day, 0 if day.toordinal() % 3 == 0 else day.toordinal() % 12) for day in days]


def pe(positions: int, d: int) -> np.ndarray:
    """The sinusoidal table from the paper's formula, written out here (not the engine's)."""
    pos, j = np.arange(positions)[:, None], np.arange(d)[None, :]
    angle = pos / 10000 ** (2 * (j // 2) / d)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))


PICTURES = {
    "calendar": lambda: Calendar(history()),
    "forecast": lambda: ColumnChart([(d * 7) % 11 for d in range(30)],
                                    [(TODAY + timedelta(days=d)).strftime("%m-%d") for d in range(30)]),
    "retention": lambda: BarList([("2026-02-16", 0.875, "7/8"), ("2026-02-23", 2 / 3, "2/3")]),
    "pe": lambda: pe_heatmap(pe(10, 24).tolist()),
    "weights": lambda: weights_heatmaps([[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], [[1.0, 0.0, 0.0], [0.1, 0.8, 0.1]]])[0],
    "padding": lambda: padding_grids([[False, False, False, True, True], [False, False, True, True, True]])[0],
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(PICTURES))
def test_golden_layout(name, width):
    text = draw(PICTURES[name](), width)
    assert max(cell_len(line) for line in text.splitlines()) <= width
    golden(f"{name}-{width}", text)


@pytest.mark.parametrize("name", sorted(PICTURES))
@pytest.mark.parametrize("width", [40, 24])
def test_narrower_than_the_goldens_still_fits(name, width):
    assert max(cell_len(line) for line in draw(PICTURES[name](), width).splitlines()) <= width


def test_causal_grid_written_by_hand():
    grid = MaskGrid(np.triu(np.ones((4, 4), dtype=bool), 1))
    assert draw(grid, 60) == "\n".join([
        "  0 1 2 3",
        "0 □ ■ ■ ■",
        "1 □ □ ■ ■",
        "2 □ □ □ ■",
        "3 □ □ □ □",
    ])


def test_ascii_where_the_encoding_cannot_show_blocks():
    grid = MaskGrid(np.triu(np.ones((3, 3), dtype=bool), 1))
    assert draw(grid, 60, encoding="ascii") == "  0 1 2\n0 . # #\n1 . . #\n2 . . ."
    for encoding in ("ascii", "latin-1"):
        for name, make in PICTURES.items():
            draw(make(), 60, encoding=encoding).encode(encoding)  # raises if a glyph cannot be written
    assert glyphs_for("utf-8") is UNICODE and glyphs_for("gb18030") is UNICODE
    assert glyphs_for("cp1252") is ASCII and glyphs_for("no-such-codec") is ASCII


def test_no_color_keeps_every_glyph_and_drops_colour(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)   # the coloured console must be allowed colour
    for name, make in PICTURES.items():
        coloured = Output("utf-8")
        Console(file=coloured, width=100, force_terminal=True, color_system="truecolor").print(make())
        plain = Output("utf-8")
        Console(file=plain, width=100, force_terminal=True, color_system="truecolor", no_color=True).print(make())
        assert COLOUR.search(coloured.getvalue()), name       # colour where allowed
        assert not COLOUR.search(plain.getvalue()), name      # none under NO_COLOR
        strip = lambda text: re.sub(r"\x1b\[[0-9;]*m", "", text)  # noqa: E731
        assert strip(plain.getvalue()) == strip(coloured.getvalue()), name


def test_chinese_labels_keep_the_columns_in_line():
    grid = MaskGrid(np.triu(np.ones((4, 4), dtype=bool), 1), row_labels=["<s>", "我", "一条", "AI"])
    rows = draw(grid, 60).splitlines()[1:]
    assert len({cell_len(row.split(" ", 1)[0]) for row in rows}) > 1  # the labels differ in width ...
    assert len({cell_len(row[: re.search("[□■]", row).start()]) for row in rows}) == 1, rows  # ... the grid does not
    heatmap = Heatmap([[0.5, -0.5], [1.0, 0.0]], ["一条狗", "AI"], ["维度", "j"], signed=True)
    lines = draw(heatmap, 60).splitlines()
    assert {cell_len(line) for line in lines[1:]} == {cell_len(lines[1])}


def test_zh_calendar_labels_fit_and_line_up(monkeypatch):
    from studytool import i18n

    monkeypatch.setattr(i18n, "_lang", "zh")
    for width in WIDTHS:
        lines = draw(Calendar(history()), width).splitlines()
        assert lines[1].startswith("周一") and "月" in lines[0]
        assert max(cell_len(line) for line in lines) <= width
        assert len({cell_len(line) for line in lines[1:8]}) == 1


def test_pe_heatmap_shows_the_sign_and_magnitude_of_each_number():
    table = pe(10, 24)
    lines = draw(pe_heatmap(table.tolist()), 100).splitlines()
    ranges = legend_ranges(shade_legend(Console(file=Output("utf-8"), color_system=None), 1.0, signed=True).plain)
    for pos, line in enumerate(lines[1:]):
        cells = re.findall(r"([ +-])([·░▒▓█])", line[len(line.split()[0]):])
        assert len(cells) == 24
        for (sign, shade), value in zip(cells, table[pos]):
            assert shade == named_shade(ranges, abs(value))   # the legend's ranges, as it prints them
            assert sign == (" " if shade == "·" else "+" if value > 0 else "-")


def test_weights_heatmap_prints_the_weights():
    heads = [[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]]
    text = draw(weights_heatmaps(heads)[0], 60)
    assert re.findall(r"\d\.\d\d", text) == ["0.50", "0.50", "0.00", "0.20", "0.30", "0.50"]


def test_calendar_shades_follow_the_legend():
    days = [(TODAY - timedelta(days=6 - d), n) for d, n in enumerate([0, 1, 2, 3, 4, 6, 8])]  # Mon .. Sun
    lines = draw(Calendar(days), 60).splitlines()
    shades = [line.split()[1] for line in lines[1:8]]
    assert shades == ["·", "░", "░", "▒", "▒", "▓", "█"]   # quarters of the busiest day, 8: 1-2, 3-4, 5-6, 7-8
    assert lines[8] == "· 0  ░ 1-2  ▒ 3-4  ▓ 5-6  █ 7-8"


def test_a_light_study_day_is_never_drawn_as_no_study():
    days = [(TODAY - timedelta(days=1), 1), (TODAY, 100)]   # 1 answer is under a quarter of 100, still a study day
    cells = "".join(line[4:] for line in draw(Calendar(days), 60).splitlines()[1:8])   # past the weekday
    assert cells.count("░") == 1 and cells.count("█") == 1


@pytest.mark.parametrize("last", [date(2026, 3, 8), date(2026, 3, 2), date(2026, 3, 4)])
@pytest.mark.parametrize("width", [60, 56, 100])
def test_the_last_week_is_named_when_a_month_starts_in_it(last, width):
    """The week of Monday 2 March is March's first column; its name had no room past the grid and went missing."""
    days = [(last - timedelta(days=d), 1) for d in range(26 * 7)]
    lines = draw(Calendar(days), width).splitlines()
    names = lines[0].split()
    assert names[-2:] == ["Feb", "Mar"] and all(cell_len(line) <= width for line in lines)
    last_column = cell_len(lines[1].rstrip()) - 1   # Monday's row: its last cell is the week of 2 March
    assert abs(lines[0].rindex("Mar") - last_column) <= 2


def legend_ranges(legend: str) -> tuple[float, list[tuple[str, float]]]:
    """`· <0.12  ░ ≤0.25 …` read back as a learner reads it: `·` below 0.12, then each shade up to its number."""
    (_glyph, below), *rest = re.findall(r"([·░▒▓█]) [<≤](\d\.\d\d)", legend)
    return float(below), [(glyph, float(number)) for glyph, number in rest]


def named_shade(ranges, magnitude: float) -> str:
    below, shades = ranges
    return "·" if magnitude < below else next(glyph for glyph, high in shades if magnitude <= high)


BOUNDARIES = [0.122, 0.1249, 0.125, 0.25, 0.2504, 0.5, 0.7539, 0.75, 1.0, 0.05]


def test_a_heatmap_cell_on_a_legend_boundary_takes_the_shade_the_legend_names():
    """The legend prints top/8 as 0.12, so 0.122 is no longer `· <0.12`; it was drawn one shade lower."""
    console = Console(file=Output("utf-8"), width=200, color_system=None)
    ranges = legend_ranges(shade_legend(console, 1.0, signed=True).plain)
    line = draw(Heatmap([BOUNDARIES], ["0"], [str(j) for j in range(len(BOUNDARIES))], signed=True), 200)
    shades = re.findall(r"[ +-]([·░▒▓█])", line.splitlines()[1][2:])
    assert shades == [named_shade(ranges, value) for value in BOUNDARIES]
    assert shades[:2] == ["░", "░"]


def test_a_weights_cell_is_shaded_by_the_number_it_prints():
    """`▒▒ 0.25` next to a legend `░ ≤0.25` read wrong: 0.2504 prints 0.25, so it is ░."""
    top = 1.0
    console = Console(file=Output("utf-8"), width=200, color_system=None)
    ranges = legend_ranges(shade_legend(console, top, signed=False).plain)
    heat = Heatmap([BOUNDARIES], ["q0"], [f"k{j}" for j in range(len(BOUNDARIES))], signed=False, top=top,
                   numbers=True)
    cells = re.findall(r"([·░▒▓█])\1? (\d\.\d\d)|  ·  ?(\d\.\d\d)", draw(heat, 200).splitlines()[1])
    printed = [(glyph or "·", float(number or zero)) for glyph, number, zero in cells]
    assert len(printed) == len(BOUNDARIES)
    assert [glyph for glyph, _number in printed] == [named_shade(ranges, number) for _glyph, number in printed]
    assert printed[4] == ("░", 0.25)


def test_column_chart_heights_are_proportional():
    lines = draw(ColumnChart([8, 4, 0, 1], ["a", "", "", ""], height=4, every=4), 60).splitlines()
    columns = [[line.ljust(14)[2 + i] for line in lines[:4]] for i in range(0, 12, 3)]
    assert columns[0] == ["█", "█", "█", "█"] and columns[1] == [" ", " ", "█", "█"]
    assert columns[2] == [" ", " ", " ", " "] and columns[3] == [" ", " ", " ", "▄"]  # 1/8 of 4 rows: half a row


def studytool(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    return subprocess.run([sys.executable, "-m", "studytool", *args], env={**environment, **env},
                          capture_output=True, timeout=60)


def on_a_terminal(*args: str, **env: str) -> str:
    """The real program on a pseudo-terminal (colour is only ever written to a terminal)."""
    import pty

    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "studytool", *args], env={**environment, "TERM": "xterm-256color",
                            **env}, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    return out.decode()


def test_no_color_on_a_real_terminal_keeps_the_grid():
    coloured = on_a_terminal("calc", "mask", "--causal", "3")
    plain = on_a_terminal("calc", "mask", "--causal", "3", NO_COLOR="1")
    assert COLOUR.search(coloured) and not COLOUR.search(plain)
    assert "0 □ ■ ■" in re.sub(r"\x1b\[[0-9;]*m", "", plain)


@pytest.mark.parametrize("args", [("calc", "mask", "--lengths", "3,5,2"), ("calc", "mask", "--causal", "5"),
                                  ("calc", "pe", "--d-model", "6", "--positions", "3", "--plot")])
def test_the_commands_draw_in_ascii_under_an_ascii_stdout(args):
    result = studytool(*args, PYTHONIOENCODING="ascii", COLUMNS="60")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("ascii").strip()


def test_a_mask_cards_worked_solution_draws_the_grid():
    from studytool.cli.render.explain import render_explanation
    from studytool.explain import explain

    out = Output("utf-8")
    render_explanation(explain("causal-mask", []), Console(file=out, width=60, color_system=None))
    text = "\n".join(line.rstrip() for line in out.getvalue().splitlines())
    assert "  0 1 2 3\n" in text and "0 □ ■ ■ ■" in text and "3 □ □ □ □" in text
    out = Output("utf-8")
    render_explanation(explain("padding-mask", []), Console(file=out, width=100, color_system=None))
    assert out.getvalue().count("0 □ □ □ ■ ■") == 1 and "0 □ □ □ □ □" in out.getvalue()


def test_quiz_feedback_draws_the_mask_of_a_padding_card():
    from studytool.cli.render.study import TerminalView
    from studytool.decks.model import Card
    from studytool.problems.masks import padding_mask
    from studytool.study.session import Result

    card = Card(deck="d", id="pad", kind="generated", topic="padding-mask", body={"generator": "padding_mask"})
    variant = padding_mask(np.random.default_rng(0), lengths=[2, 3], batch=None, max_len=3, ask="count")
    out = Output("utf-8")
    view = TerminalView(Console(file=out, width=60, color_system=None))
    view.show_result(Result(card, None, variant, "2", "1", False, 1, None, review_id=1))
    text = "\n".join(line.rstrip() for line in out.getvalue().splitlines())
    assert "padding mask =\n" in text and "[[0, 0, 1], [0, 0, 0]]" not in text  # drawn, not written out
    assert "sentence 0 (length 2)" in text and "0 □ □ ■" in text and "0 □ □ □" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_golden_stats_screen(width):
    from studytool.cli.render.study import show_stats
    from studytool.study.stats import DeckCounts, Stats, WeekRetention

    forecast = tuple((TODAY + timedelta(days=d), (d * 5) % 7) for d in range(30))
    stats = Stats(decks=(DeckCounts("squares", 4, 2, 54, 3, 1),), answers_total=1234, retention=0.9,
                  retention_reviews=30, answers_per_day=tuple(history()[-14:]), forecast=forecast[:14], weakest=(),
                  calendar=tuple(history()), forecast_30d=forecast,
                  retention_by_week=(WeekRetention(date(2026, 2, 16), 8, 7), WeekRetention(date(2026, 2, 23), 0, 0)))
    out = Output("utf-8")
    show_stats(Console(file=out, width=width, color_system=None, highlight=False), stats)
    text = "\n".join(line.rstrip() for line in out.getvalue().splitlines())
    assert max(cell_len(line) for line in text.splitlines()) <= width
    assert "2026-02-23" not in text  # a week without reviews has no retention to draw
    golden(f"stats-{width}", text)


def test_stats_json_keeps_its_keys_and_adds_the_series_behind_the_pictures(tmp_path):
    from datetime import datetime, timezone

    from studytool.study.stats import compute_stats
    from studytool.study.store import open_store

    with open_store(tmp_path / "studytool.db") as store:
        doc = compute_stats(store, [], datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)).to_json()
    before = {"answers_total", "decks", "retention_30d", "retention_reviews", "answers_per_day", "forecast",
              "weakest_topics"}  # the keys of stats --json before the pictures
    graphs = {"range", "today", "reviews_per_day", "card_counts", "intervals", "stability", "difficulty",
              "retrievability", "hourly", "answer_buttons"}   # Anki's statistics (issue 25), beside them
    assert set(doc) == before | {"calendar", "forecast_30d", "retention_by_week"} | graphs
    assert len(doc["calendar"]) == 26 * 7 and len(doc["forecast_30d"]) == 30 and len(doc["retention_by_week"]) >= 26

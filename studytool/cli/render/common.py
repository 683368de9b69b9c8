"""Shared rich helpers. Only the CLI and rendering code import rich."""

from __future__ import annotations

import sys
import unicodedata
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

NO_LINE_START = set("，。、；：？！）》」』】”’,.;:?!)]}")   # punctuation that stays on the line before
NO_LINE_END = set("（《「『【“‘([{")                      # and punctuation that stays with what follows


def console() -> Console:
    """Standard output console; rich drops colour when piped or with NO_COLOR.

    A new one each call: a console reads the terminal's width (or COLUMNS) once, when it is made."""
    return Console(highlight=False)


def err_console() -> Console:
    """Standard error console: prompts and feedback when stdout carries JSON."""
    return Console(stderr=True, highlight=False)


def print_json(document: object) -> None:
    """Print one JSON document on stdout, nothing else.

    JSON is data: where stdout cannot encode a character (PYTHONIOENCODING=ascii) it is escaped as JSON
    allows (\\uXXXX), never replaced by the terminal's stand-in (a full-width comma would become a comma);
    a typed control or bidi mark is escaped so too, as the screen escapes it, so that it never drives the terminal.
    """
    import json

    from studytool.files import json_printable

    text = json_printable(json.dumps(document, ensure_ascii=False, indent=2))
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except UnicodeEncodeError:
        text = json.dumps(document, indent=2)
    sys.stdout.write(text + "\n")


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _may_break(text: str, i: int) -> bool:
    """May a line end just before text[i]? After spaces, as in English; between Chinese characters, as in Chinese."""
    before, after = text[i - 1], text[i]
    if after.isspace() or after in NO_LINE_START or before in NO_LINE_END:
        return False
    return before.isspace() or _wide(before) or _wide(after)


def line_breaks(text: str, width: int) -> list[int]:
    """Where to break one paragraph so each line fits `width` cells (a run too long for any line is folded)."""
    breaks: list[int] = []
    start, last_chance, used = 0, 0, 0
    for i, char in enumerate(text):
        if i > start and _may_break(text, i):
            last_chance = i
        used += cell_len(char)
        while used > width and not char.isspace():
            cut = last_chance if last_chance > start else i  # no break allowed: fold before this character
            if cut == start:
                break  # a single character wider than the line
            breaks.append(cut)
            start = cut
            used = cell_len(text[start:i + 1])
    return breaks


class Prose:
    """Markup text wrapped as CJK is set: rich breaks lines only at spaces, which leaves Chinese lines
    half empty (a long run without spaces moves down whole), so break between Chinese characters too."""

    def __init__(self, text: str | Text):
        self.text = Text.from_markup(text) if isinstance(text, str) else text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for paragraph in self.text.split("\n", allow_blank=True):
            for line in paragraph.divide(line_breaks(paragraph.plain, options.max_width)):
                line.rstrip()
                yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)


def emit(console: Console, *objects: object, **options: Any) -> None:
    """`console.print`; off a terminal (a pipe, a log), without the spaces rich pads each line with to the width."""
    if console.is_terminal:
        console.print(*objects, **options)
        return
    with console.capture() as captured:
        console.print(*objects, **options)
    console.file.write("\n".join(line.rstrip() for line in captured.get().split("\n")))

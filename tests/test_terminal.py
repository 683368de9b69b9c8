"""Terminal manners: colour only on a terminal and never with NO_COLOR; tables as wide as the terminal, CJK counted right.

These run the real program in a subprocess, on a pseudo-terminal where a terminal is needed, so that nothing
cached inside a test process (rich consoles read the environment once) can hide a problem.
"""

import os
import pty
import re
import subprocess
import sys

import pytest
from rich.cells import cell_len

COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|9[0-7]|38;[25];[0-9;]+)m")  # foreground colour SGR codes
ANY_ESCAPE = re.compile(r"\x1b\[")
FORCING = ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE", "NO_COLOR", "COLUMNS", "TERMINAL_WIDTH")


def environment(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in FORCING}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", **extra)
    return env


def studytool(*args: str) -> list[str]:
    return [sys.executable, "-m", "studytool", *args]


def on_a_terminal(args: list[str], env: dict) -> str:
    """Run with stdout and stderr on a pseudo-terminal; return what it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
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
    os.close(master)
    assert proc.wait(timeout=60) == 0
    return out.decode("utf-8", "replace")


def piped(args: list[str], env: dict) -> str:
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_help_is_coloured_on_a_terminal():
    """The control for the two tests below: colour does show up when it should."""
    assert COLOUR.search(on_a_terminal(studytool("--help"), environment()))


def test_no_colour_with_no_color_set():
    out = on_a_terminal(studytool("--help"), environment(NO_COLOR="1"))
    assert "--install-completion" in re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert not COLOUR.search(out)


@pytest.mark.parametrize("args", [("--help",), ("decks", "list")])
def test_no_escape_codes_when_piped(args):
    out = piped(studytool(*args), environment())
    assert out.strip()
    assert not ANY_ESCAPE.search(out)


@pytest.mark.parametrize("columns", [60, 40])
def test_chinese_table_fits_the_terminal_with_borders_aligned(columns):
    """`decks list` shows Chinese titles; with CJK counted as two cells every row has the terminal's width."""
    out = piped(studytool("decks", "list"), environment(COLUMNS=str(columns)))
    table = [line for line in out.splitlines() if line[:1] in "┏┃┡│└"]
    assert any(re.search(r"[\u4e00-\u9fff]", line) for line in table)
    widths = {cell_len(line) for line in table}
    assert len(widths) == 1 and widths.pop() <= columns, sorted({cell_len(line) for line in table})


def test_help_fits_a_narrow_terminal():
    out = piped(studytool("--help"), environment(COLUMNS="60"))
    assert max(cell_len(line) for line in out.splitlines()) <= 60


@pytest.mark.parametrize("args, stdin", [
    (("explain", "layernorm"), ""),
    (("calc", "shapes", "--batch", "32", "--seq", "10", "--d-model", "512", "--heads", "8", "--vocab", "30000"), ""),
    (("stats",), ""),
    (("quiz", "--count", "3", "--seed", "3"), "24x32x45\nB\nB\n"),
])
def test_nothing_is_wider_than_the_terminal(tmp_path, args, stdin):
    """Chinese text, tables, panels and trees all wrap or shrink to a 40-column terminal."""
    env = environment(COLUMNS="40", STUDYTOOL_HOME=str(tmp_path))
    result = subprocess.run(studytool(*args), env=env, input=stdin, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = (result.stdout + result.stderr).splitlines()
    assert len(lines) > 3
    assert max(cell_len(line) for line in lines) <= 40

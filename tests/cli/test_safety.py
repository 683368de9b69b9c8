"""The hostile terminal: full disks, closed streams and pipes, ASCII-only encodings, FIFOs, huge inputs.

Each case runs the real entry point in a subprocess, as a user's shell would, and must end in one
line on stderr (exit 1; 2 for usage) or work, never in a traceback.
"""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

RECALL = """\
deck: hostile
title: Hostile
cards:
  - id: one
    kind: recall
    topic: layernorm
    q: 哪一维？
    a: 特征维。
"""


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    (home / "decks").mkdir(parents=True)
    (home / "decks" / "hostile.yaml").write_text(RECALL, encoding="utf-8")
    return home


def studytool(home, *args, env=None, **kwargs):
    environment = {**os.environ, "STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en", **(env or {})}
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.run([sys.executable, "-m", "studytool", *args], env=environment, timeout=120,
                          **{**streams, **kwargs})


def one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert text.count("\n") == 1 and text.startswith("studytool: "), text
    return text


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", [["stats"], ["--help"], ["decks", "list"], ["calc", "softmax", "1", "2"]])
def test_stdout_on_a_full_disk_is_one_line(home, args):
    with open("/dev/full", "w") as full:
        result = studytool(home, *args, stdout=full)
    assert result.returncode == 1
    assert one_line(result.stderr) == "studytool: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("args", [["calc", "softmax", "1", "2"], ["calc", "layernorm", "2", "4", "6", "8"],
                                  ["explain", "layernorm"], ["decks", "list"]])
def test_an_ascii_terminal_gets_stand_ins_for_glyphs(home, args):
    result = studytool(home, *args, env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    result.stdout.decode("ascii")   # every byte ASCII
    assert b"Traceback" not in result.stderr


def test_data_on_an_ascii_stdout_is_the_same_data(home, tmp_path):
    """CSV and JSON are data, not text to show: an ASCII terminal must not turn '，' into ',' (a new column)."""
    import csv
    import io
    import json

    result = studytool(home, "export", "csv", "-", env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert studytool(home, "export", "csv", str(tmp_path / "file.csv")).returncode == 0
    rows = list(csv.reader(io.StringIO(result.stdout.decode("utf-8"))))
    assert rows == list(csv.reader(io.StringIO((tmp_path / "file.csv").read_text(encoding="utf-8-sig"))))
    sheet = ["worksheet", "--format", "json", "--count", "3", "--seed", "2"]
    ascii_json = studytool(home, *sheet, env={"PYTHONIOENCODING": "ascii"})
    ascii_json.stdout.decode("ascii")
    assert json.loads(ascii_json.stdout) == json.loads(studytool(home, *sheet).stdout)


def test_an_ascii_terminal_may_type_chinese(home):
    result = studytool(home, "quiz", "--deck", "hostile", input="特征维\n3\n".encode(), env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    result.stdout.decode("ascii")
    con = sqlite3.connect(home / "studytool.db")
    assert con.execute("SELECT answer FROM reviews").fetchall() == [("\ufffd" * 9,)]   # 9 bytes ASCII cannot read
    con.close()


def test_the_stand_ins_read_as_the_glyphs():
    from studytool.cli.safety import ASCII  # noqa: F401 - registers the handler

    assert "Σ = 1 → √x · 中".encode("ascii", "studytool-ascii") == b"Sum = 1 -> sqrtx . \\u4e2d"


def test_quiz_with_stdin_closed_ends_like_end_of_input(home):
    result = studytool(home, "quiz", "--deck", "hostile", preexec_fn=lambda: os.close(0))
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    assert b"Score: 0/0" in result.stdout


def test_a_reader_that_goes_away_ends_the_command_quietly(home):
    # --variants 10: about 0.5 MB of CSV, far more than a pipe holds, so the writer meets the closed end
    process = subprocess.Popen([sys.executable, "-m", "studytool", "export", "csv", "-", "--variants", "10"],
                               env={**os.environ, "STUDYTOOL_HOME": str(home)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.read(100)
    process.stdout.close()   # like `| head -c 100`
    stderr = process.stderr.read()
    process.wait(timeout=120)
    assert stderr == b"", stderr


def test_a_skipped_deck_entry_is_one_warning_line(home):
    (home / "decks" / "sub").mkdir()
    os.mkfifo(home / "decks" / "pipe.yaml")
    result = studytool(home, "decks", "list")
    assert result.returncode == 0
    assert result.stderr.decode().splitlines() == [
        f"studytool: warning: {home / 'decks' / 'pipe.yaml'}: skipped: a named pipe (FIFO), not a regular file",
        f"studytool: warning: {home / 'decks' / 'sub'}: skipped: a folder (decks in sub-folders are not read)",
    ]
    check = studytool(home, "decks", "check")
    assert check.returncode == 1 and b"pipe.yaml: skipped" in check.stdout


def test_a_fifo_deck_path_does_not_hang(home, tmp_path):
    fifo = tmp_path / "some.fifo"
    os.mkfifo(fifo)
    result = studytool(home, "--deck-path", str(fifo), "quiz", "--count", "1", input=b"")
    assert result.returncode == 1
    assert one_line(result.stderr) == f"studytool: {fifo}: not a deck file: a named pipe (FIFO)\n"


def test_an_answer_that_is_not_utf8_is_stored_with_replacement_characters(home):
    result = studytool(home, "quiz", "--deck", "hostile", input=b"\xff\xfe bad \xc3\n3\n")
    assert result.returncode == 0, result.stderr
    con = sqlite3.connect(home / "studytool.db")
    assert con.execute("SELECT answer FROM reviews").fetchall() == [("\ufffd\ufffd bad \ufffd",)]
    con.close()


def test_an_escape_in_a_deck_never_reaches_the_terminal(home):
    (home / "decks" / "evil.yaml").write_text(RECALL.replace("deck: hostile", "deck: evil").replace(
        "q: 哪一维？", 'q: "\\e]52;c;cm0gLXJmIH4=\\a\\e[2J"'), encoding="utf-8")
    result = studytool(home, "quiz", "--deck", "evil", input=b"")
    assert b"\x1b" not in result.stdout + result.stderr
    assert result.returncode == 1
    assert "control character U+001B" in one_line(result.stderr)


def test_a_huge_deck_integer_is_one_line_in_every_command(home):
    (home / "decks" / "big.yaml").write_text(
        "deck: big\ntitle: Big\ncards:\n  - {id: n, kind: number, topic: param-count, q: n, answer: "
        + "9" * 5000 + "}\n", encoding="utf-8")
    for args in (["decks", "check"], ["stats"], ["quiz", "--count", "1"], ["export", "csv", "-"]):
        result = studytool(home, *args, input=b"")
        assert result.returncode == 1, args
        text = (result.stdout + result.stderr).decode()
        assert "a number written with more than 100 characters is not allowed" in text and "Traceback" not in text


def test_calc_refuses_a_huge_input_quickly(home):
    result = studytool(home, "calc", "softmax", *map(str, range(10_001)))
    assert result.returncode == 1
    assert one_line(result.stderr) == "studytool: at most 10000 numbers, please (calc shows every step for each)\n"


def test_calc_shapes_past_what_numpy_can_index_is_one_line(home):
    # 10^6 sentences of 10^7 tokens: 8 x 10^20 attention scores, past NumPy's 9.2 x 10^18 even shape-only
    result = studytool(home, "calc", "shapes", "--batch", "1000000", "--seq", "10000000", "--d-model", "1000000",
                       "--heads", "8", "--vocab", "1000000")
    assert result.returncode == 1
    assert "too large to trace" in one_line(result.stderr)


def test_calc_shapes_of_a_million_tokens_works_shape_only(home):
    result = studytool(home, "calc", "shapes", "--batch", "1000000", "--seq", "1000000", "--vocab", "1000000",
                       "--json")
    assert result.returncode == 0, result.stderr
    assert b"1000000" in result.stdout


def test_the_planted_folder_entries_leave_the_bundled_decks_working(home):
    (home / "decks" / "loop.yaml").symlink_to(home / "decks" / "loop.yaml")
    result = studytool(home, "stats", "--json")
    assert result.returncode == 0 and Path(home / "decks" / "loop.yaml").is_symlink()


def test_control_characters_in_typed_input_are_echoed_as_escapes(home):
    """Piped answers are echoed in the transcript: an OSC title write or a bell must show as text."""
    from studytool.cli.safety import visible

    assert visible("\x1b]0;pwn\x07 a\tb\x9b") == "\\x1b]0;pwn\\x07 a\tb\\x9b"
    result = studytool(home, "quiz", "--deck", "hostile", input="\x1b]0;pwn\x07 特征维\n3\n".encode())
    assert result.returncode == 0, result.stderr
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout
    assert "\\x1b]0;pwn\\x07 特征维" in result.stdout.decode()


def test_a_notice_quoting_the_input_shows_its_control_characters_as_escapes():
    """Format errors may quote what was typed ('not a number: ...'); the notice must not pass an ESC through."""
    import io

    from rich.console import Console

    from studytool.cli.render.study import TerminalView

    out = io.StringIO()
    TerminalView(Console(file=out, width=80, color_system=None)).show_notice("not a number: \x1b]0;pwn\x07")
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "not a number: \\x1b]0;pwn\\x07" in out.getvalue()


def test_an_error_quoting_raw_input_never_prints_its_control_characters():
    """Every one-line error goes through the same escaping, whatever the message was built from."""
    from typer.testing import CliRunner

    from studytool.cli import app

    result = CliRunner().invoke(app, ["calc", "softmax", "1\x1b]0;pwn"])   # the reader quotes the bad token as typed
    assert result.exit_code == 1
    assert result.stderr == "studytool: not a number: 1\\x1b]0\n"   # the token ends at the ;


def test_a_usage_error_quoting_the_value_escapes_it():
    from typer.testing import CliRunner

    from studytool.cli import app

    result = CliRunner().invoke(app, ["quiz", "--count", "1\x1b[2J"])
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "1\\x1b[2J" in result.stderr

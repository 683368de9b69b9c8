"""The README's quoted runs are what the tool prints today: each `$ studytool ...` of a console block is run, in
README order in one fresh home (the `stats` after the tour counts the tour's answers), at 80 columns, and every
quoted line that is not an elision (`…`) must come out, in order.

Left out, each for a reason the README gives: the `stats` picture is "after four months of a 60-card deck" (a
history no command makes), and the `words` week types answers the prose describes, not a printf.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app

README = Path(__file__).parents[2] / "README.md"


def quoted_runs() -> list[tuple[str, str, list[str]]]:
    """(command, stdin, quoted output lines) of every console block's `$ studytool` lines, in order."""
    runs, block = [], None
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            block = [] if block is None and line == "```console" else None
            continue
        if block is None:
            continue
        piped = re.fullmatch(r"\$ printf '(.*)' \| (studytool .*)", line)
        if piped or line.startswith("$ studytool "):
            command, stdin = (piped[2], piped[1].replace("\\n", "\n")) if piped else (line[2:], "")
            runs.append((command, stdin, []))
        elif line.startswith("$ "):
            runs.append(("", "", []))   # another program's run (an environment variable first): not checked
        elif runs:
            runs[-1][2].append(line)
    return [run for run in runs if run[0] and not any("Study calendar" in line for line in run[2])]


# How long a quiz took is the machine's, not the tool's: a loaded box turns the README's 0m 00s into 0m 01s.
_ELAPSED = re.compile(r"(Time: )\d+m \d\ds")


def _same_run(line: str) -> str:
    return _ELAPSED.sub(r"\1Xm XXs", line.rstrip())


def test_the_readme_quotes_the_tour_stats_calc_and_explain():
    commands = [command for command, _stdin, _lines in quoted_runs()]
    assert commands[0].startswith("studytool quiz --count 3 --seed") and "studytool stats" in commands
    assert any(command.startswith("studytool calc mask") for command in commands)


def test_every_quoted_run_prints_what_the_readme_shows(tmp_path):
    runner = CliRunner()
    # an English locale, no language asked for: a Chinese deck's quiz speaks Chinese around its cards, as a reader sees
    env = {"STUDYTOOL_HOME": str(tmp_path / "home"), "COLUMNS": "80", "LANG": "en_US.UTF-8", "LC_ALL": None,
           "LC_MESSAGES": None, "STUDYTOOL_LANG": None, "NO_COLOR": "1", "STUDYTOOL_NOW": None, "TZ": "UTC"}
    for command, stdin, quoted in quoted_runs():
        result = runner.invoke(app, shlex.split(command)[1:], input=stdin, env=env)
        assert result.exit_code == 0, (command, result.output)
        printed = iter(_same_run(line) for line in result.output.splitlines())
        for line in quoted:
            if "…" in line or not line.strip():
                continue
            if not any(out == _same_run(line) for out in printed):   # consumes up to the match: in order
                pytest.fail(f"README quotes {line!r} for `{command}`, which no longer prints it")

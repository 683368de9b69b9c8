"""Help and usage errors as a newcomer meets them: human metavars, `-h`, plain one-line errors with exit 2."""

import re

import click
import pytest
import typer
from typer.testing import CliRunner

from studytool import __version__
from studytool.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")


def command_paths(command=None, path=()) -> list[tuple[str, ...]]:
    """Every group and command of the app, as the words that name it: (), ("decks",), ("decks", "show") ...

    Asked as click asks a group, since the groups are loaded only when one is named.
    """
    command = command or typer.main.get_command(app)
    found = [path]
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            found += command_paths(command.get_command(ctx, name), (*path, name))
    return found


PATHS = command_paths()
PYTHON_TYPES = re.compile(r"<(?:bool|int|float|str|list|Path|path)[^>]*>|\[x[<>]=|\{[A-Z_]+\}")


def test_the_walk_finds_every_command():
    assert {("decks", "show"), ("explain",), ("calc", "shapes"), ("export", "anki"), ("quiz",)} <= set(PATHS)


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "studytool")
def test_help_shows_human_metavars_and_no_python_types(path):
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert not PYTHON_TYPES.search(result.stdout), PYTHON_TYPES.search(result.stdout).group()
    assert runner.invoke(app, [*path, "-h"], env={"COLUMNS": "200"}).stdout == result.stdout


@pytest.mark.parametrize("path, shown", [
    (("quiz",), [r"--deck DECK ", r"--count N ", r"--seed S "]),
    (("decks", "show"), [r"Usage: studytool decks show \[OPTIONS\] DECK "]),
    (("decks", "check"), [r"Usage: studytool decks check \[OPTIONS\] \[PATH\.\.\.\] "]),
    (("explain",), [r"Usage: studytool explain \[OPTIONS\] \[TOPIC\.\.\.\] ", r"--seed S "]),
    ((), [r"--db PATH ", r"--version -V Show the version"]),
])
def test_help_names_each_value_by_its_metavar(path, shown):
    out = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout
    flat = re.sub(r"[\s│]+", " ", out)          # the panels' columns, read as one line
    for pattern in shown:
        assert re.search(pattern, flat), pattern


def test_flags_show_no_metavar():
    flat = re.sub(r"[\s│]+", " ", runner.invoke(app, ["decks", "show", "--help"], env={"COLUMNS": "200"}).stdout)
    assert re.search(r"--json One JSON document", flat)


def test_dash_capital_v_is_the_version():
    result = runner.invoke(app, ["-V"])
    assert result.exit_code == 0 and result.stdout == f"studytool {__version__}\n"


@pytest.mark.parametrize("args, error", [
    (["explain", "attention", "--seed", "-1"], "Invalid value for '--seed': must be 0 or more, not -1"),
    (["quiz", "--count", "0"], "Invalid value for '--count': must be 1 or more, not 0"),
    (["calc", "pe", "--d-model", "x", "--positions", "3"], "Invalid value for '--d-model': must be a whole number, not x"),
    (["quiz", "--count="], "Invalid value for '--count': must be a whole number, not ''"),
    (["quiz", "--level"], "Option '--level' requires an argument."),   # click raises it without a context
    (["quiz", "--cout", "3"], "No such option: --cout. Did you mean --count?"),
    (["quiz", "--db", "x.db"], "--db is a global option: put it before the command, as in 'studytool --db … quiz'"),
    (["review", "--retention", "5"], "Invalid value for '--retention': must be from 0.7 to 0.99, not 5.0"),
    (["cards", "show"], "Missing argument 'DECK/ID'."),
])
def test_a_usage_error_is_the_usage_line_and_one_plain_error_line(args, error):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    usage, said = result.stderr.splitlines()
    assert usage.startswith(f"Usage: studytool {args[0]}")
    assert said == f"Error: {error}"
    assert result.stdout == ""


def test_a_usage_error_of_the_global_options_is_plain_too():
    result = runner.invoke(app, ["--lang", "fr", "decks", "list"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["Usage: studytool [OPTIONS] COMMAND [ARGS]...",
                                          "Error: Invalid value for '--lang': must be one of 'en', 'zh', not fr"]


@pytest.mark.parametrize("args, lines", [
    (["--db"], ["Usage: studytool [OPTIONS] COMMAND [ARGS]...", "Error: Option '--db' requires an argument."]),
    (["--lang", "zh", "--db"], ["用法：studytool [OPTIONS] COMMAND [ARGS]...", "错误：选项 '--db' 需要一个值。"]),
    (["--lang=zh", "--bogus"], ["用法：studytool [OPTIONS] COMMAND [ARGS]...", "错误：没有选项 --bogus"]),
])
def test_a_usage_error_before_any_command_has_its_usage_line_in_the_language_asked(args, lines):
    """--lang is read before click parses a word: an error in the global options is in that language too."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stderr.splitlines() == lines

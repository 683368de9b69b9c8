"""Options several commands share (cli/options.py): an id named on the command line is bounded (issue 20, item 17)."""

import pytest
from typer.testing import CliRunner

from studytool.cli import app

ENV = {"STUDYTOOL_LANG": "en", "NO_COLOR": "1", "COLUMNS": "100", "TERM": "dumb"}
HUGE_DECK = "9" * 100_000
HUGE_CARD = "a" * 1_000_000


@pytest.mark.parametrize("args", [
    ["quiz", "--deck", HUGE_DECK], ["review", "--deck", HUGE_DECK], ["worksheet", "--deck", HUGE_DECK],
    ["export", "csv", "-", "--deck", HUGE_DECK], ["cards", "list", "--deck", HUGE_DECK],
    ["quiz", "--topic", HUGE_DECK], ["explain", HUGE_DECK], ["decks", "show", HUGE_DECK], ["decks", "audit", HUGE_DECK],
    ["config", "--deck", HUGE_DECK], ["cards", "show", f"p47-encoder/{HUGE_CARD}"], ["cards", "show", HUGE_CARD],
    ["cards", "suspend", f"{HUGE_DECK}/x"], ["cards", "forget", "p47-encoder/ln-direction", HUGE_CARD],
    ["quiz", "--tag", HUGE_DECK], ["worksheet", "--tag", HUGE_DECK], ["config", HUGE_CARD],
], ids=lambda args: " ".join(arg[:12] for arg in args))
def test_an_id_of_unbounded_length_is_refused_without_quoting_it(tmp_path, args):
    result = CliRunner().invoke(app, args, env={**ENV, "STUDYTOOL_HOME": str(tmp_path)}, input="")
    assert result.exit_code == 2, result.output
    error = result.stderr.splitlines()[-1]
    assert error.startswith("Error: Invalid value for ") and len(result.stderr) < 500
    longest = max(len(part) for part in args[-1].split("/"))
    assert error.endswith(f"an id has at most 100 characters, not {longest:,}")


def test_an_id_at_the_bound_is_looked_up_as_usual(tmp_path):
    result = CliRunner().invoke(app, ["decks", "show", "x" * 100], env={**ENV, "STUDYTOOL_HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert result.stderr.startswith(f"studytool: unknown deck '{'x' * 100}'")

"""Issue 23.4: a near miss (right by the method, rounded early or off in the last digit) is "close": Hard, not Again,
in quiz and review, on screen and in --json."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
from typer.testing import CliRunner

from studytool.cli import app

X = [2, 4, 6, 9]
DECK = f"""deck: near
title: 近似
source: 测试
cards:
  - id: ln
    kind: generated
    generator: layer_norm
    topic: layernorm
    params: {{x: {X}, ask: output}}
"""


def typed(values) -> str:
    return " ".join(f"{v:.4f}" for v in values)


x = np.array(X, dtype=float)
RIGHT = typed((x - x.mean()) / x.std())
SIGMA_ROUNDED = typed((x - x.mean()) / round(float(x.std()), 2))   # σ = 2.586020 used as 2.59
UNBIASED = typed((x - x.mean()) / x.std(ddof=1))                   # a wrong method: Again


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "near.yaml").write_text(DECK, encoding="utf-8")
    return tmp_path


def invoke(env, args, text):
    return CliRunner().invoke(app, ["--deck-path", str(env / "decks"), *args], input=text + "\n")


def ratings(env):
    con = sqlite3.connect(env / "home" / "studytool.db")
    return [tuple(row) for row in con.execute("SELECT mode, rating, correct FROM reviews ORDER BY id")]


@pytest.mark.parametrize("command", [["quiz", "--count", "1", "--seed", "0"], ["review", "--new", "1"]])
def test_a_sigma_rounded_early_is_close_and_hard_in_json(env, command):
    doc = json.loads(invoke(env, [*command, "--deck", "near", "--json"], SIGMA_ROUNDED).stdout)
    (card,) = doc["cards"][:1]
    assert (card["verdict"], card["rating"], card["correct"]) == ("close", 2, False)
    assert "earlier step" in card["hint"]
    assert ratings(env)[0][1:] == (2, 0)   # recorded as Hard, not Again


@pytest.mark.parametrize("command", [["quiz", "--count", "1", "--seed", "0"], ["review", "--new", "1"]])
def test_close_is_shown_as_such_on_screen(env, command):
    out = invoke(env, [*command, "--deck", "near"], SIGMA_ROUNDED).stdout
    assert "Close (rated Hard)" in out and "earlier step" in out and "Wrong" not in out


def test_right_and_wrong_keep_their_verdicts(env):
    right = json.loads(invoke(env, ["quiz", "--deck", "near", "--count", "1", "--json"], RIGHT).stdout)
    wrong = json.loads(invoke(env, ["quiz", "--deck", "near", "--count", "1", "--json"], UNBIASED).stdout)
    assert (right["cards"][0]["verdict"], right["cards"][0]["rating"]) == ("correct", 3)
    assert (wrong["cards"][0]["verdict"], wrong["cards"][0]["rating"]) == ("wrong", 1)
    assert "K−1" in wrong["cards"][0]["hint"]

"""`cards show` (cli/render/cards.py) of a generated card: the variant last asked, not only the pinned example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import Settings
from studytool.decks.loader import load_decks

NOW = "2026-03-02T08:00:00+00:00"
DECK = ("deck: g\ntitle: 生成\nsource: 测试\ncards:\n"
        "  - id: max\n    kind: generated\n    topic: softmax\n    generator: softmax\n    params: {ask: max}\n")


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_NOW", NOW)
    monkeypatch.setenv("COLUMNS", "100")
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "g.yaml").write_text(DECK, encoding="utf-8")
    return ["--deck-path", str(tmp_path / "decks")]


def invoke(args, text="", env=None):
    return CliRunner().invoke(app, args, input=text, env=env)


def test_cards_show_gives_the_inputs_and_level_of_the_variant_last_asked(env):
    # the example (the notes' own numbers) missed, then its 1-minute step: another variant, drawn from a seed
    review = json.loads(invoke([*env, "review", "--deck", "g", "--json"], "0\n0\n").stdout)
    first, second = review["cards"]
    assert first["seed"] is None and second["seed"] is not None
    card = next(deck for deck in load_decks(Settings(deck_paths=[Path(env[1])])) if deck.deck == "g").cards[0]
    asked = card.pose(second["seed"], second["level"])   # what the learner saw the second time
    assert asked.params != card.pose(None).params        # (so the pinned example cannot pass for it)

    shown = json.loads(invoke([*env, "cards", "show", "g/max", "--json"]).stdout)
    assert shown["last_asked"] == {"params": asked.params, "level": asked.level}
    assert [review["params"] for review in shown["reviews"]] == [card.pose(None).params, asked.params]

    screen = invoke([*env, "--lang", "en", "cards", "show", "g/max"]).stdout
    line = next(line for line in screen.splitlines() if line.startswith("Last answered"))   # not "asked": :q
    assert line == next(line for line in screen.splitlines() if line.startswith("Last "))      # leaves no log
    inputs = ", ".join(f"{name}={value}" for name, value in asked.params.items())
    assert line.split(None, 2)[2] == f"{inputs} (level {asked.level})"
    assert "Next level" in screen


def test_cards_show_names_the_variant_each_answer_was_to(env):
    review = json.loads(invoke([*env, "review", "--deck", "g", "--json"], "0\n0\n").stdout)
    seeds = [card["seed"] for card in review["cards"]]               # the notes' example, then a drawn variant
    shown = json.loads(invoke([*env, "cards", "show", "g/max", "--json"]).stdout)
    assert [answer["seed"] for answer in shown["reviews"]] == seeds
    screen = invoke([*env, "--lang", "en", "cards", "show", "g/max"], env={"COLUMNS": "200"}).stdout
    rows = [line for line in screen.splitlines() if "│" in line and ("seed" in line or "example" in line)]
    assert "Variant" in screen and len(rows) == 2
    assert "the notes' example: " in rows[0] and f"seed {seeds[1]}: " in rows[1]
    for row, answer in zip(rows, shown["reviews"]):
        assert f"(level {answer['level']})" in row


def test_a_fixed_card_has_no_last_asked_variant(env, tmp_path):
    (tmp_path / "decks" / "n.yaml").write_text(
        "deck: n\ntitle: 数\nsource: 测试\ncards:\n  - id: a\n    kind: number\n    topic: softmax\n"
        "    q: 3 + 4 = ?\n    answer: 7\n", encoding="utf-8")
    invoke([*env, "review", "--deck", "n"], "7\n")
    shown = json.loads(invoke([*env, "cards", "show", "n/a", "--json"]).stdout)
    assert shown["last_asked"] is None and shown["reviews"][0]["level"] is None
    screen = invoke([*env, "--lang", "en", "cards", "show", "n/a"]).stdout
    assert "Last answered" not in screen and "Variant" not in screen and shown["reviews"][0]["seed"] is None


def test_the_label_says_answered_in_both_languages(env):
    invoke([*env, "review", "--deck", "g"], "0\n:q\n")   # the second variant is shown, then :q: not logged
    zh = invoke([*env, "--lang", "zh", "cards", "show", "g/max"]).stdout
    assert "上次作答的题" in zh and "上次所出的题" not in zh


LONG = ("deck: arch\ntitle: 架构\nsource: 测试\ncards:\n"
        "  - id: attention-scaling-why-sqrt-dk\n    kind: recall\n    topic: attention\n"
        f"    q: {'为什么要除以根号 dk' * 3}\n    a: 方差\n")   # 57 cells of question


def card_list(env, columns):
    lines = invoke([*env, "--lang", "en", "cards", "list", "--deck", "arch"], env={"COLUMNS": str(columns)}
                   ).stdout.splitlines()
    return lines[0].split(), lines[2]


@pytest.mark.parametrize("columns, headers, question", [
    # hand-counted cells: card 34, state 8, due 16, stability 9, difficulty 10, flags 5, 3 between two columns;
    # a line is at most COLUMNS - 1 cells
    (80, ["Card", "State", "Due", "Stability"], None),                    # 64 + 12 = 76; difficulty: 89
    (100, ["Card", "State", "Due", "Stability", "Difficulty"], None),     # 89: 7 cells left, under 12
    (120, ["Card", "State", "Due", "Stability", "Difficulty", "Question"], 119 - 89 - 3),
    (200, ["Card", "State", "Due", "Stability", "Difficulty", "Question"], 57),
])
def test_a_narrow_list_cuts_the_question_then_drops_it_before_the_memory_columns(env, tmp_path, columns, headers,
                                                                                  question):
    from rich.cells import cell_len

    (tmp_path / "decks" / "arch.yaml").write_text(LONG, encoding="utf-8")
    invoke([*env, "review", "--deck", "arch"], "\n3\n")   # learning now: a stability of 2.31, a difficulty
    found, row = card_list(env, columns)
    assert found == headers
    assert cell_len(row) <= columns - 1
    if question is None:
        assert row.split()[-1].replace(".", "").isdigit()
    else:
        cut = row[row.index("为"):]
        assert cell_len(cut) == question and cut.endswith("…" if question < 57 else "dk")


def test_flags_show_when_a_card_has_one_and_come_before_difficulty(env, tmp_path):
    (tmp_path / "decks" / "arch.yaml").write_text(LONG, encoding="utf-8")
    invoke([*env, "review", "--deck", "arch"], "\n3\n")
    assert card_list(env, 100)[0] == ["Card", "State", "Due", "Stability", "Difficulty"]   # no flag: no column
    invoke([*env, "cards", "suspend", "arch/attention-scaling-why-sqrt-dk"])
    headers, row = card_list(env, 100)   # 64 + 12 (suspended) + 12 = 88; difficulty: 101
    assert headers == ["Card", "State", "Due", "Stability", "Flags"] and row.endswith("suspended")

"""A card of a Chinese deck is shown with Chinese around it — format line, prompts, hint, legend — whatever the
locale, unless `--lang en` (or STUDYTOOL_LANG) asks for English (issue 22, item 6)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from studytool.cli import app

ENGLISH_DECK = """deck: words
title: Words
cards:
  - id: one
    kind: number
    topic: softmax
    q: How many keys does a query see in a 3-token causal mask at position 0?
    answer: 1
"""


@pytest.fixture
def run(tmp_path):
    def invoke(*args: str, answers: str = ":q\n", lang: str | None = None) -> str:
        env = {"STUDYTOOL_HOME": str(tmp_path / "home"), "LANG": "en_US.UTF-8", "LC_ALL": None, "LC_MESSAGES": None,
               "STUDYTOOL_LANG": lang, "NO_COLOR": "1", "COLUMNS": "100", "STUDYTOOL_NOW": "2026-03-02T08:00:00+00:00"}
        result = CliRunner().invoke(app, list(args), input=answers, env=env)
        assert result.exit_code == 0, result.output
        return result.output
    return invoke


def test_a_chinese_decks_card_speaks_chinese_under_an_english_locale(run):
    shown = run("quiz", "--deck", "transformer-arch", "--count", "3", "--seed", "8039",
                answers="[[1,1,1,1,1],[1,1,0,0,0]]\n:q\n")
    assert "2 行、每行 5 个数" in shown and "你的答案>" in shown      # the format line and the prompt
    assert "提示：" in shown and "解答：" in shown                    # the hint's and the solution's labels
    assert "■ 遮住  □ 可见" in shown and "句子 1（长度 2）" in shown  # the mask picture's legend and titles
    assert "rows of" not in shown and "Your answer" not in shown


@pytest.mark.parametrize("args, lang", [(("--lang", "en"), None), ((), "en")])
def test_english_asked_for_is_english_around_a_chinese_card(run, args, lang):
    shown = run(*args, "quiz", "--deck", "transformer-arch", "--count", "3", "--seed", "8039",
                answers="[[1,1,1,1,1],[1,1,0,0,0]]\n:q\n", lang=lang)
    assert "2 rows of 5 numbers" in shown and "Your answer>" in shown and "■ blocked  □ visible" in shown


def test_an_english_deck_follows_the_locale(run, tmp_path):
    deck = tmp_path / "words.yaml"
    deck.write_text(ENGLISH_DECK, encoding="utf-8")
    shown = run("--deck-path", str(deck), "quiz", "--deck", "words", answers="2\n")
    assert "One number" in shown and "Your answer>" in shown and "Wrong" in shown


def test_the_worksheet_of_a_chinese_deck_has_chinese_format_lines(run):
    sheet = run("worksheet", "--deck", "transformer-arch", "--count", "3", "--seed", "8039")
    assert "2 行、每行 5 个数" in sheet and "2 rows of" not in sheet

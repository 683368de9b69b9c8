"""`calc bpe`: BPE merges and tokens of the learner's text, against the CS336 handout worked by hand."""

import json

import pytest
from typer.testing import CliRunner

from studytool import calc
from studytool.cli import app
from studytool.errors import StudytoolError

runner = CliRunner()
HANDOUT = "low low low low low lower lower widest widest widest newest newest newest newest newest newest".split()
ENV = {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb", "LANG": "C.UTF-8"}


def run(*args: str):
    return runner.invoke(app, ["--lang", "en", "calc", "bpe", *args], env=ENV)


def test_json_of_the_cs336_handout_example():
    # The six merges of the handout (tests/engine/test_bpe.py works them out): st 9, est 9, ow 7, low 7,
    # west 6, ne 6. Then low -> low; lower -> low e r; widest -> w i d est; newest -> ne west.
    result = run(*HANDOUT, "--merges", "6", "--json")
    assert result.exit_code == 0, result.output
    r = json.loads(result.stdout)
    assert r["merges"] == [["s", "t"], ["e", "st"], ["o", "w"], ["l", "ow"], ["w", "est"], ["n", "e"]]
    assert r["counts"] == [9, 9, 7, 7, 6, 6]
    assert r["tokens"] == ["low"] * 5 + ["low", "e", "r"] * 2 + ["w", "i", "d", "est"] * 3 + ["ne", "west"] * 6


def test_one_quoted_argument_is_the_same_corpus_as_separate_words():
    assert calc.bpe([" ".join(HANDOUT)], 6) == calc.bpe(HANDOUT, 6)


def test_the_screen_shows_each_merge_with_its_count_then_the_tokens():
    result = run(*HANDOUT, "--merges", "3")
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[1].split() == ["1", "s", "+", "t", "→", "st", "9"]
    assert lines[3].split() == ["3", "o", "+", "w", "→", "ow", "7"]
    # after st, est, ow: l ow (x5), l ow e r (x2), w i d est (x3), n e w est (x6): 10 + 8 + 12 + 24 tokens
    assert lines[4] == "54 tokens:"
    assert "l | ow | e | r" in result.stdout


def test_chinese_text_is_merged_by_characters_and_the_screen_speaks_chinese():
    result = runner.invoke(app, ["--lang", "zh", "calc", "bpe", "中文", "中文", "中国", "--merges", "2"], env=ENV)
    assert result.exit_code == 0, result.output
    assert "中 + 文 → 中文" in result.stdout and "3 个词元" in result.stdout


def test_no_pair_left_says_so():
    result = run("a", "b", "c")
    assert result.exit_code == 0 and "no merges" in result.stdout and "a | b | c" in result.stdout


@pytest.mark.parametrize(("args", "words"), [
    ([], "empty text"),
    (["   "], "empty text"),
    (["low", "--merges", "-1"], "--merges must be from 0 to 1000, got -1"),
    (["low", "--merges", "1001"], "--merges must be from 0 to 1000"),
    (["low", "--merges", "9" * 40], "--merges must be from 0 to 1000"),
    (["ab " * 4000], "at most 10,000 characters"),
    (["low\x1b[31mred"], "control character"),
])
def test_bad_input_is_one_line_and_exit_1(args, words):
    result = run(*args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studytool: ") and words in lines[0], result.output


def test_library_errors_are_studytool_errors():
    with pytest.raises(StudytoolError):
        calc.bpe([], 3)

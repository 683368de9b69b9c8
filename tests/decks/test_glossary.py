"""One vocabulary: the glossary file, and the drift `decks check` reports (issue 22, item 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from studytool.decks.glossary import _Text, bundled_glossary, check_vocabulary, drift, parse_terms, texts
from studytool.decks.loader import read_yaml


def terms_of(text: str, name: str = "glossary.yaml") -> tuple[list, list[str]]:
    problems: list[str] = []
    return parse_terms(yaml.compose(text), name, problems), problems


GLOSSARY = """terms:
  - term: padding-mask
    zh: 填充掩码
    en: padding mask
    use: zh
    forbidden: [padding 掩码]
  - term: cross-attention
    zh: 交叉注意力
    en: cross-attention
    use: en
    forbidden: [cross attention]
"""


def problems_in(line: str) -> list[str]:
    terms, _ = terms_of(GLOSSARY)
    return drift(_Text(line, 3, False), terms, ["", "", f"    q: {line}"], "deck.yaml")


def test_the_bundled_glossary_names_one_form_for_each_term_the_review_found():
    problems: list[str] = []
    terms = parse_terms(read_yaml(bundled_glossary(), "glossary.yaml", problems), "glossary.yaml", problems)
    assert problems == []
    words = {term.term: term.word for term in terms}
    assert words == {"padding-mask": "填充掩码", "causal-mask": "因果掩码", "cross-attention": "cross-attention",
                     "warmup": "warmup", "beam-search": "beam search", "stack": "堆叠"}


def test_the_bundled_decks_and_topics_speak_the_glossarys_vocabulary():
    assert check_vocabulary() == []


def test_a_generator_that_writes_a_forbidden_word_is_named_with_its_level_and_seed():
    from studytool.decks.glossary import generated_drift
    from studytool.decks.model import Card
    from studytool.problems.variant import Variant

    class Drifting(Card):   # a generated card whose prompt says 交叉注意力 (the glossary writes cross-attention)
        def pose(self, seed=None, level=1):
            return Variant(prompt=f"decoder 的交叉注意力里 key 来自哪里？（{seed}）", kind="scalar", answer=1)

    deck = type("Deck", (), {"cards": [Drifting(deck="d", id="x", kind="generated", topic="attention",
                                                 body={"generator": "none"})]})
    assert generated_drift([deck], seeds=2) == [
        "d/x (level 1, seed 0): '交叉注意力' drifts from the glossary: write 'cross-attention' (cross-attention, "
        "glossary.yaml)"]


@pytest.mark.parametrize("line, variant", [
    ("decoder 的 padding 掩码遮住补齐的位置。", "padding 掩码"),
    ("encoder 只加 padding mask。", "padding mask"),
    ("它的 cross attention 看源句。", "cross attention"),
    ("decoder 里的交叉注意力看源句。", "交叉注意力"),
])
def test_a_variant_in_chinese_text_is_drift_at_its_file_line_and_column(line, variant):
    [problem] = problems_in(line)
    column = ("    q: " + line).index(variant) + 1
    assert problem.startswith(f"deck.yaml:3:{column}: ") and repr(variant) in problem


def test_the_used_form_a_gloss_and_english_text_are_no_drift():
    assert problems_in("填充掩码（padding mask）让注意力不看补齐的位置；cross-attention 看源句。") == []
    assert problems_in("cross-attention（交叉注意力）的 K、V 来自 encoder。") == []
    assert problems_in("The padding mask hides the padded keys.") == []   # English text is not held to it


def test_a_block_scalars_problem_is_reported_on_its_own_line():
    terms, _ = terms_of(GLOSSARY)
    lines = ["summary: |", "  第一段。", "", "  然后 padding mask 出现。"]
    [problem] = drift(_Text("第一段。\n\n然后 padding mask 出现。", 1, True), terms, lines, "topics.yaml")
    assert problem.startswith("topics.yaml:4:6: ")


@pytest.mark.parametrize("line, stray", [
    ("引申自 架构笔记 §3.5.2", True),            # between two Chinese words
    ("分数矩阵是 目标长×源长", True),
    ("输出层偏置 ，合计", True),                  # before full-width punctuation
    ("预测下一个词。 然后", True),                # after it
    ("<s> 我 爱 AI 的第 1 步", False),            # a token sequence, one-character tokens
    ("“我 是 一条 狗”，pos = 0", False),
    ("取 encoder 输出作 K、V", False),            # Chinese next to Latin words keeps its spaces
])
def test_stray_spaces_in_chinese_text(line, stray):
    assert any("stray space" in problem for problem in problems_in(line)) == stray


def test_full_width_brackets_inside_full_width_brackets_are_flagged_once():
    [problem] = problems_in("按 PyTorch 的定义（不计可学习的 γ、β（仿射参数）），结果是？")
    assert "inside full-width brackets" in problem
    assert problems_in("按 PyTorch 的定义（不计 γ、β，见 LN(x)），结果是？") == []   # a formula's ASCII brackets


@pytest.mark.parametrize("entry, line, says", [
    ("  - term: t\n    zh: 词\n    en: word\n    use: fr\n    forbidden: []\n", 15, "use is zh or en"),
    ("  - term: t\n    zh: 词\n    en: word\n    forbidden: []\n", 12, "exactly term, zh, en, use and forbidden"),
    ("  - term: t\n    zh: 词\n    en: word\n    use: zh\n    forbidden: 字\n", 12, "forbidden is a list"),
    ("  - term: t\n    zh: 填充掩码\n    en: word\n    use: zh\n    forbidden: []\n", 12, "claimed twice"),
    ("  - term: t\n    zh: 词\n    en: word\n    use: zh\n    forbidden: [Word]\n", 12, "claimed twice"),
])
def test_a_broken_glossary_entry_is_reported_with_its_place(entry, line, says):
    _terms, problems = terms_of(GLOSSARY + entry)
    assert len(problems) == 1 and problems[0].startswith(f"glossary.yaml:{line}:") and says in problems[0]


def test_decks_check_reports_a_broken_glossary_as_file_line_col(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from studytool.cli.app import app

    broken = tmp_path / "glossary.yaml"
    broken.write_text(GLOSSARY + "  - term: t\n    zh: 词\n    en: word\n    use: fr\n    forbidden: []\n",
                      encoding="utf-8")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("STUDYTOOL_LANG", raising=False)
    result = CliRunner().invoke(app, ["decks", "check", str(broken)], env={"STUDYTOOL_HOME": str(tmp_path / "h")})
    assert result.exit_code == 1
    assert f"{broken}:15:10: use is zh or en, not 'fr'" in result.output


def test_drift_in_a_bundled_deck_fails_decks_check(tmp_path, monkeypatch):
    """The check reads the bundled files: a copy of the package with one drifted word in a deck fails it."""
    import shutil
    import subprocess
    import sys

    package = Path(__file__).resolve().parents[2] / "studytool"
    copy = tmp_path / "studytool"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    deck = copy / "decks" / "bundled" / "p47-encoder.yaml"
    text = deck.read_text(encoding="utf-8")
    deck.write_text(text.replace("cross-attention", "cross attention", 1), encoding="utf-8")
    line = next(n for n, row in enumerate(deck.read_text(encoding="utf-8").splitlines(), 1) if "cross attention" in row)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "STUDYTOOL_HOME": str(tmp_path / "h"), "LANG": "en_US.UTF-8",
           "NO_COLOR": "1"}
    env.pop("STUDYTOOL_LANG", None)
    result = subprocess.run([sys.executable, "-m", "studytool", "decks", "check"], capture_output=True, text=True,
                            env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert f"p47-encoder.yaml:{line}:" in result.stdout and "'cross attention' drifts from the glossary" in result.stdout


def test_every_text_field_of_a_deck_is_read_and_names_are_not():
    root = yaml.compose("deck: d\ntitle: 标题\ncards:\n  - id: padding mask\n    q: 问\n    options: [甲, 乙]\n"
                        "    topic: x\n")
    assert [text.text for text in texts(root)] == ["标题", "问", "甲", "乙"]

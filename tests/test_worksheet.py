"""worksheet: the selected cards posed like quiz poses them, questions then answer key, reproducible."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import Settings
from studytool.decks.loader import load_decks
from studytool.decks.model import Card, Deck
from studytool.decks.select import plan
from studytool.problems.answers import grade
from studytool.worksheet import build, to_json, to_markdown

HAND_MADE = Deck("hand", "Hand-made", "tests", (
    Card("hand", "ln", "generated", "layernorm", ("self-test",), "P47 p19",
         body={"generator": "layer_norm", "params": {"size": 4, "ask": "output"}, "example": {"x": [2, 4, 6, 8]}}),
    Card("hand", "shapes", "generated", "multi-head", body={"generator": "multi_head_shapes"}),
    Card("hand", "tf", "truefalse", "layernorm", why="LN 不看 batch。",
         body={"statement": "LayerNorm 的统计量跨 batch 计算。", "answer": False,
               "opposite": "LayerNorm 的统计量只在单个样本内计算。"}),
    Card("hand", "recall", "recall", "residual", body={"q": "残差连接为什么要相加？", "a": "梯度有一条恒等路径。"}),
    Card("hand", "order", "order", "encoder-block",
         body={"q": "encoder block 的顺序？", "items": ["self-attention", "add & norm", "FFN", "add & norm（第二次）"]}),
))


@pytest.fixture(scope="module")
def bundled():
    return load_decks(Settings())


def test_items_follow_plan_and_pose(bundled):
    sheet = build(bundled, count=8, seed=11)
    posings = plan(bundled, count=8, seed=11)
    assert [item.card for item in sheet.items] == [p.card.key for p in posings]
    assert [item.prompt for item in sheet.items] == [p.card.pose(p.seed).prompt for p in posings]
    assert sheet.seed == 11


def test_every_answer_in_the_key_grades_correct(bundled):
    sheet = build(bundled, count=60, seed=3)
    posings = plan(bundled, count=60, seed=3)
    for item, posing in zip(sheet.items, posings):
        variant = posing.card.pose(posing.seed)
        if item.answer_kind == "recall":
            assert item.answer == variant.answer
        else:
            assert grade(variant, item.answer).correct, item.card


def test_hand_made_cards_of_every_kind():
    sheet = build([HAND_MADE], seed=1)
    kinds = {item.card: (item.kind, item.answer_kind) for item in sheet.items}
    assert kinds == {"hand/ln": ("generated", "vector"), "hand/shapes": ("generated", "shape"),
                     "hand/tf": ("truefalse", "choice"), "hand/recall": ("recall", "recall"),
                     "hand/order": ("order", "sequence")}
    by_card = {item.card: item for item in sheet.items}
    true_form = by_card["hand/tf"].prompt == "LayerNorm 的统计量只在单个样本内计算。"   # a showing states one form
    assert by_card["hand/tf"].answer == ("A" if true_form else "B") and by_card["hand/tf"].why == "LN 不看 batch。"
    assert by_card["hand/recall"].answer == "梯度有一条恒等路径。"
    assert by_card["hand/ln"].solution  # worked steps


def test_markdown_has_questions_then_the_answer_key():
    text = to_markdown(build([HAND_MADE], seed=1))
    questions, key = text.split("## ", 2)[1:]
    assert all(f"{n}. " in questions and f"{n}. **" in key for n in range(1, 6))
    assert "A. 对 / True" in questions  # options are printed with the question
    assert "**" not in questions


def test_json_items_have_the_contract_fields():
    items = to_json(build([HAND_MADE], seed=1))
    for item in items:
        assert {"card", "kind", "answer_kind", "prompt", "answer", "solution"} <= set(item)


def test_json_kind_is_the_card_kind_that_decks_and_quiz_use():
    items = {item["card"]: item for item in to_json(build([HAND_MADE], seed=1))}
    assert {card.key: card.kind for card in HAND_MADE.cards} == {key: item["kind"] for key, item in items.items()}
    assert items["hand/tf"]["answer_kind"] == "choice" and items["hand/order"]["answer_kind"] == "sequence"
    json.dumps(items, ensure_ascii=False)


def test_same_seed_same_sheet_and_another_seed_another(bundled):
    assert to_markdown(build(bundled, count=10, seed=5)) == to_markdown(build(bundled, count=10, seed=5))
    assert to_markdown(build(bundled, count=10, seed=5)) != to_markdown(build(bundled, count=10, seed=6))


runner = CliRunner()


def test_cli_markdown_is_byte_identical_for_the_same_seed(tmp_path):
    env = {"STUDYTOOL_HOME": str(tmp_path), "STUDYTOOL_LANG": "en"}
    first = runner.invoke(app, ["worksheet", "--count", "6", "--seed", "42"], env=env)
    second = runner.invoke(app, ["worksheet", "--count", "6", "--seed", "42"], env=env)
    assert first.exit_code == 0, first.output
    assert first.stdout_bytes == second.stdout_bytes
    assert first.stdout.startswith("# Transformer worksheet")


def test_cli_json_is_one_document(tmp_path):
    env = {"STUDYTOOL_HOME": str(tmp_path)}
    result = runner.invoke(app, ["worksheet", "--deck", "p47-encoder", "--count", "4", "--seed", "1",
                                 "--format", "json"], env=env)
    assert result.exit_code == 0, result.output
    items = json.loads(result.stdout)
    assert len(items) == 4 and all(item["card"].startswith("p47-encoder/") for item in items)


@pytest.mark.parametrize("args, code", [(["--format", "pdf"], 2), (["--deck", "no-such-deck"], 1)])
def test_cli_bad_options_are_one_line_errors(tmp_path, args, code):
    """An unknown format is a usage error (2, with the allowed values); an unknown deck a user error (1)."""
    result = runner.invoke(app, ["worksheet", *args], env={"STUDYTOOL_HOME": str(tmp_path)})
    assert result.exit_code == code
    assert "Traceback" not in result.output
    if code == 2:
        assert "'md'" in result.stderr and "'json'" in result.stderr


# --- Markdown that renders as the cards' own text ---------------------------------------------------------------


def rendered_text(markdown: str) -> tuple[str, set[str]]:
    """What a GFM-like renderer shows (tags stripped, entities decoded, spaces collapsed), and the tags it made."""
    import html
    import re

    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    tags = set(re.findall(r"<([a-z0-9]+)", page))
    text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"</?code>", "", page)))  # a code span is inline
    return re.sub(r"\s+", " ", text), tags


TRICKY = Deck("tricky", "Markdown-significant text", "tests", (
    Card("tricky", "tokens", "truefalse", "teacher-forcing", why="标签以 <eos> 结尾，输入以 <s> 开头。",
         body={"statement": "decoder 输入是 <s> 我 爱 AI <eos>，其中 d_model * 2 | _x_ 不变。", "answer": False,
               "opposite": "decoder 输入是 <s> 我 爱 AI，其中 d_model * 2 | _x_ 不变。"}),
    Card("tricky", "choice", "choice", "teacher-forcing",
         body={"q": "decoder 的输入？", "options": ["<s> 我 爱 AI", "我 爱 AI <eos>", "**粗** ~~删~~"], "answer": "A"}),
))


def test_markdown_of_tokens_and_markup_characters_renders_as_the_same_text():
    sheet = build([TRICKY], seed=1)
    text, tags = rendered_text(to_markdown(sheet))
    assert tags <= {"h1", "h2", "p", "ol", "ul", "li", "em", "strong", "code"}, tags  # no <s>, <del>, <eos>, <table>
    for item in sheet.items:
        for shown in (item.prompt, *item.options):
            assert re.sub(r"\s+", " ", shown) in text, shown
    assert "标签以 <eos> 结尾，输入以 <s> 开头。" in text


def test_the_notes_teacher_forcing_card_keeps_its_tokens(bundled):
    text, tags = rendered_text(to_markdown(build(bundled, topic="teacher-forcing", seed=7)))
    assert "<s> 我 爱 AI <eos>" in text
    assert not tags & {"s", "del", "eos", "table"}


def test_json_keeps_the_raw_text():
    (item, *_) = to_json(build([TRICKY], deck_ids=["tricky"], seed=1))
    assert "<s>" in item["prompt"] or "<s>" in " ".join(item["options"])
    assert "\\" not in item["prompt"]

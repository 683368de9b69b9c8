"""`studytool explain`: every topic renders, its live example gives the notes' numbers, its cards are listed."""

import re

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.decks.model import Card, Deck
from studytool.decks.topics import load_topics, resolve
from studytool.explain import drilling_cards, explain, pose_example, topic_index

runner = CliRunner()
TOPIC_IDS = [topic.id for topic in load_topics()]


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """No user decks, English interface."""
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?", text)]


# --- the live examples pose the notes' own numbers ------------------------------------------------


@pytest.mark.parametrize("topic_id, expected", [
    ("layernorm", [-1.3416, -0.4472, 0.4472, 1.3416]),
    ("bn-vs-ln", [-1, -1, 1, 1]),
    ("positional-encoding", [0.8415, 0.5403, 0.0022]),      # d=3, pos=1: 0.841471, 0.540302, 0.002154
    ("multi-head", [32, 10, 8, 64]),                        # split heads
    ("cross-attention", [32, 8, 4, 10]),                    # rectangular scores
    ("ffn", [32, 10, 2048]),
    ("embedding", [15_360_000]),                            # 30000 x 512
    ("encoder-block", [3_145_728]),                         # 4d^2 + 2 d d_ff
    ("param-count", [18_874_368]),                          # 6 blocks
    # QK^T = [2, 4, 3], / sqrt(2), softmax -> [0.1400, 0.5760, 0.2840], times V -> [0.4240, 0.8600]
    ("attention", [0.4240, 0.8600]),
])
def test_the_default_example_gives_the_notes_numbers(topic_id, expected):
    example = pose_example(resolve(topic_id))
    assert example is not None and example.seed is None
    assert numbers(example.answer) == pytest.approx(expected, abs=1e-4)
    assert example.solution, "a worked solution with its steps"


def test_a_seed_draws_a_fresh_reproducible_variant_on_the_same_question():
    topic = resolve("layernorm")
    a, b = pose_example(topic, seed=11), pose_example(topic, seed=11)
    notes = pose_example(topic)
    assert a == b
    assert a.prompt != notes.prompt
    assert a.params.get("ask") == topic.example["ask"]


def test_topics_without_a_generator_have_no_example():
    assert pose_example(resolve("residual")) is None


def test_drilling_cards_are_the_cards_with_that_topic():
    cards = (
        Card(deck="d", id="a", kind="recall", topic="layernorm", body={"q": "?", "a": "!"}),
        Card(deck="d", id="b", kind="recall", topic="softmax", body={"q": "?", "a": "!"}),
        Card(deck="e", id="c", kind="truefalse", topic="layernorm", body={"statement": "s", "answer": True, "opposite": "o"}),
    )
    deck = Deck(deck="d", title="t", source="s", cards=cards)
    assert [c.key for c in drilling_cards(resolve("ln"), [deck])] == ["d/a", "e/c"]
    assert explain("层归一化", [deck]).quiz_command == "studytool quiz --topic layernorm"


def test_the_index_groups_every_topic_once():
    listed = [topic.id for _, topics in topic_index() for topic in topics]
    assert sorted(listed) == sorted(TOPIC_IDS)


# --- through the command line ----------------------------------------------------------------------


@pytest.mark.parametrize("topic_id", TOPIC_IDS)
def test_every_topic_renders(topic_id):
    topic = resolve(topic_id)
    result = runner.invoke(app, ["explain", topic_id])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert topic.title in out
    assert "Common mistakes" in out and "Cards that drill it" in out
    assert f"studytool quiz --topic {topic_id}" in out  # the bundled decks drill every topic
    if topic.generator:
        assert "Worked example" in out and "Answer" in out


def test_the_cards_list_names_each_kind_in_the_interface_language():
    """The bundled LayerNorm cards are recall, choice, true/false and generated ones (decks/bundled/*.yaml)."""
    rows = {lang: [line.split()[:2] for line in runner.invoke(app, ["--lang", lang, "explain", "layernorm"],
                                                             env={"COLUMNS": "120"}).stdout.splitlines()
                   if "/ln-" in line or "/gen-ln-" in line] for lang in ("en", "zh")}
    assert {kind for _, kind in rows["zh"]} >= {"问答", "选择", "判断", "随机生成"}
    assert {kind for _, kind in rows["en"]} >= {"recall", "choice", "true-or-false", "generated"}
    assert [key for key, _ in rows["zh"]] == [key for key, _ in rows["en"]]


def test_explain_layernorm_shows_the_notes_example_and_formula():
    out = runner.invoke(app, ["explain", "LayerNorm"]).stdout
    assert "[-1.3416, -0.4472, 0.4472, 1.3416]" in out
    assert "√(σ² + ε)" in out


def test_a_topic_name_may_be_several_words():
    result = runner.invoke(app, ["explain", "positional", "encoding", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "seed 3" in result.stdout


def test_explain_without_a_topic_lists_all_topics_with_aliases():
    result = runner.invoke(app, ["explain"])
    assert result.exit_code == 0
    for topic_id in TOPIC_IDS:
        assert topic_id in result.stdout
    assert "层归一化" in result.stdout          # topic titles are content: Chinese


def test_group_headings_are_interface_text_in_the_interface_language():
    headings = {"en": ["Task and big picture", "Input layer", "Attention", "Encoder", "Decoder",
                       "Shapes, compute and parameters", "Beyond the notes: what interviewers ask next",
                       "The LLM era: what 2026 interviews ask"],
                "zh": ["任务与全局", "输入层", "注意力", "Encoder", "Decoder", "形状、计算量与参数量", "笔记之外：面试追问",
                       "大模型时代：2026 年面试常考"]}
    for lang, expected in headings.items():
        result = runner.invoke(app, ["--lang", lang, "explain"])
        assert result.exit_code == 0, result.output
        assert [title for title, _ in topic_index()] == expected
        for title in expected:
            assert title in result.stdout
    assert "输入层" not in runner.invoke(app, ["--lang", "en", "explain"]).stdout
    assert "Input layer" in runner.invoke(app, ["--lang", "en", "explain", "embedding"]).stdout


def test_a_seed_without_a_topic_is_a_usage_error_not_ignored():
    result = runner.invoke(app, ["explain", "--seed", "3"])
    assert result.exit_code == 2
    assert "--seed" in result.stderr and "studytool explain attention --seed 3" in result.stderr
    assert "seq2seq" not in result.stdout   # no topic list as if the seed were fine


def test_an_unknown_topic_exits_1_with_suggestions():
    result = runner.invoke(app, ["explain", "layernrom"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.output.strip().splitlines() == [result.output.strip()]
    assert "layernorm" in result.output


def test_the_interface_speaks_chinese_with_lang_zh():
    out = runner.invoke(app, ["--lang", "zh", "explain", "bn"]).stdout
    assert "常见误区" in out and "算例" in out


def test_chinese_headings_use_full_width_punctuation():
    """Chinese text takes （…；…） and ：, not the half-width (…; …) and : of the English source."""
    out = runner.invoke(app, ["--lang", "zh", "explain", "attention"], env={"COLUMNS": "120"}).stdout
    lines = [line.strip(" │") for line in out.splitlines()]
    assert "算例（固定数字；生成器 attention_scores）" in lines
    assert any(line.startswith("别名：scaled dot-product attention") for line in lines)
    assert "解答：" in lines and any(line.startswith("答案：[") for line in lines)
    assert "练习这些卡片：studytool quiz --topic attention" in lines
    english = runner.invoke(app, ["--lang", "en", "explain", "attention"], env={"COLUMNS": "120"}).stdout
    assert "Worked example (pinned numbers; generator attention_scores)" in english
    assert "Also: scaled" in english and "  Answer: [" in english


def test_teacher_forcing_example_is_the_notes_shifted_right_input():
    example = pose_example(resolve("teacher forcing"))
    assert example.kind == "sequence"
    picked = [example.options[int(n) - 1] for n in example.answer.split()]
    assert picked == ["<s>", "我", "爱", "AI"]  # the notes: 解码器输入 <s> 我 爱 AI


def test_choice_options_are_lettered_and_sequence_items_numbered():
    choice = runner.invoke(app, ["explain", "decoder"]).stdout
    sequence = runner.invoke(app, ["explain", "teacher-forcing"]).stdout
    assert "A. " in choice and "B. " in choice
    assert any(f"{n}. <s>" in sequence for n in range(1, 6))
    assert not any(f"{letter}. <s>" in sequence for letter in "ABCDE")


# --- the topic graph -------------------------------------------------------------------------------


def test_explain_says_what_a_topic_needs_and_what_builds_on_it():
    lines = runner.invoke(app, ["explain", "attention"], env={"COLUMNS": "200"}).stdout.splitlines()
    assert "Needs: softmax" in lines
    assert ("Builds on it: multi-head, padding-mask, causal-mask, cross-attention, qk-projections, attention-vs-rnn, "
            "additive-attention, flash-attention") in lines
    seq2seq = runner.invoke(app, ["--lang", "zh", "explain", "seq2seq"], env={"COLUMNS": "200"}).stdout
    assert "需要先学：无" in seq2seq.splitlines()


def test_explain_graph_draws_every_topic_once_after_what_it_needs():
    result = runner.invoke(app, ["explain", "--graph"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("  ") and line.strip()]
    order = [row[0] for row in rows]
    assert sorted(order) == sorted(TOPIC_IDS)
    for row in rows:
        needs = [name.strip(",") for name in row[2:]] if len(row) > 1 else []
        assert needs == list(resolve(row[0]).requires)
        assert all(order.index(name) < order.index(row[0]) for name in needs)


def test_explain_graph_with_a_topic_is_a_usage_error():
    result = runner.invoke(app, ["explain", "--graph", "softmax"])
    assert result.exit_code == 2
    assert "--graph draws every topic" in result.stderr


# --- the LLM era (llm-interview deck): every topic and every alias explains, with a worked example ---------------

LLM_TOPICS = [topic for topic in load_topics() if topic.group == "llm"]


@pytest.mark.parametrize(("name", "topic_id"), [(name, topic.id) for topic in LLM_TOPICS for name in topic.names])
def test_every_llm_topic_and_alias_explains_with_a_live_example(name, topic_id):
    result = runner.invoke(app, ["explain", name], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    topic = resolve(name)
    assert topic.id == topic_id and topic.title in result.stdout
    example = pose_example(topic)
    assert example is not None and example.answer in result.stdout   # the engine's worked answer is on the page
    assert example.solution


def test_the_llm_topics_hang_on_the_existing_graph_and_their_examples_are_the_famous_numbers():
    ids = {topic.id for topic in LLM_TOPICS}
    assert len(ids) == 16
    assert all(topic.requires for topic in LLM_TOPICS)
    assert any(set(topic.requires) - ids for topic in LLM_TOPICS)            # edges into the notes' topics
    assert {"multi-head", "kv-cache"} <= set(resolve("gqa").requires)
    answers = {topic.id: pose_example(topic).answer for topic in LLM_TOPICS}
    assert float(answers["llm-params"].replace(",", "")) == 124_439_808        # GPT-2 small
    assert float(answers["gqa"]) == 128                                      # Llama-3-8B: 128 KiB a token in bf16

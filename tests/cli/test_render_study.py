"""What a review or quiz shows the learner (cli/render/study.py), driven through the CLI with piped answers."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from studytool.cli import app
from studytool.cli.render.study import TerminalView
from studytool.decks.model import Card
from studytool.study.summary import Progress

NOW = "2026-03-02T08:00:00+00:00"
LONG_ZH = "特征维（每个 token 自己的 d_model 个数），这是一个很长的选项，折行之后要对齐在选项文字的下面"
LONG_EN = "the batch dimension, all the samples of the batch at one position, long enough to wrap"


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_NOW", NOW)
    monkeypatch.setenv("COLUMNS", "60")
    (tmp_path / "decks").mkdir()
    return tmp_path / "decks"


def deck_file(folder, cards: str, deck: str = "drill"):
    (folder / f"{deck}.yaml").write_text(f"deck: {deck}\ntitle: 练习\nsource: 测试\ncards:\n{cards}", encoding="utf-8")
    return ["--deck-path", str(folder)]


def numbers(n: int) -> str:
    """n number cards, each answered 7, on topics with no prerequisites among them."""
    topics = ["softmax", "layernorm", "residual"]
    return "".join(f"  - id: c{i}\n    kind: number\n    topic: {topics[i]}\n    q: 3 + 4 = ?\n    answer: 7\n"
                   for i in range(n))


def invoke(args, text=""):
    return CliRunner().invoke(app, args, input=text)


def headers(screen: str) -> list[str]:
    return [line.split("]")[0] + "]" for line in screen.splitlines() if line.startswith("╭─ [")]


def test_again_counts_only_missed_cards_and_a_card_rated_good_waits_as_learning(env):
    # a new card rated Good moves to its 10-minute step and comes back too, but it was not missed
    result = invoke([*deck_file(env, numbers(3)), "--lang", "en", "review", "--deck", "drill"], "7\n8\n7\n7\n7\n7\n")
    assert result.exit_code == 0, result.output
    assert headers(result.stdout) == [
        "╭─ [1/3]", "╭─ [2/3 · 1 learning]", "╭─ [3/3 · 1 again · 1 learning]",
        "╭─ [again · 3/3 · 2 learning]",        # the miss's 1-minute step is the soonest
        "╭─ [learning · 3/3 · 2 learning]", "╭─ [learning · 3/3 · 1 learning]",
        "╭─ [learning · 3/3]"]                   # the miss rated Good: its own 10-minute step


def test_the_counter_speaks_chinese_under_zh(env):
    result = invoke([*deck_file(env, numbers(2)), "--lang", "zh", "review", "--deck", "drill"], "8\n7\n7\n7\n")
    assert headers(result.stdout)[1:3] == ["╭─ [2/2 · 1 张待重来]", "╭─ [重来 · 2/2 · 1 张学习中]"]


TRUE_FALSE = ("  - id: t\n    kind: truefalse\n    topic: softmax\n    statement: softmax 的输出之和为 1。\n"
              "    answer: true\n    opposite: softmax 的输出之和为 0。\n    why: 每一项都除以它们的和。\n")


def right_letters(args, seeds) -> dict[str, int]:
    """A seed whose showing of the true/false card is true (right letter A) and one whose is false (B)."""
    found = {}
    for seed in seeds:
        sheet = invoke([*args, "worksheet", "--deck", "drill", "--seed", str(seed), "--count", "1", "--format", "json"])
        found.setdefault(json.loads(sheet.stdout)[0]["answer"], seed)
    return found


@pytest.mark.parametrize("lang, words", [("en", {"A": "True", "B": "False"}), ("zh", {"A": "对", "B": "错"})])
def test_true_false_feedback_names_the_right_answer_as_a_word_not_a_letter(env, lang, words):
    args = deck_file(env, TRUE_FALSE)
    seeds = right_letters(args, range(1, 30))
    assert set(seeds) == {"A", "B"}   # half the showings state the opposite
    label = "Answer: " if lang == "en" else "答案："   # a full-width colon in Chinese, no space after it
    for right, seed in seeds.items():
        for typed in ("A", "B"):   # feedback after a right and after a wrong answer
            result = invoke([*args, "--lang", lang, "quiz", "--deck", "drill", "--seed", str(seed), "--count", "1"],
                            typed + "\n")
            feedback = next(line for line in result.stdout.splitlines() if line.startswith(("✓", "✗")))
            assert feedback.endswith(label + words[right]), feedback


def test_a_wrapped_option_goes_on_under_its_own_text():
    card = Card(deck="d", id="c", kind="choice", topic="layernorm",
                body={"q": "LayerNorm 沿哪一维？", "options": [LONG_ZH, LONG_EN], "answer": "A"})
    console = Console(file=io.StringIO(), width=44, color_system=None, highlight=False)
    TerminalView(console).show_card(card, card.pose(None), Progress(1, 1, again=0, repeat=False))
    inside = [line[2:-2] for line in console.file.getvalue().splitlines() if line.startswith("│")]
    starts = [i for i, line in enumerate(inside) if line.startswith(("  A. ", "  B. "))]
    assert len(starts) == 2
    for start in starts:
        rest = [line for line in inside[start + 1:]]
        wrapped = rest[:next(i for i, line in enumerate(rest) if not line.startswith(" " * 5))]
        assert wrapped and all(line[5] != " " for line in wrapped)   # each under the option's first character
        assert all(cell_len(line.rstrip()) <= 40 for line in [inside[start], *wrapped])


# --- the session's own words in the interface language -------------------------------------------------------

CONTENT = {   # every card text of the deck below: content, shown as written whatever the interface language
    "问题：3 + 4 = ?", "因为 3 + 4 = 7。", "softmax 的输出之和为 1。", "softmax 的输出之和为 0。", "每一项都除以它们的和。",
    "LayerNorm 沿哪一维归一化？", "特征维", "批维", "沿特征维，每个 token 自己。", "说出 LayerNorm 的公式。",
    "减均值，除以标准差，再乘 γ 加 β。", "对 / True", "错 / False"}
MIXED = (
    "  - id: n\n    kind: number\n    topic: softmax\n    q: 问题：3 + 4 = ?\n    answer: 7\n    why: 因为 3 + 4 = 7。\n"
    + TRUE_FALSE
    + "  - id: c\n    kind: choice\n    topic: layernorm\n    q: LayerNorm 沿哪一维归一化？\n"
      "    options: [特征维, 批维]\n    answer: A\n    why: 沿特征维，每个 token 自己。\n"
    + "  - id: r\n    kind: recall\n    topic: residual\n    q: 说出 LayerNorm 的公式。\n    a: 减均值，除以标准差，再乘 γ 加 β。\n")
# at every card: a format error, an unknown command, :help, a wrong answer or Again; then :undo, :skip and the end:
# :undo again, so that :q leaves a card due now (the steps come back later) and the session ended early
SCRIPT = "\n".join(["x y z", ":nope", ":help", "9", "C", "2", "我不知道", "1", ":undo", "我不知道", "1", ":skip",
                    "9", "B", "C", "我不知道", "1", ":undo", ":q"]) + "\n"


def session_screen(env, lang: str) -> list[str]:
    """The whole review on screen, card content taken out (each card's text as the deck writes it)."""
    result = invoke([*deck_file(env, MIXED), "--lang", lang, "review", "--deck", "drill"], SCRIPT)
    assert result.exit_code == 0, result.output
    lines = []
    for line in result.stdout.splitlines():
        line = line.strip("│╭╮╰╯─ ")
        if "> " in line:
            line = line[:line.index("> ")]   # the transcript of a prompt: what the learner typed is theirs
        for written in sorted(CONTENT, key=len, reverse=True):
            line = line.replace(written, "")
        lines.append(line)
    return [line for line in lines if line.strip()]


def test_under_en_the_session_speaks_english_around_chinese_cards(env):
    screen = session_screen(env, "en")
    said = "\n".join(screen)   # (the session ran through its steps: feedback, the summary and the outlook)
    assert all(words in said for words in ("Wrong", "Your answer", "Score", "Session ended early", "Due tomorrow"))
    chinese = [line for line in screen   # 对/错 may be typed for true/false, and the format hint says so
               if re.search(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]", line.replace("对/错", ""))]
    assert chinese == [], chinese


# Latin words the Chinese interface keeps: commands, ids and the letters one types
KEPT = {"q", "skip", "undo", "explain", "help", "studytool", "quiz", "topic", "seed", "new", "drill", "softmax",
        "layernorm", "residual", "n", "t", "c", "r", "T", "F", "A", "B", "C", "nope",
        "suspend", "bury", "flag", "info", "edit", "cards", "unsuspend", "EDITOR", "N"}   # command names stay


def test_under_zh_the_session_speaks_chinese(env):
    screen = session_screen(env, "zh")
    said = "\n".join(screen)
    assert all(words in said for words in ("错误", "你的答案", "得分", "用时", "本次学习提前结束", "明天到期"))
    english = [line for line in screen if set(re.findall(r"[A-Za-z]+", line)) - KEPT]
    assert english == [], english


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_explains_the_header_counts_on_a_header_as_a_card_shows_it(env, monkeypatch, lang):
    from studytool import i18n
    from studytool.cli.render.study import progress_text

    result = invoke([*deck_file(env, numbers(1)), "--lang", lang, "review", "--deck", "drill"], ":help\n:q\n")
    monkeypatch.setattr(i18n, "_lang", lang)
    header = progress_text(Progress(2, 20, again=1, repeat=False, learning=1))   # card 2 of 20; 1 missed, 1 step
    [line] = [line for line in result.stdout.splitlines() if line.startswith(header)]
    assert ("card 2 of 20" if lang == "en" else "第 2 张，共 20 张") in line


def test_under_zh_a_label_ends_in_a_full_width_colon(env):
    screen = session_screen(env, "zh")
    labelled = [line for line in screen if re.match(r"(?:[✓✗] \S+  )?(答案|提示|原因|得分|最薄弱的主题)", line)]
    assert labelled and all("：" in line for line in labelled), labelled
    assert not [line for line in screen if re.search(r"[\u4e00-\u9fff]: ", line)]


def test_json_summary_escapes_a_typed_c1_control_and_bidi_mark(tmp_path):
    """Issue 20, item 14: `quiz --json` showed U+009B (CSI) and U+202E raw from a typed answer."""
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "hostile.yaml").write_text("deck: hostile\ntitle: Hostile\ncards:\n  - id: one\n    kind: recall\n"
                                        "    topic: layernorm\n    q: 哪一维？\n    a: 特征维。\n", encoding="utf-8")
    env = {"STUDYTOOL_HOME": str(tmp_path), "STUDYTOOL_LANG": "en", "NO_COLOR": "1", "COLUMNS": "100", "TERM": "dumb"}
    result = CliRunner().invoke(app, ["quiz", "--deck", "hostile", "--json"], env=env,
                                input="evil\x9b31m \u202eabc\n3\n")
    assert result.exit_code == 0, result.output
    assert "\x9b" not in result.stdout and "\u202e" not in result.stdout
    assert '"answer": "evil\\u009b31m \\u202eabc"' in result.stdout
    assert json.loads(result.stdout)["cards"][0]["answer"] == "evil\x9b31m \u202eabc"   # the same data

"""quiz, review and stats end to end: the CLI driven with piped stdin, STUDYTOOL_HOME in tmp_path."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.config import Settings
from studytool.decks.loader import load_decks
from studytool.decks.select import plan
from studytool.problems.answers import format_answer
from study_fakes import drill_deck

@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    return tmp_path


def invoke(args, text=""):
    return CliRunner().invoke(app, args, input=text)


def perfect_lines(card, seed) -> list[str]:
    """What a learner who knows everything types: the canonical answer, or an attempt and 'good'."""
    variant = card.pose(seed)
    return ["我的回答", "3"] if variant.kind == "recall" else [format_answer(variant)]


def test_quiz_seed_poses_plans_cards_in_order_and_json_is_alone_on_stdout(env):
    posings = plan(load_decks(Settings()), count=6, seed=11)
    lines = [line for p in posings for line in perfect_lines(p.card, p.seed)]
    result = invoke(["quiz", "--count", "6", "--seed", "11", "--json"], "\n".join(lines) + "\n")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)  # stdout is exactly one JSON document
    assert [(c["card"], c["seed"]) for c in doc["cards"]] == [(p.card.key, p.seed) for p in posings]
    assert (doc["answered"], doc["correct"], doc["seed"]) == (6, 6, 11)
    assert "[1/6]" in result.stderr  # prompts and feedback went to stderr
    con = sqlite3.connect(env / "home" / "studytool.db")
    assert con.execute("SELECT count(*), min(mode), max(mode) FROM reviews").fetchone() == (6, "quiz", "quiz")
    assert con.execute("SELECT count(*) FROM cards").fetchone() == (0,)


@pytest.mark.parametrize("selection", [[], ["--topic", "layernorm"], ["--tag", "mistake", "--deck", "p47-encoder"]])
def test_quiz_and_worksheet_with_one_seed_pose_the_same_questions(env, selection):
    sheet = json.loads(invoke(["worksheet", *selection, "--seed", "5", "--count", "4", "--format", "json"]).stdout)
    lines = [line for q in sheet for line in (["…", "3"] if q["kind"] == "recall" else [q["answer"]])]
    quiz = invoke(["quiz", *selection, "--seed", "5", "--count", "4", "--json"], "\n".join(lines) + "\n")
    doc = json.loads(quiz.stdout)
    assert [(c["card"], c["prompt"]) for c in doc["cards"]] == [(q["card"], q["prompt"]) for q in sheet]
    assert doc["correct"] == doc["answered"] == 4  # the worksheet's answer key grades right in the quiz


def test_quiz_wrong_answer_shows_hint_answer_and_why_then_summary(env):
    drill_deck(env)
    result = invoke(["--deck-path", str(env), "quiz", "--deck", "drill", "--count", "2", "--seed", "1"],
                    "seven\n8\n7\n")
    assert result.exit_code == 0
    out = result.stdout
    assert "expected one number" in out          # the format error, asked again
    assert "Wrong" in out and "Answer: 7" in out
    assert "Score: 1/2" in out and "studytool quiz --topic" in out


def test_review_new_limit_per_day_and_stats(env):
    drill_deck(env)
    args = ["--deck-path", str(env)]
    first = invoke([*args, "review", "--deck", "drill", "--new", "4", "--json"], "7\n" * 10)
    assert json.loads(first.stdout)["answered"] == 8   # each twice: its 10-minute step is learned ahead
    again = invoke([*args, "review", "--deck", "drill", "--new", "4", "--json"], "7\n" * 10)
    assert json.loads(again.stdout)["answered"] == 0  # today's 4 new cards are used; none due yet
    more = invoke([*args, "review", "--deck", "drill", "--new", "5", "--json"], "7\n" * 10)
    assert json.loads(more.stdout)["answered"] == 2
    stats = invoke([*args, "stats", "--json"])
    doc = json.loads(stats.stdout)
    assert doc["answers_total"] == 10
    drill = next(d for d in doc["decks"] if d["deck"] == "drill")
    assert (drill["new"], drill["learning"], drill["review"]) == (1, 0, 5)
    screen = invoke([*args, "stats"]).stdout
    assert "Due in the next 30 days" in screen and "█" in screen


def test_review_recall_takes_two_lines_and_missed_card_returns(env):
    (env / "r.yaml").write_text(
        "deck: rc\ntitle: 回忆\nsource: 测试\ncards:\n"
        "  - id: a\n    kind: recall\n    topic: layernorm\n    q: LayerNorm 沿哪一维？\n    a: 特征维\n",
        encoding="utf-8")
    result = invoke(["--deck-path", str(env), "review", "--deck", "rc", "--json"], "不知道\n1\n特征维\n3\n")
    doc = json.loads(result.stdout)
    assert [(c["card"], c["rating"], c["correct"]) for c in doc["cards"]] == [("rc/a", 1, False), ("rc/a", 3, True)]


def test_bad_retention_is_a_usage_error(env):
    drill_deck(env)
    result = invoke(["--deck-path", str(env), "review", "--retention", "1.5"], "")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1] == "Error: Invalid value for '--retention': must be from 0.7 to 0.99, not 1.5"


def test_corrupt_database_is_named_and_left_untouched(env):
    db = env / "broken.db"
    db.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 20)
    before = db.read_bytes()
    for command in (["quiz"], ["review"], ["stats"]):
        result = invoke(["--db", str(db), *command], "1\n")
        assert result.exit_code == 1
        assert str(db) in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert db.read_bytes() == before


def test_ctrl_c_shows_the_summary_then_exits_130_and_eof_exits_0(env, monkeypatch):
    import studytool.cli.render.study as view

    drill_deck(env)
    args = ["--deck-path", str(env), "quiz", "--deck", "drill", "--count", "3", "--seed", "1"]
    assert invoke(args, "7\n").exit_code == 0  # input ran out: a normal end

    def interrupted_after_one(console, interactive):
        lines = ["7"]

        def ask(prompt):
            if not lines:
                raise KeyboardInterrupt  # what Ctrl-C raises at a terminal prompt
            return lines.pop(0)

        return ask

    monkeypatch.setattr(view, "make_ask", interrupted_after_one)
    result = invoke(args)
    assert result.exit_code == 130
    assert "Score: 1/1" in result.stdout
    result = invoke([*args, "--json"])
    assert result.exit_code == 130 and json.loads(result.stdout)["answered"] == 1  # JSON still alone on stdout


def test_review_with_nothing_to_ask_says_why_instead_of_an_empty_score(env):
    result = invoke(["review", "--new", "0"])
    assert result.exit_code == 0
    assert " ".join(result.stdout.split()) == (
        "Nothing to review now. Due tomorrow: 0; in the next 7 days: 0. New cards: 0 of 0 left today"
        " (use --new N for more).")
    doc = json.loads(invoke(["review", "--new", "0", "--json"]).stdout)
    assert (doc["answered"], doc["outlook"]["new_limit"], doc["outlook"]["next_due"]) == (0, 0, None)

"""`studytool decks list | show | check` as a user runs them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from studytool.cli import app
from studytool.decks.loader import bundled_sources, scan

HERE = Path(__file__).parent
GOOD = HERE / "good" / "every-kind.yaml"
BROKEN = HERE / "broken"
runner = CliRunner()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """An empty $STUDYTOOL_HOME, so only bundled decks and --deck-path count."""
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    return tmp_path


def test_check_a_good_deck():
    result = runner.invoke(app, ["decks", "check", str(GOOD)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: 1 deck, 12 cards\n"
    zh = runner.invoke(app, ["--lang", "zh", "decks", "check", str(GOOD)])
    assert zh.stdout == "通过：1 个卡组，12 张卡片\n"


def test_check_prints_every_problem_and_exits_1():
    path = BROKEN / "several-errors.yaml"
    result = runner.invoke(app, ["decks", "check", str(path)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 9
    assert lines[0] == f"{path}:4:1: unknown field 'author'"
    assert lines[-1] == f"{path}:15:5: card c3: missing 'q' (an order card needs q, items)"


@pytest.mark.parametrize("name, line", [
    ("alias-bomb.yaml", "6:8: aliases expand to more than 10000 nodes (an alias bomb?); refused"),
    ("python-tag.yaml", "7:8: card rce: q: YAML tag !!python/object/apply:os.system is not allowed"),
    ("non-utf8.yaml", "3:11: not UTF-8 text (byte 0xe9); save the file as UTF-8"),
    ("list-not-mapping.yaml", "1:1: a deck must be a mapping with deck, title and cards, not a list"),
])
def test_check_broken_decks(name, line):
    result = runner.invoke(app, ["decks", "check", str(BROKEN / name)])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{BROKEN / name}:{line}")
    assert "Traceback" not in result.output


def test_check_a_folder_reports_each_file():
    result = runner.invoke(app, ["decks", "check", str(BROKEN)])
    assert result.exit_code == 1
    files = {line.split(":")[0] for line in result.stdout.splitlines()}
    assert files == {str(path) for path in BROKEN.glob("*.yaml")}


def test_check_without_paths_checks_the_installed_decks():
    installed = scan(bundled_sources())
    result = runner.invoke(app, ["decks", "check"])
    assert result.exit_code == 0, result.output
    assert len(installed.decks) > 1
    assert result.stdout == f"ok: {len(installed.decks)} decks, {installed.cards} cards\n"
    result = runner.invoke(app, ["--deck-path", str(GOOD), "decks", "check"])
    assert result.stdout == f"ok: {len(installed.decks) + 1} decks, {installed.cards + 12} cards\n"


def test_a_deck_in_the_home_folder_is_installed(home):
    (home / "decks").mkdir()
    (home / "decks" / "mine.yaml").write_text(GOOD.read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, ["decks", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert "every-kind" in [entry["deck"] for entry in json.loads(result.stdout)]


def test_list_json():
    result = runner.invoke(app, ["--deck-path", str(GOOD), "decks", "list", "--json"])
    assert result.exit_code == 0, result.output
    decks = json.loads(result.stdout)
    mine = decks[-1]
    assert mine == {"deck": "every-kind", "title": "每种题型各一张", "source": "tests", "file": str(GOOD),
                    "cards": 12, "kinds": {"recall": 1, "choice": 2, "truefalse": 1, "number": 2, "vector": 2,
                                           "shape": 1, "order": 1, "generated": 2}}
    assert all({"deck", "title", "cards"} <= set(entry) for entry in decks)


def test_list_table():
    result = runner.invoke(app, ["--deck-path", str(GOOD), "decks", "list"])
    assert result.exit_code == 0, result.output
    assert "every-kind" in result.stdout and "每种题型各一张" in result.stdout


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_list_keeps_every_deck_id_whole_at_any_width(columns):
    """The deck id is what --deck takes: never cut; title and kinds wrap, the source goes when narrow."""
    result = runner.invoke(app, ["decks", "list"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    ids = [cell for line in result.stdout.splitlines() if line.startswith("│")
           for cell in [line.split("│")[1].strip()] if cell]
    assert ids == [deck.deck for deck in scan(bundled_sources()).decks]
    assert max(cell_len(line) for line in result.stdout.splitlines()) <= columns
    assert ("Source" in result.stdout) == (columns >= 120)


def test_show_lists_the_cards():
    result = runner.invoke(app, ["--deck-path", str(GOOD), "decks", "show", "every-kind"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for card_id in ("ln-direction", "encoder-order", "ln-vector"):
        assert card_id in result.stdout
    assert "x = [2, 4, 6, 8]" in result.stdout   # a generated card reads as its example poses it (deck: x: [2, 4, 6, 8])
    assert "layer_norm(" not in result.stdout


def test_show_json_has_every_field():
    result = runner.invoke(app, ["--deck-path", str(GOOD), "decks", "show", "every-kind", "--json"])
    shown = json.loads(result.stdout)
    assert shown["deck"] == "every-kind" and len(shown["cards"]) == 12
    assert shown["cards"][1] == {"id": "ln-batch-free", "kind": "choice", "topic": "bn-vs-ln",
                                 "tags": ["mistake", "interview"], "source": "", "why": "它们只看单个样本。",
                                 "q": "哪些归一化与 batch 大小无关？", "options": ["BatchNorm", "LayerNorm", "RMSNorm", "都有关"],
                                 "answer": ["B", "C"]}


def test_show_an_unknown_deck_is_a_one_line_error():
    result = runner.invoke(app, ["decks", "show", "nope"])
    assert result.exit_code == 1
    assert result.stderr.startswith("studytool: unknown deck 'nope'; decks: ")
    assert len(result.stderr.splitlines()) == 1


def test_a_broken_extra_deck_stops_other_commands_cleanly():
    path = BROKEN / "duplicate-ids.yaml"
    result = runner.invoke(app, ["--deck-path", str(path), "decks", "list"])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: {path}:14:9: card same: duplicate card id (first used on line 4)\n"


def test_check_in_a_real_process(home):
    """The installed entry point: exit status 1 and the messages, no traceback."""
    path = BROKEN / "unknown-kind.yaml"
    done = subprocess.run([sys.executable, "-m", "studytool", "decks", "check", str(path)],
                          capture_output=True, text=True, encoding="utf-8")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith(f"{path}:5:11: card c1: unknown kind 'multiple-choice'")
    assert done.stderr == ""


def test_check_a_new_deck_against_the_installed_deck_ids(tmp_path):
    taken = scan(bundled_sources()).decks[0]
    mine = tmp_path / "copy.yaml"
    mine.write_text(GOOD.read_text(encoding="utf-8").replace("deck: every-kind", f"deck: {taken.deck}"),
                    encoding="utf-8")
    result = runner.invoke(app, ["decks", "check", str(mine)])
    assert result.exit_code == 1
    assert result.stdout == f"{mine}:2:7: deck id '{taken.deck}' is already used by {taken.file}\n"


def test_check_the_bundled_folder_by_path():
    folder = Path(str(bundled_sources()[0])).parent
    result = runner.invoke(app, ["decks", "check", str(folder)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: ")


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_show_keeps_every_card_id_whole_at_any_width(home, columns):
    """Piped or narrow, the id column is never cut; the question gives way (and kind, topic, tags if need be)."""
    deck = next(d for d in scan(bundled_sources()).decks if d.deck == "p47-encoder")
    done = subprocess.run([sys.executable, "-m", "studytool", "decks", "show", "p47-encoder"],
                          capture_output=True, text=True, encoding="utf-8",
                          env={**os.environ, "COLUMNS": str(columns), "STUDYTOOL_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == [card.id for card in deck.cards]
    assert max(cell_len(line) for line in done.stdout.splitlines()) <= columns
    if columns >= 120:
        assert "interview" in done.stdout or "fact" in done.stdout   # room for the tags column too


@pytest.mark.parametrize("command", [["stats"], ["explain", "layernorm"], ["quiz", "--count", "1"], ["decks", "list"]])
def test_a_deck_with_many_problems_is_one_line_outside_decks_check(home, command):
    (home / "decks").mkdir()
    bad = home / "decks" / "bad.yaml"
    bad.write_text((BROKEN / "several-errors.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, command)
    assert result.exit_code == 1
    assert result.stderr == (f"studytool: {bad}: 9 problems in the deck (first: 4:1: unknown field 'author'); "
                             f"run 'studytool decks check {bad}'\n")
    checked = runner.invoke(app, ["decks", "check", str(bad)])
    assert checked.exit_code == 1 and len(checked.stdout.splitlines()) == 9


def test_check_speaks_chinese_with_lang_zh():
    path = BROKEN / "several-errors.yaml"
    lines = runner.invoke(app, ["--lang", "zh", "decks", "check", str(path)]).stdout.splitlines()
    assert lines[0] == f"{path}:4:1: 未知字段 'author'"
    assert lines[3] == (f"{path}:9:5: 卡片 c1：recall 卡片没有字段 'answer'（recall 卡片有 'q' 和参考答案 'a'）")
    result = runner.invoke(app, ["--lang", "zh", "--deck-path", str(path), "stats"])
    assert result.stderr.startswith(f"studytool: {path}：卡组有 9 处问题（第一处：4:1: 未知字段 'author'）；运行 ")


@pytest.mark.parametrize("command", [["stats"], ["quiz", "--count", "1"], ["decks", "list"]])
def test_a_file_named_decks_in_the_home_is_one_line_not_ignored(home, command):
    (home / "decks").write_text("deck: mine\n", encoding="utf-8")
    result = runner.invoke(app, command, input="")
    assert result.exit_code == 1
    assert result.stderr == f"studytool: {home / 'decks'} is a file; your own decks go in a folder of that name\n"
    assert (home / "decks").read_text(encoding="utf-8") == "deck: mine\n"
    assert sorted(p.name for p in home.iterdir()) == ["decks"]   # no database started


@pytest.mark.parametrize("command", [["stats"], ["decks", "list"]])
def test_a_missing_deck_path_is_one_line(tmp_path, command):
    missing = tmp_path / "nowhere" / "mine.yaml"
    result = runner.invoke(app, ["--deck-path", str(missing), *command])
    assert result.exit_code == 1
    assert result.stderr == f"studytool: {missing}: cannot read the file: No such file or directory\n"

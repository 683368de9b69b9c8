"""Loading decks: a good deck becomes Cards; every broken deck gets its exact FILE:LINE:COL messages."""

import math
import os
import re
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studytool.config import Settings
from studytool.decks.loader import (
    MAX_BYTES,
    DeckError,
    Scan,
    bundled_sources,
    expand,
    load_deck_file,
    load_decks,
    scan,
)
from studytool.errors import StudytoolError

HERE = Path(__file__).parent


def check(paths) -> list[str]:
    """The problems of these deck files and folders, as `studytool decks check FILE` lists them."""
    notes = Scan()
    return scan(expand(paths, notes), notes=notes).problems


GOOD = HERE / "good" / "every-kind.yaml"
BROKEN = HERE / "broken"

REORDERS = ("invisible character U+{code} is not allowed in deck text: it reorders or hides what is shown "
            "(bidirectional controls, zero-width spaces)")

HIDES = ("character U+{code} is not allowed in deck text: it hides or splits what is shown (tag characters, line "
         "and paragraph separators, interlinear annotations)")

# Each broken deck and the problems it must report, in file order, without the
# "FILE:" prefix. A message ending in " ..." is a prefix: the rest is the
# generator registry's own wording. YAML syntax errors are worded by libyaml.
CORPUS = {
    "alias-bomb.yaml": ["6:8: aliases expand to more than 10000 nodes (an alias bomb?); refused"],
    "bad-indent.yaml": ["3:8: invalid YAML: mapping values are not allowed in this context"],
    "bad-yaml.yaml": ["7:7: invalid YAML: while parsing a flow sequence: did not find expected ',' or ']'"],
    "duplicate-ids.yaml": ["14:9: card same: duplicate card id (first used on line 4)"],
    "escapes.yaml": [   # ESC, C1 CSI, OSC 0/8/52, BEL, CR and NEL written as YAML escapes; tab and newline are fine
        "2:8: title: control character U+001B is not allowed in deck text (only newline and tab are)",
        "7:8: card clear-screen: q: control character U+001B is not allowed in deck text (only newline and tab are)",
        "13:15: card clipboard: options: control character U+001B is not allowed in deck text (only newline and tab are)",
        "18:10: card c1-csi: why: control character U+009B is not allowed in deck text (only newline and tab are)",
        "20:8: card c1-csi: a: control character U+001B is not allowed in deck text (only newline and tab are)",
        "25:14: card key-escape: params: control character U+0007 is not allowed in deck text (only newline and tab are)",
        "29:8: card nel-and-cr: q: control character U+000D is not allowed in deck text (only newline and tab are)",
        "30:8: card nel-and-cr: a: control character U+0085 is not allowed in deck text (only newline and tab are)",
    ],
    "empty-cards.yaml": ["3:8: cards is empty; a deck needs at least one card"],
    "empty.yaml": ["1:1: the file is empty; a deck is a mapping with deck, title and cards"],
    "hiding.yaml": [   # issue 20: tag characters (raw or escaped), U+2028/2029, U+FFF9-FFFB, U+180E, 33 marks in a row
        "2:8: title: " + HIDES.format(code="E0065"),
        "7:8: card line-separator: q: " + HIDES.format(code="2028"),
        "8:8: card line-separator: a: " + HIDES.format(code="2029"),
        "13:15: card annotation: options: " + HIDES.format(code="FFF9"),
        "21:10: card mongolian: why: " + HIDES.format(code="180E"),
        "25:8: card raw-tags: q: " + HIDES.format(code="E0069"),
        "30:8: card zalgo: q: more than 30 combining marks in a row are not allowed in deck text: they pile up over "
        "one character and hide the lines around it",
    ],
    "huge-numbers.yaml": [   # refused before conversion: no int() of 5,000 digits, no float() overflow
        "8:13: card many-digits: answer: a number written with more than 100 characters is not allowed",
        "13:19: card vector-overflow: answer: a number written with more than 100 characters is not allowed",
        "19:16: card tolerance-overflow: tolerance: a number written with more than 100 characters is not allowed",
        "24:20: card param-digits: params: a number written with more than 100 characters is not allowed",
        "29:13: card long-float: answer: a number written with more than 100 characters is not allowed",
        "34:13: card at-the-limit: answer: must be at most 1e15 in size (what float64 holds exactly and a learner "
        "can type), got 99999999999999999999…",
    ],
    "number-bounds.yaml": [   # decks check refuses what grading could not show or type back
        "7:88: card huge-tolerance: tolerance: must be at most 1e15 in size (what float64 holds exactly and a "
        "learner can type), got 1.0e+308",
        "8:70: card huge-vector: answer: must be at most 1e15 in size (what float64 holds exactly and a learner "
        "can type), got 1.0e+308",
        "9:67: card just-past: answer: must be at most 1e15 in size (what float64 holds exactly and a learner can "
        "type), got 1000000000000001",
        "10:86: card tiny-tolerance: tolerance: must be 0 (exact) or at least 1e-9: a float64 answer has no finer "
        "digits to grade, got 1e-12",
        "11:70: card yaml-12-huge: answer: must be at most 1e15 in size (what float64 holds exactly and a learner "
        "can type), got 1e308",
        "12:64: card quoted: answer: must be a number, got text",
    ],
    "list-not-mapping.yaml": ["1:1: a deck must be a mapping with deck, title and cards, not a list"],
    "missing-fields.yaml": [
        "1:1: missing 'title' (a deck needs deck, title and cards)",
        "3:5: card c1: missing 'a' (a recall card needs q, a)",
        "7:5: card c2: missing 'topic', 'options', 'answer' (a choice card needs q, options, answer)",
        "10:5: card #3: missing 'id', 'kind' (every card needs id, kind, topic)",
        "12:5: card tf: missing 'opposite', 'why' (a truefalse card needs statement, answer, opposite, why)",
    ],
    "more-errors.yaml": [
        "8:5: card dup-key: field 'q' is given twice",
        "10:5: card #2: a card must be a mapping (id: ..., kind: ...), not text",
        "13:12: card bad-topic: unknown topic 'layer-norm'; did you mean layernorm? (see 'studytool explain')",
        "21:13: card bad-letter: answer C is not among the 2 options (A to B)",
        "25:23: card bad-tags: tags: unknown tag 'exam'; tags are self-test, interview, mistake, example, extra, "
        "fact; did you mean example?",
        "32:12: card short-order: items: must have 3 to 8 entries, got 2",
        "37:20: card same-option: options: 'one' is listed twice",
        "43:14: card merged: params: merge keys (<<) are not supported; write the fields out",
        "48:13: card not-a-number: answer: must be a finite number",
        "53:13: card text-tf: answer: must be true or false, got text",
    ],
    "no-cards.yaml": ["1:1: missing 'cards' (a deck needs deck, title and cards)"],
    "non-utf8.yaml": ["3:11: not UTF-8 text (byte 0xe9); save the file as UTF-8"],
    "reordering.yaml": [   # bidi overrides, isolates and marks, zero-width spaces, raw or escaped; ZWJ and ZWNJ pass
        "2:8: title: " + REORDERS.format(code="202E"),
        "7:8: card rlo-escaped: q: " + REORDERS.format(code="202E"),
        "13:15: card isolate: options: " + REORDERS.format(code="2067"),
        "18:8: card marks: q: " + REORDERS.format(code="200E"),
        "19:8: card marks: a: " + REORDERS.format(code="200F"),
        "23:8: card zero-width: q: " + REORDERS.format(code="200B"),
        "24:8: card zero-width: a: " + REORDERS.format(code="2060"),
        "33:5: card in-a-key: " + REORDERS.format(code="202A"),
    ],
    "python-tag-root.yaml": [
        "1:1: YAML tag !!python/object:studytool.decks.model.Deck is not allowed (a deck is plain data)"
    ],
    "python-tag.yaml": [
        "7:8: card rce: q: YAML tag !!python/object/apply:os.system is not allowed (a deck is plain data)"
    ],
    "recursive-alias.yaml": ["6:12: recursive alias *me (it refers to itself)"],
    "scalar-top.yaml": ["1:1: a deck must be a mapping with deck, title and cards, not text"],
    "several-errors.yaml": [
        "4:1: unknown field 'author'",
        "6:5: card c1: missing 'q', 'a' (a recall card needs q, a)",
        "8:12: card c1: topic: must be text, got a list",
        "9:5: card c1: unknown field 'answer' for a recall card (recall cards have 'q' and the reference answer 'a')",
        "10:5: card #2: missing 'q' (a choice card needs q, options, answer)",
        "10:9: card #2: id: 'Bad_Id' is not a valid id (lowercase letters, digits and hyphens, e.g. ln-direction)",
        "13:14: card #2: options: must have 2 to 8 entries, got 1",
        "14:13: card #2: answer: 'Z' is not an option letter (A, B, C ...)",
        "15:5: card c3: missing 'q' (an order card needs q, items)",
    ],
    "two-documents.yaml": [
        "4:1: invalid YAML: expected a single document in the stream: but found another document"
    ],
    "unknown-generator.yaml": [
        "7:16: card g1: unknown generator 'layer_nrom'; did you mean layer_norm?",
        "11:16: card g2: unknown generator 'quantum_fourier'",
    ],
    "unknown-kind.yaml": [
        "5:11: card c1: unknown kind 'multiple-choice'; kinds are recall, choice, truefalse, number, vector, shape, "
        "order, generated",
        "11:11: card c2: unknown kind 'recal'; kinds are recall, choice, truefalse, number, vector, shape, order, "
        "generated; did you mean recall?",
    ],
    "unknown-parameter.yaml": [
        "8:14: card g1: params: unknown parameter 'bogus' for layer_norm ...",
        "13:14: card g2: params: size: ...",
        "19:15: card g3: example: x: ...",
    ],
    "wrong-types.yaml": [
        "8:11: card c1: tags: must be a list, got text",
        "9:8: card c1: q: must be text, got an integer",
        "10:8: card c1: a: must be text, got a list",
        "15:14: card c2: options: must be a list, got text",
        "16:13: card c2: answer: must be a letter, got an integer",
        "21:13: card c3: answer: must be a number, got text",
        "22:16: card c3: tolerance: must not be negative",
        "27:19: card c4: answer: must be a number, got text",
        "32:21: card c5: answer: must be a positive integer, got 10.5",
        "37:13: card c6: answer: must be true or false, got text",
    ],
}


def assert_problems(got: list[str], path: Path, expected: list[str]) -> None:
    assert len(got) == len(expected), "\n".join(got)
    for line, want in zip(got, expected):
        want = f"{path}:{want}"
        if want.endswith(" ..."):
            assert line.startswith(want[:-4]), line
        else:
            assert line == want


def test_the_corpus_is_complete():
    assert sorted(p.name for p in BROKEN.glob("*.yaml")) == sorted(CORPUS)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_broken_deck_reports_every_problem_at_its_line(name):
    path = BROKEN / name
    assert_problems(check([path]), path, CORPUS[name])


@pytest.mark.parametrize("name", ["missing-fields.yaml", "alias-bomb.yaml", "python-tag.yaml"])
def test_load_deck_file_raises_one_deck_error_with_all_problems(name):
    path = BROKEN / name
    with pytest.raises(DeckError) as caught:
        load_deck_file(path)
    assert isinstance(caught.value, StudytoolError)
    assert_problems(caught.value.problems, path, CORPUS[name])
    assert str(caught.value).splitlines() == [str(caught.value)]   # the message is one line


def test_a_deck_error_message_is_one_line_naming_the_count_the_first_problem_and_the_check_command(tmp_path):
    path = BROKEN / "several-errors.yaml"
    with pytest.raises(DeckError) as caught:
        load_deck_file(path)
    assert len(caught.value.problems) == 9
    assert str(caught.value) == (f"{path}: 9 problems in the deck (first: 4:1: unknown field 'author'); "
                                 f"run 'studytool decks check {path}'")
    other = BROKEN / "unknown-kind.yaml"
    with pytest.raises(DeckError) as caught:
        load_decks(Settings(home=tmp_path, deck_paths=[path, other]))
    assert str(caught.value).startswith(f"{path}: 9 problems in the deck (first: 4:1: ")
    assert str(caught.value).endswith("; run 'studytool decks check' for every problem in 2 files")
    assert caught.value.problems[-1].startswith(f"{other}:")


def test_every_kind_loads_with_its_fields():
    deck = load_deck_file(GOOD)
    assert (deck.deck, deck.title, deck.source, deck.file) == ("every-kind", "每种题型各一张", "tests", str(GOOD))
    cards = {card.id: card for card in deck.cards}
    assert [card.kind for card in deck.cards] == [
        "recall", "choice", "choice", "truefalse", "number", "number", "vector", "vector", "shape", "order",
        "generated", "generated",
    ]
    assert deck.kinds == {"recall": 1, "choice": 2, "truefalse": 1, "number": 2, "vector": 2, "shape": 1,
                          "order": 1, "generated": 2}
    recall = cards["ln-direction"]
    assert (recall.deck, recall.topic, recall.tags, recall.source, recall.line) == (
        "every-kind", "layernorm", ("interview",), "讲义 p19", 6)
    assert recall.body == {"q": "LayerNorm 在哪个方向上求均值和方差？", "a": "在单个 token 的特征维上。"}
    assert recall.key == "every-kind/ln-direction"
    assert cards["ln-batch-free"].body["answer"] == ["B", "C"]
    assert cards["ln-batch-free"].why == "它们只看单个样本。"
    assert cards["residual-shape"].body == {"statement": "残差连接要求子层的输入和输出形状不同。", "answer": False,
                                            "opposite": "残差连接要求子层的输入和输出形状相同。"}
    assert cards["sqrt-dk"].body == {"q": "d_k=64 时缩放因子 1/√d_k 是多少？", "answer": 0.125, "tolerance": 0.001}
    assert cards["score-shape"].body["answer"] == [32, 8, 10, 10]
    assert cards["ln-vector"].body == {"generator": "layer_norm", "params": {"size": 4}, "example": {"x": [2, 4, 6, 8]}}
    assert cards["softmax-plain"].body == {"generator": "softmax"}


def test_file_size_is_limited(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("deck: huge\ntitle: Huge\ncards:\n" + "# padding\n" * (MAX_BYTES // 10))
    assert check([path]) == [f"{path}:1:1: file is larger than 4 MiB; split the deck"]


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.read_bytes())
    assert len(load_deck_file(path).cards) == 12


def test_a_few_aliases_are_fine(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text(
        "deck: anchors\ntitle: Anchors\ncards:\n"
        "  - {id: a, kind: generated, topic: layernorm, generator: layer_norm, params: &p {size: 4}}\n"
        "  - {id: b, kind: generated, topic: layernorm, generator: layer_norm, params: *p}\n"
    )
    deck = load_deck_file(path)
    assert [card.body["params"] for card in deck.cards] == [{"size": 4}, {"size": 4}]


def test_a_missing_file_is_a_problem_not_a_crash(tmp_path):
    path = tmp_path / "nowhere.yaml"
    assert check([path]) == [f"{path}: cannot read the file: No such file or directory"]


def test_duplicate_deck_ids_across_files(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    text = GOOD.read_text(encoding="utf-8")
    first.write_text(text, encoding="utf-8")
    second.write_text("# the same deck again\n" + text, encoding="utf-8")
    result = scan(expand([tmp_path]))
    assert [deck.file for deck in result.decks] == [str(first)]
    assert result.problems == [f"{second}:3:7: deck id 'every-kind' is already used by {first}"]


def test_folders_hold_yaml_decks_but_not_topics(tmp_path):
    for name in ("b.yaml", "a.yml", "topics.yaml", "notes.txt"):
        (tmp_path / name).write_text("")
    assert expand([tmp_path, tmp_path / "c.yaml"]) == [tmp_path / "a.yml", tmp_path / "b.yaml", tmp_path / "c.yaml"]


def test_installed_decks_are_bundled_then_user_then_deck_paths(tmp_path):
    home = tmp_path / "home"
    (home / "decks").mkdir(parents=True)
    user = (GOOD.read_text(encoding="utf-8").replace("deck: every-kind", "deck: mine"))
    (home / "decks" / "mine.yaml").write_text(user, encoding="utf-8")
    decks = load_decks(Settings(home=home, deck_paths=[GOOD]))
    bundled = [source.name for source in bundled_sources()]
    assert len(decks) == len(bundled) + 2
    assert [deck.deck for deck in decks[-2:]] == ["mine", "every-kind"]
    assert "topics.yaml" not in bundled and "schema.json" not in bundled


def test_a_broken_user_deck_stops_loading_with_its_problems(tmp_path):
    with pytest.raises(DeckError) as caught:
        load_decks(Settings(home=tmp_path, deck_paths=[BROKEN / "duplicate-ids.yaml"]))
    assert caught.value.problems == [
        f"{BROKEN / 'duplicate-ids.yaml'}:14:9: card same: duplicate card id (first used on line 4)"
    ]


def test_the_bundled_decks_check_clean(tmp_path):
    result = scan(bundled_sources())
    assert result.problems == []
    assert result.decks, "no bundled decks"
    assert result.cards >= 120   # issue 4: at least 120 cards


def test_control_characters_are_refused_at_their_position(tmp_path):
    path = tmp_path / "bell.yaml"
    path.write_bytes("deck: bell\ntitle: 中\x07\ncards: []\n".encode())
    assert check([path]) == [f"{path}:2:9: invalid YAML: control characters are not allowed (U+0007)"]


@pytest.mark.parametrize("depth", [500, 995, 5000])
def test_deep_nesting_is_refused_without_a_crash(tmp_path, depth):
    path = tmp_path / "deep.yaml"
    path.write_text("deck: deep\ntitle: Deep\ncards:\n  - id: a\n    kind: generated\n    topic: softmax\n"
                    f"    generator: softmax\n    params: {{x: {'[' * depth}{']' * depth}}}\n")
    problems = check([path])
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}:8:")
    assert problems[0].endswith(("params: nested more than 8 levels deep", "exceeded maximum nesting depth"))


def test_the_readme_example_deck_checks_clean(tmp_path):
    readme = (HERE.parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Writing your own deck", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "my.yaml"
    path.write_text(example, encoding="utf-8")
    deck = load_deck_file(path)
    assert (deck.deck, [card.kind for card in deck.cards]) == ("my-notes", ["recall", "generated"])


def test_the_readme_field_table_has_a_row_for_every_kind():
    from studytool.decks.validate import KINDS

    section = (HERE.parent.parent / "README.md").read_text(encoding="utf-8").split("## Writing your own deck", 1)[1]
    rows = re.findall(r"^\| `([a-z]+)` \|", section.split("\n## ", 1)[0], flags=re.MULTILINE)
    assert rows == list(KINDS)


def test_a_file_named_twice_is_read_once(tmp_path):
    (tmp_path / "decks").mkdir()
    mine = tmp_path / "decks" / "mine.yaml"
    mine.write_text(GOOD.read_text(encoding="utf-8"), encoding="utf-8")
    decks = load_decks(Settings(home=tmp_path, deck_paths=[mine, tmp_path / "decks"]))
    assert [deck.file for deck in decks].count(str(mine)) == 1


@pytest.mark.parametrize("card, messages", [
    ("kind: order\n    q: 顺序？\n    items: [a, b, c]\n    answer: [1, 2, 3]",
     ["9:5: card c: unknown field 'answer' for an order card (order cards list 'items' in the right order; "
      "they have no 'answer')"]),
    ("kind: truefalse\n    q: 对吗？\n    statement: s\n    answer: true\n    opposite: o\n    why: w",
     ["7:5: card c: unknown field 'q' for a truefalse card (truefalse cards have 'statement', 'answer' "
      "(true or false), 'opposite' (the statement with the other truth value) and 'why'; no 'q')"]),
    ("kind: choice\n    q: 哪个？\n    options: [x, y]\n    a: A",
     ["4:5: card c: missing 'answer' (a choice card needs q, options, answer)",
      "9:5: card c: unknown field 'a' for a choice card (choice cards have 'q', 'options', 'answer' "
      "(a letter, or a list of letters) and an optional 'pin' (letters of options that stay in place when the "
      "options are shuffled))"]),
    ("kind: recall\n    q: 什么？\n    a: 这个\n    tolerence: 1",   # no kind has it: no kind hint
     ["9:5: card c: unknown field 'tolerence' for a recall card"]),
])
def test_a_field_of_another_kind_says_where_this_kind_keeps_its_answer(tmp_path, card, messages):
    path = tmp_path / "mixed.yaml"
    path.write_text(f"deck: mixed\ntitle: M\ncards:\n  - id: c\n    topic: layernorm\n    {card}\n", encoding="utf-8")
    assert check([path]) == [f"{path}:{message}" for message in messages]


# --- hostile folders and paths -------------------------------------------------------------------------------


@pytest.fixture
def hostile_folder(tmp_path):
    """A decks folder with one good deck and every kind of entry that is not one."""
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "good.yaml").write_text(GOOD.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "notes.txt").write_text("not a deck, and not meant as one")
    (folder / ".hidden.yaml.swp").write_text("an editor's")
    (folder / "LOUD.YAML").write_text(GOOD.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "sub.yaml").mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (folder / "loop.yaml").symlink_to(folder / "loop.yaml")
    (folder / "linked.yml").symlink_to(folder / "good.yaml")   # a link to a deck is that deck, read once
    return folder


def skipped_lines(folder):
    return [
        f"{folder / 'LOUD.YAML'}: skipped: deck files end in lowercase .yaml or .yml",
        f"{folder / 'dangling.yaml'}: skipped: a symbolic link to {folder.parent / 'nowhere.yaml'}, which does not exist",
        f"{folder / 'loop.yaml'}: skipped: a symbolic link that loops",
        f"{folder / 'pipe.yaml'}: skipped: a named pipe (FIFO), not a regular file",
        f"{folder / 'sub.yaml'}: skipped: a folder (decks in sub-folders are not read)",
    ]


def test_decks_check_lists_every_skipped_entry(hostile_folder):
    with alarm(10):
        assert check([hostile_folder]) == skipped_lines(hostile_folder)


def test_other_commands_load_the_good_decks_and_warn_once_per_entry(hostile_folder, tmp_path):
    import warnings

    from studytool.errors import StudytoolWarning

    settings = Settings(home=tmp_path)   # tmp_path/decks is the user's deck folder
    with warnings.catch_warnings(record=True) as caught, alarm(10):
        warnings.simplefilter("default")
        decks = load_decks(settings)
        load_decks(settings)   # a second load in the same command says nothing new
    assert [deck.file for deck in decks if deck.deck == "every-kind"] == [str(hostile_folder / "good.yaml")]
    assert [str(w.message) for w in caught if issubclass(w.category, StudytoolWarning)] == skipped_lines(hostile_folder)


@contextmanager
def alarm(seconds):
    """Fail instead of hanging: a FIFO opened for reading blocks until a writer comes."""
    def hung(*args):
        raise TimeoutError("blocked reading")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_fifo_named_as_a_deck_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "some.fifo"
    os.mkfifo(fifo)
    with alarm(10), pytest.raises(DeckError) as caught:
        load_decks(Settings(home=tmp_path / "home", deck_paths=[fifo]))
    assert str(caught.value) == f"{fifo}: not a deck file: a named pipe (FIFO)"


def test_a_device_named_as_a_deck_is_refused(tmp_path):
    with alarm(10):
        assert check([Path("/dev/zero")]) == ["/dev/zero: not a deck file: a device"]


def test_an_unreadable_decks_folder_is_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "decks"
    folder.mkdir()
    real = os.scandir

    def denied(path="."):
        if Path(path) == folder:   # root reads any folder, so the refusal is simulated
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", denied)
    with pytest.raises(StudytoolError) as caught:
        load_decks(Settings(home=tmp_path))
    assert str(caught.value) == f"{folder}: cannot read the folder: Permission denied"
    assert check([folder]) == [f"{folder}: cannot read the folder: Permission denied"]


# --- hostile text and numbers, fuzzed ------------------------------------------------------------------------

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def yaml_quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar, every non-printable character as a \\uXXXX escape."""
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" if ord(c) < 0x10000
                         else f"\\U{ord(c):08x}" for c in text) + '"'


@pytest.mark.parametrize("code", [0x061C, 0x200B, 0x200E, 0x200F, *range(0x202A, 0x202F), 0x2060,
                                  *range(0x2066, 0x206A), 0xFEFF])
def test_every_character_that_reorders_or_hides_text_is_refused_at_its_place(tmp_path, code):
    path = tmp_path / "bidi.yaml"
    path.write_text(f'deck: bidi\ntitle: "Big \\u{code:04x}evil"\ncards:\n'
                    "  - {id: r, kind: recall, topic: layernorm, q: q, a: a}\n", encoding="utf-8")
    assert check([path]) == [f"{path}:2:8: title: " + REORDERS.format(code=f"{code:04X}")]


def test_numbers_with_an_exponent_yaml_1_1_reads_as_text_are_numbers(tmp_path):
    # PyYAML wants a dot and a signed exponent (1.0e-6); YAML 1.2, JSON and the schema's editors read 1e-6 too
    path = tmp_path / "exponents.yaml"
    path.write_text(
        "deck: exponents\ntitle: E\ncards:\n"
        "  - {id: n, kind: number, topic: layernorm, q: q, answer: 1.5e3, tolerance: 1e-6}\n"
        "  - {id: v, kind: vector, topic: layernorm, q: q, answer: [2E+3, -5e-1, .5e1]}\n"
        "  - {id: g, kind: generated, topic: layernorm, generator: layer_norm, example: {x: [1e0, 2, 3, 4]}}\n",
        encoding="utf-8")
    number, vector, generated = load_deck_file(path).cards
    assert number.body == {"q": "q", "answer": 1500.0, "tolerance": 1e-6}
    assert vector.body["answer"] == [2000.0, -0.5, 5.0]
    assert generated.body["example"] == {"x": [1.0, 2, 3, 4]}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.floats(allow_nan=False, allow_infinity=False), upper=st.booleans())
def test_any_float_in_exponent_form_is_its_number_or_refused_past_the_bound(tmp_path, value, upper):
    written = f"{value:e}".replace("e", "E" if upper else "e").replace("e+", "e").replace("E+", "E")  # 1.5e3, no sign
    path = tmp_path / "one.yaml"
    path.write_text(f"deck: one\ntitle: One\ncards:\n  - {{id: n, kind: number, topic: layernorm, q: q, "
                    f"answer: {written}}}\n", encoding="utf-8")
    try:
        card, = load_deck_file(path).cards
    except DeckError as error:
        assert abs(float(written)) > 1e15
        assert len(error.problems) == 1
        assert re.fullmatch(re.escape(f"{path}:4:") + r"\d+: card n: answer: must be at most 1e15 in size .*",
                            error.problems[0])
        return
    assert card.body["answer"] == float(written)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(q=st.text(max_size=30), a=st.text(max_size=10), digits=st.integers(1, 6000))
def test_hostile_text_and_numbers_load_clean_or_fail_at_their_place(tmp_path, q, a, digits):
    """Whatever the strings and however long the numbers: a deck without control characters, or FILE:LINE:COL."""
    path = tmp_path / "fuzz.yaml"
    path.write_text(
        "deck: fuzz\ntitle: Fuzz\ncards:\n"
        f"  - {{id: r, kind: recall, topic: layernorm, q: {yaml_quoted(q)}, a: {yaml_quoted(a)}}}\n"
        f"  - {{id: n, kind: vector, topic: layernorm, q: n, answer: [1, {'7' * digits}], tolerance: {'3' * digits}}}\n",
        encoding="utf-8")
    try:
        deck = load_deck_file(path)
    except DeckError as error:
        for problem in error.problems:
            assert re.match(re.escape(str(path)) + r":[2-5]:\d+: card [rn]: ", problem), problem
        return
    texts = [deck.title, *(str(value) for card in deck.cards for value in card.body.values())]
    assert not any(CONTROL.search(text) for text in texts)
    assert digits <= 100 and all(math.isfinite(v) for v in deck.cards[1].pose().answer)


def test_a_decks_folder_that_is_a_broken_link_is_said(tmp_path):
    (tmp_path / "decks").symlink_to(tmp_path / "gone")
    with pytest.warns(Warning) as caught:
        load_decks(Settings(home=tmp_path))
    assert [str(w.message) for w in caught] == [
        f"{tmp_path / 'decks'}: skipped: a symbolic link to {tmp_path / 'gone'}, which does not exist"]


def test_a_file_name_that_could_drive_the_terminal_is_shown_escaped(tmp_path):
    """A synced folder may hold any name: an ESC, a newline or bytes that are not UTF-8 in it never print raw."""
    folder = tmp_path / "decks"
    folder.mkdir()
    os.mkfifo(folder / "evil\x1b]0;pwn\x07.yaml")
    (folder / "two\nlines.yaml").write_text("deck: [", encoding="utf-8")
    os.mkfifo(os.fsencode(folder) + b"/latin-\xe9.yaml")
    problems = check([folder])
    assert all("\x1b" not in line and "\x07" not in line and "\n" not in line for line in problems)
    assert all(line.encode("utf-8") for line in problems)   # no lone surrogate left to fail on printing
    assert f"{folder}/evil\\x1b]0;pwn\\x07.yaml: skipped: a named pipe (FIFO), not a regular file" in problems
    assert f"{folder}/latin-\\udce9.yaml: skipped: a named pipe (FIFO), not a regular file" in problems
    assert any(re.match(re.escape(f"{folder}/two\\x0alines.yaml:") + r"\d+:\d+: invalid YAML", line) for line in problems)


def test_a_hundred_thousand_combining_marks_are_refused(tmp_path):
    """Issue 20: Zalgo text of 100,000 marks over one letter was a card; Unicode's stream-safe bound is 30."""
    deck = tmp_path / "zalgo.yaml"
    deck.write_text("deck: zalgo\ntitle: Zalgo\ncards:\n  - id: one\n    kind: recall\n    topic: layernorm\n"
                    f"    q: H{chr(0x0336) * 100_000}\n    a: x\n", encoding="utf-8")
    problems = check([deck])
    assert [problem.split(": ", 1)[1] for problem in problems] == [
        "card one: q: more than 30 combining marks in a row are not allowed in deck text: they pile up over one "
        "character and hide the lines around it"]
    assert problems[0].startswith(f"{deck}:7:8: ")


def test_ids_of_unbounded_length_in_a_deck_are_refused_without_quoting_them(tmp_path):
    """Issue 20: a 100,000-digit deck id and a 1,000,000-character card id were loaded and quoted back whole."""
    deck = tmp_path / "long.yaml"
    deck.write_text(f"deck: {'9' * 100_000}\ntitle: Long\ncards:\n  - id: {'a' * 1_000_000}\n    kind: recall\n"
                    "    topic: layernorm\n    q: x\n    a: y\n", encoding="utf-8")
    assert check([deck]) == [f"{deck}:1:7: deck: an id has at most 100 characters, not 100,000",
                             f"{deck}:4:9: card #1: id: an id has at most 100 characters, not 1,000,000"]


def test_an_id_of_a_hundred_characters_is_an_id(tmp_path):
    deck = tmp_path / "edge.yaml"
    deck.write_text(f"deck: {'d' * 100}\ntitle: Edge\ncards:\n  - id: {'c' * 100}\n    kind: recall\n"
                    "    topic: layernorm\n    q: x\n    a: y\n", encoding="utf-8")
    assert check([deck]) == []

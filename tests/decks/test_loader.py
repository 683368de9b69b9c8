"""Loading decks: a good deck becomes Cards; every broken deck gets its exact FILE:LINE:COL messages."""

import re
from pathlib import Path

import pytest

from studytool.config import Settings
from studytool.decks.loader import (
    MAX_BYTES,
    DeckError,
    bundled_sources,
    check,
    expand,
    load_deck_file,
    load_decks,
    scan,
)
from studytool.errors import StudytoolError

HERE = Path(__file__).parent
GOOD = HERE / "good" / "every-kind.yaml"
BROKEN = HERE / "broken"

# Each broken deck and the problems it must report, in file order, without the
# "FILE:" prefix. A message ending in " ..." is a prefix: the rest is the
# generator registry's own wording. YAML syntax errors are worded by libyaml.
CORPUS = {
    "alias-bomb.yaml": ["6:8: aliases expand to more than 10000 nodes (an alias bomb?); refused"],
    "bad-indent.yaml": ["3:8: invalid YAML: mapping values are not allowed in this context"],
    "bad-yaml.yaml": ["7:7: invalid YAML: while parsing a flow sequence: did not find expected ',' or ']'"],
    "duplicate-ids.yaml": ["14:9: card same: duplicate card id (first used on line 4)"],
    "empty-cards.yaml": ["3:8: cards is empty; a deck needs at least one card"],
    "empty.yaml": ["1:1: the file is empty; a deck is a mapping with deck, title and cards"],
    "list-not-mapping.yaml": ["1:1: a deck must be a mapping with deck, title and cards, not a list"],
    "missing-fields.yaml": [
        "1:1: missing 'title' (a deck needs deck, title and cards)",
        "3:5: card c1: missing 'a' (a recall card needs q, a)",
        "7:5: card c2: missing 'topic', 'options', 'answer' (a choice card needs q, options, answer)",
        "10:5: card #3: missing 'id', 'kind' (every card needs id, kind, topic)",
        "12:5: card tf: missing 'why' (a truefalse card needs statement, answer, why)",
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
    assert cards["residual-shape"].body == {"statement": "残差连接要求子层的输入和输出形状不同。", "answer": False}
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
    ("kind: truefalse\n    q: 对吗？\n    statement: s\n    answer: true\n    why: w",
     ["7:5: card c: unknown field 'q' for a truefalse card (truefalse cards have 'statement', 'answer' "
      "(true or false) and 'why'; no 'q')"]),
    ("kind: choice\n    q: 哪个？\n    options: [x, y]\n    a: A",
     ["4:5: card c: missing 'answer' (a choice card needs q, options, answer)",
      "9:5: card c: unknown field 'a' for a choice card (choice cards have 'q', 'options' and 'answer' "
      "(a letter, or a list of letters))"]),
    ("kind: recall\n    q: 什么？\n    a: 这个\n    tolerence: 1",   # no kind has it: no kind hint
     ["9:5: card c: unknown field 'tolerence' for a recall card"]),
])
def test_a_field_of_another_kind_says_where_this_kind_keeps_its_answer(tmp_path, card, messages):
    path = tmp_path / "mixed.yaml"
    path.write_text(f"deck: mixed\ntitle: M\ncards:\n  - id: c\n    topic: layernorm\n    {card}\n", encoding="utf-8")
    assert check([path]) == [f"{path}:{message}" for message in messages]

"""Explain topics: the fixed ids, name resolution, and content that covers the notes."""

import pytest

from studytool.decks.topics import group_titles, load_topics, normalize, resolve
from studytool.errors import StudytoolError

# The contract (notes/common.md): every card's topic is one of these.
CONTRACT_IDS = {
    "seq2seq", "encoder", "encoder-block", "residual", "layernorm", "bn-vs-ln", "post-pre-ln", "bert",
    "shapes-cost", "param-count", "embedding", "positional-encoding", "attention", "softmax", "multi-head",
    "padding-mask", "causal-mask", "teacher-forcing", "cross-attention", "decoder", "ffn", "architecture",
    # beyond the notes: what interviewers ask next (the interview-next deck)
    "qk-projections", "attention-vs-rnn", "kv-cache", "model-families", "embedding-tying", "model-size",
    "training-recipe", "additive-attention", "modern-decoder", "decoding",
    # the LLM era (the llm-interview deck)
    "gqa", "flops", "training-memory", "flash-attention", "tokenization", "nucleus-sampling", "llm-params",
    "scaling-laws", "moe", "mixed-precision", "lora", "speculative-decoding", "long-context", "paged-attention",
    "quantization", "alignment",
}

TOPICS = load_topics()
ALL_NAMES = [(name, topic.id) for topic in TOPICS for name in topic.names]


def test_the_topics_are_exactly_the_contract_ids():
    ids = [topic.id for topic in TOPICS]
    assert len(ids) == len(set(ids))
    assert set(ids) == CONTRACT_IDS


@pytest.mark.parametrize("name, topic_id", ALL_NAMES)
def test_every_name_resolves_to_its_topic(name, topic_id):
    assert resolve(name).id == topic_id
    assert resolve(name.upper()).id == topic_id


@pytest.mark.parametrize("query, topic_id", [
    ("LayerNorm", "layernorm"),
    ("层归一化", "layernorm"),
    ("positional encoding", "positional-encoding"),
    ("Positional_Encoding", "positional-encoding"),
    ("  positional -- encoding ", "positional-encoding"),
    ("位置编码", "positional-encoding"),
    ("multi head", "multi-head"),
    ("多头注意力", "multi-head"),
    ("BatchNorm", "bn-vs-ln"),
    ("Pre-LN", "post-pre-ln"),
    ("teach", "teacher-forcing"),          # unique prefix
    ("cross", "cross-attention"),
    ("因果", "causal-mask"),
    ("one hot", "embedding"),
])
def test_names_match_case_and_separator_insensitively_and_by_unique_prefix(query, topic_id):
    assert resolve(query).id == topic_id


def test_an_ambiguous_prefix_names_the_candidates():
    with pytest.raises(StudytoolError) as error:
        resolve("pos")  # positional-encoding, post-pre-ln
    assert "positional-encoding" in str(error.value) and "post-pre-ln" in str(error.value)


@pytest.mark.parametrize("typo, suggestion", [("layernrom", "layernorm"), ("attenton", "attention"),
                                              ("decodr", "decoder"), ("postln", "post-pre-ln"),
                                              ("embeding", "embedding"), ("softmx", "softmax")])
def test_an_unknown_topic_suggests_the_nearest_names(typo, suggestion):
    with pytest.raises(StudytoolError) as error:
        resolve(typo)
    message = str(error.value)
    assert "\n" not in message
    assert suggestion in message


@pytest.mark.parametrize("garbage", ["xyz", "nope", "qwerty", "mask"])
def test_a_name_near_nothing_suggests_nothing_and_points_to_the_list(garbage):
    # "nope" once got "did you mean positional-encoding?" (through the alias "pe"): no far guesses
    with pytest.raises(StudytoolError) as error:
        resolve(garbage)
    assert str(error.value) == f"unknown topic '{garbage}'; run 'studytool explain' for the list"


def test_near_aliases_of_one_topic_are_suggested_once_by_id():
    with pytest.raises(StudytoolError) as error:
        resolve("layrnorm")
    assert str(error.value) == "unknown topic 'layrnorm'; did you mean layernorm?"


def test_normalize_treats_spaces_hyphens_and_underscores_alike():
    assert normalize("Post LN") == normalize("post-ln") == normalize("POST__ln") == "post-ln"


def test_every_topic_has_content_in_chinese_and_a_known_group():
    groups = group_titles()
    for topic in TOPICS:
        assert topic.group in groups, topic.id
        assert topic.summary.count("\n\n") >= 1, f"{topic.id}: a few paragraphs"
        assert any("\u4e00" <= ch <= "\u9fff" for ch in topic.summary), topic.id
        assert topic.formulas, topic.id
        assert topic.mistakes, topic.id


def test_every_live_example_names_a_generator_and_valid_pinned_params():
    registry = pytest.importorskip("studytool.problems.registry")
    for topic in TOPICS:
        if topic.generator is not None:
            assert registry.get(topic.generator).validate(topic.example) == [], topic.id


# The "常见误区" of the P47 notes, and the interview traps of the CS336 notes: each belongs to a topic.
NOTES_MISTAKES = {
    "encoder": "压成一个向量",
    "bn-vs-ln": "BatchNorm 换个名字",
    "residual": "梯度好传",
    "positional-encoding": "本身知道位置",
    "post-pre-ln": "Post-LN 和 Pre-LN 等价",
    "bert": "BERT 就是 Transformer encoder",
    "embedding": "one-hot 能表达词的相似度",
    "attention": "√d_k",
    "padding-mask": "只有 encoder 需要填充掩码",
    "causal-mask": "encoder 里也加因果掩码",
    "cross-attention": "来源说反",
    "decoder": "两个注意力一样",
    "layernorm": "√(σ² + ε)",
    "multi-head": "参数量乘以 h",
    "ffn": "位置之间混合信息",
    "param-count": "参数主要在注意力",
}


@pytest.mark.parametrize("topic_id, phrase", NOTES_MISTAKES.items())
def test_the_notes_mistakes_are_each_covered_by_their_topic(topic_id, phrase):
    assert any(phrase in mistake for mistake in resolve(topic_id).mistakes)


@pytest.mark.parametrize("entry, words", [
    ({"id": "x", "title": "X", "group": "g", "summary": "s", "colour": "red"}, "unknown field"),
    ({"id": "x", "title": "X", "group": "nowhere", "summary": "s"}, "unknown group"),
    ({"id": "x", "title": "", "group": "g", "summary": "s"}, "'title'"),
    ({"id": "x", "title": "X", "group": "g", "summary": "s", "aliases": "x"}, "'aliases' must be a list"),
])
def test_a_malformed_topic_entry_is_a_clear_error(entry, words):
    from studytool.decks import topics

    with pytest.raises(StudytoolError, match=words):
        topics._topic(entry, {"g": "G"})


# --- the topic graph (`requires`) ----------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from studytool.cli import app  # noqa: E402
from studytool.decks.topics import Topic, dependents, graph_problems, layers, prerequisites  # noqa: E402

# Prerequisites the notes teach in this order: each later idea is built from the earlier one.
TRUE_EDGES = [
    ("multi-head", "attention"), ("attention", "softmax"), ("layernorm", "residual"),
    ("causal-mask", "attention"), ("padding-mask", "attention"), ("cross-attention", "attention"),
    ("positional-encoding", "embedding"), ("bn-vs-ln", "layernorm"), ("post-pre-ln", "layernorm"),
    ("encoder-block", "multi-head"), ("encoder-block", "ffn"), ("encoder", "encoder-block"),
    ("decoder", "causal-mask"), ("decoder", "cross-attention"), ("teacher-forcing", "decoder"),
    ("bert", "encoder"),
]


def test_the_bundled_graph_has_the_notes_prerequisites():
    edges = {(topic.id, wanted) for topic in TOPICS for wanted in topic.requires}
    assert len(edges) >= 15
    assert set(TRUE_EDGES) <= edges
    assert graph_problems(TOPICS) == []


def test_prerequisites_and_dependents_are_the_two_directions_of_one_edge():
    assert [t.id for t in prerequisites("multi-head")] == ["attention"]
    assert [t.id for t in prerequisites("softmax")] == []
    assert {"multi-head", "padding-mask", "causal-mask", "cross-attention"} <= {t.id for t in dependents("attention")}
    for topic in TOPICS:
        for wanted in prerequisites(topic.id):
            assert topic in dependents(wanted.id)


def test_layers_put_every_topic_once_after_everything_it_needs():
    levels = {topic.id: n for n, layer in enumerate(layers()) for topic in layer}
    assert sorted(levels) == sorted(t.id for t in TOPICS)
    assert levels["softmax"] == 0 and levels["attention"] == 1 and levels["multi-head"] == 2
    for topic in TOPICS:
        assert all(levels[wanted] < levels[topic.id] for wanted in topic.requires)
        if topic.requires:   # placed as early as it can be: right after its latest prerequisite
            assert levels[topic.id] == 1 + max(levels[wanted] for wanted in topic.requires)


def _graph(edges: dict[str, list[str]]) -> list[Topic]:
    return [Topic(name, name, (), "g", "s", requires=tuple(wanted)) for name, wanted in edges.items()]


def test_graph_problems_name_unknown_ids_repeats_and_the_whole_cycle():
    topics = _graph({"a": ["b"], "b": ["c", "zz"], "c": ["a", "c"], "d": ["d", "d"]})
    assert graph_problems(topics) == [
        (1, 1, "requires unknown topic 'zz'"),
        (3, 1, "requires 'd' twice"),
        (2, 0, "requires 'a', which needs it in turn: c → a → b → c"),
        (2, 1, "requires 'c', which needs it in turn: c → c"),
        (3, 0, "requires 'd', which needs it in turn: d → d"),
    ]


@given(st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30))))
def test_edges_that_only_point_back_never_make_a_cycle_and_one_forward_edge_closes_one(case):
    n, pairs = case
    edges = {f"t{i}": sorted({f"t{j}" for a, j in pairs if a == i and j < i}) for i in range(n)}
    assert graph_problems(_graph(edges)) == []
    # t0 -> t{n-1} -> ... : a path back down exists iff t{n-1} reaches t0 through backward edges
    edges["t0"].append(f"t{n - 1}")
    reach, frontier = set(), [f"t{n - 1}"]
    while frontier:
        node = frontier.pop()
        if node not in reach:
            reach.add(node)
            frontier += edges[node] if node != "t0" else []
    cycles = [p for p in graph_problems(_graph(edges)) if "in turn" in p[2]]
    assert bool(cycles) == ("t0" in reach)


TOPIC_FILE = """\
groups:
  g: {en: G, zh: G}
topics:
  - id: a
    title: A
    group: g
    summary: s
    requires: [b]
  - id: b
    title: B
    group: g
    summary: s
    requires: [a, zz]
"""


def test_decks_check_refuses_a_cycle_and_an_unknown_id_at_their_line_and_column(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    path = tmp_path / "topics.yaml"
    path.write_text(TOPIC_FILE, encoding="utf-8")
    result = CliRunner().invoke(app, ["decks", "check", str(path)])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}:13:16: topic 'b' requires 'a', which needs it in turn: b → a → b",
        f"{path}:13:19: topic 'b' requires unknown topic 'zz'",
    ]


def test_decks_check_passes_the_bundled_graph_and_names_a_broken_entry_without_cascading(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    assert CliRunner().invoke(app, ["decks", "check"]).exit_code == 0
    path = tmp_path / "topics.yaml"
    path.write_text(TOPIC_FILE.replace("requires: [b]", "requires: b").replace("[a, zz]", "[a]"), encoding="utf-8")
    result = CliRunner().invoke(app, ["decks", "check", str(path)])
    # 'a' is broken, yet still a topic: b's edge to it is no "unknown topic"
    assert result.stdout.splitlines() == [f"{path}:4:5: topic 'a': 'requires' must be a list of topic ids"]


def test_the_loaded_topics_refuse_a_cycle_in_one_line(monkeypatch):
    from studytool.decks import topics

    cyclic = {"groups": {"g": {"en": "G", "zh": "G"}}, "topics": [
        {"id": "a", "title": "A", "group": "g", "summary": "s", "requires": ["b"]},
        {"id": "b", "title": "B", "group": "g", "summary": "s", "requires": ["a"]}]}
    monkeypatch.setattr(topics, "_document", lambda: cyclic)
    topics._topics.cache_clear()
    try:
        with pytest.raises(StudytoolError, match=r"^topics.yaml: topic 'b' requires 'a', which needs it in turn: b → a → b$"):
            topics.load_topics()
    finally:
        topics._topics.cache_clear()


NAMES = st.sampled_from(["a", "b", "c", "d", "zz", "A", "a b", "12"])


@given(st.lists(st.lists(NAMES, max_size=4), min_size=1, max_size=4))
def test_any_requires_lists_give_located_problems_or_none_and_never_a_traceback(requires):
    import re

    import yaml

    from studytool.decks.topics import check_file

    entries = "".join(f"  - id: {'abcd'[i]}\n    title: T\n    group: g\n    summary: s\n"
                      f"    requires: [{', '.join(wanted)}]\n" for i, wanted in enumerate(requires))
    text = "groups:\n  g: {en: G, zh: G}\ntopics:\n" + entries
    problems = check_file(yaml.compose(text, Loader=yaml.SafeLoader), "t.yaml")
    assert all(re.match(r"^t\.yaml:\d+:\d+: ", problem) for problem in problems)
    ids = set("abcd"[: len(requires)])
    clean = all(set(wanted) <= ids and len(set(wanted)) == len(wanted) for wanted in requires)
    acyclic = clean and graph_problems(_graph({"abcd"[i]: w for i, w in enumerate(requires)})) == []
    assert (problems == []) == acyclic


# --- core cards: what the topics built on a topic exercise (implicit review credits them) ---------------


def test_every_topic_names_a_core_card_of_its_own_in_the_bundled_decks():
    from studytool.decks.loader import bundled_sources, scan

    cards = {card.key: card.topic for deck in scan(bundled_sources()).decks for card in deck.cards}
    for topic in TOPICS:
        assert topic.core, topic.id
        assert all(cards.get(key) == topic.id for key in topic.core), topic.id


CORE_DECK = """\
deck: mine
title: M
source: s
cards:
  - id: one
    kind: number
    topic: softmax
    q: 1?
    answer: 1
"""
CORE_TOPICS = """\
groups:
  g: {en: G, zh: G}
topics:
  - id: softmax
    title: S
    group: g
    summary: s
    core: [mine/one, mine/onee, transformer-arch/attn-formula, mine/one]
  - id: attention
    title: A
    group: g
    summary: s
    requires: [softmax]
    core: [nobody/home]
"""


def test_decks_check_refuses_unknown_misplaced_and_repeated_core_cards_where_they_are(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    (tmp_path / "mine.yaml").write_text(CORE_DECK, encoding="utf-8")
    path = tmp_path / "topics.yaml"
    path.write_text(CORE_TOPICS, encoding="utf-8")
    result = CliRunner().invoke(app, ["decks", "check", str(tmp_path / "mine.yaml"), str(path)],
                                env={"STUDYTOOL_LANG": "en"})
    assert result.exit_code == 1
    # mine/one is a card of the deck checked with it; attn-formula is a bundled card, of topic attention
    assert result.stdout.splitlines() == [
        f"{path}:8:22: topic 'softmax' names unknown core card 'mine/onee'; did you mean mine/one?",
        f"{path}:8:33: topic 'softmax' names core card 'transformer-arch/attn-formula', a card of topic 'attention'",
        f"{path}:8:64: topic 'softmax' names core card 'mine/one' twice",
        f"{path}:14:12: topic 'attention' names unknown core card 'nobody/home'",
    ]


@pytest.mark.parametrize("core", ["mine/one", "[one]", "[{a: b}]"])
def test_core_must_be_a_list_of_card_keys(tmp_path, monkeypatch, core):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    path = tmp_path / "topics.yaml"
    path.write_text(CORE_TOPICS.replace("core: [nobody/home]", f"core: {core}"), encoding="utf-8")
    result = CliRunner().invoke(app, ["decks", "check", str(path)], env={"STUDYTOOL_LANG": "en"})
    assert result.exit_code == 1
    assert f"{path}:9:5: topic 'attention': 'core' must be a list of card keys (deck/id)" in result.stdout.splitlines()


# --- a big topics file is checked in linear time (issue 20, item 10) ---------------------------------------------

def test_only_the_first_unknown_names_of_a_file_get_a_did_you_mean():
    """A 4 MB topics file of unknown names once took minutes: difflib compared each with every topic id."""
    from studytool.decks.topics import MAX_HINTS

    topics = _graph({f"topic{i}": [f"topic{i}x"] for i in range(MAX_HINTS + 5)})
    problems = graph_problems(topics)
    hinted = [message for _number, _index, message in problems if "did you mean" in message]
    assert len(problems) == MAX_HINTS + 5 and len(hinted) == MAX_HINTS
    assert hinted[0] == "requires unknown topic 'topic0x'; did you mean topic0?"


def test_a_repeated_id_and_repeated_edges_are_found_among_thousands():
    from studytool.decks.topics import _name_problems

    topics = _graph({f"t{i}": [f"t{i - 1}"] * 3 if i else [] for i in range(3000)})
    topics.append(Topic("t7", "t7", (), "g", "s"))
    assert _name_problems(topics) == [(3000, "topic id 't7' appears twice")]
    repeats = [(number, index) for number, index, message in graph_problems(topics) if "twice" in message]
    assert repeats == [(number, index) for number in range(1, 3000) for index in (1, 2)]

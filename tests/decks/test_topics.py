"""Explain topics: the fixed ids, name resolution, and content that covers the notes."""

import pytest

from studytool.decks.topics import group_titles, load_topics, normalize, resolve
from studytool.errors import StudytoolError

# The contract (notes/common.md): every card's topic is one of these.
CONTRACT_IDS = {
    "seq2seq", "encoder", "encoder-block", "residual", "layernorm", "bn-vs-ln", "post-pre-ln", "bert",
    "shapes-cost", "param-count", "embedding", "positional-encoding", "attention", "softmax", "multi-head",
    "padding-mask", "causal-mask", "teacher-forcing", "cross-attention", "decoder", "ffn", "architecture",
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

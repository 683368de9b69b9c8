"""BPE training and encoding as CS336 assignment 1 defines them: a hand-worked example and a naive re-implementation."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.engine import encode_bpe, train_bpe

HANDOUT = "low low low low low lower lower widest widest widest newest newest newest newest newest newest"


def test_the_cs336_handout_example_worked_by_hand():
    # Words: low x5, lower x2, widest x3, newest x6. Adjacent pairs, weighted by the word counts:
    #   lo 5+2=7, ow 7, we 2+6=8, er 2, wi 3, id 3, de 3, es 3+6=9, st 9, ne 6, ew 6.
    # 1. es and st tie at 9: the greater pair, (s, t).        widest = w i d e st, newest = n e w e st
    # 2. e-st 3+6 = 9 is the most (we 8, lo 7, ow 7).        wid est, n e w est; we falls to 2
    # 3. lo 7 and ow 7 tie: (o, w) > (l, o).                  l ow, l ow e r
    # 4. l-ow 7 (d-est 3, ne 6, ew 6, w-est 6).              low, low e r
    # 5. ne, ew and w-est tie at 6: (w, est) is the greatest. n e west
    # 6. ne 6 and e-west 6 tie: (n, e) > (e, west).          ne west
    merges = train_bpe(HANDOUT, 6)
    assert [(m.pair, m.count) for m in merges] == [
        (("s", "t"), 9), (("e", "st"), 9), (("o", "w"), 7), (("l", "ow"), 7), (("w", "est"), 6), (("n", "e"), 6),
    ]
    pairs = [m.pair for m in merges]
    assert encode_bpe("newest", pairs) == ["ne", "west"]  # the handout's own sentence
    assert encode_bpe("lower widest", pairs) == ["low", "e", "r", "w", "i", "d", "est"]


def test_a_merge_takes_occurrences_left_to_right_and_never_crosses_words():
    # "aaaa aaa": (a, a) occurs 3 + 2 = 5 times. Merged left to right: aa aa | aa a.
    # Then (aa, aa) 1 and (aa, a) 1 tie: (aa, aa) is the greater pair. "a a" across the space never counts.
    merges = train_bpe("aaaa aaa", 10)
    assert [(m.pair, m.count) for m in merges] == [(("a", "a"), 5), (("aa", "aa"), 1), (("aa", "a"), 1)]
    assert encode_bpe("aaaa aaa aaaaa", [m.pair for m in merges]) == ["aaaa", "aaa", "aaaa", "a"]


def test_training_stops_when_every_word_is_one_token():
    assert [m.pair for m in train_bpe("ab ab c", 10)] == [("a", "b")]
    assert train_bpe("", 3) == [] and train_bpe("x y z", 3) == []


def test_characters_not_bytes():
    # 中 and 文 are one symbol each (three UTF-8 bytes each): one merge joins the word.
    merges = train_bpe("中文 中文 中国", 1)
    assert [(m.pair, m.count) for m in merges] == [(("中", "文"), 2)]
    assert encode_bpe("中文中国", [m.pair for m in merges]) == ["中文", "中", "国"]


def test_a_negative_number_of_merges_is_refused():
    with pytest.raises(ValueError, match="num_merges"):
        train_bpe("a b", -1)


def naive_train(text, num_merges, split=list):
    """A second implementation in another style: every step recounts every pair of every word occurrence
    from scratch (no cached counts) and rebuilds every word. `split` makes a word's first symbols: list
    (characters) or utf8_bytes (one bytes object per byte: CS336's byte level)."""
    corpus = [split(word) for word in text.split()]  # one entry per occurrence, not per distinct word
    merges = []
    for _ in range(num_merges):
        counts = {}
        for word in corpus:
            for left, right in zip(word, word[1:]):
                counts[(left, right)] = counts.get((left, right), 0) + 1
        if not counts:
            break
        best = max(counts.items(), key=lambda item: (item[1], item[0]))
        merges.append(best)
        corpus = [rebuild(word, best[0]) for word in corpus]
    return merges


def rebuild(word, pair):
    """The word with each occurrence of pair joined, scanning from the left."""
    out, i = [], 0
    while i < len(word):
        if tuple(word[i : i + 2]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def utf8_bytes(word):
    return [bytes([b]) for b in word.encode()]


def naive_encode(text, pairs):
    """Every merge applied to every word, one after the other in training order."""
    tokens = []
    for word in text.split():
        symbols = list(word)
        for pair in pairs:
            symbols = rebuild(symbols, pair)
        tokens += symbols
    return tokens


words = st.text(alphabet="abcde", min_size=1, max_size=8)
texts = st.lists(words, min_size=1, max_size=25).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(0, 30))
def test_equal_to_a_naive_trainer_on_characters(text, k):
    ours = [(m.pair, m.count) for m in train_bpe(text, k)]
    assert ours == naive_train(text, k, split=list)


@settings(max_examples=100, deadline=None)
@given(texts, st.integers(0, 30))
def test_on_ascii_text_equal_to_cs336s_byte_level_training(text, k):
    theirs = naive_train(text, k, split=utf8_bytes)
    ours = train_bpe(text, k)
    assert [((a.encode(), b.encode()), n) for (a, b), n in ours] == theirs


@settings(max_examples=100, deadline=None)
@given(texts, st.integers(0, 20), texts)
def test_encoding_equal_to_applying_every_merge_in_order(text, k, other):
    pairs = [m.pair for m in train_bpe(text, k)]
    assert encode_bpe(text, pairs) == naive_encode(text, pairs)
    assert encode_bpe(other, pairs) == naive_encode(other, pairs)  # text the merges were not learned on


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="中文字abc", min_size=1, max_size=6), min_size=1, max_size=15).map(" ".join),
       st.integers(0, 15))
def test_equal_to_the_naive_trainer_on_chinese_characters(text, k):
    assert [(m.pair, m.count) for m in train_bpe(text, k)] == naive_train(text, k, split=list)

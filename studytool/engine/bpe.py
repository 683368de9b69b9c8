"""Byte-pair encoding: training merges on a small corpus, and encoding text with them.

As Stanford CS336 assignment 1 defines BPE training: the text is split on whitespace into
words, each word starts as a sequence of single symbols, merges never cross a word boundary,
and each step merges the most frequent adjacent pair (counted over the words, weighted by how
often each word occurs); ties go to the lexicographically greater pair.

Symbols are Unicode characters, not UTF-8 bytes. CS336 trains on bytes; on ASCII text the two
are the same (one byte per character), and on other text characters keep every token readable
(中文 is two symbols here, six bytes there). The tie-break agrees too: UTF-8 orders strings as
their characters do.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import NamedTuple

Pair = tuple[str, str]


class BPEMerge(NamedTuple):
    """One training step: the pair merged, and how often it occurred when it was chosen."""

    pair: Pair
    count: int


def _merge_word(word: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    """Every occurrence of `pair` in `word` joined, left to right ('a a a' with (a, a) -> 'aa a')."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def _pairs(word: tuple[str, ...]) -> Counter[Pair]:
    return Counter(zip(word, word[1:]))


def train_bpe(text: str, num_merges: int) -> list[BPEMerge]:
    """Up to `num_merges` merges learned from `text`, in the order learned (fewer when no pair is left).

    Pair counts are kept between steps and only the words holding the merged pair are recounted,
    as CS336's optimised trainer does.
    """
    if num_merges < 0:
        raise ValueError(f"num_merges must be >= 0, got {num_merges}")
    words = {tuple(word): n for word, n in Counter(text.split()).items()}  # word as symbols -> occurrences
    counts: Counter[Pair] = Counter()
    holders: defaultdict[Pair, set[tuple[str, ...]]] = defaultdict(set)  # pair -> the words that hold it
    for word, n in words.items():
        for pair, times in _pairs(word).items():
            counts[pair] += n * times
            holders[pair].add(word)
    merges = []
    while len(merges) < num_merges and counts:
        pair = max(counts, key=lambda p: (counts[p], p))  # most frequent; ties: the greater pair
        merges.append(BPEMerge(pair, counts[pair]))
        for word in holders.pop(pair):
            n = words.pop(word)
            merged = _merge_word(word, pair)
            words[merged] = n  # distinct words stay distinct: one string, one segmentation
            for old, times in _pairs(word).items():
                counts[old] -= n * times
                holders[old].discard(word)
            for new, times in _pairs(merged).items():
                counts[new] += n * times
                holders[new].add(merged)
        counts = +counts  # drop the pairs no word holds any more
    return merges


def encode_bpe(text: str, merges: Sequence[Pair]) -> list[str]:
    """The tokens of `text` under `merges` (pairs, in the order learned), word after word.

    Each word starts as single characters; the pair that was learned first among those present is
    merged everywhere in the word, then the next, until no learned pair is left (GPT-2's and
    CS336's encoder: the same as applying every merge in training order).
    """
    rank = {tuple(pair): i for i, pair in reversed(list(enumerate(merges)))}  # a repeated pair keeps its first rank
    tokens: list[str] = []
    for word in text.split():
        symbols = tuple(word)
        while len(symbols) > 1:
            pair = min(zip(symbols, symbols[1:]), key=lambda p: rank.get(p, len(rank)))
            if pair not in rank:
                break
            symbols = _merge_word(symbols, pair)
        tokens.extend(symbols)
    return tokens

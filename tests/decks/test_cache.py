"""The validated-deck cache: a hit gives the same deck, and any change to the file misses it."""

import pytest

from studytool.decks import cache
from studytool.decks.loader import DeckError, load_deck_file

DECK = """\
deck: cached
title: 缓存
source: test
cards:
  - id: one
    kind: recall
    topic: layernorm
    q: LayerNorm 在哪一维上求均值？
    a: 特征维。
"""


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def entries(home):
    return sorted((home / "cache" / "decks").glob("*.pickle"))


def test_a_valid_deck_is_stored_and_loaded_back_equal(tmp_path, home):
    path = tmp_path / "deck.yaml"
    path.write_text(DECK, encoding="utf-8")
    first = load_deck_file(path)
    assert len(entries(home)) == 1
    assert load_deck_file(path) == first


def test_an_edited_file_is_validated_afresh(tmp_path, home):
    path = tmp_path / "deck.yaml"
    path.write_text(DECK, encoding="utf-8")
    load_deck_file(path)
    path.write_text(DECK.replace("kind: recall", "kind: recal"), encoding="utf-8")
    with pytest.raises(DeckError, match="recal"):
        load_deck_file(path)


def test_a_broken_deck_is_never_cached(tmp_path, home):
    path = tmp_path / "deck.yaml"
    path.write_text(DECK.replace("topic: layernorm", "topic: nowhere"), encoding="utf-8")
    with pytest.raises(DeckError):
        load_deck_file(path)
    assert entries(home) == []


def test_a_damaged_entry_is_ignored(tmp_path, home):
    path = tmp_path / "deck.yaml"
    path.write_text(DECK, encoding="utf-8")
    expected = load_deck_file(path)
    for entry in entries(home):
        entry.write_bytes(b"not a pickle")
    assert load_deck_file(path) == expected


def test_the_same_text_under_another_name_keeps_its_own_file_name(tmp_path, home):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(DECK, encoding="utf-8")
    b.write_text(DECK, encoding="utf-8")
    assert load_deck_file(a).file == str(a)
    assert load_deck_file(b).file == str(b)


def test_cache_dir_follows_studytool_home(home):
    assert cache.cache_dir() == home / "cache"

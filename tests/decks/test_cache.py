"""The validated-deck cache: a hit gives the same deck, any change misses it, and a planted entry runs nothing."""

import json
import os
import pickle
import stat
import subprocess
import sys

import pytest

from studytool.decks import cache
from studytool.decks.loader import DeckError, bundled_sources, load_deck_file

DECK = """\
deck: cached
formerly: [old-cached]
title: 缓存
source: test
cards:
  - id: one
    formerly: [first]
    kind: recall
    topic: layernorm
    q: LayerNorm 在哪一维上求均值？
    a: 特征维。
  - id: two
    kind: vector
    topic: positional-encoding
    tags: [example, self-test]
    why: 见讲义。
    q: d=3、pos=1 的位置编码？
    answer: [0.841471, 0.540302, 0.002154]
    tolerance: 1.0e-6
  - id: three
    kind: generated
    topic: layernorm
    generator: layer_norm
    example: {x: [2, 4, 6, 8]}
"""


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def deck_path(tmp_path):
    path = tmp_path / "deck.yaml"
    path.write_text(DECK, encoding="utf-8")
    return path


def entries(home):
    return sorted((home / "cache" / "decks").glob("*"))


def read_doc(entry):
    """An entry's JSON (after the line with its MAC)."""
    return json.loads(entry.read_bytes().split(b"\n", 1)[1])


def sign(raw: bytes, key: bytes | None = None) -> bytes:
    """An entry as this install (or the holder of `key`) writes it: the MAC, a newline, the JSON."""
    return cache._mac(key or cache._key(), raw).hex().encode() + b"\n" + raw


def test_a_valid_deck_is_stored_as_json_and_loaded_back_equal(deck_path, home):
    first = load_deck_file(deck_path)
    [entry] = entries(home)
    assert entry.suffix == ".json"
    assert read_doc(entry)["format"] == cache.FORMAT
    again = load_deck_file(deck_path)
    assert again == first
    assert again.cards[1].tags == ("example", "self-test") and again.cards[1].body["tolerance"] == 1e-6
    assert again.formerly == ("old-cached",) and again.cards[0].formerly == ("first",)   # renames survive the cache


def test_a_hit_does_not_validate_again(deck_path, monkeypatch):
    load_deck_file(deck_path)
    from studytool.decks import validate

    def refuse(*args):
        raise AssertionError("validated although cached")

    monkeypatch.setattr(validate, "validate_deck", refuse)
    assert load_deck_file(deck_path).deck == "cached"


def test_an_edited_file_is_validated_afresh(deck_path):
    load_deck_file(deck_path)
    deck_path.write_text(DECK.replace("kind: recall", "kind: recal"), encoding="utf-8")
    with pytest.raises(DeckError, match="recal"):
        load_deck_file(deck_path)


def test_a_broken_deck_is_never_cached(deck_path, home):
    deck_path.write_text(DECK.replace("topic: layernorm", "topic: nowhere"), encoding="utf-8")
    with pytest.raises(DeckError):
        load_deck_file(deck_path)
    assert entries(home) == []


@pytest.mark.parametrize("planted", [
    b"not json",
    b"\xff\xfe",
    b"[]",
    json.dumps({"format": 1}).encode(),
    b"[" * 100_000,
])
def test_a_damaged_or_foreign_entry_is_ignored_and_rewritten(deck_path, home, planted):
    expected = load_deck_file(deck_path)
    [entry] = entries(home)
    entry.write_bytes(planted)
    assert load_deck_file(deck_path) == expected
    assert read_doc(entry)["format"] == cache.FORMAT


def edit_entry(home, change):
    """Change an entry and sign it with this install's key: the field checks behind the MAC still hold."""
    [entry] = entries(home)
    doc = read_doc(entry)
    change(doc)
    entry.write_bytes(sign(json.dumps(doc).encode()))


@pytest.mark.parametrize("change", [
    lambda doc: doc["deck"]["cards"][0].update(kind="python"),
    lambda doc: doc["deck"]["cards"][0].update(tags="interview"),
    lambda doc: doc["deck"]["cards"][0].update(line="4"),
    lambda doc: doc["deck"].update(file="elsewhere.yaml"),
    lambda doc: doc.update(key="0" * 40),
    lambda doc: doc.update(mark=[0, 1]),
    lambda doc: doc["deck"]["cards"][0]["body"].update(q="\x1b]52;c;aGk=\x07"),   # OSC 52: a clipboard write
    lambda doc: doc["deck"]["cards"][0]["body"].update(q="\x9b2J"),                # C1 CSI: clear screen
    lambda doc: doc["deck"]["cards"][0]["body"].update(q="\ud800"),
    lambda doc: doc["deck"]["cards"][1]["body"].update(tolerance=float("inf")),     # written as Infinity
    lambda doc: doc["deck"]["cards"][1]["body"].update(answer=[0.5, "x"]),          # posing would fail on it
    lambda doc: doc["deck"]["cards"][0]["body"].update(q=["a", "list"]),
    lambda doc: doc["deck"]["cards"][2]["body"].update(params="size=4"),
])
def test_an_entry_not_as_written_is_ignored(deck_path, home, change):
    expected = load_deck_file(deck_path)
    edit_entry(home, change)
    assert load_deck_file(deck_path) == expected


def test_a_number_too_large_for_a_float_is_ignored(deck_path, home):
    expected = load_deck_file(deck_path)
    [entry] = entries(home)
    text = entry.read_bytes().split(b"\n", 1)[1]
    assert b'"answer":[0.841471,' in text
    entry.write_bytes(sign(text.replace(b'"answer":[0.841471,', b'"answer":[1e400,')))
    assert load_deck_file(deck_path) == expected


def test_an_entry_that_is_a_fifo_or_a_link_is_ignored_without_blocking(deck_path, home, tmp_path):
    expected = load_deck_file(deck_path)
    [entry] = entries(home)
    entry.unlink()
    os.mkfifo(entry)
    assert load_deck_file(deck_path) == expected   # would block forever on a plain open()
    entry.unlink()
    target = tmp_path / "target.json"
    target.write_text("{}", encoding="utf-8")
    entry.symlink_to(target)
    assert load_deck_file(deck_path) == expected


def test_cache_folders_are_private(deck_path, home):
    load_deck_file(deck_path)
    for folder in (home / "cache", home / "cache" / "decks"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    [entry] = entries(home)
    assert stat.S_IMODE(entry.stat().st_mode) & 0o077 == 0


def test_the_same_text_under_another_name_keeps_its_own_file_name(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(DECK, encoding="utf-8")
    b.write_text(DECK, encoding="utf-8")
    assert load_deck_file(a).file == str(a)
    assert load_deck_file(b).file == str(b)


def test_cache_dir_comes_from_settings(home):
    from studytool.config import Settings

    assert cache.cache_dir() == Settings().cache_dir == home / "cache"


def test_an_unwritable_cache_is_only_slower(deck_path, home):
    home.mkdir()
    (home / "cache").write_text("a file where the cache folder goes", encoding="utf-8")
    assert load_deck_file(deck_path).deck == "cached"


class _Plant:
    """Unpickling this creates the marker file: what an attacker would put in a pickle cache."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_planted_pickle_never_runs(home, tmp_path):
    """Pickles that would write a marker, under every name the cache looks up: no command runs them."""
    probe = tmp_path / "probe"
    pickle.loads(pickle.dumps(_Plant(probe)))
    assert probe.exists()   # the payload is live: unpickling it does write a file
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Plant(marker))
    mine = home / "decks" / "mine.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text(DECK, encoding="utf-8")
    folder = home / "cache" / "decks"
    folder.mkdir(parents=True)
    cache._salt.cache_clear()   # the names as the commands below compute them, from the code as it is now
    for source in [*bundled_sources(), mine]:
        digest = cache._digest(str(source), source.read_bytes())
        (folder / f"{digest}.json").write_bytes(payload)
        (folder / f"{digest}.pickle").write_bytes(payload)   # where the first release looked
    env = {**os.environ, "STUDYTOOL_HOME": str(home)}
    for command in (["stats"], ["decks", "list"], ["quiz", "--count", "1"]):
        subprocess.run([sys.executable, "-m", "studytool", *command], env=env, input="", capture_output=True,
                       timeout=120)
    assert not marker.exists()
    # the planted name was the one looked up: it was replaced by a real entry
    entry = folder / f"{cache._digest(str(mine), mine.read_bytes())}.json"
    assert read_doc(entry)["format"] == cache.FORMAT


def flip_answer(raw: bytes) -> bytes:
    assert b'"answer":[0.841471,' in raw
    return raw.replace(b'"answer":[0.841471,', b'"answer":[0.5,')


def test_a_flipped_answer_key_is_ignored_and_rebuilt(deck_path, home):
    """F1: the entry's bytes changed (an answer key), not signed again: the YAML is validated afresh."""
    expected = load_deck_file(deck_path)
    [entry] = entries(home)
    mac, raw = entry.read_bytes().split(b"\n", 1)
    entry.write_bytes(mac + b"\n" + flip_answer(raw))
    assert load_deck_file(deck_path) == expected
    assert read_doc(entry)["deck"]["cards"][1]["body"]["answer"][0] == 0.841471   # rewritten


def test_an_entry_signed_with_another_installs_key_is_ignored(deck_path, home):
    expected = load_deck_file(deck_path)
    [entry] = entries(home)
    raw = entry.read_bytes().split(b"\n", 1)[1]
    entry.write_bytes(sign(flip_answer(raw), key=b"k" * 32))
    assert load_deck_file(deck_path) == expected


def test_the_key_is_private_and_outside_the_cache_folder(deck_path, home):
    """The key lives in the data folder (beside the progress database), 0600; the entries' names depend on it."""
    first = load_deck_file(deck_path)
    key = home / cache.KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(bytes.fromhex(key.read_text())) == 32
    [entry] = entries(home)
    name, data = str(deck_path), deck_path.read_bytes()
    assert entry.name == f"{cache._digest(name, data)}.json"
    key.write_text("00" * 32)   # another install's key: its entries are not these
    cache._key_at.cache_clear()
    assert f"{cache._digest(name, data)}.json" != entry.name
    assert load_deck_file(deck_path) == first and len(entries(home)) == 2

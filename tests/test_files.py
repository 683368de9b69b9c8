"""files.printable and json_printable: what a typed answer or a file name may put on the screen."""

import json
import unicodedata

import pytest
from hypothesis import given, strategies as st

from studytool.files import json_printable, printable


@pytest.mark.parametrize("name", [False, True])
def test_characters_that_reorder_text_are_shown_as_escapes(name):
    # U+202E would show "Big evil.yaml" as "Big lmay.live"; U+200B hides inside a word
    assert printable("Big \u202eevil\u202c.yaml", name=name) == "Big \\u202eevil\\u202c.yaml"
    assert printable("a\u200bb\u2067c\u2069\u200f", name=name) == "a\\u200bb\\u2067c\\u2069\\u200f"


def test_joiners_that_words_and_emoji_need_are_kept():
    assert printable("👩\u200d💻 می\u200cخواهم") == "👩\u200d💻 می\u200cخواهم"


# --- json_printable: a JSON document as it may reach a terminal (issue 20, item 14) ------------------------------

# What a terminal must never receive raw, by Unicode's own categories: controls (Cc) other than the JSON-escaped
# C0 ones, lone surrogates (Cs), and the bidirectional formatting characters of UAX #9.
BIDI_FORMATTING = {"\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}


def raw_hazards(text: str) -> set[str]:
    return {char for char in text if unicodedata.category(char) in ("Cc", "Cs") and char not in "\n"
            or char in BIDI_FORMATTING}


def test_c1_controls_and_bidi_marks_are_json_escapes():
    document = json.dumps({"answer": "evil\x9b31m \u202eabc\x7f\u2067"}, ensure_ascii=False)
    assert json_printable(document) == '{"answer": "evil\\u009b31m \\u202eabc\\u007f\\u2067"}'


@given(st.recursive(st.text() | st.integers(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_the_same_data_and_nothing_raw_reaches_the_screen(value):
    shown = json_printable(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(shown) == value
    assert not raw_hazards(shown)

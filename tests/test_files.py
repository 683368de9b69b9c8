"""files.printable: what a typed answer or a file name may put on the screen."""

import pytest

from studytool.files import printable


@pytest.mark.parametrize("name", [False, True])
def test_characters_that_reorder_text_are_shown_as_escapes(name):
    # U+202E would show "Big evil.yaml" as "Big lmay.live"; U+200B hides inside a word
    assert printable("Big \u202eevil\u202c.yaml", name=name) == "Big \\u202eevil\\u202c.yaml"
    assert printable("a\u200bb\u2067c\u2069\u200f", name=name) == "a\\u200bb\\u2067c\\u2069\\u200f"


def test_joiners_that_words_and_emoji_need_are_kept():
    assert printable("👩\u200d💻 می\u200cخواهم") == "👩\u200d💻 می\u200cخواهم"

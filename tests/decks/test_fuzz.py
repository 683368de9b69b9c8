"""Mutated deck text never crashes the loader: it loads, or raises DeckError with FILE:LINE:COL lines."""

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studytool.decks.loader import DeckError, load_deck_file

HERE = Path(__file__).parent
SEEDS = [HERE / "good" / "every-kind.yaml", HERE / "broken" / "more-errors.yaml"]

# Pieces that matter to YAML and to the deck format, plus bytes that are not UTF-8.
PIECES = [b":", b": ", b"- ", b"-", b"[", b"]", b"{", b"}", b",", b"&a ", b"*a", b"!!python/object:os.system ",
          b"!!str ", b"!!binary ", b"<<: ", b"? ", b"|", b">", b"#", b"'", b'"', b"\n", b"\n  ", b"    ", b"\t",
          b"---\n", b"...\n", b"~", b"null", b"true", b"1e400", b".nan", b"0x1F", b"2024-01-01", b"kind: ",
          b"choice", b"generated", b"generator: layer_norm", b"params: {x: [1]}", b"answer: ", b"id: ", b"\xff",
          b"\xe9", b"\xef\xbb\xbf", "中文".encode(), b"\x00", b"%YAML 1.1\n"]


def mutate(text: bytes, edits: list[tuple[int, int, int, int]]) -> bytes:
    lines = text.split(b"\n")
    for op, a, b, piece in edits:
        if op == 0:      # insert a piece
            at = a % (len(text) + 1)
            text = text[:at] + PIECES[piece % len(PIECES)] + text[at:]
        elif op == 1:    # delete a span
            at = a % (len(text) + 1)
            text = text[:at] + text[at + b % 40:]
        elif op == 2:    # swap two lines
            lines = text.split(b"\n")
            i, j = a % len(lines), b % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
            text = b"\n".join(lines)
        else:            # re-indent a line
            lines = text.split(b"\n")
            i = a % len(lines)
            lines[i] = b" " * (b % 9) + lines[i].lstrip(b" ")
            text = b"\n".join(lines)
    return text


EDITS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 100)),
                 min_size=1, max_size=6)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.sampled_from(SEEDS), edits=EDITS)
def test_mutated_decks_load_or_raise_deck_error(folder, seed, edits):
    path = folder / "mutated.yaml"
    path.write_bytes(mutate(seed.read_bytes(), edits))
    try:
        deck = load_deck_file(path)
    except DeckError as error:
        assert error.problems
        pattern = re.compile(re.escape(str(path)) + r":\d+:\d+: \S")
        for problem in error.problems:
            assert pattern.match(problem), problem
            assert "\n" not in problem
    else:
        assert deck.cards

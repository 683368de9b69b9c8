"""A journal's lines as files hold them: read a block at a time from where reading stopped, whatever the blocks cut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studytool.study import journal


def split_by_hand(content: bytes, offset: int, number: int, longest: int) -> list[journal.Line]:
    """The lines from `offset` on, the plain way: each that ends in a newline, with its text unless it is longer
    than `longest`; a last one without a newline, torn."""
    lines, start = [], offset
    while start < len(content):
        end = content.find(b"\n", start)
        if end < 0:
            lines.append(journal.Line(number, start, len(content), None))
            break
        text = content[start:end]
        lines.append(journal.Line(number, start, end + 1, text if len(text) <= longest else None))
        start, number = end + 1, number + 1
    return lines


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.binary(max_size=40).filter(lambda piece: b"\n" not in piece), max_size=12),
       torn=st.booleans(), block=st.integers(1, 17), longest=st.integers(0, 30), skip=st.integers(0, 12))
def test_lines_read_a_block_at_a_time_are_the_lines_split_by_hand(tmp_path_factory, pieces, torn, block, longest,
                                                                   skip):
    content = b"".join(piece + b"\n" for piece in pieces)
    if torn and pieces:
        content = content[:-1]
    skip = min(skip, len(pieces))
    offset = sum(len(piece) + 1 for piece in pieces[:skip])   # where an earlier read stopped: a line's start
    path = tmp_path_factory.mktemp("journal") / "00000000000000aa.jsonl"
    path.write_bytes(content)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "BLOCK", block)
        patch.setattr(journal, "MAX_LINE", longest)
        read = list(journal.lines_from(path, offset, skip + 1))
    assert read == split_by_hand(content, offset, skip + 1, longest)

"""The terminal face of a session: what the learner reads in the card header and around it."""

from __future__ import annotations

from studytool.study.session import Progress
from studytool.study.view import progress_text


def test_progress_counts_missed_cards_apart_from_the_total():
    assert progress_text(Progress(2, 20, again=0, repeat=False)) == "[2/20]"
    assert progress_text(Progress(2, 20, again=1, repeat=False)) == "[2/20 · 1 again]"
    assert progress_text(Progress(3, 20, again=0, repeat=True)) == "[again · 3/20]"
    assert progress_text(Progress(3, 20, again=2, repeat=True)) == "[again · 3/20 · 2 again]"

"""`decks audit` of a big deck (issue 20, item 10): work linear in the cards, memory flat, a progress bar on a
terminal only."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from studytool.decks.audit import MAX_PAIRS_LISTED, audit, near_duplicates
from studytool.decks.model import Card, Deck

ROOT = Path(__file__).resolve().parents[2]
RECALL = {"q": "LayerNorm 在哪个方向上求均值和方差？", "a": "在单个 token 的特征维上。"}


def copies(n: int) -> list[Card]:
    return [Card("t", f"c{i}", "recall", "layernorm", body=RECALL) for i in range(n)]


def test_progress_is_told_after_every_card_of_every_deck():
    told = []
    audit([Deck("a", "A", "", tuple(copies(3))), Deck("b", "B", "", tuple(copies(2)))], seeds=2,
          progress=lambda done, total: told.append((done, total)))
    assert told == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_near_duplicates_of_many_copies_keep_a_bounded_list_the_most_alike_first_in_deck_order():
    """300 copies of one card are 44,850 pairs, each of them a near-duplicate (the pairs of n cards: n(n-1)/2)."""
    pairs = near_duplicates(copies(300))
    assert len(pairs) == MAX_PAIRS_LISTED
    assert pairs[:3] == [("t/c0", "t/c1", 1.0), ("t/c0", "t/c2", 1.0), ("t/c0", "t/c3", 1.0)]


def test_a_near_duplicate_beyond_the_kept_ones_still_fails_the_check():
    result = audit([Deck("t", "T", "", tuple(copies(30)))], seeds=1)
    assert result.checks["near_duplicates"] is False and len(result.near_duplicates) == MAX_PAIRS_LISTED


DECK = "deck: big\ntitle: Big\ncards:\n" + "".join(
    f"  - id: c{i}\n    kind: recall\n    topic: layernorm\n    q: 第 {i} 题：LayerNorm 的方向？\n    a: 特征维 {i}。\n"
    for i in range(3))


def run_audit(tmp_path, *args, stderr_terminal: bool) -> tuple[int, bytes, bytes]:
    deck = tmp_path / "big.yaml"
    deck.write_text(DECK, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STUDYTOOL_HOME": str(tmp_path / "home"), "STUDYTOOL_LANG": "en",
           "LANG": "C.UTF-8", "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "studytool", "--deck-path", str(deck), "decks", "audit", "big", *args]
    if not stderr_terminal:
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        return result.returncode, result.stdout, result.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=follower) as process:
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:   # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
        out = process.stdout.read()
    os.close(leader)
    return process.returncode, out, seen


def test_a_terminal_sees_a_progress_bar(tmp_path):
    code, out, err = run_audit(tmp_path, stderr_terminal=True)
    assert b"Auditing" in err and b"\x1b[" in err
    assert b"Auditing" not in out


def test_a_pipe_and_json_get_no_bar(tmp_path):
    for args, terminal in (((), False), (("--json",), True)):
        code, out, err = run_audit(tmp_path, *args, stderr_terminal=terminal)
        assert b"Auditing" not in err and b"\x1b[" not in err, (args, err)
        assert out

"""What the backup and damage tests share: a small progress database, ways to damage it, and a one-card deck."""

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from studytool.study.store import Answer, Schedule, open_store

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def english(monkeypatch):
    """Messages are checked word for word: pin the interface language (an earlier test may have set zh)."""
    from studytool.i18n import set_language

    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    set_language(None)
    yield
    set_language(None)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "studytool.db"
    record(path, 3)
    return path


DECK = ("deck: one\ntitle: one card\nsource: tests\ncards:\n"
        "  - id: c0\n    kind: number\n    topic: softmax\n    q: 3 + 4 = ?\n    answer: 7\n")


def one_card_deck(folder: Path) -> str:
    """A deck whose one card takes the answer 7 (a command's first write comes at once)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "one.yaml").write_text(DECK, encoding="utf-8")
    return str(folder)


def record(db: Path, n: int, start: int = 0) -> None:
    with open_store(db, backups=False) as store:
        for i in range(start, start + n):
            answer = Answer(card=f"d/c{i}", topic="softmax", mode="review", rating=3, correct=True, answer="7",
                            seed=i, params={}, duration_ms=1, time=T0)
            store.record(answer, lambda prior: Schedule(2, None, 3.0, 5.0, T0 + timedelta(days=3), T0))


def three_days_of_one_card(store) -> None:
    """Card one/c0 answered Good three days in a row, ten to eight days before T0 (a review card by then)."""
    for day in range(3):
        when = T0 - timedelta(days=10 - day)
        store.record(Answer(card="one/c0", topic="softmax", mode="review", rating=3, correct=True, answer="7",
                            seed=None, params={"x": day}, duration_ms=1, time=when),
                     lambda prior, when=when: Schedule(2, None, 3.0, 5.0, T0, when))


def answers_in(db: Path) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        return con.execute("SELECT count(*) FROM reviews").fetchone()[0]
    finally:
        con.close()


def beside(db: Path) -> list[str]:
    """The journal and lock files next to the database."""
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name + "-"))


def damage_missed_by_quick_check(db: Path) -> None:
    """Make an index disagree with its table, its schema as the migrations wrote it: quick_check does not compare
    them, integrity_check does. (Under another definition the index misses an update of `due`.)"""
    for sql, then in (("CREATE INDEX cards_due ON cards (deck)", "UPDATE cards SET due = '2000-01-01T00:00:00.000000Z'"),
                      ("CREATE INDEX cards_due ON cards (due)", None)):
        con = sqlite3.connect(db)
        con.execute("PRAGMA writable_schema = ON")
        con.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'cards_due'", (sql,))
        con.commit()
        con.close()
        if then:
            con = sqlite3.connect(db)
            con.execute(then)
            con.commit()
            con.close()
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    assert con.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    assert con.execute("PRAGMA integrity_check").fetchall() != [("ok",)]
    con.close()


def write(db: Path) -> None:
    """One write through the store, as any command that writes does."""
    with open_store(db) as store:
        store.set_setting("x", "y")


def flipped_where_only_integrity_check_looks(pristine: bytes, seed: int, probe: Path) -> bytes:
    """Three bits flipped (random.Random(seed), as the tester did): quick_check passes, integrity_check fails."""
    import random

    rng = random.Random(seed)
    for _ in range(300):
        damaged = bytearray(pristine)
        for _ in range(3):
            damaged[rng.randrange(100, len(damaged))] ^= 1 << rng.randrange(8)
        probe.write_bytes(damaged)
        con = sqlite3.connect(f"file:{probe}?mode=ro&immutable=1", uri=True)
        try:
            if (con.execute("PRAGMA quick_check").fetchall() == [("ok",)]
                    and con.execute("PRAGMA integrity_check").fetchall() != [("ok",)]):
                return bytes(damaged)
        except (sqlite3.Error, UnicodeDecodeError):
            pass
        finally:
            con.close()
    raise AssertionError("no such flip in 300 tries")


def damage_cell_pointers(db: Path) -> None:
    """Point the first cells of index pages past the page end, as the tester's damage did: quick_check reports
    each cell on its own line ("On tree page 6 cell 1: Offset 65535 out of range ...")."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # every page in the file itself
    con.close()
    data = bytearray(db.read_bytes())
    for start in range(4096, len(data), 4096):
        if data[start] == 10:   # an index's leaf page: its cell pointers start 8 bytes in
            data[start + 8:start + 12] = b"\xff" * 4
    db.write_bytes(bytes(data))
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    report = con.execute("PRAGMA quick_check").fetchall()
    con.close()
    assert "Offset 65535 out of range" in report[0][0] and report[0][0].count("\n") >= 2


def damage_pages(db: Path) -> None:
    """Every page after the first (the schema) overwritten with one byte repeated, as a disk that lost them: any
    read of a table or an index is SQLite's "database disk image is malformed"; a store already open keeps its
    schema."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # every page in the file itself
    con.close()
    data = bytearray(db.read_bytes())
    data[4096:] = b"\xab" * (len(data) - 4096)
    db.write_bytes(bytes(data))

"""The progress store: schema, migrations, commits, undo, and refusing bad files untouched."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from studytool.errors import StudytoolError
from studytool.study.store import (
    MIGRATIONS, SCHEMA_VERSION, Answer, Schedule, Store, check_database, open_store,
)

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def answer(card="d/c1", *, mode="review", rating=3, correct=True, time=T0, topic="layernorm") -> Answer:
    return Answer(card=card, topic=topic, mode=mode, rating=rating, correct=correct, answer="[1, 2]",
                  seed=7, params={"x": [1, 2]}, duration_ms=1200, time=time)


def schedule(days: float, state: int = 2) -> Schedule:
    return Schedule(state=state, step=None, stability=3.5, difficulty=5.25, due=T0 + timedelta(days=days),
                    last_review=T0)


def test_new_database_is_created_with_parents_in_wal_mode(tmp_path):
    path = tmp_path / "a" / "b" / "studytool.db"
    with open_store(path) as store:
        assert store.version() == SCHEMA_VERSION
        assert store.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.con.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert check_database(path) == SCHEMA_VERSION


def test_record_commits_log_row_and_schedule(tmp_path):
    path = tmp_path / "s.db"
    with open_store(path) as store:
        store.record(answer(), lambda prior: schedule(2))
    # a second, independent connection sees it: it was committed
    con = sqlite3.connect(path)
    row = con.execute("SELECT card, topic, mode, rating, correct, answer, seed, params, duration_ms FROM reviews").fetchone()
    assert row == ("d/c1", "layernorm", "review", 3, 1, "[1, 2]", 7, '{"x": [1, 2]}', 1200)
    assert con.execute("SELECT key, deck, state, due FROM cards").fetchone() == (
        "d/c1", "d", 2, "2026-03-03T09:30:00.000000Z")


def test_quiz_answers_are_logged_without_a_schedule(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.record(answer(mode="quiz"))
        assert store.answers_total() == 1
        assert store.schedule("d/c1") is None


def test_reschedule_sees_the_stored_schedule(tmp_path):
    seen = []
    with open_store(tmp_path / "s.db") as store:
        store.record(answer(), lambda prior: (seen.append(prior), schedule(1))[1])
        store.record(answer(time=T0 + timedelta(days=1)), lambda prior: (seen.append(prior), schedule(5))[1])
        assert seen == [None, schedule(1)]
        assert store.schedule("d/c1") == schedule(5)


def test_undo_restores_previous_schedule_exactly_and_deletes_the_row(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.record(answer(), lambda prior: schedule(1.123456789))
        before = store.con.execute("SELECT * FROM cards").fetchall()
        last = store.record(answer(time=T0 + timedelta(days=1)), lambda prior: schedule(9, state=3))
        store.undo(last)
        assert [tuple(r) for r in store.con.execute("SELECT * FROM cards")] == [tuple(r) for r in before]
        assert store.answers_total() == 1
        first = store.con.execute("SELECT id FROM reviews").fetchone()[0]
        store.undo(first)
        assert store.schedule("d/c1") is None  # undoing a first answer makes the card new again
        assert store.answers_total() == 0


def test_due_is_ordered_and_bounded(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        for name, days in [("d/late", 5), ("d/soon", 1), ("d/now", 0)]:
            store.record(answer(name), lambda prior, days=days: schedule(days))
        assert [key for key, _s in store.due(T0 + timedelta(days=2))] == ["d/now", "d/soon"]
        plan = " ".join(str(r[-1]) for r in store.con.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM cards WHERE due <= '2026' ORDER BY due"))
        assert "cards_due" in plan  # the due query uses the index, not a scan


def test_new_cards_since_counts_first_reviews_only(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.record(answer("d/a"), lambda prior: schedule(0, state=1))
        store.record(answer("d/a", time=T0 + timedelta(minutes=1)), lambda prior: schedule(1))
        store.record(answer("d/b", mode="quiz"))
        assert store.new_cards_since(T0 - timedelta(hours=1)) == 1
        assert store.new_cards_since(T0 + timedelta(hours=1)) == 0


def make_v1(path) -> None:
    """A database as the first schema wrote it, with one answered card."""
    con = sqlite3.connect(path, isolation_level=None)
    Store(con, path).migrate(1)
    con.execute("INSERT INTO cards VALUES ('d/c1', 'd', 2, NULL, 3.5, 5.0, '2026-03-02T09:30:00.000000Z',"
                " '2026-03-01T09:30:00.000000Z')")
    con.execute("INSERT INTO reviews (card, time, mode, rating, correct, answer, seed, params, duration_ms)"
                " VALUES ('d/c1', '2026-03-01T09:30:00.000000Z', 'review', 3, 1, '42', 1, '{}', 900)")
    con.close()


def test_migrating_a_first_schema_database_keeps_its_progress(tmp_path):
    path = tmp_path / "v1.db"
    make_v1(path)
    assert check_database(path) == 1
    with open_store(path) as store:
        assert store.version() == SCHEMA_VERSION == 7
        assert store.schedule("d/c1").stability == 3.5
        assert store.answers_total() == 1
        # what migration 2 added works
        store.set_setting("desired_retention", "0.85")
        assert store.setting("desired_retention", "0.9") == "0.85"
        store.record(answer())
        assert [r.topic for r in store.log_since(T0 - timedelta(days=1))] == [None, "layernorm"]
        versions = [r[0] for r in store.con.execute("SELECT version FROM migrations ORDER BY version")]
        assert versions == [1, 2, 3, 4, 5, 6, 7]


def test_newer_schema_is_refused_and_untouched(tmp_path):
    path = tmp_path / "new.db"
    open_store(path).close()
    con = sqlite3.connect(path)
    con.execute("INSERT INTO migrations VALUES (?, 'future')", (SCHEMA_VERSION + 1,))
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StudytoolError, match="newer studytool"):
        open_store(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", [b"this is not a database at all\n" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_garbage_file_is_refused_naming_it_and_never_modified(tmp_path, content):
    path = tmp_path / "studytool.db"
    path.write_bytes(content)
    with pytest.raises(StudytoolError) as info:
        open_store(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["studytool.db"]


def test_damaged_page_is_refused_and_file_unchanged(tmp_path):
    path = tmp_path / "studytool.db"
    with open_store(path) as store:
        for i in range(300):
            store.record(answer(f"d/c{i}"), lambda prior: schedule(1))
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("PRAGMA journal_mode = DELETE")  # fold the WAL back so the damage is in the main file
    con.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page + 100: 3 * page + 400] = b"\x07" * 300  # scribble over a b-tree page
    path.write_bytes(bytes(data))
    with pytest.raises(StudytoolError) as info:
        open_store(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert path.read_bytes() == bytes(data)


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StudytoolError, match="not a studytool database"):
        open_store(path)
    assert path.read_bytes() == before


def test_migrations_are_append_only_tuples():
    assert SCHEMA_VERSION == len(MIGRATIONS)
    assert all(isinstance(step, str) and (";" not in step or step.startswith("CREATE TRIGGER"))  # a trigger's body
               for migration in MIGRATIONS for step in migration)


def test_an_answer_and_its_schedule_are_written_together_or_not_at_all(tmp_path):
    def broken(prior):
        raise ValueError("scheduler failed")

    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(ValueError):
            store.record(answer(), broken)
        assert store.answers_total() == 0 and store.schedule("d/c1") is None
        with pytest.raises(StudytoolError, match="s.db"):  # a failing write is a one-line error, rolled back
            store.record(answer(card=None))
        store.record(answer(), lambda prior: schedule(1))  # and the store is still usable
        assert store.answers_total() == 1


def test_a_batch_commits_its_writes_together_or_not_at_all(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(ValueError):
            with store.batch():
                store.record(answer(), lambda prior: schedule(1))
                raise ValueError("credit failed")
        assert store.answers_total() == 0 and store.schedule("d/c1") is None and not store.batching
        with store.batch():
            store.record(answer("d/c1"), lambda prior: schedule(1))
            store.record(answer("d/c2"), lambda prior: schedule(2))
            assert store.con.in_transaction   # one open transaction: nothing committed yet
        assert store.answers_total() == 2 and not store.con.in_transaction

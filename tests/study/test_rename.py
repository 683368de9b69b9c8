"""Progress follows a renamed deck or card: a database recorded under the old ids keeps every schedule."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from studytool.config import Settings
from studytool.decks.loader import load_decks
from studytool.decks.model import Card, Deck
from studytool.study.rename import follow, renames
from studytool.study.records import format_time, schedule_row
from studytool.study.store import Answer, Schedule, Store, open_store

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
OLD = "cs336-architecture"   # the bundled transformer-arch deck's id before the rename


def answer(card: str, *, minutes: int = 0, mode: str = "review") -> Answer:
    return Answer(card=card, topic="layernorm", mode=mode, rating=3, correct=True, answer="42", seed=1,
                  params={}, duration_ms=900, time=T0 + timedelta(minutes=minutes))


def schedule(days: float, *, reviewed: int = 0) -> Schedule:
    return Schedule(state=2, step=None, stability=2.5 + days, difficulty=5.0, due=T0 + timedelta(days=days),
                    last_review=T0 + timedelta(minutes=reviewed))


def deck(deck_id: str, *cards: tuple[str, tuple[str, ...]], formerly: tuple[str, ...] = ()) -> Deck:
    return Deck(deck=deck_id, title="t", source="", formerly=formerly,
                cards=tuple(Card(deck=deck_id, id=card_id, kind="recall", topic="layernorm", formerly=old)
                            for card_id, old in cards))


def table(con: sqlite3.Connection, sql: str) -> list[tuple]:
    return [tuple(row) for row in con.execute(sql)]


def record_old_database(path) -> None:
    """A database as studytool wrote it before the rename (schema 2), under the deck's old id."""
    con = sqlite3.connect(path, isolation_level=None)
    con.row_factory = sqlite3.Row
    Store(con, path).migrate(2)
    for n, card in enumerate(["emb-vs-onehot", "ln-formula-cs336", "gen-emb-params"]):
        record_in_schema_2(con, answer(f"{OLD}/{card}", minutes=n), schedule(n + 1, reviewed=n))
        record_in_schema_2(con, answer(f"{OLD}/{card}", minutes=10 + n), schedule(n + 4, reviewed=10 + n))
    record_in_schema_2(con, answer(f"{OLD}/a-card-since-removed"), schedule(9))
    record_in_schema_2(con, answer(f"{OLD}/emb-vs-onehot", minutes=30, mode="quiz"), None)
    record_in_schema_2(con, answer("p47-encoder/s2s-definition"), schedule(2))
    con.close()


def record_in_schema_2(con: sqlite3.Connection, given: Answer, after: Schedule | None) -> None:
    """An answer as studytool recorded it then: its log row with the schedule it found, then the card's new one."""
    found = con.execute("SELECT deck, state, step, stability, difficulty, due, last_review FROM cards WHERE key = ?",
                        (given.card,)).fetchone()
    con.execute("INSERT INTO reviews (card, topic, time, mode, rating, correct, answer, seed, params, duration_ms, prior)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?)",
                (given.card, given.topic, format_time(given.time), given.mode, given.rating, int(given.correct),
                 given.answer, given.seed, given.duration_ms, json.dumps(dict(found)) if found else None))
    if after is not None:
        con.execute("INSERT OR REPLACE INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
                    " VALUES (:key, :deck, :state, :step, :stability, :difficulty, :due, :last_review)",
                    {"key": given.card, "deck": given.card.split("/")[0], **schedule_row(after)})


def new_key(key: str) -> str:
    """Where a key of the old database belongs now: the deck renamed, and ln-formula-cs336 renamed in it."""
    return key.replace(f"{OLD}/", "transformer-arch/").replace("/ln-formula-cs336", "/ln-notes-formula")


def test_a_database_recorded_under_the_old_deck_id_keeps_every_schedule(tmp_path):
    path = tmp_path / "studytool.db"
    record_old_database(path)
    before = sqlite3.connect(path)
    schedules = table(before, "SELECT key, state, step, stability, difficulty, due, last_review FROM cards ORDER BY key")
    log = table(before, "SELECT id, card, time, mode, rating, answer FROM reviews ORDER BY id")
    before.close()
    decks = load_decks(Settings(home=tmp_path / "home"))
    with open_store(path) as store:
        moved = follow(store, decks)
        after = table(store.con, "SELECT key, state, step, stability, difficulty, due, last_review FROM cards ORDER BY key")
        # every schedule, value for value, now under the new deck id; the other deck untouched
        assert after == sorted((new_key(key), *rest) for key, *rest in schedules)
        assert {row[0] for row in table(store.con, "SELECT deck FROM cards")} == {"transformer-arch", "p47-encoder"}
        assert table(store.con, "SELECT id, card, time, mode, rating, answer FROM reviews ORDER BY id") == [
            (i, new_key(card), *rest) for i, card, *rest in log]
        assert [(m.old, m.new, m.reviews, m.schedule) for m in moved] == [
            (f"{OLD}/a-card-since-removed", "transformer-arch/a-card-since-removed", 1, "moved"),
            (f"{OLD}/emb-vs-onehot", "transformer-arch/emb-vs-onehot", 3, "moved"),
            (f"{OLD}/gen-emb-params", "transformer-arch/gen-emb-params", 2, "moved"),
            (f"{OLD}/ln-formula-cs336", "transformer-arch/ln-notes-formula", 2, "moved"),   # the card renamed too
        ]
        # logged in the database
        assert table(store.con, "SELECT old, new, reviews, schedule FROM renames ORDER BY id") == [
            (m.old, m.new, m.reviews, m.schedule) for m in moved]
        # the next open finds nothing to move and writes nothing
        assert follow(store, decks) == []
        assert store.con.execute("SELECT count(*) FROM renames").fetchone()[0] == 4


def test_undo_after_the_rename_restores_the_schedule_under_the_new_key(tmp_path):
    path = tmp_path / "studytool.db"
    record_old_database(path)
    with open_store(path) as store:
        follow(store, load_decks(Settings(home=tmp_path / "home")))
        last = store.con.execute("SELECT max(id) FROM reviews WHERE card = 'transformer-arch/gen-emb-params'").fetchone()[0]
        assert json.loads(store.con.execute("SELECT prior FROM reviews WHERE id = ?", (last,)).fetchone()[0])["deck"] == (
            "transformer-arch")
        store.undo(last)
        assert store.schedule("transformer-arch/gen-emb-params") == schedule(3, reviewed=2)
        assert store.con.execute("SELECT deck FROM cards WHERE key = 'transformer-arch/gen-emb-params'").fetchone()[0] == (
            "transformer-arch")


def test_a_renamed_card_takes_its_progress_along(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.record(answer("d/old-name"), lambda prior: schedule(3))
        store.record(answer("d/other"), lambda prior: schedule(1))
        moved = follow(store, [deck("d", ("new-name", ("old-name",)), ("other", ()))])
        assert [(m.old, m.new) for m in moved] == [("d/old-name", "d/new-name")]
        assert store.schedule("d/new-name") == schedule(3) and store.schedule("d/old-name") is None
        assert store.schedule("d/other") == schedule(1)


def test_a_card_renamed_in_a_renamed_deck_follows_both(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.record(answer("old-deck/old-card"), lambda prior: schedule(3))
        follow(store, [deck("new-deck", ("new-card", ("old-card",)), formerly=("old-deck",))])
        assert store.scheduled_keys() == {"new-deck/new-card"}


def test_when_both_keys_were_studied_the_newer_schedule_stays_and_the_other_is_logged(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        store.record(answer("d/old", minutes=5), lambda prior: schedule(7, reviewed=5))
        store.record(answer("d/new"), lambda prior: schedule(1))
        [moved] = follow(store, [deck("d", ("new", ("old",)))])
        assert moved.schedule == "replaced"
        assert store.schedule("d/new") == schedule(7, reviewed=5) and store.schedule("d/old") is None
        assert store.answers_total() == 2   # both answers kept, both under the new key
        assert {row[0] for row in table(store.con, "SELECT card FROM reviews")} == {"d/new"}
        displaced = json.loads(store.con.execute("SELECT displaced FROM renames").fetchone()[0])
        assert displaced["cards"]["stability"] == schedule(1).stability and displaced["cards"]["key"] == "d/new"


def test_a_former_id_that_a_live_deck_or_card_uses_is_never_moved(tmp_path):
    decks = [deck("a", ("x", ()), formerly=("b",)), deck("b", ("y", ("x",)), ("x", ()))]
    plan = renames(decks)
    assert plan.decks == {}                                   # b is a live deck: its keys stay
    assert plan.target("b/x") is None and plan.target("b/y") is None and plan.target("a/x") is None
    with open_store(tmp_path / "s.db") as store:
        store.record(answer("b/x"), lambda prior: schedule(3))
        assert follow(store, decks) == []
        assert store.scheduled_keys() == {"b/x"}


def test_the_bundled_rename_is_declared():
    plan = renames(load_decks(Settings()))
    assert plan.decks == {OLD: "transformer-arch"}
    assert plan.target(f"{OLD}/gen-emb-params") == "transformer-arch/gen-emb-params"


def test_merged_cards_keep_both_histories_and_the_newer_schedule(tmp_path):
    # two old cards merged into one (formerly: [a, b]): every answer of both moves, the later-reviewed schedule stays
    with open_store(tmp_path / "s.db") as store:
        store.record(answer("d/a"), lambda prior: schedule(2, reviewed=0))
        store.record(answer("d/b", minutes=9), lambda prior: schedule(6, reviewed=9))
        moved = follow(store, [deck("d", ("ab", ("a", "b")))])
        assert [(m.old, m.schedule) for m in moved] == [("d/a", "moved"), ("d/b", "replaced")]
        assert store.scheduled_keys() == {"d/ab"} and store.schedule("d/ab") == schedule(6, reviewed=9)
        assert store.answers_total() == 2 and {r[0] for r in table(store.con, "SELECT card FROM reviews")} == {"d/ab"}


def test_a_former_id_that_is_a_live_cards_id_is_refused_by_the_check(tmp_path):
    from studytool.decks.loader import DeckError, load_deck_file
    from studytool.i18n import set_language

    path = tmp_path / "d.yaml"
    path.write_text("deck: d\ntitle: t\ncards:\n"
                    "  - {id: a, kind: recall, topic: softmax, q: Q, a: A}\n"
                    "  - {id: b, formerly: [a], kind: recall, topic: softmax, q: Q2, a: A2}\n", encoding="utf-8")
    set_language("en")
    try:
        with pytest.raises(DeckError) as error:
            load_deck_file(path)
    finally:
        set_language(None)
    assert error.value.problems == [f"{path}:5:24: former id 'a' is the id of the card on line 4; "
                                    "a card's former ids must be ids no card has now"]


def test_stats_counts_an_old_databases_cards_under_the_new_deck(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from studytool.cli.app import app

    home = tmp_path / "home"
    home.mkdir()
    record_old_database(home / "studytool.db")   # 4 cards scheduled under cs336-architecture, 1 under p47-encoder
    monkeypatch.setenv("STUDYTOOL_HOME", str(home))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    result = CliRunner().invoke(app, ["stats", "--json"])
    assert result.exit_code == 0, result.output
    decks = {row["deck"]: row for row in json.loads(result.stdout)["decks"]}
    assert OLD not in decks
    arch = decks["transformer-arch"]
    assert arch["learning"] + arch["review"] == 3   # the three live cards; the removed one keeps its row, unlisted
    assert sqlite3.connect(home / "studytool.db").execute(
        "SELECT count(*) FROM cards WHERE deck = 'transformer-arch'").fetchone()[0] == 4
    said = " ".join(result.stderr.split())   # one notice on stderr (stdout stays one JSON document)
    assert said == (f"moved the progress of 4 cards to their new ids (first: {OLD}/a-card-since-removed → "
                    "transformer-arch/a-card-since-removed); each move is logged in the database's renames table")
    again = CliRunner().invoke(app, ["stats", "--json"])
    assert again.exit_code == 0 and again.stderr == ""   # moved once: nothing to say the next time

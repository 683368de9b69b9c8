"""Progress follows a renamed deck or card: keys recorded under a former id are re-keyed.

A deck or card declares its former ids (`formerly: [...]`). Progress is keyed
by `deck/id`, so without this a rename would leave every schedule and answer
behind under a key no card has any more. Right after the store is opened,
`follow` moves them: the schedule row, every log row and the card's flags go
from the old key to the new one (a deck's own settings from the old deck id to
the new), in one transaction, each move written to the `renames` table.

A key under a former deck id whose card no longer exists (a removed card) moves
to the new deck id too, so the deck's whole history stays together. A key that
is some live card's key is never moved away from it. If the new key already
has a schedule (both names were studied), the more recently reviewed schedule
stays; whatever gives way is kept, as JSON, in the `renames` row, so nothing is lost.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studytool.config import now
from studytool.i18n import _
from studytool.study.store import Store, format_time

if TYPE_CHECKING:
    from studytool.decks.model import Deck


@dataclass(frozen=True)
class Renames:
    """Where progress under former ids belongs: exact card keys, and former deck ids (for removed cards)."""

    keys: dict[str, str]    # old deck/id -> new deck/id
    decks: dict[str, str]   # old deck id -> new deck id

    def target(self, key: str) -> str | None:
        """The key progress under `key` moves to, or None if it stays."""
        if key in self.keys:
            return self.keys[key]
        deck, _, card = key.partition("/")
        return f"{self.decks[deck]}/{card}" if deck in self.decks else None


def renames(decks: Sequence[Deck]) -> Renames:
    """Every former key of the live cards, and every former deck id, that no live deck or card uses."""
    live_decks = {deck.deck for deck in decks}
    live_keys = {card.key for deck in decks for card in deck.cards}
    keys: dict[str, str] = {}
    former_decks: dict[str, str] = {}
    for deck in decks:
        names = [deck.deck, *(old for old in deck.formerly if old not in live_decks)]
        former_decks |= {old: deck.deck for old in names[1:]}
        for card in deck.cards:
            for name in names:
                for card_id in (card.id, *card.formerly):
                    old = f"{name}/{card_id}"
                    if old not in live_keys:
                        keys[old] = card.key
    return Renames(keys, former_decks)


@dataclass(frozen=True)
class Moved:
    """One key re-keyed: how many log rows went with it, and whether its schedule moved or was displaced."""

    old: str
    new: str
    reviews: int
    schedule: str   # "moved", "kept" (the new key's was newer), "replaced" (the old one was newer), or "none"


def follow(store: Store, decks: Sequence[Deck]) -> list[Moved]:
    """Re-key progress recorded under former ids of `decks`, in one write transaction; the moves made.

    Called right after the store is opened. Nothing to move costs a few index
    look-ups and writes nothing.
    """
    plan = renames(decks)
    if not plan.keys and not plan.decks:
        return []
    tables = _keyed_tables(store.con)
    if not _pending(store.con, plan, tables) and not _deck_settings(store.con, plan):
        return []                         # the common case: read, find nothing, take no write lock
    with store.transaction() as con:      # looked up again: another session may have moved them meanwhile
        for old in _deck_settings(con, plan):
            _log(con, old, plan.decks[old], 0, "none", _move_rows(con, "deck_settings", "deck", old, plan.decks[old]))
        return [_move(con, old, plan.target(old), tables) for old in _pending(con, plan, tables)]


# tables keyed by deck/id, with the column that holds it (card_flags: from schema 4 on)
KEYED = (("cards", "key"), ("reviews", "card"), ("card_flags", "key"))


def _keyed_tables(con: sqlite3.Connection) -> tuple[tuple[str, str], ...]:
    names = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return tuple((table, column) for table, column in KEYED if table in names)


def _deck_settings(con: sqlite3.Connection, plan: Renames) -> list[str]:
    """Former deck ids that still have settings of their own."""
    if not plan.decks or not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'deck_settings'").fetchone():
        return []
    marks = ", ".join("?" * len(plan.decks))
    return [row[0] for row in con.execute(f"SELECT DISTINCT deck FROM deck_settings WHERE deck IN ({marks})",
                                          list(plan.decks))]


def notice(moved: Sequence[Moved]) -> str | None:
    """The one line that tells the learner progress moved (None when nothing did)."""
    if not moved:
        return None
    return _("moved the progress of {cards} cards to their new ids (first: {old} → {new}); "
             "each move is logged in the database's renames table").format(
        cards=len(moved), old=moved[0].old, new=moved[0].new)


def _pending(con: sqlite3.Connection, plan: Renames, tables) -> list[str]:
    return sorted(key for key in _recorded(con, plan, tables) if plan.target(key) not in (None, key))


def _recorded(con: sqlite3.Connection, plan: Renames, tables) -> set[str]:
    """The recorded keys (schedules, log, flags) that have somewhere to move; uses the key indexes."""
    found: set[str] = set()
    for table, column in tables:
        # a deck's keys are the range [deck/, deck0): '0' is the character after '/'
        for deck in plan.decks:
            found |= {row[0] for row in con.execute(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} >= ? AND {column} < ?", (f"{deck}/", f"{deck}0"))}
        for chunk in _chunks([key for key in plan.keys if key.partition("/")[0] not in plan.decks], 500):
            marks = ", ".join("?" * len(chunk))
            found |= {row[0] for row in con.execute(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} IN ({marks})", chunk)}
    return found


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _move(con: sqlite3.Connection, old: str, new: str, tables) -> Moved:
    new_deck = new.partition("/")[0]
    reviews = con.execute(
        "UPDATE reviews SET card = ?, prior = CASE WHEN prior IS NULL THEN NULL ELSE json_set(prior, '$.deck', ?) END"
        " WHERE card = ?", (new, new_deck, old)).rowcount
    outcome, displaced = _move_schedule(con, old, new, new_deck)
    if ("card_flags", "key") in tables:
        displaced |= _move_rows(con, "card_flags", "key", old, new)
    _log(con, old, new, reviews, outcome, displaced)
    return Moved(old, new, reviews, outcome)


def _move_schedule(con: sqlite3.Connection, old: str, new: str, new_deck: str) -> tuple[str, dict]:
    """The schedule row moves; if the new key has one too, the more recently reviewed one stays."""
    before = con.execute("SELECT * FROM cards WHERE key = ?", (old,)).fetchone()
    there = con.execute("SELECT * FROM cards WHERE key = ?", (new,)).fetchone()
    if before is None:
        return "none", {}
    if there is None:
        con.execute("UPDATE cards SET key = ?, deck = ? WHERE key = ?", (new, new_deck, old))
        return "moved", {}
    newer_old = (before["last_review"] or "") > (there["last_review"] or "")
    con.execute("DELETE FROM cards WHERE key = ?", (old if not newer_old else new,))
    if newer_old:
        con.execute("UPDATE cards SET key = ?, deck = ? WHERE key = ?", (new, new_deck, old))
    return ("replaced", {"cards": dict(there)}) if newer_old else ("kept", {"cards": dict(before)})


def _move_rows(con: sqlite3.Connection, table: str, column: str, old: str, new: str) -> dict:
    """Rows of `table` move from `old` to `new`; where the new id has the same row already, that one wins
    and the old one is returned (to be logged) instead of staying behind to be found on every open."""
    con.execute(f"UPDATE OR IGNORE {table} SET {column} = ? WHERE {column} = ?", (new, old))
    left = [dict(row) for row in con.execute(f"SELECT * FROM {table} WHERE {column} = ?", (old,))]
    con.execute(f"DELETE FROM {table} WHERE {column} = ?", (old,))
    return {table: left} if left else {}


def _log(con: sqlite3.Connection, old: str, new: str, reviews: int, outcome: str, displaced: dict) -> None:
    con.execute("INSERT INTO renames (time, old, new, reviews, schedule, displaced) VALUES (?, ?, ?, ?, ?, ?)",
                (format_time(now()), old, new, reviews, outcome,
                 json.dumps(displaced, ensure_ascii=False) if displaced else None))

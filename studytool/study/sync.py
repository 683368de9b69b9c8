"""Two computers, one progress: merging through a folder that something else keeps equal (Syncthing, Dropbox,
a network drive, a USB stick, a git repository), with no server and no network code.

Each home has a random device id and writes its own events to `FOLDER/<device>.jsonl` (the files:
`journal.py`; a line: `events.py`; another device's lines read and checked: `arrivals.py`), never another
device's. An event is an answer, the retraction of an answer (`:undo` after it was journaled), a card's flags
(suspended, buried, leech, forgotten) or a setting that follows the learner. `sync`, in one transaction:

1. names as events what happened here since the last sync (answers not yet journaled; flags and settings that
   differ from the last event about them; answers journaled and since undone, as retractions);
2. reads every other journal from where it stopped, adding events it has not seen (by id: twice is once);
3. sets each changed card's flags and each changed setting to its last event, and rebuilds the schedule of
   every card an event touched by replaying its merged history through the same scheduler;

then appends this home's new events to its journal (rebuilding it if it was deleted or cut short). A sync
killed before the transaction ends leaves nothing; one killed after it, lines to append, which the next does.
A sync with nothing to do writes nothing: its time goes to the lock file beside the database (`synced.py`).

Events are ordered by (time, device, sequence) on every computer, so every computer that has read the same
journals computes the same schedules, whatever order it synced in and however far its clock is off.

The replay keeps up with 100,000 answers because an answer carries the schedule it left and what that was
worked out under (its memo: the schedule before it; the rules, time zone and code that worked it out; its count):
a replay that reaches the answer with that same schedule, under those same rules, takes the result instead
of working it out again. That is the scheduler's own answer, remembered, so a replay gives what working every
answer out would give; an answer reached from another schedule (two computers answered the card between
syncs), under other rules, or whose memo is damaged, is worked out.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study import arrivals, journal
from studytool.study.arrivals import LOCAL_SETTINGS
from studytool.study.records import BadRow, format_time, parse_time, schedule_from_row, schedule_row
from studytool.study.store import Schedule, Store
from studytool.study.synced import last_sync, lock_path

if TYPE_CHECKING:
    from studytool.study.events import Event

_NUMBER = r"(?:null|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"
_TIME = r'"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"'
SCHEDULE_TEXT = re.compile(   # a schedule as `_text` writes it: what a memo's `after` must be to be taken
    rf'\{{"deck": "(?P<deck>[a-z0-9][a-z0-9-]{{0,99}})", "state": (?P<state>[123]), "step": (?:null|\d{{1,3}}), '
    rf'"stability": {_NUMBER}, "difficulty": {_NUMBER}, "due": {_TIME}, "last_review": (?:null|{_TIME})\}}')
DEVICE_SETTING = "sync_device"      # a raw settings row, never journaled: this home's own
ANSWER_COLUMNS = ("card", "topic", "time", "mode", "rating", "correct", "answer", "seed", "params", "duration_ms")
FLAG_COLUMNS = ("suspended", "buried_until", "leech", "reset_at", "flag")


@dataclass
class Report:
    folder: Path
    device: str
    written: int = 0
    read: int = 0
    cards: int = 0
    rebuilt: bool = False
    problems: list[str] = field(default_factory=list)   # one line each: a skipped line, a refused journal

    def to_json(self) -> dict[str, Any]:
        return {"folder": str(self.folder), "device": self.device, "written": self.written, "read": self.read,
                "cards": self.cards, "journal_rebuilt": self.rebuilt, "problems": self.problems}


def device_id(store: Store) -> str:
    """This home's device id, made on first use (random: two homes never share one)."""
    device = store.setting(DEVICE_SETTING, "")
    if not journal.DEVICE.match(device):
        import secrets

        device = secrets.token_hex(8)
        store.set_setting(DEVICE_SETTING, device)
    return device


def folder_of(text: str) -> Path:
    """The sync folder as given: it must exist and be a folder (a typo must not create one somewhere)."""
    folder = Path(text).expanduser()
    if not folder.is_dir():
        raise StudytoolError(_("sync folder {folder} does not exist or is not a folder").format(folder=folder))
    return folder.resolve()


def remember(store: Store, given: str | None) -> Path | None:
    """The sync folder: `given` (remembered as `config sync_dir`, written only when it changes: a sync with nothing
    new writes nothing), else the one remembered, else None."""
    from studytool.study import settings

    if given is None:
        remembered = settings.get(store, "sync_dir")
        return folder_of(remembered) if remembered else None
    folder = folder_of(given)
    if settings.get(store, "sync_dir") != str(folder):
        settings.put(store, "sync_dir", str(folder))
    return folder


@contextmanager
def _one_at_a_time(store: Store) -> Iterator[IO[bytes]]:
    """Two `sync` runs on one home at once take turns (the second waits), so no line is written twice."""
    import fcntl

    with open(lock_path(store), "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield lock
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _note_synced(lock: IO[bytes], now: datetime) -> None:
    lock.seek(0)
    lock.truncate()
    lock.write(format_time(now).encode())
    lock.flush()


def sync(store: Store, folder: Path, now: datetime) -> Report:
    """One sync of this home with `folder` (see the module's docstring)."""
    with _one_at_a_time(store) as lock:
        device = device_id(store)
        report = Report(folder, device)
        if _settled(store.con, folder, device):
            _note_synced(lock, now)
            return report
        from studytool.decks.cache import gc_paused

        with store.transaction() as con, gc_paused():
            _merge(store, con, folder, device, now, report)   # the events it read are gone when the collector is back
        report.rebuilt = _write_journal(store, folder, device)
        _note_synced(lock, now)
        return report


def _merge(store: Store, con: Any, folder: Path, device: str, now: datetime, report: Report) -> None:
    """The steps 1-3 of the module's docstring, in the sync's transaction; what they did goes into `report`."""
    decisions = _journal_decisions(con, device, format_time(now))
    answers = _name_answers(con, device)
    fresh = _read_others(con, folder, device, report)
    arrived, touched = _apply(con, fresh)
    _replay(store, touched | {card for _id, card in answers} | set(decisions), arrived)
    _journal_answers(con, device, answers)
    report.written, report.read, report.cards = len(answers) + len(decisions), len(fresh), len(touched)


# --- 0. anything to do? ----------------------------------------------------------------------------------


def _settled(con: Any, folder: Path, device: str) -> bool:
    """Whether a sync would change nothing, read without writing: nothing here to journal, every journal line
    of this home written, and every other journal read to its end. (A sync that writes nothing opens nothing for
    writing: no full check of the file, no day's backup.)"""
    if con.execute("SELECT 1 FROM reviews WHERE event IS NULL LIMIT 1").fetchone() or _undone_count(con, device):
        return False
    if (_changed(_flags_here(con), _last(con, "flags"), gone=False)
            or _changed(_settings_here(con), _last(con, "setting"))):
        return False
    read = {name: (offset, line) for name, offset, line in con.execute("SELECT device, offset, line FROM sync_read")}
    if device not in read or read[device][1] != _next_seq(con, device) - 1:
        return False
    try:   # a journal that changes or goes away meanwhile: the sync proper says what it finds
        return all(journal.path_of(folder, other).stat().st_size == read.get(other, (0, 0))[0]
                   for other in {device, *journal.devices_in(folder)})
    except OSError:
        return False


def _undone_count(con: Any, device: str) -> int:
    """How many of this home's journaled answers were undone and not yet retracted (each has one or the other:
    its row in `reviews`, or a retraction)."""
    low, high = f"{device}-", f"{device}."   # this device's event ids, as a range of the `reviews_event` index
    events = con.execute("SELECT count(*) FROM sync_events WHERE device = ? AND kind = 'answer'",
                         (device,)).fetchone()[0]
    kept = con.execute("SELECT count(*) FROM reviews WHERE event >= ? AND event < ?", (low, high)).fetchone()[0]
    retracted = con.execute("SELECT count(*) FROM sync_events WHERE device = ? AND kind != 'answer'"
                            " AND kind = 'retract'", (device,)).fetchone()[0]
    return events - kept - retracted


# --- 1. what happened here ------------------------------------------------------------------------------


def _next_seq(con: Any, device: str) -> int:
    return (con.execute("SELECT max(seq) FROM sync_events WHERE device = ?", (device,)).fetchone()[0] or 0) + 1


def _event_id(device: str, seq: int) -> str:
    return f"{device}-{seq}"


def _add(con: Any, device: str, seq: int, time: str, kind: str, card: str | None, body: dict[str, Any]) -> None:
    con.execute("INSERT INTO sync_events (device, seq, time, kind, card, body) VALUES (?, ?, ?, ?, ?, ?)",
                (device, seq, time, kind, card, _body_text(body)))


def _body_text(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def _name_answers(con: Any, device: str) -> list[tuple[int, str]]:
    """Give this home's answers not yet journaled their event ids, in the order they were given; their lines are
    made after the replay (`_journal_answers`), which works out the schedule each carries. (id, card) each."""
    seq = _next_seq(con, device)
    rows = con.execute("SELECT id, card FROM reviews WHERE event IS NULL ORDER BY id").fetchall()
    con.executemany("UPDATE reviews SET event = ? WHERE id = ?",
                    [(_event_id(device, seq + n), row_id) for n, (row_id, _card) in enumerate(rows)])
    return [(row_id, card) for row_id, card in rows]


def _journal_decisions(con: Any, device: str, now: str) -> list[str | None]:
    """Record as events this home's retractions, flags and settings since the last sync; the card of each (None:
    a setting)."""
    seq, made = _next_seq(con, device), []

    def add(kind: str, card: str | None, body: dict[str, Any]) -> None:
        _add(con, device, seq + len(made), now, kind, card, body)
        made.append(card)

    if _undone_count(con, device):
        for own_seq, card in con.execute(
                "SELECT e.seq, e.card FROM sync_events e WHERE e.device = ? AND e.kind = 'answer'"
                " AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.event = e.device || '-' || e.seq)"
                " AND NOT EXISTS (SELECT 1 FROM sync_events x WHERE x.device = e.device AND x.kind != 'answer'"
                " AND x.kind = 'retract' AND x.card = e.card"
                " AND json_extract(x.body, '$.event') = e.device || '-' || e.seq)"
                " ORDER BY e.seq", (device,)).fetchall():
            add("retract", card, {"event": _event_id(device, own_seq)})
    for card, flags in sorted(_changed(_flags_here(con), _last(con, "flags"), gone=False).items()):
        add("flags", card, flags)
    for name, value in sorted(_changed(_settings_here(con), _last(con, "setting")).items()):
        add("setting", None, {"name": name, "value": value})
    return made


def _journal_answers(con: Any, device: str, answers: list[tuple[int, str]]) -> None:
    """The events of this home's newly named answers, each with the schedule the replay gave it (its memo)."""
    columns = ", ".join((*ANSWER_COLUMNS, "prior", "after", "memo"))
    for chunk in _chunks([row_id for row_id, _card in answers]):
        rows = con.execute(f"SELECT event, {columns} FROM reviews WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
        events = []
        for row in rows:
            body = {name: row[name] for name in ANSWER_COLUMNS}
            body["params"] = json.loads(body["params"] or "{}")
            body.update(prior=row["prior"], after=row["after"], memo=row["memo"])
            events.append((device, int(row["event"].rpartition("-")[2]), row["time"], "answer", row["card"],
                           _body_text(body)))
        con.executemany("INSERT INTO sync_events (device, seq, time, kind, card, body) VALUES (?, ?, ?, ?, ?, ?)",
                        events)


def _flags_here(con: Any) -> dict[str, dict[str, Any]]:
    return {row["key"]: {name: row[name] for name in FLAG_COLUMNS}
            for row in con.execute(f"SELECT key, {', '.join(FLAG_COLUMNS)} FROM card_flags")}


def _settings_here(con: Any) -> dict[str, Any]:
    """The settings that follow the learner: `name` for a global value, `deck:name` for a deck's own."""
    from studytool.study.settings import KEYS

    names = [name for name in KEYS if name not in LOCAL_SETTINGS]
    marks = ", ".join("?" * len(names))
    found = {name: value for name, value in con.execute(f"SELECT name, value FROM settings WHERE name IN ({marks})",
                                                         names)}
    found.update({f"{deck}:{name}": value for deck, name, value in con.execute(
        f"SELECT deck, name, value FROM deck_settings WHERE name IN ({marks})", names)})
    return found


def _last(con: Any, kind: str) -> dict[str, Any]:
    """Per card (flags) or setting name: the body of the last event of `kind`, in the one order of events."""
    last: dict[str, Any] = {}
    for card, body in con.execute("SELECT card, body FROM sync_events WHERE kind != 'answer' AND kind = ?"
                                  " ORDER BY time, device, seq", (kind,)):
        body = json.loads(body)
        if kind == "flags":
            last[card] = body
        else:
            last[body["name"]] = body["value"]
    return last


def _changed(here: dict[str, Any], last: dict[str, Any], *, gone: bool = True) -> dict[str, Any]:
    """What differs here from the last event about it (with `gone`, what was removed here: None)."""
    removed = {name: None for name in last if gone and name not in here and last[name] is not None}
    return {**removed, **{name: value for name, value in here.items() if last.get(name) != value}}


# --- 2. this device's journal ----------------------------------------------------------------------------


def _write_journal(store: Store, folder: Path, device: str) -> bool:
    """Append this device's events that its journal lacks; rebuild the journal if it is gone or cut short.
    Whether it was rebuilt."""
    from studytool.study import events

    path = journal.path_of(folder, device)
    con = store.con
    row = con.execute("SELECT offset, line FROM sync_read WHERE device = ?", (device,)).fetchone()
    offset, written = (row[0], row[1]) if row else (0, 0)
    size = path.stat().st_size if path.exists() else -1
    rebuild = row is not None and size < offset or row is None and size > 0   # deleted or cut short; not ours
    if not rebuild and size > offset:   # a sync killed after its write, before noting it: what made it
        for line in journal.lines_from(path, offset, written + 1):
            if line.text is None:       # its own torn tail: cut, then written again whole
                os.truncate(path, line.start)
                break
            written, offset = line.number, line.end
    pending = [events.Event(_event_id(device, seq), device, seq, time, kind, card,
                            events.body_of(kind, json.loads(body)))
               for seq, time, kind, card, body in con.execute(
                   "SELECT seq, time, kind, card, body FROM sync_events WHERE device = ? AND seq > ? ORDER BY seq",
                   (device, 0 if rebuild else written))]
    if rebuild:
        offset = journal.rewrite(path, [events.line_of(event) for event in pending])
    elif pending or size < 0:
        offset = journal.append(path, [events.line_of(event) for event in pending])
    last = pending[-1].seq if pending else written
    if row is None or (offset, last) != (row[0], row[1]):
        with store.transaction() as con:
            con.execute("INSERT OR REPLACE INTO sync_read (device, offset, line) VALUES (?, ?, ?)",
                        (device, offset, last))
    return rebuild


# --- 3. the other journals -------------------------------------------------------------------------------


def _read_others(con: Any, folder: Path, device: str, report: Report) -> list[Event]:
    """The events of the other devices' journals that this home has not seen, stored but for the answers (the
    replay stores them with the schedule each found); where reading stopped is noted for each (before the first
    bad line, read again next time)."""
    import msgspec

    read = {name: (offset, line) for name, offset, line in con.execute("SELECT device, offset, line FROM sync_read")}
    fresh: list[Event] = []
    for other in journal.devices_in(folder):
        if other == device:
            continue
        path = journal.path_of(folder, other)
        offset, line = read.get(other, (0, 0))
        if path.stat().st_size < offset:   # its owner rebuilt it: read it again from the start (ids dedupe)
            offset, line = 0, 0
        arrived = arrivals.read(path, other, offset, line, _known(con, other, line))
        report.problems.extend(arrived.problems)
        con.executemany("INSERT INTO sync_events (device, seq, time, kind, card, body) VALUES (?, ?, ?, ?, ?, ?)",
                        [(other, event.seq, event.time, event.kind, event.card,
                          _body_text(msgspec.structs.asdict(event.body)))
                         for event in arrived.events if event.kind != "answer"])
        if arrived.resume != read.get(other, (0, 0)):   # an empty journal never read needs no note
            con.execute("INSERT OR REPLACE INTO sync_read (device, offset, line) VALUES (?, ?, ?)",
                        (other, *arrived.resume))
        fresh.extend(arrived.events)
    return fresh


def _known(con: Any, device: str, line: int) -> set[int]:
    """The sequence numbers past `line` of `device`'s events this home has (read past a bad line last time; all of
    them when its journal is read again from the start): another device's answer is known by its row in
    `reviews`, any other event by its row in `sync_events`."""
    low, high = f"{device}-", f"{device}."
    known = {seq for (seq,) in con.execute("SELECT seq FROM sync_events WHERE device = ? AND seq > ?", (device, line))}
    known.update(seq for (seq,) in con.execute(
        "SELECT CAST(substr(event, 18) AS INTEGER) AS seq FROM reviews WHERE event >= ? AND event < ? AND seq > ?",
        (low, high, line)))
    return known


# --- 4. merging ------------------------------------------------------------------------------------------


def _apply(con: Any, events: list[Event]) -> tuple[list[Event], set[str]]:
    """Bring the new events into the tables but for the answers; the answers to add (none retracted), and the cards
    whose schedule must be replayed."""
    touched, flagged, settings = set(), set(), set()
    retracted = {event for (event,) in con.execute(   # a retraction may come first: its answer's line was damaged
        "SELECT json_extract(body, '$.event') FROM sync_events WHERE kind != 'answer' AND kind = 'retract'")}
    arrived = []
    for event in events:
        if event.kind == "answer" and event.event not in retracted:
            arrived.append(event)
            touched.add(event.card)
        elif event.kind == "retract":
            con.execute("DELETE FROM reviews WHERE event = ?", (event.body.event,))
            touched.add(event.card)
        elif event.kind == "flags":
            flagged.add(event.card)
        elif event.kind == "setting":
            settings.add(event.body.name)
    last_flags, flags_here = _last(con, "flags"), _flags_here(con)
    for card in flagged:
        flags = last_flags[card]
        if flags_here.get(card) != flags:
            con.execute(f"INSERT INTO card_flags (key, {', '.join(FLAG_COLUMNS)}, leech_review)"
                        f" VALUES (?, {', '.join('?' * len(FLAG_COLUMNS))}, NULL)"
                        f" ON CONFLICT (key) DO UPDATE SET {', '.join(f'{n} = excluded.{n}' for n in FLAG_COLUMNS)},"
                        " leech_review = NULL", (card, *(flags[name] for name in FLAG_COLUMNS)))
            touched.add(card)   # a forget (reset_at) changes what the replay counts
    last_settings = _last(con, "setting")
    for name in settings:
        deck, _colon, key = name.rpartition(":")
        value = last_settings[name]
        where = ("deck_settings", "deck = ? AND name = ?", (deck, key)) if deck else ("settings", "name = ?", (key,))
        con.execute(f"DELETE FROM {where[0]} WHERE {where[1]}", where[2])
        if value is not None and deck:
            con.execute("INSERT INTO deck_settings (deck, name, value) VALUES (?, ?, ?)", (deck, key, value))
        elif value is not None:
            con.execute("INSERT INTO settings (name, value) VALUES (?, ?)", (key, value))
    return arrived, touched


@dataclass(frozen=True)
class _Deck:
    """What replaying one deck's cards needs: its scheduler, and the name of what that scheduler works under."""
    scheduler: Any
    under: str


_ADD_SQL = (f"INSERT INTO reviews ({', '.join(ANSWER_COLUMNS)}, event, prior, prior_state, memo, after)"
            f" VALUES ({', '.join('?' * len(ANSWER_COLUMNS))}, ?, ?, ?, ?, ?)")
_MOVED_SQL = "UPDATE reviews SET prior = ?, prior_state = ?, memo = ?, after = ? WHERE {} = ?"


def _replay(store: Store, cards: set[str | None], arrived: list[Event]) -> None:
    """Each card's schedule from its merged history (its answers stored here and those that `arrived`, which are
    stored with it), answer by answer, through the same scheduler, taking each answer's memo where it applies (the
    module's docstring); each answer's `prior` (what `:undo` puts back, what stats count by) is the schedule the
    replay found before it."""
    keys = sorted(card for card in cards if card is not None)
    if not keys:
        return   # nothing to replay: fsrs is not even imported
    from studytool.study.queue import study_rules
    from studytool.study.scheduler import Scheduler

    con, rules = store.con, study_rules(store)   # read now: the merge may have changed the settings
    schedulers = {deck: Scheduler(rules(deck)) for deck in {key.split("/", 1)[0] for key in keys}}
    replaying = {deck: _Deck(scheduler, _worked_out_under(scheduler.rules)) for deck, scheduler in schedulers.items()}
    resets = dict(con.execute("SELECT key, reset_at FROM card_flags WHERE reset_at IS NOT NULL"))
    # a bulk load: more arrive than are stored (a new computer)
    bulk = con.execute("SELECT count(*) FROM reviews").fetchone()[0] < len(arrived)
    histories: dict[str, list[tuple[Any, ...]]] = {}
    for row in _stored_history(con, keys, whole=bulk):
        device, _dash, seq = (row[3] or "").rpartition("-")
        histories.setdefault(row[0], []).append((row[2], device, int(seq) if seq.isdigit() else 0, row[1], row))
    for event in arrived:   # (time, device, seq, None, event): a new answer sorts among the stored ones
        histories.setdefault(event.card, []).append((event.time, event.device, event.seq, None, event))
    # The new answers go in first, with the schedules their memos name, so that after a bulk load the log's
    # indexes can be made again while the replay runs; it then changes what it found otherwise.
    indexes = con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reviews'"
                          " AND sql IS NOT NULL").fetchall() if bulk else []
    for name, _sql in indexes:
        con.execute(f'DROP INDEX "{name}"')
    con.executemany(_ADD_SQL, [_answer_row(event) for event in arrived])
    moved: dict[str, list[tuple[Any, ...]]] = {"id": [], "event": []}
    schedules = []
    with _Background(con, [sql for _name, sql in indexes]):
        for key in keys:
            deck = key.split("/", 1)[0]
            history = sorted(histories.get(key, ()))
            try:
                state, steps = _walk(key, deck, history, resets.get(key), replaying[deck], trusting=True)
                schedule = _schedule_of(state)
            except BadRow:   # a memo that names no schedule fsrs can use (crafted): every answer worked out
                state, steps = _walk(key, deck, history, resets.get(key), replaying[deck], trusting=False)
                schedule = _schedule_of(state)
            for entry, found in steps:
                if entry[3] is None:
                    moved["event"].append((*found, entry[4].event))
                else:
                    moved["id"].append((*found, entry[3]))
            schedules.append((key, deck, schedule))
    for column, rows in moved.items():
        con.executemany(_MOVED_SQL.format(column), rows)
    con.executemany("DELETE FROM cards WHERE key = ?",
                    [(key,) for key, _deck, schedule in schedules if schedule is None])
    con.executemany("INSERT OR REPLACE INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
                    " VALUES (:key, :deck, :state, :step, :stability, :difficulty, :due, :last_review)",
                    [{"key": key, "deck": deck, **schedule_row(schedule)}
                     for key, deck, schedule in schedules if schedule is not None])


def _answer_row(event: Event) -> tuple[Any, ...]:
    """An answer from another device's journal as _ADD_SQL stores it, with its memo. Its `prior` is stored as the
    journal has it and its `prior_state` read off the place `_text` puts the state: the replay replaces both unless
    it finds that very text before the answer (so a `prior` not of `_text`'s form never stays)."""
    body = event.body
    params = json.dumps(body.params, ensure_ascii=False) if body.params else "{}"
    at = body.prior.find('", "state": ', 10) + 12 if body.prior else 0   # past the deck's name, which has no quote
    state = body.prior[at:at + 1] if at >= 12 else ""
    return (event.card, body.topic, event.time, body.mode, body.rating, body.correct, body.answer, body.seed, params,
            body.duration_ms, event.event, body.prior, int(state) if state in ("1", "2", "3") else None,
            body.memo, body.after)


def _stored_history(con: Any, keys: list[str], *, whole: bool) -> Iterator[Any]:
    """The answers stored to `keys`: by the card index, or (`whole`: fewer are stored than arrive, as on a new
    computer) by reading the log in order rather than the index's many more lookups."""
    columns = "card, id, time, event, mode, rating, prior, memo, after"
    if whole:
        wanted = set(keys)
        yield from (row for row in con.execute(f"SELECT {columns} FROM reviews") if row[0] in wanted)
        return
    for chunk in _chunks(keys):
        yield from con.execute(f"SELECT {columns} FROM reviews WHERE card IN ({', '.join('?' * len(chunk))})", chunk)


class _Background:
    """SQL statements run by a thread of their own on the store's connection while this thread goes on without it
    (SQLite lets go of Python's lock for a whole statement, so on two cores the two overlap). The `with` block's
    end waits for the last statement and raises what one raised; left by an exception (Ctrl-C), it interrupts the
    statement running and waits for it, so that the transaction is rolled back whole."""

    def __init__(self, con: Any, statements: list[str]):
        self.con, self.statements = con, statements
        self.error: BaseException | None = None
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="studytool-sync-index", daemon=True)

    def __enter__(self) -> _Background:
        if self.statements:
            self.thread.start()
        return self

    def _run(self) -> None:
        for statement in self.statements:
            if self.stopping:
                return
            try:
                self.con.execute(statement)
            except BaseException as error:   # handed to the replaying thread at the end of the block
                self.error = error
                return

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if not self.statements:
            return
        try:
            if kind is not None:
                self._stop()
            self.thread.join()
        except BaseException:   # Ctrl-C while waiting
            self._stop()
            raise
        if kind is None and self.error is not None:
            raise self.error

    def _stop(self) -> None:
        self.stopping = True
        self.con.interrupt()
        while self.thread.is_alive():
            try:
                self.thread.join()
            except BaseException:   # another Ctrl-C: the statement stops at its next step; wait for it all the same
                self.con.interrupt()


def _walk(key: str, deck: str, history: list[tuple[Any, ...]], reset: str | None, replaying: _Deck, *,
          trusting: bool) -> tuple[str | None, list[tuple[Any, ...]]]:
    """One card's history replayed, in order: the schedule it ends with (as an answer's `prior` holds it), and each
    answer whose prior or memo the replay changed, with what the replay found: (its history entry, (prior, prior
    state, under, after))."""
    from studytool.study.implicit import change

    scheduler = replaying.scheduler
    state: str | None = None
    number: int | None = None          # its state (learning, review, relearning)
    schedule: Schedule | None = None   # `state` as a Schedule, once worked with
    reps, steps = 0, []
    for entry in history:
        time, row_id = entry[0], entry[3]
        if row_id is None:
            body = entry[4].body
            mode, rating, had_prior, had_under, had_after = body.mode, body.rating, body.prior, body.memo, body.after
        else:
            _card, _id, _time, _event, mode, rating, had_prior, had_under, had_after = entry[4]
        if reset is not None and time >= reset:
            state, number, schedule, reset = None, None, None, None
        found, found_number, result, under = state, number, None, None
        if mode == "review" or (mode == "implicit" and state is not None):
            under = f"{replaying.under}:{reps}"
            taken = trusting and had_under == under and had_prior == state and SCHEDULE_TEXT.fullmatch(had_after or "")
            if taken and taken["deck"] != deck:   # left before its deck was renamed: `_text` names the deck it is in
                taken = None
            if taken:
                result, number, schedule = had_after, int(taken["state"]), None
            else:
                if schedule is None and state is not None:
                    schedule = _schedule_of(state)
                when = parse_time(time)
                if mode == "review":
                    schedule = scheduler.answer(schedule, rating, when, key=key, reps=reps)
                else:
                    schedule = change(schedule, rating, when, scheduler, key=key, reps=reps) or schedule
                result, number = _text(deck, schedule), schedule.state
            state = result
            reps += mode == "review"
        if (had_prior, had_under, had_after) != (found, under, result):
            steps.append((entry, (found, found_number, under, result)))
    if reset is not None:   # forgotten after its last answer: no schedule
        state = None
    return state, steps


def _text(deck: str, schedule: Schedule) -> str:
    """A schedule as an answer's `prior` holds it: its `cards` row as JSON, as `Store.record` writes it."""
    return json.dumps({"deck": deck, **schedule_row(schedule)})


def _schedule_of(text: str | None) -> Schedule | None:
    return None if text is None else schedule_from_row(json.loads(text))


def _worked_out_under(rules: Any) -> str:
    """A name for what an answer's result depends on besides the card's schedule and review count: the rules
    (retention, FSRS parameters, steps, the day's start and zone) and the code that applies them. Answers worked
    out under another name are worked out again."""
    import hashlib

    facts = [_code(), rules.retention, rules.parameters, [step.total_seconds() for step in rules.learning_steps],
             [step.total_seconds() for step in rules.relearning_steps], rules.maximum_interval, rules.fuzz,
             rules.days.day_start, _zone_rules(rules.days.zone)]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:16]


@lru_cache(maxsize=8)
def _zone_rules(zone: Any) -> str:
    """What a time zone does: its compiled rules (the file zoneinfo read them from), not its name or a few of its
    offsets (Jerusalem and Athens agree in January and July, not on the days daylight saving starts). A zone whose
    rules file is not found (a fixed offset) is named."""
    import hashlib
    from importlib import resources
    from zoneinfo import TZPATH

    key = getattr(zone, "key", None)
    if key is None:
        return str(zone)
    places = [Path("/etc/localtime")] if key == "localtime" else [Path(folder, key) for folder in TZPATH]
    for place in places:
        try:
            return hashlib.sha256(place.read_bytes()).hexdigest()
        except OSError:
            continue
    try:   # the tzdata package, where zoneinfo looks last
        return hashlib.sha256(resources.files("tzdata.zoneinfo").joinpath(*key.split("/")).read_bytes()).hexdigest()
    except (ModuleNotFoundError, OSError):
        return key


@lru_cache(maxsize=1)
def _code() -> str:
    """The replaying code's own text: this module's, the scheduler's and fsrs's (another studytool or fsrs may
    schedule otherwise)."""
    import hashlib

    from fsrs import card as fsrs_card
    from fsrs import scheduler as fsrs_scheduler

    from studytool.study import days, implicit, scheduler

    digest = hashlib.sha256()
    for module in (__file__, scheduler.__file__, implicit.__file__, days.__file__, fsrs_scheduler.__file__,
                   fsrs_card.__file__):
        digest.update(Path(module).read_bytes())
    return digest.hexdigest()


def _chunks(keys: list[Any], size: int = 500) -> Iterator[list[Any]]:
    for start in range(0, len(keys), size):
        yield keys[start:start + size]


# --- status and the reminder -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    folder: Path | None
    device: str | None                # None: this home has not synced yet
    devices: list[dict[str, Any]]     # every device seen: id, last event time, events known
    to_write: int                     # answers here not yet journaled
    to_read: int                      # whole lines in other journals past where this home stopped reading
    last_sync: str | None

    def to_json(self) -> dict[str, Any]:
        return {"folder": str(self.folder) if self.folder else None, "device": self.device, "devices": self.devices,
                "to_write": self.to_write, "to_read": self.to_read, "last_sync": self.last_sync}


def status(store: Store, folder: Path | None) -> Status:
    con = store.con
    device = store.setting(DEVICE_SETTING, "")
    devices = [{"device": name, "last_event": last, "events": count, "this": name == device}
               for name, last, count in con.execute(   # another device's answers are known by their rows in `reviews`
                   "SELECT device, max(time), count(*) FROM (SELECT device, time FROM sync_events UNION ALL"
                   " SELECT substr(event, 1, 16), time FROM reviews"
                   " WHERE event IS NOT NULL AND event NOT LIKE ? || '-%')"
                   " GROUP BY device ORDER BY device", (device,))]
    to_write = con.execute("SELECT count(*) FROM reviews WHERE event IS NULL").fetchone()[0]
    to_read = 0
    if folder is not None and folder.is_dir():
        read = dict((name, offset) for name, offset, _line in con.execute("SELECT * FROM sync_read"))
        for other in journal.devices_in(folder):
            if other not in {seen["device"] for seen in devices}:   # a journal not read yet
                devices.append({"device": other, "last_event": None, "events": 0, "this": other == device})
            if other != device:
                to_read += sum(1 for line in journal.lines_from(journal.path_of(folder, other), read.get(other, 0), 1)
                               if line.text is not None)
    return Status(folder, device or None, devices, to_write, to_read, last_sync(store))

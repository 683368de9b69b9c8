"""Two computers, one progress: merging through a folder that something else keeps equal (Syncthing, Dropbox,
a network drive, a USB stick, a git repository), with no server and no network code.

Each home has a random device id and writes its own events to `FOLDER/<device>.jsonl` (`journal.py`), never
another device's. An event is an answer, the retraction of an answer (`:undo` after it was journaled), a
card's flags (suspended, buried, leech, forgotten) or a setting that follows the learner. `sync`:

1. journals what happened here since the last sync (answers not yet journaled; flags and settings that
   differ from the last event about them; answers journaled and since undone, as retractions);
2. appends those lines to this device's journal (rebuilding it whole if it was deleted or cut short);
3. reads every other journal from where it stopped, adding events it has not seen (by id: twice is once);
4. sets each changed card's flags and each changed setting to its last event, and rebuilds the schedule of
   every card an event touched by replaying its merged history through the same scheduler.

Events are ordered by (time, device, sequence) on every computer, so every computer that has read the same
journals computes the same schedules, whatever order it synced in and however far its clock is off.
"""

from __future__ import annotations

import json
import os
import secrets
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study import journal
from studytool.study.journal import Event
from studytool.study.records import format_time, parse_time, schedule_row
from studytool.study.store import Store

DEVICE_SETTING = "sync_device"      # raw settings rows, never journaled: this home's own
LAST_SYNC_SETTING = "sync_last"
MERGED_SETTING = "sync_merged"     # this device's events up to this sequence are merged (replayed)
LOCAL_SETTINGS = ("sync_dir",)      # `config` keys that stay on this computer
ANSWER_COLUMNS = ("card", "topic", "time", "mode", "rating", "correct", "answer", "seed", "params", "duration_ms")
FLAG_COLUMNS = ("suspended", "buried_until", "leech", "reset_at", "flag")
MODES = ("quiz", "review", "implicit")
MAX_CARD = 512
STALE = timedelta(days=1)


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
        device = secrets.token_hex(8)
        store.set_setting(DEVICE_SETTING, device)
    return device


def folder_of(text: str) -> Path:
    """The sync folder as given: it must exist and be a folder (a typo must not create one somewhere)."""
    folder = Path(text).expanduser()
    if not folder.is_dir():
        raise StudytoolError(_("sync folder {folder} does not exist or is not a folder").format(folder=folder))
    return folder.resolve()


@contextmanager
def _one_at_a_time(store: Store) -> Iterator[None]:
    """Two `sync` runs on one home at once take turns (the second waits), so no line is written twice."""
    import fcntl

    with open(f"{store.path}.sync-lock", "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def sync(store: Store, folder: Path, now: datetime) -> Report:
    """One sync of this home with `folder`: journal, read, merge, replay (see the module's docstring)."""
    with _one_at_a_time(store):
        device = device_id(store)
        report = Report(folder, device)
        with store.transaction() as con:
            report.written = _journal_here(con, device, format_time(now))
        report.rebuilt = _write_journal(store, folder, device)
        with store.transaction() as con:
            fresh = _read_others(con, folder, device, report)
            own = {row[0] for row in con.execute(   # journaled here since the last merge (a killed sync's too)
                "SELECT card FROM sync_events WHERE device = ? AND seq > ? AND card IS NOT NULL",
                (device, _merged_up_to(con)))}
            touched = _apply(con, fresh) | own
            _replay(store, touched)
            con.execute("INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)",
                        (MERGED_SETTING, str(_next_seq(con, device) - 1)))
            con.execute("INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)",
                        (LAST_SYNC_SETTING, format_time(now)))
        report.read, report.cards = len(fresh), len(touched)
        return report


# --- 1. what happened here ------------------------------------------------------------------------------


def _next_seq(con: Any, device: str) -> int:
    return (con.execute("SELECT max(seq) FROM sync_events WHERE device = ?", (device,)).fetchone()[0] or 0) + 1


def _add(con: Any, device: str, seq: int, time: str, kind: str, card: str | None, body: dict[str, Any]) -> str:
    event = f"{device}-{seq}"
    con.execute("INSERT INTO sync_events (event, device, seq, time, kind, card, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (event, device, seq, time, kind, card, json.dumps(body, ensure_ascii=False, sort_keys=True)))
    return event


def _journal_here(con: Any, device: str, now: str) -> int:
    """Record as events what happened here since the last sync; how many."""
    seq = start = _next_seq(con, device)
    for row in con.execute("SELECT * FROM reviews WHERE event IS NULL ORDER BY id").fetchall():
        body = {name: row[name] for name in ANSWER_COLUMNS}
        body["params"] = json.loads(row["params"] or "{}")
        con.execute("UPDATE reviews SET event = ? WHERE id = ?",
                    (_add(con, device, seq, row["time"], "answer", row["card"], body), row["id"]))
        seq += 1
    undone = con.execute(
        "SELECT e.event, e.card FROM sync_events e WHERE e.device = ? AND e.kind = 'answer'"
        " AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.event = e.event)"
        " AND NOT EXISTS (SELECT 1 FROM sync_events x WHERE x.kind = 'retract' AND x.card = e.card"
        " AND json_extract(x.body, '$.event') = e.event)", (device,)).fetchall()
    for event, card in undone:
        _add(con, device, seq, now, "retract", card, {"event": event})
        seq += 1
    for card, flags in sorted(_changed(_flags_here(con), _last(con, "flags"), gone=False).items()):
        _add(con, device, seq, now, "flags", card, flags)
        seq += 1
    for name, value in sorted(_changed(_settings_here(con), _last(con, "setting")).items()):
        _add(con, device, seq, now, "setting", None, {"name": name, "value": value})
        seq += 1
    return seq - start


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
    for card, body in con.execute("SELECT card, body FROM sync_events WHERE kind = ? ORDER BY time, device, seq",
                                  (kind,)):
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
    pending = [_event_row(row) for row in con.execute(
        "SELECT * FROM sync_events WHERE device = ? AND seq > ? ORDER BY seq", (device, 0 if rebuild else written))]
    if rebuild:
        offset = journal.rewrite(path, [journal.line_of(event) for event in pending])
    elif pending or size < 0:
        offset = journal.append(path, [journal.line_of(event) for event in pending])
    last = pending[-1].seq if pending else written
    with store.transaction() as con:
        con.execute("INSERT OR REPLACE INTO sync_read (device, offset, line) VALUES (?, ?, ?)", (device, offset, last))
    return rebuild


def _event_row(row: Any) -> Event:
    return Event(row["event"], row["device"], row["seq"], row["time"], row["kind"], row["card"], json.loads(row["body"]))


# --- 3. the other journals -------------------------------------------------------------------------------


def _read_others(con: Any, folder: Path, device: str, report: Report) -> list[Event]:
    return [event for other in journal.devices_in(folder) if other != device
            for event in _read_journal(con, journal.path_of(folder, other), other, report)]


def _read_journal(con: Any, path: Path, device: str, report: Report) -> list[Event]:
    """The events of one other device's journal that this home has not seen, stored; where reading stopped
    is noted (before the first bad line, so that it is read again next time)."""
    row = con.execute("SELECT offset, line FROM sync_read WHERE device = ?", (device,)).fetchone()
    offset, number = (row[0], row[1] + 1) if row else (0, 1)
    if path.stat().st_size < offset:   # its owner rebuilt it: read it again from the start (ids dedupe)
        offset, number = 0, 1
    known = {seq for (seq,) in con.execute("SELECT seq FROM sync_events WHERE device = ?", (device,))}
    good_to, good_line, stuck, fresh = offset, number - 1, False, []
    for line in journal.lines_from(path, offset, number):
        try:
            if line.text is None:
                raise journal.Unreadable(_("torn or too long"))
            event = _valid(journal.event_of(line.text, device))
        except journal.Newer as newer:
            report.problems.append(_("{path}: written by a newer studytool (journal schema {found}); "
                                     "upgrade studytool to read it").format(path=path, found=newer))
            stuck = True
            break
        except journal.Unreadable as why:
            report.problems.append(_("{path}:{line}: skipped ({why}); it is read again next time").format(
                path=path, line=line.number, why=why))
            stuck = True
            continue
        if event.seq not in known:
            known.add(event.seq)
            fresh.append(event)
        if not stuck:
            good_to, good_line = line.end, line.number
    con.executemany("INSERT INTO sync_events (event, device, seq, time, kind, card, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(event.event, device, event.seq, event.time, event.kind, event.card,
                      json.dumps(event.body, ensure_ascii=False, sort_keys=True)) for event in fresh])
    con.execute("INSERT OR REPLACE INTO sync_read (device, offset, line) VALUES (?, ?, ?)", (device, good_to, good_line))
    return fresh


def _valid(event: Event) -> Event:
    """An event whose fields are what this version writes (a crafted journal gets no further)."""
    body = event.body
    _time(event.time)
    if event.kind != "setting" and not (isinstance(event.card, str) and 0 < len(event.card) <= MAX_CARD
                                        and "/" in event.card):
        raise journal.Unreadable(_("no card"))
    if event.kind == "answer":
        ok = (set(body) == set(ANSWER_COLUMNS) and body["card"] == event.card and body["mode"] in MODES
              and body["rating"] in (1, 2, 3, 4) and isinstance(body["rating"], int)
              and body["correct"] in (0, 1) and isinstance(body["answer"], str) and len(body["answer"]) <= 100_000
              and isinstance(body["params"], dict) and isinstance(body["duration_ms"], int)
              and (body["seed"] is None or isinstance(body["seed"], int)) and body["time"] == event.time
              and (body["topic"] is None or isinstance(body["topic"], str)))
    elif event.kind == "retract":
        ok = isinstance(body.get("event"), str) and body["event"].startswith(f"{event.device}-")
    elif event.kind == "flags":
        ok = (set(body) == set(FLAG_COLUMNS) and body["suspended"] in (0, 1) and body["leech"] in (0, 1)
              and body["flag"] in range(8)
              and all(body[name] is None or _time(body[name]) for name in ("buried_until", "reset_at")))
    else:
        ok = _setting_ok(body)
    if not ok:
        raise journal.Unreadable(_("not an event of this version"))
    return event


def _time(text: Any) -> bool:
    from studytool.config import CLOCK_YEARS

    try:
        moment = parse_time(text) if isinstance(text, str) else None
    except StudytoolError:
        moment = None
    if moment is None or moment.tzinfo is None or not CLOCK_YEARS[0] <= moment.year <= CLOCK_YEARS[1]:
        raise journal.Unreadable(_("not a time"))
    return True


def _setting_ok(body: dict[str, Any]) -> bool:
    from studytool.study.settings import KEYS

    name, value = body.get("name"), body.get("value")
    if set(body) != {"name", "value"} or not isinstance(name, str) or not (value is None or isinstance(value, str)):
        return False
    deck, _colon, key = name.rpartition(":")
    if key not in KEYS or key in LOCAL_SETTINGS or (deck and not KEYS[key].per_deck):
        return False
    try:
        return value is None or KEYS[key].parse(value) is not None
    except ValueError:
        return False


# --- 4. merging ------------------------------------------------------------------------------------------


def _merged_up_to(con: Any) -> int:
    row = con.execute("SELECT value FROM settings WHERE name = ?", (MERGED_SETTING,)).fetchone()
    return int(row[0]) if row and row[0].isdigit() else 0


def _apply(con: Any, events: list[Event]) -> set[str]:
    """Bring the new events into the tables; the cards whose schedule must be replayed."""
    touched, flagged, settings = set(), set(), set()
    retracted = {event for (event,) in con.execute(   # a retraction may come first: its answer's line was damaged
        "SELECT json_extract(body, '$.event') FROM sync_events WHERE kind = 'retract'")}
    answers = [event for event in events if event.kind == "answer" and event.event not in retracted]
    con.executemany(f"INSERT OR IGNORE INTO reviews ({', '.join(ANSWER_COLUMNS)}, event)"
                    f" VALUES ({', '.join('?' * len(ANSWER_COLUMNS))}, ?)",
                    [(*(json.dumps(event.body[name], ensure_ascii=False) if name == "params" else event.body[name]
                        for name in ANSWER_COLUMNS), event.event) for event in answers])
    touched.update(event.card for event in answers)
    for event in events:
        if event.kind == "retract":
            con.execute("DELETE FROM reviews WHERE event = ?", (event.body["event"],))
            touched.add(event.card)
        elif event.kind == "flags":
            flagged.add(event.card)
        elif event.kind == "setting":
            settings.add(event.body["name"])
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
    return touched


def _replay(store: Store, cards: set[str]) -> None:
    """Each card's schedule from its merged history, answer by answer, through the same scheduler; each answer's
    `prior` (what `:undo` puts back, what stats count by) is the schedule the replay found before it."""
    if not cards:
        return   # nothing to replay: fsrs is not even imported
    from studytool.study.implicit import change
    from studytool.study.queue import study_rules
    from studytool.study.scheduler import Scheduler

    con, rules = store.con, study_rules(store)   # read now: the merge may have changed the settings

    schedulers: dict[str, Scheduler] = {}
    resets = dict(con.execute("SELECT key, reset_at FROM card_flags WHERE reset_at IS NOT NULL"))
    by_card: dict[str, list[Any]] = defaultdict(list)
    for key_chunk in _chunks(sorted(cards)):
        marks = ", ".join("?" * len(key_chunk))
        for row in con.execute(
                f"SELECT r.id, r.card, r.time, r.mode, r.rating, e.device, e.seq FROM reviews r"
                f" LEFT JOIN sync_events e ON e.event = r.event WHERE r.card IN ({marks})"
                f" ORDER BY r.time, e.device, e.seq, r.id", key_chunk):
            by_card[row["card"]].append(row)
    for key in sorted(cards):
        deck = key.split("/", 1)[0]
        if deck not in schedulers:
            schedulers[deck] = Scheduler(rules(deck))
        scheduler, schedule, reps, reset = schedulers[deck], None, 0, resets.get(key)
        priors = []
        for row in by_card.get(key, ()):
            if reset is not None and row["time"] >= reset:
                schedule, reset = None, None
            priors.append((json.dumps({"deck": deck, **schedule_row(schedule)}) if schedule else None, row["id"]))
            when = parse_time(row["time"])
            if row["mode"] == "review":
                schedule = scheduler.answer(schedule, row["rating"], when, key=key, reps=reps)
                reps += 1
            elif row["mode"] == "implicit" and schedule is not None:
                schedule = change(schedule, row["rating"], when, scheduler, key=key, reps=reps) or schedule
        if reset is not None:
            schedule = None
        con.executemany("UPDATE reviews SET prior = ? WHERE id = ?", priors)
        if schedule is None:
            con.execute("DELETE FROM cards WHERE key = ?", (key,))
        else:
            con.execute("INSERT OR REPLACE INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
                        " VALUES (:key, :deck, :state, :step, :stability, :difficulty, :due, :last_review)",
                        {"key": key, "deck": deck, **schedule_row(schedule)})


def _chunks(keys: list[str], size: int = 500) -> Iterator[list[str]]:
    for start in range(0, len(keys), size):
        yield keys[start:start + size]


# --- status and the reminder -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Status:
    folder: Path | None
    device: str
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
               for name, last, count in con.execute(
                   "SELECT device, max(time), count(*) FROM sync_events GROUP BY device ORDER BY device")]
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
    last = store.setting(LAST_SYNC_SETTING, "") or None
    return Status(folder, device or _("(none yet)"), devices, to_write, to_read, last)


def reminder(store: Store, now: datetime) -> str | None:
    """A line for `review` and `stats` when a sync folder is set and the last sync is over a day old."""
    from studytool.study import settings

    try:
        folder = settings.get(store, "sync_dir")
        last = store.setting(LAST_SYNC_SETTING, "")
    except StudytoolError:   # a bad stored value: `config` and `sync` say so themselves
        return None
    if not folder:
        return None
    if last and now - parse_time(last) <= STALE:
        return None
    return (_("Last synced {when}; run `studytool sync` to merge the other computers' answers").format(when=last[:16])
            if last else _("A sync folder is set but this computer has never synced; run `studytool sync`"))

"""The learner's progress written into an Anki collection (`export anki --progress`), so that Anki, importing the
package with scheduling, goes on where studytool left off.

What goes where, in Anki's collection (schema 11, as genanki writes it):

- `col.crt`: the start of a studytool day long ago, and the v2 scheduler with studytool's day start as its
  rollover, so that a review card's `due` (days since `crt`) names the same day in both tools;
- each card: `type`/`queue` (new 0/0, learning 1/1, review 2/2, relearning 3/1; suspended queue -1, buried by
  the user -3), `due` (a position, a Unix time for a (re)learning step, a day number for a review), `ivl`, `reps`,
  `lapses`, `left` (learning steps still to go), Anki's flag, and `data` with the FSRS memory state
  (`s` stability, `d` difficulty, `dr` desired retention, `lrt` the last review's Unix time);
- `revlog`: one entry per answer: its time (id, in ms), rating, the interval it gave and the one before (days;
  negative seconds for a learning step), the time taken, and its type (0 learn, 1 review, 2 relearn; a quiz
  that left the schedule as 3, Anki's filtered-deck preview; an implicit credit as 4, a manual change; these
  two with ease factor 0, which Anki's FSRS reads as "not a review": they do not move the memory there either).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from studytool.study.days import Days
from studytool.study.progress import Answered, CardProgress, card_progress
from studytool.study.records import Schedule
from studytool.study.store import Store

LEARNING, REVIEW, RELEARNING = 1, 2, 3
ORIGIN = datetime(2006, 1, 2, 12, tzinfo=timezone.utc)   # `crt`: its day's start (Anki was born in 2006)
FACTOR = 2500          # Anki's starting ease; FSRS ignores it, but a card in review must have one
MAX_TAKEN_MS = 60_000  # Anki's default cap on the time an answer took


@dataclass(frozen=True)
class Scheduling:
    cards: dict[str, CardProgress]
    days: Days
    now: datetime
    retention: dict[str, float]           # desired retention per deck
    steps: dict[str, tuple[int, int]]     # learning and relearning steps per deck (for `left`)


def scheduling_of(store: Store, keys: Sequence[str], now: datetime) -> Scheduling:
    from studytool.study import settings
    from studytool.study.queue import study_days

    decks = {key.split("/", 1)[0] for key in keys}
    return Scheduling(card_progress(store, keys), study_days(store), now,
                      {deck: settings.get(store, "retention", deck) for deck in decks},
                      {deck: (len(settings.get(store, "learning_steps", deck)),
                              len(settings.get(store, "relearning_steps", deck))) for deck in decks})


def schedule_collection(con: sqlite3.Connection, scheduling: Scheduling) -> None:
    """Write `scheduling` into the collection genanki has just written on `con` (its notes' `flds` end with the
    studytool key, `DECK/ID`, as `export.anki_note` puts it)."""
    days = scheduling.days
    crt = days.start(days.number(ORIGIN))
    conf = json.loads(con.execute("SELECT conf FROM col").fetchone()[0])
    conf.update({"schedVer": 2, "rollover": days.day_start})
    con.execute("UPDATE col SET crt = ?, conf = ?", (int(crt.timestamp()), json.dumps(conf)))
    revlog_ids: set[int] = set()
    for card_id, fields in con.execute("SELECT c.id, n.flds FROM cards c JOIN notes n ON n.id = c.nid").fetchall():
        key = fields.rsplit("\x1f", 1)[-1].split(" #", 1)[0]
        progress = scheduling.cards.get(key)
        if progress is None:
            continue
        deck = key.split("/", 1)[0]
        _write_card(con, card_id, progress, scheduling, crt, deck)
        for answer in progress.answers:
            con.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                        " VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
                        (_unique_ms(answer.time, revlog_ids), card_id, answer.rating,
                         _interval(answer.after, days), _interval(answer.before, days),
                         FACTOR if answer.mode == "review" else 0,   # 0: Anki's FSRS leaves the entry out
                         min(answer.duration_ms, MAX_TAKEN_MS), _revlog_type(answer)))


def _write_card(con: sqlite3.Connection, card_id: int, progress: CardProgress, scheduling: Scheduling,
                crt: datetime, deck: str) -> None:
    days, schedule, flags = scheduling.days, progress.schedule, progress.flags
    learning_steps, relearning_steps = scheduling.steps[deck]
    kind = queue = 0
    due = ivl = left = None
    data = {}
    if schedule is not None:
        kind, ivl = schedule.state, _days(schedule, days)   # Anki numbers the types as fsrs the states
        if schedule.state == REVIEW:
            queue, due = 2, days.number(schedule.due) - days.number(crt)
        else:
            queue, due = 1, int(schedule.due.timestamp())
            left = (learning_steps if schedule.state == LEARNING else relearning_steps) - (schedule.step or 0)
        if schedule.stability is not None and schedule.difficulty is not None:
            data = {"s": round(schedule.stability, 4), "d": round(schedule.difficulty, 3),
                    "dr": scheduling.retention[deck]}
            if schedule.last_review is not None:
                data["lrt"] = int(schedule.last_review.timestamp())
    if flags.suspended:
        queue = -1
    elif flags.buried(scheduling.now):
        queue = -3
    con.execute("UPDATE cards SET type = ?, queue = ?, due = coalesce(?, due), ivl = ?, factor = ?, reps = ?,"
                " lapses = ?, left = ?, flags = ?, data = ? WHERE id = ?",
                (kind, queue, due, ivl or 0, FACTOR if schedule is not None else 0, progress.history.reps,
                 progress.history.lapses, left or 0, flags.flag, json.dumps(data) if data else "", card_id))


def _days(schedule: Schedule | None, days: Days) -> int | None:
    """A review card's interval in days, as Anki's `ivl`."""
    if schedule is None or schedule.state != REVIEW or schedule.last_review is None:
        return None
    return days.number(schedule.due) - days.number(schedule.last_review)


def _interval(schedule: Schedule | None, days: Days) -> int:
    """A revlog interval: days for a review card, minus the seconds to its step for a (re)learning one."""
    if schedule is None:
        return 0
    whole = _days(schedule, days)
    if whole is not None:
        return whole
    if schedule.last_review is None:
        return 0
    return -max(1, int((schedule.due - schedule.last_review).total_seconds()))


def _revlog_type(answer: Answered) -> int:
    if answer.mode == "quiz":
        return 3
    if answer.mode != "review":
        return 4
    state = answer.before.state if answer.before is not None else LEARNING
    return {LEARNING: 0, REVIEW: 1, RELEARNING: 2}[state]


def _unique_ms(moment: datetime, taken: set[int]) -> int:
    """The revlog id: the answer's time in milliseconds, one later if another answer had it."""
    ms = int(moment.timestamp() * 1000)
    while ms in taken:
        ms += 1
    taken.add(ms)
    return ms

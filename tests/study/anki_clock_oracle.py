"""Anki's own scheduler answering cards under a faked clock: what each answer leaves on the card.

Run as a script, in a process of its own whose environment sets `TZ` and preloads libfaketime with
`FAKETIME_FMT=%s` and `FAKETIME_NO_CACHE=1` (`faked_clock_env` builds it): the clock of Anki's Rust
backend is then whatever `FAKETIME` says, changed before every answer. Reads JSON `[{"card": id, "log":
[[unix_seconds, rating], ...]}, ...]` on stdin; each history is one new card (given that id, which seeds
Anki's fuzz) in a collection of its own with FSRS on and Anki's default preset (learning steps 1m 10m,
relearning 10m, retention 0.9), answered through `answer_card` at each time. Writes, per answer, the
card's `type` (1 learning, 2 review, 3 relearning), `stability`, `difficulty`, and its due: `due_at` (unix
seconds) for a step within the day, else `due_in_days` (days after the answer's day).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


def faked_clock_env(zone: str) -> dict[str, str] | None:
    """The environment for this script in `zone`: None when libfaketime is not installed."""
    try:
        import libfaketime
    except ImportError:
        return None
    library = Path(libfaketime.__file__).parent / "vendor" / "libfaketime" / "src" / "libfaketime.so.1"
    if not library.exists():
        return None
    return {"TZ": zone, "PATH": "/usr/bin:/bin", "LD_PRELOAD": str(library), "FAKETIME_FMT": "%s",
            "FAKETIME_NO_CACHE": "1", "DONT_FAKE_MONOTONIC": "1", "FAKETIME": "1700000000"}


def _at(unix_seconds: int) -> None:
    os.environ["FAKETIME"] = str(unix_seconds)


def answer(histories: list[dict]) -> list[list[dict]]:
    from anki.collection import Collection
    from anki.scheduler.v3 import CardAnswer

    results = []
    for history in histories:
        with tempfile.TemporaryDirectory() as folder:
            _at(history["log"][0][0] - 3 * 86_400)    # the collection is created three days before
            col = Collection(os.path.join(folder, "oracle.anki2"))
            try:
                col.set_config("rollover", 4)
                col.set_config("fsrs", True)
                col.set_config("loadBalancerEnabled", False)   # it would move intervals to even out the days
                note = col.new_note(col.models.by_name("Basic"))
                note["Front"], note["Back"] = "q", "a"
                col.add_note(note, col.decks.id("Default"))
                col.db.execute("UPDATE cards SET id = ? WHERE id = ?", history["card"], note.card_ids()[0])
                card_id = history["card"]
                after = []
                for unix_seconds, rating in history["log"]:
                    _at(unix_seconds)
                    _forget_today(col)
                    card = col.get_card(card_id)
                    card.start_timer()
                    states = col._backend.get_scheduling_states(card_id)
                    col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=rating - 1))
                    card = col.get_card(card_id)
                    due = ({"due_at": card.due} if card.due > 1_000_000_000
                           else {"due_in_days": card.due - col.sched.today})
                    after.append({"type": card.type, "stability": card.memory_state.stability,
                                  "difficulty": card.memory_state.difficulty, **due})
                results.append(after)
            finally:
                col.close()
    return results


def _forget_today(col) -> None:
    """Make Anki work out the day from the clock afresh, as after a restart.

    It keeps the day it computed until the next day start it computed then; across a daylight-saving
    change that start, reckoned in the old UTC offset, is an hour off the one the clock now gives.
    Setting the rollover hour (to another and back) drops what it kept.
    """
    preferences = col.get_preferences()
    for hour in (5, 4):
        preferences.scheduling.rollover = hour
        col.set_preferences(preferences)


if __name__ == "__main__":
    json.dump(answer(json.load(sys.stdin)), sys.stdout)

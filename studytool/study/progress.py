"""A card's progress as another tool needs it (`export anki --progress`): its schedule, flags, counts and every
answer with the schedule it found and left, read from the store in three passes (not one per card)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from studytool.study.cards import Flags, History, all_flags, histories
from studytool.study.records import Schedule, parse_time, schedule_from_row
from studytool.study.store import Store


@dataclass(frozen=True)
class Answered:
    time: datetime
    mode: str                    # quiz, review or implicit
    rating: int
    duration_ms: int
    seed: int | None
    level: int | None            # a generated card's level when shown
    before: Schedule | None      # the schedule the answer found (None: the card was new)
    after: Schedule | None       # the schedule it left (None: still new, or a quiz that leaves it)


@dataclass(frozen=True)
class CardProgress:
    key: str
    schedule: Schedule | None
    flags: Flags
    history: History
    answers: tuple[Answered, ...]

    @property
    def last_shown(self) -> tuple[int, int] | None:
        """(seed, level) of the variant last answered of a generated card (None: never answered, or fixed)."""
        return next(((answer.seed, answer.level or 1) for answer in reversed(self.answers)
                     if answer.mode != "implicit" and answer.seed is not None), None)


def card_progress(store: Store, keys: Sequence[str]) -> dict[str, CardProgress]:
    schedules, flags, counted = store.schedules(), all_flags(store), histories(store)
    rows = defaultdict(list)
    for row in store.con.execute("SELECT card, time, mode, rating, duration_ms, seed, params, prior FROM reviews"
                                 " ORDER BY card, time, id"):
        rows[row["card"]].append(row)
    found = {}
    for key in keys:
        answers, logged = [], rows.get(key, [])
        for index, row in enumerate(logged):
            before = _schedule(row["prior"])
            # what an answer left is what the next found (a quiz's row repeats it), or the schedule now
            after = _schedule(logged[index + 1]["prior"]) if index + 1 < len(logged) else schedules.get(key)
            level = json.loads(row["params"] or "{}").get("level")
            answers.append(Answered(parse_time(row["time"]), row["mode"], row["rating"], row["duration_ms"],
                                    row["seed"], level if isinstance(level, int) else None, before, after))
        found[key] = CardProgress(key, schedules.get(key), flags.get(key, Flags()), counted.get(key, History()),
                                  tuple(answers))
    return found


def _schedule(prior: str | None) -> Schedule | None:
    return schedule_from_row(json.loads(prior)) if prior else None

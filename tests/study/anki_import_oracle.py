"""Anki's own backend imports a package with scheduling and says what each card became.

Run as a script, in a process of its own with TZ set (Anki's Rust backend reads the zone once): argv[1] is
the .apkg. Writes JSON: one object per card (its studytool key, type, queue, due as a date for a review
card or a Unix time for a learning step, ivl, reps, lapses, flags, the memory state imported, and the one
Anki computes again from the imported review log), and Anki's day.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import date, datetime, timedelta


def imported(package: str) -> dict:
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, "target.anki2"))
        try:
            col.set_config("rollover", 4)
            col.import_anki_package(ImportAnkiPackageRequest(
                package_path=package, options=ImportAnkiPackageOptions(with_scheduling=True)))
            today = col.sched.today
            today_date = (datetime.now() - timedelta(hours=4)).date()
            cards = []
            for card_id in col.find_cards(""):
                card = col.get_card(card_id)
                key = card.note().fields[-1].split(" #", 1)[0]
                review_day = card.type == 2
                due = (today_date + timedelta(days=card.due - today)).isoformat() if review_day else card.due
                memory = card.memory_state
                recomputed = col._backend.compute_memory_state(card_id).state if card.type else None
                cards.append({
                    "card": key, "type": card.type, "queue": card.queue, "due": due, "ivl": card.ivl,
                    "reps": card.reps, "lapses": card.lapses, "flags": card.flags,
                    "stability": memory.stability if card.type else None,
                    "difficulty": memory.difficulty if card.type else None,
                    "recomputed": [recomputed.stability, recomputed.difficulty] if recomputed else None,
                    "revlog": col.db.scalar("SELECT count() FROM revlog WHERE cid = ?", card_id),
                })
            return {"today": today_date.isoformat(), "cards": cards}
        finally:
            col.close()


if __name__ == "__main__":
    json.dump(imported(sys.argv[1]), sys.stdout)

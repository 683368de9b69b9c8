"""Anki's own backend as the oracle: memory states (stability, difficulty) of review histories.

Run as a script (in a process of its own, so that Anki's Rust backend sees
TZ=UTC from the start): reads JSON `[{"params": [...] or null, "log":
[[unix_ms, rating, kind], ...]}, ...]` on stdin, writes `[[[stability,
difficulty], ...], ...]`: Anki's memory state after each prefix of each
history. `kind` is Anki's revlog type (0 learn, 1 review, 2 relearn). Each
history is the revlog of one card, with the preset's FSRS parameters set to
`params` (null: Anki's defaults); the state comes from
`compute_memory_state`, which counts elapsed days as the live scheduler does
(day boundaries at the collection's 04:00 rollover).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def memory_states(histories: list[dict]) -> list[list[list[float]]]:
    from anki.collection import Collection

    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, "oracle.anki2"))
        try:
            col.set_config("rollover", 4)
            results = []
            for history in histories:
                preset = col.decks.get_config(1)
                preset["fsrsParams6"] = history["params"] or []
                col.decks.update_config(preset)
                note = col.new_note(col.models.by_name("Basic"))
                note["Front"], note["Back"] = "q", "a"
                col.add_note(note, col.decks.id("Default"))
                card_id = note.card_ids()[0]
                col.db.execute("UPDATE cards SET type = 2, queue = 2 WHERE id = ?", card_id)
                states = []
                for unix_ms, rating, kind in history["log"]:
                    col.db.execute(
                        "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                        " VALUES (?, ?, -1, ?, 0, 0, 0, 1000, ?)", unix_ms, card_id, rating, kind)
                    state = col._backend.compute_memory_state(card_id).state
                    states.append([state.stability, state.difficulty])
                results.append(states)
            return results
        finally:
            col.close()


if __name__ == "__main__":
    json.dump(memory_states(json.load(sys.stdin)), sys.stdout)

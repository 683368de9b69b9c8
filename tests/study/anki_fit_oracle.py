"""Anki's own backend as the oracle of `optimize`: its FSRS items, log loss and fitted parameters for a log.

Run as a script (a process of its own, so that Anki's Rust backend sees TZ=UTC from the start): reads JSON
`[[[unix_ms, rating, kind], ...], ...]` on stdin, one revlog per card (`kind`: Anki's revlog type, 0 learn,
1 review, 2 relearn), and writes `{"items", "params", "log_loss_default", "log_loss", "rmse"}`: what Anki's
"Optimize" computes over a collection holding exactly those revlogs (rollover 04:00, default preset).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

FSRS6_DEFAULTS = [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835,
                  0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]


def fit(revlogs: list[list[list[int]]]) -> dict:
    from anki.collection import Collection

    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, "oracle.anki2"))
        try:
            col.set_config("rollover", 4)
            for index, revlog in enumerate(revlogs):
                note = col.new_note(col.models.by_name("Basic"))
                note["Front"], note["Back"] = "q", "a"
                col.add_note(note, col.decks.id("Default"))
                card_id = note.card_ids()[0]
                col.db.execute("UPDATE cards SET type = 2, queue = 2 WHERE id = ?", card_id)
                for unix_ms, rating, kind in revlog:   # + index: revlog ids are unique, within the same second
                    col.db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                                   " VALUES (?, ?, -1, ?, 0, 0, 0, 1000, ?)", unix_ms + index, card_id, rating, kind)
            fitted = col._backend.compute_fsrs_params(search="", current_params=[], ignore_revlogs_before_ms=0,
                                                      num_of_relearning_steps=1, health_check=False)
            default = col._backend.evaluate_params_legacy(params=FSRS6_DEFAULTS, search="", ignore_revlogs_before_ms=0)
            mine = col._backend.evaluate_params_legacy(params=list(fitted.params), search="",
                                                       ignore_revlogs_before_ms=0)
            return {"items": fitted.fsrs_items, "params": list(fitted.params), "log_loss_default": default.log_loss,
                    "log_loss": mine.log_loss, "rmse": mine.rmse_bins}
        finally:
            col.close()


if __name__ == "__main__":
    json.dump(fit(json.load(sys.stdin)), sys.stdout)

"""Multi-day histories through the CLI (STUDYTOOL_NOW, piped ratings) against Anki's own backend.

After every answer, the stability and difficulty studytool stored must equal,
within 1%, what Anki's FSRS (the `anki` package: Anki's Rust backend, a test
dependency) computes from the same answers at the same times. Days start at
04:00 UTC on both sides (TZ=UTC). The histories include a review that crosses
the day boundary less than 24 hours after the one before, where py-fsrs's
24-hour count takes the same-day path, and answers at 03:30 that still
belong to the day before.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studytool.cli import app
from studytool.study.store import parse_time

ORACLE = Path(__file__).with_name("anki_oracle.py")
DECK = """deck: oracle
title: Oracle
source: test
cards:
  - id: c{n}
    kind: recall
    topic: layernorm
    q: LayerNorm normalises over which axis?
    a: the feature axis
"""
KINDS = {None: 0, 1: 0, 2: 1, 3: 2}   # our prior state -> Anki's revlog type (learn, learn, review, relearn)

# A step is (when, rating): an ISO time, or a delay after the moment the card is due (its step, or its day's start).
# None falls at exactly 04:00:00: there Anki's revlog arithmetic (this oracle: whole days back from the day start
# after *now*) and its live scheduler (ours: back from the day start after the answer) part;
# test_scheduler_anki_days.py answers such histories in the live scheduler.
HISTORIES = {
    "graduated-22:15-reviewed-08:00-two-days-later": [
        ("2026-03-01T21:50:00+00:00", 3), ("2026-03-01T22:15:00+00:00", 3),      # graduates: due 04:00 on the 3rd
        ("2026-03-03T08:00:00+00:00", 3),                                          # 33 h 45 min later: 2 days
        (timedelta(hours=5), 3), (timedelta(hours=20), 1), (timedelta(minutes=12), 3), (timedelta(hours=2), 3),
    ],
    "next-day-in-under-24-hours": [
        ("2026-03-01T23:00:00+00:00", 1), ("2026-03-01T23:01:00+00:00", 3), ("2026-03-01T23:11:00+00:00", 3),
        ("2026-03-02T07:00:00+00:00", 3),                                          # 7 h 49 min later: 1 day
        (timedelta(hours=19), 2), (timedelta(hours=23, minutes=50), 3), (timedelta(days=3, minutes=5), 4),
    ],
    "03:30-belongs-to-the-day-before": [
        ("2026-03-01T23:50:00+00:00", 1), ("2026-03-02T03:30:00+00:00", 3),       # one day at 03:30: same day
        ("2026-03-02T03:45:00+00:00", 3),                                          # graduates on the 1st's day
        (timedelta(hours=23, minutes=30), 3),                                      # 03:30 on the due day's morrow
        (timedelta(hours=23, minutes=30), 2), (timedelta(hours=1), 1), (timedelta(minutes=10), 2),
        (timedelta(minutes=10), 3), (timedelta(days=1, hours=23, minutes=40), 3),
    ],
    "easy-hard-and-a-lapse-over-weeks": [
        ("2026-03-01T09:00:00+00:00", 4), (timedelta(hours=10), 2), (timedelta(days=2, hours=3), 3),
        (timedelta(hours=16), 1), (timedelta(minutes=10), 1), (timedelta(minutes=10), 3),
        (timedelta(hours=30), 3), (timedelta(days=4, hours=2), 4), (timedelta(hours=1), 3),
    ],
}


def anki_states(histories: list[list[tuple[datetime, int, int]]], params=None) -> list[list[list[float]]]:
    payload = [{"params": params, "log": [[round(t.timestamp() * 1000), rating, kind] for t, rating, kind in h]}
               for h in histories]
    done = subprocess.run([sys.executable, str(ORACLE)], input=json.dumps(payload), capture_output=True, text=True,
                          env={"TZ": "UTC", "PATH": "/usr/bin:/bin"}, check=True, timeout=120)
    return json.loads(done.stdout)


def card_row(home: Path, n: int, columns: str):
    """One column set of card c{n}'s schedule row (None before the first answer), read behind the CLI's back."""
    if not (home / "studytool.db").exists():
        return None
    with sqlite3.connect(home / "studytool.db") as db:
        return db.execute(f"SELECT {columns} FROM cards WHERE key = ?", (f"oracle/c{n}",)).fetchone()


def drive(home: Path, n: int, steps) -> tuple[list[tuple[datetime, int, int]], list[tuple[float, float]]]:
    """Answer card c{n} at each step through the CLI; the answers as Anki's revlog, and our state after each."""
    log, ours = [], []
    for when, rating in steps:
        row = card_row(home, n, "state, due")
        moment = datetime.fromisoformat(when) if isinstance(when, str) else parse_time(row[1]) + when
        result = CliRunner().invoke(app, ["review", "--deck", "oracle", "--json"], input=f"x\n{rating}\n",
                                    env={"STUDYTOOL_NOW": moment.isoformat()})
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["answered"] == 1, f"c{n} was not due at {moment}"
        log.append((moment, rating, KINDS[row[0] if row else None]))
        ours.append(card_row(home, n, "stability, difficulty"))
    return log, ours


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path))
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    monkeypatch.setenv("TZ", "UTC")
    (tmp_path / "decks").mkdir()
    return tmp_path


def test_multi_day_histories_through_the_cli_match_ankis_stability_and_difficulty(home):
    pytest.importorskip("anki", reason="Anki's backend is the scheduling oracle (pip install '.[oracle]')")
    names = list(HISTORIES)
    logs, ours = [], []
    for n, name in enumerate(names):
        (home / "decks" / "oracle.yaml").write_text(DECK.format(n=n), encoding="utf-8")   # one fresh card each
        log, states = drive(home, n, HISTORIES[name])
        logs.append(log)
        ours.append(states)
    expected = anki_states(logs)
    for name, log, got, want in zip(names, logs, ours, expected):
        for (moment, rating, _kind), (stability, difficulty), (anki_s, anki_d) in zip(log, got, want):
            where = f"{name}: rating {rating} at {moment.isoformat()}"
            assert stability == pytest.approx(anki_s, rel=0.01), where
            assert difficulty == pytest.approx(anki_d, rel=0.01), where


# FSRS-6 weights as `studytool optimize` might fit them: every one moved from the default, within FSRS's bounds
FITTED = [0.35, 1.1, 3.2, 12.0, 6.9, 0.55, 2.4, 0.01, 1.6, 0.2, 0.9, 1.7, 0.08, 0.31, 1.9, 0.45, 2.3, 0.7, 0.2,
          0.1, 0.25]


def test_config_parameters_schedule_as_ankis_preset_with_the_same_weights(home):
    pytest.importorskip("anki", reason="Anki's backend is the scheduling oracle (pip install '.[oracle]')")
    result = CliRunner().invoke(app, ["config", "parameters", " ".join(map(str, FITTED))])
    assert result.exit_code == 0, result.output
    (home / "decks" / "oracle.yaml").write_text(DECK.format(n=9), encoding="utf-8")
    log, ours = drive(home, 9, HISTORIES["easy-hard-and-a-lapse-over-weeks"])
    (expected,) = anki_states([log], params=FITTED)
    (default,) = anki_states([log])
    assert ours[-1][0] != pytest.approx(default[-1][0], rel=0.05)   # the weights matter: a different state
    for (moment, rating, _kind), (stability, difficulty), (anki_s, anki_d) in zip(log, ours, expected):
        assert stability == pytest.approx(anki_s, rel=0.01), f"rating {rating} at {moment.isoformat()}"
        assert difficulty == pytest.approx(anki_d, rel=0.01), f"rating {rating} at {moment.isoformat()}"


def test_the_histories_hold_the_cases_that_broke():
    """Preconditions, by hand: under 24 hours yet a day apart; 03:30 on the day before."""
    under = [datetime.fromisoformat(t) for t, _ in HISTORIES["next-day-in-under-24-hours"][2:4]]
    assert under[1] - under[0] < timedelta(hours=24) and (under[0].day, under[1].day) == (1, 2)
    at_330 = datetime.fromisoformat(HISTORIES["03:30-belongs-to-the-day-before"][1][0])
    assert (at_330.hour, at_330.minute, at_330.tzinfo) == (3, 30, timezone.utc)

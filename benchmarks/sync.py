"""What `studytool sync` costs: reading 100,000 new events and replaying their cards, and a sync with nothing new.

    python benchmarks/sync.py [--events 100000] [--cards 2000] [--runs 5]

Another device records `--events` answers over `--cards` cards (review answers a day apart, each card's in
time order, ratings drawn from a seeded generator) and syncs: its journal is what studytool writes. Then,
median of `--runs`:

- `sync` into a fresh home: read, check (checksums, fields), replay every card through FSRS (taking the
  answers' memos) and store;
- `sync` again at once: nothing new (the journals read from where they stopped, nothing written);
- the same two as whole processes (`python -m studytool sync DIR`), beside `python -m studytool --version`,
  the start-up every command pays, so the target ("≤ 0.2 s beyond start-up") is read as a difference;
- the common sync: the other device's next day (200 answers) on top of the whole history;
- once, the fresh home's sync of the same journal as the previous release wrote it (schema 1, no memos):
  every answer worked out.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from studytool.study import events, journal   # noqa: E402
from studytool.study.records import format_time   # noqa: E402

DEVICE = "00000000000000aa"
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
NOW = START + timedelta(days=400)


def answered(db: Path, folder: Path, rows: list[tuple[str, str, str, int]], now: datetime) -> None:
    """The other device (its progress database `db`) records `rows` (card, topic, time, rating) as a session
    would, then syncs: its journal is what its own `sync` writes."""
    from studytool.study.store import open_store
    from studytool.study.sync import sync

    with open_store(db, backups=False) as store:
        with store.transaction() as con:
            con.execute("INSERT OR IGNORE INTO settings (name, value) VALUES ('sync_device', ?)", (DEVICE,))
            con.executemany("INSERT INTO reviews (card, topic, time, mode, rating, correct, answer, seed, params,"
                            " duration_ms) VALUES (?, ?, ?, 'review', ?, 1, '7', NULL, '{}', 4000)", rows)
        sync(store, folder, now)


def history(events: int, cards: int) -> list[tuple[str, str, str, int]]:
    """`events` review answers over `cards` cards, a day apart, ratings from a seeded generator."""
    rng = random.Random(0)
    return [(f"bench/c{card}", "layernorm", format_time(START + timedelta(days=day, seconds=card)),
             rng.choice((1, 3, 3, 3, 4))) for day in range(events // cards) for card in range(cards)]


def a_day_later(events: int, cards: int, answers: int) -> list[tuple[str, str, str, int]]:
    """The next day's `answers` answers, over the first cards."""
    day = START + timedelta(days=events // cards)
    return [(f"bench/c{n % cards}", "layernorm", format_time(day + timedelta(seconds=n)), 3) for n in range(answers)]


def without_memos(folder: Path, into: Path) -> None:
    """The same journal as the previous release wrote it (schema 1: no answer carries the schedule it left)."""
    into.mkdir()
    lines = [events.line_of(events.event_of(line.text, DEVICE), schema=1)
             for line in journal.lines_from(journal.path_of(folder, DEVICE), 0, 1)]
    journal.rewrite(journal.path_of(into, DEVICE), lines)


def in_process(home: Path, folder: Path) -> tuple[float, float]:
    from studytool.study.store import open_store
    from studytool.study.sync import sync

    with open_store(home / "studytool.db", backups=False) as store:
        start = time.perf_counter()
        first = sync(store, folder, NOW)
        full = time.perf_counter() - start
        start = time.perf_counter()
        again = sync(store, folder, NOW)
        empty = time.perf_counter() - start
    assert first.read > 0 and again.read == 0, (first, again)
    return full, empty


def whole_process(args: list[str], home: Path) -> float:
    env = {**os.environ, "STUDYTOOL_HOME": str(home), "STUDYTOOL_NOW": NOW.isoformat(),
           "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "studytool", *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def synced_again(home: Path, folder: Path) -> float:
    from studytool.study.store import open_store
    from studytool.study.sync import sync

    with open_store(home / "studytool.db", backups=False) as store:
        start = time.perf_counter()
        report = sync(store, folder, NOW)
        took = time.perf_counter() - start
    assert report.read > 0, report
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--cards", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    rows: dict[str, list[float]] = {name: [] for name in (
        "new events (in process)", "nothing new (in process)", "new events (process)", "nothing new (process)",
        "--version (process)", "a day's 200 answers on top (in process)", "new events, schema-1 journal (in process)")}
    with tempfile.TemporaryDirectory() as tmp:
        folder, old, other = Path(tmp) / "Sync", Path(tmp) / "Sync-1", Path(tmp) / "other.db"
        folder.mkdir()
        answered(other, folder, history(options.events, options.cards), NOW)
        without_memos(folder, old)
        for run in range(options.runs):
            full, empty = in_process(Path(tmp) / f"a{run}", folder)
            rows["new events (in process)"].append(full)
            rows["nothing new (in process)"].append(empty)
            home = Path(tmp) / f"b{run}"
            rows["new events (process)"].append(whole_process(["sync", str(folder)], home))
            rows["nothing new (process)"].append(whole_process(["sync"], home))
            rows["--version (process)"].append(whole_process(["--version"], home))
        answered(other, folder, a_day_later(options.events, options.cards, 200), NOW)
        for run in range(options.runs):   # the common sync: a day's answers from the other computer
            rows["a day's 200 answers on top (in process)"].append(synced_again(Path(tmp) / f"a{run}", folder))
        # the previous release's journal: every answer worked out
        rows["new events, schema-1 journal (in process)"].append(in_process(Path(tmp) / "c", old)[0])
    print(f"{options.events:,} events over {options.cards:,} cards, median of {options.runs} runs")
    for name, times in rows.items():
        print(f"  {name:42} {statistics.median(times):7.3f} s   (min {min(times):.3f}, max {max(times):.3f})")
    beyond = statistics.median(rows["nothing new (process)"]) - statistics.median(rows["--version (process)"])
    print(f"  {'nothing new, beyond start-up':42} {beyond:7.3f} s")


if __name__ == "__main__":
    main()

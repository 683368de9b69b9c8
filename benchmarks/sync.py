"""What `studytool sync` costs: reading 100,000 new events and replaying their cards, and a sync with nothing new.

    python benchmarks/sync.py [--events 100000] [--cards 2000] [--runs 5] [--baseline DIR]

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

With `--baseline DIR` (a checkout of another studytool, e.g. `git worktree add /tmp/base <commit>`), the first
four are measured for it too, in the same run, its runs alternating with this tree's (the machine's speed drifts:
the ratio is the figure to read). Each side's journal is written by that side's own code, and every measurement
runs in a process of its own, so each side imports only its own studytool.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = Path(os.environ.get("BENCH_STUDYTOOL", HERE.parents[1]))   # whose studytool this process measures
sys.path.insert(0, str(ROOT))

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
    from studytool.study.records import format_time

    rng = random.Random(0)
    return [(f"bench/c{card}", "layernorm", format_time(START + timedelta(days=day, seconds=card)),
             rng.choice((1, 3, 3, 3, 4))) for day in range(events // cards) for card in range(cards)]


def a_day_later(events: int, cards: int, answers: int) -> list[tuple[str, str, str, int]]:
    """The next day's `answers` answers, over the first cards."""
    from studytool.study.records import format_time

    day = START + timedelta(days=events // cards)
    return [(f"bench/c{n % cards}", "layernorm", format_time(day + timedelta(seconds=n)), 3) for n in range(answers)]


def without_memos(folder: Path, into: Path) -> None:
    """The same journal as the previous release wrote it (schema 1: no answer carries the schedule it left)."""
    from studytool.study import events, journal

    into.mkdir()
    lines = [events.line_of(events.event_of(line.text, DEVICE), schema=1)
             for line in journal.lines_from(journal.path_of(folder, DEVICE), 0, 1)]
    journal.rewrite(journal.path_of(into, DEVICE), lines)


def in_process(home: Path, folder: Path) -> tuple[float, float]:
    """A fresh home's sync of `folder`, then the same at once (nothing new): their times in this process."""
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


def synced_again(home: Path, folder: Path) -> float:
    from studytool.study.store import open_store
    from studytool.study.sync import sync

    with open_store(home / "studytool.db", backups=False) as store:
        start = time.perf_counter()
        report = sync(store, folder, NOW)
        took = time.perf_counter() - start
    assert report.read > 0, report
    return took


def installed_env(**extra: str) -> dict[str, str]:
    """The environment of a measured process: bytecode cached, as pip compiles an installed studytool (with
    PYTHONDONTWRITEBYTECODE, as in some developer shells, each process would compile the modules it imports)."""
    env = {**os.environ, **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def as_side(root: Path, *args: str) -> str:
    """This script run with `root`'s studytool (`--step ...`): what it prints."""
    env = installed_env(BENCH_STUDYTOOL=str(root))
    return subprocess.run([sys.executable, str(HERE), *args], env=env, check=True, capture_output=True,
                          text=True).stdout


def whole_process(root: Path, args: list[str], home: Path) -> float:
    env = installed_env(STUDYTOOL_HOME=str(home), STUDYTOOL_NOW=NOW.isoformat(), PYTHONPATH=str(root))
    start = time.perf_counter()   # run from elsewhere: `-m` would import the studytool in the working folder first
    subprocess.run([sys.executable, "-m", "studytool", *args], env=env, check=True, capture_output=True,
                   cwd=home.parent)
    return time.perf_counter() - start


def step(options: argparse.Namespace) -> None:
    """One measurement or preparation in a process of its own, with BENCH_STUDYTOOL's studytool."""
    folder, place = Path(options.step[1]), Path(options.step[2])
    if options.step[0] == "journal":   # place: the other device's database
        answered(place, folder, history(options.events, options.cards), NOW)
    elif options.step[0] == "day-later":
        answered(place, folder, a_day_later(options.events, options.cards, 200), NOW)
    elif options.step[0] == "in-process":   # place: a fresh home
        print(json.dumps(in_process(place, folder)))
    elif options.step[0] == "again":
        print(json.dumps(synced_again(place, folder)))
    elif options.step[0] == "schema-1":   # place: where the schema-1 journal goes
        without_memos(folder, place)


ROWS = ("new events (in process)", "nothing new (in process)", "new events (process)", "nothing new (process)",
        "--version (process)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--cards", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another studytool checkout, measured beside this one")
    parser.add_argument("--step", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    sizes = ["--events", str(options.events), "--cards", str(options.cards)]
    if options.step:
        return step(options)
    sides = {"this tree": HERE.parents[1], **({"baseline": options.baseline.resolve()} if options.baseline else {})}
    rows: dict[str, dict[str, list[float]]] = {side: {name: [] for name in ROWS} for side in sides}
    extra: dict[str, list[float]] = {"a day's 200 answers on top (in process)": [],
                                      "new events, schema-1 journal (in process)": []}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {side: Path(tmp, f"Sync-{n}") for n, side in enumerate(sides)}
        for side, root in sides.items():
            folders[side].mkdir()
            as_side(root, *sizes, "--step", "journal", str(folders[side]), str(Path(tmp, f"other-{side}.db")))
        for run in range(options.runs):
            for side, root in sides.items():
                home = Path(tmp, f"{side}-a{run}")
                full, empty = json.loads(as_side(root, *sizes, "--step", "in-process", str(folders[side]), str(home)))
                rows[side]["new events (in process)"].append(full)
                rows[side]["nothing new (in process)"].append(empty)
                home = Path(tmp, f"{side}-b{run}")
                rows[side]["new events (process)"].append(whole_process(root, ["sync", str(folders[side])], home))
                rows[side]["nothing new (process)"].append(whole_process(root, ["sync"], home))
                rows[side]["--version (process)"].append(whole_process(root, ["--version"], home))
        this, folder = HERE.parents[1], folders["this tree"]
        as_side(this, *sizes, "--step", "day-later", str(folder), str(Path(tmp, "other-this tree.db")))
        for run in range(options.runs):   # the common sync: a day's answers from the other computer
            extra["a day's 200 answers on top (in process)"].append(
                json.loads(as_side(this, *sizes, "--step", "again", str(folder), str(Path(tmp, f"this tree-a{run}")))))
        as_side(this, *sizes, "--step", "schema-1", str(folder), str(Path(tmp, "Sync-schema-1")))
        extra["new events, schema-1 journal (in process)"].append(json.loads(as_side(
            this, *sizes, "--step", "in-process", str(Path(tmp, "Sync-schema-1")), str(Path(tmp, "c"))))[0])
    print(f"{options.events:,} events over {options.cards:,} cards, median of {options.runs} runs (min, max)")
    median = {side: {name: statistics.median(times) for name, times in found.items()} for side, found in rows.items()}
    for name in ROWS:
        cells = [f"{median[side][name]:7.3f} s ({min(rows[side][name]):.3f}, {max(rows[side][name]):.3f})"
                 for side in sides]
        ratio = f"   ×{median['this tree'][name] / median['baseline'][name]:.2f}" if options.baseline else ""
        print(f"  {name:42} {'   '.join(cells)}{ratio}")
    for side in sides:
        beyond = median[side]["nothing new (process)"] - median[side]["--version (process)"]
        print(f"  {'nothing new, beyond start-up (' + side + ')':42} {beyond:7.3f} s")
    for name, times in extra.items():
        print(f"  {name:42} {statistics.median(times):7.3f} s ({min(times):.3f}, {max(times):.3f})")


if __name__ == "__main__":
    main()

"""What the rule "a database that fails the full integrity check is never written" costs at 200,000 answers.

    python benchmarks/guard.py [--cards 10000] [--answers 200000] [--runs 5] [--db PATH]

Builds `benchmarks/review.py`'s progress database (or reuses `--db`) and
measures, median of `--runs`:

- `PRAGMA integrity_check` alone (what a writer pays when the file changed
  since the last checked writer closed it) next to `quick_check` (every open);
- `open_store` until it returns, for a file the last writer left (trusted) and
  for one changed since (the check then runs in a thread);
- the first write right after opening: trusted, and changed (it waits for the
  whole check), and the same after a 3-second think (a review's first card);
- closing a store whose check is still running (quitting at the first card).
The day's backup is not taken (`backups=False`): `backup.take` is its own row.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pragma(db: Path, name: str) -> float:
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    start = time.perf_counter()
    con.execute(f"PRAGMA {name}").fetchall()
    con.close()
    return time.perf_counter() - start


def changed(db: Path) -> None:
    """Touch the file as another program would (the same bytes): the next writer cannot trust it."""
    os.utime(db)


def first_write(db: Path, *, trusted: bool, think: float = 0.0) -> tuple[float, float]:
    """Seconds for open_store, and from the write's start to its commit."""
    from studytool.study.store import open_store

    if not trusted:
        changed(db)
    start = time.perf_counter()
    store = open_store(db, backups=False)
    opened = time.perf_counter() - start
    time.sleep(think)
    start = time.perf_counter()
    store.set_setting("benchmark", str(time.time()))
    wrote = time.perf_counter() - start
    store.close()
    return opened, wrote


def close_early(db: Path) -> float:
    from studytool.study.store import open_store

    changed(db)
    store = open_store(db, backups=False)
    time.sleep(0.2)
    start = time.perf_counter()
    store.close()
    return time.perf_counter() - start


def take(db: Path) -> float:
    from studytool.study import backup

    start = time.perf_counter()
    made = backup.take(db, checked=True)
    took = time.perf_counter() - start
    made.path.unlink()
    return took


def median(runs: int, function, *args, **kwargs) -> float:
    return statistics.median(function(*args, **kwargs) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--answers", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--db", type=Path, default=None, help="Reuse this database (built there if missing).")
    args = parser.parse_args()
    from review import fill_database

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "studytool.db"
        if not db.exists():
            fill_database(db, args.cards, args.answers, datetime.now(timezone.utc))
        first_write(db, trusted=False)   # warm-up; leaves the file trusted
        size = db.stat().st_size / 2**20
        print(f"{args.answers} answers, {size:.0f} MB, load average {os.getloadavg()[0]:.1f}")
        print(f"integrity_check                     {median(args.runs, pragma, db, 'integrity_check') * 1000:7.0f} ms")
        print(f"quick_check                         {median(args.runs, pragma, db, 'quick_check') * 1000:7.0f} ms")
        for trusted in (True, False):
            for think in (0.0, 3.0):
                parts = [first_write(db, trusted=trusted, think=think) for _ in range(args.runs)]
                label = f"{'trusted' if trusted else 'changed'}, first write after {think:.0f} s"
                print(f"{label:<36}open_store {statistics.median(p[0] for p in parts) * 1000:6.0f} ms,"
                      f" write {statistics.median(p[1] for p in parts) * 1000:6.0f} ms")
        print(f"close while the check runs          {median(args.runs, close_early, db) * 1000:7.0f} ms")
        print(f"backup.take (online backup, prune)  {median(args.runs, take, db) * 1000:7.0f} ms")


if __name__ == "__main__":
    main()

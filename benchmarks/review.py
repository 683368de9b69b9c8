"""Review at scale: time to the first card of `review` with 10,000 cards and 200,000 logged answers.

    python benchmarks/review.py [--cards 10000] [--answers 200000] [--runs 7]

A synthetic deck of `--cards` number cards (10 topics) and a progress database
in which every card has a schedule (due dates spread over the last and next
30 days, so about half are due) and `--answers` answers are logged over the
past year. Measured, median of `--runs` after one warm-up:

- library: `open_store` (read-only integrity and version check, then open)
  + `review_queue` + posing and rendering the first card, with the decks
  already in memory. Target: <= 0.3 s. This is the "beyond start-up" figure.
- cli: the whole `studytool review` process until the first card is on
  screen (interpreter start-up, imports and loading the 10,000-card deck
  file included), next to `studytool --version` (bare start-up).
- Enter -> next card: inside a review session, from the moment an answer
  line is read until the next card is rendered (grading, the logged answer
  and the moved schedule committed, the next card chosen, posed and drawn).
  Target: <= 50 ms median. Measured twice: with `implicit_credit` as the
  settings leave it, and switched on, with the bundled decks in the session
  too and each of their cards scheduled (not due), so the synthetic cards'
  answers credit the bundled topics' core cards as they would.
- stats: `compute_stats` over a database with `--stats-answers` logged
  answers (5x `--answers`: 1,000,000 by default). Target: <= 0.5 s.
"""

from __future__ import annotations

import argparse
import io
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

TARGET = 0.3  # seconds
ENTER_TARGET = 0.05
STATS_TARGET = 0.5
TOPICS = ["softmax", "ffn", "attention", "layernorm", "embedding", "residual", "multi-head", "decoder",
          "causal-mask", "param-count"]


def deck_yaml(cards: int) -> str:
    body = "".join(
        f"  - id: c{i}\n    kind: number\n    topic: {TOPICS[i % len(TOPICS)]}\n    q: 第 {i} 题：3 + 4 = ?\n"
        f"    answer: 7\n"
        for i in range(cards)
    )
    return f"deck: bench\ntitle: 合成卡组\nsource: benchmark\ncards:\n{body}"


def fill_database(path: Path, cards: int, answers: int, now: datetime, others: tuple[str, ...] = ()) -> None:
    """Schedules for every card (and the cards `others`: review cards, due in 10-30 days) and a year of
    logged answers before today, written in bulk (answers logged today would count against the daily review
    limit: at 200,000 a year, by the afternoon they are over its 200 and the queue is empty)."""
    from studytool.study.store import format_time, open_store

    rng = random.Random(0)
    with open_store(path) as store, store.transaction() as con:
        con.executemany(
            "INSERT INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
            " VALUES (?, 'bench', 2, NULL, ?, ?, ?, ?)",
            (
                (f"bench/c{i}", rng.uniform(1, 100), rng.uniform(1, 10),
                 format_time(now + timedelta(days=rng.uniform(-30, 30))),
                 format_time(now - timedelta(days=rng.uniform(1, 30))))
                for i in range(cards)
            ),
        )
        con.executemany(
            "INSERT INTO cards (key, deck, state, step, stability, difficulty, due, last_review)"
            " VALUES (?, ?, 2, NULL, ?, ?, ?, ?)",
            ((key, key.partition("/")[0], rng.uniform(20, 60), rng.uniform(1, 10),
              format_time(now + timedelta(days=rng.uniform(10, 30))),
              format_time(now - timedelta(days=rng.uniform(2, 10)))) for key in others),
        )
        con.executemany(
            "INSERT INTO reviews (card, topic, time, mode, rating, correct, answer, seed, params, duration_ms, prior,"
            " prior_state) VALUES (?, ?, ?, 'review', ?, ?, '7', ?, '{}', 3000, ?, 2)",
            (
                (f"bench/c{(c := rng.randrange(cards))}", TOPICS[c % len(TOPICS)],
                 format_time(now - timedelta(days=rng.uniform(1, 366))), (r := rng.choice((1, 3, 3, 3))),
                 int(r > 1), rng.randrange(2**32), json.dumps({"state": 2}))
                for _ in range(answers)
            ),
        )


def first_card_in_process(db: Path, decks) -> tuple[float, float, float]:
    """Seconds for open_store, then review_queue, then posing and rendering the first card (decks loaded)."""
    from rich.console import Console

    from studytool.cli.render.study import TerminalView
    from studytool.study.queue import review_queue
    from studytool.study.store import open_store
    from studytool.study.summary import Progress

    start = time.perf_counter()
    with open_store(db) as store:
        opened = time.perf_counter()
        queue = review_queue(store, decks, new_limit=20, now=datetime.now().astimezone(), rng=random.Random())
        queued = time.perf_counter()
        first = queue[0].card
        TerminalView(Console(file=io.StringIO())).show_card(first, first.pose(queue[0].seed),
                                                            Progress(1, len(queue), again=0, repeat=False))
        shown = time.perf_counter()
    return opened - start, queued - opened, shown - queued


def enter_to_next_card(db: Path, decks, answers: int, credit: bool = False) -> list[float]:
    """Seconds from each typed answer to the next card on (an in-memory) screen, in one review session
    (`credit`: with `implicit_credit` switched on)."""
    from rich.console import Console

    from studytool.cli.render.study import TerminalView
    from studytool.study.session import review
    from studytool.study.store import open_store

    typed_at: list[float] = []
    gaps: list[float] = []

    class Timed(TerminalView):
        def show_card(self, card, variant, progress):
            super().show_card(card, variant, progress)
            if typed_at:
                gaps.append(time.perf_counter() - typed_at[-1])

    def ask(prompt: str) -> str:
        if len(typed_at) == answers:
            raise EOFError
        typed_at.append(time.perf_counter())
        return "7"

    with open_store(db) as store:
        if credit:
            from studytool.study import settings

            settings.put(store, "implicit_credit", "on")
        review(store, decks, ask=ask, view=Timed(Console(file=io.StringIO())), rng=random.Random(0))
    return gaps


def enter_with_credit(db: Path, decks, args) -> float:
    """Enter -> next card with `implicit_credit` on, the bundled decks in the session and their cards scheduled."""
    from studytool.decks.loader import bundled_sources, scan

    bundled = scan(bundled_sources()).decks
    fill_database(db, args.cards, args.answers, datetime.now(timezone.utc),
                  tuple(card.key for deck in bundled for card in deck.cards))
    return statistics.median(enter_to_next_card(db, [*decks, *bundled], answers=max(5, 10 * args.runs), credit=True))


def stats_time(db: Path, decks) -> float:
    from studytool.config import now
    from studytool.study.stats import compute_stats
    from studytool.study.store import open_store

    with open_store(db, create=False) as store:
        start = time.perf_counter()
        compute_stats(store, decks, now())
        return time.perf_counter() - start


def studytool_command() -> list[str]:
    script = Path(sys.executable).parent / "studytool"
    return [str(script)] if script.exists() else [sys.executable, "-m", "studytool"]


def first_card_cli(db: Path, deck_dir: Path) -> float:
    """Wall time of `studytool review` until its first card panel is on stdout."""
    command = [*studytool_command(), "--db", str(db), "--deck-path", str(deck_dir), "review", "--deck", "bench"]
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "STUDYTOOL_LANG": "en", "COLUMNS": "100"})
    for line in proc.stdout:
        if line.startswith("╰".encode()):  # the bottom of the first card's panel
            elapsed = time.perf_counter() - start
            break
    else:
        raise SystemExit("review showed no card")
    proc.stdin.close()
    proc.wait()
    return elapsed


def timed_load(path: Path) -> float:
    from studytool.decks.loader import load_deck_file

    start = time.perf_counter()
    load_deck_file(path)
    return time.perf_counter() - start


def startup() -> float:
    start = time.perf_counter()
    subprocess.run([*studytool_command(), "--version"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def median_of(runs: int, function, *args) -> float:
    function(*args)  # warm-up
    return statistics.median(function(*args) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--answers", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--stats-answers", type=int, default=None, help="Default: 5x --answers (1,000,000).")
    args = parser.parse_args()

    from studytool.decks.loader import load_deck_file

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deck_dir = folder / "decks"
        deck_dir.mkdir()
        (deck_dir / "bench.yaml").write_text(deck_yaml(args.cards), encoding="utf-8")
        db = folder / "studytool.db"
        built = time.perf_counter()
        fill_database(db, args.cards, args.answers, datetime.now(timezone.utc))
        built = time.perf_counter() - built
        decks = [load_deck_file(deck_dir / "bench.yaml")]

        load = median_of(args.runs, timed_load, deck_dir / "bench.yaml")
        first_card_in_process(db, decks)  # warm-up
        parts = [first_card_in_process(db, decks) for _ in range(args.runs)]
        library = statistics.median(sum(p) for p in parts)
        opened, queued, shown = (statistics.median(p[i] for p in parts) for i in range(3))
        cli = median_of(args.runs, first_card_cli, db, deck_dir)
        bare = median_of(args.runs, startup)
        enter = statistics.median(enter_to_next_card(db, decks, answers=max(5, 10 * args.runs)))
        enter_credit = enter_with_credit(folder / "credited.db", decks, args)
        big = folder / "stats.db"
        args.stats_answers = args.stats_answers or 5 * args.answers
        fill_database(big, args.cards, args.stats_answers, datetime.now(timezone.utc))
        stats = median_of(args.runs, stats_time, big, decks)

    print(f"{args.cards} cards, {args.answers} logged answers (database built in {built:.1f} s)")
    print(f"library: open + queue + first card   median {library * 1000:7.1f} ms   target <= {TARGET * 1000:.0f} ms"
          f"   {'OK' if library <= TARGET else 'OVER'}")
    print(f"         open_store (quick_check) {opened * 1000:.1f} ms, review_queue {queued * 1000:.1f} ms,"
          f" first card {shown * 1000:.1f} ms")
    print(f"cli:     `studytool review` to card   median {cli * 1000:7.1f} ms")
    print(f"cli:     `studytool --version`        median {bare * 1000:7.1f} ms   (start-up)")
    print(f"cli:     beyond start-up              median {(cli - bare) * 1000:7.1f} ms   "
          f"(of which loading the {args.cards}-card deck file: {load * 1000:.1f} ms)")
    print(f"session: Enter -> next card          median {enter * 1000:7.1f} ms   target <= {ENTER_TARGET * 1000:.0f} ms"
          f"   {'OK' if enter <= ENTER_TARGET else 'OVER'}")
    print(f"session: the same, implicit credit on median {enter_credit * 1000:7.1f} ms   target <= "
          f"{ENTER_TARGET * 1000:.0f} ms   {'OK' if enter_credit <= ENTER_TARGET else 'OVER'}")
    print(f"stats:   {args.stats_answers} logged answers     median {stats * 1000:7.1f} ms   target <= "
          f"{STATS_TARGET * 1000:.0f} ms   {'OK' if stats <= STATS_TARGET else 'OVER'}")


if __name__ == "__main__":
    main()

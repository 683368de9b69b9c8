"""Start-up: `studytool --help` and the first quiz card, side by side with a bare typer app's `--help`.

    python benchmarks/startup.py [--runs 20]

The commands run alternately (so drift in machine load hits all of them
alike), each `--runs` times after one warm-up; the medians are compared.
Targets: `studytool --help` within 1.15x of the bare app, the first quiz card
on screen within 1.6x, whether that card is a fixed one or a generated one
(which imports NumPy to draw its variant).

"First card on screen" is the moment the quiz has written everything it shows
before it waits for the answer: stdin is a pipe left open, and the time of the
last output byte before the output goes quiet is taken. Then stdin is closed
and the session ends.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUIET = 0.4  # seconds of silence that mean "waiting for the answer"


def studytool_command() -> list[str]:
    """The installed console script next to this interpreter, as a user runs it."""
    script = Path(sys.executable).parent / "studytool"
    return [str(script)] if script.exists() else [sys.executable, "-m", "studytool"]


def time_to_exit(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def time_to_first_card(command: list[str], env: dict) -> float:
    """Seconds from launch to the last byte written before the program waits on its (open, empty) stdin."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    last, out = None, b""
    while True:
        ready, _, _ = select.select([proc.stdout], [], [], None if last is None else QUIET)
        if not ready:
            break
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        last, out = time.perf_counter(), out + chunk
    proc.stdin.close()  # EOF: the session ends
    proc.stdout.read()
    proc.wait(timeout=30)
    if last is None:
        raise RuntimeError(f"{' '.join(command)} printed nothing")
    return last - start


def first_card_seeds() -> tuple[int, int]:
    """The smallest quiz seeds whose first card is a fixed one and a generated one (NumPy draws it), as the
    bundled decks stand today (the decks change; a fixed seed would not keep meaning the same kind)."""
    from studytool.config import Settings
    from studytool.decks.loader import load_decks
    from studytool.decks.select import plan

    decks = load_decks(Settings())
    kinds = {seed: plan(decks, count=1, seed=seed)[0].card.kind for seed in range(500)}
    fixed = next(seed for seed, kind in kinds.items() if kind != "generated")
    return fixed, next(seed for seed, kind in kinds.items() if kind == "generated")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="studytool-bench-")
    env = {**os.environ, "STUDYTOOL_HOME": home, "NO_COLOR": "1", "COLUMNS": "100"}
    # An installed studytool has its bytecode compiled (pip does it at install time). With
    # PYTHONDONTWRITEBYTECODE set, as in some developer shells, every run of an editable install
    # would compile ~20 modules from source (~25 ms) that no user pays; the warm-up writes them.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    bare = [sys.executable, str(HERE / "bare_app.py"), "--help"]
    studytool = studytool_command()
    fixed, generated = first_card_seeds()
    measures = {
        "bare typer app --help": lambda: time_to_exit(bare, env),
        "studytool --help": lambda: time_to_exit([*studytool, "--help"], env),
        "studytool quiz: first card": lambda: time_to_first_card(
            [*studytool, "quiz", "--count", "1", "--seed", str(fixed)], env),
        "quiz: first card, generated": lambda: time_to_first_card(
            [*studytool, "quiz", "--count", "1", "--seed", str(generated)], env),
    }
    for measure in measures.values():  # warm-up: disk caches, .pyc files, the progress database
        measure()
    times = {name: [] for name in measures}
    for _ in range(args.runs):
        for name, measure in measures.items():
            times[name].append(measure())

    base = statistics.median(times["bare typer app --help"])
    targets = {"studytool --help": 1.15, "studytool quiz: first card": 1.6, "quiz: first card, generated": 1.6}
    print(f"quiz seeds: {fixed} (fixed first card), {generated} (generated first card)")
    print(f"{'command':<30} {'median':>9} {'min':>9} {'ratio':>7}  target  ({args.runs} runs each, alternating)")
    for name, samples in times.items():
        median = statistics.median(samples)
        target = targets.get(name)
        verdict = "" if target is None else f"<= {target:.2f}x {'ok' if median / base <= target else 'MISSED'}"
        print(f"{name:<30} {median * 1000:7.1f}ms {min(samples) * 1000:7.1f}ms {median / base:6.2f}x  {verdict}")


if __name__ == "__main__":
    main()

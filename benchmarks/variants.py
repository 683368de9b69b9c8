"""Variants per second for every generator, side by side (target: >= 2,000/s each).

Each draw is what a review showing costs: a fresh `numpy.random.default_rng(seed)`,
`generator.draw(rng)` with the defaults (every sub-question in the mix), and, in the
second column, also `format_answer` + `grade` of the canonical answer.

    .venv/bin/python benchmarks/variants.py [--draws 2000] [--runs 5] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from studytool.problems import registry
from studytool.problems.answers import format_answer, grade

TARGET = 2000


def rate(work, draws: int, runs: int) -> float:
    """Median variants per second over `runs` runs of `draws` seeds each, in this process's CPU time:
    the box is shared, and other sessions' work must not count as the generator's."""
    timings = []
    for run in range(runs):
        start = time.process_time()
        for seed in range(run * draws, (run + 1) * draws):
            work(seed)
        timings.append(time.process_time() - start)
    return draws / statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME", help="these generators (default: all)")
    args = parser.parse_args()

    print(f"| generator | draws/s | draw + grade/s | target {TARGET:,}/s |")
    print("|---|---:|---:|---|")
    slowest = float("inf")
    for name in args.only or registry.names():
        generator = registry.get(name)
        generator.draw(np.random.default_rng(0))  # first-use imports and the cached shape trace

        def draw(seed: int, g=generator) -> None:
            g.draw(np.random.default_rng(seed))

        def draw_and_grade(seed: int, g=generator) -> None:
            variant = g.draw(np.random.default_rng(seed))
            grade(variant, format_answer(variant))

        draws = rate(draw, args.draws, args.runs)
        graded = rate(draw_and_grade, args.draws, args.runs)
        slowest = min(slowest, draws)
        print(f"| {name} | {draws:,.0f} | {graded:,.0f} | {'ok' if draws >= TARGET else 'BELOW'} |")
    print(f"\nslowest generator: {slowest:,.0f} draws/s")


if __name__ == "__main__":
    main()

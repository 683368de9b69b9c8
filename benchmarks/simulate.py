"""Implicit review, simulated: a synthetic learner over 180 days, with and without the topic graph's credit.

    python benchmarks/simulate.py [--days 180] [--cards-per-topic 6] [--seeds 5] [--transfer 0.5]

The scheduler side is studytool's own code: `Scheduler` (FSRS-6 as Anki
drives it), `prerequisite_order` for new cards and `implicit.change` for the
credit, on the bundled topic graph. The learner is a model, and these are its
assumptions:

1. Memory is FSRS-6 with its default weights: each card has a true stability
   and difficulty, recall at a review succeeds with the FSRS retrievability,
   and the true memory then moves as FSRS says (Good if recalled, else Again).
2. A card of topic T leans on the topics T requires: for each of them the
   learner retrieves `--uses` (1) cards of that topic, drawn among those
   introduced (the facts the problem uses; 0: every card of the topic). The
   answer is right only if the card's own memory and each of those
   retrievals succeed.
3. A retrieval that succeeds inside an advanced answer is practice: that card's
   true stability moves `--transfer` (0.5) of the way to a Good review's, and its
   clock restarts. One that fails changes nothing.
4. New cards: `--new` (10) a day, in prerequisite order (both arms); a first
   showing is right with probability 0.8. No learning steps (both arms alike).
   Every due card is reviewed every day, in random order, at 09:00.

Explicit reviews are those of cards already introduced (first showings are
the same in both arms); true retention is the share of them answered right.
Both arms are run at desired retention 0.9. Their true retentions differ, so
"fewer reviews at equal retention" runs the arm without credit at each
desired retention of GRID and interpolates its reviews at the credited arm's
true retention.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

DAY0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
FIRST_RIGHT = 0.8


@dataclass
class Truth:
    """The learner's real memory of one card (days since DAY0)."""

    stability: float
    difficulty: float
    last: int


@dataclass
class Arm:
    """What one simulated run counted, per day."""

    reviews: list[int] = field(default_factory=list)
    right: list[int] = field(default_factory=list)
    credits: list[int] = field(default_factory=list)

    def retention(self, first: int = 0, last: int | None = None) -> float:
        reviews = sum(self.reviews[first:last])
        return sum(self.right[first:last]) / reviews if reviews else math.nan


class Learner:
    """Assumptions 1-3: true FSRS memories, advanced answers that lean on (and practise) their prerequisites."""

    def __init__(self, rng: random.Random, transfer: float):
        import fsrs

        self.model = fsrs.Scheduler(enable_fuzzing=False)
        self.rng, self.transfer = rng, transfer
        self.memory: dict[str, Truth] = {}

    def recall(self, key: str, day: int) -> float:
        truth = self.memory[key]
        return (1 + self.model._FACTOR * (day - truth.last) / truth.stability) ** self.model._DECAY

    def first(self, key: str, day: int) -> bool:
        import fsrs

        grade = fsrs.Rating.Good if self.rng.random() < FIRST_RIGHT else fsrs.Rating.Again
        self.memory[key] = Truth(self.model._initial_stability(rating=grade),
                                 self.model._initial_difficulty(rating=grade, clamp=True), day)
        return grade == fsrs.Rating.Good

    def review(self, key: str, day: int, uses: list[str]) -> bool:
        """An explicit review of `key` whose answer needs the cards `uses`; True if answered right."""
        import fsrs

        own = self.rng.random() < self.recall(key, day)
        leaned = [(used, self.rng.random() < self.recall(used, day)) for used in uses]
        for used, recalled in leaned:
            if recalled:
                self._practise(used, day)
        self._update(key, day, fsrs.Rating.Good if own else fsrs.Rating.Again)
        return own and all(recalled for _used, recalled in leaned)

    def _practise(self, key: str, day: int) -> None:
        import fsrs

        truth = self.memory[key]
        good = self.model._next_stability(difficulty=truth.difficulty, stability=truth.stability,
                                          retrievability=self.recall(key, day), rating=fsrs.Rating.Good)
        truth.stability += self.transfer * max(0.0, good - truth.stability)
        truth.last = day

    def _update(self, key: str, day: int, grade) -> None:
        truth = self.memory[key]
        truth.stability = self.model._next_stability(difficulty=truth.difficulty, stability=truth.stability,
                                                     retrievability=self.recall(key, day), rating=grade)
        truth.difficulty = self.model._next_difficulty(difficulty=truth.difficulty, rating=grade)
        truth.last = day


def simulate(*, credit: bool, retention: float, days: int, counts: dict[str, int], new_per_day: int,
             transfer: float, uses: int, weight: float, seed: int) -> Arm:
    from studytool.decks.model import Card
    from studytool.decks.select import prerequisite_order
    from studytool.decks.topics import load_topics
    from studytool.study.days import Days
    from studytool.study.scheduler import Rules, Scheduler

    rng = random.Random(seed)
    requires = {topic.id: topic.requires for topic in load_topics()}
    cards = [Card(deck="sim", id=f"{topic}-{i}", kind="recall", topic=topic, body={})
             for topic, count in counts.items() for i in range(count)]
    rng.shuffle(cards)
    scheduler = Scheduler(Rules(retention=retention, learning_steps=(), relearning_steps=(),
                                days=Days(4, timezone.utc)))
    learner, schedules, reps, arm = Learner(rng, transfer), {}, {}, Arm()
    by_topic: dict[str, list[Card]] = {}
    for day in range(days):
        now = DAY0 + timedelta(days=day)
        due = [card for card in cards if card.key in schedules and schedules[card.key].due <= now]
        rng.shuffle(due)
        unseen = [card for card in cards if card.key not in schedules]
        introduced = {topic for topic, held in by_topic.items() if held}
        new = prerequisite_order(unseen, introduced, {"sim": new_per_day})
        right = credits = 0
        credited_today: set[str] = set()
        for card in due + new:
            if card.key in schedules:
                leaned = [used.key for topic in requires[card.topic] if by_topic.get(topic)
                          for used in (rng.sample(by_topic[topic], min(uses, len(by_topic[topic]))) if uses
                                       else by_topic[topic])]
                correct = learner.review(card.key, day, leaned)
                right += correct
            else:
                correct = learner.first(card.key, day)
                by_topic.setdefault(card.topic, []).append(card)
            rating = 3 if correct else 1
            schedules[card.key] = scheduler.answer(schedules.get(card.key), rating, now, key=card.key,
                                                   reps=reps.get(card.key, 0))
            reps[card.key] = reps.get(card.key, 0) + 1
            if credit:
                credits += _credit(card, rating, now, requires, by_topic, schedules, reps, scheduler,
                                   credited_today, weight)
        arm.reviews.append(len(due))
        arm.right.append(right)
        arm.credits.append(credits)
    return arm


def _credit(card, rating, now, requires, by_topic, schedules, reps, scheduler, credited_today, weight) -> int:
    """The app's rule (`ImplicitCredit.after`): `implicit.moves` over the prerequisite topics, once a card a day."""
    from studytool.study import implicit

    groups = [[(p, schedules[p.key], reps[p.key]) for p in by_topic.get(topic, ()) if p.key not in credited_today]
              for topic in requires[card.topic]]
    moved = implicit.moves(groups, rating, now, lambda _deck: scheduler, weight)
    for prerequisite, schedule in moved:
        schedules[prerequisite.key] = schedule
        credited_today.add(prerequisite.key)
    return len(moved)


def runs(seeds: int, **kwargs) -> list[Arm]:
    return [simulate(seed=seed, **kwargs) for seed in range(seeds)]


def total_reviews(arms: list[Arm]) -> float:
    return statistics.mean(sum(arm.reviews) for arm in arms)


def pooled_retention(arms: list[Arm], first: int = 0, last: int | None = None) -> float:
    return sum(sum(a.right[first:last]) for a in arms) / sum(sum(a.reviews[first:last]) for a in arms)


GRID = (0.78, 0.82, 0.86, 0.90, 0.94)   # desired retentions tried without credit


def matched(target: float, seeds: int, **kwargs) -> dict[str, object]:
    """Reviews without credit at true retention `target`: a run at each desired retention of GRID, and a
    quadratic least-squares fit of reviews over true retention (reviews grow faster as retention nears 1,
    so a straight line would overstate them between the grid points) read at `target`."""
    import numpy as np

    points = [(pooled_retention(arms), total_reviews(arms), desired) for desired in GRID
              for arms in [runs(seeds, credit=False, retention=desired, **kwargs)]]
    kept, reviews, desired = (np.array(column) for column in zip(*points))
    return {"reviews": float(np.polyval(np.polyfit(kept, reviews, 2), target)),
            "desired": float(np.polyval(np.polyfit(kept, desired, 2), target)), "retention": target,
            "points": points}


def bundled_counts() -> dict[str, int]:
    """Cards per topic in the bundled decks (topics no deck uses are left out)."""
    from collections import Counter

    from studytool.decks.loader import bundled_sources, scan

    return dict(Counter(card.topic for deck in scan(bundled_sources()).decks for card in deck.cards))


def compare(seeds: int, **common) -> dict[str, object]:
    """Credit at desired 0.9; none at 0.9; and none interpolated to the credited arm's true retention."""
    on = runs(seeds, credit=True, retention=0.9, **common)
    off = runs(seeds, credit=False, retention=0.9, **common)
    equal = matched(pooled_retention(on), seeds, **common)
    return {"on": on, "off": off, "equal": equal, "saving": 1 - total_reviews(on) / equal["reviews"]}


def report(result: dict, days: int) -> None:
    arms = [result["off"], result["on"]]
    print("| days | reviews/day: no credit | with credit | true retention: no credit | with credit |")
    print("|---|---:|---:|---:|---:|")
    for first in [*range(0, days, 30), None]:
        last = days if first is None else min(first + 30, days)
        start = 0 if first is None else first
        per_day = [statistics.mean(sum(a.reviews[start:last]) for a in group) / (last - start) for group in arms]
        kept = [pooled_retention(group, start, last) for group in arms]
        label = "all" if first is None else f"{start + 1}-{last}"
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in per_day) + " | "
              + " | ".join(f"{v:.3f}" for v in kept) + " |")
    print()
    equal, on = result["equal"], result["on"]
    print("without credit, desired -> true retention, reviews/day: " + ", ".join(
        f"{d:.2f} -> {r:.3f}, {n / days:.2f}" for r, n, d in sorted(equal["points"], key=lambda p: p[2])))
    print(f"credits a day (credit arm): {statistics.mean(sum(a.credits) for a in on) / days:.1f}")
    print(f"both at desired retention 0.9: {1 - total_reviews(on) / total_reviews(result['off']):.1%} fewer explicit "
          f"reviews with credit, true retention {pooled_retention(on):.3f} vs {pooled_retention(result['off']):.3f}")
    print(f"at equal true retention {equal['retention']:.3f} (no credit needs desired {equal['desired']:.3f}, "
          f"{equal['reviews'] / days:.1f} reviews/day): {result['saving']:.1%} fewer explicit reviews with credit "
          "(target: >= 15% fewer)")


def main() -> None:
    from studytool.study.implicit import WEIGHT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--cards-per-topic", type=int, default=0, help="0: as many as the bundled decks have")
    parser.add_argument("--new", type=int, default=10, help="new cards a day")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--transfer", type=float, default=0.5, help="assumption 3: true worth of an implicit retrieval")
    parser.add_argument("--uses", type=int, default=1, help="assumption 2: cards of each prerequisite topic an answer "
                        "retrieves (0: all)")
    parser.add_argument("--weight", type=float, default=WEIGHT, help="the credit rule's weight (the app's: %(default)s)")
    parser.add_argument("--sweep", action="store_true", help="also the saving for transfer 0, 0.25 and 1")
    args = parser.parse_args()
    counts = bundled_counts() if args.cards_per_topic == 0 else None
    if counts is None:
        from studytool.decks.topics import topic_ids

        counts = dict.fromkeys(topic_ids(), args.cards_per_topic)
    common = dict(days=args.days, counts=counts, new_per_day=args.new, weight=args.weight, uses=args.uses)
    print(f"{args.seeds} seeds x {args.days} days, {sum(counts.values())} cards on {len(counts)} topics, "
          f"{args.new} new a day, uses {args.uses or 'all'}, transfer {args.transfer}, credit weight {args.weight}")
    print()
    report(compare(args.seeds, transfer=args.transfer, **common), args.days)
    if args.sweep:
        print()
        print("| transfer (assumption 3) | reviews/day without credit (matched) | with credit | fewer | retention |")
        print("|---:|---:|---:|---:|---:|")
        for transfer in (0.0, 0.25, 1.0):
            result = compare(args.seeds, transfer=transfer, **common)
            print(f"| {transfer} | {result['equal']['reviews'] / args.days:.1f} | "
                  f"{total_reviews(result['on']) / args.days:.1f} | {result['saving']:.1%} "
                  f"| {pooled_retention(result['on']):.3f} |")

if __name__ == "__main__":
    main()

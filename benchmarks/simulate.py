"""Implicit review, simulated: a synthetic learner over 180 days, with and without the topic graph's credit.

    python benchmarks/simulate.py [--days 180] [--seeds 16] [--transfer 0.5] [--weight W] [--sweep]

The scheduler side is studytool's own code: `Scheduler` (FSRS-6 as Anki
drives it), `prerequisite_order` for new cards and `implicit.moves` for the
credit, on the bundled topic graph and its `core:` cards. The learner is a
model, and these are its assumptions:

1. Memory is FSRS-6 with its default weights: each card has a true stability
   and difficulty, recall at a review succeeds with the FSRS retrievability,
   and the true memory then moves as FSRS says (Good if recalled, else Again).
2. A card of topic T exercises the core skill of each topic T requires, that
   topic's `core:` card(s) in topics.yaml: answering it, the learner retrieves
   each of those core cards (if introduced) and is right only if its own memory
   and each retrieval succeed. The other cards of a prerequisite topic are not
   exercised.
3. A retrieval that succeeds inside an advanced answer is practice: that card's
   true stability moves `--transfer` (0.5) of the way to a Good review's and its
   clock restarts. One that fails changes nothing.
4. New cards: `--new` (10) a day, in prerequisite order (both arms); a first
   showing is right with probability 0.8. No learning steps (both arms alike).
   Every due card is reviewed every day at 09:00, in random order (deepest topic
   first in the sweep's knock-out rows, a rule the app does not have).

Explicit reviews are those of cards already introduced (first showings are
the same in both arms). Two retentions are measured: the pass rate (the share
of explicit reviews answered right) and the learner's recall (each morning,
the mean over introduced cards of the chance to answer it right if asked then).
Both arms run at desired retention 0.9; "at equal retention" runs the arm
without credit at each desired retention of GRID and reads its reviews, by a
quadratic fit, at the credited arm's retention.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

DAY0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
FIRST_RIGHT = 0.8
GRID = (0.78, 0.82, 0.86, 0.90, 0.94)   # desired retentions tried without credit


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
    recall: list[float] = field(default_factory=list)   # the morning's mean chance of a right answer

    def passed(self, first: int = 0, last: int | None = None) -> float:
        reviews = sum(self.reviews[first:last])
        return sum(self.right[first:last]) / reviews if reviews else math.nan

    def recalled(self, first: int = 0, last: int | None = None) -> float:
        return statistics.mean(value for value in self.recall[first:last] if not math.isnan(value))


@dataclass(frozen=True)
class World:
    """The simulated cards (deck, id, topic), and the cards an answer to each of them exercises (by key)."""

    cards: tuple
    exercises: dict[str, tuple[str, ...]]

    def exercised(self, key: str) -> tuple[str, ...]:
        return self.exercises[key]


class Learner:
    """Assumptions 1-3: true FSRS memories, advanced answers that lean on (and practise) core cards."""

    def __init__(self, rng: random.Random, transfer: float):
        import fsrs

        self.model = fsrs.Scheduler(enable_fuzzing=False)
        self.rng, self.transfer = rng, transfer
        self.memory: dict[str, Truth] = {}

    def recall(self, key: str, day: int) -> float:
        truth = self.memory[key]
        return (1 + self.model._FACTOR * (day - truth.last) / truth.stability) ** self.model._DECAY

    def chance(self, key: str, uses: list[str], day: int) -> float:
        """The chance an answer to `key` would be right on `day`: its own recall and each exercised card's."""
        return math.prod(self.recall(used, day) for used in [key, *uses])

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


def simulate(world: World, *, credit: bool, retention: float, days: int, new_per_day: int, transfer: float,
             weight: float, seed: int, pull: bool = True, knock_out: bool = False) -> Arm:
    """One learner, `days` days. `pull` False: a miss moves nothing (what the pull costs). `knock_out`: a rule
    the app does not have, Math Academy's: each day's due cards are answered deepest topic first, a credit may
    also move a card due today (to tomorrow at the earliest), and a card so moved is not asked today."""
    from studytool.decks.select import prerequisite_order
    from studytool.decks.topics import layers
    from studytool.study.days import Days
    from studytool.study.scheduler import Rules, Scheduler

    rng = random.Random(seed)
    cards = list(world.cards)
    rng.shuffle(cards)
    scheduler = Scheduler(Rules(retention=retention, learning_steps=(), relearning_steps=(),
                                days=Days(4, timezone.utc)))
    depth = {topic.id: number for number, layer in enumerate(layers()) for topic in layer}
    state = Run(Learner(rng, transfer), scheduler, {card.key: card for card in cards}, world, weight, pull, knock_out)
    arm, introduced = Arm(), set()
    for day in range(days):
        now = DAY0 + timedelta(days=day)
        uses = {card.key: [key for key in world.exercised(card.key) if key in state.schedules] for card in cards}
        arm.recall.append(statistics.mean(state.learner.chance(key, uses[key], day) for key in state.schedules)
                          if state.schedules else math.nan)
        due = [card for card in cards if card.key in state.schedules and state.schedules[card.key].due <= now]
        rng.shuffle(due)
        if knock_out:
            due.sort(key=lambda card: -depth[card.topic])
        new = prerequisite_order([card for card in cards if card.key not in state.schedules], introduced,
                                 {card.deck: new_per_day for card in cards})[:new_per_day]
        introduced |= {card.topic for card in new}
        asked = [state.answer(card, day, now, credit) for card in due
                 if not knock_out or state.schedules[card.key].due <= now]
        credits = sum(state.answer(card, day, now, credit, first=True) for card in new)
        arm.reviews.append(len(asked))
        arm.right.append(sum(correct for correct, _credits in asked))
        arm.credits.append(credits + sum(credits for _correct, credits in asked))
    return arm


@dataclass
class Run:
    """The scheduler's side of one simulated learner: every card's schedule, and the credit rule."""

    learner: Learner
    scheduler: object
    by_key: dict
    world: World
    weight: float
    pull: bool
    knock_out: bool
    schedules: dict = field(default_factory=dict)
    reps: dict = field(default_factory=dict)

    def answer(self, card, day: int, now: datetime, credit: bool, first: bool = False):
        """One card answered (a first showing: its credits; a review: (right, credits))."""
        exercised = [key for key in self.world.exercised(card.key) if key in self.schedules]
        correct = self.learner.first(card.key, day) if first else self.learner.review(card.key, day, exercised)
        rating = 3 if correct else 1
        self.schedules[card.key] = self.scheduler.answer(self.schedules.get(card.key), rating, now, key=card.key,
                                                         reps=self.reps.get(card.key, 0))
        self.reps[card.key] = self.reps.get(card.key, 0) + 1
        credits = self._credit(exercised, rating, now) if credit else 0
        return credits if first else (correct, credits)

    def _credit(self, exercised: list[str], rating: int, now: datetime) -> int:
        """The app's rule (`ImplicitCredit.after`): `implicit.moves` over the exercised core cards."""
        from studytool.study import implicit

        if rating == implicit.AGAIN and not self.pull:
            return 0
        found = []
        for key in exercised:
            schedule = self.schedules[key]
            if self.knock_out and rating != implicit.AGAIN and schedule.due <= now:
                schedule = replace(schedule, due=self.scheduler.days.end_of(now))   # may be credited out of today
            found.append((self.by_key[key], schedule, self.reps[key]))
        moved = implicit.moves(found, rating, now, lambda _deck: self.scheduler, self.weight)
        for card, schedule in moved:
            self.schedules[card.key] = schedule
        return len(moved)


# --- many seeds, and the arm without credit matched to the credited arm's retention -------------------


def runs(world: World, seeds: int, **kwargs) -> list[Arm]:
    return [simulate(world, seed=seed, **kwargs) for seed in range(seeds)]


def total_reviews(arms: list[Arm]) -> float:
    return statistics.mean(sum(arm.reviews) for arm in arms)


def pooled(arms: list[Arm], measure: str, first: int = 0, last: int | None = None) -> float:
    if measure == "passed":
        return sum(sum(a.right[first:last]) for a in arms) / sum(sum(a.reviews[first:last]) for a in arms)
    return statistics.mean(a.recalled(first, last) for a in arms)


def fitted(points: list[tuple[float, float]], target: float) -> float:
    """y at x = `target` on the least-squares quadratic through `points` (reviews grow faster as retention
    nears 1, so a straight line would overstate them between the grid points)."""
    import numpy as np

    xs, ys = (np.array(column) for column in zip(*points))
    return float(np.polyval(np.polyfit(xs, ys, 2), target))


def compare(world: World, seeds: int, **common) -> dict[str, object]:
    """Credit at desired 0.9; no credit at each desired retention of GRID; savings at equal retention."""
    on = runs(world, seeds, credit=True, retention=0.9, **common)
    grid = {desired: runs(world, seeds, credit=False, retention=desired, **common) for desired in GRID}
    result: dict[str, object] = {"on": on, "off": grid[0.9], "grid": grid}
    for measure in ("passed", "recall"):
        target = pooled(on, measure)
        matched = fitted([(pooled(arms, measure), total_reviews(arms)) for arms in grid.values()], target)
        per_seed = [1 - sum(on[s].reviews) / fitted([(pooled([arms[s]], measure), sum(arms[s].reviews))
                                                      for arms in grid.values()], pooled([on[s]], measure))
                    for s in range(seeds)]
        result[measure] = {"target": target, "reviews": matched, "saving": 1 - total_reviews(on) / matched,
                           "desired": fitted([(pooled(arms, measure), d) for d, arms in grid.items()], target),
                           "per_seed": per_seed}
    return result


# --- the cards ------------------------------------------------------------------------------------


def bundled_world(per_card: bool = False) -> World:
    """The bundled decks' cards and the core cards each exercises (assumption 2); `per_card`: instead, each
    card exercises one card of each topic its topic requires, drawn once (what a per-card `exercises:` list
    on every card could name)."""
    from studytool.decks.loader import bundled_sources, scan
    from studytool.decks.topics import load_topics

    topics = load_topics()
    cards = tuple(card for deck in scan(bundled_sources()).decks for card in deck.cards)
    if per_card:
        rng, of_topic = random.Random(1), {}
        for card in cards:
            of_topic.setdefault(card.topic, []).append(card.key)
        requires = {topic.id: topic.requires for topic in topics}
        return World(cards, {card.key: tuple(rng.choice(of_topic[wanted]) for wanted in requires[card.topic])
                             for card in cards})
    return World(cards, exercising(cards, topics, {topic.id: topic.core for topic in topics}))


def skill_world(per_topic: int) -> World:
    """`per_topic` synthetic cards on each bundled topic, the first one its core card."""
    from studytool.decks.model import Card
    from studytool.decks.topics import load_topics

    topics = load_topics()
    cards = tuple(Card(deck="sim", id=f"{t.id}-{i}", kind="recall", topic=t.id, body={})
                  for t in topics for i in range(per_topic))
    return World(cards, exercising(cards, topics, {t.id: (f"sim/{t.id}-0",) for t in topics}))


def exercising(cards, topics, core: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """Assumption 2: each card exercises the core cards of the topics its topic requires."""
    requires = {topic.id: topic.requires for topic in topics}
    return {card.key: tuple(dict.fromkeys(key for wanted in requires[card.topic] for key in core.get(wanted, ())))
            for card in cards}


# --- the report -----------------------------------------------------------------------------------


def report(result: dict, days: int) -> None:
    arms = [result["off"], result["on"]]
    print("| days | reviews/day: no credit | with credit | pass rate: no credit | with credit "
          "| recall: no credit | with credit |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for first in [*range(0, days, 30), None]:
        last = days if first is None else min(first + 30, days)
        start = 0 if first is None else first
        per_day = [statistics.mean(sum(a.reviews[start:last]) for a in group) / (last - start) for group in arms]
        kept = [pooled(group, measure, start, last) for measure in ("passed", "recall") for group in arms]
        label = "all" if first is None else f"{start + 1}-{last}"
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in per_day) + " | "
              + " | ".join(f"{v:.3f}" for v in kept) + " |")
    print()
    on, off = result["on"], result["off"]
    print("without credit, desired -> pass rate, recall, reviews/day: " + ", ".join(
        f"{d:.2f} -> {pooled(a, 'passed'):.3f}, {pooled(a, 'recall'):.3f}, {total_reviews(a) / days:.2f}"
        for d, a in result["grid"].items()))
    print(f"credits a day (credit arm): {statistics.mean(sum(a.credits) for a in on) / days:.1f}")
    print(f"both at desired retention 0.9: {1 - total_reviews(on) / total_reviews(off):.1%} fewer explicit reviews "
          f"with credit; pass rate {pooled(on, 'passed'):.3f} vs {pooled(off, 'passed'):.3f}, "
          f"recall {pooled(on, 'recall'):.3f} vs {pooled(off, 'recall'):.3f}")
    for measure, name in (("recall", "recall"), ("passed", "pass rate")):
        equal = result[measure]
        seeds = equal["per_seed"]
        print(f"at equal {name} {equal['target']:.3f} (no credit needs desired {equal['desired']:.3f}, "
              f"{equal['reviews'] / days:.2f} reviews/day): {equal['saving']:.1%} fewer explicit reviews with credit "
              "(target: >= 15% fewer); "
              f"per seed mean {statistics.mean(seeds):.1%}, sd {statistics.stdev(seeds) if len(seeds) > 1 else 0:.1%}, "
              f"min {min(seeds):.1%}, max {max(seeds):.1%}")


SWEEP = (   # the sensitivity table: (what changes, the world, its keyword arguments)
    ("credit weight 0.15", False, {"weight": 0.15}),
    ("credit weight 0.5", False, {"weight": 0.5}),
    ("credit weight 1.0", False, {"weight": 1.0}),
    ("no pull after a miss", False, {"pull": False}),
    ("transfer 0.25 (implicit practice worth less)", False, {"transfer": 0.25}),
    ("transfer 1.0 (as good as a review), weight 1.0", False, {"transfer": 1.0, "weight": 1.0}),
    ("transfer 0 (no real practice)", False, {"transfer": 0.0}),
    ("each card exercises one card of each prerequisite topic", True, {}),
    ("the same, no pull after a miss", True, {"pull": False}),
    ("knock-out: deepest due cards first, a credit can take a due card out of today", False, {"knock_out": True}),
    ("knock-out, no pull", False, {"knock_out": True, "pull": False}),
    ("knock-out, each card exercises one card of each prerequisite topic", True, {"knock_out": True}),
    ("knock-out, one card of each prerequisite topic, no pull", True, {"knock_out": True, "pull": False}),
)


def sweep(seeds: int, common: dict, rows: slice = slice(None)) -> None:
    print("| change | fewer at desired 0.9 | pass rate (credit / none) | recall (credit / none) "
          "| fewer at equal recall | fewer at equal pass rate |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, per_card, changes in SWEEP[rows]:
        result = compare(bundled_world(per_card), seeds, **{**common, **changes})
        on, off = result["on"], result["off"]
        print(f"| {label} | {1 - total_reviews(on) / total_reviews(off):.0%} | "
              f"{pooled(on, 'passed'):.3f} / {pooled(off, 'passed'):.3f} | "
              f"{pooled(on, 'recall'):.3f} / {pooled(off, 'recall'):.3f} | "
              f"{result['recall']['saving']:.1%} | {result['passed']['saving']:.1%} |")


def main() -> None:
    from studytool.study.implicit import WEIGHT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--cards-per-topic", type=int, default=0, help="0: the bundled decks' cards")
    parser.add_argument("--new", type=int, default=10, help="new cards a day")
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--transfer", type=float, default=0.5, help="assumption 3: true worth of an implicit retrieval")
    parser.add_argument("--weight", type=float, default=WEIGHT,
                        help="the credit rule's weight (the app's: %(default)s)")
    parser.add_argument("--sweep", action="store_true", help="the sensitivity table instead")
    parser.add_argument("--rows", default=":", help="with --sweep, which rows (a Python slice: 9:)")
    args = parser.parse_args()
    common = dict(days=args.days, new_per_day=args.new, weight=args.weight, transfer=args.transfer)
    if args.sweep:
        sweep(args.seeds, common, slice(*(int(part) if part else None for part in args.rows.split(":"))))
        return
    world = bundled_world() if args.cards_per_topic == 0 else skill_world(args.cards_per_topic)
    print(f"{args.seeds} seeds x {args.days} days, {len(world.cards)} cards on "
          f"{len({card.topic for card in world.cards})} topics, {args.new} new a day, transfer {args.transfer}, "
          f"credit weight {args.weight}")
    print()
    report(compare(world, args.seeds, **common), args.days)


if __name__ == "__main__":
    main()

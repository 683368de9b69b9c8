"""Implicit review over the topic graph (Math Academy's "fractional implicit repetition").

Answering a multi-head attention card exercises attention, which it is built
from: the answer counts a little for the cards of the topics its topic
requires (`requires:` in topics.yaml), directly, not transitively (multi-head
credits attention, not softmax: attention's own reviews credit softmax). The rule,
for an answer to card R in a review, and each card P of a topic R's topic requires
that is a review card (not new, not in a learning step), neither suspended nor
buried, not due today (today's review asks it anyway, by FSRS alone), and
neither answered nor credited earlier the same (Anki) day:

- R answered Hard, Good or Easy: P gets a fractional Good review. S_good is
  the stability FSRS would give P for a Good answer now; P's stability becomes
  S + WEIGHT * (S_good - S), and its due day the one that stability implies:
  P's last review plus FSRS's interval for it, in whole days (no fuzz), never
  earlier than before. Difficulty and the last review stay, since P was
  exercised, not asked: its next explicit review is pure FSRS from there, and
  FSRS already makes an early credit worth little (at high recall S_good is close to S).
- R answered Again: for each prerequisite topic, its card due soonest is due
  no later than the start of the next day, memory untouched, so a prerequisite
  that may be the cause is checked tomorrow (one card a topic: pulling every
  card of a topic after each miss costs more than the credit saves).

Each change is one log row with mode 'implicit' (rating 3 for a credit, 1
for a pull; `answer` names the card whose answer gave it, as `cards show`
lists it; `params` the review id and the weight), so `:undo`
of the answer takes its credits back too. Reps, lapses, the daily limits,
stats and the optimizer count only mode 'review': explicit reviews stay pure
FSRS. The `implicit_credit` setting (`studytool config`, off by default)
switches it on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from studytool.decks.model import Card, Deck
from studytool.study.scheduler import REVIEW, Rules, Scheduler
from studytool.study.store import Answer, Schedule, Store

MODE = "implicit"
WEIGHT = 0.3       # a credit is worth 0.3 of a Good review's stability gain (benchmarks/simulate.py measures it)
GOOD, AGAIN = 3, 1


def credited(schedule: Schedule, good: Schedule, scheduler: Scheduler, weight: float = WEIGHT) -> Schedule:
    """`schedule` moved `weight` of the way to the stability of the Good answer `good`, due as that stability says."""
    stability = schedule.stability + weight * max(0.0, good.stability - schedule.stability)
    days = scheduler.days
    interval = max(1, round(scheduler.interval(stability)))
    due_day = max(days.number(schedule.due), days.number(schedule.last_review) + interval)
    return replace(schedule, stability=stability, due=days.start(due_day))


def pulled(schedule: Schedule, when: datetime, scheduler: Scheduler) -> Schedule:
    """`schedule` due no later than the day after `when`'s (Anki) day starts."""
    return replace(schedule, due=min(schedule.due, scheduler.days.end_of(when)))


class ImplicitCredit:
    """The credit rule for one session: the topic graph, the cards of each topic, each deck's scheduler."""

    def __init__(self, decks: Sequence[Deck], rules: Callable[[str], Rules]):
        from studytool.decks.topics import load_topics

        self.requires = {topic.id: topic.requires for topic in load_topics()}
        self.cards: dict[str, list[Card]] = {}
        for deck in decks:
            for card in deck.cards:
                self.cards.setdefault(card.topic, []).append(card)
        self.rules = rules
        self.schedulers: dict[str, Scheduler] = {}

    def scheduler(self, deck: str) -> Scheduler:
        if deck not in self.schedulers:
            self.schedulers[deck] = Scheduler(self.rules(deck))
        return self.schedulers[deck]

    def after(self, store: Store, card: Card, rating: int, when: datetime, review_id: int) -> list[int]:
        """Credit (or, after Again, pull) the prerequisite cards of `card`; the ids of the log rows written."""
        from studytool.study.cards import hidden_keys

        prerequisites = [p for topic in self.requires.get(card.topic, ()) for p in self.cards.get(topic, ())]
        if not prerequisites:
            return []
        days = self.scheduler(card.deck).days
        credited_today = {row.card for row in store.log_since(days.start_of(when)) if row.mode == MODE}
        hidden = hidden_keys(store, when)
        groups = [[(p, schedule, store.reps(p.key)) for p in self.cards.get(topic, ())
                   if p.key not in hidden and p.key not in credited_today
                   and (schedule := store.schedule(p.key)) is not None]
                  for topic in self.requires.get(card.topic, ())]
        written = []
        for prerequisite, moved in moves(groups, rating, when, self.scheduler):
            row = Answer(card=prerequisite.key, topic=prerequisite.topic, mode=MODE,
                         rating=GOOD if rating > AGAIN else AGAIN, correct=rating > AGAIN, answer=card.key, seed=None,
                         params={"from": card.key, "review": review_id, "weight": WEIGHT},
                         duration_ms=0, time=when)
            written.append(store.record(row, lambda _prior, moved=moved: moved))
        return written


def moves(groups: Sequence[Sequence[tuple[Card, Schedule, int]]], rating: int, when: datetime,
          scheduler_of: Callable[[str], Scheduler], weight: float = WEIGHT) -> list[tuple[Card, Schedule]]:
    """The new schedules an answer gives: `groups` holds, per prerequisite topic, its (card, schedule, reps).

    A right answer credits every card of each group; a miss pulls one card a group, the one due
    soonest: the next the scheduler would ask. (Pulling every card of a ten-card topic after
    each miss cost 40% more reviews in benchmarks/simulate.py.)
    """
    found = []
    for group in groups:
        moved = [(card, schedule, new) for card, schedule, reps in group
                 if (new := change(schedule, rating, when, scheduler_of(card.deck), key=card.key, reps=reps,
                                   weight=weight))]
        if rating == AGAIN:
            moved = sorted(moved, key=lambda item: item[1].due)[:1]
        found += [(card, new) for card, _schedule, new in moved]
    return found


def change(schedule: Schedule, rating: int, when: datetime, scheduler: Scheduler, *, key: str,
           reps: int, weight: float = WEIGHT) -> Schedule | None:
    """What an answer rated `rating` at `when` does to one prerequisite card's schedule (None: nothing).

    Nothing for a card that is not a review card, or was answered today, or is due today
    (today's review asks it anyway). `key` and `reps` are the card's, as FSRS's Good answer needs them.
    """
    days = scheduler.days
    today = days.number(when)
    if (schedule.state != REVIEW or schedule.last_review is None or days.number(schedule.last_review) >= today
            or days.number(schedule.due) <= today):
        return None
    if rating == AGAIN:
        moved = pulled(schedule, when, scheduler)
    else:
        moved = credited(schedule, scheduler.answer(schedule, GOOD, when, key=key, reps=reps), scheduler, weight)
    return None if moved == schedule else moved


def implicit_credit(store: Store, decks: Sequence[Deck], rules: Callable[[str], Rules]) -> ImplicitCredit | None:
    """The session's credit rule, or None when `implicit_credit` is off."""
    from studytool.study import settings

    return ImplicitCredit(decks, rules) if settings.get(store, "implicit_credit") else None

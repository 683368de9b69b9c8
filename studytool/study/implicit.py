"""Implicit review over the topic graph (Math Academy's "fractional implicit repetition").

Answering a multi-head attention card exercises attention, which it is built
from, but not every attention card: it uses attention's core skill, the card(s)
topics.yaml names as that topic's `core:` (transformer-arch/attn-formula). So
an answer credits the core cards of the topics its topic requires (`requires:`),
directly, not transitively (multi-head credits attention's core card, not
softmax's: attention's own answers do that), and no other card. The rule, for
an answer to card R in a review, and each core card P of a topic R's topic
requires that is a review card (not new, not in a learning step), neither
suspended nor buried, not due today (today's review asks it anyway, by FSRS
alone), and neither answered nor credited earlier the same (Anki) day:

- R answered Hard, Good or Easy: P gets a fractional Good review. S_good is
  the stability FSRS would give P for a Good answer now; P's stability becomes
  S + WEIGHT * (S_good - S), and its due day the one that stability implies:
  P's last review plus FSRS's interval for it, in whole days (no fuzz), never
  earlier than before. Difficulty and the last review stay, since P was
  exercised, not asked: its next explicit review is pure FSRS from there, and
  FSRS already makes an early credit worth little (at high recall S_good is close to S).
- R answered Again: each such P is due no later than the start of the next
  day, memory untouched, so a core skill that may be the cause is checked
  tomorrow (a few cards: the core cards, not every card of the topic).

Each change is one log row with mode 'implicit' (rating 3 for a credit, 1
for a pull; `answer` names the card whose answer gave it, as `cards show`
lists it; `params` the review id and the weight), so `:undo`
of the answer takes its credits back too. Reps, lapses, the daily limits,
stats and the optimizer count only mode 'review': explicit reviews stay pure
FSRS. The `implicit_credit` setting (`studytool config`) switches it on; it is
off by default because benchmarks/simulate.py finds no saving at equal
retention on the bundled decks (BENCHMARKS.md, 24 seeds: 0.2% fewer reviews):
the core cards some topic exercises are 19 of the 231 bundled cards, under 6%
of the reviews, and a core card asked less is recalled a little less inside
the advanced answers, whose misses are lapses of their own.
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
    """The credit rule for one session: the core cards each topic's answers exercise, each deck's scheduler."""

    def __init__(self, decks: Sequence[Deck], rules: Callable[[str], Rules]):
        from studytool.decks.topics import load_topics

        topics = load_topics()
        cards = {card.key: card for deck in decks for card in deck.cards}
        core = {topic.id: [cards[key] for key in topic.core if key in cards] for topic in topics}
        # topic -> the core cards of the topics it requires (a card in two of them once)
        self.exercised = {topic.id: list({card.key: card for wanted in topic.requires
                                          for card in core[wanted]}.values()) for topic in topics}
        self.rules = rules
        self.schedulers: dict[str, Scheduler] = {}

    def scheduler(self, deck: str) -> Scheduler:
        if deck not in self.schedulers:
            self.schedulers[deck] = Scheduler(self.rules(deck))
        return self.schedulers[deck]

    def after(self, store: Store, card: Card, rating: int, when: datetime, review_id: int) -> list[int]:
        """Credit (or, after Again, pull) the core cards `card` exercises; the ids of the log rows written."""
        targets = self.exercised.get(card.topic, ())
        if not targets:
            return []
        skipped = _hidden_or_credited(store, [target.key for target in targets], when,
                                      self.scheduler(card.deck).days.start_of(when))
        found = [(target, schedule, store.reps(target.key)) for target in targets
                 if target.key not in skipped and (schedule := store.schedule(target.key)) is not None]
        written = []
        for target, moved in moves(found, rating, when, self.scheduler):
            row = Answer(card=target.key, topic=target.topic, mode=MODE,
                         rating=GOOD if rating > AGAIN else AGAIN, correct=rating > AGAIN, answer=card.key, seed=None,
                         params={"from": card.key, "review": review_id, "weight": WEIGHT},
                         duration_ms=0, time=when)
            written.append(store.record(row, lambda _prior, moved=moved: moved))
        return written


def _hidden_or_credited(store: Store, keys: Sequence[str], when: datetime, day_start: datetime) -> set[str]:
    """Which of `keys` are suspended or buried at `when`, or were credited since `day_start`: two indexed
    look-ups for these few cards, not the whole day's log or every flag (Enter -> next card stays fast)."""
    from studytool.study.records import format_time

    marks = ", ".join("?" * len(keys))
    rows = store.con.execute(
        f"SELECT key FROM card_flags WHERE key IN ({marks}) AND (suspended = 1 OR buried_until > ?)"
        f" UNION SELECT card FROM reviews WHERE card IN ({marks}) AND mode = '{MODE}' AND time >= ?",
        (*keys, format_time(when), *keys, format_time(day_start)))
    return {row[0] for row in rows}


def moves(found: Sequence[tuple[Card, Schedule, int]], rating: int, when: datetime,
          scheduler_of: Callable[[str], Scheduler], weight: float = WEIGHT) -> list[tuple[Card, Schedule]]:
    """The new schedules an answer rated `rating` gives the core cards it exercises: `found` holds each
    one's (card, schedule, reps). A right answer credits each, a miss pulls each (they are a few cards)."""
    return [(card, new) for card, schedule, reps in found
            if (new := change(schedule, rating, when, scheduler_of(card.deck), key=card.key, reps=reps,
                              weight=weight))]


def change(schedule: Schedule, rating: int, when: datetime, scheduler: Scheduler, *, key: str,
           reps: int, weight: float = WEIGHT) -> Schedule | None:
    """What an answer rated `rating` at `when` does to one exercised card's schedule (None: nothing).

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

"""What a review asks, as Anki's queues do: learning steps when due, review cards due today, then new cards.

Review cards are capped at `max_reviews_per_day` (those answered today count
against it) and new cards at `new_per_day` (those started today count) and, as
in Anki, at what the review cap leaves after the due reviews. As Anki's v3
scheduler applies the limits of the deck studied and of each of its children,
a review of one deck (`--deck D`) is capped by that deck's values, and a review
of several or all decks, as studying Anki's top deck, by each deck's values and
the global ones over them all (today's answers in every deck count against
those, as Anki counts a parent's). Learning steps due within the learn-ahead
window (Anki's 20 minutes) wait in the session and come back when due, or as
soon as nothing else is left. New cards are drawn in one order a day (seeded by
the day), as Anki's keep their positions: every review of a day offers the same
ones, so the outlook can say how many a review started now gives. Reads only
the due rows and today's log, never the whole log.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from studytool.decks.model import Card, Deck
from studytool.study.days import Days
from studytool.study.scheduler import Rules
from studytool.study.store import Store, format_time

LEARN_AHEAD = timedelta(minutes=20)   # Anki's "learn ahead limit"
SEED_RANGE = 2**32
REVIEW_STATE = 2


@dataclass(frozen=True)
class Showing:
    """One card to pose, with its variant seed (None: the notes' own example)."""

    card: Card
    seed: int | None
    again: bool = False              # a (re)learning step come back, not one of the session's own cards
    due: datetime | None = None      # a learning step: not before this moment (None: ask in turn)
    level: int = 1                   # how far a generated question has grown (`problems/levels.py`)
    missed: bool = False             # a step come back after a miss this session (what the header counts "again")


def card_level(store: Store, key: str) -> int:
    """The level the card's next showing uses: from its stability, level 1 while it relearns."""
    from studytool.problems.levels import level_for

    schedule = store.schedule(key)
    return level_for(schedule.stability, schedule.state) if schedule else 1


class Budget:
    """Cards today's limits still allow: each deck's own count, and one over them all (None: no such cap)."""

    def __init__(self, per_deck: dict[str, int], total: int | None):
        self.per_deck = {deck: max(0, left) for deck, left in per_deck.items()}
        self.total = None if total is None else max(0, total)

    def left(self, deck: str) -> int:
        own = self.per_deck.get(deck, 0)
        return own if self.total is None else min(own, self.total)

    def take(self, deck: str) -> bool:
        """Spend one card of `deck`'s room, if there is any left."""
        if self.left(deck) <= 0:
            return False
        self.per_deck[deck] -= 1
        if self.total is not None:
            self.total -= 1
        return True

    def overall(self) -> int:
        """All the decks may still take together."""
        room = sum(self.per_deck.values())
        return room if self.total is None else min(room, self.total)


def spread_topics(showings: Sequence[Showing]) -> list[Showing]:
    """Reorder so that cards of one topic are spread apart, keeping the order within a topic.

    Greedy: next comes the topic (other than the last one shown) with the most
    cards left; ties go to the one that came first. This leaves no two
    neighbours on one topic whenever no topic holds more than half the cards.
    """
    by_topic: dict[str, list[Showing]] = {}
    for showing in showings:
        by_topic.setdefault(showing.card.topic, []).append(showing)
    first_seen = {topic: index for index, topic in enumerate(by_topic)}
    ordered: list[Showing] = []
    last: str | None = None
    while by_topic:
        candidates = [t for t in by_topic if t != last] or list(by_topic)
        topic = min(candidates, key=lambda t: (-len(by_topic[t]), first_seen[t]))
        ordered.append(by_topic[topic].pop(0))
        if not by_topic[topic]:
            del by_topic[topic]
        last = topic
    return ordered


def study_rules(store: Store, *, retention: float | None = None, fuzz: bool = True) -> Callable[[str], Rules]:
    """Each deck's scheduling rules from `config` (its own values, else the global ones, else Anki's defaults).

    `retention` given for the session wins over every deck's remembered one.
    """
    from studytool.study import settings

    days = study_days(store)

    def rules(deck: str) -> Rules:
        return Rules(
            retention=retention if retention is not None else settings.get(store, "retention", deck),
            parameters=settings.get(store, "parameters", deck),
            learning_steps=settings.get(store, "learning_steps", deck),
            relearning_steps=settings.get(store, "relearning_steps", deck),
            fuzz=fuzz,
            days=days,
        )
    return rules


def study_days(store: Store) -> Days:
    from studytool.study import settings

    return Days(settings.get(store, "day_start"))


def _limit(store: Store, name: str, deck: str | None, override: int | None) -> int:
    from studytool.study import settings

    return settings.get(store, name, deck) if override is None else override


def _several(deck_ids: Sequence[str]) -> bool:
    """Several decks or all (no `--deck`): as Anki's top deck, whose limits (the global values) cap the total."""
    return len(set(deck_ids)) != 1


def budgets(store: Store, decks: Sequence[str], deck_ids: Sequence[str], new_limit: int | None,
            since: datetime) -> tuple[Budget, Budget]:
    """The new and review cards today's limits leave for `decks`, as of the day started at `since`.

    `new_limit` (`review --new N`) stands for every `new_per_day` value this once. Over several decks, or
    all (`deck_ids` not one deck), the global values cap the total, today's answers in any deck counted.
    """
    started, reviewed = store.new_cards_by_deck(since), store.reviews_by_deck(since)
    whole = _several(deck_ids)
    new = Budget({deck: _limit(store, "new_per_day", deck, new_limit) - started.get(deck, 0) for deck in decks},
                 _limit(store, "new_per_day", None, new_limit) - sum(started.values()) if whole else None)
    reviews = Budget({deck: _limit(store, "max_reviews_per_day", deck, None) - reviewed.get(deck, 0)
                      for deck in decks},
                     _limit(store, "max_reviews_per_day", None, None) - sum(reviewed.values()) if whole else None)
    return new, reviews


def review_queue(
    store: Store,
    decks: Sequence[Deck],
    *,
    deck_ids: Sequence[str] = (),
    new_limit: int | None = None,
    now: datetime,
    days: Days | None = None,
    rng: random.Random,
) -> list[Showing]:
    """Learning steps due now, review cards due today (most overdue first, within the caps), then new cards.

    Learning steps due within the learn-ahead window come last, marked with
    their `due`. Due cards draw a fresh variant; a new card's first showing
    poses the notes' own example.
    """
    from studytool.decks.select import plan, prerequisite_order
    from studytool.study.cards import hidden_keys

    days = days or Days()
    # the day's draw, not the session's: a card held back by a prerequisite over its deck's limit depends on which
    # cards took that room, and the outlook (`new_today`) must count what the next review of the day gives
    selected = {p.card.key: p.card for p in plan(decks, deck_ids=deck_ids, seed=days.number(now))}
    for key in hidden_keys(store, now):   # suspended, or buried until a later day
        selected.pop(key, None)
    start, end = days.start_of(now), days.end_of(now)
    new_left, reviews_left = budgets(store, sorted({card.deck for card in selected.values()}), deck_ids, new_limit,
                                     start)
    due, waiting = _due_showings(store, selected, reviews_left, now, end, rng)
    # as Anki's "new cards ignore review limit" (off by default): new cards fit in what the review cap leaves
    room = {deck: min(new_left.left(deck), reviews_left.left(deck)) for deck in new_left.per_deck}
    total = min(new_left.overall(), reviews_left.overall())
    scheduled = store.scheduled_keys()
    introduced = {card.topic for deck in decks for card in deck.cards if card.key in scheduled}
    unseen = [card for key, card in selected.items() if key not in scheduled]
    # a topic's first card after its prerequisites' (topic graph), so the first `total` keep that order too;
    # spreading topics apart may not undo it
    placed = prerequisite_order(unseen, introduced, room)[:total]
    spread = spread_topics([Showing(card, None) for card in placed])
    new = [Showing(card, None) for card in prerequisite_order([showing.card for showing in spread], introduced)]
    return spread_topics(due) + new + waiting


def _due_showings(store: Store, selected: dict[str, Card], reviews_left: Budget, now: datetime,
                  end: datetime, rng: random.Random) -> tuple[list[Showing], list[Showing]]:
    """Cards due now (reviews due today within the caps, learning steps due now), and learning steps
    due within the learn-ahead window (`reviews_left` is spent as reviews are taken)."""
    from studytool.problems.levels import level_for
    from studytool.study.stats import asked_now

    due, waiting = [], []
    for key, schedule in store.due(max(end, now + LEARN_AHEAD)):
        card = selected.get(key)
        if card is None:
            continue
        level = level_for(schedule.stability, schedule.state)
        if asked_now(schedule.state, schedule.due, now, end):   # hidden cards are not `selected`
            if schedule.state != REVIEW_STATE or reviews_left.take(card.deck):
                due.append(Showing(card, rng.randrange(SEED_RANGE), level=level))
        elif schedule.state != REVIEW_STATE and schedule.due <= now + LEARN_AHEAD:
            waiting.append(Showing(card, rng.randrange(SEED_RANGE), again=True, due=schedule.due, level=level))
    return due, waiting


def new_today(store: Store, decks: Sequence[Deck], deck_ids: Sequence[str], new_limit: int | None,
              now: datetime, days: Days) -> int:
    """New cards a review started now gives: its queue's, held-back cards (a prerequisite waiting) not counted."""
    scheduled = store.scheduled_keys()
    queue = review_queue(store, decks, deck_ids=deck_ids, new_limit=new_limit, now=now, days=days,
                         rng=random.Random(0))   # the variants' seeds: not counted
    return sum(showing.card.key not in scheduled for showing in queue)


def _new_per_day(store: Store, decks: Sequence[str], deck_ids: Sequence[str], new_limit: int | None) -> int:
    """New cards the limits allow over `decks` in a whole day."""
    limit = sum(_limit(store, "new_per_day", deck, new_limit) for deck in decks)
    if _several(deck_ids):
        limit = min(limit, _limit(store, "new_per_day", None, new_limit))
    return limit


@dataclass(frozen=True)
class Outlook:
    """When the selected cards come back: the next due card, today's rest, tomorrow, the next 7 days."""

    now: datetime
    next_due: datetime | None   # the soonest a scheduled card of the selection comes back (None: none or all suspended)
    due_now: int                # what a review started now would ask (as `stats`), were no limit in the way
    due_today: int              # selected cards due before the day ends, later than now
    due_tomorrow: int           # due during tomorrow (an Anki day: from day_start to day_start)
    due_week: int               # due during the 7 days after today
    new_left: int               # new cards a review started now gives (`new_today`)
    new_limit: int
    new_unseen: int             # selected cards never reviewed

    def to_json(self) -> dict[str, Any]:
        return {
            "next_due": self.next_due.isoformat() if self.next_due else None,
            "due_now": self.due_now,
            "due_today": self.due_today,
            "due_tomorrow": self.due_tomorrow,
            "due_next_7_days": self.due_week,
            "new_left_today": self.new_left,
            "new_limit": self.new_limit,
            "new_unseen": self.new_unseen,
        }


def review_outlook(
    store: Store, decks: Sequence[Deck], *, deck_ids: Sequence[str] = (), new_limit: int | None = None,
    now: datetime, days: Days | None = None,
) -> Outlook:
    """When the selected decks have cards due next, and how many new cards today's limits leave."""
    from studytool.decks.select import plan
    from studytool.study.stats import asked_now, scheduled_cards
    from studytool.study.store import parse_time

    days = days or Days()
    cards = {p.card.key: p.card for p in plan(decks, deck_ids=deck_ids, seed=0)}
    suspended = {row[0] for row in store.con.execute("SELECT key FROM card_flags WHERE suspended = 1")}
    today = days.number(now)
    bounds = [format_time(moment) for moment in (now, days.start(today + 1), days.start(today + 2),
                                                 days.start(today + 8))]
    # when each comes back (UTC text, which sorts like time: no parsing): a buried card at its burial's end
    scheduled = {key: row for key, row in scheduled_cards(store).items() if key in cards}
    backs = [(state, back) for state, back in scheduled.values() if back is not None]   # suspended: never
    dues = [back for _state, back in backs]
    return Outlook(
        now=now,
        next_due=parse_time(min(dues)) if dues else None,
        due_now=sum(asked_now(state, back, bounds[0], bounds[1]) for state, back in backs),
        due_today=sum(bounds[0] < due < bounds[1] for due in dues),
        due_tomorrow=sum(bounds[1] <= due < bounds[2] for due in dues),
        due_week=sum(bounds[1] <= due < bounds[3] for due in dues),
        new_left=new_today(store, decks, deck_ids, new_limit, now, days),
        new_limit=_new_per_day(store, sorted({card.deck for card in cards.values()}), deck_ids, new_limit),
        new_unseen=sum(key not in scheduled and key not in suspended for key in cards),
    )

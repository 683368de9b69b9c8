"""The one study loop behind `quiz` and `review`, for a terminal and for scripts alike.

The loop knows nothing of typer or rich: it reads lines from an `ask`
callable (raising `EOFError` at the end of input) and reports to a `View`.
Every answer is committed to the store before the next card is shown, so a
session that ends any way at all (`:q`, EOF, Ctrl-C, `kill -9`) loses at most
the card on screen.

At any prompt: `:q` quits, `:skip` skips the card, `:undo` takes back the last
answer (log row and schedule) or skip and asks that card again, `:explain`
shows the card's topic and then the card again, `:help` (or `:?`) lists these.
Any other `:word` is an unknown command, never an answer. Ctrl-C ends the
session like `:q`, marked `Summary.interrupted`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from studytool.decks.model import Card, Deck
from studytool.i18n import _
from studytool.problems.variant import Variant
from studytool.study.scheduler import DEFAULT_RETENTION, make_scheduler, next_schedule, rating_for
from studytool.study.stats import TopicScore, due_now, weakest_topics
from studytool.study.store import Answer, Store

REQUEUE_GAP = 3        # a missed card comes back after this many other cards
SEED_RANGE = 2**32

Ask = Callable[[str], str]   # prompt -> one line; raises EOFError when input ends
Clock = Callable[[], datetime]


def local_now() -> datetime:
    """Now, in the local time zone: days (the new-card limit, "due today") are local days."""
    return datetime.now().astimezone()


@dataclass(frozen=True)
class Showing:
    """One card to pose, with its variant seed (None: the notes' own example)."""

    card: Card
    seed: int | None
    again: bool = False   # a missed card come back (review), not one of the session's own cards


@dataclass(frozen=True)
class Progress:
    """Where the card on screen stands. Missed cards coming back are counted apart, so `total` never grows."""

    number: int     # the session's own cards shown so far, this one included unless it is a card come back
    total: int      # the session's own cards
    again: int      # missed cards waiting to come back, this one not included
    repeat: bool    # this is a missed card come back


@dataclass(frozen=True)
class Result:
    """One answered showing."""

    card: Card
    seed: int | None
    variant: Variant
    answer: str
    expected: str
    correct: bool
    rating: int
    hint: str | None
    review_id: int

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card.key,
            "topic": self.card.topic,
            "kind": self.card.kind,
            "seed": self.seed,
            "prompt": self.variant.prompt,
            "answer": self.answer,
            "expected": self.expected,
            "correct": self.correct,
            "rating": self.rating,
        }


@dataclass(frozen=True)
class Outlook:
    """Why a review found nothing to ask, and when it will: the next due card and the new-card limit."""

    now: datetime
    next_due: datetime | None   # the soonest scheduled card of the selection (None: none scheduled yet)
    due_today: int              # selected cards due before midnight (all later than now)
    new_left: int               # new cards today's limit still allows
    new_limit: int
    new_unseen: int             # selected cards never reviewed

    def to_json(self) -> dict[str, Any]:
        return {
            "next_due": self.next_due.isoformat() if self.next_due else None,
            "due_today": self.due_today,
            "new_left_today": self.new_left,
            "new_limit": self.new_limit,
            "new_unseen": self.new_unseen,
        }


@dataclass(frozen=True)
class Summary:
    mode: str
    results: tuple[Result, ...]
    skipped: int
    seconds: float
    seed: int | None = None   # quiz: the selection seed, to replay with --seed
    interrupted: bool = False  # ended by Ctrl-C (the CLI exits 130 after the summary)
    outlook: Outlook | None = None  # review: set when nothing was due now

    @property
    def answered(self) -> int:
        return len(self.results)

    @property
    def correct(self) -> int:
        return sum(result.correct for result in self.results)

    def weakest(self) -> list[TopicScore]:
        return weakest_topics([(r.card.topic, r.correct) for r in self.results])

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "seed": self.seed,
            "answered": self.answered,
            "correct": self.correct,
            "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
            "cards": [result.to_json() for result in self.results],
            "weakest_topics": [score.to_json() for score in self.weakest()],
            "outlook": self.outlook.to_json() if self.outlook else None,
        }


class View(Protocol):
    """What the loop reports; the CLI renders it with rich, tests record it."""

    def show_card(self, card: Card, variant: Variant, progress: Progress) -> None: ...
    def show_reference(self, card: Card, variant: Variant) -> None: ...
    def show_result(self, result: Result) -> None: ...
    def show_notice(self, text: str) -> None: ...
    def show_explain(self, topic: str) -> None: ...


class _Quit(Exception):
    """`:q` typed at a prompt."""


class _Skip(Exception):
    """`:skip` typed at a prompt."""


class _Undo(Exception):
    """`:undo` typed at a prompt, with an answer or skip to take back."""


class Session:
    """A queue of showings, asked one by one; build with `quiz` or `review` below."""

    def __init__(
        self,
        store: Store,
        queue: Sequence[Showing],
        *,
        mode: str,
        ask: Ask,
        view: View,
        retention: float = DEFAULT_RETENTION,
        fuzz: bool = True,
        clock: Clock = local_now,
        rng: random.Random | None = None,
    ):
        self.store = store
        self.queue = list(queue)
        self.total = sum(not showing.again for showing in self.queue)
        self.mode = mode
        self.ask = ask
        self.view = view
        self.scheduler = make_scheduler(retention, fuzz=fuzz)
        self.clock = clock
        self.rng = rng or random.Random()
        self.done: list[tuple[Showing, Result | None]] = []  # each showing left behind: answered, or None if skipped
        self.requeued: dict[int, Showing] = {}  # review id of a miss -> the showing it put back
        self.on_screen: tuple[Card, Variant, Progress]  # the card being asked, to show again after :explain

    def run(self) -> Summary:
        started = time.monotonic()
        interrupted = False
        try:
            while self.queue:
                showing = self.queue.pop(0)
                try:
                    self._pose(showing)
                except _Skip:
                    self.done.append((showing, None))
                except _Undo:
                    self.queue.insert(0, showing)
                    self._take_back()
                except _Quit:
                    break
        except EOFError:
            pass
        except KeyboardInterrupt:
            interrupted = True
        return Summary(self.mode, tuple(self.results), self.skipped, time.monotonic() - started,
                       interrupted=interrupted)

    @property
    def results(self) -> list[Result]:
        return [result for _showing, result in self.done if result is not None]

    @property
    def skipped(self) -> int:
        return sum(result is None for _showing, result in self.done)

    # --- one card -----------------------------------------------------------

    def _pose(self, showing: Showing) -> None:
        card = showing.card
        variant = card.pose(showing.seed)
        self.on_screen = (card, variant, self._progress(showing))
        self.view.show_card(*self.on_screen)
        shown_at = time.monotonic()
        if variant.kind == "recall":
            typed = self._line(_("Your answer"), card)
            self.view.show_reference(card, variant)
            rating = self._rating(card)
            correct, expected, hint = rating >= 2, str(variant.answer), None
        else:
            typed, grade = self._graded(card, variant)
            correct, expected, hint = grade.correct, grade.expected, grade.hint
            rating = int(rating_for(correct))
        answer = Answer(
            card=card.key, topic=card.topic, mode=self.mode, rating=rating, correct=correct, answer=typed,
            seed=showing.seed, params=dict(variant.params), duration_ms=round((time.monotonic() - shown_at) * 1000),
            time=self.clock(),
        )
        review_id = self.store.record(answer, self._rescheduler(rating, answer.time))
        result = Result(card, showing.seed, variant, typed, expected, correct, rating, hint, review_id)
        self.done.append((showing, result))
        self.view.show_result(result)
        if self.mode == "review" and rating == 1:
            self._requeue(showing, review_id)

    def _progress(self, showing: Showing) -> Progress:
        number = sum(not done.again for done, _result in self.done) + (not showing.again)
        again = sum(queued.again for queued in self.queue)
        return Progress(number, self.total, again, showing.again)

    def _graded(self, card: Card, variant: Variant):
        from studytool.problems.answers import AnswerFormatError, grade

        while True:
            typed = self._line(_("Your answer"), card)
            try:
                return typed, grade(variant, typed)
            except AnswerFormatError as error:
                self.view.show_notice(str(error))  # not counted: ask again

    def _rating(self, card: Card) -> int:
        while True:
            typed = self._line(_("Rate 1 again, 2 hard, 3 good, 4 easy"), card).strip()
            if typed in ("1", "2", "3", "4"):
                return int(typed)
            self.view.show_notice(_("Type 1, 2, 3 or 4."))

    def _line(self, prompt: str, card: Card) -> str:
        """One line of input; session commands are handled here, at every prompt."""
        while True:
            line = self.ask(prompt)
            command = line.strip().lower()
            if command in (":q", ":quit"):
                raise _Quit
            if command == ":skip":
                raise _Skip
            if command == ":undo":
                if self.done:
                    raise _Undo
                self.view.show_notice(_("Nothing to undo."))
                continue
            if command == ":explain":
                self.view.show_explain(card.topic)
                self.view.show_card(*self.on_screen)  # the explanation scrolled the question away
                continue
            if command in (":help", ":?"):
                self.view.show_notice(_(
                    ":q        quit (every answer so far is saved)\n"
                    ":skip     skip this card\n"
                    ":undo     take back the last answer or skip\n"
                    ":explain  explain this card's topic\n"
                    ":help     this list"))
                continue
            if command.startswith(":"):
                self.view.show_notice(_("unknown command {command} — use :q :skip :undo :explain :help").format(
                    command=line.strip()))
                continue
            return line

    def _rescheduler(self, rating: int, when: datetime):
        if self.mode != "review":
            return None  # quiz answers go to the history without moving the schedule
        return lambda prior: next_schedule(self.scheduler, prior, rating, when)

    # --- queue changes ------------------------------------------------------

    def _requeue(self, showing: Showing, review_id: int) -> None:
        """A missed card comes back a few cards later, with a different variant."""
        seed = showing.seed
        while seed == showing.seed:
            seed = self.rng.randrange(SEED_RANGE)
        again = Showing(showing.card, seed, again=True)
        self.queue.insert(min(REQUEUE_GAP, len(self.queue)), again)
        self.requeued[review_id] = again

    def _take_back(self) -> None:
        """Undo the last answer (log row, schedule, requeued copy) or skip; its card (same variant) comes next."""
        showing, result = self.done.pop()
        if result is None:
            self.view.show_notice(_("Took back the skip of {card}.").format(card=showing.card.key))
        else:
            self.store.undo(result.review_id)
            again = self.requeued.pop(result.review_id, None)
            self.queue = [queued for queued in self.queue if queued is not again]
            self.view.show_notice(_("Took back the answer to {card}.").format(card=showing.card.key))
        self.queue.insert(0, showing)


# --- building sessions ------------------------------------------------------


def quiz(
    store: Store,
    decks: Sequence[Deck],
    *,
    ask: Ask,
    view: View,
    deck_ids: Sequence[str] = (),
    tags: Sequence[str] = (),
    topic: str | None = None,
    count: int | None = None,
    seed: int | None = None,
    clock: Clock = local_now,
) -> Summary:
    """A practice session over a seeded selection: the same cards and variants as `worksheet`.

    Answers go to the history (mode `quiz`); the schedule does not move.
    """
    from studytool.decks.select import plan

    posings = plan(decks, deck_ids=deck_ids, tags=tags, topic=topic, count=count, seed=seed)
    queue = [Showing(posing.card, posing.seed) for posing in posings]
    summary = Session(store, queue, mode="quiz", ask=ask, view=view, clock=clock).run()
    return replace(summary, seed=posings.seed)


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


def start_of_day(now: datetime) -> datetime:
    """Midnight that began `now`'s day, in `now`'s time zone."""
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def review_queue(
    store: Store,
    decks: Sequence[Deck],
    *,
    deck_ids: Sequence[str] = (),
    new_limit: int = 20,
    now: datetime,
    rng: random.Random,
) -> list[Showing]:
    """Due cards first (review cards due today, learning steps due now), then new cards.

    New cards are limited to `new_limit` per day (counting those already started
    today). Due cards draw a fresh variant; a new card's first showing poses the
    notes' own example. Reads only the due rows and today's log, never the whole log.
    """
    from studytool.decks.select import plan

    selected = {p.card.key: p.card for p in plan(decks, deck_ids=deck_ids, seed=rng.randrange(SEED_RANGE))}
    end_of_day = start_of_day(now) + timedelta(days=1)
    due = [
        Showing(selected[key], rng.randrange(SEED_RANGE))
        for key, schedule in store.due(end_of_day)
        if key in selected and due_now(schedule, now, end_of_day)
    ]
    room = new_room(store, new_limit, now)
    scheduled = store.scheduled_keys()
    new = [Showing(card, None) for key, card in selected.items() if key not in scheduled][:room]
    return spread_topics(due) + spread_topics(new)


def new_room(store: Store, new_limit: int, now: datetime) -> int:
    """New cards the daily limit still allows (those started today count against it)."""
    return max(0, new_limit - store.new_cards_since(start_of_day(now)))


def review_outlook(
    store: Store, decks: Sequence[Deck], *, deck_ids: Sequence[str] = (), new_limit: int = 20, now: datetime
) -> Outlook:
    """When the selected decks have cards due next, and how many new cards today's limit leaves."""
    from studytool.decks.select import plan

    keys = {p.card.key for p in plan(decks, deck_ids=deck_ids, seed=0)}
    end_of_day = start_of_day(now) + timedelta(days=1)
    schedules = [schedule for key, schedule in store.schedules().items() if key in keys]
    return Outlook(
        now=now,
        next_due=min((schedule.due for schedule in schedules), default=None),
        due_today=sum(schedule.due < end_of_day for schedule in schedules),
        new_left=new_room(store, new_limit, now),
        new_limit=new_limit,
        new_unseen=len(keys) - len(schedules),
    )


def review(
    store: Store,
    decks: Sequence[Deck],
    *,
    ask: Ask,
    view: View,
    deck_ids: Sequence[str] = (),
    new_limit: int = 20,
    retention: float | None = None,
    fuzz: bool = True,
    clock: Clock = local_now,
    rng: random.Random | None = None,
) -> Summary:
    """A spaced-repetition session: due cards, then new ones, scheduled by FSRS.

    `retention` (desired retention, 0.9 by default) is remembered in the
    database when given, and read from it otherwise.
    """
    retention = resolve_retention(store, retention)
    rng = rng or random.Random()
    now = clock()
    queue = review_queue(store, decks, deck_ids=deck_ids, new_limit=new_limit, now=now, rng=rng)
    if not queue:
        outlook = review_outlook(store, decks, deck_ids=deck_ids, new_limit=new_limit, now=now)
        return Summary("review", (), 0, 0.0, outlook=outlook)
    session = Session(store, queue, mode="review", ask=ask, view=view, retention=retention, fuzz=fuzz,
                      clock=clock, rng=rng)
    return session.run()


def resolve_retention(store: Store, retention: float | None) -> float:
    """The desired retention for this session; a given value is saved as the new default."""
    from studytool.errors import StudytoolError

    if retention is None:
        return float(store.setting("desired_retention", str(DEFAULT_RETENTION)))
    if not 0.7 <= retention <= 0.99:
        raise StudytoolError(_("desired retention must be between 0.7 and 0.99, got {value}").format(value=retention))
    store.set_setting("desired_retention", str(retention))
    return retention

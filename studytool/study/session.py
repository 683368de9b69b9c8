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

In a review (and a `quiz --reschedule`) a card in a learning or relearning
step comes back when its step is due, as in Anki: a step due now goes before
the next card; when nothing else is left, a step due within the learn-ahead
window (20 minutes) is asked at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from studytool.config import now as clock_now
from studytool.decks.model import Card, Deck
from studytool.i18n import _, speaking
from studytool.problems.variant import Variant
from studytool.study.implicit import ImplicitCredit, implicit_credit
from studytool.study.queue import (LEARN_AHEAD, SEED_RANGE, Showing, card_level, review_outlook, review_queue,
                                   study_days, study_rules)
from studytool.study.scheduler import LEARNING, RELEARNING, REVIEW, Rules, Scheduler, rating_for
from studytool.study.store import Answer, AnsweredSince, Schedule, Store
from studytool.study.summary import Interval, Progress, Result, Summary, buttons, rating_word

Ask = Callable[[str], str]   # prompt -> one line; raises EOFError when input ends
Clock = Callable[[], datetime]


class View(Protocol):
    """What the loop reports; the CLI renders it with rich, tests record it."""

    def show_card(self, card: Card, variant: Variant, progress: Progress) -> None: ...
    def show_reference(self, card: Card, variant: Variant) -> None: ...
    def show_result(self, result: Result) -> None: ...
    def show_notice(self, text: str) -> None: ...
    def show_explain(self, topic: str) -> None: ...
    def show_info(self, shown: Any) -> None: ...   # cards.Shown: the card's schedule and history
    def edit(self, card: Card) -> Card | None: ...   # the card as edited and validated again (None: unchanged)


class _Quit(Exception):
    """`:q` typed at a prompt."""


class _Skip(Exception):
    """`:skip` typed at a prompt."""


class _Undo(Exception):
    """`:undo` typed at a prompt, with an answer or skip to take back."""


class _Edited(Exception):
    """`:edit` changed the card on screen: it is asked again as edited."""


class _Decided(Exception):
    """`:suspend` or `:bury` typed at a prompt: the card leaves the session."""

    def __init__(self, decision: Decision):
        self.decision = decision


@dataclass(frozen=True)
class Decision:
    """A learner's decision in a session (`:suspend`, `:bury`, `:flag N`), with the flags it replaced, for :undo."""

    kind: str
    before: Any   # cards.Flags


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
        rules: Callable[[str], Rules] | None = None,
        clock: Clock = clock_now,
        rng: random.Random | None = None,
        implicit: ImplicitCredit | None = None,
        decks: Sequence[Deck] = (),
        confirm: bool = False,
    ):
        """`rules` (deck id -> its scheduling rules) makes answers move the schedule; without, they are only logged.
        A card of one of `decks` written in Chinese is shown with Chinese interface text (`i18n.speaking`).
        `confirm`: an auto-graded right answer's rating is a default the learner may change (Enter keeps it)."""
        self.store = store
        self.queue = [showing for showing in queue if showing.due is None]
        self.learning = [showing for showing in queue if showing.due is not None]  # steps waiting for their moment
        self.total = sum(not showing.again for showing in self.queue)
        self.mode = mode
        self.ask = ask
        self.view = view
        self.rules = rules
        self.schedulers: dict[str, Scheduler] = {}
        self.clock = clock
        self.rng = rng or random.Random()
        self.confirm = confirm
        # each showing left behind: answered, None if skipped, or a Decision (a :flag keeps the card on screen)
        self.done: list[tuple[Showing, Result | Decision | None]] = []
        self.returning: dict[int, Showing] = {}  # review id of an answer -> the learning step it put back
        self.implicit = implicit   # the topic graph's credit to prerequisite cards (None: off, or a plain quiz)
        self.credits: dict[int, list[int]] = {}  # review id of an answer -> its implicit credits' log rows
        self.on_screen: tuple[Card, Variant, Progress]  # the card being asked, to show again after :explain
        self.chrome = {deck.deck: deck.chrome for deck in decks}   # deck id -> the language around its cards
        self.posed: Showing   # the showing being asked
        # the showings (by identity) whose explanation the learner opened: only their answer is hinted, not the
        # card's later showings (its learning steps would be capped at Hard for ever)
        self.hinted: dict[int, Showing] = {}

    def run(self) -> Summary:
        started = time.monotonic()
        interrupted, showing = False, None
        try:
            while (showing := self._next()) is not None:
                try:
                    with speaking(self.chrome.get(showing.card.deck)):
                        self._pose(showing)
                except _Skip:
                    self.done.append((showing, None))
                except _Edited:
                    self._put_back(self.posed)
                except _Decided as decided:
                    self.done.append((showing, decided.decision))
                    self.learning = [waiting for waiting in self.learning if waiting.card.key != showing.card.key]
                except _Undo:
                    self._put_back(showing)
                    self._take_back()
                except _Quit:
                    break
        except EOFError:
            pass
        except KeyboardInterrupt:
            interrupted = True
        return Summary(self.mode, tuple(self.results), self.skipped, time.monotonic() - started,
                       interrupted=interrupted, credited=sum(map(len, self.credits.values())),
                       ended_early=showing is not None and self._due_left(showing))   # :q, EOF or Ctrl-C

    def _due_left(self, on_screen: Showing) -> bool:
        """Cards due now left unasked: the session's own, or a step due; a step learned ahead is not one (the
        outlook says when it comes), so a quiz or review that asked all its cards did not end early."""
        now = self.clock()
        return any(left.due is None or left.due <= now for left in (on_screen, *self.queue, *self.learning))

    def _next(self) -> Showing | None:
        """A learning step due now; else the next card in turn; else, learning ahead, the soonest step due within 20 min."""
        now = self.clock()
        ready = [showing for showing in self.learning if showing.due <= now]
        if not ready and not self.queue:
            ready = [showing for showing in self.learning if showing.due <= now + LEARN_AHEAD]
        if ready:
            showing = min(ready, key=lambda waiting: waiting.due)
            self.learning.remove(showing)
            return showing
        return self.queue.pop(0) if self.queue else None

    def _put_back(self, showing: Showing) -> None:
        """The card on screen goes back where it came from (`:undo` asks the previous one first)."""
        if showing.due is not None:
            self.learning.append(showing)
        else:
            self.queue.insert(0, showing)

    @property
    def results(self) -> list[Result]:
        return [result for _showing, result in self.done if isinstance(result, Result)]

    @property
    def skipped(self) -> int:
        return sum(result is None for _showing, result in self.done)

    # --- one card -----------------------------------------------------------

    def _pose(self, showing: Showing) -> None:
        card = showing.card
        variant = card.pose(showing.seed, showing.level)
        self.posed, self.on_screen = showing, (card, variant, self._progress(showing))
        self.view.show_card(*self.on_screen)
        shown_at = time.monotonic()
        if variant.kind == "recall":
            typed = self._line(_("Your answer"), card)
            self.view.show_reference(card, variant)
            when = self.clock()   # the answer's time: what the buttons' intervals are counted from
            intervals = self._intervals(card, when)
            rating = self._rating(card, intervals)
            correct, expected, hint, close = rating >= 2, str(variant.answer), None, False
        else:
            typed, grade = self._graded(card, variant)
            when = self.clock()
            intervals = self._intervals(card, when)
            correct, expected, hint, close = grade.correct, grade.expected, grade.hint, grade.close
            rating = rating_for(correct, close)   # a near miss is Hard, not a lapse
        hinted = id(showing) in self.hinted
        if self.confirm and correct and variant.kind != "recall":
            self.view.show_result(Result(card, showing.seed, variant, typed, expected, correct, rating, hint, 0,
                                         hinted, intervals=intervals))
            rating = self._confirmed(card, rating, intervals)
        if hinted and correct:
            rating = min(rating, 2)   # right after :explain showed the formula box: Hard, not a plain right one
        params = {**variant.params, "hinted": True} if hinted else dict(variant.params)   # with the layout
        if card.kind == "generated":
            params["level"] = variant.level   # how far the question had grown (problems/levels.py)
        answer = Answer(  # an answer that moves the schedule is a review, whichever command asked it
            card=card.key, topic=card.topic, mode="review" if self.rules else self.mode, rating=rating,
            correct=correct, answer=typed, seed=showing.seed, params=params,
            duration_ms=round((time.monotonic() - shown_at) * 1000), time=when,
        )
        moved: list[Schedule] = []
        review_id = self.store.record(answer, self._rescheduler(card, rating, answer.time, moved))
        result = Result(card, showing.seed, variant, typed, expected, correct, rating, hint, review_id, hinted,
                        close=close, intervals=intervals)
        self.done.append((showing, result))
        if not (self.confirm and correct and variant.kind != "recall"):   # shown already, before the rating
            self.view.show_result(result)
        if moved and not self._leech(card, review_id) and moved[0].state in (LEARNING, RELEARNING):
            self._come_back(showing, moved[0].due, review_id, missed=rating == 1)   # a leech is out: suspended
        if moved and self.implicit is not None:
            with self.store.batch():   # the answer is committed already; its credits together, in one commit
                self.credits[review_id] = self.implicit.after(self.store, card, rating, answer.time, review_id)

    def _progress(self, showing: Showing) -> Progress:
        number = sum(not done.again for done, outcome in self.done
                     if not (isinstance(outcome, Decision) and outcome.kind == "flag")) + (not showing.again)
        missed = sum(waiting.missed for waiting in self.learning)
        return Progress(number, self.total, missed, showing.again, len(self.learning) - missed, showing.missed)

    def _graded(self, card: Card, variant: Variant):
        from studytool.problems.answers import AnswerFormatError, grade

        while True:
            typed = self._line(_("Your answer"), card)
            try:
                return typed, grade(variant, typed)
            except AnswerFormatError as error:
                self.view.show_notice(str(error))  # not counted: ask again

    def _rating(self, card: Card, intervals: dict[int, Interval] | None) -> int:
        while True:
            typed = self._line(_("Rate {buttons}").format(buttons=buttons(intervals, (1, 2, 3, 4))), card).strip()
            if typed in ("1", "2", "3", "4"):
                return int(typed)
            self.view.show_notice(_("Type 1, 2, 3 or 4."))

    def _confirmed(self, card: Card, rating: int, intervals: dict[int, Interval] | None) -> int:
        """A right answer's rating, the grader's unless the learner picks Hard, Good or Easy (Enter keeps it)."""
        prompt = _("Enter keeps {rating}; or {buttons}").format(rating=rating_word(rating),
                                                                buttons=buttons(intervals, (2, 3, 4)))
        while True:
            typed = self._line(prompt, card).strip()
            if not typed:
                return rating
            if typed in ("2", "3", "4"):
                return int(typed)
            self.view.show_notice(_("A right answer is 2 hard, 3 good or 4 easy (a wrong one stays 1 again)."))

    def _intervals(self, card: Card, now: datetime) -> dict[int, Interval] | None:
        """When the card would come back after each rating at `now`, from the scheduler itself (None: a plain quiz)."""
        if self.rules is None:
            return None
        scheduler = self._scheduler(card.deck)
        prior, reps = self.store.schedule(card.key), self.store.reps(card.key)
        found = {}
        for rating in (1, 2, 3, 4):
            after = scheduler.answer(prior, rating, now, key=card.key, reps=reps)
            days = scheduler.days.number(after.due) - scheduler.days.number(now) if after.state == REVIEW else None
            found[rating] = Interval((after.due - now).total_seconds(), days)
        return found

    def _scheduler(self, deck: str) -> Scheduler:
        if deck not in self.schedulers:
            self.schedulers[deck] = Scheduler(self.rules(deck))
        return self.schedulers[deck]

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
            if command in (":suspend", ":bury"):
                raise _Decided(self._decide(card, command[1:]))
            if command.startswith(":flag"):
                self._flag(card, command[len(":flag"):].strip())
                continue
            if command == ":info":
                self.view.show_info(self._info(card))
                self.view.show_card(*self.on_screen)
                continue
            if command == ":edit":
                self._edit(card)
                continue
            if command == ":explain":
                self.hinted[id(self.posed)] = self.posed   # it shows the formula: this answer counts as hinted
                self.view.show_explain(card.topic)
                self.view.show_card(*self.on_screen)  # the explanation scrolled the question away
                continue
            if command in (":help", ":?"):
                self.view.show_notice(_(
                    ":q        quit (every answer so far is saved)\n"
                    ":skip     skip this card\n"
                    ":undo     take back the last answer or skip\n"
                    ":explain  explain this card's topic\n"
                    ":suspend  suspend this card (out of reviews until 'cards unsuspend')\n"
                    ":bury     bury this card until tomorrow\n"
                    ":flag N   flag this card: 1 red ... 7 purple, 0 none\n"
                    ":info     this card's schedule and history\n"
                    ":edit     open this card in $EDITOR, then check and reload its deck\n"
                    ":help     this list\n"
                    "[2/20 · 1 again · 1 learning]  card 2 of 20; 1 missed and 1 learning to come"))
                continue
            if command.startswith(":"):
                self.view.show_notice(_("unknown command {command} — use :q :skip :undo :explain :suspend :bury "
                                        ":flag :info :edit :help").format(
                    command=line.strip()))
                continue
            return line

    def _rescheduler(self, card: Card, rating: int, when: datetime, moved: list[Schedule]):
        """The store's callback moving the card's schedule (None: a plain quiz leaves it); the result goes to `moved`."""
        if self.rules is None:
            return None
        scheduler, reps = self._scheduler(card.deck), self.store.reps(card.key)

        def move(prior: Schedule | None) -> Schedule:
            moved.append(scheduler.answer(prior, rating, when, key=card.key, reps=reps))
            return moved[0]
        return move

    # --- queue changes ------------------------------------------------------

    def _leech(self, card: Card, review_id: int) -> bool:
        """Anki's leech: at `leech_threshold` lapses the card is tagged and suspended, and the learner told."""
        from studytool.study import cards, settings

        lapses = cards.note_lapse(self.store, card.key, review_id, settings.get(self.store, "leech_threshold", card.deck))
        if lapses is None:
            return False
        said = (_("{card} is a leech ({lapses} lapse): suspended; `studytool cards unsuspend {card}` brings it back")
                if lapses == 1 else
                _("{card} is a leech ({lapses} lapses): suspended; `studytool cards unsuspend {card}` brings it back"))
        self.view.show_notice(said.format(card=card.key, lapses=lapses))
        return True

    def _come_back(self, showing: Showing, due: datetime, review_id: int, *, missed: bool) -> None:
        """A card in a learning step waits for it, to be asked again with a different variant."""
        seed = showing.seed
        while seed == showing.seed:
            seed = self.rng.randrange(SEED_RANGE)
        again = Showing(showing.card, seed, again=True, due=due, level=showing.level, missed=missed)
        self.learning.append(again)
        self.returning[review_id] = again

    # --- the learner's decisions -------------------------------------------

    def _decide(self, card: Card, kind: str) -> Decision:
        from studytool.study import cards

        decision = Decision(kind, cards.flags(self.store, card.key))
        if kind == "suspend":
            cards.suspend(self.store, [card.key])
            self.view.show_notice(_("Suspended {card}; :undo takes it back.").format(card=card.key))
        else:
            cards.bury(self.store, [card.key], study_days(self.store).end_of(self.clock()))
            self.view.show_notice(_("Buried {card} until tomorrow; :undo takes it back.").format(card=card.key))
        return decision

    def _info(self, card: Card):
        from studytool.study import cards

        scheduler = self._scheduler(card.deck) if self.rules else Scheduler(study_rules(self.store)(card.deck))
        return cards.show(self.store, card, now=self.clock(), scheduler=scheduler)

    def _flag(self, card: Card, colour: str) -> None:
        from studytool.study import cards

        if colour not in [str(n) for n in range(8)]:
            self.view.show_notice(_(":flag takes a number: 1 red, 2 orange, 3 green, 4 blue, 5 pink, 6 turquoise, "
                                    "7 purple, 0 none"))
            return
        self.done.append((self.posed, Decision("flag", cards.flags(self.store, card.key))))
        cards.set_flag(self.store, [card.key], int(colour))
        self.view.show_notice(_("Flag {n} on {card}; :undo takes it back.").format(n=colour, card=card.key))

    def _edit(self, card: Card) -> None:
        edited = self.view.edit(card)
        if edited is None:
            return
        posed = replace(self.posed, card=edited)
        if self.hinted.pop(id(self.posed), None):
            self.hinted[id(posed)] = posed
        self.posed = posed
        raise _Edited

    def _restore(self, showing: Showing, decision: Decision) -> None:
        from studytool.study import cards

        before = decision.before
        cards.restore_flags(self.store, showing.card.key, before)
        self.view.show_notice(_("Took back the {what} of {card}.").format(
            what={"suspend": _("suspension"), "bury": _("burial"), "flag": _("flag")}[decision.kind],
            card=showing.card.key))

    def _take_back(self) -> None:
        """Undo the last answer (log row, schedule, requeued copy), skip or decision; its card (same variant) comes
        next (a :flag's card is the one on screen already)."""
        showing, result = self.done.pop()
        if isinstance(result, Decision):
            self._restore(showing, result)
            if result.kind == "flag":
                return
        elif result is None:
            self.view.show_notice(_("Took back the skip of {card}.").format(card=showing.card.key))
        else:
            try:
                with self.store.batch():   # the answer and its credits, or (answered since elsewhere) none of them
                    for credit in reversed(self.credits.get(result.review_id, [])):
                        self.store.undo(credit)
                    self.store.undo(result.review_id)
            except AnsweredSince as refused:
                self.done.append((showing, result))
                self.view.show_notice(str(refused))
                return
            self.credits.pop(result.review_id, None)
            if self.rules is not None:
                from studytool.study import cards, settings

                cards.undo_lapse(self.store, showing.card.key, result.review_id,
                                 settings.get(self.store, "leech_threshold", showing.card.deck))
            again = self.returning.pop(result.review_id, None)
            self.learning = [waiting for waiting in self.learning if waiting is not again]
            self.view.show_notice(_("Took back the answer to {card}.").format(card=showing.card.key))
        back = replace(showing, due=None)
        if self.hinted.pop(id(showing), None):   # the same showing again: its explanation was seen
            self.hinted[id(back)] = back
        self.queue.insert(0, back)


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
    reschedule: bool = False,
    level: int | None = None,
    clock: Clock = clock_now,
    confirm: bool = False,
) -> Summary:
    """A practice session over a seeded selection: the same cards and variants as `worksheet`.

    `level` (1-3) pins how far generated questions grow; by default each card's
    follows its stability (`problems/levels.py`), so only `--level` matches a worksheet's.

    Answers go to the history (mode `quiz`) and the schedule does not move;
    with `reschedule`, each answer moves its card's schedule as a review does
    (logged as one), as Anki's filtered decks do by default, and the summary
    carries the outlook.
    """
    from studytool.decks.select import plan

    posings = plan(decks, deck_ids=deck_ids, tags=tags, topic=topic, count=count, seed=seed)
    queue = [Showing(posing.card, posing.seed, level=level or card_level(store, posing.card.key))
             for posing in posings]
    rules = study_rules(store) if reschedule else None
    implicit = implicit_credit(store, decks, rules) if rules else None
    summary = Session(store, queue, mode="quiz", ask=ask, view=view, rules=rules, clock=clock,
                      implicit=implicit, decks=decks, confirm=confirm).run()
    outlook = review_outlook(store, decks, deck_ids=deck_ids, now=clock(), days=study_days(store)) if reschedule else None
    return replace(summary, seed=posings.seed, outlook=outlook)


def review(
    store: Store,
    decks: Sequence[Deck],
    *,
    ask: Ask,
    view: View,
    deck_ids: Sequence[str] = (),
    new_limit: int | None = None,
    retention: float | None = None,
    fuzz: bool = True,
    clock: Clock = clock_now,
    rng: random.Random | None = None,
    confirm: bool = False,
) -> Summary:
    """A spaced-repetition session: learning steps and due cards, then new ones, scheduled by FSRS as Anki does.

    `new_limit` stands for every `new_per_day` value (each deck's, and the global cap) this session;
    `retention` (desired retention) is remembered as the global value when
    given. The summary always carries the outlook: when cards come back.
    """
    retention = resolve_retention(store, retention)
    rng = rng or random.Random()
    days = study_days(store)
    queue = review_queue(store, decks, deck_ids=deck_ids, new_limit=new_limit, now=clock(), days=days, rng=rng)
    summary = Summary("review", (), 0, 0.0)
    if queue:
        rules = study_rules(store, retention=retention, fuzz=fuzz)
        session = Session(store, queue, mode="review", ask=ask, view=view, rules=rules, clock=clock, rng=rng,
                          implicit=implicit_credit(store, decks, rules), decks=decks, confirm=confirm)
        summary = session.run()
    outlook = review_outlook(store, decks, deck_ids=deck_ids, new_limit=new_limit, now=clock(), days=days)
    return replace(summary, outlook=outlook)


def resolve_retention(store: Store, retention: float | None) -> float | None:
    """The desired retention given for this session (None: each deck's own); a given value is remembered."""
    from studytool.study import settings

    if retention is not None:
        settings.put(store, "retention", repr(retention))
    return retention

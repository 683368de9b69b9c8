"""The cards browser (`studytool cards`): list, filter and inspect cards; suspend, bury, forget; leeches.

The learner's decisions live in `card_flags`, apart from the FSRS schedule,
so that a new card can be suspended as well. A suspended card, or one buried
until a later day, never enters a review (`hidden_keys`). `forget` makes a
card new again (its schedule row goes) and keeps its history, as Anki's
"Forget" does; the moment is kept so that the optimizer trains on the
history after it only.

Leeches, as Anki counts them: a lapse is Again on a card in the review state;
at `leech_threshold` lapses, and again every half threshold after that, the
card is tagged leech and suspended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from studytool.decks.model import Card, Deck
from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.problems.levels import level_for
from studytool.study.records import params_of, rating_of, text_of
from studytool.study.days import Days
from studytool.study.stats import asked_now, comes_back
from studytool.study.store import Schedule, Store, format_time, parse_time

if TYPE_CHECKING:
    from studytool.study.scheduler import Scheduler

STATES = ("new", "learning", "review", "relearning")   # the FSRS states, and new: no schedule yet
FILTERS = (*STATES, "due", "suspended", "buried", "leech")
SCHEDULING_MODES = ("review",)   # answers that move the schedule: the ones that count as reps and lapses
REVIEW_STATE = 2
_STATE_NAMES = {1: "learning", 2: "review", 3: "relearning"}


@dataclass(frozen=True)
class Flags:
    suspended: bool = False
    buried_until: datetime | None = None
    leech: bool = False
    reset_at: datetime | None = None
    flag: int = 0          # Anki's flags: 0 none, 1-7 red, orange, green, blue, pink, turquoise, purple

    def buried(self, now: datetime) -> bool:
        return self.buried_until is not None and self.buried_until > now


@dataclass(frozen=True)
class History:
    """What a card's answers add up to: reps and lapses (as Anki counts them) and when it was last answered."""

    reps: int = 0
    lapses: int = 0
    last_answered: datetime | None = None


@dataclass(frozen=True)
class Listed:
    """One card as `cards list` shows it."""

    card: Card
    schedule: Schedule | None
    flags: Flags
    now: datetime
    days: Days
    history: History = History()
    position: int = 0     # its place in the decks' order (Anki's "added", for cards that come from files)

    @property
    def state(self) -> str:
        return _STATE_NAMES[self.schedule.state] if self.schedule else "new"

    def has(self, word: str) -> bool:
        """due (a review would ask it now), suspended, buried or leech."""
        if word == "suspended":
            return self.flags.suspended
        if word == "buried":
            return self.flags.buried(self.now)
        if word == "leech":
            return self.flags.leech
        return self.schedule is not None and due_now(self.schedule, self.flags, self.now, self.days.end_of(self.now))

    @property
    def interval(self) -> int | None:
        """A review card's interval in days, as Anki's `ivl`: from the day of its last review to its due day."""
        schedule = self.schedule
        if schedule is None or schedule.state != REVIEW_STATE or schedule.last_review is None:
            return None
        return self.days.number(schedule.due) - self.days.number(schedule.last_review)

    @property
    def rated_days_ago(self) -> int | None:
        answered = self.history.last_answered
        return None if answered is None else self.days.elapsed(answered, self.now)

    def prop(self, name: str) -> float | None:
        """One of search.PROPS: ivl, due (days from today), reps, lapses, stability, difficulty."""
        schedule = self.schedule
        if name == "ivl":
            return self.interval
        if name == "due":
            return None if schedule is None else self.days.number(schedule.due) - self.days.number(self.now)
        if name in ("reps", "lapses"):
            return getattr(self.history, name)
        return getattr(schedule, name) if schedule is not None else None

    def to_json(self) -> dict[str, Any]:
        schedule = self.schedule
        return {
            "card": self.card.key, "deck": self.card.deck, "topic": self.card.topic, "kind": self.card.kind,
            "tags": list(self.card.tags), "question": self.card.question, "state": self.state,
            "due": schedule.due.isoformat() if schedule else None, "interval": self.interval,
            "stability": schedule.stability if schedule else None,
            "difficulty": schedule.difficulty if schedule else None,
            "reps": self.history.reps, "lapses": self.history.lapses,
            "last_answered": self.history.last_answered.isoformat() if self.history.last_answered else None,
            "suspended": self.flags.suspended, "buried": self.flags.buried(self.now), "leech": self.flags.leech,
            "flag": self.flags.flag,
        }


@dataclass(frozen=True)
class Logged:
    """One answer in a card's history, with what was asked: the drawn inputs of a generated card, its level."""

    time: datetime
    mode: str
    rating: int
    correct: bool
    answer: str
    duration_ms: int
    params: dict[str, Any] = field(default_factory=dict)   # as logged, without the level and the hinted mark
    level: int | None = None   # a generated card's level when asked (None: a fixed card, or logged before levels)
    seed: int | None = None    # the variant's seed (None: a fixed card, or the notes' own example)

    def to_json(self) -> dict[str, Any]:
        return {"time": self.time.isoformat(), "rating": self.rating, "correct": self.correct,
                "answer": self.answer, "mode": self.mode, "duration_ms": self.duration_ms,
                "params": self.params, "level": self.level, "seed": self.seed}


def _logged(row: Any) -> Logged:
    params = params_of(row["params"])
    level = params.pop("level", None)
    params.pop("hinted", None)   # how it was answered, not what was asked
    return Logged(parse_time(row["time"]), text_of(row["mode"], _("a mode")), rating_of(row["rating"]),
                  bool(row["correct"]), text_of(row["answer"], _("an answer")), row["duration_ms"], params, level,
                  row["seed"])


@dataclass(frozen=True)
class Shown:
    """One card in full, as `cards show` shows it."""

    listed: Listed
    retrievability: float | None
    reviews: tuple[Logged, ...]
    level: int | None = None   # the level of the next showing of a generated card (`problems/levels.py`)

    @property
    def last_asked(self) -> Logged | None:
        """The variant last answered of a generated card (its pinned example shows only what it starts from);
        an implicit credit (`implicit.py`) asked nothing, and a variant left with `:q` is not logged."""
        if self.listed.card.kind != "generated":
            return None
        return next((review for review in reversed(self.reviews) if review.mode != "implicit"), None)

    def to_json(self) -> dict[str, Any]:
        flags = self.listed.flags
        return {
            **self.listed.to_json(),
            "retrievability": self.retrievability,
            "buried_until": flags.buried_until.isoformat() if flags.buried(self.listed.now) else None,
            "forgotten_at": flags.reset_at.isoformat() if flags.reset_at else None,
            "reviews": [review.to_json() for review in self.reviews],
            "next_level": self.level,
            "last_asked": {"params": asked.params, "level": asked.level} if (asked := self.last_asked) else None,
        }


def find(decks: Sequence[Deck], ref: str) -> Card:
    """The card named `DECK/ID`, or a bare `ID` that one deck alone has; one line saying so otherwise."""
    deck_id, slash, card_id = ref.partition("/")
    if slash:
        named = [card for deck in decks if deck.deck == deck_id for card in deck.cards if card.id == card_id]
    else:
        named = [card for deck in decks for card in deck.cards if card.id == ref]
    if len(named) == 1:
        return named[0]
    if named:   # ids are unique within a deck only
        raise StudytoolError(_("card {ref!r} is in {n} decks: name one of {cards}").format(
            ref=ref, n=len(named), cards=", ".join(card.key for card in named)))
    raise StudytoolError(_("unknown card {ref!r}: name a card DECK/ID, as `studytool cards list` shows them").format(
        ref=ref))


def completions(decks: Sequence[Deck], incomplete: str) -> list[str]:
    """What a shell may complete `incomplete` to: the DECK/ID names it begins; and, once it is the start of a
    bare ID that one deck alone has, that ID, which `find` takes for its DECK/ID (shells offer only words that
    begin with what was typed, so a bare start cannot become DECK/ID)."""
    from collections import Counter

    cards = [card for deck in decks for card in deck.cards]
    decks_with = Counter(card.id for card in cards)
    named = [card.key for card in cards if card.key.startswith(incomplete)]
    bare = [card.id for card in cards if incomplete and "/" not in incomplete and card.id.startswith(incomplete)
            and decks_with[card.id] == 1]
    return named + bare


def _flags_from_row(row: Any) -> Flags:
    return Flags(
        suspended=bool(row["suspended"]),
        buried_until=parse_time(row["buried_until"]) if row["buried_until"] else None,
        leech=bool(row["leech"]),
        reset_at=parse_time(row["reset_at"]) if row["reset_at"] else None,
        flag=row["flag"],
    )


def all_flags(store: Store) -> dict[str, Flags]:
    return {row["key"]: _flags_from_row(row) for row in store.con.execute("SELECT * FROM card_flags")}


def flags(store: Store, key: str) -> Flags:
    row = store.con.execute("SELECT * FROM card_flags WHERE key = ?", (key,)).fetchone()
    return _flags_from_row(row) if row else Flags()


def hidden_keys(store: Store, now: datetime) -> set[str]:
    """Cards a review must not show now: suspended, or buried until later."""
    rows = store.con.execute("SELECT key FROM card_flags WHERE suspended = 1 OR buried_until > ?", (format_time(now),))
    return {row[0] for row in rows}


def histories(store: Store, key: str | None = None) -> dict[str, History]:
    """Every answered card's (or one card's) reps, lapses and last answer, in one pass over the log."""
    modes = ", ".join("?" * len(SCHEDULING_MODES))
    rows = store.con.execute(
        f"SELECT card, coalesce(sum(mode IN ({modes})), 0),"
        f" coalesce(sum(mode IN ({modes}) AND rating = 1 AND prior_state = {REVIEW_STATE}), 0), max(time)"
        f" FROM reviews {'WHERE card = ?' if key else ''} GROUP BY card",
        (*SCHEDULING_MODES, *SCHEDULING_MODES, *([key] if key else [])))
    return {card: History(reps, lapses, parse_time(last)) for card, reps, lapses, last in rows}


def due_now(schedule: Schedule, flags: Flags, now: datetime, end_of_today: datetime) -> bool:
    """`asked_now` for one card and its flags (`cards list --state due`); "due" itself is in stats.py."""
    buried = format_time(flags.buried_until) if flags.buried_until is not None else None
    return asked_now(schedule.state, comes_back(format_time(schedule.due), flags.suspended, buried),
                     format_time(now), format_time(end_of_today))


def list_cards(store: Store, decks: Sequence[Deck], *, now: datetime, days: Days, deck_ids: Sequence[str] = (),
               topic: str | None = None, state: str | None = None, search: str | None = None,
               tags: Sequence[str] = (), flag: int | None = None, sort: str | None = None,
               reverse: bool = False) -> list[Listed]:
    """The cards of `deck_ids` (default: all) on `topic`, with every tag of `tags`, in one state, with `flag`,
    matching `search` (Anki's syntax, `search.py`); in deck order, or by `sort` (`reverse`d)."""
    from studytool.decks.select import plan
    from studytool.study import search as searching

    if state is not None and state not in FILTERS:
        raise StudytoolError(_("unknown state {state!r}; states: {states}").format(state=state,
                                                                                  states=", ".join(FILTERS)))
    terms = searching.parse(search) if search else []
    order = searching.sort_key(sort) if sort else None
    chosen = {posing.card.key for posing in plan(decks, deck_ids=deck_ids, topic=topic, seed=0)}
    schedules, flagged, answered = store.schedules(), all_flags(store), histories(store)
    found = []
    for position, card in enumerate(card for deck in decks for card in deck.cards):
        if card.key not in chosen or not set(tags) <= set(card.tags):
            continue
        listed = Listed(card, schedules.get(card.key), flagged.get(card.key, Flags()), now, days,
                        answered.get(card.key, History()), position)
        if (_selected(listed, state) and (flag is None or listed.flags.flag == flag)
                and all(term(listed) for term in terms)):
            found.append(listed)
    if order is None:
        return found[::-1] if reverse else found
    missing = [listed for listed in found if order(listed) is None]   # a new card's interval: last either way
    return sorted((listed for listed in found if order(listed) is not None), key=order, reverse=reverse) + missing


def _selected(listed: Listed, state: str | None) -> bool:
    if state is None or state in STATES:
        return state is None or listed.state == state
    return listed.has(state)


def show(store: Store, card: Card, *, now: datetime, scheduler: Scheduler) -> Shown:
    """One card with its chance of recall now (as `scheduler` counts elapsed days) and its whole history."""
    listed = Listed(card, store.schedule(card.key), flags(store, card.key), now, scheduler.days,
                    histories(store, card.key).get(card.key, History()))
    rows = store.con.execute(
        "SELECT time, mode, rating, correct, answer, duration_ms, params, seed FROM reviews WHERE card = ?"
        " ORDER BY time, id", (card.key,))
    reviews = tuple(map(_logged, rows))
    recall = scheduler.retrievability(listed.schedule, now) if listed.schedule else None
    schedule = listed.schedule
    level = (level_for(schedule.stability, schedule.state) if schedule else 1) if card.kind == "generated" else None
    return Shown(listed, recall, reviews, level)


# --- the learner's decisions ---------------------------------------------------


def _write_flags(con: Any, keys: Sequence[str], values: dict[str, Any]) -> None:
    columns = ", ".join(values)
    marks = ", ".join("?" * len(values))
    updates = ", ".join(f"{column} = excluded.{column}" for column in values)
    con.executemany(f"INSERT INTO card_flags (key, {columns}) VALUES (?, {marks})"
                    f" ON CONFLICT (key) DO UPDATE SET {updates}", [(key, *values.values()) for key in keys])


def _set_flags(store: Store, keys: Sequence[str], **values: Any) -> None:
    with store.transaction() as con:
        _write_flags(con, keys, values)


def suspend(store: Store, keys: Sequence[str]) -> list[str]:
    """Out of every review until unsuspended; returns those of `keys` that already were (left as they are)."""
    marks = ", ".join("?" * len(keys))
    already = {row[0] for row in store.con.execute(
        f"SELECT key FROM card_flags WHERE suspended = 1 AND key IN ({marks})", tuple(keys))}
    _set_flags(store, [key for key in keys if key not in already], suspended=1)
    return [key for key in keys if key in already]


def unsuspend(store: Store, keys: Sequence[str]) -> None:
    """Back into reviews; a leech keeps its tag (as in Anki), so `--state leech` still finds it."""
    _set_flags(store, keys, suspended=0, leech_review=None)


def bury(store: Store, keys: Sequence[str], until: datetime) -> None:
    """Out of reviews until `until` (the start of the next day)."""
    _set_flags(store, keys, buried_until=format_time(until))


def restore_flags(store: Store, key: str, flags: Flags) -> None:
    """Put a card's flags back as they were (`:undo` of a session's :suspend, :bury or :flag)."""
    _set_flags(store, [key], suspended=int(flags.suspended), leech=int(flags.leech), flag=flags.flag,
               buried_until=format_time(flags.buried_until) if flags.buried_until else None,
               reset_at=format_time(flags.reset_at) if flags.reset_at else None)


def set_flag(store: Store, keys: Sequence[str], colour: int) -> None:
    """Anki's flag: 0 none, 1-7 red, orange, green, blue, pink, turquoise, purple."""
    if colour not in range(8):
        raise StudytoolError(_("a flag is 0 (none) to 7, not {colour}").format(colour=colour))
    _set_flags(store, keys, flag=colour)


def forget(store: Store, keys: Sequence[str], now: datetime) -> None:
    """New again: the schedule goes, the history stays; unsuspended and unburied, as Anki's Forget leaves a card."""
    with store.transaction() as con:
        _write_flags(con, keys, {"suspended": 0, "buried_until": None, "leech_review": None,
                                 "reset_at": format_time(now)})
        con.executemany("DELETE FROM cards WHERE key = ?", [(key,) for key in keys])


# --- leeches -------------------------------------------------------------------


def note_lapse(store: Store, key: str, review_id: int, threshold: int) -> int | None:
    """After answer `review_id`: if it was the lapse that makes the card a leech, tag and suspend the card.

    Returns the card's lapses when it did (Anki: at the threshold, then every half threshold), else None.
    """
    row = store.con.execute("SELECT mode, rating, json_extract(prior, '$.state') FROM reviews WHERE id = ?",
                            (review_id,)).fetchone()
    if row is None or row[0] not in SCHEDULING_MODES or row[1] != 1 or row[2] != REVIEW_STATE:
        return None
    lapses = histories(store, key).get(key, History()).lapses
    if lapses < threshold or (lapses - threshold) % max(1, -(-threshold // 2)):   # half, rounded up
        return None
    _set_flags(store, [key], leech=1, suspended=1, leech_review=review_id)
    return lapses


def undo_lapse(store: Store, key: str, review_id: int, threshold: int) -> None:
    """`:undo` of answer `review_id` (already deleted from the log): a leech it made is unmade."""
    row = store.con.execute("SELECT leech_review FROM card_flags WHERE key = ?", (key,)).fetchone()
    if row is None or row[0] != review_id:
        return
    lapses = histories(store, key).get(key, History()).lapses
    _set_flags(store, [key], suspended=0, leech_review=None, leech=int(lapses >= threshold))

"""The learner's remembered settings (`studytool config`), with Anki's names for Anki's controls.

Values are kept as canonical text in the store: `settings` for every deck,
`deck_settings` for one deck's own value, as an Anki preset would hold it.
A deck's value wins over the global one, which wins over the default. The day
start is collection-wide in Anki, so it has no per-deck value here either.
Every value is validated when set, with a one-line error naming the key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.store import Store

_STEP = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_STEPS = 10        # steps per preset
MAX_STEP_DAYS = 365   # one step at most a year: beyond it a card is a review card


def _integer(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            number = int(text.strip())
        except ValueError:
            raise ValueError(_("a whole number from {low} to {high}").format(low=low, high=high)) from None
        if not low <= number <= high:
            raise ValueError(_("a whole number from {low} to {high}").format(low=low, high=high))
        return number
    return parse


def _retention(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        value = float("nan")
    if not 0.7 <= value <= 0.99:  # Anki's bounds for desired retention
        raise ValueError(_("a number from 0.7 to 0.99"))
    return value


def _switch(text: str) -> bool:
    word = text.strip().lower()
    if word not in ("on", "off", "true", "false", "yes", "no", "1", "0"):
        raise ValueError(_("on or off"))
    return word in ("on", "true", "yes", "1")


def _folder_name(text: str) -> str:
    """A folder's path, made absolute (a sync folder is looked up from any working directory)."""
    text = text.strip()
    if not text or len(text) > 4096 or any(ch in text for ch in "\0\n\r"):
        raise ValueError(_("a folder's path"))
    return os.path.abspath(os.path.expanduser(text))


def parse_steps(text: str) -> tuple[timedelta, ...]:
    """Anki's step syntax: '1m 10m', '30s 1h 1d' (nothing: no steps); whole seconds, 1 s to 365 days, 10 at most.

    The bounds keep every stored step readable back (a step of 1e8 days is no
    `timedelta`, and `format_steps` writes whole numbers only); Anki's own
    steps are minutes to days, a handful of them.
    """
    tokens = text.replace(",", " ").split()
    if len(tokens) > MAX_STEPS:
        raise ValueError(_("at most {n} steps").format(n=MAX_STEPS))
    steps = []
    for token in tokens:
        match = _STEP.match(token)
        seconds = float(match[1]) * _UNIT_SECONDS[match[2]] if match else 0.0
        if seconds > MAX_STEP_DAYS * _UNIT_SECONDS["d"]:   # also a float too long to be finite
            raise ValueError(_("steps of at most {days} days each").format(days=MAX_STEP_DAYS))
        if round(seconds) < 1:
            raise ValueError(_("steps like '1m 10m' (units s, m, h, d)"))
        steps.append(timedelta(seconds=round(seconds)))
    return tuple(steps)


def format_steps(steps: tuple[timedelta, ...]) -> str:
    """Each step as a whole number of the largest unit that divides it ('600s' is '10m'), as `parse_steps` reads."""
    words = []
    for step in steps:
        seconds = round(step.total_seconds())
        unit = next(u for u in "dhms" if seconds % _UNIT_SECONDS[u] == 0)
        words.append(f"{seconds // _UNIT_SECONDS[unit]}{unit}")
    return " ".join(words)


def default_parameters() -> tuple[float, ...]:
    from fsrs.scheduler import DEFAULT_PARAMETERS

    return tuple(DEFAULT_PARAMETERS)


def parse_parameters(text: str) -> tuple[float, ...]:
    """The 21 FSRS-6 weights, separated by commas or spaces, each within FSRS's bounds."""
    from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

    try:
        values = tuple(float(word) for word in text.replace(",", " ").split())
    except ValueError:
        raise ValueError(_("21 numbers separated by commas or spaces")) from None
    if len(values) != len(LOWER_BOUNDS_PARAMETERS):
        raise ValueError(_("21 numbers separated by commas or spaces"))
    for index, (value, low, high) in enumerate(zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS)):
        if not low <= value <= high:
            raise ValueError(_("within FSRS's bounds (w{index} from {low} to {high}, got {value})").format(
                index=index, low=low, high=high, value=value))
    return values


def format_parameters(values: tuple[float, ...]) -> str:
    return ", ".join(f"{value:.4f}" for value in values)  # Anki shows and stores the weights to 4 places


@dataclass(frozen=True)
class Key:
    name: str
    default: Callable[[], Any]
    parse: Callable[[str], Any]      # text -> value; ValueError says what is expected
    format: Callable[[Any], str]     # value -> canonical text (what is stored)
    per_deck: bool
    help: Callable[[], str]          # called when shown, so that it speaks the interface language


KEYS: dict[str, Key] = {key.name: key for key in (
    Key("new_per_day", lambda: 20, _integer(0, 9999), str, True,
        lambda: _("New cards a deck introduces per day; the global value caps several decks' total too.")),
    Key("max_reviews_per_day", lambda: 200, _integer(0, 99999), str, True,
        lambda: _("Most review cards a deck shows per day; the global value caps several decks' total too.")),
    Key("retention", lambda: 0.9, _retention, str, True,
        lambda: _("Desired retention: the recall probability FSRS aims for.")),
    Key("day_start", lambda: 4, _integer(0, 23), str, False,
        lambda: _("Hour (local time) at which the next day starts.")),
    Key("leech_threshold", lambda: 8, _integer(1, 99), str, True,
        lambda: _("Lapses after which a card is a leech (suspended).")),
    Key("learning_steps", lambda: parse_steps("1m 10m"), parse_steps, format_steps, True,
        lambda: _("Steps of a new card before it graduates.")),
    Key("relearning_steps", lambda: parse_steps("10m"), parse_steps, format_steps, True,
        lambda: _("Steps of a forgotten card before it is a review card again.")),
    Key("parameters", default_parameters, parse_parameters, format_parameters, True,
        lambda: _("The 21 FSRS weights (`studytool optimize` fits them to your reviews).")),
    # Off by default: on the bundled decks it saves reviews only as a lower retention would (BENCHMARKS.md)
    Key("implicit_credit", lambda: False, _switch, lambda on: "on" if on else "off", False,
        lambda: _("A review also credits the core cards of the topics it builds on (implicit review).")),
    Key("sync_dir", lambda: "", _folder_name, str, False,
        lambda: _("The folder `studytool sync` merges progress through (this computer's own setting).")),
)}


@dataclass(frozen=True)
class Entry:
    """One setting as `config` shows it: its value for the deck asked for and where the value comes from.

    A stored text that no longer reads (edited by hand, or kept by an older
    version) is `bad`: `config` shows it and can replace it; `value` is then
    the default, which nothing else uses (`get` refuses such a value).
    """

    key: str
    value: Any
    default: Any
    source: str                 # "default", "global" or "deck"
    deck: str | None
    per_deck: bool
    bad: str | None = None      # the stored text, when it does not read
    problem: str | None = None  # what the value must be, when it is bad

    def text(self) -> str:
        return self.bad if self.bad is not None else KEYS[self.key].format(self.value)

    def to_json(self) -> dict[str, Any]:
        document = {"key": self.key, "value": self.bad if self.bad is not None else _json(self.key, self.value),
                    "default": _json(self.key, self.default), "source": self.source, "deck": self.deck,
                    "per_deck": self.per_deck}
        return {**document, "invalid": self.problem} if self.bad is not None else document

    def repair(self) -> str:
        """The commands that put a bad value right."""
        where = f" --deck {self.deck}" if self.source == "deck" else ""
        return _("`studytool config {name}{deck} --reset` or `studytool config {name}{deck} VALUE`").format(
            name=self.key, deck=where)


def _json(name: str, value: Any) -> Any:
    if name.endswith("_steps"):
        return format_steps(value)
    return list(value) if isinstance(value, tuple) else value


def key(name: str, deck: str | None = None) -> Key:
    """The key called `name`; one line naming the known keys otherwise, or when it has no per-deck value."""
    if name not in KEYS:
        raise StudytoolError(_("unknown setting {name!r}; settings: {names}").format(name=name, names=", ".join(KEYS)))
    if deck is not None and not KEYS[name].per_deck:
        raise StudytoolError(_("{name} is one value for every deck (as in Anki); drop --deck").format(name=name))
    return KEYS[name]


def _stored(store: Store, name: str, deck: str | None) -> tuple[str, str] | None:
    if deck is not None and KEYS[name].per_deck:
        row = store.con.execute("SELECT value FROM deck_settings WHERE deck = ? AND name = ?", (deck, name)).fetchone()
        if row:
            return row[0], "deck"
    row = store.con.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
    return (row[0], "global") if row else None


def entry(store: Store, name: str, deck: str | None = None, *, lenient: bool = False) -> Entry:
    """The setting in force; a stored value that does not read is one line naming the key and its repair
    (`lenient`, for `config` itself: an Entry marked `bad`, so that it can be listed and replaced)."""
    spec = key(name)
    stored = _stored(store, name, deck)
    default = spec.default()
    if stored is None:
        return Entry(name, default, default, "default", deck, spec.per_deck)
    text, source = str(stored[0]), stored[1]
    try:
        return Entry(name, spec.parse(text), default, source, deck, spec.per_deck)
    except ValueError as error:
        bad = Entry(name, default, default, source, deck, spec.per_deck, bad=text, problem=str(error))
    if lenient:
        return bad
    shown = text if len(text) <= 40 else text[:40] + "…"
    raise StudytoolError(_("the progress database holds {value!r} for {name}, which must be {expected}; run {repair}")
                         .format(value=shown, name=name, expected=bad.problem, repair=bad.repair()))


def get(store: Store, name: str, deck: str | None = None) -> Any:
    """The value in force for `deck` (or for every deck): the deck's own, else the global one, else the default."""
    return entry(store, name, deck).value


def check(store: Store, decks: Iterable[str] = ()) -> None:
    """Read every value a session may need now, for every deck: a bad one stops it before its first card, not
    at its first answer (the rules are read per deck when a card is rated)."""
    for name, spec in KEYS.items():
        for deck in (None, *decks) if spec.per_deck else (None,):
            entry(store, name, deck)


def entries(store: Store, deck: str | None = None) -> list[Entry]:
    """Every setting, a bad stored value marked rather than refused (what `config` lists)."""
    return [entry(store, name, deck, lenient=True) for name in KEYS]


def put(store: Store, name: str, text: str, deck: str | None = None) -> Entry:
    """Validate and remember one value (for `deck` only, when given)."""
    spec = key(name, deck)
    try:
        value = spec.parse(text)
    except ValueError as error:
        raise StudytoolError(_("{name} must be {expected}").format(name=name, expected=error)) from None
    with store.transaction() as con:
        if deck is None:
            con.execute("INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)", (name, spec.format(value)))
        else:
            con.execute("INSERT OR REPLACE INTO deck_settings (deck, name, value) VALUES (?, ?, ?)",
                        (deck, name, spec.format(value)))
    return entry(store, name, deck)


def reset(store: Store, name: str, deck: str | None = None) -> Entry:
    """Forget a remembered value: a deck's own value (then the global one applies), or the global one."""
    key(name, deck)
    with store.transaction() as con:
        if deck is None:
            con.execute("DELETE FROM settings WHERE name = ?", (name,))
        else:
            con.execute("DELETE FROM deck_settings WHERE deck = ? AND name = ?", (deck, name))
    return entry(store, name, deck, lenient=True)   # the global value now applies, even a bad one

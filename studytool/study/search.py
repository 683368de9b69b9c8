"""The browser's search: Anki's search syntax for what studytool has, and the sort orders of `cards list`.

    deck:p47-encoder tag:interview -is:new "multi head" prop:ivl>=10 prop:lapses>2 rated:7 flag:1

Terms are separated by spaces and all must hold (Anki's implicit AND); `-` negates a term; double quotes
keep a phrase together; `*` in a deck, tag or topic name matches any run of characters. What each term
reads:

- `deck:NAME`, `tag:NAME`, `topic:NAME` — the card's deck, one of its tags, its topic;
- `is:due|new|learn|review|suspended|buried|leech` — as `cards list --state` (learn: learning or relearning);
- `flag:N` — the card's flag, 0 (none) to 7 (Anki's red, orange, green, blue, pink, turquoise, purple);
- `prop:ivl|due|reps|lapses|stability|difficulty OP NUMBER` with OP one of `= != < <= > >=` (ivl: the
  interval in days; due: days from today, negative when overdue);
- `rated:N` — answered in the last N days, today included;
- anything else — text in the card's id, topic, question, answer, tags or explanation (case folded).
"""

from __future__ import annotations

import fnmatch
import operator
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import _

Listed = Any   # cards.Listed: a card as `cards list` has it (cards.py uses this module; it is not imported back)

FLAG_COLOURS = ("red", "orange", "green", "blue", "pink", "turquoise", "purple")   # Anki's flags 1-7
IS_WORDS = ("due", "new", "learn", "review", "suspended", "buried", "leech")
PROPS = ("ivl", "due", "reps", "lapses", "stability", "difficulty")
SORTS = ("card", "due", "interval", "stability", "difficulty", "lapses", "reps", "added")
MAX_QUERY = 1000
_OPS = {"=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge}
_PROP = re.compile(r"^(\w+)(<=|>=|!=|=|<|>)(-?\d+(?:\.\d+)?)$")

Test = Callable[[Listed], bool]


@dataclass(frozen=True)
class Term:
    text: str          # as typed, for messages
    test: Test
    negated: bool

    def __call__(self, listed: Listed) -> bool:
        return self.test(listed) != self.negated


def parse(query: str) -> list[Term]:
    """The terms of a search; one line naming the term that does not read."""
    if len(query) > MAX_QUERY:
        raise StudytoolError(_("a search of at most {n} characters").format(n=MAX_QUERY))
    try:
        words = shlex.split(query, posix=True)
    except ValueError:
        raise StudytoolError(_("search {query!r}: a quote is not closed").format(query=query)) from None
    terms = []
    for word in words:
        negated = word.startswith("-") and len(word) > 1
        body = word[1:] if negated else word
        terms.append(Term(word, _test(body), negated))
    return terms


def _test(body: str) -> Test:
    name, colon, value = body.partition(":")
    name = name.casefold()
    if not colon or name not in _FIELDS:
        text = body.casefold()
        return lambda listed: _contains(listed, text)
    if not value:
        raise StudytoolError(_("search term {term!r} needs a value after the colon").format(term=body))
    return _FIELDS[name](value)


def _contains(listed: Listed, text: str) -> bool:
    card = listed.card
    body = card.body
    haystack = (card.key, card.topic, card.question, *card.tags, str(body.get("a", "")),
                str(body.get("answer", "")), card.why or "")
    return any(text in field.casefold() for field in haystack)


def _glob(value: str) -> Callable[[str], bool]:
    pattern = value.casefold()
    return lambda name: fnmatch.fnmatchcase(name.casefold(), pattern)


def _deck(value: str) -> Test:
    matches = _glob(value)
    return lambda listed: matches(listed.card.deck)


def _tag(value: str) -> Test:
    matches = _glob(value)
    return lambda listed: any(matches(tag) for tag in listed.card.tags)


def _topic(value: str) -> Test:
    matches = _glob(value)
    return lambda listed: matches(listed.card.topic)


def _is(value: str) -> Test:
    word = value.casefold()
    if word not in IS_WORDS:
        raise StudytoolError(_("is:{value} is not a state; use one of {words}").format(
            value=value, words=", ".join(IS_WORDS)))
    if word == "learn":
        return lambda listed: listed.state in ("learning", "relearning")
    if word in ("new", "review"):
        return lambda listed: listed.state == word
    return lambda listed: listed.has(word)


def _flag(value: str) -> Test:
    if not value.isdigit() or int(value) > len(FLAG_COLOURS):
        raise StudytoolError(_("flag:{value}: a flag is 0 (none) to 7").format(value=value))
    return lambda listed: listed.flags.flag == int(value)


def _prop(value: str) -> Test:
    match = _PROP.match(value.replace(" ", ""))
    if not match or match[1] not in PROPS:
        raise StudytoolError(_("prop:{value}: use prop:NAME OP NUMBER, NAME one of {names}, OP one of "
                               "= != < <= > >=").format(value=value, names=", ".join(PROPS)))
    name, compare, number = match[1], _OPS[match[2]], float(match[3])

    def test(listed: Listed) -> bool:
        found = listed.prop(name)
        return found is not None and compare(found, number)
    return test


def _rated(value: str) -> Test:
    if not value.isdigit() or not 1 <= int(value) <= 36500:
        raise StudytoolError(_("rated:{value}: a number of days from 1 to 36500").format(value=value))
    days = int(value)
    return lambda listed: listed.rated_days_ago is not None and listed.rated_days_ago < days


_FIELDS: dict[str, Callable[[str], Test]] = {"deck": _deck, "tag": _tag, "topic": _topic, "is": _is, "flag": _flag,
                                             "prop": _prop, "rated": _rated}


def sort_key(order: str) -> Callable[[Listed], Any]:
    """The key of one of `SORTS`: None for a card without the value (a new card's interval), which sorts last."""
    if order not in SORTS:
        raise StudytoolError(_("unknown sort {order!r}; sorts: {sorts}").format(order=order, sorts=", ".join(SORTS)))
    if order == "card":
        return lambda listed: listed.card.key
    if order == "added":
        return lambda listed: listed.position
    if order == "due":   # to the second: a learning step is due at a moment, not on a day
        return lambda listed: listed.schedule.due if listed.schedule else None
    prop = {"interval": "ivl"}.get(order, order)
    return lambda listed: listed.prop(prop)

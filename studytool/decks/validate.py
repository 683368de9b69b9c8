"""Validate a composed YAML node graph as a deck: every problem with its line and column.

Each card is checked against its kind's spec (`decks/kinds.py`): its fields, each converted by its
field type's converter (`decks/fields.py`: node -> Python value, or `Bad` with a message), and the
required ones. All problems of a file are collected; a card is built only when it has none.

`Card.body` holds the kind's own fields as plain Python values, as written:
q, a, statement, options, items, answer, tolerance, generator, params, example.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studytool.decks import MAX_ID
from studytool.decks.fields import FIELD_TYPES, ID, LETTERS, Bad, got, ident, mapping_pairs, near, tag_check, text
from studytool.decks.kinds import COMMON, DECK, KINDS, REQUIRED_COMMON, REQUIRED_DECK
from studytool.decks.model import Card, Deck
from studytool.i18n import _


def _a(kind: str) -> str:
    return (_("an {kind}") if kind[0] in "aeiou" else _("a {kind}")).format(kind=kind)


def _converters(fields) -> dict[str, Callable[[Node], Any] | None]:
    return {name: FIELD_TYPES[field.type].convert for name, field in fields.items()}


# every field a card of the kind may have, with its converter
KNOWN = {name: _converters({**COMMON, **kind.fields}) for name, kind in KINDS.items()}
ANY_KIND = frozenset(field for fields in KNOWN.values() for field in fields)
DECK_FIELDS = _converters(DECK)


def _position(found: tuple[int, int, str]) -> tuple[int, int]:
    return found[0], found[1]


class _Problems:
    """Collects `FILE:LINE:COL: [card ID: ]message` for one file; `lines()` in file order."""

    def __init__(self, name: str):
        self.name = name
        self.found: list[tuple[int, int, str]] = []

    def add(self, node: Node, message: str, card: str | None = None) -> None:
        mark = node.start_mark
        who = _("card {card}: ").format(card=card) if card else ""
        self.found.append((mark.line + 1, mark.column + 1, f"{who}{message}"))

    def __len__(self) -> int:
        return len(self.found)

    def lines(self) -> list[str]:
        ordered = sorted(self.found, key=_position)
        return [f"{self.name}:{line}:{column}: {message}" for line, column, message in ordered]


def validate_deck(root: Node | None, name: str, out: list[str]) -> tuple[Deck | None, tuple[int, int]]:
    """The deck in `root`, or None with its problems appended to `out` (in file order).

    Also returns where the deck id is (line, column), for messages about duplicate deck ids.
    """
    report = _Problems(name)
    deck = _deck(root, report) if root is not None else None
    if root is None:
        report.found.append((1, 1, _("the file is empty; a deck is a mapping with deck, title and cards")))
    out += report.lines()
    id_node = _value_node(root, "deck") if isinstance(root, MappingNode) else None
    where = (id_node.start_mark.line + 1, id_node.start_mark.column + 1) if id_node is not None else (1, 1)
    return (deck if not report else None), where


def _deck(root: Node, report: _Problems) -> Deck | None:
    if not _is_collection(root, MappingNode, _("a deck must be a mapping with deck, title and cards"), report, None):
        return None
    fields = _fields(root, DECK_FIELDS, REQUIRED_DECK, report, None, _("a deck needs deck, title and cards"))
    values = {key: _convert(key, fields[key], convert, report, None)
              for key, convert in DECK_FIELDS.items() if key in fields and convert is not None}
    cards = _cards(fields["cards"], values.get("deck") or "", report) if "cards" in fields else []
    if report:
        return None
    return Deck(deck=values["deck"], title=values["title"], source=values.get("source", ""), cards=tuple(cards),
                file=report.name, formerly=tuple(values.get("formerly", ())))


def _is_collection(node: Node, cls: type, message: str, report: _Problems, label: str | None) -> bool:
    """Is `node` a plain mapping/list? If not, report `message` (or the bad tag)."""
    try:
        tag_check(node)
    except Bad as bad:
        report.add(node, str(bad), label)
        return False
    if not isinstance(node, cls):
        report.add(node, _("{message}, not {got}").format(message=message, got=got(node)), label)
        return False
    return True


def _cards(node: Node, deck_id: str, report: _Problems) -> list[Card]:
    if not _is_collection(node, SequenceNode, _("cards must be a list of cards"), report, None):
        return []
    if not node.value:
        report.add(node, _("cards is empty; a deck needs at least one card"))
    cards: list[Card] = []
    first_line: dict[str, int] = {}
    for index, card_node in enumerate(node.value):
        card, card_id = _card(card_node, index, deck_id, report)
        if card is not None:
            cards.append(card)
        if card_id is None:
            continue
        if card_id in first_line:
            where = _value_node(card_node, "id")
            report.add(where, _("duplicate card id (first used on line {line})").format(line=first_line[card_id]), card_id)
        else:
            first_line[card_id] = card_node.start_mark.line + 1
    _check_former_ids(node, first_line, report)
    return cards


def _check_former_ids(node: SequenceNode, first_line: dict[str, int], report: _Problems) -> None:
    """A card's former id may not be a live card's id: that card keeps its own progress, nothing would move."""
    for card_node in node.value:
        former = _value_node(card_node, "formerly") if isinstance(card_node, MappingNode) else None
        if not isinstance(former, SequenceNode):
            continue
        for item in former.value:
            if isinstance(item, ScalarNode) and item.value in first_line:
                report.add(item, _("former id {card!r} is the id of the card on line {line}; a card's former ids "
                                   "must be ids no card has now").format(card=item.value, line=first_line[item.value]))


def _card(node: Node, index: int, deck_id: str, report: _Problems) -> tuple[Card | None, str | None]:
    """The card (None if it has problems) and its id (None if missing or invalid)."""
    label = f"#{index + 1}"
    if not _is_collection(node, MappingNode, _("a card must be a mapping (id: ..., kind: ...)"), report, label):
        return None, None
    id_node = _value_node(node, "id")
    if isinstance(id_node, ScalarNode) and len(id_node.value) <= MAX_ID and ID.match(id_node.value):
        label = id_node.value   # even if the card's mapping is broken below
    before = len(report)
    try:
        pairs = mapping_pairs(node)
    except Bad as bad:
        report.add(bad.node, str(bad), label)
        return None, None
    card_id = _convert("id", pairs["id"], ident, report, label) if "id" in pairs else None
    label = card_id or label
    kind = _convert("kind", pairs["kind"], text, report, label) if "kind" in pairs else None
    if kind is not None and kind not in KINDS:
        report.add(pairs["kind"], _("unknown kind {kind!r}; kinds are {kinds}").format(kind=kind, kinds=", ".join(KINDS))
                   + near(kind, KINDS), label)
    own, required = (KINDS[kind].fields, KINDS[kind].required) if kind in KINDS else ({}, ())
    known = KNOWN.get(kind, _converters(COMMON))
    if kind in KINDS:
        for key in pairs:
            if key not in known:
                hint = _(" ({hint})").format(hint=KINDS[kind].help()) if key in ANY_KIND else near(key, known)
                report.add(_key_node(node, key), _("unknown field {key!r} for {a_kind} card").format(key=key, a_kind=_a(kind))
                           + hint, label)
    missing = [key for key in (*REQUIRED_COMMON, *required) if key not in pairs]
    if missing:
        needs = (_("{a_kind} card needs {fields}").format(a_kind=_a(kind), fields=", ".join(required)) if kind in KINDS
                 else _("every card needs id, kind, topic"))
        report.add(node, _("missing {fields} ({needs})").format(fields=", ".join(repr(k) for k in missing), needs=needs),
                   label)
    values = {key: _convert(key, value, known[key], report, label) for key, value in pairs.items()
              if key in known and key not in ("id", "kind")}
    _check_topic(pairs, values, report, label)
    if kind == "choice":
        _check_letters(pairs, values, report, label)
    if kind == "generated":
        _check_generator(pairs, values, report, label)
    if len(report) > before:
        return None, card_id
    card = Card(deck=deck_id, id=card_id, kind=kind, topic=values["topic"], tags=tuple(values.get("tags", ())),
                source=values.get("source", ""), why=values.get("why"),
                body={key: value for key, value in values.items() if key in own},
                file=report.name, line=node.start_mark.line + 1, formerly=tuple(values.get("formerly", ())))
    return card, card_id


def _fields(node: MappingNode, spec: dict, required: tuple[str, ...], report: _Problems, label: str | None,
            needs: str) -> dict[str, Node]:
    try:
        pairs = mapping_pairs(node)
    except Bad as bad:
        report.add(bad.node, str(bad), label)
        return {}
    for key in pairs:
        if key not in spec:
            report.add(_key_node(node, key), _("unknown field {key!r}").format(key=key) + near(key, spec), label)
    missing = [key for key in required if key not in pairs]
    if missing:
        report.add(node, _("missing {fields} ({needs})").format(fields=", ".join(repr(k) for k in missing), needs=needs),
                   label)
    return {key: value for key, value in pairs.items() if key in spec}


def _key_node(node: MappingNode, key: str) -> Node:
    return next(k for k, _ in node.value if k.value == key)


def _value_node(node: MappingNode, key: str) -> Node | None:
    return next((v for k, v in node.value if isinstance(k, ScalarNode) and k.value == key), None)


def _convert(field: str, node: Node, convert: Callable[[Node], Any], report: _Problems, label: str | None) -> Any:
    """The converted value, or None with the problem reported (naming the field)."""
    try:
        return convert(node)
    except Bad as bad:
        report.add(bad.node or node, f"{field}: {bad}", label)
        return None


# --- checks across fields and against other modules ---

def _check_topic(pairs: dict[str, Node], values: dict[str, Any], report: _Problems, label: str) -> None:
    topic = values.get("topic")
    if topic is not None and topic not in _topic_ids():
        report.add(pairs["topic"], _("unknown topic {topic!r}{near} (see 'studytool explain')").format(
            topic=topic, near=near(topic, _topic_ids())), label)


@cache
def _topic_ids() -> frozenset[str]:
    from studytool.decks.topics import topic_ids

    return frozenset(topic_ids())


def _check_letters(pairs: dict[str, Node], values: dict[str, Any], report: _Problems, label: str) -> None:
    answer, opts = values.get("answer"), values.get("options")
    if answer is None or opts is None:
        return
    last = LETTERS[len(opts) - 1]
    for field in ("answer", "pin"):
        given = values.get(field) or []
        for letter in [given] if isinstance(given, str) else given:
            if LETTERS.index(letter) >= len(opts):
                report.add(pairs[field], _("{field} {letter} is not among the {n} options (A to {last})").format(
                    field=field, letter=letter, n=len(opts), last=last), label)
    pinned = values.get("pin") or []
    for index, option in enumerate(opts):
        if REFERS_TO_OTHERS.search(option) and LETTERS[index] not in pinned:
            report.add(pairs["options"], _("option {letter} ({option!r}) speaks of the other options: pin it "
                                           "(pin: [{letter}]) so shuffling keeps it in place").format(
                letter=LETTERS[index], option=option), label)


# Options like 以上都对 / none of the above only make sense in their written place.
REFERS_TO_OTHERS = re.compile(r"(?:以上|上述|前面)(?:都|皆|均|全|各项|选项|几项|三项)|of the above|other options",
                              re.IGNORECASE)


def _check_generator(pairs: dict[str, Node], values: dict[str, Any], report: _Problems, label: str) -> None:
    from studytool.problems import registry

    name = values.get("generator")
    if name is None:
        return
    try:
        generator = registry.get(name)
    except KeyError:
        report.add(pairs["generator"], _("unknown generator {name!r}").format(name=name) + near(name, registry.names()),
                   label)
        return
    params, example = values.get("params") or {}, values.get("example") or {}
    said = set()
    for field, given in (("params", params), ("example", {**params, **example})):
        if field not in pairs or values.get(field) is None:
            continue
        for message in _generator_problems(generator, given):
            if message not in said:
                said.add(message)
                report.add(_param_node(pairs[field], message), f"{field}: {message}", label)


def _generator_problems(generator, params: dict[str, Any]) -> list[str]:
    # A generator's own checks may trip over a value of an unexpected type;
    # that is still a problem with the deck, not a crash of the loader.
    try:
        return list(generator.validate(params))
    except Exception as error:  # noqa: BLE001 - reported as a deck problem
        return [_("{generator} cannot use these parameters ({error})").format(
            generator=generator.name, error=f"{type(error).__name__}: {error}")]


def _param_node(node: Node, message: str) -> Node:
    """The key the message is about (the earliest named in it), else the whole mapping."""
    if not isinstance(node, MappingNode):
        return node
    found = [(m.start(), key) for key, _ in node.value
             if (m := re.search(rf"(?<![\w]){re.escape(str(key.value))}(?![\w])", message))]
    return min(found, key=lambda pair: pair[0])[1] if found else node

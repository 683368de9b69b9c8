"""Validate a composed YAML node graph as a deck: every problem with its line and column.

Validation works on YAML nodes (not loaded Python values) because nodes keep
their marks. Each field has a converter: node -> Python value, or `_Bad` with a
message. All problems of a file are collected; a card is built only when it
has none.

`Card.body` holds the kind's own fields as plain Python values, as written:
q, a, statement, options, items, answer, tolerance, generator, params, example.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studytool.decks.model import TAGS, Card, Deck
from studytool.i18n import _

ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")
LETTERS = "ABCDEFGH"
MAX_DEPTH = 8          # params/example values: a matrix is two levels

_Y = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = _Y + "str", _Y + "int", _Y + "float", _Y + "bool", _Y + "null"
SAFE_TAGS = frozenset({STR, INT, FLOAT, BOOL, NULL, _Y + "seq", _Y + "map"})
TEXT, NUMBER, BOOLEAN, ID_TAGS = frozenset({STR}), frozenset({INT, FLOAT}), frozenset({BOOL}), frozenset({STR, INT})

_construct = yaml.constructor.SafeConstructor()
# C0 and C1 controls but newline and tab, DEL, and lone surrogates. YAML's "\e" or "\u009b" escapes can put
# them in any string, and printed they drive the terminal (clear the screen, set the title, write the
# clipboard with OSC 52, hide links with OSC 8) or cannot be printed at all.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
MAX_NUMBER_CHARS = 100   # checked before conversion: int() refuses 4,300 digits, float() of 400 overflows


class _Bad(Exception):
    """A field's value is wrong; `node` (default: the field's value) is where."""

    def __init__(self, message: str, node: Node | None = None):
        super().__init__(message)
        self.node = node


# --- converters: node -> value, or _Bad ---

def _tag_check(node: Node) -> None:
    if node.tag not in SAFE_TAGS:
        tag = node.tag.replace(_Y, "!!")
        raise _Bad(_("YAML tag {tag} is not allowed (a deck is plain data)").format(tag=tag), node)
    if isinstance(node, ScalarNode):
        _no_control(node)


def _no_control(node: ScalarNode) -> None:
    found = _CONTROL.search(node.value)
    if found:
        raise _Bad(_("control character U+{code} is not allowed in deck text (only newline and tab are)").format(
            code=f"{ord(found.group()):04X}"), node)


def _got(node: Node) -> str:
    if isinstance(node, MappingNode):
        return _("a mapping")
    if isinstance(node, SequenceNode):
        return _("a list")
    names = {STR: _("text"), INT: _("an integer"), FLOAT: _("a number"), BOOL: _("true/false"), NULL: _("nothing")}
    return names.get(node.tag, node.tag)


def _scalar(node: Node, tags: frozenset[str], want: str) -> ScalarNode:
    """The node when it is a scalar of one of `tags`; `want` (translated) names what was expected."""
    _tag_check(node)
    if not isinstance(node, ScalarNode) or node.tag not in tags:
        raise _Bad(_("must be {want}, got {got}").format(want=want, got=_got(node)), node)
    return node


def text(node: Node) -> str:
    value = _scalar(node, TEXT, _("text")).value
    if not value.strip():
        raise _Bad(_("must not be empty"), node)
    return value


def ident(node: Node) -> str:
    value = _scalar(node, ID_TAGS, _("an id")).value
    if not ID.match(value):
        raise _Bad(_("{value!r} is not a valid id (lowercase letters, digits and hyphens, e.g. ln-direction)").format(
            value=value), node)
    return value


def boolean(node: Node) -> bool:
    return _construct.construct_yaml_bool(_scalar(node, BOOLEAN, _("true or false")))


def number(node: Node) -> int | float:
    node = _scalar(node, NUMBER, _("a number"))
    if len(node.value) > MAX_NUMBER_CHARS:
        raise _Bad(_("a number written with more than {n} characters is not allowed").format(n=MAX_NUMBER_CHARS), node)
    if node.tag == INT and node.value.isdecimal() and node.value[0] != "0":
        return int(node.value)   # the common case; YAML's own rules for 0x.., 017, 1_000, 1:30 below
    value = _construct.construct_yaml_int(node) if node.tag == INT else _construct.construct_yaml_float(node)
    if not math.isfinite(value):
        raise _Bad(_("must be a finite number"), node)
    return value


def tolerance(node: Node) -> int | float:
    value = number(node)
    if value < 0:
        raise _Bad(_("must not be negative"), node)
    return value


def positive_int(node: Node) -> int:
    value = number(node)
    if not isinstance(value, int) or value < 1:
        raise _Bad(_("must be a positive integer, got {value}").format(value=node.value), node)
    return value


def _items(node: Node, each: Callable[[Node], Any], lo: int = 1, hi: int | None = None) -> list[Any]:
    _tag_check(node)
    if not isinstance(node, SequenceNode):
        raise _Bad(_("must be a list, got {got}").format(got=_got(node)), node)
    n = len(node.value)
    if n < lo or (hi is not None and n > hi):
        size = _("must have {lo} to {hi} entries, got {n}") if hi is not None else _("must have at least {lo} entries, got {n}")
        raise _Bad(size.format(lo=lo, hi=hi, n=n), node)
    return [each(item) for item in node.value]


def _distinct(node: Node, values: list[Any], why: str = "") -> list[Any]:
    seen = []
    for item, value in zip(node.value, values):
        if value in seen:
            raise _Bad(_("{value!r} is listed twice").format(value=value) + why, item)
        seen.append(value)
    return values


def options(node: Node) -> list[str]:
    return _distinct(node, _items(node, text, 2, 8))


def order_items(node: Node) -> list[str]:
    return _distinct(node, _items(node, text, 3, 8), _("; items must differ (each is answered by its number)"))


def numbers(node: Node) -> list[int | float]:
    return _items(node, number)


def shape(node: Node) -> list[int]:
    return _items(node, positive_int)


def tags(node: Node) -> list[str]:
    def tag(item: Node) -> str:
        value = text(item)
        if value not in TAGS:
            raise _Bad(_("unknown tag {value!r}; tags are {tags}").format(value=value, tags=", ".join(TAGS)) + _near(value, TAGS),
                       item)
        return value

    return _distinct(node, _items(node, tag, 0))


def letters(node: Node) -> str | list[str]:
    """`B` or `[A, C]`; checked against the options by the card."""
    def letter(item: Node) -> str:
        value = _scalar(item, TEXT, _("a letter")).value
        if len(value) != 1 or value not in LETTERS:
            raise _Bad(_("{value!r} is not an option letter (A, B, C ...)").format(value=value), item)
        return value

    if isinstance(node, SequenceNode):
        return _distinct(node, _items(node, letter))
    return letter(node)


def plain(node: Node, depth: int = 0) -> Any:
    """Any YAML value made of the safe types, as Python (params, example); at most MAX_DEPTH levels."""
    _tag_check(node)
    if depth > MAX_DEPTH and isinstance(node, (MappingNode, SequenceNode)):
        raise _Bad(_("nested more than {depth} levels deep").format(depth=MAX_DEPTH), node)
    if isinstance(node, MappingNode):
        return {key: plain(value, depth + 1) for key, value in _pairs(node).items()}
    if isinstance(node, SequenceNode):
        return [plain(item, depth + 1) for item in node.value]
    if node.tag in (INT, FLOAT):
        return number(node)
    if node.tag == BOOL:
        return boolean(node)
    return None if node.tag == NULL else node.value


def mapping(node: Node) -> dict[str, Any]:
    _tag_check(node)
    if not isinstance(node, MappingNode):
        raise _Bad(_("must be a mapping of name: value, got {got}").format(got=_got(node)), node)
    return plain(node)


def _pairs(node: MappingNode) -> dict[str, Node]:
    """Key text -> value node; non-text and repeated keys are errors."""
    found: dict[str, Node] = {}
    for key, value in node.value:
        if key.tag == _Y + "merge":
            raise _Bad(_("merge keys (<<) are not supported; write the fields out"), key)
        if not isinstance(key, ScalarNode) or key.tag != STR:
            raise _Bad(_("field names must be plain text"), key)
        _no_control(key)
        if key.value in found:
            raise _Bad(_("field {key!r} is given twice").format(key=key.value), key)
        found[key.value] = value
    return found


def _a(kind: str) -> str:
    return (_("an {kind}") if kind[0] in "aeiou" else _("a {kind}")).format(kind=kind)


def former_ids(node: Node) -> list[str]:
    return _distinct(node, _items(node, ident))


def _near(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return _("; did you mean {name}?").format(name=close[0]) if close else ""


# --- the deck format ---

COMMON = {"id": ident, "kind": text, "topic": text, "tags": tags, "source": text, "why": text, "formerly": former_ids}
REQUIRED_COMMON = ("id", "kind", "topic")
KINDS: dict[str, tuple[dict[str, Callable[[Node], Any]], tuple[str, ...]]] = {
    # kind: (its own fields and their converters, the required ones)
    "recall": ({"q": text, "a": text}, ("q", "a")),
    "choice": ({"q": text, "options": options, "answer": letters, "pin": letters}, ("q", "options", "answer")),
    # both forms: a showing states one of them, so always answering 错 (or 对) scores half
    "truefalse": ({"statement": text, "answer": boolean, "opposite": text}, ("statement", "answer", "opposite", "why")),
    "number": ({"q": text, "answer": number, "tolerance": tolerance}, ("q", "answer")),
    "vector": ({"q": text, "answer": numbers, "tolerance": tolerance}, ("q", "answer")),
    "shape": ({"q": text, "answer": shape}, ("q", "answer")),
    "order": ({"q": text, "items": order_items}, ("q", "items")),
    "generated": ({"generator": text, "params": mapping, "example": mapping}, ("generator",)),
}
KNOWN = {kind: {**COMMON, **own} for kind, (own, _) in KINDS.items()}   # every field a card of the kind may have
ANY_KIND = frozenset(field for fields in KNOWN.values() for field in fields)
# Said when a card has a field of another kind: where this kind keeps its question and answer.
def kind_fields(kind: str) -> str:
    """Which fields a card of `kind` has, in the interface language."""
    return {
        "recall": _("recall cards have 'q' and the reference answer 'a'"),
        "choice": _("choice cards have 'q', 'options', 'answer' (a letter, or a list of letters) and an optional "
                    "'pin' (letters of options that stay in place when the options are shuffled)"),
        "truefalse": _("truefalse cards have 'statement', 'answer' (true or false), 'opposite' (the statement with "
                       "the other truth value) and 'why'; no 'q'"),
        "number": _("number cards have 'q', 'answer' (a number) and an optional 'tolerance'"),
        "vector": _("vector cards have 'q', 'answer' (a list of numbers) and an optional 'tolerance'"),
        "shape": _("shape cards have 'q' and 'answer' (a list of positive integers)"),
        "order": _("order cards list 'items' in the right order; they have no 'answer'"),
        "generated": _("generated cards have 'generator' and optional 'params' and 'example'; "
                       "the generator writes the question and answer"),
    }[kind]


DECK_FIELDS = {"deck": ident, "formerly": former_ids, "title": text, "source": text, "cards": None}
REQUIRED_DECK = ("deck", "title", "cards")


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
        _tag_check(node)
    except _Bad as bad:
        report.add(node, str(bad), label)
        return False
    if not isinstance(node, cls):
        report.add(node, _("{message}, not {got}").format(message=message, got=_got(node)), label)
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
    if isinstance(id_node, ScalarNode) and ID.match(id_node.value):
        label = id_node.value   # even if the card's mapping is broken below
    before = len(report)
    try:
        pairs = _pairs(node)
    except _Bad as bad:
        report.add(bad.node, str(bad), label)
        return None, None
    card_id = _convert("id", pairs["id"], ident, report, label) if "id" in pairs else None
    label = card_id or label
    kind = _convert("kind", pairs["kind"], text, report, label) if "kind" in pairs else None
    if kind is not None and kind not in KINDS:
        report.add(pairs["kind"], _("unknown kind {kind!r}; kinds are {kinds}").format(kind=kind, kinds=", ".join(KINDS))
                   + _near(kind, KINDS), label)
    own, required = KINDS.get(kind, ({}, ()))
    known = KNOWN.get(kind, COMMON)
    if kind in KINDS:
        for key in pairs:
            if key not in known:
                hint = _(" ({hint})").format(hint=kind_fields(kind)) if key in ANY_KIND else _near(key, known)
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
        pairs = _pairs(node)
    except _Bad as bad:
        report.add(bad.node, str(bad), label)
        return {}
    for key in pairs:
        if key not in spec:
            report.add(_key_node(node, key), _("unknown field {key!r}").format(key=key) + _near(key, spec), label)
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
    except _Bad as bad:
        report.add(bad.node or node, f"{field}: {bad}", label)
        return None


# --- checks across fields and against other modules ---

def _check_topic(pairs: dict[str, Node], values: dict[str, Any], report: _Problems, label: str) -> None:
    topic = values.get("topic")
    if topic is not None and topic not in _topic_ids():
        report.add(pairs["topic"], _("unknown topic {topic!r}{near} (see 'studytool explain')").format(
            topic=topic, near=_near(topic, _topic_ids())), label)


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
        report.add(pairs["generator"], _("unknown generator {name!r}").format(name=name) + _near(name, registry.names()),
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

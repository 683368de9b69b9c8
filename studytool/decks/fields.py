"""What a field's YAML value may be: one converter per field type, and the JSON Schema it is written as.

Validation works on YAML nodes (not loaded Python values) because nodes keep
their marks. A converter takes a node and returns the Python value, or raises
`Bad` with a message and the node it is about. `FIELD_TYPES` names each field
type the kind specs (`decks/kinds.py`) use, with its converter and its schema.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from studytool.decks import MAX_ID
from studytool.decks.kinds import FLOAT_TOLERANCE, KINDS, MIN_TOLERANCE, TAGS
from studytool.files import REORDERING
from studytool.i18n import _
from studytool.problems.reading import MAX_MAGNITUDE, power_of_ten

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
# And the characters that reorder or hide text on screen (a title "Big \u202eevil" shows as "Big live").
_REORDERING = re.compile(f"[{REORDERING}]")
# Characters that hide text or split its lines where the screen does not: the tag characters (U+E0000 block,
# invisible copies of ASCII), the line and paragraph separators U+2028/2029, the interlinear annotation marks
# U+FFF9-FFFB and the Mongolian vowel separator U+180E (a format character since Unicode 6.3).
_HIDING = re.compile("[\U000e0000-\U000e007f\u2028\u2029\ufff9-\ufffb\u180e]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# Combining marks stack on the character before them: a run of them paints over the lines around it. Unicode's
# stream-safe text format (UAX #15) holds 30 in a row enough for any text.
MAX_COMBINING_RUN = 30
MAX_NUMBER_CHARS = 100   # checked before conversion: int() refuses 4,300 digits, float() of 400 overflows
# A number as YAML 1.2 (and JSON, and the schema's editors) reads it, with an exponent: 1e-6, 1.0e308, 2E+3.
# PyYAML's YAML 1.1 wants a dot and a signed exponent, so it reads these as text; in a number field they are numbers.
_EXPONENT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+\Z")


class Bad(Exception):
    """A field's value is wrong; `node` (default: the field's value) is where."""

    def __init__(self, message: str, node: Node | None = None):
        super().__init__(message)
        self.node = node


# --- converters: node -> value, or Bad ---

def tag_check(node: Node) -> None:
    if node.tag not in SAFE_TAGS:
        tag = node.tag.replace(_Y, "!!")
        raise Bad(_("YAML tag {tag} is not allowed (a deck is plain data)").format(tag=tag), node)
    if isinstance(node, ScalarNode):
        _no_control(node)


def _no_control(node: ScalarNode) -> None:
    if _suspect().search(node.value) is None:   # what nearly every scalar gets: one search
        return
    found = _CONTROL.search(node.value)
    if found:
        raise Bad(_("control character U+{code} is not allowed in deck text (only newline and tab are)").format(
            code=f"{ord(found.group()):04X}"), node)
    found = _REORDERING.search(node.value)
    if found:
        raise Bad(_("invisible character U+{code} is not allowed in deck text: it reorders or hides what is shown "
                    "(bidirectional controls, zero-width spaces)").format(code=f"{ord(found.group()):04X}"), node)
    found = _HIDING.search(node.value)
    if found:
        raise Bad(_("character U+{code} is not allowed in deck text: it hides or splits what is shown (tag "
                    "characters, line and paragraph separators, interlinear annotations)").format(
                        code=f"{ord(found.group()):04X}"), node)
    if _combining_run(every_plane=_ASTRAL.search(node.value) is not None).search(node.value):
        raise Bad(_("more than {most} combining marks in a row are not allowed in deck text: they pile up over "
                    "one character and hide the lines around it").format(most=MAX_COMBINING_RUN), node)


@cache
def _suspect() -> re.Pattern[str]:
    """Any character `_no_control` looks at more closely: those the three classes above refuse, a combining mark of
    the Basic Multilingual Plane, or any character beyond it."""
    classes = (_CONTROL, _REORDERING, _HIDING)
    return re.compile("[" + "".join(c.pattern[1:-1] for c in classes) + _marks(every_plane=False) + "\U00010000-\U0010ffff]")


@cache
def _combining_run(every_plane: bool) -> re.Pattern[str]:
    """More than `MAX_COMBINING_RUN` combining marks in a row."""
    return re.compile(f"[{_marks(every_plane)}]{{{MAX_COMBINING_RUN + 1}}}")


def _marks(every_plane: bool) -> str:
    """The combining marks (Mn, Me) as the inside of a regex class, built from unicodedata when first needed (about
    30 ms, not at import): of the Basic Multilingual Plane only (re keeps a class of one plane as a bitmap: fast), or
    with the planes beyond it that hold marks too (1, the supplementary multilingual; 14, its variation selectors)."""
    import unicodedata

    planes = [range(0x300, 0x10000)] + ([range(0x10000, 0x20000), range(0xE0000, 0xF0000)] if every_plane else [])
    ranges: list[list[int]] = []
    for plane in planes:
        for code in plane:
            if unicodedata.category(chr(code)) in ("Mn", "Me"):
                if ranges and ranges[-1][1] == code - 1:
                    ranges[-1][1] = code
                else:
                    ranges.append([code, code])
    return "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in ranges)


def got(node: Node) -> str:
    if isinstance(node, MappingNode):
        return _("a mapping")
    if isinstance(node, SequenceNode):
        return _("a list")
    names = {STR: _("text"), INT: _("an integer"), FLOAT: _("a number"), BOOL: _("true/false"), NULL: _("nothing")}
    return names.get(node.tag, node.tag)


def _scalar(node: Node, tags: frozenset[str], want: str) -> ScalarNode:
    """The node when it is a scalar of one of `tags`; `want` (translated) names what was expected."""
    tag_check(node)
    if not isinstance(node, ScalarNode) or node.tag not in tags:
        raise Bad(_("must be {want}, got {got}").format(want=want, got=got(node)), node)
    return node


def text(node: Node) -> str:
    value = _scalar(node, TEXT, _("text")).value
    if not value.strip():
        raise Bad(_("must not be empty"), node)
    return value


def ident(node: Node) -> str:
    value = _scalar(node, ID_TAGS, _("an id")).value
    if len(value) > MAX_ID:   # before the message below quotes it
        raise Bad(_("an id has at most {most} characters, not {n}").format(most=MAX_ID, n=f"{len(value):,}"), node)
    if not ID.match(value):
        raise Bad(_("{value!r} is not a valid id (lowercase letters, digits and hyphens, e.g. ln-direction)").format(
            value=value), node)
    return value


def boolean(node: Node) -> bool:
    return _construct.construct_yaml_bool(_scalar(node, BOOLEAN, _("true or false")))


def _short(written: str) -> str:
    """A number as written, cut to a glance (a refused one may have 100 digits)."""
    return written if len(written) <= 24 else written[:20] + "…"


def _exponent_text(node: Node) -> bool:
    """A plain (unquoted) scalar PyYAML read as text that YAML 1.2 reads as a number: `1e-6`."""
    # a plain scalar's style is None from PyYAML's composer, "" from libyaml's
    return isinstance(node, ScalarNode) and node.tag == STR and not node.style and bool(_EXPONENT.match(node.value))


def number(node: Node) -> int | float:
    exponent = _exponent_text(node)
    node = _scalar(node, NUMBER | TEXT if exponent else NUMBER, _("a number"))
    if len(node.value) > MAX_NUMBER_CHARS:
        raise Bad(_("a number written with more than {n} characters is not allowed").format(n=MAX_NUMBER_CHARS), node)
    if exponent:
        value = float(node.value)
    elif node.tag == INT and node.value.isdecimal() and node.value[0] != "0":
        value = int(node.value)   # the common case; YAML's own rules for 0x.., 017, 1_000, 1:30 below
    else:
        value = _construct.construct_yaml_int(node) if node.tag == INT else _construct.construct_yaml_float(node)
    if not math.isfinite(value):
        raise Bad(_("must be a finite number"), node)
    if abs(value) > MAX_MAGNITUDE:
        raise Bad(_("must be at most {most} in size (what float64 holds exactly and a learner can type), got "
                    "{value}").format(most=power_of_ten(MAX_MAGNITUDE), value=_short(node.value)), node)
    return value


def tolerance(node: Node) -> int | float:
    value = number(node)
    if value < 0:
        raise Bad(_("must not be negative"), node)
    if 0 < value < MIN_TOLERANCE:
        raise Bad(_("must be 0 (exact) or at least {least}: a float64 answer has no finer digits to grade, got "
                    "{value}").format(least=power_of_ten(MIN_TOLERANCE), value=_short(node.value)), node)
    return value


def positive_int(node: Node) -> int:
    value = number(node)
    if not isinstance(value, int) or value < 1:
        raise Bad(_("must be a positive integer, got {value}").format(value=node.value), node)
    return value


def _items(node: Node, each: Callable[[Node], Any], lo: int = 1, hi: int | None = None) -> list[Any]:
    tag_check(node)
    if not isinstance(node, SequenceNode):
        raise Bad(_("must be a list, got {got}").format(got=got(node)), node)
    n = len(node.value)
    if n < lo or (hi is not None and n > hi):
        size = _("must have {lo} to {hi} entries, got {n}") if hi is not None else _("must have at least {lo} entries, got {n}")
        raise Bad(size.format(lo=lo, hi=hi, n=n), node)
    return [each(item) for item in node.value]


def _distinct(node: Node, values: list[Any], why: str = "") -> list[Any]:
    seen = []
    for item, value in zip(node.value, values):
        if value in seen:
            raise Bad(_("{value!r} is listed twice").format(value=value) + why, item)
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
            raise Bad(_("unknown tag {value!r}; tags are {tags}").format(value=value, tags=", ".join(TAGS)) + near(value, TAGS),
                       item)
        return value

    return _distinct(node, _items(node, tag, 0))


def letters(node: Node) -> str | list[str]:
    """`B` or `[A, C]`; checked against the options by the card."""
    def letter(item: Node) -> str:
        value = _scalar(item, TEXT, _("a letter")).value
        if len(value) != 1 or value not in LETTERS:
            raise Bad(_("{value!r} is not an option letter (A, B, C ...)").format(value=value), item)
        return value

    if isinstance(node, SequenceNode):
        return _distinct(node, _items(node, letter))
    return letter(node)


def plain(node: Node, depth: int = 0) -> Any:
    """Any YAML value made of the safe types, as Python (params, example); at most MAX_DEPTH levels."""
    tag_check(node)
    if depth > MAX_DEPTH and isinstance(node, (MappingNode, SequenceNode)):
        raise Bad(_("nested more than {depth} levels deep").format(depth=MAX_DEPTH), node)
    if isinstance(node, MappingNode):
        return {key: plain(value, depth + 1) for key, value in mapping_pairs(node).items()}
    if isinstance(node, SequenceNode):
        return [plain(item, depth + 1) for item in node.value]
    if node.tag in (INT, FLOAT) or _exponent_text(node):
        return number(node)
    if node.tag == BOOL:
        return boolean(node)
    return None if node.tag == NULL else node.value


def mapping(node: Node) -> dict[str, Any]:
    tag_check(node)
    if not isinstance(node, MappingNode):
        raise Bad(_("must be a mapping of name: value, got {got}").format(got=got(node)), node)
    return plain(node)


def mapping_pairs(node: MappingNode) -> dict[str, Node]:
    """Key text -> value node; non-text and repeated keys are errors."""
    found: dict[str, Node] = {}
    for key, value in node.value:
        if key.tag == _Y + "merge":
            raise Bad(_("merge keys (<<) are not supported; write the fields out"), key)
        if not isinstance(key, ScalarNode) or key.tag != STR:
            raise Bad(_("field names must be plain text"), key)
        _no_control(key)
        if key.value in found:
            raise Bad(_("field {key!r} is given twice").format(key=key.value), key)
        found[key.value] = value
    return found


def former_ids(node: Node) -> list[str]:
    return _distinct(node, _items(node, ident))


def near(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return _("; did you mean {name}?").format(name=close[0]) if close else ""


# --- the field types the kind specs name ---

@dataclass(frozen=True)
class FieldType:
    convert: Callable[[Node], Any] | None   # None: checked by the validator itself (a deck's cards)
    schema: Callable[[], dict[str, Any]]    # its JSON Schema (a function: some enums are read when asked)


def _ref(name: str) -> Callable[[], dict[str, Any]]:
    return lambda: {"$ref": f"#/$defs/{name}"}


def _list_of(items: dict[str, Any], lo: int, hi: int | None = None, unique: bool = False) -> dict[str, Any]:
    bounds = {"minItems": lo} | ({"maxItems": hi} if hi is not None else {})
    return {"type": "array", "items": items, **bounds} | ({"uniqueItems": True} if unique else {})


def _generators() -> dict[str, Any]:
    from studytool.problems import registry

    return {"enum": registry.names()}


FIELD_TYPES: dict[str, FieldType] = {
    "id": FieldType(ident, _ref("id")),
    "kind": FieldType(text, lambda: {"enum": list(KINDS)}),
    "topic": FieldType(text, _ref("topic")),   # the enum of topic ids: schema.py reads the topics (they read fields)
    "tags": FieldType(tags, lambda: {"type": "array", "items": {"enum": list(TAGS)}, "uniqueItems": True}),
    "former": FieldType(former_ids, _ref("former")),
    "text": FieldType(text, _ref("text")),
    "boolean": FieldType(boolean, lambda: {"type": "boolean"}),
    "number": FieldType(number, _ref("bounded-number")),
    "tolerance": FieldType(tolerance, _ref("tolerance")),
    "numbers": FieldType(numbers, lambda: _list_of({"$ref": "#/$defs/bounded-number"}, 1)),
    "shape": FieldType(shape, lambda: _list_of({"type": "integer", "minimum": 1, "maximum": MAX_MAGNITUDE}, 1)),
    "options": FieldType(options, lambda: _list_of({"$ref": "#/$defs/text"}, 2, 8, unique=True)),
    "order_items": FieldType(order_items, lambda: _list_of({"$ref": "#/$defs/text"}, 3, 8, unique=True)),
    "letters": FieldType(letters, lambda: {"oneOf": [{"$ref": "#/$defs/letter"},
                                                     _list_of({"$ref": "#/$defs/letter"}, 1, unique=True)]}),
    "generator": FieldType(text, _generators),   # the name is checked against the registry with its params
    "mapping": FieldType(mapping, lambda: {"type": "object"}),
    "cards": FieldType(None, lambda: _list_of({"$ref": "#/$defs/card"}, 1)),
}

# The shared definitions the field types refer to.
DEFINITIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "id": lambda: {"type": "string", "pattern": "^" + ID.pattern.removesuffix(r"\Z") + "$", "maxLength": MAX_ID},
    "text": lambda: {"type": "string", "pattern": r"\S"},
    "former": lambda: _list_of({"$ref": "#/$defs/id"}, 1, unique=True),
    "letter": lambda: {"enum": list(LETTERS)},
    "bounded-number": lambda: {"type": "number", "minimum": -MAX_MAGNITUDE, "maximum": MAX_MAGNITUDE,
                               "description": f"At most {power_of_ten(MAX_MAGNITUDE)} in size: float64 holds every "
                                              "integer up to it exactly, and a learner can type it."},
    "tolerance": lambda: {"type": "number", "anyOf": [{"const": 0}, {"minimum": MIN_TOLERANCE}],
                          "maximum": MAX_MAGNITUDE,
                          "description": "Absolute tolerance: 0 (exact) or from "
                                         f"{power_of_ten(MIN_TOLERANCE)} (9 decimals) to {power_of_ten(MAX_MAGNITUDE)} "
                                         f"(default: exact for integers, {FLOAT_TOLERANCE.abs:g} for floats)."},
}

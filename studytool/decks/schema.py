"""The deck format as JSON Schema, written from the kind specs: `bundled/schema.json` is its output.

    python -m studytool.decks.schema > studytool/decks/bundled/schema.json

`tests/decks/test_schema.py` fails when the committed file is not what this writes. The schema is
the editor's view; `studytool decks check` checks the same and more (duplicate ids, generator params).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from studytool.decks.fields import DEFINITIONS, FIELD_TYPES
from studytool.decks.kinds import COMMON, DECK, KINDS, REQUIRED_COMMON, REQUIRED_DECK, Field


def _properties(fields: Mapping[str, Field]) -> dict[str, Any]:
    return {name: FIELD_TYPES[field.type].schema() | ({"description": field.description} if field.description else {})
            for name, field in fields.items()}


def _topics() -> dict[str, Any]:
    from studytool.decks.topics import topic_ids

    return {"enum": topic_ids()}


def _card() -> dict[str, Any]:
    # each kind's own fields under `allOf`, so `unevaluatedProperties` refuses a field of another kind
    return {"type": "object", "required": list(REQUIRED_COMMON), "properties": _properties(COMMON),
            "allOf": [{"if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
                       "then": {"$ref": f"#/$defs/{name}"}} for name in KINDS],
            "unevaluatedProperties": False}


def document() -> dict[str, Any]:
    """The whole schema, as a JSON-able dict."""
    kinds = {name: {"properties": _properties(kind.fields), "required": list(kind.required)}
             for name, kind in KINDS.items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:studytool:deck",
        "title": "studytool deck",
        "description": "One deck of studytool cards. 'studytool decks check FILE' checks the same rules and more "
                       "(duplicate ids, generator parameters).",
        "type": "object",
        "required": list(REQUIRED_DECK),
        "additionalProperties": False,
        "properties": _properties(DECK),
        "$defs": {**{name: define() for name, define in DEFINITIONS.items()}, "topic": _topics(), "card": _card(),
                  **kinds},
    }


def text() -> str:
    """schema.json's text: two-space indents, UTF-8 as written, a final newline."""
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(text(), end="")

"""decks/schema.json: the editor's view of the deck format agrees with the loader."""

import json
from typing import get_args
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

from studytool.decks.loader import bundled_sources
from studytool.decks.topics import topic_ids
from studytool.decks import schema
from studytool.decks.kinds import KINDS, TAGS, CardKind
from studytool.problems import registry

jsonschema = pytest.importorskip("jsonschema")

COMMITTED = files("studytool.decks").joinpath("bundled", "schema.json").read_text(encoding="utf-8")
SCHEMA = json.loads(COMMITTED)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
HERE = Path(__file__).parent


def test_the_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_committed_schema_is_what_the_kind_specs_write():
    """Regenerate with: python -m studytool.decks.schema > studytool/decks/bundled/schema.json"""
    assert COMMITTED == schema.text()


def test_the_card_kind_type_names_the_kind_specs():
    assert get_args(CardKind) == tuple(KINDS)


def test_the_schema_names_what_the_loader_accepts():
    card = SCHEMA["$defs"]["card"]["properties"]
    assert card["kind"]["enum"] == list(KINDS)
    assert card["topic"]["$ref"] == "#/$defs/topic" and SCHEMA["$defs"]["topic"]["enum"] == topic_ids()
    assert card["tags"]["items"]["enum"] == list(TAGS)
    assert SCHEMA["$defs"]["generated"]["properties"]["generator"]["enum"] == registry.names()


@pytest.mark.parametrize("path", [HERE / "good" / "every-kind.yaml", *bundled_sources()], ids=lambda p: p.name)
def test_good_decks_pass_the_schema(path):
    document = yaml.safe_load(path.read_text("utf-8"))
    assert [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)] == []


@pytest.mark.parametrize("name", [
    "wrong-types.yaml", "unknown-kind.yaml", "missing-fields.yaml", "several-errors.yaml", "list-not-mapping.yaml",
    "empty-cards.yaml", "unknown-generator.yaml", "more-errors.yaml",
])
def test_broken_decks_fail_the_schema_too(name):
    document = yaml.safe_load((HERE / "broken" / name).read_text("utf-8"))
    assert not VALIDATOR.is_valid(document)


@pytest.mark.parametrize("card, valid", [
    ({"id": "a", "kind": "recall", "topic": "softmax", "q": "Q", "a": "A"}, True),
    ({"id": "a", "kind": "recall", "topic": "softmax", "q": "Q", "a": "A", "options": ["x", "y"]}, False),
    ({"id": "a", "kind": "choice", "topic": "softmax", "q": "Q", "options": ["x", "y"], "answer": ["A", "B"]}, True),
    ({"id": "a", "kind": "choice", "topic": "softmax", "q": "Q", "options": ["x", "y"], "answer": "b"}, False),
    ({"id": "a", "kind": "truefalse", "topic": "residual", "statement": "S", "answer": True}, False),  # no why
    ({"id": "a", "kind": "truefalse", "topic": "residual", "statement": "S", "answer": True, "why": "W"}, False),
    ({"id": "a", "kind": "truefalse", "topic": "residual", "statement": "S", "answer": True, "opposite": "O",
      "why": "W"}, True),
    ({"id": "a", "kind": "generated", "topic": "layernorm", "generator": "layer_norm", "params": {"size": 4}}, True),
    ({"id": "a", "kind": "generated", "topic": "layernorm", "generator": "layer_norm", "q": "Q"}, False),
    ({"id": "a", "kind": "shape", "topic": "multi-head", "q": "Q", "answer": [32, 0]}, False),
    ({"id": "A", "kind": "recall", "topic": "softmax", "q": "Q", "a": "A"}, False),
    # the loader's number bounds: at most 1e15 in size, a tolerance 0 or from 1e-9
    ({"id": "a", "kind": "number", "topic": "softmax", "q": "Q", "answer": 1e15, "tolerance": 1e-9}, True),
    ({"id": "a", "kind": "number", "topic": "softmax", "q": "Q", "answer": 0.5, "tolerance": 0}, True),
    ({"id": "a", "kind": "number", "topic": "softmax", "q": "Q", "answer": 1.5, "tolerance": 1e308}, False),
    ({"id": "a", "kind": "number", "topic": "softmax", "q": "Q", "answer": 1.5, "tolerance": 1e-12}, False),
    ({"id": "a", "kind": "vector", "topic": "softmax", "q": "Q", "answer": [1e308, -1e308]}, False),
    ({"id": "a", "kind": "number", "topic": "softmax", "q": "Q", "answer": -1e15 - 1}, False),
])
def test_single_cards(card, valid):
    assert VALIDATOR.is_valid({"deck": "d", "title": "T", "cards": [card]}) is valid

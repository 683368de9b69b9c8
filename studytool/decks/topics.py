"""Explain topics: what each part of the Transformer is, read from the bundled `topics.yaml`.

A topic carries the idea (Chinese paragraphs), its formulas, the common
mistakes, and optionally the problem generator (plus pinned example params)
whose variant `explain` computes live. Every card's `topic` is one of these ids.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from studytool.errors import StudytoolError
from studytool.i18n import LANGUAGES, _, language

_FIELDS = {"id", "title", "aliases", "group", "summary", "formulas", "mistakes", "generator", "example"}


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    aliases: tuple[str, ...]
    group: str                      # part of the architecture, a key of `group_titles()`
    summary: str                    # the idea: short paragraphs separated by blank lines
    formulas: tuple[str, ...] = ()
    mistakes: tuple[str, ...] = ()
    generator: str | None = None    # problems registry name for the live example
    example: dict[str, Any] = field(default_factory=dict)  # pinned params: the notes' own numbers

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the topic answers to: its id, then its aliases."""
        return (self.id, *self.aliases)


@cache
def _document() -> dict[str, Any]:
    import yaml

    text = files("studytool.decks").joinpath("bundled", "topics.yaml").read_text(encoding="utf-8")
    # The C loader when PyYAML has it (50 ms -> 2 ms at start-up); equally safe.
    document = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(document, dict) or not isinstance(document.get("topics"), list):
        raise StudytoolError("topics.yaml: expected a mapping with 'groups' and a 'topics' list")
    return document


def group_titles() -> dict[str, str]:
    """Group key -> display title in the interface language, in display order."""
    titles = {}
    for key, title in (_document().get("groups") or {}).items():
        if not isinstance(title, dict) or not all(isinstance(title.get(lang), str) for lang in LANGUAGES):
            raise StudytoolError(f"topics.yaml: group {key!r} needs a title for each of {', '.join(LANGUAGES)}")
        titles[key] = title[language()]
    return titles


def _topic(entry: dict[str, Any], groups: dict[str, str]) -> Topic:
    where = f"topics.yaml: topic {entry.get('id', '?')!r}"
    unknown = set(entry) - _FIELDS
    if unknown:
        raise StudytoolError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    for name in ("id", "title", "group", "summary"):
        if not isinstance(entry.get(name), str) or not entry[name].strip():
            raise StudytoolError(f"{where}: '{name}' must be a non-empty string")
    if entry["group"] not in groups:
        raise StudytoolError(f"{where}: unknown group {entry['group']!r}")
    for name in ("aliases", "formulas", "mistakes"):
        if not isinstance(entry.get(name) or [], list):
            raise StudytoolError(f"{where}: '{name}' must be a list")
    if not isinstance(entry.get("generator") or "", str) or not isinstance(entry.get("example") or {}, dict):
        raise StudytoolError(f"{where}: 'generator' must be a name and 'example' a mapping")
    return Topic(
        id=entry["id"],
        title=entry["title"],
        aliases=tuple(str(a) for a in entry.get("aliases") or ()),
        group=entry["group"],
        summary=entry["summary"].strip(),
        formulas=tuple(str(f) for f in entry.get("formulas") or ()),
        mistakes=tuple(str(m).strip() for m in entry.get("mistakes") or ()),
        generator=entry.get("generator"),
        example=dict(entry.get("example") or {}),
    )


@cache
def _topics() -> tuple[Topic, ...]:
    groups = group_titles()
    topics = tuple(_topic(entry, groups) for entry in _document()["topics"])
    seen: dict[str, str] = {}
    for number, topic in enumerate(topics):
        if topic.id in (t.id for t in topics[:number]):
            raise StudytoolError(f"topics.yaml: topic id {topic.id!r} appears twice")
        for name in topic.names:
            key = normalize(name)
            if seen.setdefault(key, topic.id) != topic.id:
                raise StudytoolError(f"topics.yaml: name {name!r} used by both {seen[key]!r} and {topic.id!r}")
    return topics


def load_topics() -> list[Topic]:
    """All bundled topics, in file order (grouped by part of the architecture)."""
    return list(_topics())


def topic_ids() -> list[str]:
    return [topic.id for topic in _topics()]


def normalize(name: str) -> str:
    """Case-insensitive, with spaces, hyphens and underscores treated alike."""
    return re.sub(r"[\s_\-]+", "-", name.strip().casefold()).strip("-")


# Similarity (difflib ratio) of a plausible typo: "layrnorm" for layernorm (0.94), "postln" for post-ln (0.92).
# Below it short names match garbage: "nope" shares "pe" with the alias pe (0.67).
_NEAR = 0.75


def resolve(query: str) -> Topic:
    """The topic named by `query`: an id or alias, exactly or by unique prefix.

    Unknown or ambiguous names raise `StudytoolError`: the candidates, the plausible typos, or where the list is.
    """
    key = normalize(query)
    by_name = {normalize(name): topic for topic in _topics() for name in topic.names}
    if key in by_name:
        return by_name[key]
    matches = {topic.id: topic for name, topic in by_name.items() if key and name.startswith(key)}
    if len(matches) == 1:
        return next(iter(matches.values()))
    if matches:
        raise StudytoolError(
            _("topic {query!r} is ambiguous: it could be {names}").format(query=query, names=", ".join(sorted(matches)))
        )
    near = difflib.get_close_matches(key, list(by_name), n=3, cutoff=_NEAR)
    if near:
        names = ", ".join(dict.fromkeys(by_name[name].id for name in near))
        raise StudytoolError(_("unknown topic {query!r}; did you mean {names}?").format(query=query, names=names))
    # Nothing is a plausible typo: a far "suggestion" would mislead, so point to the list instead.
    raise StudytoolError(_("unknown topic {query!r}; run 'studytool explain' for the list").format(query=query))


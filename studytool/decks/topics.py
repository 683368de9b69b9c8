"""Explain topics: what each part of the Transformer is, read from the bundled `topics.yaml`.

A topic carries the idea (Chinese paragraphs), its formulas, the common
mistakes, and optionally the problem generator (plus pinned example params)
whose variant `explain` computes live. Every card's `topic` is one of these ids.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from studytool.errors import StudytoolError
from studytool.i18n import LANGUAGES, _, language

if TYPE_CHECKING:
    from pathlib import Path

    from yaml import Node

_FIELDS = {"id", "title", "aliases", "group", "summary", "formulas", "mistakes", "generator", "example",
           "requires", "core"}


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
    requires: tuple[str, ...] = ()  # ids of the topics one must know first (the topic graph's edges)
    core: tuple[str, ...] = ()      # keys (deck/id) of the cards that ask its central skill: what dependents exercise

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
    requires = entry.get("requires") or []
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        raise StudytoolError(f"{where}: 'requires' must be a list of topic ids")
    core = entry.get("core") or []
    if not isinstance(core, list) or not all(isinstance(key, str) and "/" in key for key in core):
        raise StudytoolError(f"{where}: 'core' must be a list of card keys (deck/id)")
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
        requires=tuple(requires),
        core=tuple(core),
    )


@cache
def _topics() -> tuple[Topic, ...]:
    groups = group_titles()
    topics = tuple(_topic(entry, groups) for entry in _document()["topics"])
    names = _name_problems(topics)
    if names:
        raise StudytoolError(f"topics.yaml: {names[0][1]}")
    graph = graph_problems(topics)
    if graph:
        number, _index, message = graph[0]
        raise StudytoolError(f"topics.yaml: topic {topics[number].id!r} {message}")
    return topics


def _name_problems(topics: Sequence[Topic]) -> list[tuple[int, str]]:
    """Repeated ids, and names that two topics share: (index of the topic, message)."""
    problems = []
    seen: dict[str, str] = {}
    ids: set[str] = set()
    for number, topic in enumerate(topics):
        if topic.id in ids:
            problems.append((number, f"topic id {topic.id!r} appears twice"))
            continue
        ids.add(topic.id)
        for name in topic.names:
            key = normalize(name)
            if seen.setdefault(key, topic.id) != topic.id:
                problems.append((number, f"name {name!r} used by both {seen[key]!r} and {topic.id!r}"))
    return problems


# --- the topic graph: `requires` edges point from a topic to what must be known first ---


def graph_problems(topics: Sequence[Topic]) -> list[tuple[int, int, str]]:
    """Unknown or repeated ids in `requires`, and every cycle: (topic index, index in its requires, message).

    A cycle is reported once, at the edge that closes it, with the whole loop spelled out.
    """
    ids = {topic.id: number for number, topic in enumerate(topics)}
    problems = []
    hint = _Hints(ids)
    for number, topic in enumerate(topics):
        earlier: set[str] = set()
        for index, wanted in enumerate(topic.requires):
            if wanted not in ids:
                problems.append((number, index, _("requires unknown topic {id!r}{hint}").format(
                    id=wanted, hint=hint(wanted))))
            elif wanted in earlier:
                problems.append((number, index, _("requires {id!r} twice").format(id=wanted)))
            earlier.add(wanted)
    state = dict.fromkeys(ids, 0)   # 0 unvisited, 1 on the current path, 2 done
    for root in ids:
        if state[root] == 0:
            problems += _cycles_from(root, topics, ids, state)
    return problems


def _cycles_from(root: str, topics: Sequence[Topic], ids: dict[str, int], state: dict[str, int]):
    """Depth-first from `root` without recursion; an edge back into the current path closes a cycle."""
    def edges_of(topic_id: str):   # a repeated edge is reported as such, not as a second cycle
        first: dict[str, int] = {}
        for index, name in enumerate(topics[ids[topic_id]].requires):
            first.setdefault(name, index)
        return iter([(index, name) for name, index in first.items()])

    problems = []
    path, edges = [root], [edges_of(root)]
    state[root] = 1
    while path:
        step = next(edges[-1], None)
        if step is None:
            state[path.pop()] = 2
            edges.pop()
            continue
        index, wanted = step
        if wanted not in ids or state[wanted] == 2:
            continue
        if state[wanted] == 1:
            loop = " → ".join([path[-1], *path[path.index(wanted):]])
            problems.append((ids[path[-1]], index, _("requires {id!r}, which needs it in turn: {loop}").format(
                id=wanted, loop=loop)))
            continue
        state[wanted] = 1
        path.append(wanted)
        edges.append(edges_of(wanted))
    return problems


def core_problems(topics: Sequence[Topic], cards: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """`core` keys naming no card of `cards` (key -> topic), a card of another topic, or one twice:
    (topic index, index in its core, message). A topic's core card is what the topics built on it
    exercise (implicit review credits it), so it must be one of its own cards."""
    problems = []
    hint = _Hints(cards)
    for number, topic in enumerate(topics):
        earlier: set[str] = set()
        for index, key in enumerate(topic.core):
            if key in earlier:
                problems.append((number, index, _("names core card {key!r} twice").format(key=key)))
            elif key not in cards:
                problems.append((number, index, _("names unknown core card {key!r}{hint}").format(
                    key=key, hint=hint(key))))
            elif cards[key] != topic.id:
                problems.append((number, index, _("names core card {key!r}, a card of topic {other!r}").format(
                    key=key, other=cards[key])))
            earlier.add(key)
    return problems


class _Hints:
    """"; did you mean X?" for an unknown name, for the first `MAX_HINTS` of a file: difflib compares the name with
    every candidate, so a hint for each of 20,000 unknown names would be quadratic."""

    def __init__(self, candidates: Iterable[str]):
        self.candidates = list(candidates)
        self.left = MAX_HINTS

    def __call__(self, name: str) -> str:
        if self.left == 0:
            return ""
        self.left -= 1
        near = difflib.get_close_matches(name, self.candidates, n=1, cutoff=_NEAR)
        return _("; did you mean {name}?").format(name=near[0]) if near else ""


def prerequisites(topic_id: str) -> tuple[Topic, ...]:
    """The topics `topic_id` requires directly, in the order the file lists them."""
    by_id = {topic.id: topic for topic in _topics()}
    return tuple(by_id[wanted] for wanted in by_id[topic_id].requires)


def dependents(topic_id: str) -> tuple[Topic, ...]:
    """The topics that require `topic_id` directly (what builds on it), in file order."""
    return tuple(topic for topic in _topics() if topic_id in topic.requires)


def layers() -> list[list[Topic]]:
    """The graph in layers: layer 0 needs nothing, layer n needs something of layer n - 1 (and nothing later)."""
    depth: dict[str, int] = {}
    topics = _topics()
    while len(depth) < len(topics):   # the graph is acyclic (checked on load), so every pass places some topic
        for topic in topics:
            if topic.id not in depth and all(wanted in depth for wanted in topic.requires):
                depth[topic.id] = 1 + max((depth[wanted] for wanted in topic.requires), default=-1)
    return [[topic for topic in topics if depth[topic.id] == level] for level in range(max(depth.values()) + 1)]


def check_file(root: Node | None, name: str, cards: Mapping[str, str] | None = None) -> list[str]:
    """A topics file's problems as `FILE:LINE:COL: message` (`decks check`): fields, names, the graph,
    and (given `cards`, key -> topic) the core cards."""
    from yaml import MappingNode, SequenceNode

    from studytool.decks.fields import Bad, plain

    entries = _value(root, "topics") if isinstance(root, MappingNode) else None
    if not isinstance(entries, SequenceNode):
        return [f"{name}:1:1: " + _("a topics file is a mapping with 'groups' and a 'topics' list")]
    problems, topics, nodes = [], [], []
    groups = _value(root, "groups")
    try:
        groups = plain(groups) if isinstance(groups, MappingNode) else {}
    except Bad as error:
        problems.append(f"{_at(name, error.node or groups)}: {error}")
        groups = {}
    for node in entries.value:
        try:
            topics.append(_topic(plain(node) if isinstance(node, MappingNode) else {}, groups))
            nodes.append(node)
        except (StudytoolError, Bad) as error:
            where = getattr(error, "node", None) or node
            problems.append(f"{_at(name, where)}: {str(error).removeprefix('topics.yaml: ')}")
            known = _value(node, "id") if isinstance(node, MappingNode) else None
            if known is not None and isinstance(known.value, str):   # still a topic others may require
                topics.append(Topic(known.value, "", (), "", ""))
                nodes.append(node)
    problems += [f"{_at(name, nodes[number])}: {message}" for number, message in _name_problems(topics)]
    for number, index, message in sorted(graph_problems(topics)):
        requires = _value(nodes[number], "requires")
        problems.append(f"{_at(name, requires.value[index])}: " + _("topic {id!r} {message}").format(
            id=topics[number].id, message=message))
    for number, index, message in core_problems(topics, cards) if cards is not None else ():
        core = _value(nodes[number], "core")
        problems.append(f"{_at(name, core.value[index])}: " + _("topic {id!r} {message}").format(
            id=topics[number].id, message=message))
    return problems


def _value(node: Node, key: str) -> Node | None:
    return next((value for k, value in node.value if getattr(k, "value", None) == key), None)


def _at(name: str, node: Node) -> str:
    return f"{name}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"


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
MAX_HINTS = 10


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


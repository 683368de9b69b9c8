"""One vocabulary: the glossary's terms, and the drift `decks check` reports in the bundled decks and topics.

`bundled/glossary.yaml` names each term once: its Chinese (`zh`) and English (`en`) form, which of the
two the Chinese text writes (`use`), and the variants it must not write (`forbidden`). The form not
used may still stand as a gloss right after the used one, in full-width brackets: 填充掩码（padding mask）.

Only Chinese text is held to it (a text with a Chinese character in it): a card's question, answer,
statement, options, items, why and source, a deck's title and source, a topic's title, summary,
formulas and mistakes. Ids, generator names and topic aliases are names, not text. The same texts
are held to two rules of Chinese typesetting: no space between two Chinese characters or beside
full-width punctuation, and no full-width brackets inside full-width brackets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from studytool.i18n import _, is_chinese

if TYPE_CHECKING:
    from pathlib import Path

    from yaml import Node

USES = ("zh", "en")
_FIELDS = ("term", "zh", "en", "use", "forbidden")
# the fields of a deck, a card and a topic that hold text a learner reads
TEXT_FIELDS = frozenset({"title", "source", "q", "a", "statement", "opposite", "options", "items", "why",
                         "summary", "formulas", "mistakes"})
# a space between two words of Chinese (runs of 2+ characters: "<s> 我 爱 AI" and "我 是 一条 狗" are token
# sequences, one-character tokens spaced apart), or beside full-width punctuation (curly quotes aside: shared)
STRAY_SPACE = re.compile(r"(?<=[\u3400-\u9fff]{2}) +(?=[\u3400-\u9fff]{2})"
                         r"|(?<=[，。；：、！？（《]) +|[ \t]+(?=[，。；：、！？）》])")


@dataclass(frozen=True)
class Term:
    term: str
    zh: str
    en: str
    use: str                       # the form the text writes: "zh" or "en"
    forbidden: tuple[str, ...]

    @property
    def word(self) -> str:
        return self.zh if self.use == "zh" else self.en

    @property
    def avoided(self) -> tuple[str, ...]:
        """What the text must not write: the form not used (outside its gloss) and every forbidden variant."""
        return (self.en if self.use == "zh" else self.zh, *self.forbidden)

    @cached_property
    def glosses(self) -> re.Pattern[str]:
        """The two forms side by side, one glossing the other: 填充掩码（padding mask）, padding mask（填充掩码）."""
        zh, en = re.escape(self.zh), re.escape(self.en)
        return re.compile(f"{zh}（{en}）|{en}（{zh}）", re.IGNORECASE)

    @cached_property
    def variants(self) -> re.Pattern[str]:
        """The avoided words; a Latin one as a whole word (`stack` is not in `stacks`, `nn.TransformerStack`)."""
        def one(word: str) -> str:
            latin = word[:1].isascii() and word[:1].isalnum()
            return (r"(?<![\w.])" if latin else "") + re.escape(word) + (r"(?![\w])" if word[-1:].isascii() else "")
        return re.compile("|".join(one(word) for word in sorted(self.avoided, key=len, reverse=True)), re.IGNORECASE)


def bundled_glossary() -> Path:
    return files("studytool.decks").joinpath("bundled", "glossary.yaml")


def parse_terms(root: Node | None, name: str, problems: list[str]) -> list[Term]:
    """The glossary's terms; every problem appended as `FILE:LINE:COL: message`."""
    from yaml import MappingNode, ScalarNode, SequenceNode

    entries = _value(root, "terms") if isinstance(root, MappingNode) else None
    if not isinstance(entries, SequenceNode):
        problems.append(f"{name}:1:1: " + _("a glossary is a mapping with a 'terms' list"))
        return []
    terms: list[Term] = []
    seen: dict[str, str] = {}   # every form and variant -> the term that claims it
    for node in entries.value:
        if not isinstance(node, MappingNode):
            problems.append(f"{_at(name, node)}: " + _("a glossary term is a mapping of term, zh, en, use, forbidden"))
            continue
        fields = {key.value: value for key, value in node.value if isinstance(key, ScalarNode)}
        bad = [key for key in fields if key not in _FIELDS] + [key for key in _FIELDS if key not in fields]
        if bad:
            problems.append(f"{_at(name, node)}: " + _("a glossary term has exactly term, zh, en, use and forbidden "
                                                        "(check {fields})").format(fields=", ".join(bad)))
            continue
        texts = {key: fields[key].value for key in ("term", "zh", "en", "use")
                 if isinstance(fields[key], ScalarNode) and isinstance(fields[key].value, str)
                 and fields[key].value.strip()}
        forbidden = fields["forbidden"]
        variants = [item.value for item in getattr(forbidden, "value", ())
                    if isinstance(item, ScalarNode) and item.value.strip()]
        if len(texts) < 4 or not isinstance(forbidden, SequenceNode) or len(variants) != len(forbidden.value):
            problems.append(f"{_at(name, node)}: " + _("term, zh, en and use are words; forbidden is a list of words"))
            continue
        if texts["use"] not in USES:
            problems.append(f"{_at(name, fields['use'])}: " + _("use is zh or en, not {use!r}").format(use=texts["use"]))
            continue
        term = Term(texts["term"], texts["zh"], texts["en"], texts["use"], tuple(variants))
        words = [word.casefold() for word in (term.zh, term.en, *term.forbidden)]
        for word in dict.fromkeys(words):
            claimed = seen.setdefault(word, term.term)
            if claimed != term.term or words.count(word) > 1:   # another term's word, or a form also forbidden
                problems.append(f"{_at(name, node)}: " + _("{word!r} is claimed twice (terms {a} and {b})").format(
                    word=word, a=claimed, b=term.term))
        terms.append(term)
    return terms


@dataclass(frozen=True)
class _Text:
    text: str
    line: int     # 1-based, where the text (or, in a block scalar, its first line) is
    block: bool   # a literal or folded block: its lines are the file's lines after the indicator


def texts(root: Node | None) -> Iterator[_Text]:
    """Every text a learner reads in a deck or topics file's node graph, with where it starts."""
    from yaml import MappingNode, ScalarNode, SequenceNode

    def walk(node: Node, inside: bool) -> Iterator[_Text]:
        if isinstance(node, MappingNode):
            for key, value in node.value:
                yield from walk(value, isinstance(key, ScalarNode) and key.value in TEXT_FIELDS)
        elif isinstance(node, SequenceNode):
            for item in node.value:
                yield from walk(item, inside)
        elif inside and isinstance(node, ScalarNode) and isinstance(node.value, str):
            yield _Text(node.value, node.start_mark.line + 1, node.style in ("|", ">"))

    if root is not None:
        yield from walk(root, False)


def drift(text: _Text, terms: Sequence[Term], lines: Sequence[str], name: str) -> list[str]:
    """The vocabulary and typesetting problems of one text, as `FILE:LINE:COL: message`."""
    if not is_chinese(text.text):
        return []
    found: list[str] = []
    masked = text.text
    for term in terms:   # a gloss is the one place the other form may stand: hide it, keeping positions
        masked = term.glosses.sub(lambda m: "\0" * len(m.group()), masked)
    for term in terms:
        for match in term.variants.finditer(masked):
            found.append(f"{_where(text, match.start(), match.group(), lines, name)}: " + _(
                "{variant!r} drifts from the glossary: write {word!r} ({term}, glossary.yaml)").format(
                variant=match.group(), word=term.word, term=term.term))
    for match in STRAY_SPACE.finditer(text.text):
        context = text.text[max(0, match.start() - 4):match.end() + 4].replace("\n", " ")
        found.append(f"{_where(text, match.start(), context.strip(), lines, name)}: " + _(
            "stray space in Chinese text: {context!r} (no space between Chinese characters or beside full-width "
            "punctuation)").format(context=context))
    for index in nested_brackets(text.text):
        context = text.text[max(0, index - 8):index + 8].replace("\n", " ")
        snippet = text.text[index:index + 8].split("\n")[0]
        found.append(f"{_where(text, index, snippet, lines, name)}: " + _(
            "full-width brackets inside full-width brackets: {context!r} (use a comma, a dash or "
            "ASCII brackets inside)").format(context=context))
    return found


def nested_brackets(text: str) -> list[int]:
    """Where a full-width bracket opens inside another one: （按 nn.LayerNorm 的定义（不计 γ、β））."""
    depth, found = 0, []
    for index, char in enumerate(text):
        if char == "（":
            depth += 1
            if depth == 2:
                found.append(index)
        elif char == "）":
            depth = max(0, depth - 1)
    return found


def _where(text: _Text, start: int, seen: str, lines: Sequence[str], name: str) -> str:
    """FILE:LINE:COL of what starts at `start` of `text` and reads `seen`: a block's line counted from its
    indicator and its column from the line's indentation; a one-line scalar's from where the file has it
    (column 1 if the file writes it otherwise: escaped, or folded over lines)."""
    line_start = text.text.rfind("\n", 0, start) + 1
    line = text.line + text.text.count("\n", 0, start) + (1 if text.block else 0)
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.block:
        column = len(source) - len(source.lstrip(" ")) + start - line_start + 1
    else:
        before = text.text[line_start:start]
        column = source.find(before + seen) + len(before) + 1 if before + seen in source else 1
    return f"{name}:{line}:{column}"


def check_vocabulary(paths: Sequence[Path] = ()) -> list[str]:
    """`decks check`'s part on the vocabulary: the glossary's own problems, then drift in the bundled decks and
    topics (with `paths`, in those of them named there; a glossary.yaml among `paths` is checked and used)."""
    from studytool.decks.loader import bundled_sources, expand, read_yaml

    named = {os.path.realpath(str(path)) for path in expand(paths)} if paths else set()
    glossary = next((path for path in expand(paths) if path.name == "glossary.yaml"), None) if paths else None
    source = glossary or bundled_glossary()
    problems: list[str] = []
    root = read_yaml(source, str(source), problems)
    terms = parse_terms(root, str(source), problems) if not problems else []
    if problems:
        return problems
    content = [*bundled_sources(), files("studytool.decks").joinpath("bundled", "topics.yaml")]
    for target in content:
        if paths and os.path.realpath(str(target)) not in named:
            continue
        found: list[str] = []
        node = read_yaml(target, str(target), found)
        if found:
            continue   # the deck or topics check reports an unreadable file
        lines = target.read_text(encoding="utf-8").splitlines()
        for text in texts(node):
            problems += drift(text, terms, lines, str(target))
    if not paths:   # what the bundled generators write, too
        from studytool.decks.loader import scan

        problems += generated_drift(scan(bundled_sources()).decks)
    return problems


def generated_drift(decks: Sequence[Any], seeds: int = 3) -> list[str]:
    """`decks check`'s part on the generators' vocabulary: the words generated cards write (prompt, options, worked solution)
    at every level over a few seeds, against the bundled glossary, a line per card and word. (Their spacing is not
    checked: a tokenized sentence, `深度 学习 非常 强大`, is spaced on purpose.)"""
    from studytool.decks.loader import read_yaml
    from studytool.problems.levels import LEVELS

    problems: list[str] = []
    terms = parse_terms(read_yaml(bundled_glossary(), "glossary.yaml", problems), "glossary.yaml", problems)
    found: dict[tuple[str, str], str] = {}
    for card in (card for deck in decks for card in deck.cards if card.kind == "generated"):
        for level in LEVELS:
            for seed in range(seeds):
                variant = card.pose(seed, level)
                for text in (variant.prompt, *map(str, variant.options), *map(str, variant.solution)):
                    if not is_chinese(text):
                        continue
                    for term in terms:
                        masked = term.glosses.sub(lambda m: "\0" * len(m.group()), text)
                        for match in term.variants.finditer(masked):
                            found.setdefault((card.key, match.group()), _(
                                "{card} (level {level}, seed {seed}): {variant!r} drifts from the glossary: write "
                                "{word!r} ({term}, glossary.yaml)").format(
                                card=card.key, level=level, seed=seed, variant=match.group(), word=term.word,
                                term=term.term))
    return [*problems, *found.values()]


def _value(node: Node, key: str) -> Node | None:
    return next((value for k, value in node.value if getattr(k, "value", None) == key), None)


def _at(name: str, node: Node) -> str:
    return f"{name}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"

"""Deck files -> validated `Deck` objects, or every problem as `FILE:LINE:COL: card ID: message`.

Reading is defensive: a size limit, UTF-8 only, the safe (C) YAML loader, and
aliases bounded before anything is composed, so a deck never executes anything
and an alias bomb costs nothing. Files are composed into YAML nodes, which keep
their line and column, and validated from the nodes (`studytool.decks.validate`).

Decks come from three places, in this order: the bundled decks inside the
package, `$STUDYTOOL_HOME/decks/`, and each `--deck-path` (a file or a folder);
`studytool.decks.sources` says which files of a folder are decks.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path

from studytool.config import Settings
from studytool.decks.model import Deck
# where decks come from; bundled_sources and NOT_DECKS are read through this module by its users too
from studytool.decks.sources import NOT_DECKS, Scan, Source, bundled_sources, expand, installed_sources  # noqa: F401
from studytool.errors import StudytoolError, StudytoolWarning
from studytool.files import printable
from studytool.i18n import _

MAX_BYTES = 4 * 1024 * 1024      # twice a 10,000-card deck
MAX_ALIAS_NODES = 10_000         # nodes that aliases may add by expansion, all aliases together


class DeckError(StudytoolError):
    """Decks that failed to load; `problems` holds one `FILE:LINE:COL: ...` line each.

    The message is one line (the first problem and how many there are), since
    commands other than `decks check` report an error in one line.
    """

    def __init__(self, broken: Mapping[str, Sequence[str]]):
        self.broken = {name: list(problems) for name, problems in broken.items()}
        self.problems = [problem for problems in self.broken.values() for problem in problems]
        super().__init__(_summary(self.broken))


def _summary(broken: Mapping[str, Sequence[str]]) -> str:
    """'FILE: 10 problems in the deck (first: 4:1: ...); run ...' for the first broken file."""
    import shlex

    (name, problems), *others = broken.items()
    if len(problems) == 1 and not others:
        return problems[0]
    first = problems[0].removeprefix(f"{name}:").strip()
    head = problems[0] if len(problems) == 1 else _("{file}: {count} problems in the deck (first: {first})").format(
        file=name, count=len(problems), first=first)
    if others:
        advice = _("run 'studytool decks check' for every problem in {count} files").format(count=len(broken))
    else:
        advice = _("run 'studytool decks check {file}'").format(file=shlex.quote(name))
    return _("{problem}; {advice}").format(problem=head, advice=advice)


# --- reading ---

def scan(sources: Iterable[Source], taken: Mapping[str, str] | None = None, notes: Scan | None = None) -> Scan:
    """Read and validate every source; collect the decks and all problems of all files.

    `taken`: deck ids already in use elsewhere (id -> file), reported as duplicates too.
    `notes`: what `expand` found while listing folders; the result adds to it.
    """
    from studytool.decks.sources import is_bundled

    result = Scan() if notes is None else notes
    first_file = dict(taken or {})    # deck id -> file that defined it
    read: set[str] = set()            # real paths: a file named twice is read once
    bundled: dict[str, Deck] = {}     # deck id -> the bundled deck, which a learner's own copy replaces
    for source in sources:
        real = os.path.realpath(str(source))
        if real in read:
            continue
        read.add(real)
        name = printable(str(source), name=True)   # a file name may hold an ESC or a newline too
        problems: list[str] = []
        deck, id_mark = _read_deck(source, name, problems)
        if deck is not None and deck.deck in bundled and not is_bundled(source):   # the learner's edited copy
            result.decks.remove(bundled.pop(deck.deck))
            del first_file[deck.deck]
        if deck is not None and deck.deck in first_file:
            line, column = id_mark
            problems.append(f"{name}:{line}:{column}: " + _("deck id {deck!r} is already used by {file}").format(
                deck=deck.deck, file=first_file[deck.deck]))
        if problems:
            result.broken[name] = problems
        elif deck is not None:
            first_file[deck.deck] = name
            result.decks.append(deck)
            if is_bundled(source):
                bundled[deck.deck] = deck
    return result


def check_decks(settings: Settings, paths: Sequence[Path] = ()) -> Scan:
    """What `studytool decks check` reports: every installed deck, or the decks in `paths`.

    Decks in `paths` are checked against the installed decks' ids too, since
    they will be used next to them.
    """
    notes = Scan()
    if not paths:
        return scan(installed_sources(settings, notes), notes=notes)
    files = [path for path in expand(paths, notes) if path.name not in NOT_DECKS]   # topics: check_topic_files
    named = {os.path.realpath(path) for path in files}
    others = [source for source in installed_sources(settings) if os.path.realpath(str(source)) not in named]
    return scan(files, taken={deck.deck: deck.file for deck in scan(others).decks}, notes=notes)


def load_decks(settings: Settings) -> list[Deck]:
    """Every installed deck; `DeckError` listing every problem if any file is broken.

    Each skipped folder entry is a `StudytoolWarning` (the CLI shows each once, on one line).
    """
    notes = Scan()
    result = scan(installed_sources(settings, notes), notes=notes)
    for skipped in result.skipped:
        warnings.warn(StudytoolWarning(skipped))   # one place: the default filter shows each text once
    return _decks_or_raise(result)


def get_deck(settings: Settings, deck_id: str) -> Deck:
    """The installed deck `deck_id`; `StudytoolError` naming the decks there are."""
    decks = load_decks(settings)
    for deck in decks:
        if deck.deck == deck_id:
            return deck
    names = ", ".join(d.deck for d in decks)
    raise StudytoolError(_("unknown deck {deck!r}; decks: {decks}").format(deck=deck_id, decks=names))


def load_deck_file(path: Path) -> Deck:
    """One deck file; `DeckError` listing every problem in it."""
    return _decks_or_raise(scan([path]))[0]


def _decks_or_raise(result: Scan) -> list[Deck]:
    if result.broken:
        raise DeckError(result.broken)
    return result.decks


def _read_deck(source: Source, name: str, problems: list[str]) -> tuple[Deck | None, tuple[int, int]]:
    """One file's deck (None if it has problems, appended) and where its id is."""
    from studytool.decks import cache

    data = _read(source, name, problems)
    if data is None:
        return None, (1, 1)
    cached = cache.load(name, data)
    if cached is not None:
        return cached
    from studytool.decks.validate import validate_deck

    with cache.gc_paused():
        root = _compose(data, name, problems)
        deck, mark = validate_deck(root, name, problems) if not problems else (None, (1, 1))
        del root   # free the node graph now, before the collector resumes and would walk it
    if deck is not None and not problems:
        cache.store(name, data, (deck, mark))
    return deck, mark


def read_yaml(source: Source, name: str, problems: list[str]):
    """A YAML file's node graph, read as safely as a deck (size limit, UTF-8, bounded aliases); problems appended."""
    data = _read(source, name, problems)
    return None if data is None else _compose(data, name, problems)


def _compose(data: bytes, name: str, problems: list[str]):
    """The file's YAML node graph (None for an empty file), or problems appended and None."""
    import yaml

    try:
        if b"*" in data:   # only then can there be aliases to bound
            _bound_aliases(data, name, problems)
            if problems:
                return None
        return yaml.compose(data, Loader=_loader())
    except yaml.reader.ReaderError as error:   # a character YAML forbids; its position is a byte offset
        line, column = _line_column(data, error.position)
        problems.append(f"{name}:{line}:{column}: " + _("invalid YAML: {detail}").format(
            detail=f"{error.reason} (U+{error.character:04X})"))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        detail = f"{error.context}: {error.problem}" if error.context else error.problem
        problems.append(f"{name}:{mark.line + 1}:{mark.column + 1}: " + _("invalid YAML: {detail}").format(detail=detail))
    except yaml.YAMLError as error:
        problems.append(f"{name}:1:1: " + _("invalid YAML: {detail}").format(detail=error))
    except RecursionError:   # only PyYAML's pure-Python parser recurses; libyaml stops at depth 1000
        problems.append(f"{name}:1:1: " + _("invalid YAML: {detail}").format(detail=_("nested too deeply")))
    return None


def _read(source: Source, name: str, problems: list[str]) -> bytes | None:
    """The file's bytes if it is a regular file, small enough and UTF-8 (a BOM is dropped).

    A FIFO or device named as a deck is refused without waiting on it.
    """
    from studytool.files import NotRegular, read_regular

    try:
        if isinstance(source, Path):
            data = read_regular(source, MAX_BYTES)
        else:
            with source.open("rb") as stream:   # inside the installed package
                data = stream.read(MAX_BYTES + 1)
    except NotRegular as error:
        problems.append(f"{name}: " + _("not a deck file: {kind}").format(kind=error.strerror))
        return None
    except OSError as error:
        problems.append(f"{name}: " + _("cannot read the file: {reason}").format(reason=error.strerror or error))
        return None
    if len(data) > MAX_BYTES:
        problems.append(f"{name}:1:1: " + _("file is larger than {mib} MiB; split the deck").format(mib=MAX_BYTES // (1024 * 1024)))
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _line_column(data, error.start)
        problems.append(f"{name}:{line}:{column}: " + _("not UTF-8 text (byte {byte}); save the file as UTF-8").format(
            byte=f"0x{data[error.start]:02x}"))
        return None
    return data.removeprefix(b"\xef\xbb\xbf")


def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, len(data[start:offset].decode("utf-8", "replace")) + 1


@cache
def _loader() -> type:
    """The safe loader, libyaml's when PyYAML has it, with a quicker tag resolver.

    The composer asks the resolver for every scalar's type; most deck scalars
    are text whose first character cannot start a number, bool or null, and
    those are answered without trying the resolver's regular expressions.
    """
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    starts = base.yaml_implicit_resolvers   # first character -> the implicit types it may begin
    if None in starts:                       # a resolver for any first character: no shortcut
        return base

    class Loader(base):
        def resolve(self, kind, value, implicit):
            if kind is yaml.ScalarNode and implicit[0] and value and value[0] not in starts:
                return "tag:yaml.org,2002:str"
            return super().resolve(kind, value, implicit)

        def descend_resolver(self, current_node, current_index):
            pass   # no path resolvers are registered

        def ascend_resolver(self):
            pass

    return Loader


def _bound_aliases(data: bytes, name: str, problems: list[str]) -> None:
    """Refuse recursive aliases and aliases that would expand the file by more than MAX_ALIAS_NODES nodes.

    Works on the parser's events, counting for each anchor the size of its
    subtree as a tree; an alias adds that size. Linear in the file, whatever
    the aliases would expand to.
    """
    import yaml
    from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, ScalarEvent

    size: dict[str, int] = {}        # anchor -> nodes of its subtree, aliases expanded
    open_: list[list] = [[None, 0]]  # [anchor, nodes so far] for each open collection
    added = 0
    for event in yaml.parse(data, Loader=_loader()):
        if isinstance(event, CollectionStartEvent):
            open_.append([event.anchor, 1])
        elif isinstance(event, ScalarEvent):
            open_[-1][1] += 1
            if event.anchor is not None:
                size[event.anchor] = 1
        elif isinstance(event, CollectionEndEvent):
            anchor, nodes = open_.pop()
            open_[-1][1] += nodes
            if anchor is not None:
                size[anchor] = nodes
        elif isinstance(event, AliasEvent):
            mark = event.start_mark
            where = f"{name}:{mark.line + 1}:{mark.column + 1}"
            if any(anchor == event.anchor for anchor, _ in open_[1:]):
                problems.append(f"{where}: " + _("recursive alias *{anchor} (it refers to itself)").format(anchor=event.anchor))
                return
            nodes = size.get(event.anchor, 1)   # an undefined alias is reported by the composer
            added += nodes
            if added > MAX_ALIAS_NODES:
                problems.append(f"{where}: " + _("aliases expand to more than {n} nodes (an alias bomb?); refused").format(
                    n=MAX_ALIAS_NODES))
                return
            open_[-1][1] += nodes


def check_topic_files(paths: Sequence[Path] = ()) -> list[str]:
    """`decks check`'s part on topics: the bundled topics file, or each file named topics.yaml among `paths`.

    Core cards are checked against the bundled decks' cards and those of the deck files in `paths`.
    """
    from importlib.resources import files

    from studytool.decks.topics import check_file

    sources = [path for path in paths if path.name == "topics.yaml"] if paths else [
        files("studytool.decks").joinpath("bundled", "topics.yaml")]
    if not sources:
        return []
    decks = scan([*bundled_sources(), *(path for path in expand(paths) if path.name not in NOT_DECKS)]).decks
    cards = {card.key: card.topic for deck in decks for card in deck.cards}
    problems: list[str] = []
    for source in sources:
        found: list[str] = []
        root = read_yaml(source, str(source), found)
        problems += found or check_file(root, str(source), cards)
    return problems

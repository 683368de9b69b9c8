"""A cache of validated decks, so a session does not parse YAML it parsed before.

Reading and validating the bundled decks costs more than everything else
before the first card (PyYAML, the validator, composing the nodes); the
validated cards as JSON load in a fraction of that. An entry is keyed by the
file's name and bytes and by everything validation depends on (the studytool
version, the topics file and the validating code), so any change misses the
cache. Only valid decks are stored; a problem is always found afresh.

The cache folder may be writable by others (a synced folder), so an entry is
data only, never code: JSON, read from a regular file, checked field by field
and rebuilt through the model's own constructors. Nor can an entry change what
is taught (an answer key flipped in the JSON): each entry carries a keyed
BLAKE2b MAC of its bytes, with a random key of this install stored 0600 in the
data folder (`cache-key` beside the progress database, not in the cache
folder), so only this install's own entries are read; the file names are keyed
too, so they cannot be predicted. An entry that is foreign, damaged, of another
format or for another file, or whose text holds control characters the
validator would refuse, is ignored (the deck is validated afresh and the entry
rewritten). The cache is an optimisation only: an entry that cannot be read or
written is ignored too, and without a key (a data folder that cannot be
written) nothing is cached.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import json
import math
import os
import re
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, get_args

from studytool import __version__
from studytool.decks.model import CardKind, Card, Deck

Entry = tuple[Deck, tuple[int, int]]   # the deck and where its id is (for duplicate-id messages)

FORMAT = 3                             # 1 was a pickle, 2 had no MAC; entries of another format are never read
KEY_FILE = "cache-key"                 # in the data folder: 32 random bytes, hex
MAC_BYTES = 32
MAX_ENTRY_BYTES = 64 * 1024 * 1024     # far above a 4 MiB deck's entry; bounds what a planted file costs
_PACKAGE = Path(__file__).resolve().parent.parent
_VALIDATION_INPUTS = ("decks/validate.py", "decks/kinds.py", "decks/fields.py", "decks/model.py", "decks/cache.py",
                      "decks/bundled/topics.yaml")
_GENERATOR_INPUTS = "problems/*.py"    # each family module declares its generators' parameters
_KINDS = frozenset(get_args(CardKind))
# In the entry's UTF-8 bytes: an escaped C0/C1 control other than \n and \t or a lone surrogate, a raw C1
# control, or DEL. Each pattern starts with a literal, so a scan of megabytes takes a millisecond or two.
# A match may be a false alarm (an escaped backslash before "u0001"); that only costs a fresh validation.
_SUSPECT = (re.compile(rb"\\(?:u00(?:[01]|7f|8|9)|[bfr]|ud[89a-f])", re.IGNORECASE), re.compile(rb"\xc2[\x80-\x9f]"),
            re.compile(rb"\x7f"))


def cache_dir() -> Path:
    """Where the cache lives: `studytool.config.Settings.cache_dir`."""
    from studytool.config import Settings

    return Settings().cache_dir


@cache
def _salt() -> bytes:
    stamps = []
    generators = sorted(str(path.relative_to(_PACKAGE)) for path in _PACKAGE.glob(_GENERATOR_INPUTS))
    for relative in (*_VALIDATION_INPUTS, *generators):
        try:
            stamps.append(f"{relative}:{os.stat(_PACKAGE / relative).st_mtime_ns}")
        except OSError:
            stamps.append(f"{relative}:-")
    return f"{__version__}|{FORMAT}|{'|'.join(stamps)}".encode()


def _key() -> bytes | None:
    """This install's key (made on first use, 0600); None if it can be neither read nor made."""
    from studytool.config import Settings

    return _key_at(Settings().home / KEY_FILE)


@cache
def _key_at(path: Path) -> bytes | None:
    from studytool.files import read_regular

    for _attempt in range(2):   # missing: made, then read (perhaps another process's, linked first)
        try:
            text = read_regular(path, 200, follow=False).decode("ascii").strip()
            key = bytes.fromhex(text)
            return key if len(key) == 32 else None
        except FileNotFoundError:
            _make_key(path)
        except (OSError, ValueError):   # a link, a FIFO, not ours: no cache rather than a key others chose
            return None
    return None


def _make_key(path: Path) -> None:
    """Write a new key; a second process making one at the same moment keeps whichever was linked first."""
    import secrets
    import tempfile

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")   # 0600
        try:
            with open(handle, "w", encoding="ascii") as file:
                file.write(secrets.token_hex(32) + "\n")
            os.link(name, path)   # never replaces a key already there
        finally:
            os.unlink(name)
    except OSError:
        pass


def _digest(name: str, data: bytes) -> str:
    return hashlib.blake2b(b"\0".join((_salt(), name.encode(), data)), digest_size=20, key=_key() or b"").hexdigest()


def _mac(key: bytes, text: bytes) -> bytes:
    return hashlib.blake2b(text, digest_size=MAC_BYTES, key=key, person=b"studytool-deck").digest()


def _path(digest: str) -> Path:
    return cache_dir() / "decks" / f"{digest}.json"


def load(name: str, data: bytes) -> Entry | None:
    """The cached deck of this file's bytes, or None (missing, foreign, damaged or suspect)."""
    from studytool.files import read_regular

    key = _key()
    if key is None:
        return None
    digest = _digest(name, data)
    try:
        signed = read_regular(_path(digest), MAX_ENTRY_BYTES, follow=False)
        mac, raw = signed[:MAC_BYTES * 2], signed[MAC_BYTES * 2 + 1:]
        if len(signed) > MAX_ENTRY_BYTES or not hmac.compare_digest(mac, _mac(key, raw).hex().encode()):
            return None   # not written by this install, or changed since
        if any(pattern.search(raw) for pattern in _SUSPECT):
            return None
        with gc_paused():   # as for composing: the collector would walk the fresh, acyclic containers
            doc = json.loads(raw.decode("utf-8"), parse_float=_finite, parse_constant=_not_a_number)
            return _entry(doc, name, digest)
    except (OSError, ValueError, TypeError, KeyError, RecursionError):   # missing or not ours: validate afresh
        return None


def _finite(text: str) -> float:
    """JSON reads 1e400 as inf; the validator never lets one through, so neither does the cache."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _not_a_number(text: str) -> float:
    raise ValueError(text)   # NaN, Infinity: never written by `store`


def _entry(doc: Any, name: str, digest: str) -> Entry | None:
    """Rebuild the entry through the model's constructors; None at the first field that is not as written."""
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("key") == digest):
        return None
    deck, mark = doc["deck"], doc["mark"]
    strings = ("deck", "title", "source", "file")
    if not (isinstance(deck, dict) and all(isinstance(deck.get(k), str) for k in strings) and deck["file"] == name
            and isinstance(deck.get("cards"), list) and _is_mark(mark) and _is_ids(deck.get("formerly"))):
        return None
    cards = [_card(card, deck["deck"], name) for card in deck["cards"]]
    if not cards or None in cards:
        return None
    return Deck(deck=deck["deck"], title=deck["title"], source=deck["source"], cards=tuple(cards), file=name,
                formerly=tuple(deck["formerly"])), tuple(mark)


def _is_ids(ids: Any) -> bool:
    return type(ids) is list and all(type(i) is str for i in ids)


def _is_mark(mark: Any) -> bool:
    return isinstance(mark, list) and len(mark) == 2 and all(type(n) is int and n > 0 for n in mark)


def _card(card: Any, deck: str, name: str) -> Card | None:
    # Plain type() checks and one get per field: a 10,000-card entry runs this 10,000 times.
    if type(card) is not dict:
        return None
    get = card.get
    kind, id_, topic, source, why, tags, body, line, formerly = (
        get("kind"), get("id"), get("topic"), get("source"), get("why"), get("tags"), get("body"), get("line"),
        get("formerly"))
    if (get("deck") != deck or get("file") != name or kind not in _KINDS or type(id_) is not str
            or type(topic) is not str or type(source) is not str or (why is not None and type(why) is not str)
            or type(line) is not int or not _is_ids(tags) or not _is_ids(formerly) or type(body) is not dict
            or not _body_ok(kind, body)):
        return None
    return Card(deck=deck, id=id_, kind=kind, topic=topic, tags=tuple(tags), source=source, why=why,
                body=body, file=name, line=line, formerly=tuple(formerly))


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def _texts(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


# The types posing relies on, by field (answer by kind): a planted entry of the right shape but, say, a vector
# answer of text would fail only when shown. Fields not listed are taken as written.
_FIELDS = {"q": str, "a": str, "statement": str, "opposite": str, "generator": str, "params": dict, "example": dict,
           "options": _texts, "items": _texts, "tolerance": _number}
_ANSWERS = {
    "number": _number,
    "vector": lambda v: type(v) is list and all(_number(x) for x in v),
    "shape": lambda v: type(v) is list and all(type(x) is int for x in v),
    "truefalse": lambda v: type(v) is bool,
    "choice": lambda v: type(v) is str or _texts(v),
}


def _body_ok(kind: str, body: dict[str, Any]) -> bool:
    for field, value in body.items():
        want = _ANSWERS.get(kind) if field == "answer" else _FIELDS.get(field)
        if want is None or type(value) is want:
            continue
        if type(want) is type or not want(value):   # a type that did not match, or a check that failed
            return False
    return True


def _document(name: str, digest: str, entry: Entry) -> dict[str, Any]:
    deck, mark = entry
    cards = [{"deck": c.deck, "id": c.id, "kind": c.kind, "topic": c.topic, "tags": list(c.tags), "source": c.source,
              "why": c.why, "body": c.body, "file": c.file, "line": c.line, "formerly": list(c.formerly)}
             for c in deck.cards]
    return {"format": FORMAT, "key": digest, "mark": list(mark),
            "deck": {"deck": deck.deck, "title": deck.title, "source": deck.source, "file": deck.file,
                     "formerly": list(deck.formerly), "cards": cards}}


def store(name: str, data: bytes, entry: Entry) -> None:
    """Write the entry (folders 0700, the file 0600); readers see a whole entry or none."""
    from studytool.files import write_atomic

    key = _key()
    if key is None:
        return
    digest = _digest(name, data)
    path = _path(digest)
    try:
        text = json.dumps(_document(name, digest, entry), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        raw = text.encode("utf-8")
        signed = _mac(key, raw).hex().encode() + b"\n" + raw
        path.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        write_atomic(path, lambda stream: stream.write(signed), mode=0o600)
    except (OSError, ValueError, TypeError):   # a read-only or full disk, or a value JSON cannot hold: no entry
        pass


@contextmanager
def gc_paused():
    """No cyclic garbage collection while building many acyclic containers.

    Composing a node graph allocates a few hundred thousand, and the collector's
    passes over them would take three quarters of the time; a sync reading
    100,000 journal events (`study/sync.py`), half.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

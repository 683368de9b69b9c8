"""What a line of a journal holds: one event, as JSON, checked on reading.

A line holds the journal schema, a unique event id (`DEVICE-SEQ`), the device, its sequence number, the
time, the event's kind, the card it is about (or null), its body, and a checksum of all of that. A line that
a sync program tore in mid-transfer or that was damaged is reported and read again next time; a line from a
newer schema stops the reading of that journal (`sync.py`). Where the lines are is `journal.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Annotated, Any, Literal, NamedTuple, Optional, Union

import msgspec
from msgspec import Meta, Struct

from studytool.i18n import _

SCHEMA = 2                  # 2: an answer carries its memo (`prior`, `after`, `memo`: see `sync.py`)

# A line as this version writes it, field by field: msgspec checks a line against these types as it reads it
# (in C: a sync reads 100,000 lines), so a crafted line with a right checksum gets no further than a torn one.
# What types cannot say (a time that exists, a setting studytool knows) `arrivals._valid` asks; a memo is taken only
# where it names a schedule the replay reached and a result of the form `sync._text` writes (`sync._walk`).
_ID = "[a-z0-9][a-z0-9-]{0,99}"   # a deck's or card's id, as decks/fields.py allows one
CARD = re.compile(f"{_ID}/{_ID}")   # asked by `arrivals._valid` once for each card (a type's pattern: every line)
_Time = Annotated[str, Meta(min_length=27, max_length=27)]   # as `records.format_time` writes one
_Binary = Annotated[int, Meta(ge=0, le=1)]
_Integer = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]   # what SQLite stores as an integer
_Text = Optional[Annotated[str, Meta(max_length=400)]]


class Answer(Struct, forbid_unknown_fields=True):
    card: str
    topic: Optional[Annotated[str, Meta(max_length=200)]]
    time: str
    mode: Literal["quiz", "review", "implicit"]
    rating: Annotated[int, Meta(ge=1, le=4)]
    correct: _Binary
    answer: Annotated[str, Meta(max_length=100_000)]
    seed: Optional[_Integer]
    params: dict[str, Any]
    duration_ms: Annotated[int, Meta(ge=0, le=2**63 - 1)]
    prior: _Text = None   # the memo (schema 2): the schedule before the answer, as its `prior` holds one,
    after: _Text = None   # the one it left,
    memo: _Text = None    # and what that was worked out under


class Retract(Struct, forbid_unknown_fields=True):
    event: Annotated[str, Meta(max_length=100)]


class Flags(Struct, forbid_unknown_fields=True):
    suspended: _Binary
    buried_until: Optional[_Time]
    leech: _Binary
    reset_at: Optional[_Time]
    flag: Annotated[int, Meta(ge=0, le=7)]


class Setting(Struct, forbid_unknown_fields=True):
    name: Annotated[str, Meta(max_length=200)]
    value: Optional[Annotated[str, Meta(max_length=10_000)]]


class _Line(Struct, tag_field="kind", forbid_unknown_fields=True):
    v: Literal[1, 2]
    id: str
    device: str
    seq: Annotated[int, Meta(ge=1, le=2**63 - 1)]
    time: _Time
    card: Optional[Annotated[str, Meta(max_length=201)]]
    sum: str


class _AnswerLine(_Line, tag="answer"):
    body: Answer


class _RetractLine(_Line, tag="retract"):
    body: Retract


class _FlagsLine(_Line, tag="flags"):
    body: Flags


class _SettingLine(_Line, tag="setting"):
    body: Setting


Body = Union[Answer, Retract, Flags, Setting]
_LINE = msgspec.json.Decoder(Union[_AnswerLine, _RetractLine, _FlagsLine, _SettingLine])
_BODIES = {"answer": Answer, "retract": Retract, "flags": Flags, "setting": Setting}
KINDS = tuple(_BODIES)


class Event(NamedTuple):   # a tuple: a sync reads 100,000 of them
    event: str
    device: str
    seq: int
    time: str                    # stored-time text (UTC), as the progress database writes it
    kind: str
    card: str | None
    body: Body


def _rows_of(body: type) -> Any:
    return list[tuple[str, str, int, str, str, Optional[str], body]]   # an Event with that body


_PACKED = msgspec.msgpack.Decoder(tuple[bytes, tuple[_rows_of(Answer), _rows_of(Retract), _rows_of(Flags),
                                                     _rows_of(Setting)], Any])


def pack(found: list[Event], extra: Any) -> bytes:
    """Events read by another process, and `extra` (plain values), as bytes for `unpack`: each kind apart (a body's
    type is known by its place), with the order of their kinds."""
    kinds: dict[str, list[Event]] = {kind: [] for kind in KINDS}
    for event in found:
        kinds[event.kind].append(event)
    order = bytes(KINDS.index(event.kind) for event in found)
    return msgspec.msgpack.encode((order, tuple(kinds.values()), extra))


def unpack(data: bytes) -> tuple[list[Event], Any]:
    """The events `pack` was given, in their order, and its `extra`; ValueError if `data` is not what it made."""
    order, groups, extra = _PACKED.decode(data)
    rows = [iter(group) for group in groups]
    try:
        return [Event(*next(rows[kind])) for kind in order], extra
    except (IndexError, StopIteration):
        raise ValueError("not what pack made") from None


def body_of(kind: str, found: dict[str, Any]) -> Body:
    """An event's body from its stored JSON (this home's own events, kept to write its journal again)."""
    return msgspec.convert(found, _BODIES[kind])


class Unreadable(ValueError):
    """A line that is not a whole, intact event of this device (the reason says which)."""


class Newer(ValueError):
    """A line written by a newer studytool: its journal is not read further."""


def _checksum(document: dict[str, Any]) -> str:
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _signed(line: bytes, found: str) -> bool:
    """Whether `found` is the checksum of the line's document. A line as `line_of` writes it is that document's
    text with the `sum` member added (the last member but two: keys are sorted, `body` first), so its bytes
    without that member are hashed as they lie; any other spelling of the same document is put in that form first."""
    at, end = line.rfind(b',"sum":"'), len(found) + 9   # 9: the member's bytes besides `found`
    if at >= 0 and line[at + 8:at + end - 1] == found.encode() and line[at + end - 1] == 0x22:   # its closing quote
        text = memoryview(line)
        digest = hashlib.sha256(text[:at])
        digest.update(text[at + end:])
        if digest.hexdigest()[:16] == found:
            return True
    document = json.loads(line)
    return document.pop("sum", None) == found == _checksum(document)


def line_of(event: Event, schema: int = SCHEMA) -> bytes:
    """The event's line (`schema`: as that version of the journal wrote it, for reading old journals)."""
    body = msgspec.structs.asdict(event.body)
    if schema == 1 and event.kind == "answer":
        body = {name: value for name, value in body.items() if name not in ("prior", "after", "memo")}
    document = {"v": schema, "id": event.event, "device": event.device, "seq": event.seq, "time": event.time,
                "kind": event.kind, "card": event.card, "body": body}
    document["sum"] = _checksum(document)
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def event_of(line: bytes, device: str) -> Event:
    """The event on one line of `device`'s journal; `Unreadable` or `Newer` when it is not one."""
    try:
        found = _LINE.decode(line)
    except msgspec.DecodeError:
        raise _why_not(line) from None
    if not _signed(line, found.sum):
        raise Unreadable(_("checksum does not match"))
    if found.device != device or found.id != f"{device}-{found.seq}":
        raise Unreadable(_("not an event of this device"))
    return Event(found.id, device, found.seq, found.time, found.__struct_config__.tag, found.card, found.body)


def _why_not(line: bytes) -> ValueError:
    """Why a line is not an event of this version, in a few words (or `Newer`)."""
    try:
        document = json.loads(line)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return Unreadable(_("not a JSON line"))
    if type(document) is not dict:
        return Unreadable(_("not a JSON object"))
    version = document.get("v")
    if type(version) is int and version > SCHEMA:
        return Newer(str(version))
    if type(document.get("sum")) is not str or not _signed(line, document["sum"]):
        return Unreadable(_("checksum does not match"))
    return Unreadable(_("not an event of this version"))

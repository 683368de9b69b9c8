"""A device's journal in a sync folder: one JSON line per event, appended, each line checked on reading.

A line holds the journal schema, a unique event id (`DEVICE-SEQ`), the device, its sequence number, the
time, the event's kind, the card it is about (or null), its body, and a checksum of all of that. Only the
device that owns a journal writes to it; every other device only reads it, from where it last stopped.
A line that a sync program tore in mid-transfer or that was damaged is reported and read again next
time; a line from a newer schema stops the reading of that journal.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studytool.i18n import _

SCHEMA = 1
KINDS = ("answer", "retract", "flags", "setting")
MAX_LINE = 1 << 20          # bytes: an answer line is a few hundred; anything longer is not ours
DEVICE = re.compile(r"^[0-9a-f]{16}$")
SUFFIX = ".jsonl"


@dataclass(frozen=True)
class Event:
    event: str
    device: str
    seq: int
    time: str                    # stored-time text (UTC), as the progress database writes it
    kind: str
    card: str | None
    body: dict[str, Any]


class Unreadable(ValueError):
    """A line that is not a whole, intact event of this device (the reason says which)."""


class Newer(ValueError):
    """A line written by a newer studytool: its journal is not read further."""


def _checksum(document: dict[str, Any]) -> str:
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def line_of(event: Event) -> bytes:
    document = {"v": SCHEMA, "id": event.event, "device": event.device, "seq": event.seq, "time": event.time,
                "kind": event.kind, "card": event.card, "body": event.body}
    document["sum"] = _checksum(document)
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def event_of(line: bytes, device: str) -> Event:
    """The event on one line of `device`'s journal; `Unreadable` or `Newer` when it is not one."""
    try:
        document = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Unreadable(_("not a JSON line")) from None
    if not isinstance(document, dict):
        raise Unreadable(_("not a JSON object"))
    version = document.get("v")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA:
        raise Newer(str(version))
    found = document.pop("sum", None)
    if version != SCHEMA or found != _checksum(document):
        raise Unreadable(_("checksum does not match"))
    seq, kind, card, body = document.get("seq"), document.get("kind"), document.get("card"), document.get("body")
    if (document.get("device") != device or not isinstance(seq, int) or isinstance(seq, bool) or seq < 1
            or document.get("id") != f"{device}-{seq}" or kind not in KINDS or not isinstance(body, dict)
            or not isinstance(document.get("time"), str) or not (card is None or isinstance(card, str))):
        raise Unreadable(_("not an event of this device"))
    return Event(document["id"], device, seq, document["time"], kind, card, body)


def path_of(folder: Path, device: str) -> Path:
    return folder / f"{device}{SUFFIX}"


def devices_in(folder: Path) -> list[str]:
    """The devices with a journal in `folder` (other files are not ours and are left alone)."""
    return sorted(entry.name[: -len(SUFFIX)] for entry in os.scandir(folder)
                  if entry.name.endswith(SUFFIX) and DEVICE.match(entry.name[: -len(SUFFIX)]) and entry.is_file())


@dataclass(frozen=True)
class Line:
    number: int          # 1-based, in the file
    start: int           # byte offset where it starts
    end: int             # byte offset just past its newline
    text: bytes | None   # None: torn (no newline at the end of the file) or longer than MAX_LINE


def lines_from(path: Path, offset: int, number: int) -> Iterator[Line]:
    """The lines of `path` from byte `offset` on (`number`: the line there), in order, without reading a line
    of more than MAX_LINE into memory."""
    with open(path, "rb") as file:
        file.seek(offset)
        start = offset
        while True:
            text = file.readline(MAX_LINE + 1)
            if not text:
                return
            if not text.endswith(b"\n"):   # torn, or too long: skip to its end without holding it
                while text and not text.endswith(b"\n"):
                    text = file.readline(MAX_LINE + 1)
                end = file.tell()
                yield Line(number, start, end, None)
            else:
                end = start + len(text)
                yield Line(number, start, end, text)
            start, number = file.tell(), number + 1


def append(path: Path, lines: list[bytes]) -> int:
    """Append whole lines in one write and flush them to disk; the file's new size."""
    with open(path, "ab") as file:
        file.write(b"".join(lines))
        file.flush()
        os.fsync(file.fileno())
        return file.tell()


def rewrite(path: Path, lines: list[bytes]) -> int:
    """Write the whole journal anew (it was deleted or cut short), atomically: a reader sees old or new."""
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "wb") as file:
        file.write(b"".join(lines))
        file.flush()
        os.fsync(file.fileno())
        size = file.tell()
    os.replace(temporary, path)
    return size

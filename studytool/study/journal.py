"""A device's journal in a sync folder, as files: where journals are, their lines read a block at a time from
where reading stopped, and lines appended (or the whole journal written again). What a line holds is `events.py`.

Only the device that owns a journal writes to it; every other device only reads it, from where it last stopped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

MAX_LINE = 1 << 20          # bytes: an answer line is a few hundred; anything longer is not ours
BLOCK = 1 << 20             # bytes read at a time
DEVICE = re.compile(r"^[0-9a-f]{16}$")
SUFFIX = ".jsonl"


def path_of(folder: Path, device: str) -> Path:
    return folder / f"{device}{SUFFIX}"


def devices_in(folder: Path) -> list[str]:
    """The devices with a journal in `folder` (other files are not ours and are left alone)."""
    return sorted(entry.name[: -len(SUFFIX)] for entry in os.scandir(folder)
                  if entry.name.endswith(SUFFIX) and DEVICE.match(entry.name[: -len(SUFFIX)]) and entry.is_file())


class Line(NamedTuple):
    number: int          # 1-based, in the file
    start: int           # byte offset where it starts
    end: int             # byte offset just past its newline
    text: bytes | None   # without its newline; None: torn (no newline at the end of the file) or longer than MAX_LINE


def lines_from(path: Path, offset: int, number: int, stop: int | None = None) -> Iterator[Line]:
    """The lines of `path` from byte `offset` on (`number`: the line there) to its end or to byte `stop` (a line's
    start), in order, read a block at a time and never holding more of a line than MAX_LINE."""
    with open(path, "rb") as file:
        file.seek(offset)
        start = offset
        seen, carried, long = 0, b"", False   # the line being read: its length so far, its bytes, too long to hold
        while block := file.read(BLOCK if stop is None else min(BLOCK, stop - file.tell())):
            *ended, rest = block.split(b"\n")
            if ended and seen:   # the line the last block left unfinished ends here
                seen += len(ended[0])
                text = None if long or seen > MAX_LINE else carried + ended[0]
                yield Line(number, start, start + seen + 1, text)
                start, number, seen, carried, long = start + seen + 1, number + 1, 0, b"", False
                del ended[0]
            for piece in ended:   # whole in this block
                end = start + len(piece) + 1
                yield Line(number, start, end, piece if len(piece) <= MAX_LINE else None)
                start, number = end, number + 1
            seen += len(rest)
            long = long or seen > MAX_LINE
            carried = b"" if long else carried + rest
        if seen:   # torn: no newline at the end of the file
            yield Line(number, start, start + seen, None)


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

"""Reading and writing files so that neither a hostile path nor a crash can hurt.

`read_regular` opens only regular files: a FIFO, a device, a folder or (with
`follow=False`) a symbolic link is refused without blocking, and the read is
bounded. `write_atomic` writes a whole new file beside the target and moves it
into place with `os.replace`, so a kill or a full disk mid-write leaves the old
file as it was.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO


# Bidirectional marks, embeddings, overrides and isolates reorder the text around them on screen ("Big \u202eevil"
# shows as "Big live"), and the zero-width space, word joiner and U+FEFF hide inside words: a regex class of them.
# The zero-width non-joiner and joiner (U+200C, U+200D) are not among them: Persian words and emoji need them.
REORDERING = "\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
# C0 and C1 controls, DEL, and lone surrogates (bytes that were not UTF-8, as os.listdir and stdin decode them)
_UNPRINTABLE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{REORDERING}]")
_UNPRINTABLE_IN_NAMES = re.compile(f"[\x00-\x1f\x7f-\x9f\ud800-\udfff{REORDERING}]")


def printable(text: str, *, name: bool = False) -> str:
    """Text as it may be printed: controls (ESC, BEL, C1 ...), lone surrogates and the `REORDERING` characters as
    `\\x1b`/`\\udcff`/`\\u202e` escapes, so that a typed answer or a file name never drives the terminal or
    reorders what is shown. In a `name` (a path in a one-line message)
    newline and tab are escaped too; in text they are kept."""
    pattern = _UNPRINTABLE_IN_NAMES if name else _UNPRINTABLE
    return pattern.sub(lambda found: f"\\x{ord(found.group()):02x}" if ord(found.group()) < 0x100
                       else f"\\u{ord(found.group()):04x}", text)


def json_printable(document: str) -> str:
    """A JSON document as it may be printed: the characters `printable` escapes on screen (C1 controls, DEL, lone
    surrogates, `REORDERING`; JSON escapes C0 itself) as JSON's own `\\uXXXX`, so a parser reads the same data."""
    return _UNPRINTABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", document)


class NotRegular(OSError):
    """The path exists but is not a regular file (strerror says what it is)."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words for messages."""
    from studytool.i18n import _

    if stat.S_ISDIR(mode):
        return _("a folder")
    if stat.S_ISFIFO(mode):
        return _("a named pipe (FIFO)")
    if stat.S_ISLNK(mode):
        return _("a symbolic link")
    if stat.S_ISSOCK(mode):
        return _("a socket")
    return _("a device")


def read_regular(path: str | os.PathLike, limit: int, *, follow: bool = True) -> bytes:
    """Up to `limit + 1` bytes of the regular file at `path` (the caller checks the size).

    O_NONBLOCK makes opening a FIFO return at once instead of waiting for a
    writer; the fstat after opening then refuses it, whatever the path named
    before (no race between a check and the open).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow:
            raise NotRegular(errno.ELOOP, kind_of(stat.S_IFLNK), str(path)) from None
        raise
    with open(fd, "rb", closefd=True) as stream:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(errno.EINVAL, kind_of(mode), str(path))
        os.set_blocking(fd, True)
        return stream.read(limit + 1)


def write_atomic(path: Path, write: Callable[[BinaryIO], None], *, mode: int = 0o644) -> None:
    """Call `write` on a new temporary file in `path`'s folder, flush it to disk, then replace `path` with it.

    On any error (including KeyboardInterrupt) the temporary file is removed and `path` is untouched.
    """
    import tempfile

    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with open(fd, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current

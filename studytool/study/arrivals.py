"""What another device's journal brings: its lines from where reading stopped, each checked (`events.py` reads a
line; here what a line's types cannot say), a long stretch read in two processes.

A line that is torn, damaged or not an event of this version is reported with its file and line and skipped, and
reading resumes before it next time; a line of a newer schema stops the reading of that journal. A new computer
reads a whole history at its first sync (100,000 answers are 78 MB): then a forked process reads and checks the
second half of what is new while this one reads the first, and hands its events back packed (`events.pack`) in
memory the two share. Where there is no `fork`, or the child fails, this process reads it all.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from studytool.config import CLOCK_YEARS
from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study import journal
from studytool.study.records import parse_time

if TYPE_CHECKING:
    from studytool.study.events import Event

SPLIT = 8 << 20   # bytes: a longer stretch to read is read in two processes (a fork and its hand-back cost ~0.05 s)
LOCAL_SETTINGS = ("sync_dir",)   # `config` keys that stay on this computer: never an event


@dataclass
class Arrived:
    """A journal read from where it stopped: its events this home lacked, one line for each line skipped or the
    newer schema met, and where to read from next time (byte, line: before the first line skipped)."""
    events: list[Event]
    problems: list[str]
    resume: tuple[int, int]


def read(path: Path, device: str, offset: int, line_before: int, known: set[int]) -> Arrived:
    """`device`'s journal at `path` from byte `offset` (past line `line_before`): its events whose sequence numbers
    are not `known`, in the order of their lines (the first of two lines with one number)."""
    size = path.stat().st_size
    middle = _middle(path, offset, size) if hasattr(os, "fork") else None
    child = _Child(path, device, middle, size) if middle is not None else None
    try:
        if child is not None and not child.fork():
            child, middle = None, None   # no process to be had: this one reads it all
        found = _checked(journal.lines_from(path, offset, line_before + 1, stop=middle), device)
        if child is not None:
            rest = child.result()
            if rest is None:   # the child failed: read its half here
                rest = _checked(journal.lines_from(path, child.start, 1), device)
            found = found.then(rest)
    finally:
        if child is not None:
            child.close()
    fresh = []
    for event in found.events:
        if event.seq not in known:
            known.add(event.seq)
            fresh.append(event)
    problems = [_("{path}:{line}: skipped ({why}); it is read again next time").format(path=path, line=line, why=why)
                for line, why in found.skipped]
    if found.newer is not None:
        problems.append(_("{path}: written by a newer studytool (journal schema {found}); upgrade studytool to read "
                          "it").format(path=path, found=found.newer))
    return Arrived(fresh, problems, found.good or (offset, line_before))


@dataclass
class _Found:
    """What a stretch of lines holds: its events, the lines skipped (number, why), the newer schema that stopped it,
    the end (byte, line) of the last line before the first one skipped (None: its first line was), whether one was,
    and its last line's number."""
    events: list[Event] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    newer: str | None = None
    good: tuple[int, int] | None = None
    stuck: bool = False
    last: int = 0

    def then(self, rest: _Found) -> _Found:
        """This stretch followed by `rest`, the next, whose lines are numbered from 1."""
        if self.newer is not None:   # the reading stopped here
            return self
        shift = self.last
        good = rest.good if rest.good is None else (rest.good[0], rest.good[1] + shift)
        return _Found(self.events + rest.events, self.skipped + [(line + shift, why) for line, why in rest.skipped],
                      rest.newer, self.good if self.stuck or good is None else good, self.stuck or rest.stuck,
                      rest.last + shift if rest.last else self.last)


def _checked(lines: Iterable[journal.Line], device: str) -> _Found:
    """Each line read as an event of `device` and checked, to the end or to a line of a newer schema."""
    from studytool.study import events

    found = _Found()
    for line in lines:
        found.last = line.number
        try:
            if line.text is None:
                raise events.Unreadable(_("torn or too long"))
            event = events.event_of(line.text, device)
            if why := _valid(event):
                raise events.Unreadable(why)
        except events.Newer as newer:
            found.newer = str(newer)
            break
        except events.Unreadable as why:
            found.skipped.append((line.number, str(why)))
            found.stuck = True
            continue
        found.events.append(event)
        if not found.stuck:
            found.good = (line.end, line.number)
    return found


def _middle(path: Path, offset: int, size: int) -> int | None:
    """Where the second half of what is new starts (a line's start), if it is long enough to read in two."""
    if size - offset < SPLIT:
        return None
    with open(path, "rb") as file:
        file.seek(offset + (size - offset) // 2)
        while (piece := file.readline(journal.BLOCK)) and not piece.endswith(b"\n"):
            pass   # a line longer than a block: on to its end
        middle = file.tell()
    return middle if middle < size else None


class _Child:
    """A forked process reading the lines from byte `start` on and checking them (`_checked`, numbered from 1),
    leaving what it found, packed, in memory shared with this process, which goes on meanwhile. Ctrl-C ends it at
    once: it never runs this process's code past the fork (its rollback, its lock's release), whenever the key is
    pressed."""

    def __init__(self, path: Path, device: str, start: int, size: int):
        self.path, self.device, self.start, self.size = path, device, start, size   # size: the file's, as read
        self.pid, self.shared = 0, None

    def fork(self) -> bool:
        """Start it; False if the system has no process or memory to spare."""
        import mmap

        try:   # room for what well-formed lines pack to (pages are taken only as written); more fails the child
            self.shared = mmap.mmap(-1, 2 * (self.size - self.start) + (1 << 20))
        except OSError:
            return False
        interrupts = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})   # held until each side is ready
        try:
            self.pid = os.fork()
        except OSError:
            self.pid = -1
        if self.pid == 0:
            self._run(interrupts)
        signal.pthread_sigmask(signal.SIG_SETMASK, interrupts)
        if self.pid < 0:
            self.pid = 0
            self.close()
            return False
        return True

    def _run(self, interrupts: Any) -> NoReturn:
        """The child: what it found, packed, into the shared memory, its length last. What it left is all that
        tells whether it succeeded (its exit status is not read): what does not fit is not left."""
        from studytool.study import events

        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)   # a Ctrl-C ends the child where it stands
            signal.pthread_sigmask(signal.SIG_SETMASK, interrupts)
            found = _checked(journal.lines_from(self.path, self.start, 1), self.device)
            packed = events.pack(found.events, (found.skipped, found.newer, found.good, found.stuck, found.last))
            if 8 + len(packed) <= len(self.shared):
                self.shared[8:8 + len(packed)] = packed
                self.shared[:8] = len(packed).to_bytes(8, "little")
        finally:
            os._exit(0)

    def result(self) -> _Found | None:
        """What the child found, once it ended; None if it left nothing whole."""
        from studytool.study import events

        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:   # whatever started studytool ignores SIGCHLD: the wait ends with the child
            pass
        self.pid = 0
        size = int.from_bytes(self.shared[:8], "little")
        if not size:
            return None
        packed = memoryview(self.shared)[8:8 + size]
        try:
            found, (skipped, newer, good, stuck, last) = events.unpack(packed)
        except ValueError:
            return None
        finally:
            packed.release()   # before the memory is let go of, whatever stopped the unpacking (Ctrl-C)
        return _Found(found, [tuple(pair) for pair in skipped], newer, tuple(good) if good else None, stuck, last)

    def close(self) -> None:
        """End the child if it still runs (Ctrl-C: this process stops here) and let go of the shared memory."""
        if self.pid:
            with suppress(ProcessLookupError, ChildProcessError):   # it ended and was reaped meanwhile
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            self.pid = 0
        if self.shared is not None:
            self.shared.close()
            self.shared = None


def _valid(event: Event) -> str | None:
    """Why an event says what this version cannot take, or None. Its types were checked as it was read
    (`events.py`); here what they cannot say: a card's id, a time that exists, a retraction of this device's answer,
    a setting studytool knows."""
    body, kind = event.body, event.kind
    if not _real_time(event.time):
        return _("not a time")
    if kind != "setting" and event.card is None:
        return _("no card")
    if event.card is not None and not _card_ok(event.card):
        return _("not an event of this version")
    if kind == "answer":
        ok = body.card == event.card and body.time == event.time
    elif kind == "retract":
        ok = body.event.startswith(f"{event.device}-")
    elif kind == "flags":
        ok = all(moment is None or _real_time(moment) for moment in (body.buried_until, body.reset_at))
    else:
        ok = _setting_ok(body.name, body.value)
    return None if ok else _("not an event of this version")


@lru_cache(maxsize=4096)
def _card_ok(card: str) -> bool:
    from studytool.study.events import CARD

    return CARD.fullmatch(card) is not None


def _real_time(text: str) -> bool:
    try:
        moment = parse_time(text)
    except StudytoolError:
        return False
    return CLOCK_YEARS[0] <= moment.year <= CLOCK_YEARS[1]


def _setting_ok(name: str, value: str | None) -> bool:
    from studytool.study.settings import KEYS

    deck, _colon, key = name.rpartition(":")
    if key not in KEYS or key in LOCAL_SETTINGS or (deck and not KEYS[key].per_deck):
        return False
    try:
        return value is None or KEYS[key].parse(value) is not None
    except ValueError:
        return False


"""Where studytool keeps its files, and the options every command shares."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path


def default_home() -> Path:
    """`$STUDYTOOL_HOME`, or the platform's user data directory."""
    env = os.environ.get("STUDYTOOL_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("studytool", appauthor=False)


NAME_MAX = 255   # bytes in one name of a path (ext4, btrfs, tmpfs, APFS, NTFS)
PATH_MAX = 4096   # bytes in a whole path, with its closing NUL (Linux)


@dataclass
class Settings:
    """Global options, filled by the CLI callback and passed to library calls."""

    home: Path = field(default_factory=default_home)
    db: Path | None = None
    deck_paths: list[Path] = field(default_factory=list)

    @property
    def db_path(self) -> Path:
        return self.db if self.db is not None else self.home / "studytool.db"

    @property
    def user_deck_dir(self) -> Path:
        return self.home / "decks"

    @property
    def cache_dir(self) -> Path:
        """`$STUDYTOOL_HOME/cache`, or the platform's user cache directory."""
        if os.environ.get("STUDYTOOL_HOME"):
            return self.home / "cache"
        from platformdirs import user_cache_path

        return user_cache_path("studytool", appauthor=False)

    def check_paths(self) -> None:
        """Every path given (--db, --deck-path, STUDYTOOL_HOME) is one a file system can hold: no name in it over
        NAME_MAX bytes, nor the whole over PATH_MAX (the system would say only "File name too long", from wherever
        it was first used)."""
        given = [*([self.db] if self.db is not None else []), *self.deck_paths]
        if os.environ.get("STUDYTOOL_HOME"):
            given.append(self.home)
        from studytool.errors import StudytoolError
        from studytool.i18n import _

        for path in given:
            name = next((part for part in Path(path).parts if len(os.fsencode(part)) > NAME_MAX), None)
            if name is not None:
                raise StudytoolError(_("{path}: the name {name} is {length} bytes long, over the {limit} a file "
                                       "system allows").format(path=path, name=name[:20] + "…",
                                                               length=len(os.fsencode(name)), limit=NAME_MAX))
            length = len(os.fsencode(Path(path).absolute()))
            if length >= PATH_MAX:
                raise StudytoolError(_("{path}: the path is {length} bytes long, over the {limit} a file system "
                                       "allows").format(path=f"{str(path)[:60]}…", length=length, limit=PATH_MAX - 1))

    def check_home(self) -> None:
        """A STUDYTOOL_HOME that is a file is named as such (the store would only see its database's parent); a
        `--db` in a folder that does not exist is a mistyped path, not a new home to create (only the default is)."""
        from studytool.errors import StudytoolError
        from studytool.i18n import _

        if self.db is None and os.environ.get("STUDYTOOL_HOME") and self.home.is_file():
            raise StudytoolError(_("STUDYTOOL_HOME ({home}) is a file, not a folder").format(home=self.home))
        if self.db is not None and not self.db.parent.is_dir():
            nearest = next(folder for folder in self.db.parents if folder.exists())
            if nearest.is_dir():   # a file standing in the way is named by the store ("... is a file, not a folder")
                raise StudytoolError(_("--db {path}: the folder {folder} does not exist (check the path)").format(
                    path=self.db, folder=self.db.parent))


# The years a set clock may name: a schedule adds up to FSRS's longest interval (100 years) to it and the day's
# backup names it in seconds since 1970, so near datetime's years 1 and 9999 a command would overflow midway.
CLOCK_YEARS = (1970, 9000)


def now() -> datetime:
    """The one clock every command reads: `$STUDYTOOL_NOW` (ISO 8601 with an offset) if set, else the system's.

    A set clock stands still for the whole command, so scripted study and
    tests see the same instant at every answer; days are then counted in the
    local zone (`TZ`) whatever offset the value is written with.
    """
    text = os.environ.get("STUDYTOOL_NOW", "").strip()
    if not text:
        return datetime.now().astimezone()
    impossible = False
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as error:
        moment = None
        # The shape was ISO 8601 but a field is out of its range (Feb 30, hour 25, offset +25:00): datetime's
        # constructor says so; the parser's own refusal of the shape starts "Invalid isoformat string".
        impossible = not str(error).startswith("Invalid isoformat string")
    if moment is not None and moment.tzinfo is not None and CLOCK_YEARS[0] <= moment.year <= CLOCK_YEARS[1]:
        return moment
    from studytool.errors import StudytoolError
    from studytool.i18n import _

    if impossible:
        raise StudytoolError(_(
            "STUDYTOOL_NOW names no real date and time (a day, hour, minute or offset out of its range); got {value!r}"
        ).format(value=text))
    if moment is None or moment.tzinfo is None:
        raise StudytoolError(_(
            "STUDYTOOL_NOW must be an ISO 8601 time with an offset, like 2026-03-02T08:00:00+00:00; got {value!r}"
        ).format(value=text))
    raise StudytoolError(_(
        "STUDYTOOL_NOW must be a time from the year {first} to the year {last}, like 2026-03-02T08:00:00+00:00; "
        "got {value!r}").format(first=CLOCK_YEARS[0], last=CLOCK_YEARS[1], value=text))

"""Where decks come from: the bundled decks, `$STUDYTOOL_HOME/decks/`, and each `--deck-path`.

In a folder every regular `*.yaml`/`*.yml` file is a deck except `topics.yaml`.
Anything else a folder holds that could be meant as a deck (a sub-folder, a FIFO,
a dangling or looping link, `*.YAML`) is skipped and said, never silently left
out: `decks check` lists it, other commands warn. Only regular files are ever
opened, so a FIFO or device cannot make a command wait.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING

from studytool.config import Settings
from studytool.errors import StudytoolError
from studytool.files import kind_of, printable
from studytool.i18n import _

if TYPE_CHECKING:
    from studytool.decks.model import Deck

NOT_DECKS = frozenset({"topics.yaml", "glossary.yaml"})


@dataclass
class Scan:
    """What reading a set of deck files found: the good decks, and each broken file's problems."""

    decks: list[Deck] = field(default_factory=list)
    broken: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)   # `PATH: skipped: why` for entries of a folder not read

    @property
    def problems(self) -> list[str]:
        """Everything `decks check` lists: each broken file's problems, then each skipped entry."""
        return [problem for problems in self.broken.values() for problem in problems] + self.skipped

    @property
    def cards(self) -> int:
        return sum(len(deck.cards) for deck in self.decks)


Source = Path | Traversable      # a deck file on disk, or inside the installed package


def bundled_sources() -> list[Traversable]:
    """The decks shipped inside the package (read through importlib so a wheel works)."""
    folder = files("studytool.decks").joinpath("bundled")
    return sorted((entry for entry in folder.iterdir() if _is_deck_name(entry.name)), key=lambda e: e.name)


def expand(paths: Iterable[Path], notes: Scan | None = None) -> list[Path]:
    """Files as given; folders replaced by the deck files in them. Missing paths are kept (reported when read).

    What a folder holds besides regular deck files (sub-folders, FIFOs, broken or looping links,
    `*.YAML`) is skipped and said in `notes.skipped`; a folder that cannot be listed goes in `notes.broken`.
    """
    if notes is None:
        notes = Scan()
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += _folder_decks(path, notes)
        else:
            found.append(path)
    return found


def _folder_decks(folder: Path, notes: Scan) -> list[Path]:
    try:
        with os.scandir(folder) as listing:
            names = sorted(entry.name for entry in listing)
    except OSError as error:
        shown = printable(str(folder), name=True)
        notes.broken[shown] = [f"{shown}: " + _("cannot read the folder: {reason}").format(
            reason=error.strerror or error)]
        return []
    decks = []
    for name in names:
        if name.startswith("."):   # .git, editors' swap files: nobody means those as decks
            continue
        path = folder / name
        why = _skip_reason(path)
        if why is not None:
            notes.skipped.append(f"{printable(str(path), name=True)}: " + _("skipped: {why}").format(why=why))
        elif _is_deck_name(name):
            decks.append(path)
    return decks


def _skip_reason(path: Path) -> str | None:
    """Why a folder entry is not read (None: a regular file, a deck or not meant as one)."""
    try:
        mode = os.stat(path).st_mode   # follows links: a link to a deck file is a deck file
    except OSError as error:
        if error.errno == errno.ELOOP:
            return _("a symbolic link that loops")
        if path.is_symlink():
            return _("a symbolic link to {target}, which does not exist").format(
                target=printable(os.readlink(path), name=True))
        return _("cannot read it: {reason}").format(reason=error.strerror or error)
    if stat.S_ISDIR(mode):
        return _("a folder (decks in sub-folders are not read)")
    if not stat.S_ISREG(mode):
        return _("{kind}, not a regular file").format(kind=kind_of(mode))
    lower = path.name.lower()
    if not _is_deck_name(path.name) and lower.endswith((".yaml", ".yml")) and lower not in NOT_DECKS:
        return _("deck files end in lowercase .yaml or .yml")
    return None


def installed_sources(settings: Settings, notes: Scan | None = None) -> list[Source]:
    """Bundled decks, then the user's deck folder (if it exists), then `--deck-path`s.

    A file where that folder should be is an error: ignoring it would leave the learner's own decks out unseen.
    """
    folder = settings.user_deck_dir
    if folder.exists() and not folder.is_dir():
        raise StudytoolError(_("{path} is a file; your own decks go in a folder of that name").format(path=folder))
    if folder.is_symlink() and not folder.exists() and notes is not None:   # a dangling or looping link
        notes.skipped.append(f"{printable(str(folder), name=True)}: " + _("skipped: {why}").format(
            why=_skip_reason(folder)))
    user = [folder] if folder.is_dir() else []
    return [*bundled_sources(), *expand(user, notes), *expand(settings.deck_paths, notes)]


def is_bundled(source: Source) -> bool:
    """Whether a deck file is one shipped inside the package (a learner's copy of it may replace it)."""
    folder = os.path.realpath(str(files("studytool.decks").joinpath("bundled")))
    return os.path.dirname(os.path.realpath(str(source))) == folder


def own_copy(source: Source, settings: Settings) -> Path:
    """The learner's own copy of a deck file to edit: a bundled deck is copied into their deck folder first (it
    then replaces the bundled one, progress and all, since progress is keyed by deck and card ids)."""
    if not is_bundled(source):
        return Path(str(source))
    target = settings.user_deck_dir / Path(str(source)).name
    if not target.exists():
        settings.user_deck_dir.mkdir(parents=True, exist_ok=True)
        target.write_bytes(Path(str(source)).read_bytes())
    return target


def _is_deck_name(name: str) -> bool:
    return name.endswith((".yaml", ".yml")) and name not in NOT_DECKS

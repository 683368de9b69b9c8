"""A cache of validated decks, so a session does not parse YAML it parsed before.

Reading and validating the bundled decks costs more than everything else
before the first card (PyYAML, the validator, composing the nodes); a pickle
of the validated `Deck` loads in a fraction of that. An entry is keyed by the
file's name and bytes and by everything validation depends on (the studytool
version, the topics file and the validating code), so any change misses the
cache. Only valid decks are stored; a problem is always found afresh. The
cache is an optimisation only: an entry that cannot be read or written is
ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from functools import cache
from pathlib import Path

from studytool import __version__
from studytool.decks.model import Deck

Entry = tuple[Deck, tuple[int, int]]   # the deck and where its id is (for duplicate-id messages)

_PACKAGE = Path(__file__).resolve().parent.parent
_VALIDATION_INPUTS = ("decks/validate.py", "decks/model.py", "problems/registry.py", "decks/bundled/topics.yaml")


def cache_dir() -> Path:
    """`$STUDYTOOL_HOME/cache`, or the platform's user cache directory."""
    home = os.environ.get("STUDYTOOL_HOME")
    if home:
        return Path(home).expanduser() / "cache"
    from platformdirs import user_cache_path

    return user_cache_path("studytool", appauthor=False)


@cache
def _salt() -> bytes:
    stamps = []
    for relative in _VALIDATION_INPUTS:
        try:
            stamps.append(f"{relative}:{os.stat(_PACKAGE / relative).st_mtime_ns}")
        except OSError:
            stamps.append(f"{relative}:-")
    return f"{__version__}|{pickle.HIGHEST_PROTOCOL}|{'|'.join(stamps)}".encode()


def _path(name: str, data: bytes) -> Path:
    digest = hashlib.blake2b(b"\0".join((_salt(), name.encode(), data)), digest_size=20).hexdigest()
    return cache_dir() / "decks" / f"{digest}.pickle"


def load(name: str, data: bytes) -> Entry | None:
    try:
        with open(_path(name, data), "rb") as stream:
            deck, mark = pickle.load(stream)
    except Exception:   # missing, truncated or from another Python: recompute
        return None
    return (deck, mark) if isinstance(deck, Deck) else None


def store(name: str, data: bytes, entry: Entry) -> None:
    path = _path(name, data)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        with open(temporary, "wb") as stream:
            pickle.dump(entry, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)   # readers see a whole entry or none
    except OSError:
        pass

"""When this home last synced, and the reminder `review` and `stats` give when that is over a day ago.

Apart from `sync.py` so that the reminder costs those commands nothing of what a sync imports. The time is kept
in the lock file a sync takes beside the database, not in it: a sync with nothing new writes nothing there.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from studytool.errors import StudytoolError
from studytool.i18n import _
from studytool.study.records import parse_time
from studytool.study.store import Store

LOCK_SUFFIX = ".sync-lock"   # beside the database: taken by a running sync; holds the last sync's time
STALE = timedelta(days=1)
BEFORE = "sync_last"         # the settings row where studytool kept the time before (schema 6)


def lock_path(store: Store) -> Path:
    return Path(f"{store.path}{LOCK_SUFFIX}")


def last_sync(store: Store) -> str | None:
    """When this home last synced (stored-time text), or None: never, or the note is unreadable. Until its first
    sync since the upgrade, the time the database kept before."""
    try:
        text = lock_path(store).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    for found in (text, store.setting(BEFORE, "")):
        try:
            parse_time(found)
            return found
        except StudytoolError:
            continue
    return None


def reminder(store: Store, now: datetime) -> str | None:
    """A line for `review` and `stats` when a sync folder is set and the last sync is over a day old."""
    from studytool.study import settings

    try:
        folder = settings.get(store, "sync_dir")
    except StudytoolError:   # a bad stored value: `config` and `sync` say so themselves
        return None
    if not folder:
        return None
    last = last_sync(store)
    if last and now - parse_time(last) <= STALE:
        return None
    return (_("Last synced {when}; run `studytool sync` to merge the other computers' answers").format(when=last[:16])
            if last else _("A sync folder is set but this computer has never synced; run `studytool sync`"))

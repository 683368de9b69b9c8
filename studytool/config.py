"""Where studytool keeps its files, and the options every command shares."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def default_home() -> Path:
    """`$STUDYTOOL_HOME`, or the platform's user data directory."""
    env = os.environ.get("STUDYTOOL_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("studytool", appauthor=False)


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

    def check_home(self) -> None:
        """A STUDYTOOL_HOME that is a file is named as such (the store would only see its database's parent)."""
        if self.db is None and os.environ.get("STUDYTOOL_HOME") and self.home.is_file():
            from studytool.errors import StudytoolError
            from studytool.i18n import _

            raise StudytoolError(_("STUDYTOOL_HOME ({home}) is a file, not a folder").format(home=self.home))

import pytest

from studytool.study.store import open_store
from study_fakes import drill_deck


@pytest.fixture
def store(tmp_path):
    """A fresh progress database in tmp_path."""
    with open_store(tmp_path / "studytool.db") as opened:
        yield opened


@pytest.fixture
def drill(tmp_path, monkeypatch):
    """A learner's home in tmp_path (TZ=UTC: days start 04:00Z; English) and the 8-card drill deck in a folder of
    its own, which is returned (for `--deck-path`)."""
    monkeypatch.setenv("STUDYTOOL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    decks = tmp_path / "decks"
    decks.mkdir()
    drill_deck(decks, n=8)
    return decks

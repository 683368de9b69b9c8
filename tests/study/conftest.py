import pytest

from studytool.study.store import open_store


@pytest.fixture
def store(tmp_path):
    """A fresh progress database in tmp_path."""
    with open_store(tmp_path / "studytool.db") as opened:
        yield opened

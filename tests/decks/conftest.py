"""Deck messages are checked word for word in English: pin the interface language for every test here."""

import pytest

from studytool.i18n import set_language


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("STUDYTOOL_LANG", "en")
    set_language(None)   # forget a --lang from an earlier command-line test
    yield
    set_language(None)

"""The whole run uses its own `STUDYTOOL_HOME`, so no test reads or writes the user's progress or cache.

Set when pytest starts, before collection, since some test modules load decks at import.
Tests that need a home of their own set `STUDYTOOL_HOME` (or `--db`) themselves.
"""

import os
import shutil
import tempfile

import pytest

from studytool import i18n

_home = tempfile.mkdtemp(prefix="studytool-test-home-")


@pytest.fixture(autouse=True)
def _interface_language_per_test():
    """`--lang zh` through CliRunner pins the language for the whole process: each test starts unpinned."""
    yield
    i18n.set_language(None)


def pytest_configure(config):
    os.environ["STUDYTOOL_HOME"] = _home


def pytest_unconfigure(config):
    shutil.rmtree(_home, ignore_errors=True)

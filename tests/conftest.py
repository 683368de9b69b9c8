"""The whole run uses its own `STUDYTOOL_HOME`, so no test reads or writes the user's progress or cache.

Set when pytest starts, before collection, since some test modules load decks at import.
Tests that need a home of their own set `STUDYTOOL_HOME` (or `--db`) themselves.
"""

import os
import shutil
import tempfile

_home = tempfile.mkdtemp(prefix="studytool-test-home-")


def pytest_configure(config):
    os.environ["STUDYTOOL_HOME"] = _home


def pytest_unconfigure(config):
    shutil.rmtree(_home, ignore_errors=True)

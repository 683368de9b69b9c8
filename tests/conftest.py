"""Every run starts from one known environment, whatever the caller's, with its own `STUDYTOOL_HOME`.

Set when pytest starts, before collection, since some test modules load decks at import:
- `STUDYTOOL_HOME` a fresh folder, so no test reads or writes the user's progress or cache (tests that
  need a home of their own set `STUDYTOOL_HOME` or `--db` themselves);
- the language, colour, width, zone and terminal the suite was written against (`PINNED`): a learner's
  `LANG=zh_CN.UTF-8`, `NO_COLOR=1`, `COLUMNS=40`, `TZ=Asia/Shanghai` or `TERM=dumb` changes nothing. A test
  that depends on one of them sets it itself (`tests/test_environment.py` runs a sample under such a
  hostile environment, and checks that the pin holds).
"""

import os
import shutil
import tempfile
import time

import pytest

from studytool import i18n

_home = tempfile.mkdtemp(prefix="studytool-test-home-")

# None: unset. English messages, colour left to rich (off, as output is not a terminal), rich's default
# width, UTC days, an ordinary terminal type.
PINNED = {
    "LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "LANGUAGE": None, "STUDYTOOL_LANG": None,
    "NO_COLOR": None, "FORCE_COLOR": None, "PY_COLORS": None, "CLICOLOR_FORCE": None, "TTY_COMPATIBLE": None,
    "TTY_INTERACTIVE": None, "COLORTERM": None,
    "COLUMNS": None, "LINES": None, "TERMINAL_WIDTH": None,
    "TZ": "UTC", "TERM": "xterm-256color", "STUDYTOOL_NOW": None,
}


@pytest.fixture(autouse=True)
def _interface_language_per_test():
    """`--lang zh` through CliRunner pins the language for the whole process: each test starts unpinned."""
    yield
    i18n.set_language(None)


def pytest_configure(config):
    for name, value in PINNED.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    time.tzset()
    os.environ["STUDYTOOL_HOME"] = _home


def pytest_unconfigure(config):
    shutil.rmtree(_home, ignore_errors=True)

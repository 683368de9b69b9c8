"""Start-up stays light: `studytool --help` never imports the heavy libraries (timings live in benchmarks/startup.py)."""

import os
import subprocess
import sys

import pytest

HEAVY = ("numpy", "yaml", "fsrs", "genanki", "sqlite3", "rich.progress")  # typer's help uses rich.table itself

PROBE = """
import sys
sys.argv = ["studytool", *{args!r}]
from studytool.cli import main
try:
    main()
except SystemExit:
    pass
print(" ".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


def imported_heavy(*args: str, home=None) -> set[str]:
    env = {**os.environ, "STUDYTOOL_HOME": str(home)} if home else None
    result = subprocess.run([sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
                            capture_output=True, text=True, timeout=60, env=env)
    return set(result.stderr.strip().splitlines()[-1].split()) if result.stderr.strip() else set()


@pytest.mark.parametrize("args", [(), ("--help",), ("--version",), ("export", "--help"), ("calc", "--help")])
def test_help_and_version_import_nothing_heavy(args):
    assert imported_heavy(*args) == set()


def test_the_probe_sees_heavy_imports_when_they_happen(tmp_path):
    """The control: a command that does load decks is seen importing yaml (the deck cache is empty)."""
    assert "yaml" in imported_heavy("decks", "list", home=tmp_path)


@pytest.mark.parametrize("args", [("decks", "list"), ("quiz", "--count", "1", "--seed", "1")])
def test_decks_validated_once_are_loaded_without_yaml(tmp_path, args):
    imported_heavy(*args, home=tmp_path)
    assert "yaml" not in imported_heavy(*args, home=tmp_path)


GROUP_MODULES = tuple(f"studytool.cli.commands.{name}" for name in ("backup", "calc", "cards", "decks", "export"))


def imported_groups(*args: str, home) -> set[str]:
    probe = PROBE.replace("{heavy!r}", repr(GROUP_MODULES))
    result = subprocess.run([sys.executable, "-c", probe.format(args=args)], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "STUDYTOOL_HOME": str(home)}, stdin=subprocess.DEVNULL)
    return set(result.stderr.strip().splitlines()[-1].split()) if result.stderr.strip() else set()


@pytest.mark.parametrize("args", [("--help",), ("quiz", "--count", "1", "--seed", "1")])
def test_the_command_groups_are_built_only_when_named(tmp_path, args):
    assert imported_groups(*args, home=tmp_path) == set()


def test_a_named_group_is_built(tmp_path):
    """The control: naming a group loads its module, and only that one."""
    assert imported_groups("calc", "--help", home=tmp_path) == {"studytool.cli.commands.calc"}

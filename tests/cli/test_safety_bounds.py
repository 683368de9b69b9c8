"""Round three of the hostile terminal (issue 20): sizes, streams and signals the entry point must bound.

Each case runs the real entry point in a subprocess with the environment it depends on, and must end in one
line on stderr (exit 1), quietly, or work: never a traceback, never unbounded time or memory.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A process may not grow past this: the commands below need under 300 MB, the unbounded ones needed gigabytes.
MEMORY_LIMIT = 1 << 30


def environment(home, **extra) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES", "TERMINAL_WIDTH")}
    return {**env, "PYTHONPATH": str(ROOT), "STUDYTOOL_HOME": str(home), "STUDYTOOL_LANG": "en", "LANG": "C.UTF-8",
            "NO_COLOR": "1", "TERM": "dumb", "TZ": "UTC", "STUDYTOOL_NOW": "2026-03-02T08:00:00+00:00", **extra}


def limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def studytool(home, *args, env=None, timeout=60, **kwargs):
    kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.run([sys.executable, "-m", "studytool", *args], env=environment(home, **(env or {})),
                          timeout=timeout, **kwargs)


def no_traceback(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace")
    assert "Traceback" not in text and "Exception ignored" not in text and "Error" not in text, text
    return text


# --- item 6: a terminal width from the environment is bounded ---------------------------------------------------

@pytest.mark.parametrize("columns", ["400000000", "99999999999", "9" * 5000, "²", "abc", "0"])
@pytest.mark.parametrize("args", [["explain", "layernorm"], ["--help"], ["quiz", "--help"]],
                         ids=lambda args: "-".join(args))
def test_a_huge_or_unreadable_width_is_bounded(tmp_path, columns, args):
    result = studytool(tmp_path, *args, env={"COLUMNS": columns, "TERMINAL_WIDTH": columns, "LINES": columns},
                       preexec_fn=limit_memory, timeout=30)
    no_traceback(result.stderr)
    assert result.returncode == 0
    lines = result.stdout.decode().splitlines()
    assert lines and max(len(line) for line in lines) <= 1000   # the bound: no terminal is wider


def test_a_width_within_the_bound_is_kept(tmp_path):
    result = studytool(tmp_path, "explain", "layernorm", env={"COLUMNS": "300"})
    assert result.returncode == 0
    assert max(len(line) for line in result.stdout.decode().splitlines()) == 300   # the panel spans the width

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


# --- item 3: typed input is bounded per line and per session ----------------------------------------------------

NUMBERS = """\
deck: numbers
title: Numbers
cards:
  - id: one
    kind: number
    topic: layernorm
    q: 1 + 1？
    answer: 2
  - id: two
    kind: number
    topic: layernorm
    q: 2 + 2？
    answer: 4
"""


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    (home / "decks").mkdir(parents=True)
    (home / "decks" / "numbers.yaml").write_text(NUMBERS, encoding="utf-8")
    return home


def answers_logged(home) -> int:
    import sqlite3

    with sqlite3.connect(home / "studytool.db") as db:
        return db.execute("SELECT count(*) FROM reviews").fetchone()[0]


QUIZ = ["quiz", "--deck", "numbers", "--count", "2", "--seed", "1"]


def test_an_endless_line_is_refused_in_one_line_and_the_answers_before_it_kept(home):
    result = studytool(home, *QUIZ, input=b"2\n" + b"\0" * 50_000_000, preexec_fn=limit_memory)
    assert result.returncode == 1
    assert no_traceback(result.stderr) == ("studytool: an input line is longer than 10,000 characters: input refused; "
                                           "the answers given so far are saved\n")
    assert answers_logged(home) == 1


def test_dev_zero_as_input_stops_at_the_first_line(home):
    with open("/dev/zero", "rb") as zero:
        result = studytool(home, *QUIZ, stdin=zero, preexec_fn=limit_memory, timeout=30)
    assert result.returncode == 1
    assert no_traceback(result.stderr).startswith("studytool: an input line is longer than 10,000 characters")


def test_a_line_at_the_bound_is_an_answer(home):
    result = studytool(home, *QUIZ, input=b"2" + b" " * 9_999 + b"\n4\n")
    assert result.returncode == 0, result.stderr
    assert answers_logged(home) == 2


def test_endless_lines_of_format_errors_end_the_session_in_one_line(home):
    result = studytool(home, *QUIZ, input=b"2\n" + b"?\n" * 25_000, timeout=600)   # 20,000 prompts: 20 s at load 5
    assert result.returncode == 1
    assert no_traceback(result.stderr) == ("studytool: the input has more than 20,000 lines: input refused; the "
                                           "answers given so far are saved\n")
    assert answers_logged(home) == 1


# --- item 9: a standard stream closed or open the wrong way -----------------------------------------------------

def open_as(fd: int, path: str, flags: int):
    """A child's standard stream `fd` as the shell's `0>file`, `1<file` or `1>&-` (flags None) leaves it."""
    def prepare():
        os.close(fd)
        if flags is not None:
            assert os.open(path, flags) == fd
            os.set_inheritable(fd, True)   # Python opens files close-on-exec; a shell's redirection is not
    return prepare


def test_quiz_with_stdin_open_for_writing_is_one_line(home, tmp_path):
    result = studytool(home, *QUIZ, stdin=None, preexec_fn=open_as(0, str(tmp_path / "file"), os.O_WRONLY | os.O_CREAT))
    assert result.returncode == 1
    assert no_traceback(result.stderr) == ("studytool: cannot read the input: Bad file descriptor; the answers given "
                                           "so far are saved\n")


@pytest.mark.parametrize("args", [["stats"], ["decks", "list"], ["explain", "layernorm"], QUIZ],
                         ids=lambda args: args[0])
def test_stdout_open_for_reading_is_one_line(home, args):
    result = studytool(home, *args, stdout=None, input=b"", preexec_fn=open_as(1, "/etc/hostname", os.O_RDONLY))
    assert result.returncode == 1
    assert no_traceback(result.stderr) == "studytool: cannot write the output: Bad file descriptor\n"


@pytest.mark.parametrize("args", [["stats"], ["explain", "no-such-topic"], QUIZ], ids=lambda args: args[0])
@pytest.mark.parametrize("stderr", [os.O_RDONLY, None], ids=["stderr-read-only", "stderr-closed"])
def test_nothing_to_print_on_is_quiet_and_keeps_the_exit_code(home, args, stderr):
    """stdout and stderr both unusable: no message can be seen, and none may crash; the exit code still says it."""
    def prepare():
        open_as(1, "/etc/hostname", os.O_RDONLY)()
        open_as(2, "/etc/hostname", stderr)()
    result = studytool(home, *args, stdout=None, stderr=None, input=b"", preexec_fn=prepare)
    assert result.returncode == 1


@pytest.mark.parametrize("args", [["stats"], ["explain", "no-such-topic"]], ids=lambda args: args[0])
def test_stderr_open_for_reading_leaves_the_command_alone(home, args):
    result = studytool(home, *args, stderr=None, preexec_fn=open_as(2, "/etc/hostname", os.O_RDONLY))
    assert result.returncode == (0 if args == ["stats"] else 1)


# --- item 13: Ctrl-C while starting up ----------------------------------------------------------------------------

# The child runs `python -m studytool` as runpy does, with a Ctrl-C arriving at a chosen moment of start-up: while a
# module is imported, or while the streams are prepared (a real SIGINT lands at a moment no test can choose).
INTERRUPTED = """\
import runpy, sys
where = sys.argv.pop(1)

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == where:
            raise KeyboardInterrupt

def interrupted():
    raise KeyboardInterrupt

if where == "prepare_streams":
    import studytool.cli.safety
    studytool.cli.safety.prepare_streams = interrupted
sys.meta_path.insert(0, Interrupt())
runpy.run_module("studytool", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("where", ["click", "rich.console", "typer", "studytool.cli.app", "studytool.cli.style",
                                   "prepare_streams"])
def test_ctrl_c_while_starting_up_exits_130_quietly(home, where):
    result = subprocess.run([sys.executable, "-c", INTERRUPTED, where, *QUIZ], env=environment(home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert (result.returncode, result.stderr) == (130, b"")

"""The entry point's safety net: whatever the terminal or the streams do, one line on stderr, never a traceback.

- stdin, stdout or stderr closed (`studytool quiz <&-`): it reads as empty input, or writes go nowhere;
- an encoding that cannot show a glyph (`PYTHONIOENCODING=ascii`): an ASCII stand-in (`->` for `→`), else `\\uXXXX`;
- stdout on a full disk (`studytool stats > /dev/full`, even `--help`): `studytool: cannot write the output: ...`, exit 1;
- a reader that went away (`studytool decks list | head -1`): exit quietly;
- a `StudytoolWarning` (a skipped deck file): `studytool: warning: ...`, each once;
- stdout or stderr open the wrong way (`stats 1</etc/hostname`): as a full disk; with stderr unusable too, exit 1 quietly;
- Ctrl-C before a command runs (while the app is built): exit 130 quietly, as during one;
- a damaged database found mid-command (sqlite3.Error): one line naming it, exit 1;
- a terminal size in the environment rich or typer would trust blindly (`COLUMNS=400000000`, `COLUMNS=²`): bounded.
"""

from __future__ import annotations

import codecs
import errno
import os
import sys
import unicodedata
import warnings

from studytool.errors import StudytoolError, StudytoolWarning
from studytool.files import printable
from studytool.i18n import _

# Glyphs the interface and the cards use, as ASCII; anything else without an ASCII decomposition is escaped.
ASCII = {
    "→": "->", "←": "<-", "⇒": "=>", "×": "x", "−": "-", "–": "-", "—": "--", "·": ".", "…": "...", "√": "sqrt",
    "≈": "~", "≤": "<=", "≥": ">=", "≠": "!=", "±": "+/-", "∑": "sum", "■": "#", "□": ".", "●": "*", "○": "o",
    "✓": "v", "✗": "x", "“": '"', "”": '"', "‘": "'", "’": "'", "σ": "sigma", "μ": "mu", "ε": "eps",
    "Σ": "Sum", "α": "alpha", "β": "beta", "γ": "gamma", "λ": "lambda", "π": "pi", "θ": "theta", "∞": "inf",
    "│": "|", "┃": "|", "─": "-", "━": "-", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+",
    "┴": "+", "┼": "+", "╭": "+", "╮": "+", "╰": "+", "╯": "+", "┏": "+", "┓": "+", "┗": "+", "┛": "+",
    "┡": "+", "┩": "+", "╇": "+", "▁": "_", "█": "#", "░": ".", "▒": ":", "▓": "#", "ⁱ": "^i", "²": "^2",
}
# rich pads every line to COLUMNS cells (a line of 400 million spaces), typer's help to TERMINAL_WIDTH; no terminal
# is wider than this. LINES sets the height the same way.
MAX_COLUMNS = 1000
SIZE_VARIABLES = ("COLUMNS", "LINES", "TERMINAL_WIDTH")
# EBADF: stdout (or stderr) closed, or open for reading only (`stats 1</etc/hostname`); a stdin that cannot be read
# is said where answers are read (cli/render/study.py).
OUTPUT_ERRORS = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EBADF}


def _fallback(error: UnicodeError) -> tuple[str, int]:
    """A codecs error handler: each character the encoding cannot show, as ASCII or an escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for char in error.object[error.start:error.end]:
        stand_in = ASCII.get(char)
        if stand_in is None:
            plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
            stand_in = plain or (f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
        out.append(stand_in)
    return "".join(out), error.end


codecs.register_error("studytool-ascii", _fallback)


def visible(text: str) -> str:
    """User input as it may be echoed: control characters (ESC, BEL, C1 ...) as escapes like `\\x1b`, never raw."""
    return printable(text)


def bound_terminal_size() -> None:
    """A terminal size set in the environment, within 1..`MAX_COLUMNS`: a larger one is that bound; one rich or typer
    could not read as a number (`0`, `²`, `abc`, 5,000 digits) is dropped, so the terminal's own size is used."""
    for name in SIZE_VARIABLES:
        value = os.environ.get(name, "").strip()
        number = value.lstrip("0")
        if name in os.environ and not (value.isascii() and value.isdigit() and number):
            del os.environ[name]
        elif len(number) > 4 or (number and int(number) > MAX_COLUMNS):
            os.environ[name] = str(MAX_COLUMNS)


def prepare_streams() -> None:
    """Closed standard streams become /dev/null; streams that cannot encode every character get the fallback."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:   # the descriptor was closed (<&-, >&-): the lowest free one is it again
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))
    if getattr(sys.stdin, "errors", None) == "strict" and hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="surrogateescape")   # bytes the encoding cannot read are kept, stored as U+FFFD
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "→√×中".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="studytool-ascii")
    warnings.showwarning = _show_warning
    sys.stdout = _ReaderMayGo(sys.stdout)


class _ReaderMayGo:
    """stdout, where a reader that went away (`| head`) ends the command with success before click can call
    the broken pipe a failure (it exits 1): the reader has all it wanted."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            _quiet()

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            _quiet()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, StudytoolWarning):
        text = "studytool: " + _("warning: {message}").format(message=message)
    else:
        text = warnings.formatwarning(message, category, filename, lineno, line).rstrip()
    try:
        sys.stderr.write(text + "\n")
    except OSError:
        pass


def run(app) -> None:
    """Run the typer app with the safety net; exits with the command's code."""
    try:
        bound_terminal_size()
        prepare_streams()
        try:
            app()
        finally:
            sys.stdout.flush()   # a full disk shows here at the latest, while it can still be said
    except KeyboardInterrupt:   # typer ends a running command with 130 itself; this is before it runs
        sys.exit(130)
    except StudytoolError as error:   # raised while parsing, before any command runs
        _fail(str(error))
    except BrokenPipeError:
        _quiet()
    except OSError as error:
        if error.errno == errno.EPIPE:
            _quiet()
        if error.errno in OUTPUT_ERRORS:
            _fail(_("cannot write the output: {reason}").format(reason=error.strerror), output_lost=True)
        raise
    except Exception as error:
        if type(error).__module__ == "sqlite3":   # a database damaged under a running command
            _fail(_("the progress database failed: {reason}").format(reason=" ".join(str(error).split())))
        raise


def _fail(message: str, output_lost: bool = False) -> None:
    if output_lost:
        _drop(sys.stdout)
    try:
        sys.stderr.write(f"studytool: {printable(message, name=True)}\n")   # one line: it may quote a path or an answer
        sys.stderr.flush()
    except OSError:   # stderr is unusable as well: nothing can be said, the exit code still says it
        _drop(sys.stderr)
    sys.exit(1)


def _quiet() -> None:
    """The reader went away (`studytool cards list | head`): it has what it wanted, so that is success."""
    _drop(sys.stdout)
    sys.exit(0)


def _drop(stream) -> None:
    """What is left in a stream's buffer would fail again at exit ("Exception ignored ...", exit 120): send it
    nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    finally:
        os.close(devnull)

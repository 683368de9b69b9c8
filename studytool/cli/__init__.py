"""The command line: the only package that imports typer, click or rich.

`app.py` builds the app from `commands/<group>.py`; each command parses, calls one library
function and hands the result to a renderer in `render/<feature>.py`. `style.py` is how help
and errors look; `options.py` holds the options several commands share.
"""

try:
    from studytool.cli.app import app, main
except KeyboardInterrupt:   # Ctrl-C while typer, click and rich are still importing: as one during a command
    raise SystemExit(130) from None

__all__ = ["app", "main"]

"""The command line: the only package that imports typer, click or rich.

`app.py` builds the app from `commands/<group>.py`; each command parses, calls one library
function and hands the result to a renderer in `render/<feature>.py`. `style.py` is how help
and errors look; `options.py` holds the options several commands share.
"""

from studytool.cli.app import app, main

__all__ = ["app", "main"]

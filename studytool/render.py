"""Shared rich helpers. Only the CLI and rendering code import rich."""

from __future__ import annotations

import sys
from functools import cache

from rich.console import Console


@cache
def console() -> Console:
    """Standard output console; rich drops colour when piped or with NO_COLOR."""
    return Console(highlight=False)


@cache
def err_console() -> Console:
    """Standard error console: prompts and feedback when stdout carries JSON."""
    return Console(stderr=True, highlight=False)


def print_json(document: object) -> None:
    """Print one JSON document on stdout, nothing else."""
    import json

    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")

"""Recording the shapes that flow through the engine (used by `trace_shapes`).

Outside a `recording()` block `record` does nothing, so the forward passes pay
one function call per step and stay pure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ShapeStep:
    """One step of the data flow: what it is, its shape, and where it happens."""

    name: str
    shape: tuple[int, ...]
    part: str  # "input", "encoder", "decoder" or "output"


@dataclass
class Recorder:
    steps: list[ShapeStep] = field(default_factory=list)
    part: str = "input"
    prefix: str = ""


_active: ContextVar[Recorder | None] = ContextVar("studytool_engine_recorder", default=None)


@contextmanager
def recording() -> Iterator[Recorder]:
    """Collect every `record(...)` call made inside the block."""
    recorder = Recorder()
    token = _active.set(recorder)
    try:
        yield recorder
    finally:
        _active.reset(token)


def record(name: str, x: Any) -> None:
    recorder = _active.get()
    if recorder is not None:
        recorder.steps.append(ShapeStep(recorder.prefix + name, tuple(int(n) for n in x.shape), recorder.part))


@contextmanager
def scope(label: str) -> Iterator[None]:
    """Prefix the names recorded inside the block with `label` (e.g. "cross-attention")."""
    recorder = _active.get()
    if recorder is None:
        yield
        return
    outer = recorder.prefix
    recorder.prefix = f"{outer}{label}: "
    try:
        yield
    finally:
        recorder.prefix = outer

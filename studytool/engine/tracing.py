"""Observing the arrays that flow through the modules (used by `trace_shapes`).

The maths (functional.py) knows nothing of this. The modules call `observe(name, x)` at a few
named points of their data flow; nothing happens unless an observer is installed, so a plain
forward pass pays one ContextVar lookup per point. `scope(label)` prefixes the names observed
inside it (e.g. "cross-attention: Q projection"). An observer should read what it needs at once:
later steps may reuse the array in place (softmax overwrites the scores).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

Observer = Callable[[str, Any], None]

_observer: ContextVar[Observer | None] = ContextVar("studytool_engine_observer", default=None)
_prefix: ContextVar[str] = ContextVar("studytool_engine_prefix", default="")


def observe(name: str, x: Any) -> None:
    observer = _observer.get()
    if observer is not None:
        observer(_prefix.get() + name, x)


@contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """Call `observer(name, array)` at every observation point reached inside the block."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)


@contextmanager
def scope(label: str) -> Iterator[None]:
    token = _prefix.set(f"{_prefix.get()}{label}: ")
    try:
        yield
    finally:
        _prefix.reset(token)


@dataclass(frozen=True)
class ShapeStep:
    """One step of the data flow: what it is, its shape, and where it happens."""

    name: str
    shape: tuple[int, ...]
    part: str  # "input", "encoder", "decoder" or "output"


@dataclass
class Recorder:
    """An observer that keeps each step's shape, tagged with the part of the model set at the time."""

    steps: list[ShapeStep] = field(default_factory=list)
    part: str = "input"

    def __call__(self, name: str, x: Any) -> None:
        self.steps.append(ShapeStep(name, tuple(int(n) for n in x.shape), self.part))


@contextmanager
def recording() -> Iterator[Recorder]:
    """Record the shape of every observation point reached inside the block."""
    recorder = Recorder()
    with observing(recorder):
        yield recorder

"""The generators by name: their typed parameters, their defaults and the notes' own example.

Decks override parameters by name (`params:`) and pin the notes' numbers
(`example:`); both go through `Generator.validate`. A parameter whose default is
`None` is drawn at random from the range its description gives. `ask` picks the
sub-question (default: drawn here, before the draw function runs, so a draw
function always gets one).

Each family module (norms.py, attention.py, ...) declares its generators next to
their draw functions with `@generator(...)`; `names()` and `get()` import the
family modules on first use. Family modules import NumPy and the engine inside
their functions only, so listing names and checking parameters (what the deck
loader does) imports neither.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

# Param (a parameter with its check) is declared in checks.py; the family modules read it through here
from studytool.problems.checks import Param, ask_param
from studytool.problems.variant import Variant

@dataclass(frozen=True)
class Generator:
    name: str
    summary: str
    params: Mapping[str, Param]
    example_params: Mapping[str, Any]
    function: Callable[..., Variant]  # takes (rng, **all params) -> Variant
    constraints: tuple[Callable[[Mapping[str, Any]], "str | None"], ...] = ()
    # sub-questions whose answers are few by nature (ask -> why): a card pinned to one may repeat answers
    small: Mapping[str, str] = field(default_factory=dict)

    def small_answer_space(self, params: Mapping[str, Any]) -> str | None:
        """Why a card with these params has few distinct answers, or None when it should vary."""
        return self.small.get(params.get("ask"))

    def validate(self, params: Mapping[str, Any]) -> list[str]:
        """One message per unknown name or bad value; empty means fine."""
        if not isinstance(params, Mapping):
            return [f"{self.name}: params must be a mapping of name: value"]
        problems = []
        for name, value in params.items():
            if name not in self.params:
                known = ", ".join(self.params)
                problems.append(f"unknown parameter {name!r} for {self.name} (known: {known})")
            elif (message := self.params[name].problem(value)) is not None:
                problems.append(message)
        if not problems:
            merged = self.resolve(params)
            problems += [m for check in self.constraints if (m := check(merged)) is not None]
        return problems

    def resolve(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter's value: the given ones over the defaults."""
        return {name: params.get(name, p.default) for name, p in self.params.items()}

    def draw(self, rng, level: int = 1, **params: Any) -> Variant:
        """A fresh variant from `rng` (a `numpy.random.Generator`); raises ValueError on bad params.

        `level` 2 or 3 (`levels.py`) draws larger inputs where `params` leave them open; when those
        do not fit what the card pins (its own vector, say), the card keeps level 1's.
        """
        if level != 1:
            from studytool.problems.levels import draws

            grown = {**params, **draws(self.name, level, params, rng)}
            params, level = (grown, level) if not self.validate(grown) else (params, 1)
        problems = self.validate(params)
        if problems:
            raise ValueError("; ".join(problems))
        resolved, asks = self.resolve(params), self.params["ask"].choices

        def function() -> Variant:   # an open `ask` is drawn first, afresh for every redraw
            ask = resolved["ask"] or asks[int(rng.integers(len(asks)))]
            return self.function(rng, **{**resolved, "ask": ask})

        variant, repeats = function(), 0
        for _ in range(TRIES):   # a draw where a known wrong method gives the right answer catches nothing: redraw
            if not _caught_by_a_hint(variant):
                return replace(variant, generator=self.name, level=level)
            again = function()
            # the same draw three times running: everything pinned, no other draw exists (once can be chance
            # among a small generator's few draws)
            repeats = repeats + 1 if (again.prompt, again.answer) == (variant.prompt, variant.answer) else 0
            if repeats == 3:
                break
            variant = again
        return replace(variant, generator=self.name, level=level)   # kept with its hints, for `decks audit`

    def example(self) -> Variant:
        """The notes' own numbers."""
        import numpy as np

        return self.draw(np.random.default_rng(0), **self.example_params)


TRIES = 100   # redraws before a pinned card keeps a draw a wrong method also answers


def _caught_by_a_hint(variant: Variant) -> bool:
    from studytool.problems.answers import matches

    return any(matches(variant, hint.answer) for hint in variant.hints)


# --- declaring and finding generators -------------------------------------------------------

_BY_NAME: dict[str, Generator] = {}
_discovered = False


def generator(name: str, summary: str, *, asks: Iterable[str], params: tuple[Param, ...], example: Mapping[str, Any],
              constraints: tuple[Callable[[Mapping[str, Any]], "str | None"], ...] = (),
              small: Mapping[str, str] | None = None) -> Callable[[Callable[..., Variant]], Callable[..., Variant]]:
    """Declare the decorated draw function as the generator `name`: its sub-questions (`asks`, which become
    the last parameter, `ask`), its other parameters, the notes' example, cross-parameter constraints and
    the sub-questions whose answers are few by nature."""
    params = (*params, ask_param(*asks))

    def register(function: Callable[..., Variant]) -> Callable[..., Variant]:
        known = _BY_NAME.get(name)
        if known is not None and known.function.__module__ != function.__module__:
            raise ValueError(f"two generators are called {name!r}: {known.function.__module__}, {function.__module__}")
        _BY_NAME[name] = Generator(name, summary, {p.name: p for p in params}, dict(example), function,
                                   tuple(constraints), dict(small or {}))
        return function

    return register


def _generators() -> dict[str, Generator]:
    """Every generator, after importing each module of this package once (the family modules register theirs)."""
    global _discovered
    if not _discovered:   # a directory listing, not pkgutil: its import costs more than the listing
        package, here = __name__.rpartition(".")[0], os.path.dirname(__file__)
        for name in sorted(entry.name for entry in os.scandir(here) if entry.name.endswith(".py")):
            if name != "__init__.py":
                importlib.import_module(f"{package}.{name[:-3]}")
        _discovered = True
    return _BY_NAME


def names() -> list[str]:
    """Every generator's name, sorted (not in discovery order, so moving one between families changes nothing)."""
    return sorted(_generators())


def get(name: str) -> Generator:
    """The generator called `name`; `KeyError` when there is none."""
    generators = _generators()
    try:
        return generators[name]
    except KeyError:
        raise KeyError(f"unknown generator {name!r} (known: {', '.join(generators)})") from None

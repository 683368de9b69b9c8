"""The house rules as a test: imports point down the layers, and only studytool/cli/ knows typer and rich.

Order, bottom up: engine < problems < decks < features (study/, calc, explain, worksheet, export) < cli.
errors, config, i18n and files are ground: any layer may import them, and they import no layer.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "studytool"
GROUND = {"errors", "config", "i18n", "files", "__init__"}
LEVEL = {"engine": 0, "problems": 1, "decks": 2, "study": 3, "calc": 3, "explain": 3, "worksheet": 3, "export": 3,
         "cli": 4, "__main__": 5}
UI = {"typer", "click", "rich"}


def layer_of(module: str) -> str:
    """`studytool.decks.loader` -> `decks`; `studytool.calc` -> `calc`."""
    return module.split(".")[1] if module.count(".") else ""


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, at any depth (lazy imports inside functions count too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def violations(package: Path) -> list[str]:
    """`path:line: what` for each import that breaks the house rules."""
    stdlib = set(sys.stdlib_module_names)
    problems = []
    for path in sorted(package.rglob("*.py")):
        own = layer_of("studytool." + ".".join(path.relative_to(package).with_suffix("").parts))
        for line, name in imports(path):
            top = name.split(".")[0]
            where = f"{path.relative_to(package.parent)}:{line}"
            if own == "engine" and top not in stdlib and top != "numpy" and not name.startswith("studytool.engine"):
                problems.append(f"{where}: the engine imports {name}")
            if top in UI and own != "cli":
                problems.append(f"{where}: {name} outside studytool/cli/")
            if top == "studytool":
                target = layer_of(name)
                if own in GROUND and target not in GROUND | {""}:
                    problems.append(f"{where}: ground module imports the layer {name}")
                elif own in LEVEL and target in LEVEL and LEVEL[target] > LEVEL[own]:
                    problems.append(f"{where}: {own} imports {name}, a layer above it")
    return problems


def test_every_module_keeps_the_house_rules():
    assert violations(PACKAGE) == []


def test_every_module_has_a_layer():
    tops = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()
            if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists())}
    assert tops <= GROUND | set(LEVEL), tops - GROUND - set(LEVEL)


@pytest.mark.parametrize("planted, expected", [
    ("engine/planted.py", "the engine imports yaml"),
    ("problems/planted.py", "rich.console outside studytool/cli/"),
    ("engine/planted.py", "engine imports studytool.decks.model, a layer above it"),
    ("errors.py", "ground module imports the layer studytool.study.store"),
])
def test_a_broken_rule_is_caught(tmp_path, planted, expected):
    sources = {"engine/planted.py": "import yaml\nfrom studytool.decks.model import Card\n",
               "problems/planted.py": "def f():\n    from rich.console import Console\n",
               "errors.py": "from studytool.study.store import Store\n"}
    for name, text in sources.items():
        target = tmp_path / "studytool" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text if name == planted else "", encoding="utf-8")
    assert any(expected in problem for problem in violations(tmp_path / "studytool"))

"""The house rules as a test: imports point down the layers, and only studytool/cli/ knows typer and rich.

Order, bottom up: engine < problems < decks < features (study/, calc, explain, worksheet, export) < cli.
errors, config, i18n and files are ground: any layer may import them, and they import no layer.
Inside a package the modules import one another without a circle (issue 23): a lazy import inside a function
or under TYPE_CHECKING counts, since it only hides the circle.
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


def module_imports(package: Path) -> dict[str, set[str]]:
    """Each module of `package` (dotted name) -> the modules of `package` it imports, at any depth."""
    names = {".".join(("studytool", *path.relative_to(package).with_suffix("").parts)): path
             for path in package.rglob("*.py")}
    graph = {}
    for name, path in names.items():
        wanted = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                wanted |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}   # a module or a name
        graph[name] = {other for other in wanted if other in names and other != name}
    return graph


def circles(package: Path) -> list[list[str]]:
    """Import circles among the modules of one sub-package (e.g. studytool.problems), each as a sorted list."""
    inside = {name: {other for other in targets if other.rsplit(".", 1)[0] == name.rsplit(".", 1)[0]}
              for name, targets in module_imports(package).items()}
    reach = {name: _reachable(inside, name) for name in inside}
    found = []
    for name in sorted(inside):
        circle = sorted(other for other in reach[name] if name in reach[other])   # name itself, when on one
        if circle and circle not in found:
            found.append(circle)
    return found


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    reach, todo = set(), list(graph[start])
    while todo:
        here = todo.pop()
        if here not in reach:
            reach.add(here)
            todo += graph[here]
    return reach


def test_no_package_imports_in_a_circle():
    assert circles(PACKAGE) == []


def test_a_planted_circle_is_caught(tmp_path):
    # as problems/ had it: registry -> checks -> levels -> masks -> registry, the first and third inside functions
    sources = {"registry.py": "def draw():\n    from studytool.problems.checks import ask_param\n",
               "checks.py": "from studytool.problems.levels import draws\n",
               "levels.py": "def draws():\n    from studytool.problems import masks\n",
               "masks.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                           "    from studytool.problems.registry import Param\n",
               "variant.py": "from studytool.problems.checks import ask_param\n"}   # into the circle, not on it
    for name, text in sources.items():
        target = tmp_path / "studytool" / "problems" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    prefix = "studytool.problems."
    assert circles(tmp_path / "studytool") == [[prefix + name for name in ("checks", "levels", "masks", "registry")]]
    (tmp_path / "studytool" / "problems" / "masks.py").write_text("", encoding="utf-8")
    assert circles(tmp_path / "studytool") == []


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

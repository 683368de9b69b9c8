"""The suite passes wherever it runs: under a learner's environment, and without the optional oracles.

A sample of the suite runs in a pytest of its own under a hostile environment (a Chinese locale,
NO_COLOR, a 40-column terminal, Shanghai's time zone, a dumb terminal) with torch, anki, transformers
and libfaketime made unimportable, as on a machine with only `pip install -e '.[test]'`: it must pass,
the oracle tests skipping with a reason. And no test file may import an oracle unguarded.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORACLES = ("torch", "anki", "transformers", "libfaketime")
HOSTILE = {"LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8", "STUDYTOOL_LANG": "zh", "NO_COLOR": "1",
           "COLUMNS": "40", "TZ": "Asia/Shanghai", "TERM": "dumb"}
# each depends on one of them: torch (masks), colour (pictures), width (cards list), English messages
# (calc, study CLI), the zone (scheduler, clock), anki (the scheduling oracles)
SAMPLE = ["tests/test_calc_masks.py", "tests/cli/test_pictures.py", "tests/cli/test_render_cards.py",
          "tests/test_calc_sizes.py", "tests/study/test_cli.py", "tests/study/test_scheduler.py",
          "tests/study/test_scheduler_clock.py", "tests/study/test_scheduler_anki.py",
          "tests/study/test_scheduler_anki_days.py", "tests/engine/test_against_torch.py"]
HIDE_ORACLES = f"""
import sys
class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {ORACLES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hidden())
import pytest
raise SystemExit(pytest.main(sys.argv[1:]))
"""


def test_a_sample_passes_under_a_hostile_environment_without_the_oracles():
    env = {**os.environ, **HOSTILE}
    done = subprocess.run([sys.executable, "-c", HIDE_ORACLES, "-q", "-rs", "-p", "no:cacheprovider", *SAMPLE],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert "passed" in summary and "failed" not in summary and "error" not in summary, summary
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    for module in ("test_calc_masks.py", "test_scheduler_anki.py", "test_scheduler_anki_days.py",
                   "test_against_torch.py"):
        assert any(module in line for line in skipped), f"{module}: no skip reported\n{done.stdout[-3000:]}"


def _skips_first(function: ast.AST, module: str, line: int) -> bool:
    """Whether `function` calls `pytest.importorskip(module, ...)` before `line`."""
    return any(isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "importorskip"
               and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == module
               and node.lineno < line for node in ast.walk(function))


def _guarded(tree: ast.Module, node: ast.stmt, module: str) -> bool:
    """In a `try` that catches ImportError, or after an importorskip of it in its function."""
    for parent in ast.walk(tree):
        caught = {getattr(handler.type, "id", None) for handler in getattr(parent, "handlers", [])}
        if (isinstance(parent, ast.Try) and caught & {"ImportError", "ModuleNotFoundError"}
                and any(node in ast.walk(statement) for statement in parent.body)):
            return True
    return any(isinstance(function, ast.FunctionDef) and node in ast.walk(function)
               and _skips_first(function, module, node.lineno) for function in ast.walk(tree))


def oracle_imports(path: Path) -> list[str]:
    """The unguarded imports of an optional oracle in one file under tests/, as `FILE:LINE module`.

    A helper that is not a test module may import one inside a function: a subprocess oracle script, run
    only by a test that skipped first."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    helper = not path.name.startswith(("test_", "conftest"))
    in_function = {id(node) for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
                   for node in ast.walk(function)}
    found = []
    for node in ast.walk(tree):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        for name in names:
            module = name.split(".")[0]
            if module in ORACLES and not _guarded(tree, node, module) and not (helper and id(node) in in_function):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    return found


def test_no_test_imports_an_optional_oracle_without_skipping():
    found = [hit for path in sorted((ROOT / "tests").rglob("*.py")) for hit in oracle_imports(path)]
    assert not found, "import these with pytest.importorskip(NAME, reason=...):\n" + "\n".join(found)


def test_the_scan_finds_a_bare_import_and_passes_a_skipped_one(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    bare = tmp_path / "test_bare.py"
    bare.write_text("def test_x():\n    import torch\n    from anki.collection import Collection\n")
    skipped = tmp_path / "test_skipped.py"
    skipped.write_text("import pytest\ntorch = pytest.importorskip('torch')\n\ndef test_y():\n"
                       "    pytest.importorskip('anki', reason='oracle')\n    from anki.collection import Collection\n")
    assert oracle_imports(bare) == ["test_bare.py:2 torch", "test_bare.py:3 anki.collection"]
    assert oracle_imports(skipped) == []

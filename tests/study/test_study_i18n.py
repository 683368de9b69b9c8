"""Every interface string of the study commands has a Chinese translation."""

from __future__ import annotations

import ast
from pathlib import Path

import studytool.study
from studytool.i18n import ZH


def interface_strings() -> set[str]:
    found = set()
    for path in Path(studytool.study.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                found.add(node.args[0].value)
    return found


def test_study_strings_are_all_translated():
    strings = interface_strings()
    assert len(strings) > 20  # the scan found the strings
    assert sorted(s for s in strings if s not in ZH) == []

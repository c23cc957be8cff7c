"""No list of action names outside the specs: every reader goes through `SPECS`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from officegym.harness.actionspec import ACTION_NAMES

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "harness").rglob("*.py")) + [ROOT / "officegym" / "cli.py"]


def _name_lists(path: Path) -> list[str]:
    """Literal tuples, lists and sets in `path` holding two or more action names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            names = [
                e.value
                for e in node.elts
                if isinstance(e, ast.Constant) and e.value in ACTION_NAMES
            ]
            if len(names) >= 2:
                found.append(f"line {node.lineno}: {names}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_lists_action_names_of_its_own(path: Path) -> None:
    assert _name_lists(path) == []

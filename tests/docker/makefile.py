"""A small reader of the Makefile: its variables and each target's recipe, expanded, so the
image recipe can be compared with what `make` runs instead of with a copied string."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Makefile", "read"]

ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?::=|\?=|=)\s*(.*)")
RULE = re.compile(r"([^\s:=#][^:=]*?)\s*:(?!=)(.*)")
REFERENCE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
ESCAPED_DOLLAR = "\0"


@dataclass(frozen=True)
class Makefile:
    variables: dict[str, str]
    recipes: dict[str, list[str]]

    def expand(self, text: str) -> str:
        """`$(NAME)` replaced by the variable's expanded value, `$$` by `$` (what the shell gets)."""
        text = text.replace("$$", ESCAPED_DOLLAR)
        for _ in range(20):
            expanded = REFERENCE.sub(
                lambda m: self.variables.get(m.group(1), "").replace("$$", ESCAPED_DOLLAR), text
            )
            if expanded == text:
                break
            text = expanded
        return text.replace(ESCAPED_DOLLAR, "$")

    def words(self, name: str) -> list[str]:
        return self.expand(self.variables[name]).split()

    @property
    def targets(self) -> set[str]:
        return {self.expand(name) for name in self.recipes}

    def recipe(self, target: str) -> list[str]:
        """The target's recipe lines with variables expanded."""
        recipes = {self.expand(name): lines for name, lines in self.recipes.items()}
        if target not in recipes:
            raise KeyError(f"the Makefile has no rule for {target!r}")
        return [self.expand(line) for line in recipes[target]]


def _joined(text: str) -> list[str]:
    """Lines with backslash continuations joined (a continued recipe line loses its tab)."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.removeprefix("\t") if pending else raw
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        lines.append(pending + line.strip() if pending else line)
        pending = ""
    return lines


def read(path: Path) -> Makefile:
    variables: dict[str, str] = {}
    recipes: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in _joined(path.read_text()):
        if line.startswith("\t"):
            if current is not None:
                current.append(line[1:])
            continue
        current = None
        if not line.strip() or line.startswith("#"):
            continue
        if assignment := ASSIGNMENT.fullmatch(line):
            variables[assignment.group(1)] = assignment.group(2).strip()
        elif rule := RULE.fullmatch(line):
            current = []
            for target in rule.group(1).split():
                recipes[target] = current
    return Makefile(variables=variables, recipes=recipes)

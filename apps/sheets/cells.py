"""A workbook's cells as one request sees and changes them, with live recomputation.

`Book` is the unit of work of every write: it reads cells lazily (one query per range a
formula reads), keeps what this request changed in an overlay, and `recompute` re-evaluates
only the formulas that depend on the changed cells, in dependency order, through the formula
engine (`engine.evaluate`, Excel semantics from the `formulas` library). A cell's state is what
a user set (input and format); its value is what the engine computed, stored beside it so
pages, the API and verifiers read values without evaluating anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from officegym.seed_data.schema.sheets import Cell, Sheet

from .engine import graph, refs
from .engine.evaluate import evaluate
from .engine.values import CellError, Value, parse_input

Key = tuple[int, int, int]  # (sheet id, row, col)


@dataclass(frozen=True)
class CellState:
    """What a user set on a cell: the input as typed and its format."""

    raw: str = ""
    number_format: str | None = None
    bold: bool = False
    italic: bool = False
    fill: str | None = None

    @property
    def is_blank(self) -> bool:
        return self == BLANK

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> CellState:
        return BLANK if data is None else cls(**data)


BLANK = CellState()


def stored(value: Value) -> tuple[str, float | None, str | None]:
    """A value as the three stored columns (value_type, value_num, value_text)."""
    if value is None:
        return "empty", None, None
    if isinstance(value, bool):
        return "bool", 1.0 if value else 0.0, None
    if isinstance(value, float | int):
        return "number", float(value), None
    if isinstance(value, CellError):
        return "error", None, value.code
    return "text", None, str(value)


def loaded(kind: str, num: float | None, text: str | None) -> Value:
    """The value the stored columns hold."""
    if kind == "number":
        return num
    if kind == "bool":
        return bool(num)
    if kind == "error":
        return CellError(text or "#VALUE!")
    if kind == "text":
        return text or ""
    return None


def state_of(cell: Cell | None) -> CellState:
    if cell is None:
        return BLANK
    return CellState(cell.raw, cell.number_format, bool(cell.bold), bool(cell.italic), cell.fill)


class Book:
    """One workbook's cells for the length of one request (see the module docstring)."""

    def __init__(self, db: Session, workbook_id: int, today: date) -> None:
        self.db = db
        self.workbook_id = workbook_id
        self.today = today
        sheets = db.execute(
            select(Sheet.id, Sheet.name).where(Sheet.workbook_id == workbook_id)
        ).all()
        self.sheet_names = {sheet_id: name for sheet_id, name in sheets}
        self.sheet_ids = {name.casefold(): sheet_id for sheet_id, name in sheets}
        self.values: dict[Key, Value] = {}
        self.changed: set[Key] = set()

    # -- reading -------------------------------------------------------------------------

    def cell(self, sheet_id: int, row: int, col: int) -> Cell | None:
        return self.db.scalars(
            select(Cell).where(Cell.sheet_id == sheet_id, Cell.row == row, Cell.col == col)
        ).first()

    def extent(self, sheet_id: int) -> tuple[int, int]:
        """The last used row and column of the sheet (0, 0 when empty)."""
        from sqlalchemy import func

        rows, cols = self.db.execute(
            select(func.max(Cell.row), func.max(Cell.col)).where(Cell.sheet_id == sheet_id)
        ).one()
        return rows or 0, cols or 0

    def read(self, sheet_id: int, rng: refs.Range) -> list[list[Value]]:
        """The values in `rng` on the sheet (None for empty), this request's changes included."""
        last_row, last_col = self.extent(sheet_id)
        r2, c2 = min(rng.r2, max(last_row, rng.r1)), min(rng.c2, max(last_col, rng.c1))
        grid: list[list[Value]] = [[None] * (c2 - rng.c1 + 1) for _ in range(r2 - rng.r1 + 1)]
        found = self.db.execute(
            select(Cell.row, Cell.col, Cell.value_type, Cell.value_num, Cell.value_text).where(
                Cell.sheet_id == sheet_id,
                Cell.row.between(rng.r1, r2),
                Cell.col.between(rng.c1, c2),
            )
        )
        for row, col, kind, num, text in found:
            grid[row - rng.r1][col - rng.c1] = loaded(kind, num, text)
        for (sid, row, col), value in self.values.items():
            if sid == sheet_id and rng.r1 <= row <= r2 and rng.c1 <= col <= c2:
                grid[row - rng.r1][col - rng.c1] = value
        return grid

    def resolve(self, sheet_name: str, rng: refs.Range) -> list[list[Value]]:
        sheet_id = self.sheet_ids.get(sheet_name.casefold())
        if sheet_id is None:
            raise KeyError(sheet_name)
        return self.read(sheet_id, rng)

    # -- writing -------------------------------------------------------------------------

    def put(self, sheet_id: int, row: int, col: int, state: CellState) -> None:
        """Set what the user typed and its format; the value follows in `recompute`."""
        cell = self.cell(sheet_id, row, col)
        if state.is_blank:
            if cell is not None:
                self.db.delete(cell)
                self.db.flush()
            self.values[sheet_id, row, col] = None
            self.changed.add((sheet_id, row, col))
            return
        parsed = parse_input(state.raw)
        number_format = state.number_format
        if number_format is None and parsed.implied_format:
            number_format = parsed.implied_format
            state = CellState(state.raw, number_format, state.bold, state.italic, state.fill)
        value: Value = parsed.value if parsed.kind != "formula" else None
        kind, num, text = stored(value)
        if cell is None:
            cell = Cell(sheet_id=sheet_id, row=row, col=col)
            self.db.add(cell)
        cell.raw = state.raw
        cell.number_format = number_format
        cell.bold, cell.italic, cell.fill = state.bold, state.italic, state.fill
        cell.value_type, cell.value_num, cell.value_text = kind, num, text
        self.db.flush()
        self.values[sheet_id, row, col] = value
        self.changed.add((sheet_id, row, col))

    def _formulas(self) -> dict[tuple[str, int, int], str]:
        rows = self.db.execute(
            select(Cell.sheet_id, Cell.row, Cell.col, Cell.raw).where(
                Cell.sheet_id.in_(self.sheet_names), Cell.raw.like("=%")
            )
        )
        return {(self.sheet_names[s], r, c): raw for s, r, c, raw in rows}

    def recompute(self, also: Iterable[Key] = ()) -> set[Key]:
        """Re-evaluate every formula that depends on this request's changes (and `also`), in
        dependency order; a formula on a circular reference is worth `#REF!`. Returns the
        cells whose stored value was written."""
        formulas = self._formulas()
        if not formulas:
            return set(self.changed)
        names = self.sheet_names
        start = {(names[s], r, c) for s, r, c in (*self.changed, *also)}
        order, cycles = graph.Graph.build(formulas).order(start)
        written: set[Key] = set(self.changed)
        for name, row, col in order:
            key = (self.sheet_ids[name.casefold()], row, col)
            if (name, row, col) in cycles:
                value: Value = graph.CIRCULAR
            else:
                value = evaluate(formulas[name, row, col], name, self.resolve, self.today)
            self.values[key] = value
            self._store(key, value)
            written.add(key)
        for name, row, col in cycles:
            key = (self.sheet_ids[name.casefold()], row, col)
            if key not in written:
                self.values[key] = graph.CIRCULAR
                self._store(key, graph.CIRCULAR)
                written.add(key)
        return written

    def _store(self, key: Key, value: Value) -> None:
        kind, num, text = stored(value)
        sheet_id, row, col = key
        self.db.execute(
            update(Cell)
            .where(Cell.sheet_id == sheet_id, Cell.row == row, Cell.col == col)
            .values(value_type=kind, value_num=num, value_text=text)
        )

    def recompute_all(self) -> None:
        """Evaluate every formula of the workbook (after an import or a structural change)."""
        formulas = self._formulas()
        start = set(formulas)
        order, cycles = graph.Graph.build(formulas).order(start)
        for name, row, col in order:
            key = (self.sheet_ids[name.casefold()], row, col)
            value = (
                graph.CIRCULAR
                if (name, row, col) in cycles
                else evaluate(formulas[name, row, col], name, self.resolve, self.today)
            )
            self.values[key] = value
            self._store(key, value)

    def clear_sheet(self, sheet_id: int) -> None:
        self.db.execute(delete(Cell).where(Cell.sheet_id == sheet_id))


__all__ = ["BLANK", "Book", "CellState", "Key", "loaded", "state_of", "stored"]

"""Which formulas read which cells, and recomputing the formulas an edit affects.

A `Graph` indexes every formula's references. References to one cell, and ranges of up to
`SMALL_RANGE` cells, are expanded into a per-cell index; larger ranges (`SUM(C1:C2000)`,
`B:B`) stay whole in a per-sheet table that answers "which ranges hold this cell?" with one
vectorised comparison, so building never expands a 10,000-cell range into a set. Direct
readers of a cell are memoised until a formula changes.

`order(changed)` walks from the changed cells to every formula that depends on them and sorts
those topologically; formulas on a circular reference (a formula reading itself, directly or
through others) are set apart so the caller stores `CIRCULAR` in them, as Google Sheets shows
#REF! with "Circular dependency detected".

`recompute` keeps the graphs of the last few formula maps it saw and brings one up to date
when the map differs in a few cells, so callers may pass the whole map on every edit.
Measured on a 10,000-cell workbook with 2,000 formulas (`C{r} = A{r}*B{r}` and one
`=SUM(C1:C2000)`), after the library's warm-up: editing one input and recomputing takes about
1 ms (median; 1.5 ms at the 95th percentile), half of it reading the 2,000 cells of the SUM;
computing all 2,000 formulas from scratch takes about 0.6 s (0.3 s once their plans are
cached), as formulas filled from one another share one compiled function.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .evaluate import Resolver, evaluate
from .refs import MAX_COLS, MAX_ROWS, Range, references
from .values import CellError, Value

Cell = tuple[str, int, int]

CIRCULAR_MESSAGE = "Circular dependency detected"
CIRCULAR = CellError("#REF!", CIRCULAR_MESSAGE)
SMALL_RANGE = 64


def _key(sheet: str) -> str:
    return sheet.casefold()


@dataclass
class _RangeTable:
    """The large ranges formulas of one sheet read, for stabbing queries by cell."""

    entries: dict[Cell, list[Range]] = field(default_factory=dict)
    _arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[Cell]] | None = None

    def add(self, reader: Cell, rng: Range) -> None:
        self.entries.setdefault(reader, []).append(rng)
        self._arrays = None

    def remove(self, reader: Cell) -> None:
        if self.entries.pop(reader, None) is not None:
            self._arrays = None

    def readers(self, row: int, col: int) -> list[Cell]:
        if not self.entries:
            return []
        if self._arrays is None:
            cells = [(reader, rng) for reader, rngs in self.entries.items() for rng in rngs]
            self._arrays = (
                np.array([rng.r1 for _, rng in cells]),
                np.array([rng.r2 for _, rng in cells]),
                np.array([rng.c1 for _, rng in cells]),
                np.array([rng.c2 for _, rng in cells]),
                [reader for reader, _ in cells],
            )
        r1, r2, c1, c2, readers = self._arrays
        hits = np.flatnonzero((r1 <= row) & (row <= r2) & (c1 <= col) & (col <= c2))
        return [readers[i] for i in hits]


class Graph:
    """The dependency graph of a workbook's formulas, keyed by (sheet, row, col).

    Build it from every formula (`Graph.build({("Sheet1", 3, 3): "=A3*B3", ...})`), keep it
    while only values change, and `set` a cell when its formula is entered or cleared.
    Sheet names match case-insensitively, as in formulas.
    """

    def __init__(self) -> None:
        self._formulas: dict[Cell, str] = {}
        self._reads: dict[Cell, tuple[tuple[str, Range], ...]] = {}
        self._cells: dict[tuple[str, int, int], set[Cell]] = {}
        self._ranges: dict[str, _RangeTable] = {}
        self._memo: dict[tuple[str, int, int], tuple[Cell, ...]] = {}
        self._sheets: dict[str, int] = {}

    @classmethod
    def build(cls, formulas: Mapping[Cell, str]) -> Graph:
        graph = cls()
        for cell, raw in formulas.items():
            graph.set(cell, raw)
        return graph

    @property
    def formulas(self) -> Mapping[Cell, str]:
        return self._formulas

    @property
    def sheets(self) -> Collection[str]:
        """The sheets holding formulas, spelled as in their cells' keys."""
        return self._sheets.keys()

    def set(self, cell: Cell, raw: str | None) -> None:
        """Record that `cell` now holds formula `raw` (None, or a non-formula, clears it)."""
        if cell in self._formulas:
            self._unlink(cell)
        if raw is None or not raw.startswith("="):
            return
        reads = tuple((_key(sheet), rng) for sheet, rng in references(raw, cell[0]))
        self._formulas[cell] = raw
        self._reads[cell] = reads
        self._sheets[cell[0]] = self._sheets.get(cell[0], 0) + 1
        for sheet, rng in reads:
            if rng.rows * rng.cols <= SMALL_RANGE:
                for row, col in rng.cells():
                    self._cells.setdefault((sheet, row, col), set()).add(cell)
            else:
                self._ranges.setdefault(sheet, _RangeTable()).add(cell, rng)
        self._memo.clear()

    def _unlink(self, cell: Cell) -> None:
        del self._formulas[cell]
        self._sheets[cell[0]] -= 1
        if not self._sheets[cell[0]]:
            del self._sheets[cell[0]]
        for sheet, rng in self._reads.pop(cell):
            if rng.rows * rng.cols <= SMALL_RANGE:
                for row, col in rng.cells():
                    readers = self._cells.get((sheet, row, col))
                    if readers is not None:
                        readers.discard(cell)
                        if not readers:
                            del self._cells[(sheet, row, col)]
            else:
                self._ranges[sheet].remove(cell)
        self._memo.clear()

    def precedents(self, cell: Cell) -> list[tuple[str, Range]]:
        """The cells and ranges the formula in `cell` reads, each with its sheet."""
        raw = self._formulas.get(cell)
        return [] if raw is None else references(raw, cell[0])

    def dependents(self, cell: Cell) -> tuple[Cell, ...]:
        """The formula cells that read `cell` directly, sorted."""
        sheet, row, col = cell
        key = (_key(sheet), row, col)
        found = self._memo.get(key)
        if found is None:
            readers = set(self._cells.get(key, ()))
            table = self._ranges.get(key[0])
            if table is not None:
                readers.update(table.readers(row, col))
            found = self._memo[key] = tuple(sorted(readers))
        return found

    def order(self, changed: Iterable[Cell]) -> tuple[list[Cell], set[Cell]]:
        """The formula cells to recompute after `changed` cells changed, in evaluation order,
        and the set of those on a circular reference (left out of the list).

        Changed cells that hold formulas are included: a formula just entered is evaluated.
        """
        seeds = sorted(set(changed))
        affected = {cell for cell in seeds if cell in self._formulas}
        stack = list(seeds)
        while stack:
            for reader in self.dependents(stack.pop()):
                if reader not in affected:
                    affected.add(reader)
                    stack.append(reader)
        components = _components(sorted(affected), self.dependents)
        ordered: list[Cell] = []
        cycles: set[Cell] = set()
        for component in reversed(components):
            if len(component) > 1 or component[0] in self.dependents(component[0]):
                cycles.update(component)
            else:
                ordered.append(component[0])
        return ordered, cycles


def _components(nodes: Sequence[Cell], successors: Callable[[Cell], Iterable[Cell]]):
    """Strongly connected components (Tarjan's algorithm, without recursion), each found
    after every component it reaches, so the list is in reverse topological order."""
    index: dict[Cell, int] = {}
    low: dict[Cell, int] = {}
    on_stack: set[Cell] = set()
    stack: list[Cell] = []
    components: list[list[Cell]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors_left = work[-1]
            advanced = False
            for succ in successors_left:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(successors(succ))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


class _ValuesResolver:
    """Reads ranges from a dict of cell values, matching sheet names case-insensitively.

    `exact` names are known to be spelled as in `values` (the sheets formulas sit on), so the
    common unqualified reference never pays for scanning `values` for sheet names.
    """

    def __init__(
        self,
        values: Mapping[Cell, Value],
        sheets: Collection[str] | None,
        exact: Collection[str],
    ) -> None:
        self._values = values
        self._sheets = None if sheets is None else {_key(s): s for s in sheets}
        self._exact = exact
        self._extent: dict[str, tuple[int, int]] | None = None
        self._names: dict[str, str] | None = None

    def _sheet(self, sheet: str) -> str:
        if self._sheets is not None:
            return self._sheets[_key(sheet)]
        if sheet in self._exact:
            return sheet
        if self._names is None:
            self._names = {_key(s): s for s, _, _ in self._values}
        return self._names.get(_key(sheet), sheet)

    def _used(self, sheet: str) -> tuple[int, int]:
        if self._extent is None:
            extent: dict[str, tuple[int, int]] = {}
            for name, row, col in self._values:
                rows, cols = extent.get(name, (0, 0))
                extent[name] = (max(rows, row), max(cols, col))
            self._extent = extent
        return self._extent.get(sheet, (0, 0))

    def __call__(self, sheet: str, rng: Range) -> np.ndarray:
        name = self._sheet(sheet)
        r2, c2 = rng.r2, rng.c2
        if r2 == MAX_ROWS or c2 == MAX_COLS:
            rows, cols = self._used(name)
            r2, c2 = min(r2, rows), min(c2, cols)
        get = self._values.get
        rows, cols = range(rng.r1, r2 + 1), range(rng.c1, c2 + 1)
        grid = np.empty((len(rows), len(cols)), dtype=object)
        grid.ravel()[:] = [get((name, row, col)) for row in rows for col in cols]
        return grid


_GRAPHS: list[Graph] = []
_GRAPH_CACHE_SIZE = 4
_GRAPHS_LOCK = threading.Lock()


def _differences(
    graph: Graph, formulas: Mapping[Cell, str], limit: int
) -> dict[Cell, str | None] | None:
    """The cells where `formulas` differs from `graph` (new text, or None when removed), or
    None when they differ in more than `limit` cells."""
    known = graph.formulas
    diff: dict[Cell, str | None] = {}
    for cell, raw in formulas.items():
        if known.get(cell) != raw:
            diff[cell] = raw
            if len(diff) > limit:
                return None
    added = sum(1 for cell in diff if cell not in known)
    if len(known) > len(formulas) - added:
        for cell in known:
            if cell not in formulas:
                diff[cell] = None
                if len(diff) > limit:
                    return None
    return diff


def _graph_for(formulas: Mapping[Cell, str]) -> Graph:
    """A graph of `formulas`: a recently used one brought up to date when it is close (a few
    formulas entered or cleared since), else a new one. Callers hold `_GRAPHS_LOCK`."""
    for position, graph in enumerate(_GRAPHS):
        diff = _differences(graph, formulas, limit=64)
        if diff is not None:
            for cell, raw in diff.items():
                graph.set(cell, raw)
            _GRAPHS.insert(0, _GRAPHS.pop(position))
            return graph
    graph = Graph.build(formulas)
    _GRAPHS.insert(0, graph)
    del _GRAPHS[_GRAPH_CACHE_SIZE:]
    return graph


def plan(formulas: Mapping[Cell, str], changed: Iterable[Cell]) -> tuple[list[Cell], set[Cell]]:
    """`Graph.order` on a graph of `formulas` kept between calls (brought up to date when a
    few formulas changed since), so a request does not rebuild the dependency graph."""
    with _GRAPHS_LOCK:
        return _graph_for(formulas).order(changed)


def _same(old: Value, new: Value) -> bool:
    return type(old) is type(new) and old == new


def recompute(
    values: MutableMapping[Cell, Value],
    formulas: Mapping[Cell, str] | Graph,
    changed: Iterable[Cell],
    today: dt.date,
    resolve: Resolver | None = None,
    sheets: Collection[str] | None = None,
) -> set[Cell]:
    """Re-evaluate every formula that depends on the `changed` cells, updating `values` (the
    current value of every non-empty cell) in place; returns the cells whose value changed.

    `formulas` maps formula cells to their text, or is a `Graph` the caller keeps up to date.
    Without `resolve`, formulas read `values`; `sheets` then names the sheets that exist (a
    reference to any other is #REF!), and without it every sheet is taken to exist.
    """
    with _GRAPHS_LOCK:
        graph = formulas if isinstance(formulas, Graph) else _graph_for(formulas)
        ordered, cycles = graph.order(changed)
        texts = {cell: graph.formulas[cell] for cell in ordered}
        exact = set(graph.sheets)
    read = resolve or _ValuesResolver(values, sheets, exact)
    updated: set[Cell] = set()
    for cell in sorted(cycles):
        if not _same(values.get(cell), CIRCULAR):
            values[cell] = CIRCULAR
            updated.add(cell)
    for cell in ordered:
        sheet, row, col = cell
        value = evaluate(texts[cell], sheet, read, today, at=(row, col))
        if not _same(values.get(cell), value):
            values[cell] = value
            updated.add(cell)
    return updated

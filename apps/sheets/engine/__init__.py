"""The Sheets formula engine: addresses and reference rewriting, typed input, Excel-semantics
evaluation, the dependency graph, and number formats. Pure Python: no database, no Flask.
"""

from .evaluate import FormulaSyntaxError, Resolver, check, evaluate
from .graph import CIRCULAR, CIRCULAR_MESSAGE, Cell, Graph, recompute
from .numfmt import FORMATS, UnsupportedFormat, display
from .refs import (
    MAX_COLS,
    MAX_ROWS,
    Range,
    address,
    column_letters,
    column_number,
    delete,
    insert,
    parse_address,
    parse_range,
    quote_sheet,
    references,
    rename_sheet,
    shift,
)
from .values import ERROR_CODES, CellError, Parsed, Value, from_date, parse_input, to_date

__all__ = [
    "CIRCULAR",
    "CIRCULAR_MESSAGE",
    "ERROR_CODES",
    "FORMATS",
    "MAX_COLS",
    "MAX_ROWS",
    "Cell",
    "CellError",
    "FormulaSyntaxError",
    "Graph",
    "Parsed",
    "Range",
    "Resolver",
    "UnsupportedFormat",
    "Value",
    "address",
    "check",
    "column_letters",
    "column_number",
    "delete",
    "display",
    "evaluate",
    "from_date",
    "insert",
    "parse_address",
    "parse_input",
    "parse_range",
    "quote_sheet",
    "recompute",
    "references",
    "rename_sheet",
    "shift",
    "to_date",
]

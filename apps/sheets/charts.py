"""Charts of a sheet's range drawn as self-contained SVG: grouped bars, lines, or a pie.

The drawing is plain SVG text with no scripts, fonts, links or other resources, so a page can
inline it and a test can parse it. The root is an image labelled by its `<title>` and a
`<desc>` that lists every value (`Enterprise: 120,000; Mid-Market: 80,000`): the accessibility
tree carries the numbers as well as the picture. The same input gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from decimal import Decimal
from xml.sax.saxutils import escape

from .book import number_text

Value = float | str | bool | None

KINDS = ("bar", "line", "pie")
PALETTE = (
    "#4E79A7",
    "#F28E2B",
    "#E15759",
    "#76B7B2",
    "#59A14F",
    "#EDC948",
    "#B07AA1",
    "#FF9DA7",
)
MIN_WIDTH, MIN_HEIGHT = 160, 120
NO_DATA = "No data"

_FONT = 'font-family="sans-serif"'
_INK = "#333333"
_GRID = "#DDDDDD"
_LABEL_CHARS = 14
# Characters XML 1.0 does not allow: they would make the SVG unreadable, so they are dropped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class ChartError(ValueError):
    """A chart that cannot be drawn as asked, with a message that says what to change."""


def chart_svg(
    kind: str,
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    width: int = 480,
    height: int = 300,
) -> str:
    """An SVG drawing of `series` (name, one value per label) over the category `labels`.

    `bar` draws vertical bars grouped by label, `line` one line per series, `pie` the first
    series' positive values as slices labelled with their share. A series shorter than
    `labels` is padded with None; None, NaN and infinite values are left out of the picture
    (and listed as "no value"). With nothing to draw the chart says "No data". Raises
    ChartError for an unknown kind or a size smaller than 160×120.
    """
    if kind not in KINDS:
        raise ChartError(f"'{kind}' is not a chart type; use one of {', '.join(KINDS)}.")
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        raise ChartError(f"A chart needs at least {MIN_WIDTH}×{MIN_HEIGHT} pixels.")
    labels = [str(label) for label in labels]
    clean = [
        (str(name), [_finite(values[i]) if i < len(values) else None for i in range(len(labels))])
        for name, values in series
    ]
    if kind == "pie":
        clean = clean[:1]
    chart_id = (
        "chart-"
        + hashlib.sha256(
            json.dumps([kind, title, labels, clean, width, height]).encode()
        ).hexdigest()[:10]
    )
    has_data = any(v is not None for _, values in clean for v in values)
    if kind == "pie":
        has_data = any(v is not None and v > 0 for v in clean[0][1]) if clean else False
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f'<title id="{chart_id}-title">{_text(title)}</title>',
        f'<desc id="{chart_id}-desc">{_text(_describe(kind, labels, clean, has_data))}</desc>',
        f'<rect width="{width}" height="{height}" fill="#FFFFFF"/>',
        f'<text x="{_n(width / 2)}" y="22" text-anchor="middle" font-size="15" '
        f'font-weight="bold" fill="{_INK}" {_FONT}>{_text(_clip(title, width // 9))}</text>',
    ]
    if not has_data:
        parts.append(
            f'<text class="no-data" x="{_n(width / 2)}" y="{_n(height / 2)}" '
            f'text-anchor="middle" font-size="13" fill="#777777" {_FONT}>{NO_DATA}</text>'
        )
    elif kind == "pie":
        parts += _pie(labels, clean[0][1], width, height)
    else:
        legend = len(clean) > 1
        parts += _axes_chart(kind, labels, clean, width, height, legend)
        if legend:
            parts += _legend([name for name, _ in clean], width, height)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def series_from_range(
    grid: Sequence[Sequence[Value]],
) -> tuple[list[str], list[tuple[str, list[float | None]]]]:
    """Labels and series from a sheet range's values: the first column holds the labels, the
    first row the series' names, the other cells numbers (text, booleans and blanks → None).

    Columns without a single number are left out. Raises ChartError for a range without a
    header row and a data row, or without a column of numbers.
    """
    if len(grid) < 2 or max((len(row) for row in grid), default=0) < 2:
        raise ChartError(
            "Choose a range with labels in its first column, series names in its first row, "
            "and numbers below them."
        )
    head = grid[0]
    body = grid[1:]
    labels = [_label(row[0] if row else None) for row in body]
    series: list[tuple[str, list[float | None]]] = []
    columns = max(len(row) for row in grid)
    for col in range(1, columns):
        values = [_finite(row[col] if col < len(row) else None) for row in body]
        if any(v is not None for v in values):
            name = _label(head[col] if col < len(head) else None) or f"Series {col}"
            series.append((name, values))
    if not series:
        raise ChartError("The range has no column of numbers to chart.")
    return labels, series


def _axes_chart(
    kind: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    width: int,
    height: int,
    legend: bool,
) -> list[str]:
    left, right, top = 56.0, width - 16.0, 40.0
    bottom = height - (56.0 if legend else 36.0)
    numbers = [v for _, values in series for v in values if v is not None]
    ticks = _ticks(min(numbers), max(numbers))
    low, high = ticks[0], ticks[-1]

    def y(value: float) -> float:
        return bottom - (value - low) / (high - low) * (bottom - top)

    parts = []
    for tick in ticks:
        parts.append(
            f'<line class="grid" x1="{_n(left)}" x2="{_n(right)}" y1="{_n(y(tick))}" '
            f'y2="{_n(y(tick))}" stroke="{_GRID}" stroke-width="1"/>'
        )
        parts.append(
            f'<text class="tick" x="{_n(left - 6)}" y="{_n(y(tick) + 4)}" text-anchor="end" '
            f'font-size="11" fill="{_INK}" {_FONT}>{_short(tick)}</text>'
        )
    zero = y(min(max(0.0, low), high))
    parts.append(
        f'<line class="axis" x1="{_n(left)}" x2="{_n(right)}" y1="{_n(zero)}" y2="{_n(zero)}" '
        f'stroke="{_INK}" stroke-width="1"/>'
    )
    band = (right - left) / max(len(labels), 1)
    for i, label in enumerate(labels):
        parts.append(
            f'<text class="category" x="{_n(left + band * (i + 0.5))}" y="{_n(bottom + 16)}" '
            f'text-anchor="middle" font-size="11" fill="{_INK}" {_FONT}>'
            f"{_text(_clip(label, max(int(band // 7), 3)))}</text>"
        )
    if kind == "bar":
        bar = band * 0.8 / len(series)
        for s, (name, values) in enumerate(series):
            colour = PALETTE[s % len(PALETTE)]
            for i, value in enumerate(values):
                if value is None:
                    continue
                x = left + band * i + band * 0.1 + bar * s
                top_y, bottom_y = sorted((y(value), zero))
                parts.append(
                    f'<rect class="bar" x="{_n(x)}" y="{_n(top_y)}" width="{_n(bar)}" '
                    f'height="{_n(bottom_y - top_y)}" fill="{colour}">'
                    f"<title>{_text(f'{name} · {labels[i]}: {_full(value)}')}</title></rect>"
                )
    else:
        for s, (name, values) in enumerate(series):
            colour = PALETTE[s % len(PALETTE)]
            for run in _runs(values):
                if len(run) > 1:
                    points = " ".join(f"{_n(left + band * (i + 0.5))},{_n(y(v))}" for i, v in run)
                    parts.append(
                        f'<polyline class="line" points="{points}" fill="none" '
                        f'stroke="{colour}" stroke-width="2"/>'
                    )
            for i, value in enumerate(values):
                if value is None:
                    continue
                parts.append(
                    f'<circle class="point" cx="{_n(left + band * (i + 0.5))}" cy="{_n(y(value))}" '
                    f'r="3.5" fill="{colour}">'
                    f"<title>{_text(f'{name} · {labels[i]}: {_full(value)}')}</title></circle>"
                )
    return parts


def _pie(
    labels: Sequence[str], values: Sequence[float | None], width: int, height: int
) -> list[str]:
    slices = [
        (label, v) for label, v in zip(labels, values, strict=True) if v is not None and v > 0
    ]
    total = 0.0
    for _, value in slices:
        total += value
    cx, cy = width / 2, (height + 32) / 2
    radius = max(min(width / 2 - 90, (height - 32) / 2 - 24), 20.0)
    parts = []
    start = -math.pi / 2
    for i, (label, value) in enumerate(slices):
        share = value / total
        sweep = share * 2 * math.pi
        colour = PALETTE[i % len(PALETTE)]
        tip = f"<title>{_text(f'{label}: {_full(value)} ({_percent(share)})')}</title>"
        if len(slices) == 1:
            parts.append(
                f'<circle class="slice" cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(radius)}" '
                f'fill="{colour}" stroke="#FFFFFF" stroke-width="1">{tip}</circle>'
            )
        else:
            end = start + sweep
            x1, y1 = cx + radius * math.cos(start), cy + radius * math.sin(start)
            x2, y2 = cx + radius * math.cos(end), cy + radius * math.sin(end)
            large = 1 if sweep > math.pi else 0
            parts.append(
                f'<path class="slice" d="M{_n(cx)},{_n(cy)} L{_n(x1)},{_n(y1)} '
                f'A{_n(radius)},{_n(radius)} 0 {large} 1 {_n(x2)},{_n(y2)} Z" '
                f'fill="{colour}" stroke="#FFFFFF" stroke-width="1">{tip}</path>'
            )
        middle = start + sweep / 2
        lx, ly = cx + (radius + 10) * math.cos(middle), cy + (radius + 10) * math.sin(middle)
        anchor = "start" if math.cos(middle) >= 0 else "end"
        parts.append(
            f'<text class="slice-label" x="{_n(lx)}" y="{_n(ly + 4)}" text-anchor="{anchor}" '
            f'font-size="11" fill="{_INK}" {_FONT}>'
            f"{_text(_clip(label, _LABEL_CHARS))} {_percent(share)}</text>"
        )
        start += sweep
    return parts


def _legend(names: Sequence[str], width: int, height: int) -> list[str]:
    slot = (width - 32) / len(names)
    parts = []
    for s, name in enumerate(names):
        x = 16 + slot * s
        parts.append(
            f'<g class="legend-item"><rect x="{_n(x)}" y="{height - 22}" width="10" height="10" '
            f'fill="{PALETTE[s % len(PALETTE)]}"/><text x="{_n(x + 14)}" y="{height - 13}" '
            f'font-size="11" fill="{_INK}" {_FONT}>{_text(_clip(name, max(int(slot // 7) - 2, 3)))}'
            "</text></g>"
        )
    return parts


def _describe(
    kind: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    has_data: bool,
) -> str:
    if not has_data:
        return f"{kind.capitalize()} chart. {NO_DATA}."
    if kind == "pie":
        name, values = series[0]
        total = 0.0
        for value in values:
            if value is not None and value > 0:
                total += value
        items = [
            f"{label}: {_full(v)} ({_percent(v / total)})"
            if v is not None and v > 0
            else f"{label}: {'no value' if v is None else _full(v) + ' (not shown)'}"
            for label, v in zip(labels, values, strict=True)
        ]
        return f"Pie chart of {name}. " + "; ".join(items) + "."
    parts = [f"{kind.capitalize()} chart, {len(series)} series."]
    for name, values in series:
        items = [
            f"{label}: {'no value' if v is None else _full(v)}"
            for label, v in zip(labels, values, strict=True)
        ]
        parts.append(f"{name} — " + "; ".join(items) + ".")
    return " ".join(parts)


def _ticks(low: float, high: float) -> list[float]:
    """Evenly spaced round values (steps of 1, 2, 2.5 or 5 times a power of ten) covering zero
    and the data, about five of them; computed in decimal so 0.1 steps give 0.3, not
    0.30000000000000004."""
    low, high = min(low, 0.0), max(high, 0.0)
    if low == high:
        high = 1.0
    raw = (high - low) / 4
    exponent = math.floor(math.log10(raw))
    step = next(
        Decimal(m).scaleb(exponent)
        for m in ("1", "2", "2.5", "5", "10")
        if float(Decimal(m).scaleb(exponent)) >= raw
    )
    first = math.floor(Decimal(repr(low)) / step)
    last = math.ceil(Decimal(repr(high)) / step)
    return [float(k * step) for k in range(first, last + 1)]


def _runs(values: Sequence[float | None]) -> list[list[tuple[int, float]]]:
    """The stretches of consecutive values, split where a value is missing."""
    runs: list[list[tuple[int, float]]] = [[]]
    for i, value in enumerate(values):
        if value is None:
            runs.append([])
        else:
            runs[-1].append((i, value))
    return [run for run in runs if run]


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _label(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return number_text(value)
    return str(value)


def _full(value: float) -> str:
    """A value as the description reads it: `120,000`, `1,234.5`, `-0.25`."""
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{round(value, 4):,}"


def _short(value: float) -> str:
    """A tick value in a few characters: `120K`, `2.5M`, `0.5`, `1e-20`."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if size <= abs(value) < size * 1000:
            return f"{value / size:.4g}{suffix}"
    return f"{value:.6g}"


def _percent(share: float) -> str:
    return number_text(round(share * 100, 1)) + "%"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def _text(text: str) -> str:
    return escape(_NOT_XML.sub("", text))


def _n(value: float) -> str:
    """A coordinate with at most two decimals."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


__all__ = ["KINDS", "PALETTE", "ChartError", "chart_svg", "series_from_range"]

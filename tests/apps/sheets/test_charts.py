"""Charts as SVG: well-formed, self-contained, described for the accessibility tree, drawn
with one mark per value, and the same bytes for the same data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from officegym.apps.sheets.charts import ChartError, chart_svg, series_from_range

SVG = "{http://www.w3.org/2000/svg}"
SEGMENTS = ["Enterprise", "Mid-Market", "SMB"]
REVENUE = ("Revenue", [120_000.0, 80_000.0, 40_000.0])
COST = ("Cost", [50_000.0, None, 30_000.0])


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _marks(root: ET.Element, tag: str, css_class: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}{tag}") if e.get("class") == css_class]


def _desc(root: ET.Element) -> str:
    return root.find(f"{SVG}desc").text


# --- every kind -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bar", "line", "pie"])
def test_the_root_is_an_image_labelled_by_its_title_and_description(kind):
    root = _parse(chart_svg(kind, "Revenue by segment", SEGMENTS, [REVENUE]))
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert title.text == "Revenue by segment"


@pytest.mark.parametrize("kind", ["bar", "line", "pie"])
def test_the_same_data_gives_the_same_bytes(kind):
    assert chart_svg(kind, "T", SEGMENTS, [REVENUE, COST]) == chart_svg(
        kind, "T", SEGMENTS, [REVENUE, COST]
    )


@pytest.mark.parametrize("kind", ["bar", "line", "pie"])
def test_nothing_outside_the_drawing_is_referenced(kind):
    svg = chart_svg(kind, "T", SEGMENTS, [REVENUE, COST])
    tags = {element.tag.removeprefix(SVG) for element in _parse(svg).iter()}
    assert tags <= {
        "svg",
        "title",
        "desc",
        "rect",
        "text",
        "line",
        "polyline",
        "circle",
        "path",
        "g",
    }
    assert "href" not in svg
    assert "url(" not in svg
    assert "@import" not in svg


@pytest.mark.parametrize("kind", ["bar", "line", "pie"])
def test_markup_in_titles_and_labels_is_escaped(kind):
    svg = chart_svg(kind, "<script>alert(1)</script>", ["<b>&</b>"], [("<i>", [1.0])])
    root = _parse(svg)
    assert "<script>" not in svg
    assert root.find(f"{SVG}title").text == "<script>alert(1)</script>"
    assert not list(root.iter("script")) and not list(root.iter(f"{SVG}script"))
    assert "<b>&</b>: 1" in _desc(root)


def test_control_characters_are_dropped_so_the_svg_stays_well_formed():
    root = _parse(chart_svg("bar", "Q1\x00\x1b", ["a\x07"], [("s", [1.0])]))
    assert root.find(f"{SVG}title").text == "Q1"


@pytest.mark.parametrize("kind", ["bar", "line", "pie"])
def test_empty_data_draws_an_empty_chart_saying_no_data(kind):
    root = _parse(chart_svg(kind, "Nothing yet", [], []))
    assert [e.text for e in _marks(root, "text", "no-data")] == ["No data"]
    assert _desc(root).endswith("No data.")


def test_values_that_are_all_missing_draw_no_data():
    root = _parse(chart_svg("line", "T", ["a", "b"], [("s", [None, float("nan")])]))
    assert _marks(root, "text", "no-data")


def test_an_unknown_kind_is_refused():
    with pytest.raises(ChartError, match="'donut' is not a chart type; use one of bar, line, pie"):
        chart_svg("donut", "T", SEGMENTS, [REVENUE])


def test_a_size_too_small_to_draw_is_refused():
    with pytest.raises(ChartError, match="at least 160×120"):
        chart_svg("bar", "T", SEGMENTS, [REVENUE], width=100, height=80)


# --- bar --------------------------------------------------------------------------------------


def test_bars_are_drawn_one_per_present_value():
    root = _parse(chart_svg("bar", "T", SEGMENTS, [REVENUE, COST]))
    assert len(_marks(root, "rect", "bar")) == 5


def test_the_description_lists_every_value_of_every_series():
    root = _parse(chart_svg("bar", "T", SEGMENTS, [REVENUE, COST]))
    desc = _desc(root)
    assert "Revenue — Enterprise: 120,000; Mid-Market: 80,000; SMB: 40,000." in desc
    assert "Cost — Enterprise: 50,000; Mid-Market: no value; SMB: 30,000." in desc


def test_a_legend_names_the_series_when_there_are_several():
    two = _parse(chart_svg("bar", "T", SEGMENTS, [REVENUE, COST]))
    one = _parse(chart_svg("bar", "T", SEGMENTS, [REVENUE]))
    assert [g.find(f"{SVG}text").text for g in _marks(two, "g", "legend-item")] == [
        "Revenue",
        "Cost",
    ]
    assert not _marks(one, "g", "legend-item")


def test_the_value_axis_has_round_ticks_covering_zero_and_the_data():
    root = _parse(chart_svg("bar", "T", SEGMENTS, [REVENUE]))
    assert [t.text for t in _marks(root, "text", "tick")] == [
        "0",
        "50K",
        "100K",
        "150K",
    ]


def test_ticks_of_small_steps_are_exact_decimals():
    root = _parse(chart_svg("line", "T", ["a", "b"], [("s", [0.1, 0.3])]))
    assert [t.text for t in _marks(root, "text", "tick")] == ["0", "0.1", "0.2", "0.3"]


def test_negative_bars_hang_below_the_zero_line():
    root = _parse(chart_svg("bar", "T", ["a", "b"], [("s", [10.0, -5.0])]))
    axis = _marks(root, "line", "axis")[0]
    up, down = _marks(root, "rect", "bar")
    zero = float(axis.get("y1"))
    assert float(up.get("y")) + float(up.get("height")) == pytest.approx(zero)
    assert float(down.get("y")) == pytest.approx(zero)
    assert [t.text for t in _marks(root, "text", "tick")][0] == "-5"


def test_each_bar_carries_its_value_as_a_tooltip():
    root = _parse(chart_svg("bar", "T", SEGMENTS, [REVENUE]))
    first = _marks(root, "rect", "bar")[0]
    assert first.find(f"{SVG}title").text == "Revenue · Enterprise: 120,000"


# --- line -------------------------------------------------------------------------------------


def test_lines_have_a_point_per_present_value_and_break_at_missing_ones():
    root = _parse(chart_svg("line", "T", SEGMENTS, [REVENUE, COST]))
    assert len(_marks(root, "circle", "point")) == 5
    lines = _marks(root, "polyline", "line")
    assert [len(line.get("points").split()) for line in lines] == [3]


def test_category_labels_are_drawn_under_the_axis():
    root = _parse(chart_svg("line", "T", ["Q1", "Q2"], [("s", [1.0, 2.0])]))
    assert [t.text for t in _marks(root, "text", "category")] == ["Q1", "Q2"]


# --- pie --------------------------------------------------------------------------------------


def test_a_pie_has_a_slice_per_positive_value_labelled_with_its_share():
    root = _parse(chart_svg("pie", "T", SEGMENTS, [REVENUE]))
    assert len(_marks(root, "path", "slice")) == 3
    assert [t.text for t in _marks(root, "text", "slice-label")] == [
        "Enterprise 50%",
        "Mid-Market 33.3%",
        "SMB 16.7%",
    ]


def test_a_pie_draws_only_the_first_series_and_ignores_non_positive_values():
    svg = chart_svg("pie", "T", ["a", "b", "c", "d"], [("s", [3.0, 0.0, -2.0, None]), COST])
    root = _parse(svg)
    assert len(_marks(root, "circle", "slice")) == 1
    assert (
        _desc(root)
        == "Pie chart of s. a: 3 (100%); b: 0 (not shown); c: -2 (not shown); d: no value."
    )


def test_a_pie_without_positive_values_draws_no_data():
    root = _parse(chart_svg("pie", "T", ["a"], [("s", [-1.0])]))
    assert _marks(root, "text", "no-data")


def test_a_pie_description_lists_values_with_shares():
    root = _parse(chart_svg("pie", "T", SEGMENTS, [REVENUE]))
    assert "Enterprise: 120,000 (50%); Mid-Market: 80,000 (33.3%)" in _desc(root)


# --- series from a range ----------------------------------------------------------------------


def test_a_range_gives_labels_from_its_first_column_and_series_from_its_columns():
    grid = [
        ["Segment", "Revenue", "Cost"],
        ["Enterprise", 120_000.0, 50_000.0],
        ["Mid-Market", 80_000.0, "n/a"],
        [2024.0, None, True],
    ]
    assert series_from_range(grid) == (
        ["Enterprise", "Mid-Market", "2024"],
        [("Revenue", [120_000.0, 80_000.0, None]), ("Cost", [50_000.0, None, None])],
    )


def test_columns_without_numbers_are_left_out_and_unnamed_ones_are_numbered():
    grid = [["Segment", "Owner", None], ["Enterprise", "Ada", 3.0]]
    assert series_from_range(grid) == (["Enterprise"], [("Series 2", [3.0])])


def test_a_range_without_numbers_is_refused():
    with pytest.raises(ChartError, match="no column of numbers"):
        series_from_range([["Segment", "Owner"], ["Enterprise", "Ada"]])


@pytest.mark.parametrize("grid", [[], [["Segment", "Revenue"]], [["Segment"], ["Enterprise"]]])
def test_a_range_without_a_header_and_data_is_refused(grid):
    with pytest.raises(ChartError, match="Choose a range"):
        series_from_range(grid)

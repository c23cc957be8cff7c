"""Sheets through real Chromium against the real server: the grid as a person (or an agent)
uses it, with the keyboard, the mouse, the name box, the formula bar and the page's forms.

One tiny world and one signed-in browser context serve the module; every test builds its own
workbook through the JSON API, acts in the page, and reads the world file back to prove what
was written.
"""

from __future__ import annotations

import io
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from officegym.apps.sheets.engine import refs
from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore

pytestmark = pytest.mark.browser

WORLD = "sheets-ui"
API_HEADERS = {"X-Requested-With": "officegym", WORLD_HEADER: WORLD}


@dataclass(frozen=True)
class Book:
    """A workbook made for one test: its id, its first sheet, and the sheet's grid page."""

    id: int
    sheet: int
    name: str

    @property
    def path(self) -> str:
        return f"/sheets/w/{self.id}/s/{self.sheet}"


# -- a world, a server and a signed-in browser -------------------------------------------------


@pytest.fixture(scope="module")
def sheets_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldStore]:
    store = WorldStore(tmp_path_factory.mktemp("sheets-ui-home"))
    store.create(WORLD, 0, "tiny")
    yield store
    store.close()


@pytest.fixture(scope="module")
def sheets_server(sheets_store: WorldStore):
    server = start_background_server(sheets_store, config={"SECRET_KEY": "sheets-ui"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sheets_user(sheets_store: WorldStore) -> str:
    """The email of the world's first active employee (anyone may create workbooks)."""
    conn = sqlite3.connect(f"file:{sheets_store.world_path(WORLD)}?mode=ro", uri=True)
    try:
        (email,) = conn.execute(
            "SELECT email FROM people_employee WHERE is_active ORDER BY id LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    return email


@pytest.fixture(scope="module")
def sheets_context(browser, sheets_server, sheets_user) -> Iterator[BrowserContext]:
    context = browser.new_context(
        base_url=sheets_server.url,
        extra_http_headers={WORLD_HEADER: WORLD},
        viewport={"width": 1280, "height": 800},
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto("/login")
    page.get_by_label("Work email").fill(sheets_user)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(sheets_server.url + "/")
    page.close()
    yield context
    context.close()


@pytest.fixture
def sheets_page(sheets_context: BrowserContext) -> Iterator[Page]:
    page = sheets_context.new_page()
    yield page
    page.close()


@pytest.fixture
def make_book(sheets_context: BrowserContext) -> Callable[..., Book]:
    """Create a workbook through the JSON API and type `rows` into its first sheet at A1."""
    made = iter(range(1, 1000))

    def make(rows: list[list[object]] | None = None, name: str = "") -> Book:
        name = name or f"Browser test {next(made)}"
        reply = sheets_context.request.post(
            "/sheets/api/workbooks", data={"name": name}, headers=API_HEADERS
        )
        assert reply.ok, reply.text()
        body = reply.json()
        book = Book(body["id"], body["sheets"][0]["id"], name)
        if rows:
            reply = sheets_context.request.put(
                f"/sheets/api/workbooks/{book.id}/sheets/{book.sheet}/range",
                data={"ref": "A1", "values": rows},
                headers=API_HEADERS,
            )
            assert reply.ok, reply.text()
        return book

    return make


def open_grid(page: Page, book: Book, cell: str | None = None) -> Locator:
    """Open the book's grid page (at `cell`) and wait until the grid has taken the keyboard."""
    page.goto(book.path + (f"?cell={cell}" if cell else ""))
    grid = page.get_by_role("grid")
    expect(grid).to_be_focused()
    return grid


# -- reading the world back --------------------------------------------------------------------


def world_rows(store: WorldStore, sql: str, params: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(f"file:{store.world_path(WORLD)}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def stored(store: WorldStore, sheet: int) -> dict[str, str]:
    """Every non-empty cell of the sheet in the world file, as address → raw input."""
    return {
        refs.address(r, c): raw
        for r, c, raw in world_rows(
            store,
            "SELECT row, col, raw FROM sheets_cell WHERE sheet_id = ? AND raw != ''",
            (sheet,),
        )
    }


def value_of(store: WorldStore, sheet: int, address: str) -> object:
    r, c = refs.parse_address(address)
    found = world_rows(
        store,
        "SELECT value_type, value_num, value_text FROM sheets_cell "
        "WHERE sheet_id = ? AND row = ? AND col = ?",
        (sheet, r, c),
    )
    if not found:
        return None
    kind, number, text = found[0]
    return number if kind in ("number", "bool") else text


def edit_count(store: WorldStore, book: Book) -> int:
    """How many edits the workbook's history holds."""
    sql = "SELECT count(*) FROM sheets_edit WHERE workbook_id = ?"
    return world_rows(store, sql, (book.id,))[0][0]


# -- the page ----------------------------------------------------------------------------------


def cell(page: Page, address: str) -> Locator:
    """The grid cell at `address`, whatever it shows (its name is `B12` or `B12 = …`)."""
    return page.get_by_role("gridcell", name=re.compile(rf"^{address}( = .*)?$"))


def shows(page: Page, address: str, shown: str) -> Locator:
    """The grid cell at `address` named for what it shows (`B12 = $4,200`)."""
    name = f"{address} = {shown}" if shown else address
    return page.get_by_role("gridcell", name=name, exact=True)


def name_box(page: Page) -> Locator:
    return page.get_by_label("Name box")


def formula_bar(page: Page) -> Locator:
    return page.get_by_label("Formula bar")


def go_to(page: Page, reference: str) -> None:
    name_box(page).fill(reference)
    name_box(page).press("Enter")


def selected_cells(page: Page) -> Locator:
    return page.locator("td[role=gridcell][aria-selected=true]")


# -- typing, the formula bar and the name box --------------------------------------------------


def test_a_typed_formula_shows_its_value_in_the_cell_and_its_name(
    sheets_page, make_book, sheets_store
):
    book = make_book([[10], [20], [30]])
    open_grid(sheets_page, book)
    cell(sheets_page, "A4").click()
    sheets_page.keyboard.type("=SUM(A1:A3)")
    sheets_page.keyboard.press("Enter")
    expect(shows(sheets_page, "A4", "60")).to_have_text("60")
    expect(name_box(sheets_page)).to_have_value("A5")
    assert stored(sheets_store, book.sheet)["A4"] == "=SUM(A1:A3)"
    assert value_of(sheets_store, book.sheet, "A4") == 60


def test_cells_typed_one_after_another_are_all_written(sheets_page, make_book, sheets_store):
    book = make_book()
    open_grid(sheets_page, book)
    cell(sheets_page, "B2").click()
    for text in ("North", "7", "South", "9"):
        sheets_page.keyboard.type(text)
        sheets_page.keyboard.press("Tab" if text.isalpha() else "Enter")
    expect(shows(sheets_page, "C3", "9")).to_be_visible()
    assert stored(sheets_store, book.sheet) == {"B2": "North", "C2": "7", "B3": "South", "C3": "9"}


def test_the_formula_bar_shows_the_selected_cells_formula(sheets_page, make_book):
    book = make_book([[10], [20], ["=A1*A2"]])
    open_grid(sheets_page, book)
    expect(shows(sheets_page, "A3", "200")).to_be_visible()
    cell(sheets_page, "A3").click()
    expect(formula_bar(sheets_page)).to_have_value("=A1*A2")
    cell(sheets_page, "A1").click()
    expect(formula_bar(sheets_page)).to_have_value("10")


def test_the_formula_bar_writes_the_active_cell(sheets_page, make_book, sheets_store):
    book = make_book([[4], [5]])
    open_grid(sheets_page, book)
    cell(sheets_page, "B1").click()
    formula_bar(sheets_page).fill("=A1+A2")
    formula_bar(sheets_page).press("Enter")
    expect(shows(sheets_page, "B1", "9")).to_be_visible()
    expect(name_box(sheets_page)).to_have_value("B2")
    assert stored(sheets_store, book.sheet)["B1"] == "=A1+A2"


def test_the_name_box_goes_to_a_cell_and_scrolls_it_into_view(sheets_page, make_book):
    book = make_book([[f"Item {r}", r] for r in range(1, 61)])
    grid = open_grid(sheets_page, book)
    go_to(sheets_page, "B25")
    target = shows(sheets_page, "B25", "25")
    expect(target).to_have_attribute("aria-selected", "true")
    expect(target).to_be_in_viewport()
    expect(grid).to_be_focused()
    expect(formula_bar(sheets_page)).to_have_value("25")
    assert "cell=B25" in sheets_page.url


def test_the_name_box_selects_a_range(sheets_page, make_book):
    book = make_book([[r * 10 + c for c in range(1, 6)] for r in range(1, 8)])
    open_grid(sheets_page, book)
    go_to(sheets_page, "c3:d5")
    expect(name_box(sheets_page)).to_have_value("C3:D5")
    expect(selected_cells(sheets_page)).to_have_count(6)
    expect(shows(sheets_page, "C3", "33")).to_have_attribute("aria-selected", "true")
    expect(shows(sheets_page, "E3", "35")).not_to_have_attribute("aria-selected", "true")
    expect(formula_bar(sheets_page)).to_have_value("33")


# -- the keyboard ------------------------------------------------------------------------------


def test_arrows_tab_and_enter_move_the_active_cell(sheets_page, make_book):
    book = make_book([["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]])
    open_grid(sheets_page, book)
    keys = sheets_page.keyboard
    for key, where in [
        ("ArrowRight", "B1"),
        ("ArrowDown", "B2"),
        ("Tab", "C2"),
        ("Tab", "D2"),
        ("Enter", "B3"),  # back to the column the Tabs started from
        ("ArrowRight", "C3"),
        ("Shift+Tab", "B3"),
        ("Shift+Enter", "B2"),
        ("ArrowUp", "B1"),
        ("ArrowLeft", "A1"),
        ("ArrowUp", "A1"),
        ("ArrowLeft", "A1"),
    ]:
        keys.press(key)
        expect(name_box(sheets_page), f"after {key}").to_have_value(where)
    expect(cell(sheets_page, "A1")).to_have_attribute("aria-selected", "true")
    expect(formula_bar(sheets_page)).to_have_value("a")


def test_shift_arrows_extend_the_selection(sheets_page, make_book):
    book = make_book([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]])
    open_grid(sheets_page, book)
    cell(sheets_page, "A1").click()
    for key in ("Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowDown", "Shift+ArrowDown"):
        sheets_page.keyboard.press(key)
    expect(name_box(sheets_page)).to_have_value("A1:C3")
    expect(selected_cells(sheets_page)).to_have_count(9)
    # The active cell stays where the selection started, as in a spreadsheet.
    expect(formula_bar(sheets_page)).to_have_value("1")
    sheets_page.keyboard.press("ArrowDown")
    expect(name_box(sheets_page)).to_have_value("A2")
    expect(selected_cells(sheets_page)).to_have_count(1)


def test_f2_edits_the_cell_and_enter_writes_it(sheets_page, make_book, sheets_store):
    book = make_book([["Budget"]])
    open_grid(sheets_page, book)
    sheets_page.keyboard.press("F2")
    editor = sheets_page.get_by_role("textbox", name="Edit cell A1")
    expect(editor).to_have_value("Budget")
    sheets_page.keyboard.type(" 2026")
    sheets_page.keyboard.press("Enter")
    expect(shows(sheets_page, "A1", "Budget 2026")).to_be_visible()
    assert stored(sheets_store, book.sheet) == {"A1": "Budget 2026"}


def test_escape_cancels_an_edit_without_writing(sheets_page, make_book, sheets_store):
    book = make_book([["Budget"]])
    edits = edit_count(sheets_store, book)
    open_grid(sheets_page, book)
    sheets_page.keyboard.press("F2")
    sheets_page.keyboard.type(" draft")
    sheets_page.keyboard.press("Escape")
    expect(sheets_page.get_by_role("textbox", name="Edit cell A1")).to_have_count(0)
    cell(sheets_page, "B1").click()
    sheets_page.keyboard.type("Overwritten")
    sheets_page.keyboard.press("Escape")
    expect(shows(sheets_page, "A1", "Budget")).to_be_visible()
    expect(shows(sheets_page, "B1", "")).to_be_visible()
    expect(formula_bar(sheets_page)).to_have_value("")
    assert stored(sheets_store, book.sheet) == {"A1": "Budget"}
    assert edit_count(sheets_store, book) == edits


def test_delete_clears_the_selected_cells(sheets_page, make_book, sheets_store):
    book = make_book([[1, 2, 3], [4, 5, 6]])
    open_grid(sheets_page, book)
    go_to(sheets_page, "A1:B2")
    sheets_page.keyboard.press("Delete")
    expect(shows(sheets_page, "A1", "")).to_be_visible()
    expect(shows(sheets_page, "B2", "")).to_be_visible()
    assert stored(sheets_store, book.sheet) == {"C1": "3", "C2": "6"}


def test_ctrl_z_undoes_and_ctrl_y_redoes(sheets_page, make_book, sheets_store):
    book = make_book([["Plan"]])
    open_grid(sheets_page, book)
    cell(sheets_page, "A2").click()
    sheets_page.keyboard.type("Actual\n")
    expect(shows(sheets_page, "A2", "Actual")).to_be_visible()
    with sheets_page.expect_navigation():
        sheets_page.keyboard.press("Control+z")
    expect(shows(sheets_page, "A2", "")).to_be_visible()
    assert stored(sheets_store, book.sheet) == {"A1": "Plan"}
    expect(sheets_page.get_by_role("grid")).to_be_focused()
    with sheets_page.expect_navigation():
        sheets_page.keyboard.press("Control+y")
    expect(shows(sheets_page, "A2", "Actual")).to_be_visible()
    assert stored(sheets_store, book.sheet) == {"A1": "Plan", "A2": "Actual"}


def test_copy_and_paste_shifts_a_formulas_references(sheets_page, make_book, sheets_store):
    book = make_book([[1, 10], [2, 20], [3, 30], ["=SUM(A1:A3)"]])
    open_grid(sheets_page, book)
    cell(sheets_page, "A4").click()
    sheets_page.keyboard.press("Control+c")
    cell(sheets_page, "B4").click()
    sheets_page.keyboard.press("Control+v")
    expect(shows(sheets_page, "B4", "60")).to_be_visible()
    assert stored(sheets_store, book.sheet)["B4"] == "=SUM(B1:B3)"
    assert value_of(sheets_store, book.sheet, "B4") == 60


def test_ctrl_d_fills_a_formula_down_a_selected_range(sheets_page, make_book, sheets_store):
    book = make_book([[2, "=A1*10"], [3], [4], [5]])
    open_grid(sheets_page, book)
    cell(sheets_page, "B1").click()
    cell(sheets_page, "B4").click(modifiers=["Shift"])
    expect(name_box(sheets_page)).to_have_value("B1:B4")
    sheets_page.keyboard.press("Control+d")
    expect(shows(sheets_page, "B4", "50")).to_be_visible()
    saved = stored(sheets_store, book.sheet)
    assert [saved[f"B{r}"] for r in range(1, 5)] == ["=A1*10", "=A2*10", "=A3*10", "=A4*10"]


def test_ctrl_d_on_one_cell_copies_the_cell_above(sheets_page, make_book, sheets_store):
    book = make_book([[7, "=A1+1"], [8]])
    open_grid(sheets_page, book)
    cell(sheets_page, "B2").click()
    sheets_page.keyboard.press("Control+d")
    expect(shows(sheets_page, "B2", "9")).to_be_visible()
    assert stored(sheets_store, book.sheet)["B2"] == "=A2+1"


def test_a_copy_pastes_into_another_sheet_of_the_workbook(sheets_page, make_book, sheets_store):
    book = make_book([["Ann", 3], ["Bob", 4]])
    open_grid(sheets_page, book)
    go_to(sheets_page, "A1:B2")
    sheets_page.keyboard.press("Control+c")
    sheets_page.get_by_role("button", name="Add sheet").click()
    expect(sheets_page.get_by_role("grid", name="Sheet2")).to_be_focused()
    cell(sheets_page, "C3").click()
    sheets_page.keyboard.press("Control+v")
    expect(shows(sheets_page, "D4", "4")).to_be_visible()
    ((second,),) = world_rows(
        sheets_store,
        "SELECT id FROM sheets_sheet WHERE workbook_id = ? AND name = 'Sheet2'",
        (book.id,),
    )
    assert stored(sheets_store, second) == {"C3": "Ann", "D3": "3", "C4": "Bob", "D4": "4"}


def test_moving_right_past_the_last_column_adds_columns(sheets_page, make_book, sheets_store):
    book = make_book([["a"]])
    open_grid(sheets_page, book)
    assert sheets_page.get_by_role("columnheader", name="J", exact=True).count() == 0
    for _ in range(9):
        sheets_page.keyboard.press("ArrowRight")
    expect(name_box(sheets_page)).to_have_value("J1")
    expect(sheets_page.get_by_role("columnheader", name="J", exact=True)).to_be_visible()
    target = cell(sheets_page, "J1")
    expect(target).to_have_attribute("aria-selected", "true")
    expect(target).to_be_in_viewport()
    sheets_page.keyboard.type("far")
    sheets_page.keyboard.press("Enter")
    expect(shows(sheets_page, "J1", "far")).to_be_visible()
    assert stored(sheets_store, book.sheet) == {"A1": "a", "J1": "far"}


# -- the toolbar and the forms -----------------------------------------------------------------


def test_sort_a_to_z_from_the_toolbar_keeps_rows_together(sheets_page, make_book, sheets_store):
    book = make_book([["Fruit", "Boxes"], ["cherry", 3], ["Apple", 1], ["banana", 2]])
    open_grid(sheets_page, book)
    cell(sheets_page, "A2").click()
    sheets_page.get_by_role("button", name="Sort A→Z").click()
    expect(shows(sheets_page, "A2", "Apple")).to_be_visible()
    saved = stored(sheets_store, book.sheet)
    assert [(saved[f"A{r}"], saved[f"B{r}"]) for r in range(1, 5)] == [
        ("Fruit", "Boxes"),
        ("Apple", "1"),
        ("banana", "2"),
        ("cherry", "3"),
    ]


def test_a_pivot_table_built_through_its_form(sheets_page, make_book, sheets_store):
    book = make_book(
        [["Region", "Rep", "Amount"], ["East", "Ann", 100], ["West", "Bob", 50], ["East", "Cy", 25]]
    )
    open_grid(sheets_page, book)
    go_to(sheets_page, "A1:C4")
    sheets_page.get_by_role("link", name="Pivot table").click()
    expect(sheets_page.get_by_label("Data range (header row first)")).to_have_value("A1:C4")
    sheets_page.get_by_label("Rows", exact=True).select_option("Region")
    sheets_page.get_by_label("Values").select_option("Amount")
    sheets_page.get_by_label("Summarise by").select_option("SUM")
    sheets_page.get_by_role("button", name="Create pivot table").click()
    expect(sheets_page.get_by_role("gridcell", name="B2 = 125", exact=True)).to_be_visible()
    ((target,),) = world_rows(
        sheets_store,
        "SELECT target_sheet_id FROM sheets_pivot WHERE source_sheet_id = ?",
        (book.sheet,),
    )
    assert sheets_page.url.split("?")[0].endswith(f"/s/{target}")
    saved = stored(sheets_store, target)
    assert (saved["A2"], saved["B2"], saved["A3"], saved["B3"]) == ("East", "125", "West", "50")


def test_a_chart_inserted_through_its_form_is_drawn(sheets_page, make_book, sheets_store):
    book = make_book([["Month", "Sales"], ["Jan", 10], ["Feb", 30], ["Mar", 20]])
    open_grid(sheets_page, book)
    go_to(sheets_page, "A1:B4")
    sheets_page.get_by_role("link", name="Insert chart").click()
    expect(sheets_page.get_by_label("Data range", exact=False)).to_have_value("A1:B4")
    sheets_page.get_by_label("Chart type").select_option("bar")
    sheets_page.get_by_label("Title").fill("Sales by month")
    sheets_page.get_by_role("button", name="Insert chart").click()
    charts = sheets_page.get_by_role("region", name="Charts")
    expect(charts.locator("svg")).to_have_count(1)
    expect(charts.locator("svg")).to_be_visible()
    assert world_rows(
        sheets_store,
        "SELECT kind, title, source_range FROM sheets_chart WHERE sheet_id = ?",
        (book.sheet,),
    ) == [("bar", "Sales by month", "A1:B4")]


def test_an_xlsx_imported_from_the_home_page_opens_as_a_grid(sheets_page, sheets_store, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Costs"
    for row in (["Item", "Cost"], ["Laptop", 1200], ["Desk", 300]):
        sheet.append(row)
    sheet["B4"] = "=SUM(B2:B3)"
    buffer = io.BytesIO()
    workbook.save(buffer)
    path = Path(tmp_path) / "Office costs.xlsx"
    path.write_bytes(buffer.getvalue())

    sheets_page.goto("/sheets/")
    sheets_page.get_by_label("Import .xlsx or .csv").set_input_files(str(path))
    sheets_page.get_by_role("button", name="Import", exact=True).click()
    expect(shows(sheets_page, "B4", "1500")).to_be_visible()
    expect(sheets_page.get_by_role("grid", name="Costs")).to_be_visible()
    ((sheet_id,),) = world_rows(
        sheets_store,
        "SELECT s.id FROM sheets_sheet s JOIN sheets_workbook w ON w.id = s.workbook_id "
        "WHERE w.name = 'Office costs' AND s.name = 'Costs'",
    )
    assert stored(sheets_store, sheet_id) == {
        "A1": "Item",
        "B1": "Cost",
        "A2": "Laptop",
        "B2": "1200",
        "A3": "Desk",
        "B3": "300",
        "B4": "=SUM(B2:B3)",
    }


# -- a long sheet, one window of rows at a time ------------------------------------------------

LONG = 520


@pytest.fixture
def long_book(sheets_context: BrowserContext) -> Book:
    """A workbook of LONG rows, imported as a CSV file through the JSON API."""
    text = "\n".join(f"Order {r},{r * 10}" for r in range(1, LONG + 1))
    reply = sheets_context.request.post(
        "/sheets/api/workbooks/import",
        multipart={
            "file": {"name": "Orders.csv", "mimeType": "text/csv", "buffer": text.encode()},
            "name": "Orders",
        },
        headers=API_HEADERS,
    )
    assert reply.ok, reply.text()
    body = reply.json()
    return Book(body["id"], body["sheets"][0]["id"], body["name"])


def loaded_rows(page: Page) -> list[int]:
    return page.eval_on_selector_all("tr[data-row]", "rows => rows.map(r => +r.dataset.row)")


def test_a_long_sheet_holds_only_a_window_of_rows(sheets_page, long_book):
    open_grid(sheets_page, long_book)
    rows = loaded_rows(sheets_page)
    assert rows == list(range(1, 31))
    expect(sheets_page.get_by_role("row", name="Row 30", exact=True)).to_be_attached()
    assert sheets_page.get_by_role("gridcell").count() == 30 * 8


def test_scrolling_up_from_a_window_far_down_loads_earlier_rows(sheets_page, long_book):
    open_grid(sheets_page, long_book, "B300")
    assert min(loaded_rows(sheets_page)) == 295
    sheets_page.get_by_role("grid").hover()
    sheets_page.mouse.wheel(0, -400)
    expect(sheets_page.get_by_role("row", name="Row 285", exact=True)).to_be_attached()
    expect(shows(sheets_page, "B300", "3000")).to_have_attribute("aria-selected", "true")


def test_ctrl_down_reaches_the_last_row_of_a_long_sheet(sheets_page, long_book):
    open_grid(sheets_page, long_book)
    sheets_page.keyboard.press("Control+ArrowDown")
    expect(name_box(sheets_page)).to_have_value(f"A{LONG}")
    last = shows(sheets_page, f"A{LONG}", f"Order {LONG}")
    expect(last).to_have_attribute("aria-selected", "true")
    expect(last).to_be_in_viewport()
    sheets_page.keyboard.press("Control+ArrowUp")
    expect(name_box(sheets_page)).to_have_value("A1")
    expect(shows(sheets_page, "A1", "Order 1")).to_be_in_viewport()


def test_the_name_box_reaches_a_row_far_below(sheets_page, long_book, sheets_store):
    open_grid(sheets_page, long_book)
    go_to(sheets_page, "B480")
    target = shows(sheets_page, "B480", "4800")
    expect(target).to_be_in_viewport()
    expect(target).to_have_attribute("aria-selected", "true")
    assert len(loaded_rows(sheets_page)) <= 40
    sheets_page.keyboard.type("1\n")
    expect(shows(sheets_page, "B480", "1")).to_be_visible()
    expect(name_box(sheets_page)).to_have_value("B481")
    assert stored(sheets_store, long_book.sheet)["B480"] == "1"


# -- without JavaScript ------------------------------------------------------------------------


def test_without_javascript_the_name_box_and_formula_bar_still_work(
    browser, sheets_server, sheets_context, make_book, sheets_store
):
    book = make_book([[3], [4]])
    context = browser.new_context(
        base_url=sheets_server.url,
        extra_http_headers={WORLD_HEADER: WORLD},
        java_script_enabled=False,
        storage_state=sheets_context.storage_state(),
    )
    try:
        page = context.new_page()
        page.goto(book.path)
        go_to(page, "A3")
        expect(name_box(page)).to_have_value("A3")
        formula_bar(page).fill("=A1*A2")
        page.get_by_role("button", name="Enter").click()
        expect(shows(page, "A3", "12")).to_be_visible()
        expect(name_box(page)).to_have_value("A4")
    finally:
        context.close()
    assert stored(sheets_store, book.sheet)["A3"] == "=A1*A2"

"""Excel workbooks in and out: what a file's cells become, what a book's cells become in a
file, the round trip, and the refusals of files that are not workbooks or are too big."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

import openpyxl
import pytest
from openpyxl.styles import Font, PatternFill

from officegym.apps.sheets import book, xlsxio
from officegym.apps.sheets.book import BookData, CellData, FileError, SheetData
from officegym.apps.sheets.xlsxio import read_xlsx, write_xlsx


def _xlsx(workbook: openpyxl.Workbook) -> bytes:
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def _zip(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return out.getvalue()


def _local(text: str) -> dt.datetime:
    """A date-time as Excel holds one: wall-clock time, no time zone."""
    return dt.datetime.fromisoformat(text)


def _cells(sheet: SheetData) -> dict[tuple[int, int], CellData]:
    return {(cell.row, cell.col): cell for cell in sheet.cells}


@pytest.fixture
def pipeline() -> BookData:
    """A book using every supported feature on two sheets."""
    deals = SheetData(
        name="Deals",
        cells=(
            CellData(1, 1, "Account", bold=True, fill="#DDEBF7"),
            CellData(1, 2, "Amount", bold=True, fill="#DDEBF7"),
            CellData(1, 3, "Close date", bold=True, italic=True),
            CellData(1, 4, "Won"),
            CellData(2, 1, "Acme"),
            CellData(2, 2, "4200", number_format="$#,##0"),
            CellData(2, 3, "2024-03-01", number_format="yyyy-mm-dd"),
            CellData(2, 4, "TRUE"),
            CellData(3, 1, "'0042"),
            CellData(3, 2, "0.5", number_format="0.0%"),
            CellData(3, 3, "2023-12-31", number_format="mm/dd/yyyy"),
            CellData(3, 4, "FALSE"),
            CellData(4, 1, '\'=HYPERLINK("http://x")'),
            CellData(4, 2, "=SUM(B2:B3)", number_format="$#,##0.00"),
            CellData(5, 1, "-17.25"),
            CellData(5, 5, "", fill="#FFFF00"),
        ),
        column_widths={1: 180, 2: 96, 5: 40},
        frozen_rows=1,
    )
    summary = SheetData(
        name="Summary",
        cells=(CellData(1, 1, "Total"), CellData(1, 2, "=Deals!B4*2")),
    )
    return BookData((deals, summary))


# --- round trip -------------------------------------------------------------------------------


def test_a_written_book_reads_back_equal(pipeline):
    assert read_xlsx(write_xlsx(pipeline), "pipeline.xlsx") == pipeline


def test_a_written_book_keeps_its_sheet_names_in_order_for_openpyxl(pipeline):
    workbook = openpyxl.load_workbook(io.BytesIO(write_xlsx(pipeline)))
    assert workbook.sheetnames == ["Deals", "Summary"]


def test_written_formulas_open_as_formulas_in_openpyxl(pipeline):
    workbook = openpyxl.load_workbook(io.BytesIO(write_xlsx(pipeline)))
    total = workbook["Deals"]["B4"]
    assert total.data_type == "f"
    assert total.value == "=SUM(B2:B3)"
    assert workbook["Summary"]["B1"].value == "=Deals!B4*2"


def test_written_numbers_dates_and_booleans_have_their_types_and_formats(pipeline):
    deals = openpyxl.load_workbook(io.BytesIO(write_xlsx(pipeline)))["Deals"]
    assert deals["B2"].value == 4200
    assert deals["B2"].number_format == "$#,##0"
    assert deals["B3"].value == 0.5
    assert deals["B3"].number_format == "0.0%"
    assert deals["C2"].value == _local("2024-03-01T00:00")
    assert deals["C2"].number_format == "yyyy-mm-dd"
    assert deals["D2"].value is True
    assert deals["A5"].value == -17.25


def test_written_quoted_text_is_text_not_a_number_or_formula(pipeline):
    deals = openpyxl.load_workbook(io.BytesIO(write_xlsx(pipeline)))["Deals"]
    assert (deals["A3"].value, deals["A3"].data_type) == ("0042", "s")
    assert (deals["A4"].value, deals["A4"].data_type) == ('=HYPERLINK("http://x")', "s")


def test_written_styles_widths_and_frozen_rows_open_in_openpyxl(pipeline):
    deals = openpyxl.load_workbook(io.BytesIO(write_xlsx(pipeline)))["Deals"]
    assert deals["A1"].font.b and not deals["A1"].font.i
    assert deals["C1"].font.i
    assert deals["A1"].fill.fill_type == "solid"
    assert deals["A1"].fill.fgColor.rgb == "FFDDEBF7"
    assert deals.column_dimensions["A"].width == pytest.approx((180 - 5) / 7)
    assert deals.freeze_panes == "A2"


def test_an_iso_date_without_a_format_is_written_with_the_iso_format():
    sheet = SheetData("Dates", (CellData(1, 1, "2024-02-29"),))
    written = openpyxl.load_workbook(io.BytesIO(write_xlsx(BookData((sheet,)))))["Dates"]["A1"]
    assert written.value == _local("2024-02-29T00:00")
    assert written.number_format == xlsxio.DEFAULT_DATE_FORMAT


def test_cached_values_are_accepted_and_formulas_still_written():
    sheet = SheetData("S", (CellData(1, 1, "2"), CellData(1, 2, "=A1*2")))
    data = write_xlsx(BookData((sheet,)), values={("S", 1, 2): 4.0})
    assert openpyxl.load_workbook(io.BytesIO(data))["S"]["B1"].value == "=A1*2"


def test_a_number_too_large_for_a_cell_is_written_as_its_text():
    sheet = SheetData("S", (CellData(1, 1, "1e400"),))
    written = openpyxl.load_workbook(io.BytesIO(write_xlsx(BookData((sheet,)))))["S"]["A1"]
    assert (written.value, written.data_type) == ("1e400", "s")


def test_a_book_without_sheets_is_written_with_one_empty_sheet():
    workbook = openpyxl.load_workbook(io.BytesIO(write_xlsx(BookData(()))))
    assert len(workbook.worksheets) == 1


def test_a_sheet_name_xlsx_forbids_is_refused_with_its_name():
    with pytest.raises(FileError, match="Q1/Q2"):
        write_xlsx(BookData((SheetData("Q1/Q2", ()),)))


# --- reading files made elsewhere -------------------------------------------------------------


@pytest.fixture
def excel_file() -> bytes:
    """A workbook as another program would save it."""
    workbook = openpyxl.Workbook()
    first = workbook.active
    first.title = "Pipeline"
    first["A1"] = "Account"
    first["A1"].font = Font(bold=True)
    first["B1"] = 4200
    first["B2"] = 4200.0
    first["B3"] = 0.1
    first["B4"] = 1e-05
    first["C1"] = _local("2024-03-01T00:00")
    first["C1"].number_format = "d-mmm-yy"
    first["C2"] = _local("2024-03-01T18:00")
    first["C2"].number_format = "yyyy-mm-dd hh:mm"
    first["D1"] = True
    first["E1"] = "0042"
    first["E2"] = "TRUE"
    first["E3"] = "2024-03-01"
    first["E4"] = "$1,200"
    first["E5"] = "'quoted"
    first["F1"] = "=_xlfn.XLOOKUP(A1,A1:A3,B1:B3)"
    first["G1"] = "x"
    first["G1"].fill = PatternFill("solid", fgColor="FF00B050")
    first["G2"].font = Font(italic=True)
    first.column_dimensions["A"].width = 25
    first.freeze_panes = "B3"
    text = first["E6"]
    text.value = "=1+1"
    text.data_type = "s"
    workbook.create_sheet("Notes")["A1"] = "Second"
    workbook.create_sheet("Archive", 0)["A1"] = "First"
    return _xlsx(workbook)


def test_sheets_are_read_in_tab_order(excel_file):
    assert [s.name for s in read_xlsx(excel_file, "deals.xlsx").sheets] == [
        "Archive",
        "Pipeline",
        "Notes",
    ]


def test_numbers_read_as_their_shortest_typed_text(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert [cells[r, 2].raw for r in (1, 2, 3, 4)] == ["4200", "4200", "0.1", "0.00001"]


def test_a_date_reads_as_iso_text_with_its_format(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert (cells[1, 3].raw, cells[1, 3].number_format) == ("2024-03-01", "d-mmm-yy")


def test_a_date_with_a_time_reads_as_its_serial_number(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert cells[2, 3].raw == "45352.75"
    assert cells[2, 3].number_format == "yyyy-mm-dd hh:mm"


def test_booleans_read_as_true_and_false(excel_file):
    assert _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])[1, 4].raw == "TRUE"


def test_text_that_would_type_as_something_else_gets_an_apostrophe(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert [cells[r, 5].raw for r in range(1, 7)] == [
        "'0042",
        "'TRUE",
        "'2024-03-01",
        "'$1,200",
        "''quoted",
        "'=1+1",
    ]


def test_plain_text_reads_as_typed(excel_file):
    assert _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])[1, 1].raw == "Account"


def test_formulas_read_as_formula_text_without_excel_function_prefixes(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert cells[1, 6].raw == "=XLOOKUP(A1,A1:A3,B1:B3)"


def test_formats_read_with_general_as_none(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert cells[1, 1].number_format is None
    assert cells[1, 1].bold
    assert cells[1, 7].fill == "#00B050"


def test_a_cell_with_only_a_format_reads_with_empty_raw(excel_file):
    cells = _cells(read_xlsx(excel_file, "deals.xlsx").sheets[1])
    assert cells[2, 7] == CellData(2, 7, "", italic=True)


def test_column_widths_read_in_pixels(excel_file):
    sheet = read_xlsx(excel_file, "deals.xlsx").sheets[1]
    assert sheet.column_widths == {1: 180}


def test_frozen_panes_read_as_frozen_top_rows(excel_file):
    assert read_xlsx(excel_file, "deals.xlsx").sheets[1].frozen_rows == 2


def test_cells_read_in_row_then_column_order(excel_file):
    cells = read_xlsx(excel_file, "deals.xlsx").sheets[1].cells
    assert [(c.row, c.col) for c in cells] == sorted((c.row, c.col) for c in cells)


def test_the_extension_may_be_upper_case(excel_file):
    assert read_xlsx(excel_file, "DEALS.XLSX").sheets[0].name == "Archive"


# --- refusals ---------------------------------------------------------------------------------


def test_another_extension_is_refused_with_the_file_name(excel_file):
    with pytest.raises(FileError, match=r"'deals\.xls' is not an \.xlsx file"):
        read_xlsx(excel_file, "deals.xls")


def test_an_empty_file_is_refused():
    with pytest.raises(FileError, match="empty"):
        read_xlsx(b"", "deals.xlsx")


def test_a_file_that_is_not_a_zip_archive_is_refused():
    with pytest.raises(
        FileError, match=r"not an \.xlsx workbook \(it could not be opened as a zip"
    ):
        read_xlsx(b"Account,Amount\nAcme,4200\n", "deals.xlsx")


def test_an_old_binary_workbook_is_refused_with_a_hint_to_resave():
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    with pytest.raises(FileError, match="old .xls workbook"):
        read_xlsx(ole, "deals.xlsx")


def test_a_zip_without_a_workbook_is_refused():
    with pytest.raises(FileError, match="zip archive but not an .xlsx workbook"):
        read_xlsx(_zip({"notes.txt": b"hello"}), "deals.xlsx")


def test_a_workbook_with_damaged_xml_is_refused(excel_file):
    with zipfile.ZipFile(io.BytesIO(excel_file)) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries["xl/worksheets/sheet1.xml"] = b"<worksheet><sheetData><row>"
    with pytest.raises(FileError, match="damaged"):
        read_xlsx(_zip(entries), "deals.xlsx")


def test_a_truncated_workbook_is_refused(excel_file):
    with pytest.raises(FileError):
        read_xlsx(excel_file[: len(excel_file) // 2], "deals.xlsx")


def test_a_file_over_the_size_limit_is_refused_with_its_size():
    data = b"PK" + bytes(book.MAX_BYTES)
    with pytest.raises(FileError, match=r"^The file is 10\.1 MB; the limit is 10 MB\.$"):
        read_xlsx(data, "deals.xlsx")


def test_a_workbook_that_unpacks_past_the_limit_is_refused(excel_file, monkeypatch):
    monkeypatch.setattr(xlsxio, "MAX_UNZIPPED_BYTES", 1000)
    with pytest.raises(FileError, match="unpacks to"):
        read_xlsx(excel_file, "deals.xlsx")


def test_a_sheet_over_the_cell_limit_is_refused_with_its_name_and_count(monkeypatch):
    workbook = openpyxl.Workbook()
    workbook.active.title = "Big"
    for row in range(1, 13):
        workbook.active.cell(row, 1, row)
    monkeypatch.setattr(book, "MAX_CELLS", 10)
    with pytest.raises(FileError, match=r"^Sheet 'Big' has 12 cells; the limit is 10\.$"):
        read_xlsx(_xlsx(workbook), "big.xlsx")


def test_a_workbook_over_the_sheet_limit_is_refused(monkeypatch):
    workbook = openpyxl.Workbook()
    for n in range(3):
        workbook.create_sheet(f"S{n}")
    monkeypatch.setattr(book, "MAX_SHEETS", 3)
    with pytest.raises(FileError, match="4 sheets; the limit is 3"):
        read_xlsx(_xlsx(workbook), "many.xlsx")

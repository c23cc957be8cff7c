"""One sheet as CSV: fields import as typed cells (never as live formulas), exports quote
cells a spreadsheet would run, and the CRM and Sheets share one CSV kit."""

from __future__ import annotations

import pytest

from officegym.apps.crm import csvio as crm_csvio
from officegym.apps.sheets import book
from officegym.apps.sheets.book import CellData, FileError, SheetData
from officegym.apps.sheets.csvio import read_csv, write_csv
from officegym.apps.web import csvfiles


def _raws(sheet: SheetData) -> dict[tuple[int, int], str]:
    return {(cell.row, cell.col): cell.raw for cell in sheet.cells}


# --- reading ----------------------------------------------------------------------------------


def test_fields_become_cells_with_raw_text_as_typed():
    sheet = read_csv(b"Account,Amount,Close\nAcme,4200,2024-03-01\n", "deals.csv", "Deals")
    assert sheet == SheetData(
        "Deals",
        (
            CellData(1, 1, "Account"),
            CellData(1, 2, "Amount"),
            CellData(1, 3, "Close"),
            CellData(2, 1, "Acme"),
            CellData(2, 2, "4200"),
            CellData(2, 3, "2024-03-01"),
        ),
    )


def test_a_formula_in_a_file_is_kept_as_text():
    sheet = read_csv(b'Link\n"=HYPERLINK(""http://x"",""go"")"\n', "links.csv", "Links")
    assert _raws(sheet)[2, 1] == '\'=HYPERLINK("http://x","go")'


def test_an_exported_quoted_formula_imports_back_as_the_same_text():
    exported = write_csv([["Note"], ["=1+1"]])
    assert _raws(read_csv(exported.encode(), "notes.csv", "Notes"))[2, 1] == "'=1+1"


def test_semicolon_separated_files_are_split_on_semicolons():
    sheet = read_csv(b"Account;Amount\nAcme;4200,50\n", "deals.csv", "Deals")
    assert _raws(sheet) == {(1, 1): "Account", (1, 2): "Amount", (2, 1): "Acme", (2, 2): "4200,50"}


def test_tab_separated_files_are_split_on_tabs():
    sheet = read_csv(b"Account\tAmount\nAcme, Inc.\t4200\n", "deals.tsv", "Deals")
    assert _raws(sheet)[2, 1] == "Acme, Inc."


def test_utf8_with_a_byte_order_mark_is_read_without_it():
    sheet = read_csv("\ufeffCafé,Zürich\n".encode(), "c.csv", "C")
    assert _raws(sheet) == {(1, 1): "Café", (1, 2): "Zürich"}


def test_a_windows_1252_file_is_read_as_windows_1252():
    sheet = read_csv("Café,€5\n".encode("cp1252"), "c.csv", "C")
    assert _raws(sheet) == {(1, 1): "Café", (1, 2): "€5"}


def test_empty_fields_and_blank_lines_leave_empty_cells_in_place():
    sheet = read_csv(b"A,,C\n\nD\n", "gaps.csv", "Gaps")
    assert _raws(sheet) == {(1, 1): "A", (1, 3): "C", (3, 1): "D"}


def test_a_quoted_field_may_span_lines():
    sheet = read_csv(b'Note,After\n"two\nlines",x\nnext\n', "notes.csv", "Notes")
    assert _raws(sheet) == {
        (1, 1): "Note",
        (1, 2): "After",
        (2, 1): "two\nlines",
        (2, 2): "x",
        (3, 1): "next",
    }


def test_an_imported_sheet_has_no_widths_or_frozen_rows():
    sheet = read_csv(b"A\n", "a.csv", "A")
    assert (sheet.column_widths, sheet.frozen_rows) == ({}, 0)


# --- refusals ---------------------------------------------------------------------------------


def test_another_extension_is_refused_with_the_file_name():
    with pytest.raises(FileError, match=r"'deals\.xlsx' is not a CSV file"):
        read_csv(b"A,B\n", "deals.xlsx", "Deals")


def test_an_empty_file_is_refused():
    with pytest.raises(FileError, match="The file is empty"):
        read_csv(b"  \n", "empty.csv", "Empty")


def test_a_binary_file_is_refused():
    with pytest.raises(FileError, match="binary data"):
        read_csv(b"PK\x03\x04\x00\x00", "deals.csv", "Deals")


def test_a_file_over_the_size_limit_is_refused_with_its_size():
    with pytest.raises(FileError, match=r"^The file is 10\.1 MB; the limit is 10 MB\.$"):
        read_csv(b"a," * (book.MAX_BYTES // 2 + 1), "big.csv", "Big")


def test_a_file_over_the_cell_limit_is_refused_with_the_sheet_name(monkeypatch):
    monkeypatch.setattr(book, "MAX_CELLS", 5)
    with pytest.raises(FileError, match=r"^Sheet 'Deals' has 6 cells; the limit is 5\.$"):
        read_csv(b"a,b,c\nd,e,f\n", "deals.csv", "Deals")


def test_a_field_too_long_for_csv_is_refused_with_its_line():
    data = b"ok\n" + b'"' + b"x" * 200_000 + b'"\n'
    with pytest.raises(FileError, match="Line 2 of the file can't be read as CSV"):
        read_csv(data, "long.csv", "Long")


# --- writing ----------------------------------------------------------------------------------


def test_shown_values_are_written_with_crlf_line_ends():
    assert write_csv([["Account", "Amount"], ["Acme", "$4,200"]]) == (
        'Account,Amount\r\nAcme,"$4,200"\r\n'
    )


def test_text_a_spreadsheet_would_run_is_quoted_like_the_crm_export():
    rows = [["=cmd|' /C calc'!A0", "+1", "-x", "@SUM(1)", "\tx"]]
    assert write_csv(rows) == "'=cmd|' /C calc'!A0,'+1,'-x,'@SUM(1),'\tx\r\n"
    assert write_csv(rows) == csvfiles.write(rows[0], [])


def test_numbers_booleans_and_blanks_are_written_as_a_spreadsheet_shows_them():
    assert write_csv([[4200.0, -5.0, 0.25, True, False, None, ""]]) == (
        "4200,-5,0.25,TRUE,FALSE,,\r\n"
    )


def test_an_empty_sheet_writes_nothing():
    assert write_csv([]) == ""


# --- one CSV kit ------------------------------------------------------------------------------


def test_the_crm_reexports_the_shared_csv_functions():
    assert crm_csvio.safe_cell is csvfiles.safe_cell
    assert crm_csvio.write is csvfiles.write
    assert crm_csvio.decode is csvfiles.decode
    assert crm_csvio.FORMULA_STARTS is csvfiles.FORMULA_STARTS
    assert crm_csvio.ENCODINGS is csvfiles.ENCODINGS


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("Zürich".encode(), "utf-8"),
        ("\ufeffZürich".encode(), "utf-8"),
        ("Zürich €".encode("cp1252"), "windows-1252"),
        (b"\x81\x8d", "latin-1"),
    ],
)
def test_the_encoding_guess_prefers_utf8_then_windows_1252(data, encoding):
    assert csvfiles.guess_encoding(data) == encoding

"""Import and export through the app: .xlsx out and back in (read with openpyxl between), CSV
out with formula-like text neutralised, CSV in with a file's formulas kept as text, and every
kind of bad upload refused with a clear 4xx that writes nothing."""

from __future__ import annotations

import csv
import io
import zipfile

import openpyxl
import pytest

from .conftest import API, HEADERS, call, cells, dump, form_token, one, rows, sheet_path, value

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def upload(client, path: str, data: bytes, filename: str, **form):
    return client.post(
        f"{API}{path}",
        data={"file": (io.BytesIO(data), filename), **form},
        headers=HEADERS,
        content_type="multipart/form-data",
    )


def export_xlsx(client, facts) -> bytes:
    response = client.get(f"{API}/workbooks/{facts.workbook}/export.xlsx")
    assert response.status_code == 200
    assert response.mimetype == XLSX
    return response.data


def export_csv(client, facts, sheet: int | None = None) -> list[list[str]]:
    response = client.get(f"{API}{sheet_path(facts, sheet)}/export.csv")
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def sheet_ids(store, world, workbook: int) -> list[int]:
    return [
        r[0]
        for r in rows(
            store,
            world,
            "SELECT id FROM sheets_sheet WHERE workbook_id = ? ORDER BY position",
            (workbook,),
        )
    ]


# -- xlsx out ----------------------------------------------------------------------------------


def test_xlsx_export_keeps_sheet_names_in_tab_order(owner, facts):
    book = openpyxl.load_workbook(io.BytesIO(export_xlsx(owner, facts)))
    assert book.sheetnames == [facts.sheet_name, facts.second_sheet_name]


def test_xlsx_export_keeps_formulas_as_formulas(owner, facts):
    sheet = openpyxl.load_workbook(io.BytesIO(export_xlsx(owner, facts)))[facts.sheet_name]
    assert sheet["E5"].value == "=SUM(E2:E4)"
    assert sheet["H2"].value == "=E2*G2/100"


def test_xlsx_export_keeps_number_formats_values_and_bold(owner, facts):
    sheet = openpyxl.load_workbook(io.BytesIO(export_xlsx(owner, facts)))[facts.sheet_name]
    assert sheet["E2"].value == 20000
    assert sheet["E2"].number_format == "$#,##0"
    assert sheet["F2"].number_format == "yyyy-mm-dd"
    assert sheet["A1"].font.b is True
    assert not sheet["A2"].font.b


def test_xlsx_export_writes_typed_amounts_and_percents_as_numbers(owner, facts):
    call(
        owner,
        "PUT",
        f"{sheet_path(facts)}/range",
        {"ref": "J2", "values": [["$1,250.50", "12.5%"]]},
    )
    sheet = openpyxl.load_workbook(io.BytesIO(export_xlsx(owner, facts)))[facts.sheet_name]
    assert sheet["J2"].value == 1250.5
    assert sheet["J2"].number_format == "$#,##0.00"
    assert sheet["K2"].value == 0.125
    assert sheet["K2"].number_format == "0.0%"


def test_the_xlsx_export_page_names_the_file_after_the_workbook(owner, facts):
    response = owner.get(f"/sheets/w/{facts.workbook}/export.xlsx")
    assert response.status_code == 200
    assert ".xlsx" in response.headers["Content-Disposition"]
    assert "Enterprise" in response.headers["Content-Disposition"]


# -- xlsx round trip ---------------------------------------------------------------------------


def test_an_exported_workbook_imports_back_with_the_same_cells(owner, facts, store, world):
    call(
        owner,
        "PUT",
        f"{sheet_path(facts)}/range",
        {"ref": "J2", "values": [["$1,250.50", "12.5%", "'0042", "TRUE", "=J2*2"]]},
    )
    call(
        owner,
        "POST",
        f"{sheet_path(facts)}/format",
        {"ref": "A2", "italic": True, "fill": "#FFF2CC"},
    )
    response = upload(owner, "/workbooks/import", export_xlsx(owner, facts), "pipeline.xlsx")
    assert response.status_code == 201, response.get_json()
    book = response.get_json()
    assert book["name"] == "pipeline"
    assert [s["name"] for s in book["sheets"]] == [facts.sheet_name, facts.second_sheet_name]
    originals = sheet_ids(store, world, facts.workbook)
    copies = [s["id"] for s in book["sheets"]]
    for original, copy in zip(originals, copies, strict=True):
        before, after = cells(store, world, original), cells(store, world, copy)
        assert after.keys() == before.keys()
        for address, state in before.items():
            raw, kind, num, text, fmt, bold, italic, fill = state
            assert after[address][1:] == state[1:], address  # value, format, bold, italic, fill
            if raw.startswith("="):
                assert after[address][0] == raw, address


def test_an_imported_workbook_recomputes_its_formulas(owner, facts, store, world):
    response = upload(owner, "/workbooks/import", export_xlsx(owner, facts), "pipeline.xlsx")
    copy = response.get_json()["sheets"][0]["id"]
    call(
        owner,
        "PUT",
        f"/workbooks/{response.get_json()['id']}/sheets/{copy}/range",
        {"ref": "E2", "values": [["0"]]},
    )
    assert value(store, world, copy, "E5") == value(store, world, facts.sheet, "E5") - 20000


def test_an_imported_workbook_belongs_to_the_importer_and_logs_one_act(viewer, facts, store, world):
    response = upload(viewer, "/workbooks/import", export_xlsx(viewer, facts), "mine.xlsx")
    book = response.get_json()
    assert book["owner_id"] == facts.viewer.id and book["role"] == "owner"
    assert rows(
        store,
        world,
        "SELECT employee_id, summary FROM sheets_edit WHERE workbook_id = ?",
        (book["id"],),
    ) == [(facts.viewer.id, "Imported “mine”")]


def test_importing_through_the_home_page_opens_the_new_workbook(owner, facts, store, world):
    data = {
        "file": (io.BytesIO(export_xlsx(owner, facts)), "From page.xlsx"),
        "csrf_token": form_token(owner, "/sheets/"),
    }
    response = owner.post("/sheets/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 302
    new = one(store, world, "SELECT max(id) FROM sheets_workbook")
    assert response.headers["Location"].endswith(f"/sheets/w/{new}")
    assert one(store, world, "SELECT name FROM sheets_workbook WHERE id = ?", (new,)) == "From page"


def test_an_imported_circular_reference_is_worth_ref_error(owner, store, world):
    book = openpyxl.Workbook()
    book.active["A1"] = "=B1+1"
    book.active["B1"] = "=A1+1"
    book.active["C1"] = "=A1*2"
    out = io.BytesIO()
    book.save(out)
    response = upload(owner, "/workbooks/import", out.getvalue(), "loop.xlsx")
    assert response.status_code == 201, response.get_json()
    sheet = response.get_json()["sheets"][0]["id"]
    assert [value(store, world, sheet, a) for a in ("A1", "B1", "C1")] == ["#REF!"] * 3


# -- CSV ---------------------------------------------------------------------------------------


def test_csv_export_writes_the_shown_values(owner, facts):
    exported = export_csv(owner, facts)
    assert exported[0][:5] == ["Opportunity", "Account", "Owner", "Stage", "Amount"]
    assert exported[1][4] == "$20,000"
    assert exported[1][5] == "2025-09-15"
    assert exported[4][4] == "$140,000"


def test_csv_export_neutralises_text_that_would_run_as_a_formula(owner, facts):
    call(
        owner,
        "PUT",
        f"{sheet_path(facts)}/range",
        {
            "ref": "J1",
            "values": [['\'=HYPERLINK("http://x.test","y")', "+cmd", "@SUM(A1)", "'-1+2"]],
        },
    )
    row = export_csv(owner, facts)[0]
    assert row[9:13] == ['\'=HYPERLINK("http://x.test","y")', "'+cmd", "'@SUM(A1)", "'-1+2"]


def test_csv_export_keeps_negative_numbers_as_numbers(owner, facts):
    call(owner, "PUT", f"{sheet_path(facts)}/range", {"ref": "J1", "values": [["-5", "-$1,200"]]})
    assert export_csv(owner, facts)[0][9:11] == ["-5", "-$1,200"]


def test_csv_export_of_a_formula_writes_its_value(owner, facts):
    call(owner, "PUT", f"{sheet_path(facts)}/range", {"ref": "J1", "values": [["=1+1"]]})
    assert export_csv(owner, facts)[0][9] == "2"


FORMULAS_CSV = (
    b"Name,Link,Command,Sum,Amount\n"
    b'Acme,"=HYPERLINK(""http://evil.test"",""click"")",+cmd|\' /C calc\'!A0,@SUM(1+1),4200\n'
)


def test_a_csv_import_keeps_formula_like_fields_as_text(owner, facts, store, world):
    response = upload(owner, f"/workbooks/{facts.workbook}/import.csv", FORMULAS_CSV, "leads.csv")
    assert response.status_code == 201, response.get_json()
    sheet = response.get_json()["id"]
    state = cells(store, world, sheet)
    assert state["B2"][1:4] == ("text", None, '=HYPERLINK("http://evil.test","click")')
    assert state["C2"][1:4] == ("text", None, "+cmd|' /C calc'!A0")
    assert state["D2"][1:4] == ("text", None, "@SUM(1+1)")
    assert state["E2"][1:3] == ("number", 4200.0)
    assert not any(c[0].startswith("=") for c in state.values())


def test_formula_like_fields_imported_from_csv_are_neutralised_again_on_export(
    owner, facts, store, world
):
    sheet = upload(
        owner, f"/workbooks/{facts.workbook}/import.csv", FORMULAS_CSV, "leads.csv"
    ).get_json()["id"]
    row = export_csv(owner, facts, sheet)[1]
    assert row[1:4] == [
        '\'=HYPERLINK("http://evil.test","click")',
        "'+cmd|' /C calc'!A0",
        "'@SUM(1+1)",
    ]


def test_a_csv_import_becomes_a_new_sheet_named_after_the_file(owner, facts, store, world):
    response = upload(
        owner, f"/workbooks/{facts.workbook}/import.csv", b"a;b\n1;2\n", "Q3 leads.csv"
    )
    assert response.get_json()["name"] == "Q3 leads"
    assert sheet_ids(store, world, facts.workbook)[-1] == response.get_json()["id"]
    assert cells(store, world, response.get_json()["id"])["B2"][:3] == ("2", "number", 2.0)


def test_a_csv_file_imports_as_a_new_workbook(owner, facts, store, world):
    response = upload(owner, "/workbooks/import", b"City,Total\nOslo,3\n", "cities.csv")
    assert response.status_code == 201, response.get_json()
    book = response.get_json()
    assert book["name"] == "cities"
    assert cells(store, world, book["sheets"][0]["id"])["B2"][:3] == ("3", "number", 3.0)


# -- bad uploads -------------------------------------------------------------------------------


def _zip_without_workbook() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("hello.txt", "not a workbook")
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "filename", "message"),
    [
        (b"PK\x03\x04 this is not really a zip", "broken.xlsx", "not an .xlsx workbook"),
        (_zip_without_workbook(), "empty-zip.xlsx", ""),
        (b"", "empty.xlsx", "empty"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "old.xlsx", ""),
        (b"name,total\n", "data.pdf", "not an .xlsx"),
        (b"\x00\x01\x02binary", "binary.csv", "binary"),
        (b"", "empty.csv", "empty"),
        (b"x" * (10 * 1024 * 1024 + 1), "big.csv", "10 MB"),
    ],
    ids=[
        "corrupt-xlsx",
        "zip-no-workbook",
        "empty-xlsx",
        "old-xls",
        "wrong-extension",
        "binary-csv",
        "empty-csv",
        "over-10mb",
    ],
)
def test_a_bad_workbook_upload_is_refused_with_a_message(
    owner, store, world, data, filename, message
):
    before = dump(store, world)
    response = upload(owner, "/workbooks/import", data, filename)
    assert response.status_code == 422, response.get_data(as_text=True)[:300]
    error = response.get_json()["error"]
    assert error["field"] == "file"
    assert message.lower() in error["message"].lower()
    assert dump(store, world) == before


def test_a_50_mb_upload_is_refused_as_too_large(owner, store, world):
    before = dump(store, world)
    response = upload(owner, "/workbooks/import", b"\0" * (50 * 1024 * 1024), "huge.xlsx")
    assert response.status_code == 413
    assert "error" in response.get_json()
    assert dump(store, world) == before


def test_an_upload_without_a_file_is_refused(owner, store, world):
    response = owner.post(f"{API}/workbooks/import", data={}, headers=HEADERS)
    assert response.status_code == 422
    assert response.get_json()["error"]["field"] == "file"


def test_a_csv_sheet_upload_with_the_wrong_extension_is_refused(owner, facts, store, world):
    before = dump(store, world)
    response = upload(owner, f"/workbooks/{facts.workbook}/import.csv", b"a,b\n", "data.xlsx")
    assert response.status_code == 422
    assert "not a CSV file" in response.get_json()["error"]["message"]
    assert dump(store, world) == before


def test_a_bad_upload_on_the_home_page_shows_the_message(owner, store, world):
    before = dump(store, world)
    data = {
        "file": (io.BytesIO(b"garbage"), "bad.xlsx"),
        "csrf_token": form_token(owner, "/sheets/"),
    }
    response = owner.post("/sheets/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 422
    assert "not an .xlsx workbook" in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_a_sheet_too_large_for_the_app_is_refused(owner, store, world):
    book = openpyxl.Workbook()
    book.active["A100001"] = "too far down"
    out = io.BytesIO()
    book.save(out)
    before = dump(store, world)
    response = upload(owner, "/workbooks/import", out.getvalue(), "deep.xlsx")
    assert response.status_code == 422
    assert "100,000 rows" in response.get_json()["error"]["message"]
    assert dump(store, world) == before

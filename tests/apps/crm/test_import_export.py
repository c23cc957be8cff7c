"""CSV import of contacts (bad files, bad rows, big files, all-or-nothing) and CSV export
(formula-like cells neutralised).

The import rejects bad rows, reports each by line and field, and writes every valid row in one
transaction: all of them, or none if writing fails.
"""

from __future__ import annotations

import csv
import io
import time

import pytest

from officegym.apps.crm import csvio, service
from officegym.apps.web.errors import ValidationError

from .conftest import one, rows, token

HEADER = "First Name,Last Name,Email,Phone,Title,Account,Mailing City\n"


@pytest.fixture
def rep(as_person, facts):
    return as_person(facts.rep)


def _upload(client, data: bytes, encoding: str = "utf-8", path: str = "/crm/import/preview"):
    return client.post(
        path,
        data={
            "file": (io.BytesIO(data), "contacts.csv", "text/csv"),
            "encoding": encoding,
            "csrf_token": token(client, "/crm/import"),
        },
        content_type="multipart/form-data",
    )


def _run(client, text: str, **mapping):
    data = {"csv_text": text, "csrf_token": token(client, "/crm/import")}
    data.update(mapping)
    return client.post("/crm/import/run", data=data)


def _contacts(store, world) -> int:
    return one(store, world, "SELECT count(*) FROM crm_contact")


def test_preview_maps_columns_checks_rows_and_writes_nothing(rep, store, world):
    text = HEADER + "Ada,Byron,ada@byron.example,+44 20 7946 0958,CTO,,London\n"
    response = _upload(rep, text.encode())
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert '<option value="first_name" selected>' in html
    assert "<strong>1</strong> row ready to import" in html
    assert not store.diff(world)


def test_wrong_encoding_is_explained_and_the_right_one_works(rep, store, world):
    data = (HEADER + "José,Núñez,jose@nunez.example,,,,Sevilla\n").encode("cp1252")
    response = _upload(rep, data)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "isn&#39;t valid UTF-8 text (line 2" in html
    response = _upload(rep, data, encoding="windows-1252", path="/crm/import/run")
    assert response.status_code == 200
    assert one(store, world, "SELECT first_name FROM crm_contact WHERE last_name='Núñez'") == "José"


def test_a_binary_file_is_refused(rep, store, world):
    response = _upload(rep, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    assert response.status_code == 422
    assert "binary data" in response.get_data(as_text=True)
    assert not store.diff(world)


def test_utf8_with_a_byte_order_mark_reads_the_first_header(rep):
    response = _upload(rep, ("\ufeff" + HEADER + "Ada,Byron,,,,,\n").encode("utf-8"))
    assert '<option value="first_name" selected>' in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty."),
        (b"First Name,Last Name\n", "no contacts under it"),
        (b"Given,Email\nAda,ada@x.example\n", "Map a column to First name and Last name"),
    ],
)
def test_unusable_files_are_explained(rep, store, world, data, message):
    response = _upload(rep, data)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert not store.diff(world)


def test_missing_required_column_lists_the_files_columns(rep, store, world):
    response = _run(rep, "First Name,Email\nAda,ada@x.example\n")
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Map a column to Last name" in html and "First Name, Email" in html
    assert not store.diff(world)


def test_columns_can_be_mapped_by_hand(rep, store, world):
    response = _run(rep, "Given,Family\nAda,Quill\n", map_0="first_name", map_1="last_name")
    assert response.status_code == 200
    assert one(store, world, "SELECT first_name FROM crm_contact WHERE last_name='Quill'") == "Ada"


def test_semicolon_separated_files_are_read():
    table = csvio.read("First Name;Last Name\nAda;Quill\n")
    assert table.headers == ("First Name", "Last Name")
    assert table.rows == ((2, ("Ada", "Quill")),)


def test_bad_rows_are_rejected_by_line_and_good_rows_imported(rep, facts, store, world):
    existing = one(store, world, "SELECT email FROM crm_contact WHERE id=?", (facts.rep_contact,))
    account = one(store, world, "SELECT name FROM crm_account WHERE id=?", (facts.rep_account,))
    text = (
        HEADER
        + f"Good,One,good.one@import.example,,,{account},\n"  # line 2: ok
        + "Bad,Email,not-an-email,,,,\n"  # line 3
        + ",NoFirst,nofirst@import.example,,,,\n"  # line 4
        + f"Dup,Existing,{existing.upper()},,,,\n"  # line 5
        + "Good,Two,good.two@import.example,,,,\n"  # line 6: ok
        + "Dup,InFile,good.two@import.example,,,,\n"  # line 7
        + "Bad,Account,ba@import.example,,,No Such Account Ltd,\n"  # line 8
        + "Bad,Phone,bp@import.example,call me,,,\n"  # line 9
    )
    before = _contacts(store, world)
    response = _run(rep, text)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "Imported 2 of 8 contacts." in html and "6 rows were rejected" in html
    for line, problem in [
        (3, "must be an email address"),
        (4, "First name is required."),
        (5, "already exists"),
        (7, "already exists"),
        (8, "No account is named"),
        (9, "must be a phone number"),
    ]:
        assert f"<tr><td>{line}</td>" in html and problem in html
    assert _contacts(store, world) == before + 2
    owner, account_id = one(
        store,
        world,
        "SELECT owner_id, account_id FROM crm_contact WHERE email='good.one@import.example'",
    )
    assert (owner, account_id) == (facts.rep.id, facts.rep_account)
    assert (
        one(
            store,
            world,
            "SELECT count(*) FROM crm_contact_history WHERE field='imported' AND changed_by_id=?",
            (facts.rep.id,),
        )
        == 2
    )


def test_owner_column_assigns_owners_by_email(rep, facts, store, world):
    text = f"First Name,Last Name,Owner Email\nOwen,Owned,{facts.other_rep.email.upper()}\nNo,Body,ghost@nowhere.example\n"
    response = _run(rep, text)
    assert "No employee has the email" in response.get_data(as_text=True)
    assert one(store, world, "SELECT owner_id FROM crm_contact WHERE last_name='Owned'") == (
        facts.other_rep.id
    )


def test_the_valid_rows_are_all_or_nothing(rep, store, world, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(service, "_history_many", broken)
    text = HEADER + "".join(f"Row,Number{i},row{i}@import.example,,,,\n" for i in range(50))
    with pytest.raises(RuntimeError, match="disk full"):
        _run(rep, text)
    assert not store.diff(world), "a failed import left rows behind"


def test_ten_thousand_rows_import_in_one_go(rep, store, world):
    lines = [HEADER.strip()]
    lines += [
        f"First{i},Last{i},person{i}@bulk.example,+1 415-555-{i % 10000:04d},,,Boston"
        for i in range(10_000)
    ]
    before = _contacts(store, world)
    started = time.perf_counter()
    response = _run(rep, "\n".join(lines) + "\n")
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert "Imported 10000 of 10000 contacts." in response.get_data(as_text=True)
    assert _contacts(store, world) == before + 10_000
    ids = [
        r[0]
        for r in rows(
            store, world, "SELECT id FROM crm_contact WHERE email LIKE '%@bulk.example' ORDER BY id"
        )
    ]
    assert ids == list(range(ids[0], ids[0] + 10_000))
    assert elapsed < 30


def test_more_rows_than_the_limit_are_refused():
    text = "First Name,Last Name\n" + "a,b\n" * 11
    with pytest.raises(ValidationError, match="at most 10 rows"):
        csvio.read(text, max_rows=10)


FORMULAS = ["=cmd|' /C calc'!A0", "+SUM(1,2)", "-2+3", '@HYPERLINK("http://x")', "\tTAB"]


def test_formula_like_cells_import_verbatim_and_export_neutralised(rep, store, world):
    text = "First Name,Last Name,Title,Email\n" + "".join(
        f'Formula,Case{i},"{value.replace(chr(34), chr(34) * 2)}",f{i}@formula.example\n'
        for i, value in enumerate(FORMULAS)
    )
    assert "Imported 5 of 5" in _run(rep, text).get_data(as_text=True)
    stored = [
        r[0]
        for r in rows(
            store, world, "SELECT title FROM crm_contact WHERE first_name='Formula' ORDER BY id"
        )
    ]
    assert stored == [v.strip() if v.startswith("\t") else v for v in FORMULAS]
    exported = rep.get("/crm/contacts/export.csv?q=Formula").get_data(as_text=True).lstrip("\ufeff")
    table = list(csv.reader(io.StringIO(exported)))
    titles = [row[table[0].index("Title")] for row in table[1:]]
    assert sorted(titles) == sorted(csvio.safe_cell(v) for v in stored)
    assert titles.count("TAB") == 1  # the tab was trimmed on import: plain text now
    for row in table[1:]:
        for cell in row:
            assert not cell.startswith(csvio.FORMULA_STARTS), cell


def test_safe_cell_leaves_numbers_and_plain_text_alone():
    assert csvio.safe_cell(-5) == -5
    assert csvio.safe_cell("Acme") == "Acme"
    assert csvio.safe_cell(None) == ""
    assert csvio.safe_cell("=1+1") == "'=1+1"

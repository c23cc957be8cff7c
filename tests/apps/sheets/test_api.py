"""The JSON API's contract: what reads answer, the error envelope, bad input refused with a
clear 4xx that names the field and writes nothing (never a 500), and an OpenAPI document that
lists every route."""

from __future__ import annotations

import re

import pytest

from .conftest import API, HEADERS, call, cell, dump, sheet_path

# -- reads -------------------------------------------------------------------------------------


def test_a_workbook_lists_its_sheets_in_tab_order_and_the_readers_role(viewer, facts):
    book = viewer.get(f"{API}/workbooks/{facts.workbook}").get_json()
    assert book["id"] == facts.workbook and book["name"] == facts.name
    assert book["role"] == "view" and book["owner_id"] == facts.owner.id
    assert [s["name"] for s in book["sheets"]] == [facts.sheet_name, facts.second_sheet_name]


def test_reading_a_range_gives_raw_value_type_and_shown_text(viewer, facts):
    found = viewer.get(f"{API}{sheet_path(facts)}/range?ref=E2:H2").get_json()
    assert found["ref"] == "E2:H2"
    by_address = {c["address"]: c for c in found["cells"]}
    assert by_address["E2"] == {
        "address": "E2",
        "row": 2,
        "col": 5,
        "raw": "20000",
        "value": 20000.0,
        "type": "number",
        "shown": "$20,000",
        "number_format": "$#,##0",
        "bold": False,
        "italic": False,
        "fill": None,
    }
    assert by_address["H2"]["raw"] == "=E2*G2/100"
    assert by_address["H2"]["value"] == 15000.0


def test_reading_without_a_range_gives_the_used_area(viewer, facts):
    found = viewer.get(f"{API}{sheet_path(facts, facts.second_sheet)}/range").get_json()
    assert found["ref"] == "A1:C4"
    assert len(found["cells"]) == 12


def test_an_error_cell_reads_as_its_code(owner, facts):
    call(owner, "PUT", f"{sheet_path(facts)}/range", {"ref": "J2", "values": [["=1/0"]]})
    found = owner.get(f"{API}{sheet_path(facts)}/range?ref=J2").get_json()["cells"][0]
    assert (found["type"], found["value"], found["shown"]) == ("error", "#DIV/0!", "#DIV/0!")


def test_a_write_answers_with_the_sheets_used_extent(owner, facts):
    response = call(owner, "PUT", f"{sheet_path(facts)}/range", {"ref": "K9", "values": [["x"]]})
    assert response.get_json() == {"ok": True, "last_row": 9, "last_col": 11}


def test_numbers_booleans_and_nulls_in_json_are_typed_as_such(owner, facts, store, world):
    call(
        owner,
        "PUT",
        f"{sheet_path(facts)}/range",
        {"ref": "J2", "values": [[1250, 0.5, True, None, "x"]]},
    )
    assert cell(store, world, facts.sheet, "J2")[:3] == ("1250", "number", 1250.0)
    assert cell(store, world, facts.sheet, "K2")[:3] == ("0.5", "number", 0.5)
    assert cell(store, world, facts.sheet, "L2")[:3] == ("TRUE", "bool", 1.0)
    assert cell(store, world, facts.sheet, "M2") is None


@pytest.mark.parametrize(
    ("start", "direction", "landing"),
    [("A1", "down", "A5"), ("A2", "right", "H2"), ("E5", "up", "E1"), ("A5", "right", "E5")],
)
def test_ctrl_arrow_lands_at_the_edge_of_the_data(viewer, facts, start, direction, landing):
    response = viewer.get(f"{API}{sheet_path(facts)}/edge?cell={start}&direction={direction}")
    assert response.get_json() == {"cell": landing}


def test_the_home_list_can_be_searched_by_name(owner, facts):
    word = facts.name.split()[0]
    listed = owner.get(f"{API}/workbooks", query_string={"q": word.lower()}).get_json()
    assert [b["id"] for b in listed] == [facts.workbook]
    assert owner.get(f"{API}/workbooks", query_string={"q": "%"}).get_json() == []


def test_the_shares_list_names_the_owner_and_each_person(viewer, facts):
    listed = viewer.get(f"{API}/workbooks/{facts.workbook}/shares").get_json()
    assert listed["owner_id"] == facts.owner.id
    assert {(s["employee_id"], s["permission"]) for s in listed["shares"]} >= {
        (facts.viewer.id, "view"),
        (facts.editor.id, "view"),
    }


# -- the error envelope ------------------------------------------------------------------------


def test_a_refusal_answers_with_status_title_message_and_field(owner, facts):
    response = call(owner, "PUT", f"{sheet_path(facts)}/range", {"ref": "ZZZZ1", "values": [["x"]]})
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["status"] == 422
    assert error["title"]
    assert error["field"] == "cell"
    assert "ZZZZ1" in error["message"]


def test_an_unknown_workbook_is_a_404_with_the_envelope(owner):
    response = owner.get(f"{API}/workbooks/424242")
    assert response.status_code == 404
    assert response.get_json()["error"]["status"] == 404


# -- bad input: nothing written, never a 500 ---------------------------------------------------


def refused(client, store, world, method: str, path: str, body=None, status: int = 422, **kwargs):
    """Send a request that must be refused with `status`; return its error, having checked
    that the world did not change."""
    before = dump(store, world)
    response = client.open(f"{API}{path}", method=method, headers=HEADERS, json=body, **kwargs)
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    assert dump(store, world) == before
    error = response.get_json()["error"]
    assert error["message"]
    return error


@pytest.mark.parametrize(
    "ref",
    [
        "ZZZZ1",
        "A0",
        "1A",
        "",
        "   ",
        "A9223372036854775808",
        "A100001",
        "A1048577",
        "XFE1",
        "GS1",
        "A1:B",
        "Sheet1!A1",
        "A-1",
        "A1.5",
        "Ａ1",
        "É1",
        "A1:A2:A3",
    ],
)
def test_a_bad_cell_address_is_refused(ref, owner, facts, store, world):
    error = refused(
        owner, store, world, "PUT", f"{sheet_path(facts)}/range", {"ref": ref, "values": [["x"]]}
    )
    assert error["field"] == "cell"


@pytest.mark.parametrize("ref", ["ZZZZ1", "A0", "A1048577:A1048578", "A1:XFD1048576"])
def test_a_bad_range_to_read_is_refused(ref, viewer, facts):
    response = viewer.get(f"{API}{sheet_path(facts)}/range", query_string={"ref": ref})
    assert response.status_code == 422
    assert response.get_json()["error"]["field"] == "ref"


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ([["a\x00b"]], "raw"),
        ([["x" * 5001]], "raw"),
        ("A1", "values"),
        (["x", "y"], "values"),
        ([], "values"),
        ({"0": ["x"]}, "values"),
        ([[["nested"]]], "raw"),
        ([[[[[["deeper"]]]]]], "raw"),
        ([[{"raw": "x"}]], "raw"),
    ],
    ids=[
        "nul",
        "over-long",
        "string",
        "flat-list",
        "empty",
        "object",
        "nested",
        "deep",
        "object-cell",
    ],
)
def test_a_bad_block_of_inputs_is_refused(values, field, owner, facts, store, world):
    error = refused(
        owner, store, world, "PUT", f"{sheet_path(facts)}/range", {"ref": "J2", "values": values}
    )
    assert error["field"] == field


@pytest.mark.parametrize(
    ("raw_json", "field"),
    [
        ('{"ref":"J2","values":[[NaN]]}', "raw"),
        ('{"ref":"J2","values":[[Infinity]]}', "raw"),
        ('{"ref":"J2","values":[[-Infinity]]}', "raw"),
        ('{"ref":"J2","values":[[1e400]]}', "raw"),
        # Whole numbers past 64 bits are refused by the web kit for every API, by request field.
        ('{"ref":"J2","values":[[1' + "0" * 400 + "]]}", "values"),
    ],
    ids=["nan", "infinity", "minus-infinity", "1e400", "huge-int"],
)
def test_a_number_no_cell_can_hold_is_refused(raw_json, field, owner, facts, store, world):
    before = dump(store, world)
    response = owner.put(
        f"{API}{sheet_path(facts)}/range",
        data=raw_json,
        headers={**HEADERS, "Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert response.get_json()["error"]["field"] == field
    assert dump(store, world) == before


def test_a_block_running_past_the_last_column_is_refused(owner, facts, store, world):
    refused(
        owner,
        store,
        world,
        "PUT",
        f"{sheet_path(facts)}/range",
        {"ref": "GR2", "values": [["a", "b", "c", "d"]]},
    )


def test_a_block_running_past_the_last_row_is_refused(owner, facts, store, world):
    refused(
        owner,
        store,
        world,
        "PUT",
        f"{sheet_path(facts)}/range",
        {"ref": "J99999", "values": [["a"], ["b"], ["c"]]},
    )


@pytest.mark.parametrize("body", ["not json", "[1, 2]", '"x"'])
def test_a_body_that_is_not_a_json_object_is_a_400(body, owner, facts, store, world):
    before = dump(store, world)
    response = owner.put(
        f"{API}{sheet_path(facts)}/range",
        data=body,
        headers={**HEADERS, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert "JSON object" in response.get_json()["error"]["message"]
    assert dump(store, world) == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/range", {"ref": ["J2"], "values": [["x"]]}, "ref"),
        ("/range", {"ref": 5, "values": [["x"]]}, "ref"),
        ("/insert", {"axis": "row", "at": True}, "at"),
        ("/insert", {"axis": "row", "at": "2"}, "at"),
        ("/insert", {"axis": "row", "at": 2, "count": 2.0}, "count"),
        ("/insert", {"axis": "row", "at": 2, "count": False}, "count"),
        ("/insert", {"axis": "row", "at": 2, "count": 0}, "count"),
        ("/insert", {"axis": "row", "at": 2, "count": 1001}, "count"),
        ("/insert", {"axis": "row", "at": 2, "count": 10**30}, "count"),
        ("/insert", {"axis": "diagonal", "at": 2}, "axis"),
        ("/insert", {"axis": ["row"], "at": 2}, "axis"),
        ("/insert", {"axis": "col", "at": "É"}, "at"),
        ("/insert", {"axis": "col", "at": "ZZZZ"}, "at"),
        ("/insert", {"axis": "row", "at": 100_001}, "at"),
        ("/delete", {"axis": "col", "at": 0}, "at"),
        ("/clear", {"ref": "A2", "formats": "yes"}, "formats"),
        ("/format", {"ref": "A2", "bold": 1}, "bold"),
        ("/format", {"ref": "A2", "italic": "true"}, "italic"),
        ("/fill", {"ref": "A2:A3", "direction": "up"}, "direction"),
        ("/fill", {"ref": "A2:A3", "direction": 5}, "direction"),
        ("/fill", {"ref": "A2", "direction": "down"}, "range"),
        ("/fill", {"ref": "A1:GR100000"}, "range"),
        ("/paste", {"source": "A1:B2", "target": "GR99999"}, "target"),
        ("/paste", {"source": "A1:B2", "target": "A1:B2"}, "target"),
        ("/paste", {"source": "A1", "target": "J1", "cut": "yes"}, "cut"),
        ("/paste", {"source": "A1", "target": "J1", "source_sheet_id": "2"}, "source_sheet_id"),
        ("/sort", {"ref": "A1:H4", "by": "Z"}, "by"),
        ("/sort", {"ref": "A1:H4", "by": "É"}, "by"),
        ("/sort", {"ref": "A1:H4", "by": True}, "by"),
        ("/sort", {"ref": "A1:H4", "by": "A", "descending": "no"}, "descending"),
        ("/filter", {"ref": "A1:H4", "shown": ["D"]}, "shown"),
        ("/filter", {"ref": "A1:H4", "shown": {"D": "Negotiation"}}, "values"),
        ("/filter", {"ref": "A1:H4", "shown": {"D": [{"x": 1}]}}, "values"),
        ("/filter", {"ref": "A1:H4", "shown": {"É": ["x"]}}, "column"),
        ("/filter", {"ref": "A1:H4", "shown": {"Z": ["x"]}}, "column"),
        ("/filter", {"ref": "A1", "shown": {}}, "range"),
        ("/comments", {"cell": "A1", "body": ""}, "body"),
        ("/comments", {"cell": "A1", "body": "x" * 2001}, "body"),
        ("/comments", {"cell": "A1", "body": "a\x00b"}, "body"),
        ("/comments", {"cell": "A1:B2", "body": "x"}, "cell"),
    ],
)
def test_a_sheet_act_with_a_bad_argument_is_refused(path, body, field, owner, facts, store, world):
    error = refused(
        owner,
        store,
        world,
        "POST" if path != "/range" else "PUT",
        f"{sheet_path(facts)}{path}",
        body,
    )
    assert error["field"] == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ref": "A2", "number_format": "0.000"}, "number_format"),
        ({"ref": "A2", "number_format": "General"}, "number_format"),
        ({"ref": "A2", "number_format": ["0%"]}, "number_format"),
        ({"ref": "A2", "number_format": {"code": "0%"}}, "number_format"),
        ({"ref": "A2", "number_format": 5}, "number_format"),
        ({"ref": "A2", "fill": "#GGGGGG"}, "fill"),
        ({"ref": "A2", "fill": "red"}, "fill"),
        ({"ref": "A2", "fill": "#FFF"}, "fill"),
        ({"ref": "A2", "fill": "#FFF2CC; background:url(x)"}, "fill"),
        ({"ref": "A2", "fill": ["#FFFFFF"]}, "fill"),
    ],
)
def test_an_unknown_number_format_or_colour_is_refused(body, field, owner, facts, store, world):
    error = refused(owner, store, world, "POST", f"{sheet_path(facts)}/format", body)
    assert error["field"] == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "donut", "source": "A1:C3"}, "kind"),
        ({"kind": ["bar"], "source": "A1:C3"}, "kind"),
        ({"kind": "bar", "source": "nowhere"}, "source"),
        ({"kind": "bar", "source": "A1:A4"}, "source"),
        ({"kind": "bar", "source": "A1:C3", "anchor": "ZZZZ9"}, "anchor"),
        ({"kind": "bar", "source": "A1:C3", "title": 5}, "title"),
    ],
)
def test_a_bad_chart_is_refused(body, field, owner, facts, store, world):
    error = refused(
        owner, store, world, "POST", f"{sheet_path(facts, facts.second_sheet)}/charts", body
    )
    assert error["field"] == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"values": [{"field": "Amount", "function": "MEDIAN"}]}, "values"),
        ({"values": [{"field": "Amount", "function": 5}]}, "values"),
        ({"values": [{"field": "Nope"}]}, "values"),
        ({"values": ["Amount"]}, "values"),
        ({"values": []}, "values"),
        ({"values": [{"field": "Amount"}], "rows": "Stage"}, "rows"),
        ({"values": [{"field": "Amount"}], "rows": [["Stage"]]}, "rows"),
        ({"values": [{"field": "Amount"}], "rows": ["Nope"]}, "values"),
        ({"values": [{"field": "Amount"}], "rows": []}, "rows"),
        ({"values": [{"field": "Amount"}], "filters": {"Stage": "Negotiation"}}, "filters"),
        ({"values": [{"field": "Amount"}], "filters": {"Stage": 5}}, "filters"),
        ({"values": [{"field": "Amount"}], "filters": ["Stage"]}, "filters"),
        ({"values": [{"field": "Amount"}], "name": "a/b"}, "name"),
        ({"values": [{"field": "Amount"}], "name": "Pipeline"}, "name"),
        ({"values": [{"field": "Amount"}], "source": "A1:A1"}, "range"),
        ({"values": [{"field": "Amount"}], "source": "bad"}, "source"),
    ],
)
def test_a_bad_pivot_table_is_refused(body, field, owner, facts, store, world):
    body = {"source": "A1:H4", "rows": ["Stage"], **body}
    error = refused(owner, store, world, "POST", f"{sheet_path(facts)}/pivots", body)
    assert error["field"] == field


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("PATCH", "/workbooks/{wb}", {"name": ""}, "name"),
        ("PATCH", "/workbooks/{wb}", {"name": "x" * 201}, "name"),
        ("PATCH", "/workbooks/{wb}", {"name": 5}, "name"),
        ("PATCH", "/workbooks/{wb}", {"name": "a\x00b"}, "name"),
        ("POST", "/workbooks", {"name": "   "}, "name"),
        ("POST", "/workbooks/{wb}/sheets", {"name": "a/b"}, "name"),
        ("POST", "/workbooks/{wb}/sheets", {"name": "x" * 101}, "name"),
        ("POST", "/workbooks/{wb}/sheets", {"name": "'quoted'"}, "name"),
        ("PATCH", "/workbooks/{wb}/sheets/{sh}", {"name": "By*Stage"}, "name"),
        ("PATCH", "/workbooks/{wb}/sheets/{sh}", {"position": 99}, "position"),
        ("PATCH", "/workbooks/{wb}/sheets/{sh}", {"position": "1"}, "position"),
        ("PATCH", "/workbooks/{wb}/sheets/{sh}", {"frozen_rows": 11}, "rows"),
        ("PATCH", "/workbooks/{wb}/sheets/{sh}", {"frozen_rows": True}, "frozen_rows"),
        ("PATCH", "/workbooks/{wb}/sheets/{sh}", {}, "name"),
        ("PUT", "/workbooks/{wb}/sheets/{sh}/columns/%C3%89", {"width": 100}, "at"),
        ("PUT", "/workbooks/{wb}/sheets/{sh}/columns/0", {"width": 100}, "at"),
        ("PUT", "/workbooks/{wb}/sheets/{sh}/columns/J", {"width": True}, "width"),
        ("PUT", "/workbooks/{wb}/sheets/{sh}/columns/J", {"width": 10}, "width"),
        ("PUT", "/workbooks/{wb}/sheets/{sh}/columns/J", {"width": 10**30}, "width"),
        (
            "POST",
            "/workbooks/{wb}/shares",
            {"employee_id": True, "permission": "view"},
            "employee_id",
        ),
        (
            "POST",
            "/workbooks/{wb}/shares",
            {"employee_id": 10**30, "permission": "view"},
            "employee_id",
        ),
        (
            "POST",
            "/workbooks/{wb}/shares",
            {"employee_id": "7", "permission": "view"},
            "employee_id",
        ),
        ("POST", "/workbooks/{wb}/replace", {"find": "", "replace": "x"}, "find"),
        ("POST", "/workbooks/{wb}/replace", {"find": "a", "replace": "a\x00"}, "raw"),
        ("POST", "/workbooks/{wb}/replace", {"find": "a", "replace": 5}, "replace"),
        ("POST", "/workbooks/{wb}/replace", {"find": "a", "match_case": "yes"}, "match_case"),
    ],
)
def test_a_workbook_act_with_a_bad_argument_is_refused(
    method, path, body, field, owner, facts, store, world
):
    path = path.format(wb=facts.workbook, sh=facts.sheet)
    error = refused(owner, store, world, method, path, body)
    assert error["field"] == field


@pytest.mark.parametrize(
    "path",
    ["/workbooks/99999999999999999999999", "/workbooks/{wb}/sheets/99999999999999999999999/range"],
)
def test_an_id_too_large_for_the_database_is_a_404(path, owner, facts):
    response = owner.get(API + path.format(wb=facts.workbook))
    assert response.status_code == 404
    assert response.get_json()["error"]["status"] == 404


@pytest.mark.parametrize("before", ["99999999999999999999999", "-99999999999999999999999"])
def test_a_history_cursor_too_large_for_the_database_still_pages(before, owner, facts):
    response = owner.get(f"{API}/workbooks/{facts.workbook}/history?before={before}")
    assert response.status_code == 200
    assert isinstance(response.get_json(), list)


@pytest.mark.parametrize(
    "path",
    [
        "/workbooks/{wb}/comments/99999999999999999999999",
        "/workbooks/{wb}/charts/99999999999999999999999",
        "/workbooks/{wb}/shares/99999999999999999999999",
    ],
)
def test_deleting_by_an_id_too_large_for_the_database_is_a_404(path, owner, facts, store, world):
    refused(owner, store, world, "DELETE", path.format(wb=facts.workbook), status=404)


def test_refreshing_a_pivot_with_an_id_too_large_is_a_404(owner, facts, store, world):
    refused(
        owner,
        store,
        world,
        "POST",
        f"/workbooks/{facts.workbook}/pivots/99999999999999999999999/refresh",
        status=404,
    )


@pytest.mark.parametrize(
    "query",
    ["q=", "q=a&sheet_id=x", "tab=bogus", "limit=abc", "cell=A0", "direction=north"],
)
def test_a_bad_query_argument_is_refused(query, viewer, facts):
    paths = {
        "q": f"/workbooks/{facts.workbook}/find",
        "tab": "/workbooks",
        "limit": f"/workbooks/{facts.workbook}/history",
        "cell": f"{sheet_path(facts)}/edge",
        "direction": f"{sheet_path(facts)}/edge",
    }
    response = viewer.get(f"{API}{paths[query.split('=')[0]]}?{query}")
    assert response.status_code == 422
    assert response.get_json()["error"]["field"]


def test_a_huge_insert_that_runs_off_the_sheet_is_refused(owner, facts, store, world):
    refused(
        owner,
        store,
        world,
        "POST",
        f"{sheet_path(facts)}/insert",
        {"axis": "col", "at": 1, "count": 200},
    )


# -- the OpenAPI document ----------------------------------------------------------------------


def test_the_openapi_document_lists_every_api_route(app, client):
    doc = client.get(f"{API}/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    documented = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    routes = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(API + "/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule[len(API) :])
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((method, path))
    assert routes - documented == set()
    assert documented - routes == set()


def test_every_documented_write_needs_the_csrf_header(client):
    doc = client.get(f"{API}/openapi.json").get_json()
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if method in ("post", "put", "patch", "delete"):
                assert "403" in op["responses"], (method, path)

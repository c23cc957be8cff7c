"""Who may do what to a workbook, through every write route of the JSON API and the page
forms: the owner and an editor succeed; a viewer is refused with 403 and nothing changes; to a
stranger the workbook does not exist (404 on reads and writes, never 403, its name never
shown); a workbook in the trash is the owner's alone and read-only until restored."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from .conftest import API, HEADERS, SheetsFacts, call, dump, form_token, one, rows

# -- the write routes --------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """One write route: its method, path and body, with `{placeholders}` filled from the facts
    and from what `prepare` (run by the owner first) made."""

    name: str
    method: str
    path: str
    body: dict | None = None
    prepare: Callable | None = None
    files: bool = False
    owner_only: bool = False
    need: str = "edit"
    extra: dict = field(default_factory=dict)


def _comment(owner, facts: SheetsFacts) -> dict:
    made = call(
        owner,
        "POST",
        f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/comments",
        {"cell": "A1", "body": "Owner's note"},
    )
    return {"comment": made.get_json()["id"]}


def _pivot(owner, facts: SheetsFacts) -> dict:
    made = call(
        owner,
        "POST",
        f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/pivots",
        {"source": "A1:H4", "rows": ["Stage"], "values": [{"field": "Amount"}]},
    )
    assert made.status_code == 201, made.get_json()
    call(
        owner,
        "PUT",
        f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/range",
        {"ref": "E2", "values": [["1"]]},
    )
    return {"pivot": made.get_json()["id"]}


def _chart(owner, facts: SheetsFacts) -> dict:
    made = call(
        owner,
        "POST",
        f"/workbooks/{facts.workbook}/sheets/{facts.second_sheet}/charts",
        {"kind": "bar", "source": "A1:C3"},
    )
    assert made.status_code == 201, made.get_json()
    return {"chart": made.get_json()["id"]}


def _filtered(owner, facts: SheetsFacts) -> dict:
    call(
        owner, "POST", f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/filter", {"ref": "A1:H5"}
    )
    return {}


S = "/workbooks/{wb}/sheets/{sh}"
WRITES = [
    Route("rename workbook", "PATCH", "/workbooks/{wb}", {"name": "Renamed book"}),
    Route(
        "share",
        "POST",
        "/workbooks/{wb}/shares",
        {"employee_id": "{stranger}", "permission": "view"},
    ),
    Route("unshare", "DELETE", "/workbooks/{wb}/shares/{viewer}"),
    Route(
        "replace", "POST", "/workbooks/{wb}/replace", {"find": "Negotiation", "replace": "Closing"}
    ),
    Route("import csv sheet", "POST", "/workbooks/{wb}/import.csv", files=True),
    Route("add sheet", "POST", "/workbooks/{wb}/sheets", {"name": "New tab"}),
    Route("rename sheet", "PATCH", S, {"name": "Renamed tab"}),
    Route("freeze rows", "PATCH", S, {"frozen_rows": 1}),
    Route("delete sheet", "DELETE", "/workbooks/{wb}/sheets/{sh2}"),
    Route("write range", "PUT", S + "/range", {"ref": "J2", "values": [["42"]]}),
    Route("clear", "POST", S + "/clear", {"ref": "A2"}),
    Route("format", "POST", S + "/format", {"ref": "A2", "bold": True}),
    Route("fill", "POST", S + "/fill", {"ref": "A2:A3"}),
    Route("paste", "POST", S + "/paste", {"source": "A2", "target": "J2"}),
    Route("insert", "POST", S + "/insert", {"axis": "row", "at": 2}),
    Route("delete lines", "POST", S + "/delete", {"axis": "row", "at": 2}),
    Route("sort", "POST", S + "/sort", {"ref": "A1:H4", "by": "E", "descending": True}),
    Route("filter", "POST", S + "/filter", {"ref": "A1:H5", "shown": {"D": ["Negotiation"]}}),
    Route("clear filter", "DELETE", S + "/filter", prepare=_filtered),
    Route("column width", "PUT", S + "/columns/J", {"width": 150}),
    Route(
        "pivot",
        "POST",
        S + "/pivots",
        {"source": "A1:H4", "rows": ["Stage"], "values": [{"field": "Amount"}]},
    ),
    Route("refresh pivot", "POST", "/workbooks/{wb}/pivots/{pivot}/refresh", prepare=_pivot),
    Route(
        "chart", "POST", S + "/charts", {"kind": "line", "source": "A1:C3"}, extra={"sh": "{sh2}"}
    ),
    Route("delete chart", "DELETE", "/workbooks/{wb}/charts/{chart}", prepare=_chart),
    Route("trash", "POST", "/workbooks/{wb}/trash", owner_only=True),
    Route("comment", "POST", S + "/comments", {"cell": "B2", "body": "Looks right"}, need="view"),
    Route("copy", "POST", "/workbooks/{wb}/copy", {}, need="view"),
]
VIEW_WRITES = [r for r in WRITES if r.need == "view"]
EDIT_WRITES = [r for r in WRITES if r.need == "edit"]


def _fill(template, values: dict):
    if isinstance(template, str):
        if template.startswith("{") and template.endswith("}") and template[1:-1] in values:
            return values[template[1:-1]]
        return template.format(**values)
    if isinstance(template, dict):
        return {k: _fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [_fill(v, values) for v in template]
    return template


def send(route: Route, client, facts: SheetsFacts, made: dict | None = None):
    values = {
        "wb": facts.workbook,
        "sh": facts.sheet,
        "sh2": facts.second_sheet,
        "viewer": facts.viewer.id,
        "stranger": facts.stranger.id,
        **(made or {}),
    }
    values.update({k: _fill(v, values) for k, v in route.extra.items()})
    path = _fill(route.path, values)
    if route.files:
        data = {"file": (io.BytesIO(b"Region,Total\nNorth,10\n"), "regions.csv")}
        return client.post(f"{API}{path}", data=data, headers=HEADERS)
    return call(client, route.method, path, _fill(route.body, values))


def _ids(routes):
    return [r.name for r in routes]


# -- the matrix --------------------------------------------------------------------------------


@pytest.mark.parametrize("route", WRITES, ids=_ids(WRITES))
def test_the_owner_may_use_every_write_route(route, owner, facts, store, world):
    made = route.prepare(owner, facts) if route.prepare else {}
    before = dump(store, world)
    response = send(route, owner, facts, made)
    assert response.status_code in (200, 201), response.get_json()
    after = dump(store, world)
    assert after != before
    # Every act is logged once in a change history, as its actor.
    logged = after["sheets_edit"][len(before["sheets_edit"]) :]
    assert [row[3] for row in logged] == [facts.owner.id]  # (rowid, id, workbook, employee)


@pytest.mark.parametrize("route", WRITES, ids=_ids(WRITES))
def test_an_editor_may_use_every_write_route_but_trash(route, owner, editor, facts, store, world):
    made = route.prepare(owner, facts) if route.prepare else {}
    before = dump(store, world)
    response = send(route, editor, facts, made)
    if route.owner_only:
        assert response.status_code == 403, response.get_json()
        assert dump(store, world) == before
    else:
        assert response.status_code in (200, 201), response.get_json()
        assert dump(store, world) != before


@pytest.mark.parametrize("route", EDIT_WRITES, ids=_ids(EDIT_WRITES))
def test_a_viewer_is_refused_every_edit_route_and_nothing_changes(
    route, owner, viewer, facts, store, world
):
    made = route.prepare(owner, facts) if route.prepare else {}
    before = dump(store, world)
    response = send(route, viewer, facts, made)
    assert response.status_code == 403, response.get_json()
    assert "error" in response.get_json()
    assert dump(store, world) == before


@pytest.mark.parametrize("route", VIEW_WRITES, ids=_ids(VIEW_WRITES))
def test_a_viewer_may_comment_on_and_copy_a_workbook(route, viewer, facts, store, world):
    response = send(route, viewer, facts)
    assert response.status_code == 201, response.get_json()


@pytest.mark.parametrize("route", WRITES, ids=_ids(WRITES))
def test_a_stranger_gets_404_on_every_write_route_and_nothing_changes(
    route, owner, stranger, facts, store, world
):
    made = route.prepare(owner, facts) if route.prepare else {}
    before = dump(store, world)
    response = send(route, stranger, facts, made)
    assert response.status_code == 404, response.get_json()
    assert facts.name not in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_a_viewer_cannot_undo_or_redo(owner, viewer, facts, store, world):
    call(
        owner,
        "PUT",
        f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/range",
        {"ref": "J2", "values": [["1"]]},
    )
    before = dump(store, world)
    assert call(viewer, "POST", f"/workbooks/{facts.workbook}/undo").status_code == 403
    assert call(viewer, "POST", f"/workbooks/{facts.workbook}/redo").status_code == 403
    assert dump(store, world) == before


def test_a_stranger_gets_404_on_undo(stranger, facts):
    assert call(stranger, "POST", f"/workbooks/{facts.workbook}/undo").status_code == 404


def test_deleting_someone_elses_comment_is_refused_to_an_editor(owner, editor, facts, store, world):
    made = _comment(owner, facts)
    before = dump(store, world)
    response = call(editor, "DELETE", f"/workbooks/{facts.workbook}/comments/{made['comment']}")
    assert response.status_code == 403
    assert dump(store, world) == before


def test_the_owner_may_delete_anyones_comment(owner, viewer, facts, store, world):
    made = call(
        viewer,
        "POST",
        f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/comments",
        {"cell": "A1", "body": "Viewer's note"},
    ).get_json()
    response = call(owner, "DELETE", f"/workbooks/{facts.workbook}/comments/{made['id']}")
    assert response.status_code == 200
    assert rows(store, world, "SELECT 1 FROM sheets_comment") == []


# -- reads -------------------------------------------------------------------------------------


READS = [
    "/workbooks/{wb}",
    "/workbooks/{wb}/shares",
    "/workbooks/{wb}/history",
    "/workbooks/{wb}/find?q=Total",
    "/workbooks/{wb}/export.xlsx",
    "/workbooks/{wb}/sheets/{sh}/range",
    "/workbooks/{wb}/sheets/{sh}/edge?cell=A1&direction=down",
    "/workbooks/{wb}/sheets/{sh}/export.csv",
]
PAGES = [
    "/sheets/w/{wb}",
    "/sheets/w/{wb}/s/{sh}",
    "/sheets/w/{wb}/s/{sh}/rows?start=1",
    "/sheets/w/{wb}/history",
    "/sheets/w/{wb}/share",
    "/sheets/w/{wb}/settings",
    "/sheets/w/{wb}/s/{sh}/settings",
    "/sheets/w/{wb}/s/{sh}/find?find=Total",
    "/sheets/w/{wb}/s/{sh}/filter",
    "/sheets/w/{wb}/s/{sh}/comments",
    "/sheets/w/{wb}/s/{sh}/pivot",
    "/sheets/w/{wb}/s/{sh}/chart",
    "/sheets/w/{wb}/s/{sh}/sort",
    "/sheets/w/{wb}/export.xlsx",
    "/sheets/w/{wb}/s/{sh}/export.csv",
]


def _path(template: str, facts: SheetsFacts) -> str:
    return template.format(wb=facts.workbook, sh=facts.sheet)


@pytest.mark.parametrize("path", READS)
def test_a_viewer_may_read_through_the_api(path, viewer, facts):
    assert viewer.get(API + _path(path, facts)).status_code == 200


@pytest.mark.parametrize("path", READS)
def test_a_stranger_gets_404_on_api_reads_without_the_workbooks_name(path, stranger, facts):
    response = stranger.get(API + _path(path, facts))
    assert response.status_code == 404
    body = response.get_data(as_text=True)
    assert facts.name not in body and facts.sheet_name not in body


@pytest.mark.parametrize("path", PAGES)
def test_a_viewer_may_open_every_page(path, viewer, facts):
    assert viewer.get(_path(path, facts)).status_code in (200, 302)


@pytest.mark.parametrize("path", PAGES)
def test_a_stranger_gets_404_on_every_page_without_the_workbooks_name(path, stranger, facts):
    response = stranger.get(_path(path, facts))
    assert response.status_code == 404
    body = response.get_data(as_text=True)
    assert facts.name not in body and facts.sheet_name not in body


def test_a_missing_workbook_and_a_strangers_workbook_look_the_same(stranger, facts):
    hidden = stranger.get(f"{API}/workbooks/{facts.workbook}").get_json()
    missing = stranger.get(f"{API}/workbooks/987654").get_json()
    assert hidden == missing


def test_a_sheet_of_another_workbook_is_not_found_through_this_one(owner, facts, store, world):
    other_sheet = one(
        store, world, "SELECT min(id) FROM sheets_sheet WHERE workbook_id != ?", (facts.workbook,)
    )
    response = owner.get(f"{API}/workbooks/{facts.workbook}/sheets/{other_sheet}/range")
    assert response.status_code == 404


def test_the_home_list_shows_a_stranger_nothing_of_the_workbook(stranger, facts):
    listed = stranger.get(f"{API}/workbooks").get_json()
    assert facts.workbook not in [b["id"] for b in listed]
    assert facts.name not in stranger.get("/sheets/").get_data(as_text=True)


def test_the_home_list_shows_a_viewer_the_shared_workbook_with_their_role(viewer, facts):
    listed = viewer.get(f"{API}/workbooks?tab=shared").get_json()
    assert {"id": facts.workbook, "role": "view"}.items() <= next(
        b for b in listed if b["id"] == facts.workbook
    ).items()


def test_the_api_needs_a_signed_in_user(client, facts):
    response = client.get(f"{API}/workbooks/{facts.workbook}")
    assert response.status_code == 401
    assert "error" in response.get_json()


def test_an_api_write_without_the_csrf_header_is_refused(owner, facts, store, world):
    before = dump(store, world)
    response = owner.put(
        f"{API}/workbooks/{facts.workbook}/sheets/{facts.sheet}/range",
        json={"ref": "J2", "values": [["1"]]},
    )
    assert response.status_code == 403
    assert dump(store, world) == before


# -- exports -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/sheets/w/{wb}/export.xlsx",
        "/sheets/w/{wb}/s/{sh}/export.csv",
        API + "/workbooks/{wb}/export.xlsx",
        API + "/workbooks/{wb}/sheets/{sh}/export.csv",
    ],
)
def test_a_viewer_may_export(path, viewer, facts):
    response = viewer.get(_path(path, facts))
    assert response.status_code == 200
    assert len(response.data) > 20


# -- sharing -----------------------------------------------------------------------------------


def test_an_editor_may_share_with_edit_access(editor, facts, store, world):
    response = call(
        editor,
        "POST",
        f"/workbooks/{facts.workbook}/shares",
        {"employee_id": facts.stranger.id, "permission": "edit"},
    )
    assert response.status_code == 201
    assert (
        one(
            store,
            world,
            "SELECT permission FROM sheets_share WHERE workbook_id = ? AND employee_id = ?",
            (facts.workbook, facts.stranger.id),
        )
        == "edit"
    )


def test_a_new_share_lets_the_person_see_the_workbook(owner, as_person, facts):
    call(
        owner,
        "POST",
        f"/workbooks/{facts.workbook}/shares",
        {"employee_id": facts.stranger.id, "permission": "view"},
    )
    assert as_person(facts.stranger).get(f"{API}/workbooks/{facts.workbook}").status_code == 200


def test_removing_a_share_hides_the_workbook_again(owner, viewer, facts):
    call(owner, "DELETE", f"/workbooks/{facts.workbook}/shares/{facts.viewer.id}")
    assert viewer.get(f"{API}/workbooks/{facts.workbook}").status_code == 404


def test_sharing_with_the_owner_is_refused(editor, facts, store, world):
    before = dump(store, world)
    response = call(
        editor,
        "POST",
        f"/workbooks/{facts.workbook}/shares",
        {"employee_id": facts.owner.id, "permission": "view"},
    )
    assert response.status_code == 422
    assert "owns this workbook" in response.get_json()["error"]["message"]
    assert dump(store, world) == before


@pytest.mark.parametrize("permission", ["admin", "owner", "", None, 1, ["edit"]])
def test_sharing_with_an_unknown_permission_is_refused(permission, owner, facts, store, world):
    before = dump(store, world)
    response = call(
        owner,
        "POST",
        f"/workbooks/{facts.workbook}/shares",
        {"employee_id": facts.stranger.id, "permission": permission},
    )
    assert response.status_code == 422
    assert dump(store, world) == before


def test_sharing_with_an_inactive_person_is_refused(owner, facts, store, world):
    inactive = one(store, world, "SELECT min(id) FROM people_employee WHERE NOT is_active")
    response = call(
        owner,
        "POST",
        f"/workbooks/{facts.workbook}/shares",
        {"employee_id": inactive, "permission": "view"},
    )
    assert response.status_code == 422


# -- the trash ---------------------------------------------------------------------------------


@pytest.fixture
def trashed(owner, facts):
    response = call(owner, "POST", f"/workbooks/{facts.workbook}/trash")
    assert response.status_code == 200
    return facts.workbook


def test_a_trashed_workbook_is_shown_to_its_owner(trashed, owner, facts):
    book = owner.get(f"{API}/workbooks/{trashed}").get_json()
    assert book["trashed"] is True
    assert owner.get(f"/sheets/w/{trashed}/s/{facts.sheet}").status_code == 200


def test_a_trashed_workbook_is_hidden_from_the_people_it_is_shared_with(trashed, viewer):
    assert viewer.get(f"{API}/workbooks/{trashed}").status_code == 404
    assert trashed not in [b["id"] for b in viewer.get(f"{API}/workbooks").get_json()]


TRASHED_WRITES = [r for r in WRITES if r.name not in ("copy", "trash")]


@pytest.mark.parametrize("route", TRASHED_WRITES, ids=_ids(TRASHED_WRITES))
def test_every_write_to_a_trashed_workbook_is_a_conflict(route, owner, facts, store, world):
    made = route.prepare(owner, facts) if route.prepare else {}
    assert call(owner, "POST", f"/workbooks/{facts.workbook}/trash").status_code == 200
    before = dump(store, world)
    response = send(route, owner, facts, made)
    assert response.status_code == 409, response.get_json()
    assert "trash" in response.get_json()["error"]["message"]
    assert dump(store, world) == before


def test_deleting_a_comment_in_a_trashed_workbook_is_a_conflict(owner, facts, store, world):
    made = _comment(owner, facts)
    call(owner, "POST", f"/workbooks/{facts.workbook}/trash")
    before = dump(store, world)
    response = call(owner, "DELETE", f"/workbooks/{facts.workbook}/comments/{made['comment']}")
    assert response.status_code == 409
    assert dump(store, world) == before


def test_undo_in_a_trashed_workbook_is_a_conflict(owner, facts, store, world):
    call(
        owner,
        "PUT",
        f"/workbooks/{facts.workbook}/sheets/{facts.sheet}/range",
        {"ref": "J2", "values": [["1"]]},
    )
    call(owner, "POST", f"/workbooks/{facts.workbook}/trash")
    assert call(owner, "POST", f"/workbooks/{facts.workbook}/undo").status_code == 409


def test_restoring_a_trashed_workbook_makes_it_editable_again(trashed, owner, facts, store, world):
    assert call(owner, "POST", f"/workbooks/{trashed}/restore").status_code == 200
    response = call(
        owner,
        "PUT",
        f"/workbooks/{trashed}/sheets/{facts.sheet}/range",
        {"ref": "J2", "values": [["1"]]},
    )
    assert response.status_code == 200


def test_only_the_owner_may_restore(editor, trashed, facts, store, world):
    assert call(editor, "POST", f"/workbooks/{trashed}/restore").status_code == 404
    assert (
        one(
            store,
            world,
            "SELECT trashed_at IS NOT NULL FROM sheets_workbook WHERE id = ?",
            (trashed,),
        )
        == 1
    )


def test_restoring_a_workbook_not_in_the_trash_is_a_conflict(owner, facts):
    assert call(owner, "POST", f"/workbooks/{facts.workbook}/restore").status_code == 409


# -- page forms --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Form:
    name: str
    path: str
    data: dict
    prepare: Callable | None = None
    need: str = "edit"
    status: int = 302  # a form redirects after its act (find and replace shows the results)


P = "/sheets/w/{wb}/s/{sh}"
FORMS = [
    Form("type into a cell", P + "/cell", {"cell": "J2", "raw": "42"}),
    Form("toolbar bold", P + "/act", {"cell": "A2", "action": "bold"}),
    Form("toolbar insert row", P + "/act", {"cell": "A2", "action": "insert_row"}),
    Form("add sheet", "/sheets/w/{wb}/sheets", {"name": "From the form"}),
    Form("rename sheet", P + "/settings", {"action": "rename", "name": "Renamed tab"}),
    Form("rename workbook", "/sheets/w/{wb}/settings", {"action": "rename", "name": "Renamed"}),
    Form(
        "share",
        "/sheets/w/{wb}/share",
        {"employee_id": "{stranger}", "employee_id_text": "", "permission": "view"},
    ),
    Form(
        "replace",
        P + "/find",
        {"find": "Negotiation", "replace": "Closing", "scope": "sheet"},
        status=200,
    ),
    Form("filter values", P + "/filter?col=D", {"show": ["Negotiation"]}, prepare=_filtered),
    Form(
        "pivot",
        P + "/pivot?source=A1:H4",
        {"source": "A1:H4", "rows": "Stage", "value_field": "Amount", "function": "SUM"},
    ),
    Form("chart", "/sheets/w/{wb}/s/{sh2}/chart", {"kind": "bar", "source": "A1:C3"}),
    Form("sort", P + "/sort", {"range": "A1:H4", "column": "E", "order": "desc"}),
    Form("comment", P + "/comments", {"cell": "B2", "body": "From the page"}, need="view"),
]
EDIT_FORMS = [f for f in FORMS if f.need == "edit"]


def submit(form: Form, client, facts: SheetsFacts):
    values = {
        "wb": facts.workbook,
        "sh": facts.sheet,
        "sh2": facts.second_sheet,
        "stranger": facts.stranger.id,
    }
    data = {k: v if isinstance(v, list) else str(v) for k, v in _fill(form.data, values).items()}
    data["csrf_token"] = form_token(client, "/sheets/")
    return client.post(_fill(form.path, values), data=data)


@pytest.mark.parametrize("form", FORMS, ids=[f.name for f in FORMS])
def test_an_editor_may_submit_every_page_form(form, owner, editor, facts, store, world):
    if form.prepare:
        form.prepare(owner, facts)
    before = dump(store, world)
    response = submit(form, editor, facts)
    assert response.status_code == form.status, response.get_data(as_text=True)[:2000]
    assert dump(store, world) != before


@pytest.mark.parametrize("form", EDIT_FORMS, ids=[f.name for f in EDIT_FORMS])
def test_a_viewer_is_refused_every_edit_form_and_nothing_changes(
    form, owner, viewer, facts, store, world
):
    if form.prepare:
        form.prepare(owner, facts)
    before = dump(store, world)
    response = submit(form, viewer, facts)
    assert response.status_code == 403, response.get_data(as_text=True)[:2000]
    assert dump(store, world) == before


@pytest.mark.parametrize("form", FORMS, ids=[f.name for f in FORMS])
def test_a_stranger_gets_404_on_every_page_form_and_nothing_changes(
    form, owner, stranger, facts, store, world
):
    if form.prepare:
        form.prepare(owner, facts)
    before = dump(store, world)
    response = submit(form, stranger, facts)
    assert response.status_code == 404, response.get_data(as_text=True)[:2000]
    assert facts.name not in response.get_data(as_text=True)
    assert dump(store, world) == before

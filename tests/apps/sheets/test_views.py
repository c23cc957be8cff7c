"""Sheets' pages without JavaScript: every act is a form that posts, redirects back and shows
the result; a refused act re-renders with the service's message and a 4xx and writes nothing;
the grid names each cell with its address and shown value."""

from __future__ import annotations

import re
from datetime import datetime
from html import unescape

import pytest

from officegym.apps.web.localtime import to_local

from .conftest import cell, cells, dump, form_token, one, rows, value


def page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def post(client, path: str, data: dict, **kwargs):
    data = {**data, "csrf_token": form_token(client, "/sheets/")}
    return client.post(path, data=data, **kwargs)


def grid_path(facts, sheet: int | None = None) -> str:
    return f"/sheets/w/{facts.workbook}/s/{sheet or facts.sheet}"


def alert(html: str) -> str:
    """The text of the page's error message."""
    found = re.search(r'role="alert"[^>]*>([^<]*)<', html)
    return unescape(found.group(1).strip()) if found else ""


# -- home --------------------------------------------------------------------------------------


def test_home_lists_the_workbooks_a_person_can_open(viewer, facts):
    html = page(viewer, "/sheets/")
    assert facts.name in html
    assert f'href="/sheets/w/{facts.workbook}"' in html


def test_home_search_narrows_the_list(owner, facts):
    assert facts.name not in page(owner, "/sheets/?q=no-such-workbook-name")


def test_home_trash_tab_lists_trashed_workbooks(owner, facts):
    post(owner, f"/sheets/w/{facts.workbook}/settings", {"action": "trash"})
    link = f'href="/sheets/w/{facts.workbook}"'
    assert link not in page(owner, "/sheets/")
    assert link in page(owner, "/sheets/?tab=trash")


def test_creating_a_workbook_opens_its_first_sheet(owner, store, world):
    response = post(owner, "/sheets/new", {"name": "Plan 2026"})
    assert response.status_code == 302
    book = one(store, world, "SELECT max(id) FROM sheets_workbook")
    assert response.headers["Location"].endswith(f"/sheets/w/{book}")
    assert (
        one(store, world, "SELECT name FROM sheets_workbook WHERE id = ?", (book,)) == "Plan 2026"
    )
    assert owner.get(response.headers["Location"]).status_code == 302


def test_creating_a_workbook_without_a_name_shows_the_message(owner, store, world):
    before = dump(store, world)
    response = post(owner, "/sheets/new", {"name": "  "})
    assert response.status_code == 422
    assert alert(response.get_data(as_text=True)) == "Enter a workbook name."
    assert dump(store, world) == before


def test_signed_out_visitors_are_sent_to_the_login_page(client, facts):
    response = client.get(grid_path(facts))
    assert response.status_code == 302
    assert "/login" in response.headers["Location"]


def test_a_form_without_its_csrf_token_is_refused(owner, facts, store, world):
    before = dump(store, world)
    response = owner.post(f"{grid_path(facts)}/cell", data={"cell": "J2", "raw": "x"})
    assert response.status_code == 400
    assert dump(store, world) == before


# -- the grid ----------------------------------------------------------------------------------


def test_the_grid_names_each_cell_by_address_and_shown_value(viewer, facts):
    html = page(viewer, grid_path(facts))
    assert 'aria-label="E2 = $20,000"' in html
    assert 'aria-label="F2 = 2025-09-15"' in html
    assert 'aria-label="I2"' in html
    assert 'data-f="=E2*G2/100"' in html


def test_the_formula_bar_shows_the_raw_input_of_the_chosen_cell(viewer, facts):
    html = page(viewer, f"{grid_path(facts)}?cell=H2")
    assert re.search(r'name="raw" value="=E2\*G2/100"', html)


def test_a_viewer_sees_no_toolbar_and_a_read_only_formula_bar(viewer, facts):
    html = page(viewer, grid_path(facts))
    assert "View only" in html
    assert 'aria-label="Toolbar"' not in html
    assert re.search(r'aria-label="Formula bar"[^>]*readonly', html)


def test_an_editor_sees_the_toolbar(editor, facts):
    html = page(editor, grid_path(facts))
    assert 'aria-label="Toolbar"' in html
    assert "View only" not in html


def test_the_trashed_workbooks_grid_tells_its_owner_to_restore_it(owner, facts):
    post(owner, f"/sheets/w/{facts.workbook}/settings", {"action": "trash"})
    html = page(owner, grid_path(facts))
    assert "in the trash" in html
    assert 'aria-label="Toolbar"' not in html


def test_the_rows_fragment_serves_a_window_of_rows(viewer, facts):
    html = page(viewer, f"{grid_path(facts)}/rows?start=2&count=3")
    assert re.findall(r'data-row="(\d+)"', html) == ["2", "3", "4"]


def test_the_workbook_address_opens_its_first_sheet(viewer, facts):
    response = viewer.get(f"/sheets/w/{facts.workbook}")
    assert response.status_code == 302
    assert response.headers["Location"].endswith(grid_path(facts))


# -- the formula bar and the toolbar -----------------------------------------------------------


def test_entering_a_value_stores_it_and_moves_to_the_cell_below(editor, facts, store, world):
    response = post(editor, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "=E2*2"})
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"{grid_path(facts)}?cell=J3")
    assert cell(store, world, facts.sheet, "J2")[:3] == ("=E2*2", "number", 40000.0)


def test_a_refused_entry_keeps_what_was_typed_and_shows_why(editor, facts, store, world):
    before = dump(store, world)
    response = post(editor, f"{grid_path(facts)}/cell", {"cell": "A0", "raw": "kept text"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "is not a cell or range" in alert(html)
    assert 'value="kept text"' in html
    assert dump(store, world) == before


def test_a_viewer_typing_into_a_cell_is_refused(viewer, facts, store, world):
    before = dump(store, world)
    response = post(viewer, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "x"})
    assert response.status_code == 403
    assert "view this workbook but not edit it" in response.get_data(as_text=True)
    assert dump(store, world) == before


def toolbar(client, facts, action: str, cell_ref: str, **extra):
    return post(client, f"{grid_path(facts)}/act", {"action": action, "cell": cell_ref, **extra})


def test_the_bold_button_bolds_the_selection(editor, facts, store, world):
    assert toolbar(editor, facts, "bold", "A2:B2").status_code == 302
    state = cells(store, world, facts.sheet)
    assert state["A2"][5] == 1 and state["B2"][5] == 1 and state["C2"][5] == 0


def test_the_format_menu_applies_a_number_format(editor, facts, store, world):
    toolbar(editor, facts, "format", "E2", number_format="#,##0.00")
    assert cell(store, world, facts.sheet, "E2")[4] == "#,##0.00"
    assert 'aria-label="E2 = 20,000.00"' in page(editor, grid_path(facts))


def test_the_fill_menu_applies_a_colour(editor, facts, store, world):
    toolbar(editor, facts, "fill_colour", "A2", fill="#E2EFDA")
    assert cells(store, world, facts.sheet)["A2"][7] == "#E2EFDA"


def test_fill_down_from_the_toolbar(editor, facts, store, world):
    post(editor, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "=E2/1000"})
    toolbar(editor, facts, "fill_down", "J2:J4")
    assert cell(store, world, facts.sheet, "J4")[:3] == ("=E4/1000", "number", 77.5)


def test_insert_row_from_the_toolbar_inserts_above_the_selection(editor, facts, store, world):
    toolbar(editor, facts, "insert_row", "A3")
    assert cell(store, world, facts.sheet, "A3") is None
    assert cell(store, world, facts.sheet, "E6")[0] == "=SUM(E2:E5)"


def test_delete_column_from_the_toolbar(editor, facts, store, world):
    before = cells(store, world, facts.sheet)
    toolbar(editor, facts, "delete_col", "B1")
    assert cells(store, world, facts.sheet)["B1"] == before["C1"]


def test_clear_from_the_toolbar_empties_the_selection(editor, facts, store, world):
    toolbar(editor, facts, "clear", "A2:B2")
    assert value(store, world, facts.sheet, "A2") is None
    assert value(store, world, facts.sheet, "B2") is None
    assert value(store, world, facts.sheet, "C2") is not None


def test_undo_from_the_toolbar_reports_what_it_undid(editor, facts, store, world):
    post(editor, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "oops"})
    response = toolbar(editor, facts, "undo", "J2")
    assert response.status_code == 302
    assert cell(store, world, facts.sheet, "J2") is None
    assert "Undid: Edited J2" in page(editor, response.headers["Location"])


def test_redo_from_the_toolbar(editor, facts, store, world):
    post(editor, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "again"})
    toolbar(editor, facts, "undo", "J2")
    toolbar(editor, facts, "redo", "J2")
    assert cell(store, world, facts.sheet, "J2")[0] == "again"


def test_undo_with_nothing_to_undo_shows_a_409_message(editor, facts, store, world):
    before = dump(store, world)
    response = toolbar(editor, facts, "undo", "A1")
    assert response.status_code == 409
    assert "nothing of yours to undo" in alert(response.get_data(as_text=True))
    assert dump(store, world) == before


def test_sorting_from_one_cell_sorts_the_whole_table_under_its_header(editor, facts, store, world):
    sheet = facts.second_sheet
    post(editor, f"{grid_path(facts, sheet)}/cell", {"cell": "A4", "raw": "Closed"})
    post(editor, f"{grid_path(facts, sheet)}/cell", {"cell": "C4", "raw": "5"})
    toolbar_sheet = f"{grid_path(facts, sheet)}/act"
    post(editor, toolbar_sheet, {"action": "sort_asc", "cell": "C1"})
    assert [value(store, world, sheet, f"C{r}") for r in range(1, 5)] == [
        "Amount",
        5.0,
        62500.0,
        77500.0,
    ]
    assert [value(store, world, sheet, f"A{r}") for r in range(1, 5)] == [
        "Stage",
        "Closed",
        "Negotiation",
        "Qualification",
    ]


def test_an_unknown_toolbar_action_is_refused(editor, facts, store, world):
    before = dump(store, world)
    response = toolbar(editor, facts, "explode", "A1")
    assert response.status_code == 422
    assert alert(response.get_data(as_text=True)) == "Choose an action from the toolbar."
    assert dump(store, world) == before


def test_a_toolbar_act_on_a_bad_selection_is_refused(editor, facts, store, world):
    before = dump(store, world)
    response = toolbar(editor, facts, "bold", "ZZZZ1")
    assert response.status_code == 422
    assert dump(store, world) == before


# -- filter ------------------------------------------------------------------------------------


def test_create_filter_opens_the_filter_page_for_the_column(editor, facts, store, world):
    response = toolbar(editor, facts, "filter", "D1")
    assert response.status_code == 302
    assert "/filter?col=D" in response.headers["Location"]
    html = page(editor, response.headers["Location"])
    assert "Negotiation" in html and "Qualification" in html


def test_choosing_filter_values_hides_the_other_rows(editor, facts, store, world):
    toolbar(editor, facts, "filter", "D1")
    post(editor, f"{grid_path(facts)}/filter?col=D", {"col": "D", "show": ["Qualification"]})
    html = page(editor, grid_path(facts))
    shown = [int(r) for r in re.findall(r'data-row="(\d+)"', html)]
    assert 4 in shown and 2 not in shown and 3 not in shown
    assert "hidden by the filter" in html


def test_turning_the_filter_off_shows_the_rows_again(editor, facts, store, world):
    toolbar(editor, facts, "filter", "D1")
    post(editor, f"{grid_path(facts)}/filter?col=D", {"col": "D", "show": ["Qualification"]})
    toolbar(editor, facts, "unfilter", "A1")
    shown = [int(r) for r in re.findall(r'data-row="(\d+)"', page(editor, grid_path(facts)))]
    assert shown[:5] == [1, 2, 3, 4, 5]


# -- sheets and workbook settings --------------------------------------------------------------


def settings(client, facts, sheet: int | None = None, **data):
    return post(client, f"{grid_path(facts, sheet)}/settings", data)


def test_adding_a_sheet_opens_it(editor, facts, store, world):
    response = post(editor, f"/sheets/w/{facts.workbook}/sheets", {})
    new = one(store, world, "SELECT max(id) FROM sheets_sheet")
    assert response.headers["Location"].endswith(grid_path(facts, new))
    assert one(store, world, "SELECT name FROM sheets_sheet WHERE id = ?", (new,)) == "Sheet1"


def test_renaming_a_sheet_from_its_settings(editor, facts, store, world):
    assert settings(editor, facts, action="rename", name="Deals").status_code == 302
    assert (
        one(store, world, "SELECT name FROM sheets_sheet WHERE id = ?", (facts.sheet,)) == "Deals"
    )


def test_a_bad_sheet_name_re_renders_the_settings_with_the_message(editor, facts, store, world):
    before = dump(store, world)
    response = settings(editor, facts, action="rename", name="a/b")
    assert response.status_code == 422
    assert "can't contain" in alert(response.get_data(as_text=True))
    assert dump(store, world) == before


def test_moving_a_sheet_from_its_settings(editor, facts, store, world):
    settings(editor, facts, facts.second_sheet, action="move", position="1")
    assert (
        one(store, world, "SELECT position FROM sheets_sheet WHERE id = ?", (facts.second_sheet,))
        == 0
    )


def test_deleting_a_sheet_from_its_settings_opens_the_workbook(editor, facts, store, world):
    response = settings(editor, facts, facts.second_sheet, action="delete")
    assert response.headers["Location"].endswith(f"/sheets/w/{facts.workbook}")
    assert (
        rows(store, world, "SELECT 1 FROM sheets_sheet WHERE id = ?", (facts.second_sheet,)) == []
    )


def test_deleting_the_last_sheet_from_its_settings_shows_a_conflict(owner, facts, store, world):
    settings(owner, facts, facts.second_sheet, action="delete")
    before = dump(store, world)
    response = settings(owner, facts, action="delete")
    assert response.status_code == 409
    assert "at least one sheet" in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_renaming_the_workbook_from_its_settings(editor, facts, store, world):
    post(editor, f"/sheets/w/{facts.workbook}/settings", {"action": "rename", "name": "Q4 plan"})
    assert (
        one(store, world, "SELECT name FROM sheets_workbook WHERE id = ?", (facts.workbook,))
        == "Q4 plan"
    )


def test_copying_the_workbook_opens_the_copy(viewer, facts, store, world):
    response = post(
        viewer, f"/sheets/w/{facts.workbook}/settings", {"action": "copy", "copy_name": "Mine"}
    )
    copy = one(store, world, "SELECT max(id) FROM sheets_workbook")
    assert response.headers["Location"].endswith(f"/sheets/w/{copy}")
    assert one(
        store, world, "SELECT name, owner_id FROM sheets_workbook WHERE id = ?", (copy,)
    ) == (
        "Mine",
        facts.viewer.id,
    )


def test_trashing_from_the_settings_goes_home_and_restoring_brings_it_back(
    owner, facts, store, world
):
    response = post(owner, f"/sheets/w/{facts.workbook}/settings", {"action": "trash"})
    assert response.headers["Location"].endswith("/sheets/")
    assert "Moved “" in page(owner, "/sheets/")
    post(owner, f"/sheets/w/{facts.workbook}/settings", {"action": "restore"})
    assert (
        one(store, world, "SELECT trashed_at FROM sheets_workbook WHERE id = ?", (facts.workbook,))
        is None
    )


def test_an_editor_trashing_the_workbook_is_refused(editor, facts, store, world):
    before = dump(store, world)
    response = post(editor, f"/sheets/w/{facts.workbook}/settings", {"action": "trash"})
    assert response.status_code == 403
    assert "Only the owner" in response.get_data(as_text=True)
    assert dump(store, world) == before


# -- sharing -----------------------------------------------------------------------------------


def share(client, facts, **data):
    return post(client, f"/sheets/w/{facts.workbook}/share", data)


def test_sharing_by_typing_a_persons_exact_name(owner, facts, store, world):
    response = share(
        owner,
        facts,
        employee_id="",
        employee_id_text=facts.stranger.name.upper(),
        permission="edit",
    )
    assert response.status_code == 302
    assert (
        one(
            store,
            world,
            "SELECT permission FROM sheets_share WHERE workbook_id = ? AND employee_id = ?",
            (facts.workbook, facts.stranger.id),
        )
        == "edit"
    )


def test_sharing_with_someone_not_in_the_directory_shows_the_message(owner, facts, store, world):
    before = dump(store, world)
    response = share(
        owner, facts, employee_id="", employee_id_text="Nobody Here", permission="view"
    )
    assert response.status_code == 422
    assert "No one in the directory" in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_sharing_with_the_owner_from_the_page_is_refused(editor, facts, store, world):
    before = dump(store, world)
    response = share(
        editor, facts, employee_id=str(facts.owner.id), employee_id_text="", permission="view"
    )
    assert response.status_code == 422
    assert "owns this workbook" in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_removing_a_person_from_the_share_page(owner, facts, store, world):
    share(owner, facts, remove=str(facts.viewer.id))
    assert (
        rows(
            store,
            world,
            "SELECT 1 FROM sheets_share WHERE workbook_id = ? AND employee_id = ?",
            (facts.workbook, facts.viewer.id),
        )
        == []
    )


def test_a_viewer_sees_who_has_access_but_no_share_form(viewer, facts):
    html = page(viewer, f"/sheets/w/{facts.workbook}/share")
    assert facts.owner.name in html
    assert 'name="permission"' not in html


# -- history, find, comments -------------------------------------------------------------------


def test_the_history_page_marks_undone_acts(editor, facts):
    post(editor, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "x"})
    toolbar(editor, facts, "undo", "J2")
    html = page(editor, f"/sheets/w/{facts.workbook}/history")
    assert "Edited J2" in html and "undone" in html


def test_the_history_page_shows_times_in_the_readers_timezone(editor, facts, store, world):
    post(editor, f"{grid_path(facts)}/cell", {"cell": "J2", "raw": "x"})
    at = one(
        store, world, "SELECT max(at) FROM sheets_edit WHERE workbook_id = ?", (facts.workbook,)
    )
    zone = one(
        store, world, "SELECT timezone FROM people_employee WHERE id = ?", (facts.editor.id,)
    )
    local = to_local(datetime.fromisoformat(at), zone)
    assert local.utcoffset()  # the test means something only outside UTC
    html = page(editor, f"/sheets/w/{facts.workbook}/history")
    assert f'<time datetime="{local.isoformat()}">' in html


def test_the_find_page_lists_matches_with_links_to_their_cells(viewer, facts):
    html = page(viewer, f"{grid_path(facts)}/find?find=Negotiation&scope=all")
    assert f"{facts.sheet_name}!D2" in html
    assert f'href="{grid_path(facts)}?cell=D2"' in html


def test_replace_all_from_the_find_page_reports_the_count(editor, facts, store, world):
    response = post(
        editor,
        f"{grid_path(facts)}/find",
        {"find": "Negotiation", "replace": "Closing", "scope": "sheet"},
    )
    assert response.status_code == 200
    assert "Replaced 2 cells." in response.get_data(as_text=True)
    assert cell(store, world, facts.sheet, "D2")[0] == "Closing"
    assert "Closing" not in str(cells(store, world, facts.second_sheet))


def test_replace_with_nothing_to_find_shows_the_message(editor, facts, store, world):
    before = dump(store, world)
    response = post(editor, f"{grid_path(facts)}/find", {"find": "", "replace": "x"})
    assert response.status_code == 422
    assert "Enter something to find." in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_a_viewer_comments_on_a_cell_and_sees_it_listed(viewer, facts, store, world):
    response = post(viewer, f"{grid_path(facts)}/comments", {"cell": "E2", "body": "Double-check"})
    assert response.status_code == 302
    html = page(viewer, f"{grid_path(facts)}/comments?cell=E2")
    assert "Double-check" in html and facts.viewer.name in html


def test_a_comment_on_a_bad_cell_shows_the_message(viewer, facts, store, world):
    before = dump(store, world)
    response = post(viewer, f"{grid_path(facts)}/comments", {"cell": "E0", "body": "x"})
    assert response.status_code == 422
    assert dump(store, world) == before


def test_deleting_ones_comment_from_the_comments_page(viewer, facts, store, world):
    post(viewer, f"{grid_path(facts)}/comments", {"cell": "E2", "body": "Remove me"})
    comment = one(store, world, "SELECT id FROM sheets_comment")
    post(viewer, f"{grid_path(facts)}/comments", {"delete": str(comment), "cell": "E2"})
    assert rows(store, world, "SELECT 1 FROM sheets_comment") == []


# -- pivot tables, charts, sort ----------------------------------------------------------------


def test_the_pivot_page_offers_the_ranges_headers(editor, facts):
    html = page(editor, f"{grid_path(facts)}/pivot?source=A1:H4")
    for header in ("Stage", "Amount", "Owner"):
        assert f"<option>{header}</option>" in html


def test_creating_a_pivot_table_from_its_page_opens_the_new_sheet(editor, facts, store, world):
    response = post(
        editor,
        f"{grid_path(facts)}/pivot?source=A1:H4",
        {
            "source": "A1:H4",
            "rows": "Stage",
            "value_field": "Amount",
            "function": "MAX",
            "filter_field": "Stage",
            "filter_values": "Negotiation, Qualification",
        },
    )
    assert response.status_code == 302
    target = one(store, world, "SELECT target_sheet_id FROM sheets_pivot")
    assert response.headers["Location"].endswith(grid_path(facts, target))
    assert value(store, world, target, "B1") == "MAX of Amount"
    html = page(editor, response.headers["Location"])
    assert "Refresh pivot table" in html


def test_a_pivot_with_an_unknown_function_from_its_page_shows_the_message(
    editor, facts, store, world
):
    before = dump(store, world)
    response = post(
        editor,
        f"{grid_path(facts)}/pivot?source=A1:H4",
        {"source": "A1:H4", "rows": "Stage", "value_field": "Amount", "function": "MEDIAN"},
    )
    assert response.status_code == 422
    assert "Summarise by one of" in response.get_data(as_text=True)
    assert dump(store, world) == before


def test_refreshing_a_pivot_from_its_sheet(editor, facts, store, world):
    post(
        editor,
        f"{grid_path(facts)}/pivot?source=A1:H4",
        {"source": "A1:H4", "rows": "Stage", "value_field": "Amount", "function": "SUM"},
    )
    pivot, target = one(store, world, "SELECT id, target_sheet_id FROM sheets_pivot")
    post(editor, f"{grid_path(facts)}/cell", {"cell": "E4", "raw": "1"})
    response = post(editor, f"/sheets/w/{facts.workbook}/pivots/{pivot}/refresh", {})
    assert response.status_code == 302
    assert value(store, world, target, "B3") == 1.0


def test_inserting_a_chart_from_its_page_draws_it_on_the_sheet(editor, facts, store, world):
    response = post(
        editor,
        f"{grid_path(facts, facts.second_sheet)}/chart",
        {"kind": "pie", "source": "A1:B3", "title": "Deal count"},
    )
    assert response.status_code == 302
    html = page(editor, grid_path(facts, facts.second_sheet))
    assert "Pie chart of A1:B3" in html
    assert re.search(r"<desc[^>]*>[^<]*Qualification[^<]*</desc>", html)


def test_deleting_a_chart_from_the_sheet(editor, facts, store, world):
    post(
        editor, f"{grid_path(facts, facts.second_sheet)}/chart", {"kind": "bar", "source": "A1:B3"}
    )
    chart = one(store, world, "SELECT max(id) FROM sheets_chart")
    post(editor, f"{grid_path(facts, facts.second_sheet)}/chart", {"delete": str(chart)})
    assert rows(store, world, "SELECT 1 FROM sheets_chart WHERE id = ?", (chart,)) == []


def test_a_bad_chart_kind_from_its_page_shows_the_message(editor, facts, store, world):
    before = dump(store, world)
    response = post(editor, f"{grid_path(facts)}/chart", {"kind": "donut", "source": "A1:B3"})
    assert response.status_code == 422
    assert "Choose a bar, line or pie chart." in response.get_data(as_text=True)
    assert dump(store, world) == before


@pytest.mark.parametrize(
    ("order", "expected"),
    [("asc", [20000.0, 42500.0, 77500.0]), ("desc", [77500.0, 42500.0, 20000.0])],
)
def test_sorting_from_the_sort_page(order, expected, editor, facts, store, world):
    response = post(
        editor, f"{grid_path(facts)}/sort", {"range": "A1:H4", "column": "E", "order": order}
    )
    assert response.status_code == 302
    assert [value(store, world, facts.sheet, f"E{r}") for r in (2, 3, 4)] == expected


def test_the_toolbar_sets_the_width_of_every_selected_column(owner, facts, store, world):
    done = post(
        owner, f"{grid_path(facts)}/act", {"cell": "B2:C3", "action": "width", "width": "180"}
    )
    assert done.status_code == 302
    widths = dict(
        rows(
            store, world, "SELECT col, width FROM sheets_column WHERE sheet_id = ?", (facts.sheet,)
        )
    )
    assert widths[2] == widths[3] == 180


def test_a_column_width_out_of_range_is_refused_and_nothing_changes(owner, facts, store, world):
    before = rows(store, world, "SELECT * FROM sheets_column ORDER BY id")
    done = post(owner, f"{grid_path(facts)}/act", {"cell": "B2", "action": "width", "width": "5"})
    assert done.status_code == 422
    assert "30 to 800 pixels" in done.get_data(as_text=True)
    assert rows(store, world, "SELECT * FROM sheets_column ORDER BY id") == before

"""The Sheets templates that make structure (a pivot table, a chart, a new sheet, a copy, an
import, a rename, a share) without a browser: their instances on the small seed-0 world, and
their verifiers on final worlds made through the Sheets service, as the app would make them."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.sheets import csvio, service
from officegym.apps.sheets.book import BookData
from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.diff import diff as world_diff
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import Sheet
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.verdict import Verdict
from tests.conftest import new_world_id
from tests.tasks.episodes import one

SEEDS = range(30)
IDS = (
    "sheets.pivot_pipeline",
    "sheets.chart_budget",
    "sheets.summary_sheet",
    "sheets.copy_workbook",
    "sheets.import_csv",
    "sheets.copy_won_deals",
    "sheets.rename_sheet",
    "sheets.share_viewer",
)
Edit = Callable[[Session], None]


@pytest.fixture(scope="module")
def golden(store) -> Path:
    return store.golden(0, "small")


@pytest.fixture(scope="module")
def world(golden):
    import sqlite3

    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def instances(golden) -> dict[str, list[Task]]:
    return {tid: [registry.get(tid).instance(golden, s) for s in SEEDS] for tid in IDS}


def first(instances, tid: str, where: Callable[[dict], bool] = lambda p: True) -> Task:
    """The first instance of `tid` whose params meet `where`."""
    return next(t for t in instances[tid] if where(dict(t.params)))


def me(db: Session, email: str) -> Employee:
    return db.scalars(select(Employee).where(Employee.email == email)).one()


def sheet_id(db: Session, workbook_id: int, name: str) -> int:
    return db.scalars(
        select(Sheet.id).where(Sheet.workbook_id == workbook_id, Sheet.name == name)
    ).one()


def _apply(path: Path, edits: tuple[Edit, ...]) -> None:
    engine = make_engine(path, create=False)
    try:
        with Session(writer(engine)) as db:
            for edit in edits:
                edit(db)
            db.commit()
    finally:
        engine.dispose()


@pytest.fixture
def grade(store, golden) -> Iterator[Callable[..., Verdict]]:
    """`grade(task, *edits, infeasible=None, before=())`: the task's verdict on the golden
    world changed by `edits` (service calls in one session); `before` edits make the world the
    episode starts from."""
    made: list[str] = []

    def run(task: Task, *edits: Edit, infeasible: str | None = None, before=()) -> Verdict:
        start_id = new_world_id("sheets-start")
        start = store.create(start_id, 0, "small")
        made.append(start_id)
        _apply(start, tuple(before))
        end_id = new_world_id("sheets-end")
        end = store.fork(start_id, end_id)
        made.append(end_id)
        _apply(end, edits)
        diff = world_diff(start, end)
        ctx = EpisodeContext(task=task, diff=diff, world=end, golden=start, infeasible=infeasible)
        return task.verify(ctx)

    yield run
    for world_id in made:
        store.drop(world_id)


def passes(verdict: Verdict) -> bool:
    return verdict.success and verdict.score == 1.0


# ---- every template ----------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_name_real_workbooks(tid, instances, golden, world):
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        again = registry.get(tid).instance(golden, seed)
        assert (again.goal, dict(again.params)) == (task.goal, dict(task.params))
        p = task.params
        assert one(world, "SELECT id FROM people_employee WHERE email = ?", p["user"])
        if "workbook_id" in p:
            (name,) = one(world, "SELECT name FROM sheets_workbook WHERE id = ?", p["workbook_id"])
            assert name == p["workbook"] and f"“{name}”" in task.goal


@pytest.mark.parametrize(
    "tid", ["sheets.summary_sheet", "sheets.rename_sheet", "sheets.share_viewer"]
)
def test_impossible_instances_are_asked_by_someone_who_cannot_edit(tid, instances, world):
    impossible = [t for t in instances[tid] if not t.params["feasible"]]
    assert 1 <= len(impossible) <= 12
    for task in instances[tid]:
        p = task.params
        (user_id,) = one(world, "SELECT id FROM people_employee WHERE email = ?", p["user"])
        (owner,) = one(world, "SELECT owner_id FROM sheets_workbook WHERE id = ?", p["workbook_id"])
        share = one(
            world,
            "SELECT permission FROM sheets_share WHERE workbook_id = ? AND employee_id = ?",
            p["workbook_id"],
            user_id,
        )
        may_edit = user_id == owner or share == ("edit",)
        assert may_edit == p["feasible"]


# ---- pivot_pipeline ----------------------------------------------------------------------


def _pivot(p, source: str | None = None, name: str | None = None, **extra) -> Edit:
    def edit(db: Session) -> None:
        service.create_pivot(
            db, me(db, p["user"]), p["workbook_id"], sheet_id(db, p["workbook_id"], p["sheet"]),
            source or p["data"], ["Stage"], ["Owner"] if p["by_owner"] else [],
            [{"field": "Amount", "function": "SUM"}], {}, name or p["target"], **extra,
        )  # fmt: skip

    return edit


def test_a_pivot_of_the_deals_passes_and_one_taking_in_the_total_row_fails(instances, grade):
    task = first(instances, "sheets.pivot_pipeline", lambda p: not p["by_owner"])
    p = task.params
    assert passes(grade(task, _pivot(p)))
    last = int(p["data"].split("H")[-1])
    verdict = grade(task, _pivot(p, source=f"A1:H{last + 1}"))
    assert not verdict.success and "(blank)" in str(verdict)


def test_a_stage_by_owner_pivot_passes_only_with_owners_across(instances, grade):
    task = first(instances, "sheets.pivot_pipeline", lambda p: p["by_owner"])
    p = task.params
    assert passes(grade(task, _pivot(p)))
    flat = dict(p, by_owner=False)
    assert not grade(task, _pivot(flat)).success


def test_a_pivot_on_a_sheet_with_another_name_or_a_stray_edit_fails(instances, grade):
    task = first(instances, "sheets.pivot_pipeline")
    p = task.params
    assert not grade(task, _pivot(p, name="Pivot Table 1")).success
    stray = lambda db: service.set_cell(  # noqa: E731
        db,
        me(db, p["user"]),
        p["workbook_id"],
        sheet_id(db, p["workbook_id"], p["sheet"]),
        "K1",
        "note",
    )
    assert not grade(task, _pivot(p), stray).success


def test_the_same_figures_typed_by_hand_are_not_a_pivot_table(instances, grade):
    task = first(instances, "sheets.pivot_pipeline", lambda p: not p["by_owner"])
    p = task.params

    def typed(db: Session) -> None:
        actor = me(db, p["user"])
        target = service.add_sheet(db, actor, p["workbook_id"], p["target"])
        rows = [["Stage", "SUM of Amount"], *[[s, total] for s, _, total in p["totals"]]]
        service.set_cells(db, actor, p["workbook_id"], target.id, "A1", rows)

    assert not grade(task, typed).success


# ---- chart_budget ------------------------------------------------------------------------


def _chart(p, source: str | None = None, kind: str | None = None) -> Edit:
    def edit(db: Session) -> None:
        service.add_chart(
            db, me(db, p["user"]), p["workbook_id"], sheet_id(db, p["workbook_id"], p["sheet"]),
            kind or p["kind"], source or p["source"], p["title"], p["anchor"],
        )  # fmt: skip

    return edit


def test_the_chart_asked_for_passes_and_so_does_a_range_with_an_empty_column_more(instances, grade):
    task = first(instances, "sheets.chart_budget", lambda p: p["sheet"] == "Trips")
    p = task.params
    assert passes(grade(task, _chart(p)))
    wider = p["source"].replace("L", "M")
    assert passes(grade(task, _chart(p, source=wider)))


def test_a_chart_with_the_total_row_another_kind_or_a_column_more_fails(instances, grade):
    task = first(instances, "sheets.chart_budget", lambda p: p["sheet"] == "Departments")
    p = task.params
    assert passes(grade(task, _chart(p)))
    assert not grade(task, _chart(p, source=p["decoy"]["source"])).success
    other = "line" if p["kind"] != "line" else "bar"
    assert not grade(task, _chart(p, kind=other)).success
    assert not grade(
        task, _chart(p, source=p["source"].replace(":C", ":D").replace(":B", ":C"))
    ).success


# ---- summary_sheet -----------------------------------------------------------------------


def _summary(p, raw: str, label: str | None = None, extra: dict | None = None) -> Edit:
    def edit(db: Session) -> None:
        actor = me(db, p["user"])
        new = service.add_sheet(db, actor, p["workbook_id"], p["summary"])
        service.set_cells(db, actor, p["workbook_id"], new.id, "A1", [[label or p["label"], raw]])
        for address, value in (extra or {}).items():
            service.set_cell(db, actor, p["workbook_id"], new.id, address, value)

    return edit


def test_a_summary_sheet_with_a_cross_sheet_reference_or_sum_passes(instances, grade):
    task = first(
        instances,
        "sheets.summary_sheet",
        lambda p: p["feasible"] and p["sheet"] == "Pipeline" and p["label"] == "Total pipeline",
    )
    p = task.params
    assert passes(grade(task, _summary(p, f"='{p['sheet']}'!{p['cell']}")))
    column, total_row = p["cell"][0], int(p["cell"][1:])
    assert passes(grade(task, _summary(p, f"=SUM({p['sheet']}!{column}2:{column}{total_row - 1})")))


def test_a_typed_figure_a_wrong_label_or_a_stray_cell_fails(instances, grade):
    task = first(instances, "sheets.summary_sheet", lambda p: p["feasible"])
    p = task.params
    assert not grade(task, _summary(p, str(p["figure"]))).success
    assert not grade(task, _summary(p, f"='{p['sheet']}'!{p['cell']}", label="Figure")).success
    stray = _summary(p, f"='{p['sheet']}'!{p['cell']}", extra={"C5": "draft"})
    assert not grade(task, stray).success


def test_an_impossible_summary_passes_only_when_reported(instances, grade):
    task = first(instances, "sheets.summary_sheet", lambda p: not p["feasible"])
    assert passes(grade(task, infeasible="I can only view that workbook."))
    assert not grade(task).success


# ---- copy_workbook -----------------------------------------------------------------------


def _copy(p, workbook_id: int | None = None, name: str | None = None) -> Edit:
    def edit(db: Session) -> None:
        service.copy_workbook(
            db, me(db, p["user"]), workbook_id or p["workbook_id"], name or p["copy"]
        )

    return edit


def test_a_copy_with_the_name_asked_passes_and_a_copy_of_another_workbook_fails(
    instances, grade, world
):
    task = first(instances, "sheets.copy_workbook")
    p = task.params
    assert passes(grade(task, _copy(p)))
    (other,) = one(world, "SELECT id FROM sheets_workbook WHERE name = ?", p["decoy"]["workbook"])
    assert not grade(task, _copy(p, workbook_id=other)).success
    assert not grade(task, _copy(p, name=f"Copy of {p['workbook']}")).success


def test_a_copy_edited_afterwards_is_not_a_faithful_copy(instances, grade):
    task = first(instances, "sheets.copy_workbook")
    p = task.params

    def copy_and_edit(db: Session) -> None:
        actor = me(db, p["user"])
        book = service.copy_workbook(db, actor, p["workbook_id"], p["copy"])
        first_sheet = db.scalars(select(Sheet).where(Sheet.workbook_id == book.id)).first()
        service.set_cell(db, actor, book.id, first_sheet.id, "A2", "changed")

    verdict = grade(task, copy_and_edit)
    assert not verdict.success and "differ from the original" in str(verdict)


# ---- import_csv --------------------------------------------------------------------------


def _import(task: Task, name: str | None = None, bold: bool = False) -> Edit:
    p = task.params

    def edit(db: Session) -> None:
        actor = me(db, p["user"])
        data = csvio.read_csv(task.files[p["file"]], p["file"], "Sheet1")
        book = service.import_book(db, actor, BookData((data,)), p["stem"])
        if (name or p["name"]) != p["stem"]:
            service.rename_workbook(db, actor, book.id, name or p["name"])
        if bold:
            sheet = db.scalars(select(Sheet).where(Sheet.workbook_id == book.id)).one()
            service.set_format(db, actor, book.id, sheet.id, "A1:C1", bold=True)

    return edit


def test_the_imported_file_under_the_name_asked_passes(instances, grade):
    task = first(instances, "sheets.import_csv", lambda p: p["stem"] != p["name"])
    rows = list(csv.reader(io.StringIO(task.files[task.params["file"]].decode())))
    assert rows[0] == [str(v) for v in task.params["rows"][0]]
    assert passes(grade(task, _import(task)))


def test_a_file_named_as_asked_needs_no_rename(instances, grade):
    task = first(instances, "sheets.import_csv", lambda p: p["stem"] == p["name"])
    assert task.params["decoy"] is None
    assert passes(grade(task, _import(task)))


def test_an_import_left_under_the_file_name_or_with_bold_headers_fails(instances, grade):
    task = first(instances, "sheets.import_csv", lambda p: p["stem"] != p["name"])
    assert not grade(task, _import(task, name=task.params["stem"])).success
    assert not grade(task, _import(task, bold=True)).success


# ---- copy_won_deals ----------------------------------------------------------------------


def _won(p, deals=None, total: str | None = None) -> Edit:
    def edit(db: Session) -> None:
        actor = me(db, p["user"])
        new = service.add_sheet(db, actor, p["workbook_id"], p["sheet"])
        listed = list(reversed(deals if deals is not None else p["deals"]))
        last = len(listed) + 1
        rows = [["Opportunity", "Amount"], *[[n, f"${a:,.0f}"] for n, a in listed]]
        rows.append(["Total", total or f"=SUM(B2:B{last})"])
        service.set_cells(db, actor, p["workbook_id"], new.id, "A1", rows)

    return edit


def test_the_rep_s_deals_in_any_order_with_a_live_total_pass(instances, grade):
    task = first(instances, "sheets.copy_won_deals", lambda p: len(p["deals"]) >= 2)
    assert passes(grade(task, _won(task.params)))


def test_a_typed_total_or_a_missing_deal_fails(instances, grade):
    task = first(instances, "sheets.copy_won_deals", lambda p: len(p["deals"]) >= 2)
    p = task.params
    assert not grade(task, _won(p, total=str(int(p["total"])))).success
    assert not grade(task, _won(p, deals=p["deals"][1:])).success


# ---- rename_sheet ------------------------------------------------------------------------


def _rename(p, name: str | None = None) -> Edit:
    def edit(db: Session) -> None:
        service.rename_sheet(
            db, me(db, p["user"]), p["workbook_id"], p["sheet_id"], name or p["name"]
        )

    return edit


def test_a_rename_passes_and_formulas_that_name_the_sheet_follow(instances, grade):
    task = first(
        instances, "sheets.rename_sheet", lambda p: p["feasible"] and p["sheet"] == "Pipeline"
    )
    p = task.params
    assert passes(grade(task, _rename(p)))

    def reference(db: Session) -> None:
        actor = me(db, p["user"])
        new = service.add_sheet(db, actor, p["workbook_id"], "Notes")
        service.set_cell(db, actor, p["workbook_id"], new.id, "A1", f"={p['sheet']}!E2*2")

    assert passes(grade(task, _rename(p), before=[reference]))


def test_a_rename_to_another_name_or_by_someone_who_may_only_view_fails(instances, grade):
    task = first(instances, "sheets.rename_sheet", lambda p: p["feasible"])
    assert not grade(task, _rename(task.params, name="Sheet9")).success
    impossible = first(instances, "sheets.rename_sheet", lambda p: not p["feasible"])
    assert passes(grade(impossible, infeasible="I may only view it."))
    assert not grade(impossible).success


# ---- share_viewer ------------------------------------------------------------------------


def _share(p, permission: str = "view") -> Edit:
    def edit(db: Session) -> None:
        service.share(db, me(db, p["user"]), p["workbook_id"], p["person_id"], permission)

    return edit


def test_sharing_to_view_passes_and_sharing_to_edit_fails(instances, grade):
    task = first(instances, "sheets.share_viewer", lambda p: p["feasible"])
    assert passes(grade(task, _share(task.params)))
    assert not grade(task, _share(task.params, "edit")).success


def test_a_view_only_user_must_report_the_share_infeasible(instances, grade):
    task = first(instances, "sheets.share_viewer", lambda p: not p["feasible"])
    assert passes(grade(task, infeasible="I only have view access."))
    assert not grade(task).success

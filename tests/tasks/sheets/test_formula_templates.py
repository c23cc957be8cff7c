"""The Sheets formula templates without a browser: instances on the small seed-0 world, and each
verifier on final worlds made through the Sheets service (the product's own writes), right and
wrong: a typed number instead of a formula, a wrong range or reference, a stray edit, and an
edit on a workbook the asker may not change."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from officegym.apps.sheets import service
from officegym.apps.sheets.engine import refs
from officegym.apps.web.errors import Forbidden, NotFound
from officegym.seed_data.connect import make_engine, writer
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.sheets import Sheet
from officegym.tasks import registry
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.sheets._books import editors, outsiders, viewers
from officegym.tasks.verdict import Verdict
from tests.conftest import new_world_id

IDS = (
    "sheets.fix_ref_error",
    "sheets.lookup_team_headcount",
    "sheets.flag_over_cap",
    "sheets.fill_down_formula",
    "sheets.growth_percent",
    "sheets.count_over_threshold",
    "sheets.insert_row_entry",
    "sheets.clean_text_numbers",
)
SEEDS = range(30)


@dataclass
class Editor:
    """Acts on the instance's workbook through the Sheets service, as one person."""

    db: Session
    actor: Employee
    workbook: int

    def sheet(self, name: str) -> int:
        return self.db.scalar(
            select(Sheet.id).where(Sheet.workbook_id == self.workbook, Sheet.name == name)
        )

    def type(self, sheet: str, cells: Mapping[str, str]) -> None:
        for address, raw in cells.items():
            service.set_cell(self.db, self.actor, self.workbook, self.sheet(sheet), address, raw)

    def block(self, sheet: str, top_left: str, rows: list[list[object]]) -> None:
        service.set_cells(self.db, self.actor, self.workbook, self.sheet(sheet), top_left, rows)

    def fill_down(self, sheet: str, rng: str) -> None:
        service.fill(self.db, self.actor, self.workbook, self.sheet(sheet), rng, "down")

    def number_format(self, sheet: str, rng: str, code: str) -> None:
        service.set_format(
            self.db, self.actor, self.workbook, self.sheet(sheet), rng, number_format=code
        )

    def insert_row(self, sheet: str, at: int) -> None:
        service.insert(self.db, self.actor, self.workbook, self.sheet(sheet), "row", at, 1)

    def column(self, sheet: str, col: str, header: str, formula: str, last: int) -> None:
        self.type(sheet, {f"{col}1": header, f"{col}2": formula})
        self.fill_down(sheet, f"{col}2:{col}{last}")


Act = Callable[[Editor], None]


@pytest.fixture(scope="module")
def golden(store) -> Path:
    return store.golden(0, "small")


@pytest.fixture(scope="module")
def world(golden):
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def instances(golden) -> dict[str, list[Task]]:
    return {tid: [registry.get(tid).instance(golden, s) for s in SEEDS] for tid in IDS}


def first(instances, tid: str, feasible: bool = True, **wanted) -> Task:
    """The first instance of `tid` of the given feasibility whose params hold `wanted`."""
    return next(
        t
        for t in instances[tid]
        if t.params["feasible"] is feasible and all(t.params[k] == v for k, v in wanted.items())
    )


class Scenario:
    """One fresh copy of the small golden for `task`: act on it through the Sheets service,
    step by step, and grade it after each step (the diff is always against the golden)."""

    def __init__(self, store, task: Task) -> None:
        self.store, self.task = store, task
        self.world_id = new_world_id("formulas")
        self.path = store.create(self.world_id, 0, "small")

    def __enter__(self) -> Scenario:
        return self

    def __exit__(self, *exc) -> None:
        self.store.drop(self.world_id)

    def act(self, *acts: Act, who: str | None = None) -> Scenario:
        """Run `acts` as `who` (default: the task's user) in one committed transaction."""
        engine = make_engine(self.path, create=False)
        try:
            with Session(writer(engine)) as db, db.begin():
                actor = db.scalar(select(Employee).where(Employee.email == (who or self.task.user)))
                editor = Editor(db, actor, self.task.params["workbook_id"])
                for act in acts:
                    act(editor)
        finally:
            engine.dispose()
        return self

    def forge(self, sql: str, *args) -> Scenario:
        """Write the world file directly, as no act of the product would."""
        conn = sqlite3.connect(self.path)
        try:
            with conn:
                conn.execute(sql, args)
        finally:
            conn.close()
        return self

    def grade(self, infeasible: str | None = None) -> Verdict:
        ctx = EpisodeContext(
            task=self.task,
            diff=self.store.diff(self.world_id),
            world=self.path,
            golden=self.store.golden(0, "small"),
            answer=None if infeasible else "Done.",
            infeasible=infeasible,
        )
        return self.task.verify(ctx)


def play(store, task: Task, *acts: Act, who: str | None = None, infeasible=None) -> Verdict:
    """Grade `task` on a fresh copy of the small golden after `acts` ran as `who`."""
    with Scenario(store, task) as scenario:
        if acts:
            scenario.act(*acts, who=who)
        return scenario.grade(infeasible)


def passes(verdict: Verdict) -> bool:
    return verdict.success and verdict.score == 1.0


def fails(verdict: Verdict) -> bool:
    return not verdict.success and verdict.score < 1.0


def stray(editor: Editor) -> None:
    """An edit no task asked for: a note far below the data of the workbook's first sheet."""
    first_sheet = editor.db.scalar(
        select(Sheet.name).where(Sheet.workbook_id == editor.workbook).order_by(Sheet.position)
    )
    editor.type(first_sheet, {"A400": "note to self"})


# -- instances -------------------------------------------------------------------------------


@pytest.mark.parametrize("tid", IDS)
def test_instances_are_deterministic_and_name_a_real_workbook_the_asker_may_or_may_not_edit(
    tid, instances, golden, world
):
    for seed, task in zip(SEEDS, instances[tid], strict=True):
        if seed < 5:
            again = registry.get(tid).instance(golden, seed)
            assert (again.goal, again.params) == (task.goal, task.params)
        p = task.params
        (name,) = world.execute(
            "SELECT name FROM sheets_workbook WHERE id = ?", (p["workbook_id"],)
        ).fetchone()
        assert name == p["workbook"] and f"“{name}”" in task.goal
        (count,) = world.execute(
            "SELECT count(*) FROM sheets_workbook WHERE name = ?", (name,)
        ).fetchone()
        assert count == 1
        people = {
            "edit": editors(world, p["workbook_id"]),
            "view": viewers(world, p["workbook_id"]),
            "none": outsiders(world, p["workbook_id"]),
        }[p["access"]]
        assert task.user in {email for _, email in people}
        assert p["feasible"] is (p["access"] == "edit")
        assert (p["decoy"] is None) is (not p["feasible"])


@pytest.mark.parametrize("tid", IDS)
def test_about_one_instance_in_six_is_asked_by_someone_who_cannot_edit(tid, instances):
    impossible = sum(not t.params["feasible"] for t in instances[tid])
    assert 1 <= impossible <= 12


def test_the_planted_mess_is_what_the_repair_templates_point_at(instances, world):
    ref = first(instances, "sheets.fix_ref_error").params
    raw = world.execute(
        "SELECT c.raw FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id "
        "WHERE s.workbook_id = ? AND c.row = ? AND c.col = 4",
        (ref["workbook_id"], ref["row"]),
    ).fetchone()[0]
    assert raw.endswith("#REF!") and ref["workbook"].endswith("Budget vs Actual")
    text = first(instances, "sheets.clean_text_numbers").params
    assert len(text["fixes"]) >= 2
    for address, number in text["fixes"].items():
        (raw,) = world.execute(
            "SELECT c.raw FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id "
            "WHERE s.workbook_id = ? AND s.name = 'Pipeline' AND c.row = ? AND c.col = 5",
            (text["workbook_id"], int(address[1:])),
        ).fetchone()
        assert raw == f"'{number}"


def test_the_fill_down_sheet_has_two_hundred_trips_and_caps_split_the_rates(instances, world):
    for task in instances["sheets.fill_down_formula"]:
        assert task.params["last"] - 1 >= 200
    for task in instances["sheets.flag_over_cap"]:
        p = task.params
        rates = [
            v
            for (v,) in world.execute(
                "SELECT c.value_num FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id "
                "WHERE s.workbook_id = ? AND s.name = 'Trips' AND c.col = 7 "
                "AND c.row BETWEEN 2 AND ?",
                (p["workbook_id"], p["last"]),
            )
        ]
        assert p["cap"] in rates and min(rates) < p["cap"] < max(rates)


def test_an_impossible_instance_is_one_the_service_refuses(store, instances):
    for tid in IDS:
        task = first(instances, tid, feasible=False)
        with pytest.raises((Forbidden, NotFound)):
            play(store, task, stray)


@pytest.mark.parametrize("tid", IDS)
def test_an_impossible_instance_passes_only_when_reported_and_untouched(
    tid, store, world, instances
):
    task = first(instances, tid, feasible=False)
    assert passes(play(store, task, infeasible="It isn't shared with me for editing."))
    assert fails(play(store, task))
    owner = owner_of(world, task)
    assert fails(play(store, task, stray, who=owner, infeasible="View only."))


def owner_of(world: sqlite3.Connection, task: Task) -> str:
    return editors(world, task.params["workbook_id"])[0][1]


# -- fix_ref_error ---------------------------------------------------------------------------


def test_fix_ref_error_needs_a_live_actual_minus_budget(store, instances):
    task = first(instances, "sheets.fix_ref_error")
    p = task.params
    right = {p["cell"]: p["formula"]}
    assert passes(play(store, task, lambda e: e.type(p["sheet"], right)))
    number = str(int(p["actual"] - p["budget"]))
    assert fails(play(store, task, lambda e: e.type(p["sheet"], {p["cell"]: number})))
    assert fails(
        play(store, task, lambda e: e.type(p["sheet"], {p["cell"]: p["decoy"]["formula"]}))
    )
    assert fails(play(store, task, lambda e: e.type(p["sheet"], right), stray))


# -- lookup_team_headcount -------------------------------------------------------------------


def member_row(world: sqlite3.Connection, p: Mapping) -> int:
    """A Roster row of someone in the team the verifier's fork changes."""
    (row,) = world.execute(
        "SELECT min(c.row) FROM sheets_cell c JOIN sheets_sheet s ON s.id = c.sheet_id "
        "WHERE s.workbook_id = ? AND s.name = 'Roster' AND c.col = 3 AND c.raw = ?",
        (p["workbook_id"], p["probe_team"]),
    ).fetchone()
    return row


def test_lookup_needs_a_live_anchored_lookup_on_every_roster_row(store, instances, world):
    task = first(instances, "sheets.lookup_team_headcount")
    p = task.params
    col, last = p["col"], p["last"]
    member = f"{col}{member_row(world, p)}"
    with Scenario(store, task) as scenario:
        scenario.act(lambda e: e.column("Roster", col, p["header"], p["formula"], last))
        verdict = scenario.grade()
        assert passes(verdict), verdict
        # A typed-in figure looks right but does not follow By Team.
        scenario.act(lambda e: e.type("Roster", {member: "0"}))
        assert fails(scenario.grade())
        restored = refs.shift(p["formula"], member_row(world, p) - 2, 0)
        scenario.act(lambda e: e.type("Roster", {member: restored}))
        assert passes(scenario.grade())
        scenario.act(lambda e: e.type("Roster", {f"{col}2": p["decoy"]["formula"]}))
        assert fails(scenario.grade())
        relative = p["formula"].replace("$", "")
        scenario.act(lambda e: e.column("Roster", col, p["header"], relative, last))
        assert fails(scenario.grade())


def test_lookup_accepts_index_match_and_wants_the_header(store, instances):
    task = first(instances, "sheets.lookup_team_headcount")
    p = task.params
    col, last, end = p["col"], p["last"], p["last_team"]
    keys = f"'By Team'!$B$2:$B${end}"
    values = f"'By Team'!${p['source']}$2:${p['source']}${end}"
    with Scenario(store, task) as scenario:
        formula = f"=INDEX({values},MATCH(C2,{keys},0))"
        scenario.act(lambda e: e.column("Roster", col, "", formula, last))
        assert fails(scenario.grade())
        scenario.act(lambda e: e.type("Roster", {f"{col}1": p["header"].upper()}))
        verdict = scenario.grade()
        assert passes(verdict), verdict


# -- flag_over_cap ---------------------------------------------------------------------------


def test_flag_over_cap_passes_a_strict_if_and_fails_at_or_above_or_typed(store, instances):
    task = next(
        t
        for t in instances["sheets.flag_over_cap"]
        if t.params["feasible"] and t.params["last"] < 60
    )
    p = task.params
    col, last, cap = p["col"], p["last"], p["cap"]

    def column(formula: str, to: int = last, header: str = p["header"]) -> Act:
        return lambda e: e.column("Trips", col, header, formula, to)

    with Scenario(store, task) as scenario:
        assert passes(scenario.act(column(p["formula"])).grade())
        # A header shown as something else than what was typed is not the product's doing.
        scenario.forge(
            "UPDATE sheets_cell SET value_text = value_text || ' (approved)' WHERE raw = ?",
            p["header"],
        )
        assert fails(scenario.grade())
    assert passes(play(store, task, column(f'=IF(G2<={cap},"OK","Over")')))
    assert fails(play(store, task, column(p["decoy"]["formula"])))
    assert fails(play(store, task, column(p["formula"], header="")))
    assert fails(play(store, task, column(p["formula"], to=last + 1)))
    typed = {f"{col}{p['ok_row']}": "OK"}
    assert fails(play(store, task, column(p["formula"]), lambda e: e.type("Trips", typed)))


# -- fill_down_formula -----------------------------------------------------------------------


def test_fill_down_covers_every_trip_and_stops_above_the_total(store, instances):
    task = first(instances, "sheets.fill_down_formula")
    p = task.params
    col, last, short = p["col"], p["last"], p["decoy"]["fill_to"]
    with Scenario(store, task) as scenario:
        scenario.act(lambda e: e.column("Trips", col, p["header"], p["formula"], last))
        verdict = scenario.grade()
        assert passes(verdict), verdict
        scenario.act(lambda e: e.number_format("Trips", f"{col}2:{col}{last}", "$#,##0.00"))
        verdict = scenario.grade()
        assert passes(verdict), verdict
        scenario.act(lambda e: e.fill_down("Trips", f"{col}{last}:{col}{last + 1}"))
        assert fails(scenario.grade())
        scenario.act(lambda e: service.undo(e.db, e.actor, e.workbook))
        assert passes(scenario.grade())
        cut = f"{col}{short + 1}:{col}{last}"
        scenario.act(lambda e: service.clear(e.db, e.actor, e.workbook, e.sheet("Trips"), cut))
        assert fails(scenario.grade())


# -- growth_percent --------------------------------------------------------------------------


def test_growth_needs_a_ratio_per_team_with_a_percent_format(store, instances):
    task = first(instances, "sheets.growth_percent")
    p = task.params
    col, last = p["col"], p["last"]

    def column(formula: str) -> Act:
        return lambda e: e.column("Plan", col, "Growth", formula, last)

    def formatted(code: str) -> Act:
        return lambda e: e.number_format("Plan", f"{col}2:{col}{last}", code)

    for code in ("0%", "0.0%"):
        verdict = play(store, task, column(p["formula"]), formatted(code))
        assert passes(verdict), verdict
    assert fails(play(store, task, column(p["formula"])))
    assert fails(play(store, task, column(p["formula"]), formatted("$#,##0")))
    assert fails(play(store, task, column(p["decoy"]["formula"]), formatted("0%")))
    into_total = lambda e: e.column("Plan", col, "Growth", p["formula"], last + 1)  # noqa: E731
    assert fails(play(store, task, into_total, formatted("0%")))


# -- count_over_threshold --------------------------------------------------------------------


def test_count_over_threshold_counts_only_the_deal_rows_strictly_above(store, instances):
    task = first(instances, "sheets.count_over_threshold")
    p = task.params
    cell, threshold = p["cell"], p["threshold"]
    assert passes(play(store, task, lambda e: e.type("Pipeline", {cell: p["formula"]})))
    labelled = {p["label"]: f"Deals over ${threshold:,}", cell: p["formula"]}
    assert passes(play(store, task, lambda e: e.type("Pipeline", labelled)))
    whole = {cell: f'=COUNTIF(E:E,">{threshold}")'}
    assert fails(play(store, task, lambda e: e.type("Pipeline", whole)))
    assert fails(play(store, task, lambda e: e.type("Pipeline", {cell: p["decoy"]["formula"]})))
    assert fails(play(store, task, lambda e: e.type("Pipeline", {cell: str(p["count"])})))
    assert fails(play(store, task, lambda e: e.type("Pipeline", {cell: p["formula"]}), stray))


# -- insert_row_entry ------------------------------------------------------------------------


def entry(p: Mapping, at: int, weighted: str | None = None) -> Act:
    def act(e: Editor) -> None:
        e.insert_row("Pipeline", at)
        formula = f"=E{at}*G{at}/100" if weighted is None else weighted
        row = [p["deal"], p["account"], p["owner"], p["stage"], p["amount"], p["close"],
               p["probability"], formula]  # fmt: skip
        e.block("Pipeline", f"A{at}", [row])

    return act


def test_insert_row_entry_moves_the_rows_below_and_grows_the_total(store, instances):
    task = next(
        t
        for t in instances["sheets.insert_row_entry"]
        if t.params["feasible"] and t.params["comments"]
    )
    p = task.params
    verdict = play(store, task, entry(p, p["at"]))
    assert passes(verdict), verdict
    money = play(
        store,
        task,
        entry(p, p["at"]),
        lambda e: e.number_format("Pipeline", f"E{p['at']}", "$#,##0"),
    )
    assert passes(money)
    assert fails(play(store, task, entry(p, p["decoy"]["at"])))
    assert fails(play(store, task, entry(p, p["at"] + 1)))
    number = str(p["amount"] * p["probability"] / 100)
    assert fails(play(store, task, entry(p, p["at"], weighted=number)))
    assert fails(play(store, task, entry(p, p["at"]), stray))


# -- clean_text_numbers ----------------------------------------------------------------------


def test_clean_text_numbers_needs_every_text_amount_as_its_number(store, instances):
    task = first(instances, "sheets.clean_text_numbers")
    p = task.params
    fixes = p["fixes"]
    assert passes(play(store, task, lambda e: e.type("Pipeline", fixes)))
    money = {a: f"${int(n):,}" for a, n in fixes.items()}
    assert passes(play(store, task, lambda e: e.type("Pipeline", money)))
    assert fails(play(store, task, lambda e: e.type("Pipeline", p["decoy"]["fixes"])))
    wrong = {**fixes, sorted(fixes)[0]: "1"}
    assert fails(play(store, task, lambda e: e.type("Pipeline", wrong)))
    assert fails(play(store, task, lambda e: e.type("Pipeline", fixes), stray))
    total = {p["total_cell"]: str(int(p["total"]))}
    assert fails(play(store, task, lambda e: e.type("Pipeline", total)))

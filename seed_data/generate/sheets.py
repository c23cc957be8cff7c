"""Sheets: workbooks built from the world's own data (pipeline from the CRM, travel expenses
from bookings, headcount from the directory) with formulas whose values are computed exactly.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta

from ..booking_rules import average_nightly_cents
from ..schema.crm import STAGES
from .context import Ref, Row, World
from .formula import ErrorCode, column_letters, evaluate
from .people import REVENUE_TEAMS

MONEY = "$#,##0"
CENTS = "$#,##0.00"
PERCENT = "0.0%"
DATE = "yyyy-mm-dd"
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_EPOCH = date(1899, 12, 30)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


@dataclass
class _Sheet:
    """Cells being written to one sheet: raw input, number format and names in the text."""

    name: str
    cells: dict[tuple[int, int], tuple[str, str | None, list[Ref]]] = field(default_factory=dict)
    # Planted mess: (kind, row, col, description, the (row, col) it copies or None).
    mess: list[tuple[str, int, int, str, tuple[int, int] | None]] = field(default_factory=list)
    # Charts: (kind, title, source range, anchor cell).
    charts: list[tuple[str, str, str, str]] = field(default_factory=list)

    def put(
        self, row: int, col: int, raw: object, fmt: str | None = None, refs: list[Ref] | None = None
    ) -> None:
        if raw is None or raw == "":
            return
        self.cells[row, col] = (str(raw), fmt, refs or [])

    def put_row(self, row: int, values: list[object], fmts: list[str | None] | None = None) -> None:
        for col, value in enumerate(values, start=1):
            refs = [value] if isinstance(value, Ref) else None
            raw = value.surface if isinstance(value, Ref) else value
            self.put(row, col, raw, (fmts or [None] * len(values))[col - 1], refs)


@dataclass(frozen=True)
class _Quarter:
    year: int
    q: int

    @property
    def label(self) -> str:
        return f"Q{self.q} {self.year}"

    @property
    def start(self) -> date:
        return date(self.year, 3 * self.q - 2, 1)

    def shift(self, n: int) -> _Quarter:
        index = self.year * 4 + self.q - 1 + n
        return _Quarter(index // 4, index % 4 + 1)

    def holds(self, day: date) -> bool:
        return day.year == self.year and (day.month - 1) // 3 + 1 == self.q


_COMMENTS = (
    "Can you double-check {address} against the CRM?",
    "Confirmed with {owner}.",
    "This looks high — is it final?",
    "Updated after the last review.",
    "{owner}, please confirm before the forecast call.",
    "Source: the CRM export from Monday.",
)


def _address(row: int, col: int) -> str:
    return f"{column_letters(col)}{row}"


def _cell_value(raw: str) -> float | str:
    """What typing `raw` stores, as a spreadsheet reads it: a number, a date as its serial
    number (days since 1899-12-30), or text (a leading apostrophe keeps digits as text)."""
    if raw.startswith("'"):
        return raw[1:]
    if _ISO_DATE.fullmatch(raw):
        return float((date.fromisoformat(raw) - _EPOCH).days)
    try:
        return float(raw)
    except ValueError:
        return raw


def _write_sheet(world: World, workbook: Row, sheet: _Sheet, position: int) -> Row:
    """Insert the sheet and its cells, evaluating formulas exactly (raw stays as typed)."""
    sheet_row = world.add(
        "sheets_sheet",
        workbook_id=workbook["id"],
        name=sheet.name,
        position=position,
        frozen_rows=1 if len(sheet.cells) > 60 else 0,
        filter_range=None,
        filter_json=None,
    )
    values: dict[tuple[int, int], float | str] = {}

    def lookup(row: int, col: int) -> float | str | None:
        if (row, col) not in sheet.cells:
            return None
        if (row, col) not in values:
            raw = sheet.cells[row, col][0]
            values[row, col] = evaluate(raw, lookup) if raw.startswith("=") else _cell_value(raw)
        return values[row, col]

    ids: dict[tuple[int, int], int] = {}
    for row, col in sorted(sheet.cells):
        raw, fmt, refs = sheet.cells[row, col]
        value = lookup(row, col)
        is_number = isinstance(value, float)
        kind = "number" if is_number else "error" if isinstance(value, ErrorCode) else "text"
        cell = world.add(
            "sheets_cell",
            sheet_id=sheet_row["id"],
            row=row,
            col=col,
            raw=raw,
            value_type=kind,
            value_num=value if is_number else None,
            value_text=None if is_number else str(value),
            number_format=fmt or (DATE if _ISO_DATE.fullmatch(raw) else None),
            bold=row == 1,
            italic=False,
            fill=None,
        )
        ids[row, col] = cell["id"]
        world.cite("sheets_cell", cell["id"], "value_text", refs)
    for kind, row, col, description, other in sheet.mess:
        world.oddity(
            kind,
            "sheets_cell",
            ids[row, col],
            description,
            other_table="sheets_cell" if other else None,
            other_id=ids[other] if other else None,
        )
    for kind, title, source, anchor in sheet.charts:
        world.add("sheets_chart", sheet_id=sheet_row["id"], kind=kind, title=title,
                  source_range=source, anchor=anchor)  # fmt: skip
    for col in sorted({c for (_, c) in sheet.cells}):
        longest = max(len(sheet.cells[r, c][0]) for (r, c) in sheet.cells if c == col)
        if longest > 14:
            world.add(
                "sheets_column", sheet_id=sheet_row["id"], col=col, width=min(320, 8 * longest)
            )
    return sheet_row


def _nightly_rate(res: Row) -> int | float:
    """A stay's average nightly rate before fees and taxes, in dollars, as its quote has it."""
    price = json.loads(res["price_json"])
    cents = average_nightly_cents(price["subtotal"], len(price["nights"]))
    return cents // 100 if cents % 100 == 0 else cents / 100


def _total_row(
    sheet: _Sheet,
    row: int,
    first: int,
    last: int,
    cols: list[int],
    label_col: int = 1,
    fmt: str = MONEY,
) -> None:
    sheet.put(row, label_col, "Total")
    for col in cols:
        letter = column_letters(col)
        sheet.put(row, col, f"=SUM({letter}{first}:{letter}{last})", fmt)


class _Plan:
    """Produces workbooks in priority order until the scale's count is reached."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world = world
        self.rng = rng
        self.now = world.now
        self.today = world.now.date()
        employees = world.rows("people_employee")
        self.employees = employees
        self.teams = world.rows("people_team")
        self.team_by_id = {t["id"]: t for t in self.teams}
        self.active = [e for e in employees if e["is_active"]]
        self.current = _Quarter(self.today.year, (self.today.month - 1) // 3 + 1)
        self.names: set[str] = set()
        # Mess comes from its own stream, so planting it never reshuffles the workbooks.
        self.mess = world.rng("sheets.mess")
        self.notes_rng = world.rng("sheets.notes")
        self.pipelines = 0
        self.hotel_stays: list[tuple[Row, Row, Row]] = []
        for res in world.rows("booking_reservation"):
            resource = world.get("booking_resource", res["resource_id"])
            if resource["kind"] == "hotel_room" and res["status"] == "confirmed":
                guest = world.get("people_employee", res["guest_id"])
                self.hotel_stays.append((res, resource, guest))
        self.purpose_refs: dict[int, list[Ref]] = defaultdict(list)
        for ref in world.rows("world_textref"):
            if ref["source_table"] == "booking_reservation":
                self.purpose_refs[ref["source_id"]].append(
                    Ref(ref["target_table"], ref["target_id"], ref["surface"])
                )

    def member_ids(self, team_name: str) -> set[int]:
        team_ids = {t["id"] for t in self.teams if t["name"] == team_name}
        return {e["id"] for e in self.employees if e["team_id"] in team_ids}

    def head(self, department: str) -> Row:
        team_ids = {t["id"] for t in self.teams if t["department"] == department}
        people = [e for e in self.employees if e["team_id"] in team_ids and e["is_active"]]
        managers = [e for e in people if e["role"] == "manager"] or people
        if not managers:
            return self.employees[0]
        boss = min(managers, key=lambda e: e["id"])
        return self.world.get("people_employee", boss["manager_id"]) if boss["manager_id"] else boss

    def workbook(self, name: str, owner: Row, sheets: list[_Sheet], share_with: list[Row]) -> None:
        world, rng = self.world, self.rng
        created = self.now - timedelta(days=rng.randint(5, 200), minutes=rng.randint(0, 1439))
        book = world.add(
            "sheets_workbook",
            name=name,
            owner_id=owner["id"],
            created_at=created,
            updated_at=created + (self.now - created) * rng.uniform(0.5, 1.0),
        )
        book["updated_at"] = book["updated_at"].replace(microsecond=0)
        book["trashed_at"] = None
        written = [
            _write_sheet(world, book, sheet, position) for position, sheet in enumerate(sheets)
        ]
        shared: set[int] = {owner["id"]}
        unique = {e["id"]: e for e in share_with if e["is_active"] and e["id"] not in shared}
        candidates = [unique[i] for i in sorted(unique)]
        for person in rng.sample(candidates, min(len(candidates), rng.randint(2, 6))):
            shared.add(person["id"])
            world.add(
                "sheets_share",
                workbook_id=book["id"],
                employee_id=person["id"],
                permission="edit" if rng.random() < 0.35 else "view",
            )
        self.notes(book, owner, list(zip(sheets, written, strict=True)), sorted(shared))

    def notes(
        self, book: Row, owner: Row, sheets: list[tuple[_Sheet, Row]], people: list[int]
    ) -> None:
        """What people left on a workbook while using it: comments on figures and the last
        edits in its history (history written before the app existed cannot be undone)."""
        world, rng = self.world, self.notes_rng
        sheet, sheet_row = sheets[0]
        typed = sorted(
            (r, c)
            for (r, c), (raw, _, _) in sheet.cells.items()
            if r > 1
            and not raw.startswith(("=", "'"))
            and not _ISO_DATE.fullmatch(raw)
            and _cell_value(raw) != raw
        )
        if not typed:
            return
        for r, c in rng.sample(typed, min(len(typed), rng.randint(0, 2))):
            author = world.get("people_employee", rng.choice(people))
            first = owner["display_name"].split()[0]
            body = rng.choice(_COMMENTS).format(owner=first, address=_address(r, c))
            world.add("sheets_comment", sheet_id=sheet_row["id"], row=r, col=c,
                      author_id=author["id"], body=body,
                      created_at=book["created_at"] + (book["updated_at"] - book["created_at"]) / 2)  # fmt: skip
        at = book["updated_at"]
        for r, c in sorted(rng.sample(typed, min(len(typed), rng.randint(1, 3))), reverse=True):
            raw = sheet.cells[r, c][0]
            before = str(round(float(raw) * rng.choice((0.9, 0.95, 1.05, 1.1))))
            world.add("sheets_edit", workbook_id=book["id"], employee_id=owner["id"], at=at,
                      summary=f"Edited {_address(r, c)}",
                      cells_json=json.dumps([[sheet.name, _address(r, c), before, raw]]),
                      undo_json="{}", redo_json="{}", undone=False)  # fmt: skip
            at -= timedelta(minutes=rng.randint(3, 600))

    def take_name(self, name: str) -> bool:
        if name in self.names:
            return False
        self.names.add(name)
        return True

    # Workbook kinds -----------------------------------------------------------------------

    def pipeline(self, title: str, owner_ids: set[int], quarter: _Quarter, owner: Row) -> bool:
        """Deals owned by `owner_ids` closing in `quarter`, with weighted amounts and totals."""
        world = self.world
        opps = sorted(
            (
                o
                for o in world.rows("crm_opportunity")
                if o["owner_id"] in owner_ids and quarter.holds(o["close_date"])
            ),
            key=lambda o: (o["close_date"], o["id"]),
        )
        name = f"{title} Pipeline — {quarter.label}"
        if not opps or not self.take_name(name):
            return False
        deals = _Sheet("Pipeline")
        deals.put_row(1, ["Opportunity", "Account", "Owner", "Stage", "Amount", "Close Date",
                          "Probability (%)", "Weighted"])  # fmt: skip
        fmts: list[str | None] = [None, None, None, None, MONEY, None, None, MONEY]
        by_stage: dict[str, list[int]] = defaultdict(list)
        for i, opp in enumerate(opps, start=2):
            account = world.get("crm_account", opp["account_id"])
            owner_row = world.get("people_employee", opp["owner_id"])
            deals.put_row(
                i,
                [world.ref("crm_opportunity", opp), world.ref("crm_account", account),
                 world.ref("people_employee", owner_row), opp["stage"], opp["amount"],
                 opp["close_date"].isoformat(), opp["probability"], f"=E{i}*G{i}/100"],
                fmts,
            )  # fmt: skip
            by_stage[opp["stage"]].append(i)
        last = len(opps) + 1
        self.pipelines += 1
        if self.pipelines == 1 and len(opps) >= 4:
            for r in sorted(self.mess.sample(range(2, last + 1), 2)):
                raw, fmt, refs = deals.cells[r, 5]
                deals.cells[r, 5] = (f"'{raw}", fmt, refs)
                deals.mess.append(("sheet_text_number", r, 5,
                                   f"Amount in row {r} is stored as text, so the total leaves it out",
                                   None))  # fmt: skip
        elif self.pipelines == 2 and len(opps) >= 3:
            original = self.mess.randint(2, last)
            last += 1
            for col in range(1, 9):
                if (original, col) in deals.cells:
                    raw, fmt, refs = deals.cells[original, col]
                    deals.cells[last, col] = (
                        f"=E{last}*G{last}/100" if col == 8 else raw,
                        fmt,
                        refs,
                    )
            deals.mess.append(("sheet_duplicate_row", last, 1,
                               f"Row {last} repeats the deal in row {original}", (original, 1)))  # fmt: skip
        _total_row(deals, last + 1, 2, last, [5, 8])
        summary = _Sheet("By Stage")
        summary.put_row(1, ["Stage", "Deals", "Amount"])
        row = 2
        for stage in [name for name, _ in STAGES if name in by_stage]:
            total = 0
            for r in by_stage[stage]:
                total += opps[r - 2]["amount"]
            summary.put_row(row, [stage, len(by_stage[stage]), total], [None, None, MONEY])
            row += 1
        summary.put(row, 1, "Total")
        summary.put(row, 2, f"=SUM(B2:B{row - 1})")
        summary.put(row, 3, f"=SUM(C2:C{row - 1})", MONEY)
        team_people = [world.get("people_employee", i) for i in sorted(owner_ids)]
        team_people += [
            world.get("people_employee", e["manager_id"]) for e in team_people if e["manager_id"]
        ]
        self.workbook(name, owner, [deals, summary], team_people + [self.head("Sales")])
        return True

    def travel(self, quarter: _Quarter, department: str | None) -> bool:
        """Hotel stays checking in during `quarter`, with cost formulas and monthly totals."""
        world = self.world
        dept_teams = {t["id"] for t in self.teams if department in (None, t["department"])}
        stays = [
            (res, resource, guest)
            for res, resource, guest in self.hotel_stays
            if quarter.holds(res["start_at"].date()) and guest["team_id"] in dept_teams
        ]
        stays.sort(key=lambda s: (s[0]["start_at"], s[0]["id"]))
        scope = f" — {department}" if department else ""
        name = f"Travel Expenses{scope} — {quarter.label}"
        if not stays or not self.take_name(name):
            return False
        trips = _Sheet("Trips")
        trips.put_row(1, ["Booking #", "Traveller", "Hotel", "City", "Check-in", "Nights",
                          "Nightly Rate", "Cost", "Purpose"])  # fmt: skip
        # Rates are the quote's average per night, to the cent.
        fmts: list[str | None] = [None, None, None, None, None, None, CENTS, CENTS, None]
        months: dict[int, list[int]] = defaultdict(list)
        for i, (res, resource, guest) in enumerate(stays, start=2):
            hotel = world.get("booking_property", resource["property_id"])
            nights = (res["end_at"] - res["start_at"]).days
            trips.put_row(
                i,
                [res["id"], world.ref("people_employee", guest), world.ref("booking_property", hotel),
                 hotel["city"], res["start_at"].date().isoformat(), nights, _nightly_rate(res),
                 f"=F{i}*G{i}", res["purpose"]],
                fmts,
            )  # fmt: skip
            trips.cells[i, 9] = (res["purpose"], None, list(self.purpose_refs[res["id"]]))
            months[res["start_at"].month].append(i)
        last = len(stays) + 1
        _total_row(trips, last + 1, 2, last, [8], fmt=CENTS)
        trips.put(1, 11, "Month")
        trips.put(1, 12, "Total")
        for j, month in enumerate(sorted(months), start=2):
            rows = months[month]
            trips.put(j, 11, _MONTHS[month - 1])
            trips.put(j, 12, f"=SUM(H{rows[0]}:H{rows[-1]})", CENTS)
        owner_pool = [
            e for e in self.active if e["title"] in ("Travel Coordinator", "Financial Analyst")
        ]
        owner = self.rng.choice(owner_pool) if owner_pool else self.head("Finance")
        finance = [
            e for e in self.active if self.team_by_id[e["team_id"]]["department"] == "Finance"
        ]
        travellers = sorted({g["id"]: g for _, _, g in stays}.values(), key=lambda e: e["id"])
        self.workbook(name, owner, [trips], finance + travellers[:5])
        return True

    def headcount(self) -> bool:
        world = self.world
        name = f"Headcount by Team — {_MONTHS[self.today.month - 1]} {self.today.year}"
        if not self.take_name(name):
            return False
        by_team = _Sheet("By Team")
        by_team.put_row(1, ["Department", "Team", "Headcount", "Managers"])
        row = 1
        for team in self.teams:
            people = [e for e in self.active if e["team_id"] == team["id"]]
            row += 1
            by_team.put_row(
                row,
                [team["department"], world.ref("people_team", team), len(people),
                 sum(1 for e in people if e["role"] == "manager")],
            )  # fmt: skip
        by_team.put(row + 1, 1, "Total")
        by_team.put(row + 1, 3, f"=SUM(C2:C{row})")
        by_team.put(row + 1, 4, f"=SUM(D2:D{row})")
        by_team.charts.append(("bar", "Headcount by team", f"B1:C{row}", "F2"))
        roster = _Sheet("Roster")
        roster.put_row(1, ["Name", "Title", "Team", "Office", "Hire Date"])
        for i, e in enumerate(self.active, start=2):
            roster.put_row(
                i,
                [world.ref("people_employee", e), e["title"],
                 world.ref("people_team", self.team_by_id[e["team_id"]]),
                 world.ref("people_office", world.get("people_office", e["office_id"])),
                 e["hire_date"].isoformat()],
            )  # fmt: skip
        owner = self.head("People")
        people_team = [
            e for e in self.active if self.team_by_id[e["team_id"]]["department"] == "People"
        ]
        managers = [e for e in self.active if e["role"] == "manager"]
        self.workbook(name, owner, [by_team, roster], people_team + managers[:6])
        return True

    def budget(self) -> bool:
        name = f"FY{self.today.year} Budget vs Actual"
        if not self.take_name(name):
            return False
        sheet = _Sheet("Departments")
        sheet.put_row(1, ["Department", "Budget", "Actual", "Variance", "Variance %"])
        departments = sorted(
            {t["department"] for t in self.teams}, key=[t["department"] for t in self.teams].index
        )
        row = 1
        broken = self.mess.randint(3, len(departments) + 1) if len(departments) > 1 else 0
        for dept in departments:
            heads = sum(
                1 for e in self.active if self.team_by_id[e["team_id"]]["department"] == dept
            )
            budget = max(1, heads) * self.rng.randint(110, 190) * 1000
            actual = round(budget * self.rng.uniform(0.8, 1.12), -3)
            row += 1
            variance = f"=C{row}-#REF!" if row == broken else f"=C{row}-B{row}"
            sheet.put_row(
                row,
                [dept, budget, int(actual), variance, f"=D{row}/B{row}"],
                [None, MONEY, MONEY, MONEY, PERCENT],
            )
        if broken:
            sheet.mess.append(("sheet_ref_error", broken, 4,
                               f"D{broken} refers to a deleted column (#REF!)", None))  # fmt: skip
        total = row + 1
        sheet.put_row(
            total,
            [
                "Total",
                f"=SUM(B2:B{row})",
                f"=SUM(C2:C{row})",
                f"=C{total}-B{total}",
                f"=D{total}/B{total}",
            ],
            [None, MONEY, MONEY, MONEY, PERCENT],
        )
        finance = [
            e for e in self.active if self.team_by_id[e["team_id"]]["department"] == "Finance"
        ]
        execs = [e for e in self.active if e["team_id"] == self.teams[0]["id"]]
        self.workbook(name, self.head("Finance"), [sheet], finance + execs)
        return True

    def top_accounts(self) -> bool:
        world = self.world
        name = "Top Accounts by Revenue"
        if not self.take_name(name):
            return False
        accounts = sorted(
            (a for a in world.rows("crm_account") if a["annual_revenue"]),
            key=lambda a: (-a["annual_revenue"], a["id"]),
        )[:40]
        sheet = _Sheet("Accounts")
        sheet.put_row(1, ["Account", "Industry", "City", "Employees", "Annual Revenue", "Owner"])
        for i, a in enumerate(accounts, start=2):
            sheet.put_row(
                i,
                [world.ref("crm_account", a), a["industry"], a["billing_city"], a["employee_count"],
                 a["annual_revenue"], world.ref("people_employee", world.get("people_employee", a["owner_id"]))],
                [None, None, None, "#,##0", MONEY, None],
            )  # fmt: skip
        last = len(accounts) + 1
        sheet.put(last + 1, 1, "Total")
        sheet.put(last + 1, 5, f"=SUM(E2:E{last})", MONEY)
        sheet.put(last + 2, 1, "Average")
        sheet.put(last + 2, 4, f"=AVERAGE(D2:D{last})", "#,##0")
        sheet.put(last + 2, 5, f"=AVERAGE(E2:E{last})", MONEY)
        sheet.put(last + 3, 1, "Accounts")
        sheet.put(last + 3, 5, f"=COUNT(E2:E{last})")
        revenue = [e for e in self.active if self.team_by_id[e["team_id"]]["name"] in REVENUE_TEAMS]
        self.workbook(name, self.head("Sales"), [sheet], revenue)
        return True

    def hiring_plan(self) -> bool:
        name = f"Hiring Plan {self.today.year}"
        if not self.take_name(name):
            return False
        sheet = _Sheet("Plan")
        sheet.put_row(1, ["Team", "Current", "Planned Hires", "Target"])
        for i, team in enumerate(self.teams, start=2):
            current = sum(1 for e in self.active if e["team_id"] == team["id"])
            sheet.put_row(
                i,
                [
                    self.world.ref("people_team", team),
                    current,
                    self.rng.randint(0, 4),
                    f"=B{i}+C{i}",
                ],
            )
        last = len(self.teams) + 1
        sheet.put(last + 1, 1, "Total")
        for col in "BCD":
            sheet.put(last + 1, " ABCD".index(col), f"=SUM({col}2:{col}{last})")
        recruiting = [
            e for e in self.active if self.team_by_id[e["team_id"]]["department"] == "People"
        ]
        self.workbook(name, self.head("People"), [sheet], recruiting + [self.employees[0]])
        return True

    def candidates(self) -> Iterator[bool]:
        """Workbook makers in priority order (each yields whether it made one)."""
        revenue_teams = [t for t in self.teams if t["name"] in REVENUE_TEAMS]

        def team_pipeline(team: Row, quarter: _Quarter) -> bool:
            members = self.member_ids(team["name"])
            leads = [
                e
                for e in self.employees
                if e["id"] in members and e["role"] == "manager" and e["is_active"]
            ]
            owner = leads[0] if leads else self.head(team["department"])
            return self.pipeline(team["name"], members, quarter, owner)

        q = self.current
        for team in revenue_teams[:1]:
            yield team_pipeline(team, q)
        yield self.travel(q.shift(-1), None)
        yield self.headcount()
        for team in revenue_teams[1:]:
            yield team_pipeline(team, q)
        yield self.travel(q, None)
        yield self.budget()
        yield self.top_accounts()
        yield self.hiring_plan()
        for shift in (1, -1, 2):
            for team in revenue_teams:
                yield team_pipeline(team, q.shift(shift))
        for shift in (-2, 1):
            yield self.travel(q.shift(shift), None)
        departments = sorted({t["department"] for t in self.teams})
        for shift in (-1, 0, -2):
            for dept in departments:
                yield self.travel(q.shift(shift), dept)
        reps = sorted(
            {o["owner_id"] for o in self.world.rows("crm_opportunity")},
        )
        for shift in (0, 1, -1, 2, -2, 3):
            for rep_id in reps:
                rep = self.world.get("people_employee", rep_id)
                yield self.pipeline(rep["display_name"], {rep_id}, q.shift(shift), rep)


def build(world: World) -> None:
    """Make workbooks, sheets, cells and shares from the CRM, bookings and the directory."""
    plan = _Plan(world, world.rng("sheets"))
    made = 0
    for ok in plan.candidates():
        made += ok
        if made >= world.scale.workbooks:
            break

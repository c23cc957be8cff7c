"""The world generator: deterministic files, valid data, real cross-references, true mess."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from officegym.apps.crm.duplicates import names_alike
from officegym.seed_data.generate import build_world
from officegym.seed_data.passwords import DEMO_PASSWORD, check_password
from officegym.seed_data.schema import SCHEMA_VERSION
from officegym.seed_data.schema.crm import CLOSED_STAGES, STAGES

GENERATOR_DIR = Path(__file__).resolve().parents[2] / "seed_data" / "generate"

# How a textref target is named: the surface must equal this.
TARGET_NAME = {
    "people_employee": "display_name",
    "people_office": "name",
    "people_team": "name",
    "crm_account": "name",
    "crm_contact": "first_name || ' ' || last_name",
    "crm_lead": "first_name || ' ' || last_name",
    "crm_opportunity": "name",
    "booking_property": "name",
    "booking_resource": "name",
    "sheets_workbook": "name",
}
TARGETS_SMALL = {
    "people_employee": 150,
    "chat_channel": 40,
    "chat_message": 5000,
    "crm_account": 400,
    "crm_contact": 1500,
    "crm_opportunity": 600,
    "sheets_workbook": 25,
    # Offices and hotels (100) and homes (120).
    "booking_property": 220,
    "booking_reservation": 1000,
}
_COMPANY_SUFFIXES = {
    "inc", "incorporated", "corp", "corporation", "llc", "co", "company", "ltd", "limited",
    "group", "grp", "holdings", "hldgs", "plc", "public", "the",
}  # fmt: skip


def _build_in_subprocess(seed: int, scale: str, path: Path, hash_seed: str) -> str:
    code = (
        "import sys, pathlib\n"
        "from officegym.seed_data.generate import build_world\n"
        "build_world(int(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run(
        [sys.executable, "-c", code, str(seed), scale, str(path)], check=True, env=env, timeout=300
    )
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


@pytest.fixture(scope="module")
def gen_tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("gen") / "tiny.sqlite"
    return path, build_world(7, "tiny", path)


@pytest.fixture(scope="module")
def gen_small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("gen") / "small.sqlite"
    return path, build_world(0, "small", path)


@pytest.fixture(
    scope="module",
    params=["tiny", "tiny-other-seed", pytest.param("small", marks=pytest.mark.slow)],
)
def gen_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[sqlite3.Connection]:
    """A connection to a tiny world (two seeds), and to the small one when slow tests run."""
    if request.param == "tiny-other-seed":
        path = tmp_path_factory.mktemp("gen") / "tiny-31.sqlite"
        build_world(31, "tiny", path)
    else:
        path, _ = request.getfixturevalue(f"gen_{request.param}")
    conn = _connect(path)
    yield conn
    conn.close()


def _now(db: sqlite3.Connection) -> datetime:
    return datetime.fromisoformat(db.execute("SELECT now FROM world_meta").fetchone()[0])


# Files and determinism ------------------------------------------------------------------


def test_build_world_refuses_to_overwrite_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "world.sqlite"
    path.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        build_world(0, "tiny", path)
    assert path.read_bytes() == b"keep me"


def test_unknown_scale_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="huge"):
        build_world(0, "huge", tmp_path / "world.sqlite")


def test_same_seed_gives_byte_identical_tiny_files_across_processes(tmp_path: Path) -> None:
    first = _build_in_subprocess(11, "tiny", tmp_path / "a.sqlite", "1")
    second = _build_in_subprocess(11, "tiny", tmp_path / "b.sqlite", "2")
    assert first == second


@pytest.mark.slow
def test_same_seed_gives_byte_identical_small_files_across_processes(tmp_path: Path) -> None:
    first = _build_in_subprocess(3, "small", tmp_path / "a.sqlite", "3")
    second = _build_in_subprocess(3, "small", tmp_path / "b.sqlite", "4")
    assert first == second


def test_different_seeds_give_different_worlds(tmp_path: Path) -> None:
    build_world(1, "tiny", tmp_path / "one.sqlite")
    build_world(2, "tiny", tmp_path / "two.sqlite")
    one, two = _connect(tmp_path / "one.sqlite"), _connect(tmp_path / "two.sqlite")
    query = "SELECT display_name FROM people_employee ORDER BY id"
    assert [r[0] for r in one.execute(query)] != [r[0] for r in two.execute(query)]
    query = "SELECT name FROM crm_account ORDER BY id"
    assert [r[0] for r in one.execute(query)] != [r[0] for r in two.execute(query)]


def test_returned_counts_are_the_table_row_counts_sorted_by_name(
    gen_tiny: tuple[Path, dict[str, int]],
) -> None:
    path, counts = gen_tiny
    assert list(counts) == sorted(counts)
    db = _connect(path)
    for table, count in counts.items():
        assert db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] == count, table
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    # Tables starting with "_" (the search index) are not world data.
    assert set(counts) == {t for t in tables if not t.startswith("_")} - {"sqlite_sequence"}


def test_file_is_in_rollback_journal_mode(gen_tiny: tuple[Path, dict[str, int]]) -> None:
    db = _connect(gen_tiny[0])
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


# Pivot tables are made by people using the app: a new world holds none.
_MADE_IN_THE_APP = {"sheets_pivot"}


def test_tiny_tables_are_filled(gen_tiny: tuple[Path, dict[str, int]]) -> None:
    empty = sorted(table for table, count in gen_tiny[1].items() if count == 0)
    assert empty == sorted(_MADE_IN_THE_APP)


def test_generator_source_never_reads_the_wall_clock() -> None:
    pattern = re.compile(r"datetime\.now\(|datetime\.utcnow\(|date\.today\(|time\.time\(")
    offenders = [
        f"{path.name}:{n}"
        for path in sorted(GENERATOR_DIR.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []


@pytest.mark.slow
def test_small_world_counts_are_within_20_percent_of_targets(
    gen_small: tuple[Path, dict[str, int]],
) -> None:
    counts = gen_small[1]
    off = {
        table: (counts[table], target)
        for table, target in TARGETS_SMALL.items()
        if not 0.8 * target <= counts[table] <= 1.2 * target
    }
    assert off == {}


# Integrity ------------------------------------------------------------------------------


def test_foreign_keys_and_integrity_hold(gen_db: sqlite3.Connection) -> None:
    assert gen_db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert gen_db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_world_meta_describes_the_world(gen_tiny: tuple[Path, dict[str, int]]) -> None:
    db = _connect(gen_tiny[0])
    rows = db.execute("SELECT * FROM world_meta").fetchall()
    assert len(rows) == 1
    meta = rows[0]
    assert (meta["id"], meta["schema_version"], meta["seed"], meta["scale"]) == (
        1, SCHEMA_VERSION, 7, "tiny",
    )  # fmt: skip
    now = datetime.fromisoformat(meta["now"])
    assert date(2025, 9, 1) <= now.date() <= date(2026, 6, 30)
    assert now.weekday() < 5 and (now.hour, now.minute) == (14, 30)
    assert meta["clock_ticks"] == 0 and meta["currency"] == "USD"
    slug = re.sub(r"[^a-z0-9]+", "-", meta["company_name"].lower()).strip("-")
    assert meta["company_domain"] == f"{slug}.com"
    hq = db.execute("SELECT timezone FROM people_office WHERE id = 1").fetchone()[0]
    assert meta["timezone"] == hq


def test_no_generated_time_is_after_now_except_plans(gen_db: sqlite3.Connection) -> None:
    now = _now(gen_db).isoformat(sep=" ")
    for table, column in [
        ("chat_message", "created_at"),
        ("chat_reaction", "created_at"),
        ("chat_membership", "joined_at"),
        ("crm_account", "created_at"),
        ("crm_opportunity", "updated_at"),
        ("booking_reservation", "created_at"),
        ("booking_reservation", "cancelled_at"),
        ("sheets_workbook", "updated_at"),
        ("people_employee", "hire_date"),
    ]:
        late = gen_db.execute(f"SELECT count(*) FROM {table} WHERE {column} > ?", (now,)).fetchone()
        assert late[0] == 0, f"{table}.{column}"


# People ---------------------------------------------------------------------------------


def test_employee_one_is_the_ceo_and_the_manager_tree_is_a_tree(gen_db: sqlite3.Connection) -> None:
    employees = {r["id"]: r for r in gen_db.execute("SELECT * FROM people_employee")}
    ceo = employees[1]
    assert ceo["title"] == "Chief Executive Officer" and ceo["role"] == "admin"
    assert ceo["manager_id"] is None
    assert [e for e in employees.values() if e["manager_id"] is None] == [ceo]
    for emp in employees.values():
        seen, boss = set(), emp["manager_id"]
        while boss is not None:
            assert boss not in seen, f"cycle above {emp['id']}"
            seen.add(boss)
            boss = employees[boss]["manager_id"]
    bosses = {e["manager_id"] for e in employees.values()} - {None, 1}
    assert all(employees[b]["role"] == "manager" for b in bosses)
    assert any(e["role"] == "admin" for e in employees.values() if e["id"] != 1)
    assert any(not e["is_active"] for e in employees.values())


def test_employee_emails_are_first_last_at_company_domain_and_unique(
    gen_db: sqlite3.Connection,
) -> None:
    domain = gen_db.execute("SELECT company_domain FROM world_meta").fetchone()[0]
    emails = [r[0] for r in gen_db.execute("SELECT email FROM people_employee")]
    assert len(emails) == len(set(emails))
    assert all(re.fullmatch(rf"[a-z]+\.[a-z]+\d*@{re.escape(domain)}", e) for e in emails)


def test_employees_sign_in_with_the_demo_password(gen_tiny: tuple[Path, dict[str, int]]) -> None:
    db = _connect(gen_tiny[0])
    for emp_id, encoded in db.execute("SELECT id, password_hash FROM people_employee LIMIT 5"):
        assert f"$7-{emp_id}$" in encoded
        assert check_password(DEMO_PASSWORD, encoded)


def test_offices_are_in_real_time_zones(gen_db: sqlite3.Connection) -> None:
    from zoneinfo import available_timezones

    zones = available_timezones()
    if not zones:
        pytest.skip("no tz database on this machine")
    for (tz,) in gen_db.execute("SELECT timezone FROM people_office"):
        assert tz in zones


# Text references ------------------------------------------------------------------------


def test_every_textref_resolves_to_a_row_named_by_its_surface(gen_db: sqlite3.Connection) -> None:
    refs = gen_db.execute("SELECT * FROM world_textref").fetchall()
    assert refs
    for ref in refs:
        source = gen_db.execute(
            f'SELECT "{ref["source_column"]}" FROM "{ref["source_table"]}" WHERE id = ?',
            (ref["source_id"],),
        ).fetchone()
        assert source is not None, dict(ref)
        assert ref["surface"] and ref["surface"] in source[0], dict(ref)
        name = gen_db.execute(
            f'SELECT {TARGET_NAME[ref["target_table"]]} FROM "{ref["target_table"]}" WHERE id = ?',
            (ref["target_id"],),
        ).fetchone()
        assert name is not None and name[0] == ref["surface"], dict(ref)


def test_textrefs_cover_each_kind_of_generated_text(gen_db: sqlite3.Connection) -> None:
    pairs = {
        (r[0], r[1])
        for r in gen_db.execute("SELECT DISTINCT source_table, target_table FROM world_textref")
    }
    for pair in [
        ("chat_message", "crm_opportunity"),
        ("chat_message", "people_employee"),
        ("chat_message", "booking_property"),
        ("chat_message", "crm_account"),
        ("crm_note", "crm_contact"),
        ("crm_activity", "crm_opportunity"),
        ("booking_reservation", "crm_account"),
        ("sheets_cell", "crm_opportunity"),
        ("sheets_cell", "people_employee"),
    ]:
        assert pair in pairs, pair
    topics = gen_db.execute("SELECT count(*) FROM chat_channel WHERE topic LIKE '%{%'").fetchone()
    assert topics[0] == 0


def test_customer_trips_name_their_account_in_the_purpose(gen_db: sqlite3.Connection) -> None:
    rows = gen_db.execute(
        "SELECT r.purpose, a.name FROM booking_reservation r "
        "JOIN crm_account a ON a.id = r.account_id"
    ).fetchall()
    assert rows
    assert all(name in purpose for purpose, name in rows)


# Mess -----------------------------------------------------------------------------------


def _oddities(db: sqlite3.Connection, kind: str) -> list[sqlite3.Row]:
    return db.execute("SELECT * FROM world_oddity WHERE kind = ?", (kind,)).fetchall()


def _minimum(db: sqlite3.Connection, small: int) -> int:
    scale = db.execute("SELECT scale FROM world_meta").fetchone()[0]
    return small if scale == "small" else 1


def test_duplicate_contacts_are_the_same_person_at_the_same_account_the_crm_can_match(
    gen_db: sqlite3.Connection,
) -> None:
    rows = _oddities(gen_db, "duplicate_contact")
    assert len(rows) >= _minimum(gen_db, 20)
    for odd in rows:
        assert (odd["row_table"], odd["other_table"]) == ("crm_contact", "crm_contact")
        dup, orig = (
            gen_db.execute("SELECT * FROM crm_contact WHERE id = ?", (i,)).fetchone()
            for i in (odd["row_id"], odd["other_id"])
        )
        assert dup["account_id"] == orig["account_id"] is not None
        a = f"{dup['first_name']} {dup['last_name']}"
        b = f"{orig['first_name']} {orig['last_name']}"
        assert a != b
        same_email = (dup["email"] or "").lower() == (orig["email"] or "").lower() != ""
        assert same_email or names_alike(a.lower(), b.lower()), (a, b)
        assert (orig["created_at"], orig["id"]) < (dup["created_at"], dup["id"])
        assert odd["description"]


def test_duplicate_accounts_are_the_same_name_typed_differently(gen_db: sqlite3.Connection) -> None:
    def core(name: str) -> list[str]:
        words = re.sub(r"[.,]", "", name.lower().replace("&", "and")).split()
        return [w for w in words if w not in _COMPANY_SUFFIXES]

    rows = _oddities(gen_db, "duplicate_account")
    assert len(rows) >= _minimum(gen_db, 3)
    for odd in rows:
        dup, orig = (
            gen_db.execute("SELECT * FROM crm_account WHERE id = ?", (i,)).fetchone()
            for i in (odd["row_id"], odd["other_id"])
        )
        assert dup["name"] != orig["name"]
        assert core(dup["name"]) == core(orig["name"]), (dup["name"], orig["name"])
        assert dup["billing_city"] == orig["billing_city"]


def test_phone_conflicts_state_a_different_number_in_chat(gen_db: sqlite3.Connection) -> None:
    rows = _oddities(gen_db, "phone_conflict")
    assert len(rows) >= _minimum(gen_db, 5)
    for odd in rows:
        assert (odd["row_table"], odd["other_table"]) == ("chat_message", "crm_contact")
        detail = json.loads(odd["detail"])
        body = gen_db.execute(
            "SELECT body FROM chat_message WHERE id = ?", (odd["row_id"],)
        ).fetchone()[0]
        contact = gen_db.execute(
            "SELECT * FROM crm_contact WHERE id = ?", (odd["other_id"],)
        ).fetchone()
        assert detail["crm_phone"] == contact["phone"] is not None
        assert detail["chat_phone"] != detail["crm_phone"]
        assert detail["chat_phone"] in body and contact["phone"] not in body
        assert f"{contact['first_name']} {contact['last_name']}" in body


def test_stale_deals_are_open_with_a_past_close_date(gen_db: sqlite3.Connection) -> None:
    today = _now(gen_db).date().isoformat()
    rows = _oddities(gen_db, "stale_deal")
    assert len(rows) >= _minimum(gen_db, 30)
    for odd in rows:
        opp = gen_db.execute(
            "SELECT * FROM crm_opportunity WHERE id = ?", (odd["row_id"],)
        ).fetchone()
        assert opp["stage"] not in CLOSED_STAGES
        assert opp["close_date"] < today


def test_every_stale_deal_is_recorded(gen_db: sqlite3.Connection) -> None:
    today = _now(gen_db).date().isoformat()
    stale = {
        r[0]
        for r in gen_db.execute(
            "SELECT id FROM crm_opportunity WHERE close_date < ? AND stage NOT IN (?, ?)",
            (today, *CLOSED_STAGES),
        )
    }
    recorded = {r["row_id"] for r in _oddities(gen_db, "stale_deal")}
    assert stale == recorded


def test_incomplete_records_miss_exactly_what_they_say(gen_db: sqlite3.Connection) -> None:
    rows = _oddities(gen_db, "incomplete_record")
    assert len(rows) >= _minimum(gen_db, 40)
    assert {r["row_table"] for r in rows} >= {"crm_contact", "crm_account"}
    for odd in rows:
        missing = json.loads(odd["detail"])["missing"]
        assert missing
        row = gen_db.execute(
            f'SELECT * FROM "{odd["row_table"]}" WHERE id = ?', (odd["row_id"],)
        ).fetchone()
        for column in missing:
            assert row[column] in (None, ""), (odd["row_table"], odd["row_id"], column)


# CRM ------------------------------------------------------------------------------------


def test_opportunities_are_named_after_their_account_with_valid_stages(
    gen_db: sqlite3.Connection,
) -> None:
    now = _now(gen_db).date().isoformat()
    stages = dict(STAGES)
    rows = gen_db.execute(
        "SELECT o.*, a.name AS account FROM crm_opportunity o JOIN crm_account a ON a.id = o.account_id"
    ).fetchall()
    for opp in rows:
        assert opp["name"].startswith(f"{opp['account']} — ")
        assert re.search(r" (new business|expansion|renewal)( \d+)?$", opp["name"]), opp["name"]
        assert opp["stage"] in stages
        if opp["stage"] in CLOSED_STAGES:
            assert opp["close_date"] < now and opp["probability"] == stages[opp["stage"]]
    names = [o["name"] for o in rows]
    assert len(names) == len(set(names))


def test_crm_owners_are_sales_or_customer_success(gen_db: sqlite3.Connection) -> None:
    departments = {
        r[0]
        for r in gen_db.execute(
            "SELECT DISTINCT t.department FROM crm_opportunity o "
            "JOIN people_employee e ON e.id = o.owner_id JOIN people_team t ON t.id = e.team_id"
        )
    }
    assert departments <= {"Sales", "Customer Success"}


# Booking --------------------------------------------------------------------------------


def test_reservations_never_exceed_a_resources_units(gen_db: sqlite3.Connection) -> None:
    resources = {r["id"]: r for r in gen_db.execute("SELECT * FROM booking_resource")}
    windows = defaultdict(list)
    for w in gen_db.execute("SELECT * FROM booking_availability"):
        windows[w["resource_id"]].append(
            (date.fromisoformat(w["start_date"]), date.fromisoformat(w["end_date"]), w["units"])
        )

    def units(resource_id: int, day: date) -> int:
        limit = resources[resource_id]["units"]
        for start, end, cap in windows[resource_id]:
            if start <= day <= end:
                limit = min(limit, cap)
        return limit

    nights: dict[tuple[int, date], int] = defaultdict(int)
    slots: dict[int, list[tuple[datetime, datetime]]] = defaultdict(list)
    for res in gen_db.execute(
        "SELECT * FROM booking_reservation WHERE status IN ('confirmed', 'pending_approval')"
    ):
        start = datetime.fromisoformat(res["start_at"])
        end = datetime.fromisoformat(res["end_at"])
        if resources[res["resource_id"]]["kind"] in ("hotel_room", "home"):
            day = start.date()
            while day < end.date():
                nights[res["resource_id"], day] += 1
                assert nights[res["resource_id"], day] <= units(res["resource_id"], day)
                day += timedelta(days=1)
        else:
            assert units(res["resource_id"], start.date()) >= 1
            for s, e in slots[res["resource_id"]]:
                assert end <= s or start >= e, res["id"]
            slots[res["resource_id"]].append((start, end))


def test_stays_run_midnight_to_midnight_and_charge_their_quote(gen_db: sqlite3.Connection) -> None:
    rows = gen_db.execute(
        "SELECT r.* FROM booking_reservation r "
        "JOIN booking_resource s ON s.id = r.resource_id WHERE s.kind IN ('hotel_room', 'home')"
    ).fetchall()
    assert rows
    for res in rows:
        start, end = (datetime.fromisoformat(res[c]) for c in ("start_at", "end_at"))
        assert start.time() == end.time() == datetime.min.time()
        price = json.loads(res["price_json"])
        assert len(price["nights"]) == (end - start).days
        assert sum(n["cents"] for n in price["nights"]) == price["subtotal"]
        parts = price["subtotal"] - price["discount"] + price["cleaning"] + price["service"]
        assert res["total_cents"] == price["total"] == parts + price["taxes"]


def test_reservation_statuses_are_consistent(gen_db: sqlite3.Connection) -> None:
    statuses = {r[0] for r in gen_db.execute("SELECT DISTINCT status FROM booking_reservation")}
    assert {"confirmed", "pending_approval", "cancelled"} <= statuses
    for res in gen_db.execute("SELECT * FROM booking_reservation"):
        assert (res["cancelled_at"] is not None) == (res["status"] == "cancelled")
        assert res["created_at"] <= (res["cancelled_at"] or res["created_at"])
    for res in gen_db.execute(
        "SELECT r.*, e.manager_id FROM booking_reservation r "
        "JOIN people_employee e ON e.id = r.guest_id WHERE r.status = 'pending_approval'"
    ):
        approvals = gen_db.execute(
            "SELECT * FROM booking_approval WHERE reservation_id = ?", (res["id"],)
        ).fetchall()
        assert [(a["status"], a["approver_id"]) for a in approvals] == [
            ("pending", res["manager_id"])
        ]


# Sheets ---------------------------------------------------------------------------------


def _sheet_cells(db: sqlite3.Connection, sheet_id: int) -> dict[tuple[int, int], sqlite3.Row]:
    return {
        (c["row"], c["col"]): c
        for c in db.execute("SELECT * FROM sheets_cell WHERE sheet_id = ?", (sheet_id,))
    }


def _col(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


def _evaluate(formula: str, cells: dict[tuple[int, int], sqlite3.Row]) -> float:
    """A second, independent evaluator: rewrite the formula into Python and run it."""

    def number(row: int, col: int) -> float:
        cell = cells.get((row, col))
        return cell["value_num"] if cell is not None and cell["value_type"] == "number" else None

    def coerced(row: int, col: int) -> float:
        """A single reference in arithmetic: digits stored as text count as their number."""
        cell = cells.get((row, col))
        if cell is not None and cell["value_type"] == "text":
            return float(cell["value_text"])
        return number(row, col) or 0.0

    def numbers(match: re.Match[str]) -> str:
        c1, r1, c2, r2 = _col(match[1]), int(match[2]), _col(match[3]), int(match[4])
        values = [number(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
        return "[" + ",".join(repr(v) for v in values if v is not None) + "]"

    expr = formula[1:]
    expr = re.sub(r"([A-Z]+)(\d+):([A-Z]+)(\d+)", numbers, expr)
    expr = re.sub(r"\b([A-Z]+)(\d+)\b", lambda m: repr(coerced(int(m[2]), _col(m[1]))), expr)
    expr = re.sub(r"SUM\((\[[^\]]*\])\)", r"fsum_left(\1)", expr)
    expr = re.sub(r"AVERAGE\((\[[^\]]*\])\)", r"(fsum_left(\1)/len(\1))", expr)
    expr = re.sub(r"COUNT\((\[[^\]]*\])\)", r"float(len(\1))", expr)

    def fsum_left(values: list[float]) -> float:
        total = 0.0
        for v in values:
            total += v
        return total

    return eval(expr, {"__builtins__": {}, "fsum_left": fsum_left, "len": len, "float": float})


def test_formula_cells_hold_exactly_their_computed_value(gen_db: sqlite3.Connection) -> None:
    formulas = 0
    for (sheet_id,) in gen_db.execute("SELECT id FROM sheets_sheet").fetchall():
        cells = _sheet_cells(gen_db, sheet_id)
        for cell in cells.values():
            raw = cell["raw"]
            if raw.startswith("=") and cell["value_type"] == "error":
                # A planted broken reference, or a formula reading one.
                refs = re.findall(r"\b([A-Z]+)(\d+)\b", raw)
                read = [cells.get((int(r), _col(c))) for c, r in refs]
                assert "#REF!" in raw or any(x and x["value_type"] == "error" for x in read)
                assert cell["value_text"] == "#REF!"
            elif raw.startswith("="):
                formulas += 1
                assert cell["value_type"] == "number"
                assert cell["value_num"] == _evaluate(raw, cells), raw
            elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
                serial = (date.fromisoformat(raw) - date(1899, 12, 30)).days
                assert (cell["value_type"], cell["value_num"]) == ("number", serial)
                assert cell["number_format"] == "yyyy-mm-dd"
            elif cell["value_type"] == "number":
                assert float(raw) == cell["value_num"]
            else:
                assert cell["value_text"] == raw.removeprefix("'")
    assert formulas


def test_sheet_mess_is_planted_and_recorded(gen_db: sqlite3.Connection) -> None:
    odd = {
        r["kind"]: r
        for r in gen_db.execute(
            "SELECT * FROM world_oddity WHERE kind LIKE 'sheet_%' ORDER BY id"
        ).fetchall()
    }
    kinds = {"sheet_text_number", "sheet_duplicate_row", "sheet_ref_error"}
    workbooks = gen_db.execute("SELECT count(*) FROM sheets_workbook").fetchone()[0]
    # A tiny world has too few workbooks for every kind; from ten workbooks on, all are there.
    assert set(odd) == kinds if workbooks >= 10 else set(odd) <= kinds and odd
    odd = {k: v for k, v in odd.items()} | {k: None for k in kinds - set(odd)}
    cell = lambda i: gen_db.execute("SELECT * FROM sheets_cell WHERE id = ?", (i,)).fetchone()  # noqa: E731
    if odd["sheet_text_number"]:
        text = cell(odd["sheet_text_number"]["row_id"])
        assert text["raw"].startswith("'") and text["value_type"] == "text"
    if odd["sheet_duplicate_row"]:
        copy = cell(odd["sheet_duplicate_row"]["row_id"])
        original = cell(odd["sheet_duplicate_row"]["other_id"])
        assert copy["raw"] == original["raw"] and copy["row"] != original["row"]
    if odd["sheet_ref_error"]:
        broken = cell(odd["sheet_ref_error"]["row_id"])
        assert "#REF!" in broken["raw"] and broken["value_text"] == "#REF!"


def test_pipeline_totals_equal_the_crm_amounts_they_list(gen_db: sqlite3.Connection) -> None:
    sheets = gen_db.execute(
        "SELECT s.id FROM sheets_sheet s JOIN sheets_workbook w ON w.id = s.workbook_id "
        "WHERE s.name = 'Pipeline'"
    ).fetchall()
    assert sheets
    amounts = {
        r[0]: (r[1], r[2])
        for r in gen_db.execute("SELECT name, amount, probability FROM crm_opportunity")
    }
    planted = {
        (r["sheet_id"], r["row"], r["col"])
        for r in gen_db.execute(
            "SELECT c.sheet_id, c.row, c.col FROM world_oddity o JOIN sheets_cell c "
            "ON c.id = o.row_id WHERE o.kind LIKE 'sheet_%'"
        )
    }
    for (sheet_id,) in sheets:
        cells = _sheet_cells(gen_db, sheet_id)
        total_row = next(r for (r, c), cell in cells.items() if c == 1 and cell["raw"] == "Total")
        listed = {r: cells[r, 1]["raw"] for r in range(2, total_row)}
        assert all(name in amounts for name in listed.values())
        # The totals count what a spreadsheet counts: a pasted-twice row twice, text not at all.
        as_text = {r for r in listed if (sheet_id, r, 5) in planted}
        assert cells[total_row, 5]["value_num"] == sum(
            amounts[n][0] for r, n in listed.items() if r not in as_text
        )
        assert cells[total_row, 8]["value_num"] == sum(
            amounts[n][0] * amounts[n][1] / 100 for n in listed.values()
        )
        for r, name in listed.items():
            cell = cells[r, 5]
            assert float(cell["value_num"] or cell["value_text"]) == amounts[name][0]


def test_travel_sheets_list_each_stays_nights_and_average_rate(gen_db: sqlite3.Connection) -> None:
    sheets = gen_db.execute("SELECT id FROM sheets_sheet WHERE name = 'Trips'").fetchall()
    assert sheets
    prices = {
        r[0]: json.loads(r[1])
        for r in gen_db.execute(
            "SELECT id, price_json FROM booking_reservation WHERE price_json != ''"
        )
    }
    for (sheet_id,) in sheets:
        cells = _sheet_cells(gen_db, sheet_id)
        total_row = next(r for (r, c), cell in cells.items() if c == 1 and cell["raw"] == "Total")
        listed = {r: prices[int(cells[r, 1]["raw"])] for r in range(2, total_row)}
        for r, price in listed.items():
            nights = len(price["nights"])
            rate = float(cells[r, 7]["value_num"] or cells[r, 7]["value_text"])
            assert cells[r, 6]["value_num"] == nights
            # The quote's average nightly rate, to the cent, half up.
            assert round(rate * 100) == (2 * price["subtotal"] + nights) // (2 * nights)
        # The Cost column is Nights x Nightly Rate: the nights' subtotal to within a cent each.
        cost = cells[total_row, 8]["value_num"]
        subtotal = sum(p["subtotal"] for p in listed.values()) / 100
        assert abs(cost - subtotal) <= 0.01 * sum(len(p["nights"]) for p in listed.values())
        months = [cell["value_num"] for (r, c), cell in cells.items() if c == 12 and r > 1]
        assert sum(months) == pytest.approx(cost)


def test_workbooks_are_shared_with_colleagues_not_their_owner(gen_db: sqlite3.Connection) -> None:
    assert gen_db.execute("SELECT count(*) FROM sheets_share").fetchone()[0] > 0
    clash = gen_db.execute(
        "SELECT count(*) FROM sheets_share s JOIN sheets_workbook w ON w.id = s.workbook_id "
        "WHERE s.employee_id = w.owner_id"
    ).fetchone()[0]
    assert clash == 0


# Chat -----------------------------------------------------------------------------------


def test_message_authors_are_members_of_the_channel(gen_db: sqlite3.Connection) -> None:
    strays = gen_db.execute(
        "SELECT m.id FROM chat_message m LEFT JOIN chat_membership s "
        "ON s.channel_id = m.channel_id AND s.employee_id = m.author_id WHERE s.id IS NULL"
    ).fetchall()
    assert strays == []


def test_members_join_before_they_post(gen_db: sqlite3.Connection) -> None:
    late = gen_db.execute(
        "SELECT m.id FROM chat_message m JOIN chat_membership s "
        "ON s.channel_id = m.channel_id AND s.employee_id = m.author_id "
        "WHERE s.joined_at > m.created_at"
    ).fetchall()
    assert late == []


def test_message_ids_increase_with_time_and_replies_follow_parents(
    gen_db: sqlite3.Connection,
) -> None:
    last: dict[int, str] = {}
    for msg in gen_db.execute("SELECT * FROM chat_message ORDER BY id"):
        assert msg["created_at"] > last.get(msg["channel_id"], ""), msg["id"]
        last[msg["channel_id"]] = msg["created_at"]
    bad = gen_db.execute(
        "SELECT r.id FROM chat_message r JOIN chat_message p ON p.id = r.thread_parent_id "
        "WHERE p.id >= r.id OR p.channel_id != r.channel_id OR p.thread_parent_id IS NOT NULL"
    ).fetchall()
    assert bad == []
    assert gen_db.execute("SELECT count(*) FROM chat_message WHERE also_in_channel").fetchone()[
        0
    ] >= _minimum(gen_db, 2)


def test_channel_kinds_archives_and_quiet_channels_exist(gen_db: sqlite3.Connection) -> None:
    now = _now(gen_db)
    kinds = {r[0] for r in gen_db.execute("SELECT DISTINCT kind FROM chat_channel")}
    assert kinds == {"channel", "dm", "group_dm"}
    assert gen_db.execute(
        "SELECT count(*) FROM chat_channel WHERE is_private AND kind = 'channel'"
    ).fetchone()[0]
    assert gen_db.execute(
        "SELECT count(*) FROM chat_channel WHERE archived_at IS NOT NULL"
    ).fetchone()[0]
    quiet = gen_db.execute(
        "SELECT count(*) FROM chat_channel c WHERE (SELECT max(created_at) FROM chat_message m "
        "WHERE m.channel_id = c.id) < ?",
        ((now - timedelta(days=90)).isoformat(sep=" "),),
    ).fetchone()[0]
    assert quiet >= 1
    for name, kind in gen_db.execute("SELECT name, kind FROM chat_channel WHERE kind != 'channel'"):
        members = sorted(
            r[0]
            for r in gen_db.execute(
                "SELECT employee_id FROM chat_membership s JOIN chat_channel c ON c.id = s.channel_id "
                "WHERE c.name = ?",
                (name,),
            )
        )
        prefix = "dm" if kind == "dm" else "mpdm"
        assert name == f"{prefix}-" + "-".join(str(m) for m in members)


def test_mentions_name_the_member_in_the_message(gen_db: sqlite3.Connection) -> None:
    rows = gen_db.execute(
        "SELECT m.body, e.display_name, s.id AS member FROM chat_mention x "
        "JOIN chat_message m ON m.id = x.message_id JOIN people_employee e ON e.id = x.employee_id "
        "LEFT JOIN chat_membership s ON s.channel_id = m.channel_id AND s.employee_id = e.id"
    ).fetchall()
    assert rows
    for row in rows:
        assert f"@{row['display_name']}" in row["body"]
        assert row["member"] is not None


def test_some_channels_have_unread_messages_and_unread_mentions(gen_db: sqlite3.Connection) -> None:
    unread = gen_db.execute(
        "SELECT count(*) FROM chat_membership s WHERE EXISTS (SELECT 1 FROM chat_message m "
        "WHERE m.channel_id = s.channel_id AND m.id > coalesce(s.last_read_message_id, 0))"
    ).fetchone()[0]
    assert unread > 0
    unread_mentions = gen_db.execute(
        "SELECT count(*) FROM chat_mention x JOIN chat_message m ON m.id = x.message_id "
        "JOIN chat_membership s ON s.channel_id = m.channel_id AND s.employee_id = x.employee_id "
        "WHERE m.id > coalesce(s.last_read_message_id, 0)"
    ).fetchone()[0]
    assert unread_mentions > 0
    foreign = gen_db.execute(
        "SELECT count(*) FROM chat_membership s JOIN chat_message m ON m.id = s.last_read_message_id "
        "WHERE m.channel_id != s.channel_id"
    ).fetchone()[0]
    assert foreign == 0


def test_reactions_pins_saves_and_attachments_are_well_formed(gen_db: sqlite3.Connection) -> None:
    for table in ("chat_reaction", "chat_pin", "chat_saved", "chat_attachment"):
        assert gen_db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, table
    assert (
        gen_db.execute(
            "SELECT count(*) FROM chat_pin p JOIN chat_message m ON m.id = p.message_id "
            "WHERE m.channel_id != p.channel_id"
        ).fetchone()[0]
        == 0
    )
    for att in gen_db.execute("SELECT * FROM chat_attachment"):
        assert att["size"] == len(att["data"])
        assert att["content_type"] in ("text/csv", "text/plain")
        assert att["data"].decode()


def test_deal_messages_quote_the_deal_amount_and_stage(gen_db: sqlite3.Connection) -> None:
    rows = gen_db.execute(
        "SELECT m.body, o.amount, o.stage FROM chat_message m JOIN world_textref t "
        "ON t.source_table = 'chat_message' AND t.source_id = m.id "
        "AND t.target_table = 'crm_opportunity' JOIN crm_opportunity o ON o.id = t.target_id "
        "WHERE m.body LIKE 'Just moved%'"
    ).fetchall()
    for body, amount, stage in rows:
        assert f"${amount:,}" in body and stage in body

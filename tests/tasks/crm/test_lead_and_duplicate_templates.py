"""Templates about leads and duplicate records (converting a lead to a new or an existing
account, qualifying a lead, merging duplicate contacts or accounts, importing contacts from
a CSV file): instances on the small seed-0 world and the verifiers on hand-made diffs.
"""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from officegym.apps.crm import csvio, service
from officegym.apps.crm.duplicates import company_key, contact_matches, duplicate_groups
from officegym.seed_data.schema import Employee
from officegym.tasks import registry
from officegym.tasks.crm._conversion import ContactIndex, account_index, unconverted_leads
from officegym.tasks.crm.qualify_lead import TARGETS
from tests.tasks.episodes import grade, one, update

IDS = (
    "crm.convert_lead_existing_account",
    "crm.convert_lead_new",
    "crm.merge_duplicate_contacts",
    "crm.merge_duplicate_accounts",
    "crm.import_contacts_csv",
    "crm.qualify_lead",
)
SEEDS = range(30)
STAMP = "2025-09-17 14:30:05"


def record(world, table, pk):
    columns = [c[1] for c in world.execute(f"PRAGMA table_info({table})")]
    return dict(zip(columns, one(world, f"SELECT * FROM {table} WHERE id = ?", pk), strict=True))


def user_id(world, email):
    return one(world, "SELECT id FROM people_employee WHERE email = ?", email)[0]


def may_edit(world, email, owner_id) -> bool:
    """The app's edit rule: admins anything, managers their own and their reports', members
    their own."""
    actor, role = one(world, "SELECT id, role FROM people_employee WHERE email = ?", email)
    if role == "admin" or actor == owner_id:
        return True
    boss = one(world, "SELECT manager_id FROM people_employee WHERE id = ?", owner_id)[0]
    while role == "manager" and boss is not None:
        if boss == actor:
            return True
        boss = one(world, "SELECT manager_id FROM people_employee WHERE id = ?", boss)[0]
    return False


def feasible(instances, template_id):
    return [t.params for t in instances[template_id] if t.params.get("feasible", True)]


@pytest.mark.parametrize("template_id", IDS)
def test_the_same_seed_gives_the_same_goal_params_and_files(golden, instances, template_id):
    for seed in (0, 7, 23):
        again = registry.get(template_id).instance(golden, seed)
        first = instances[template_id][seed]
        assert (again.goal, dict(again.params)) == (first.goal, dict(first.params))
        assert again.files == first.files


@pytest.mark.parametrize(
    "template_id", ["crm.convert_lead_new", "crm.qualify_lead"], ids=["convert", "qualify"]
)
def test_about_one_instance_in_six_is_impossible(instances, template_id):
    impossible = sum(t.params["feasible"] is False for t in instances[template_id])
    assert 2 <= impossible <= 10


# -- lead conversion -------------------------------------------------------------------------


def lead_converted(world, params, account_id, contact_pk=9001, deal_pk=None):
    lead = record(world, "crm_lead", params["lead_id"])
    changes = {
        "status": (lead["status"], "Converted"),
        "converted_account_id": (None, account_id),
        "converted_contact_id": (None, contact_pk),
        "updated_at": (lead["updated_at"], STAMP),
    }
    if deal_pk is not None:
        changes["converted_opportunity_id"] = (None, deal_pk)
    contact = {
        "id": contact_pk,
        "account_id": account_id,
        "first_name": params["first_name"],
        "last_name": params["last_name"],
        "title": params["title"],
        "email": params["email"],
        "phone": params["phone"],
        "owner_id": 1,
    }
    tables = {
        "crm_lead": {"updated": {params["lead_id"]: update(lead, **changes)}},
        "crm_contact": {"inserted": {contact_pk: contact}},
        "crm_lead_history": {"inserted": {8001: {"id": 8001, "lead_id": params["lead_id"]}}},
    }
    if deal_pk is not None:
        tables["crm_opportunity"] = {
            "inserted": {
                deal_pk: {
                    "id": deal_pk,
                    "name": params["opportunity"],
                    "account_id": account_id,
                    "primary_contact_id": contact_pk,
                    "lead_source": params["source"],
                }
            }
        }
    return tables


def new_account(params, pk=401):
    row = {"id": pk, "name": params["company"], "phone": params["phone"]}
    return {"crm_account": {"inserted": {pk: row}}}


def test_the_contact_lookalike_check_agrees_with_the_convert_page(golden, world):
    contacts, accounts = ContactIndex.of(world), account_index(world)
    engine = create_engine(f"sqlite:///file:{golden}?mode=ro&uri=true")
    clashes = 0
    with Session(engine) as session:
        for lead in unconverted_leads(world):
            found = accounts.get(company_key(lead["company"]), [])
            account_id = found[0][0] if found else None
            app = contact_matches(
                session, lead["first_name"], lead["last_name"], lead["email"], account_id
            )
            assert contacts.clash(lead, account_id) == bool(app), lead
            clashes += bool(app)
    engine.dispose()
    assert clashes


def test_a_lead_for_an_existing_account_reads_like_that_account(world, instances):
    tid = "crm.convert_lead_existing_account"
    seen = set()
    for task in instances[tid]:
        p = task.params
        lead = record(world, "crm_lead", p["lead_id"])
        assert (
            lead["status"] != "Converted"
            and f"{lead['first_name']} {lead['last_name']}" == p["lead"]
        )
        name = one(world, "SELECT name FROM crm_account WHERE id = ?", p["account_id"])[0]
        assert name == p["account"] and company_key(name) == company_key(lead["company"])
        assert p["lead"] in task.goal and p["account"] in task.goal
        assert may_edit(world, p["user"], lead["owner_id"])
        if p["opportunity"]:
            assert f'"{p["opportunity"]}"' in task.goal
        seen.add(p["lead_id"])
    assert len(seen) >= 2


def test_converting_into_the_existing_account_passes_and_a_new_account_fails(world, instances):
    tid = "crm.convert_lead_existing_account"
    with_deal = next(p for p in feasible(instances, tid) if p["opportunity"])
    without = next(p for p in feasible(instances, tid) if not p["opportunity"])
    good = lead_converted(world, with_deal, with_deal["account_id"], deal_pk=7001)
    verdict = grade(tid, with_deal, good)
    assert verdict.success and verdict.score == 1.0
    assert grade(tid, without, lead_converted(world, without, without["account_id"])).success
    assert grade(tid, with_deal).score == 0.0
    # A duplicate account made anyway, the deal left out or made unasked, all fail.
    duplicate = {**lead_converted(world, with_deal, 401, deal_pk=7001), **new_account(with_deal)}
    assert not grade(tid, with_deal, duplicate).success
    assert not grade(
        tid, with_deal, lead_converted(world, with_deal, with_deal["account_id"])
    ).success
    unasked = lead_converted(world, without, without["account_id"], deal_pk=7001)
    unasked["crm_opportunity"]["inserted"][7001]["name"] = "x"
    assert not grade(tid, without, unasked).success


def test_a_new_lead_has_no_account_or_contact_lookalike_and_an_old_one_is_converted(
    world, instances
):
    tid = "crm.convert_lead_new"
    for task in instances[tid]:
        p = task.params
        lead = record(world, "crm_lead", p["lead_id"])
        assert p["lead"] in task.goal and p["company"] in task.goal
        assert may_edit(world, p["user"], lead["owner_id"])
        if not p["feasible"]:
            assert lead["status"] == "Converted" and p["decoy"] is None
            continue
        assert lead["status"] != "Converted"
        keys = {company_key(n) for (n,) in world.execute("SELECT name FROM crm_account")}
        assert company_key(p["company"]) not in keys
        if p["decoy"]:
            other = one(
                world,
                "SELECT owner_id, status FROM crm_lead WHERE first_name || ' ' || last_name = ?",
                p["decoy"]["lead"],
            )
            assert other == (lead["owner_id"], other[1]) and other[1] != "Converted"


def test_a_new_account_conversion_passes_and_reusing_another_account_fails(world, instances):
    tid = "crm.convert_lead_new"
    params = next(p for p in feasible(instances, tid) if p["opportunity"])
    good = {**lead_converted(world, params, 401, deal_pk=7001), **new_account(params)}
    verdict = grade(tid, params, good)
    assert verdict.success and verdict.score == 1.0
    assert not grade(tid, params, lead_converted(world, params, 5, deal_pk=7001)).success
    assert not grade(tid, params, {**good, **new_account(params, 402)}).success
    impossible = next(t.params for t in instances[tid] if not t.params["feasible"])
    assert grade(tid, impossible, infeasible="already converted").success
    assert not grade(tid, impossible).success


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("crm_account", "phone", None),
        ("crm_contact", "title", None),
        ("crm_opportunity", "lead_source", None),
        ("crm_account", "website", "https://zz.example"),
        ("crm_contact", "mailing_city", "Springfield"),
        ("crm_opportunity", "next_step", "Call them"),
    ],
    ids=lambda v: str(v),
)
def test_a_conversion_keeps_what_the_product_copies_from_the_lead_and_nothing_more(
    world, instances, table, column, value
):
    """The product copies the lead's phone onto a new account, its title, email and phone onto
    the contact and its source onto the opportunity; dropping one of those, or filling in a
    column the conversion leaves blank, is not the conversion asked for."""
    tid = "crm.convert_lead_new"
    params = next(
        p for p in feasible(instances, tid) if p["opportunity"] and p["title"] and p["phone"]
    )
    good = {**lead_converted(world, params, 401, deal_pk=7001), **new_account(params)}
    assert grade(tid, params, good).success
    (row,) = good[table]["inserted"].values()
    row[column] = value
    assert not grade(tid, params, good).success


# -- merges ----------------------------------------------------------------------------------


def merge_diff(world, table, master, other, changes):
    kept = record(world, table, master)
    gone = record(world, table, other)
    diffs = {column: (kept[column], value) for column, value in changes.items()}
    diffs["updated_at"] = (kept["updated_at"], STAMP)
    return {
        table: {"updated": {master: update(kept, **diffs)}, "deleted": {other: gone}},
        f"{table}_history": {
            "inserted": {9500: {"id": 9500, f"{table[4:]}_id": master}},
            "deleted": {9501: {"id": 9501, f"{table[4:]}_id": other}},
        },
    }


@pytest.mark.parametrize(
    ("template_id", "table", "key"),
    [
        ("crm.merge_duplicate_contacts", "crm_contact", "contacts"),
        ("crm.merge_duplicate_accounts", "crm_account", "accounts"),
    ],
    ids=["contacts", "accounts"],
)
def test_a_planted_pair_is_one_duplicate_group_the_user_may_merge(
    golden, world, instances, template_id, table, key
):
    engine = create_engine(f"sqlite:///file:{golden}?mode=ro&uri=true")
    with Session(engine) as session:
        groups = {g.ids: g for g in duplicate_groups(session, key)}
    engine.dispose()
    pairs = set()
    for task in instances[template_id]:
        p = task.params
        group = groups[(p["original_id"], p["duplicate_id"])]
        assert group.records[0].title == p["original"]
        assert [g.records[0].title for g in groups.values()].count(p["original"]) == 1
        for side in ("original", "duplicate"):
            owner = one(world, f"SELECT owner_id FROM {table} WHERE id = ?", p[f"{side}_id"])[0]
            assert may_edit(world, p["user"], owner)
            assert p[side] in task.goal
        dup = record(world, table, p["duplicate_id"])
        for column, value in p["changes"].items():
            assert dup[column] == value != record(world, table, p["original_id"])[column]
        assert p["decoy"] == {"keep": "duplicate"}
        pairs.add(p["original_id"])
    assert len(pairs) >= 4


@pytest.mark.parametrize(
    ("template_id", "table"),
    [
        ("crm.merge_duplicate_contacts", "crm_contact"),
        ("crm.merge_duplicate_accounts", "crm_account"),
    ],
    ids=["contacts", "accounts"],
)
def test_merging_into_the_original_passes_and_near_misses_fail(
    world, instances, template_id, table
):
    params = next(p for p in feasible(instances, template_id) if p["changes"])
    master, other = params["original_id"], params["duplicate_id"]
    good = merge_diff(world, table, master, other, params["changes"])
    verdict = grade(template_id, params, good)
    assert verdict.success and verdict.score == 1.0
    assert grade(template_id, params).score == 0.0
    # The wrong record kept, a picked value left behind, or another field changed too.
    assert not grade(template_id, params, merge_diff(world, table, other, master, {})).success
    assert not grade(template_id, params, merge_diff(world, table, master, other, {})).success
    extra = (
        {**params["changes"], "owner_id": 3}
        if "owner_id" not in params["changes"]
        else {
            **params["changes"],
            "phone": "+1 555-0100",
        }
    )
    assert not grade(template_id, params, merge_diff(world, table, master, other, extra)).success
    unchanged = next(p for p in feasible(instances, template_id) if not p["changes"])
    plain = merge_diff(world, table, unchanged["original_id"], unchanged["duplicate_id"], {})
    assert grade(template_id, unchanged, plain).success


@pytest.mark.parametrize(
    ("template_id", "table"),
    [
        ("crm.merge_duplicate_contacts", "crm_contact"),
        ("crm.merge_duplicate_accounts", "crm_account"),
    ],
    ids=["contacts", "accounts"],
)
def test_setting_the_asked_values_without_merging_scores_zero(world, instances, template_id, table):
    params = next(p for p in feasible(instances, template_id) if p["changes"])
    master = record(world, table, params["original_id"])
    diffs = {column: (master[column], value) for column, value in params["changes"].items()}
    diffs["updated_at"] = (master["updated_at"], STAMP)
    edited = {table: {"updated": {master["id"]: update(master, **diffs)}}}
    verdict = grade(template_id, params, edited)
    assert not verdict.success and verdict.score == 0.0


# -- import ----------------------------------------------------------------------------------


def test_the_file_imports_exactly_the_contacts_expected(golden, world, instances):
    tid = "crm.import_contacts_csv"
    engine = create_engine(f"sqlite:///file:{golden}?mode=ro&uri=true")
    kinds = set()
    with Session(engine) as session:
        for task in instances[tid]:
            p = task.params
            data = task.files[p["file"]].decode("utf-8")
            assert p["file"] in task.goal and p["account"] in task.goal
            assert ("valid ones" in task.goal) == bool(p["bad"])
            table = csvio.read(data)
            mapping = csvio.guess_mapping(table.headers)
            for header, label in p["manual"].items():
                index = table.headers.index(header)
                assert index not in mapping
                mapping[index] = {"Email": "email", "Phone": "phone"}[label]
            actor = session.get(Employee, p["user_id"])
            results = service.plan_import(session, actor, table, mapping)
            good = [r.values for r in results if r.ok]
            assert len(results) - len(good) == (1 if p["bad"] else 0)
            assert 3 <= len(good) == len(p["contacts"]) <= 6
            for values, contact in zip(good, p["contacts"], strict=True):
                assert values["account_id"] == p["account_id"]
                assert {k: values.get(k) for k in contact} == contact
            kinds.add(p["bad"])
    engine.dispose()
    assert kinds == {None, "taken", "no_domain", "no_last_name"}
    rows = list(csv.reader(io.StringIO(data)))
    assert rows[0] == p["headers"]


def imported(params, skip=None):
    rows = {}
    for i, c in enumerate(params["contacts"]):
        pk = 1601 + i
        rows[pk] = {
            "id": pk,
            "account_id": params["account_id"],
            "owner_id": params["user_id"],
            **c,
        }
        if skip:
            rows[pk][skip] = None
    return {"crm_contact": {"inserted": rows}}


def test_the_import_passes_and_a_missing_column_or_extra_row_fails(instances):
    tid = "crm.import_contacts_csv"
    params = next(p for p in feasible(instances, tid) if p["bad"])
    verdict = grade(tid, params, imported(params))
    assert verdict.success and verdict.score == 1.0
    assert grade(tid, params).score == 0.0
    assert not grade(tid, params, imported(params, skip="phone")).success
    extra = imported(params)
    extra["crm_contact"]["inserted"][1700] = {"id": 1700, "first_name": "Bad", "last_name": ""}
    assert not grade(tid, params, extra).success
    fewer = imported(params)
    fewer["crm_contact"]["inserted"].pop(1601)
    assert not grade(tid, params, fewer).success


# -- lead status -----------------------------------------------------------------------------


def test_a_status_change_names_a_real_lead_and_a_user_who_may_or_may_not_edit_it(world, instances):
    tid = "crm.qualify_lead"
    reasons = set()
    for task in instances[tid]:
        p = task.params
        lead = record(world, "crm_lead", p["lead_id"])
        assert (
            f"{lead['first_name']} {lead['last_name']}" == p["lead"]
            and lead["status"] == p["old_status"]
        )
        assert p["status"] in TARGETS and p["status"] != p["old_status"]
        assert p["lead"] in task.goal and p["status"] in task.goal
        (count,) = one(
            world,
            "SELECT count(*) FROM crm_lead WHERE first_name || ' ' || last_name = ?",
            p["lead"],
        )
        assert count == 1
        if p["feasible"]:
            assert lead["status"] != "Converted" and may_edit(world, p["user"], lead["owner_id"])
        elif p["reason"] == "converted":
            assert lead["status"] == "Converted" and user_id(world, p["user"]) == lead["owner_id"]
        else:
            assert not may_edit(world, p["user"], lead["owner_id"])
        reasons.add(p["reason"])
    assert reasons == {None, "converted", "read_only"}


def test_the_status_change_passes_and_another_lead_or_field_fails(world, instances):
    tid = "crm.qualify_lead"
    params = feasible(instances, tid)[0]
    lead = record(world, "crm_lead", params["lead_id"])

    def changed(row, **changes):
        changes["updated_at"] = (row["updated_at"], STAMP)
        return {"crm_lead": {"updated": {row["id"]: update(row, **changes)}}}

    good = changed(lead, status=(lead["status"], params["status"]))
    verdict = grade(tid, params, good)
    assert verdict.success and verdict.score == 1.0
    assert grade(tid, params).score == 0.0
    wrong = next(s for s in TARGETS if s not in (params["status"], params["old_status"]))
    assert not grade(tid, params, changed(lead, status=(lead["status"], wrong))).success
    extra = changed(lead, status=(lead["status"], params["status"]), source=(lead["source"], "Web"))
    assert not grade(tid, params, extra).success
    other = record(
        world,
        "crm_lead",
        one(
            world,
            "SELECT id FROM crm_lead WHERE first_name || ' ' || last_name = ?",
            params["decoy"]["lead"],
        )[0],
    )
    assert not grade(
        tid, params, changed(other, status=(other["status"], params["status"]))
    ).success
    impossible = next(t.params for t in instances[tid] if not t.params["feasible"])
    assert grade(tid, impossible, infeasible="read only").success
    assert not grade(tid, impossible, good, infeasible="read only").success

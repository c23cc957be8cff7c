"""CRM answer templates (the biggest deal closing this quarter, a contact's email, what a rep
won this quarter, overdue activities): instances on the small seed-0 world, checked against
the world with SQL of their own and the reports module's own figures, and verifiers on
hand-made answers and diffs.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy.orm import Session

from officegym.apps.crm import reports
from officegym.seed_data.connect import make_engine
from officegym.seed_data.schema import Employee
from officegym.tasks import registry
from officegym.tasks.crm._formats import money
from officegym.tasks.crm._people import editors
from tests.tasks.episodes import grade, one

IDS = (
    "crm.biggest_deal_this_quarter",
    "crm.contact_email_lookup",
    "crm.won_this_quarter",
    "crm.count_overdue_activities",
)
SEEDS = range(30)


TODAY = "2025-09-17"


QUARTER = ("2025-07-01", "2025-09-30")


OPEN_SQL = "stage NOT IN ('Closed Won', 'Closed Lost')"


def stray_note(tables: dict | None = None, pk: int = 9100) -> dict:
    note = {"id": pk, "title": "Done, closing this out.", "body": "x", "account_id": 1}
    return {**(tables or {}), "crm_note": {"inserted": {pk: note}}}


def first(instances, template_id: str, feasible: bool = True):
    return next(t for t in instances[template_id] if t.params.get("feasible", True) is feasible)


def test_the_biggest_deal_is_the_rep_s_unique_largest_open_deal_closing_this_quarter(
    world, instances
):
    for task in instances["crm.biggest_deal_this_quarter"]:
        p = task.params
        deals = world.execute(
            f"SELECT name, amount FROM crm_opportunity WHERE owner_id = ? AND {OPEN_SQL} "
            "AND close_date BETWEEN ? AND ? ORDER BY amount DESC, id",
            (p["rep_id"], *QUARTER),
        ).fetchall()
        assert len(deals) >= 2 and deals[0][1] > deals[1][1]
        assert deals[0] == (p["deal"], p["amount"])
        assert sorted(map(tuple, p["deals"])) == sorted(deals)
        assert len(p["candidates"]) == len(deals)
        assert task.user in {e[1] for e in editors(world, p["rep_id"])}
        assert (p["rep"] in task.goal) is not p["user_is_rep"]
        assert p["decoy"] and p["decoy"]["rep"] != p["rep"]


def test_a_contact_s_email_comes_from_its_record_or_is_missing_on_purpose(world, instances):
    impossible = 0
    for task in instances["crm.contact_email_lookup"]:
        p = task.params
        name, email, account = one(
            world,
            "SELECT c.first_name || ' ' || c.last_name, c.email, a.name FROM crm_contact c "
            "JOIN crm_account a ON a.id = c.account_id WHERE c.id = ?",
            p["contact_id"],
        )
        assert (name, account) == (p["contact"], p["account"])
        assert p["contact"] in task.goal and p["account"] in task.goal
        same = one(
            world,
            "SELECT count(*) FROM crm_contact WHERE first_name || ' ' || last_name = ?",
            name,
        )
        assert same == (1,)
        if p["feasible"]:
            assert email == p["email"] and p["candidates"][0] == email
            assert p["decoy"]["contact"] != name
        else:
            impossible += 1
            assert email is None and p["email"] is None and p["decoy"] is None
            assert one(
                world,
                "SELECT 1 FROM world_oddity WHERE kind = 'incomplete_record' "
                "AND row_table = 'crm_contact' AND row_id = ?",
                p["contact_id"],
            )
    assert 1 <= impossible <= len(SEEDS) // 3


def test_won_this_quarter_matches_the_rows_and_the_reports_page(golden, world, instances):
    engine = make_engine(golden, create=False)
    try:
        with Session(engine) as db:
            for task in instances["crm.won_this_quarter"]:
                p = task.params
                rows = world.execute(
                    "SELECT amount FROM crm_opportunity WHERE owner_id = ? "
                    "AND stage = 'Closed Won' AND close_date BETWEEN ? AND ?",
                    (p["rep_id"], *QUARTER),
                ).fetchall()
                assert p["total"] == sum(r[0] for r in rows) and rows
                rep = db.get(Employee, p["rep_id"])
                assert reports.my_numbers(db, rep)["won"].amount == p["total"]
                assert reports.pipeline(db, rep, scope="me").won.amount == p["total"]
                assert p["candidates"][0] == money(p["total"])
                assert p["rep"] in task.goal and task.user != rep.email
                assert task.user in {e[1] for e in editors(world, p["rep_id"])}
    finally:
        engine.dispose()


def test_the_overdue_count_is_the_deal_s_or_the_rep_s_open_activities_due_before_today(
    world, instances
):
    scopes = set()
    for task in instances["crm.count_overdue_activities"]:
        p = task.params
        column, key = (
            ("opportunity_id", "deal_id") if p["scope"] == "deal" else ("owner_id", "rep_id")
        )
        overdue, still_open = one(
            world,
            "SELECT coalesce(sum(status != 'Completed' AND due_date < ?), 0), "
            f"coalesce(sum(status != 'Completed'), 0) FROM crm_activity WHERE {column} = ?",
            TODAY,
            p[key],
        )
        assert (overdue, still_open) == (p["overdue"], p["open"])
        assert str(overdue) in p["candidates"] and len(p["candidates"]) >= 2
        if p["scope"] == "deal":
            assert still_open >= 2 and p["deal"] in task.goal and not p["rep"]
            decoy = one(
                world,
                "SELECT coalesce(sum(a.status != 'Completed' AND a.due_date < ?), 0) "
                "FROM crm_opportunity o LEFT JOIN crm_activity a ON a.opportunity_id = o.id "
                "WHERE o.name = ?",
                TODAY,
                p["decoy"]["deal"],
            )
        else:
            assert (p["rep"] in task.goal) is not p["mine"] and not p["deal"]
            assert task.user in {e[1] for e in editors(world, p["rep_id"])}
            decoy = one(
                world,
                "SELECT coalesce(sum(a.status != 'Completed' AND a.due_date < ?), 0) "
                "FROM crm_activity a JOIN people_employee e ON e.id = a.owner_id "
                "WHERE e.display_name = ?",
                TODAY,
                p["decoy"]["rep"],
            )
        assert decoy != (overdue,)
        scopes.add(p["scope"])
    assert scopes == {"deal", "rep"}


def test_no_overdue_count_is_right_for_more_than_a_fifth_of_the_instances(golden):
    """A deal has at most three overdue activities, and most have none or one: "1" was right
    for two instances in three before reps' counts were asked for too."""
    template = registry.get("crm.count_overdue_activities")
    counts = Counter(template.instance(golden, seed).params["overdue"] for seed in range(200))
    assert max(counts.values()) <= 40 and len(counts) >= 6


def test_the_biggest_deal_answer_needs_the_name_and_the_amount(instances):
    tid = "crm.biggest_deal_this_quarter"
    p = first(instances, tid).params
    right = f"{p['deal']}, {money(p['amount'])}"
    assert grade(tid, p, answer=right).success
    if p["short"]:
        assert grade(tid, p, answer=f"{p['short']} for {money(p['amount'])}").success
    other, amount = next((n, a) for n, a in p["deals"] if n != p["deal"])
    assert not grade(tid, p, answer=f"{other}, {money(amount)}").success
    assert not grade(tid, p, answer=p["deal"]).success
    assert not grade(tid, p, answer=f"{p['deal']}, {money(p['amount'] + 500)}").success
    assert not grade(tid, p, answer="; ".join(p["candidates"])).success
    assert not grade(tid, p, stray_note(), answer=right).success
    assert grade(tid, p).score == 0


def test_the_biggest_deal_and_its_amount_may_come_in_one_sentence(instances):
    tid = "crm.biggest_deal_this_quarter"
    for task in instances[tid][:5]:
        p = task.params
        said = f"The largest is {p['deal']}, worth {money(p['amount'])}, closing this quarter."
        assert grade(tid, p, answer=said).success, said


def test_the_email_answer_and_the_missing_email_report(instances):
    tid = "crm.contact_email_lookup"
    p = first(instances, tid).params
    assert grade(tid, p, answer=f"It's {p['email']}").success
    assert not grade(tid, p, answer=p["candidates"][1]).success
    assert not grade(tid, p, answer="; ".join(p["candidates"])).success
    assert not grade(tid, p, infeasible="no email").success
    q = first(instances, tid, feasible=False).params
    assert grade(tid, q, infeasible=f"{q['contact']} has no email on file").success
    assert not grade(tid, q, answer="unknown@example.com").success
    assert not grade(tid, q, stray_note(), infeasible="none").success


def test_the_won_total_is_read_as_money(instances):
    tid = "crm.won_this_quarter"
    p = instances[tid][0].params
    assert grade(tid, p, answer=money(p["total"])).success
    assert grade(tid, p, answer=f"{p['total']} dollars").success
    deals = "deal" if p["deals"] == 1 else "deals"
    assert grade(tid, p, answer=f"{money(p['total'])} from {p['deals']} {deals}").success
    assert not grade(tid, p, answer=money(p["total"] + 1000)).success
    assert not grade(tid, p, answer="; ".join(p["candidates"])).success
    assert not grade(tid, p, stray_note(), answer=money(p["total"])).success


def test_the_overdue_count_is_one_number(instances):
    tid = "crm.count_overdue_activities"
    p = next(t.params for t in instances[tid] if t.params["overdue"] >= 1)
    assert grade(tid, p, answer=str(p["overdue"])).success
    assert grade(tid, p, answer=f"{p['overdue']} activities are overdue.").success
    assert not grade(tid, p, answer=str(p["overdue"] + 1)).success
    assert not grade(tid, p, answer="; ".join(p["candidates"])).success
    z = next(t.params for t in instances[tid] if t.params["overdue"] == 0)
    assert grade(tid, z, answer="None of them").success
    assert not grade(tid, z, answer="Sorry, I have no idea").success

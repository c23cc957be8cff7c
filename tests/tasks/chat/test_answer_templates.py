"""Chat answer templates (who said it, how many mentions, a contact's phone, a channel's
member count, a last post's date, a thread's posters): instances on the small seed-0 world
(the tiny one has too few threads, unread mentions and phone conflicts), cross-checked against
the chat service's own reads, and verifiers on hand-made answers and diffs.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections import Counter
from datetime import date, timedelta

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from officegym.apps.chat import access, reads, service
from officegym.seed_data.connect import make_engine
from officegym.seed_data.schema import Employee
from officegym.tasks import registry
from officegym.tasks.answer import phone_digits
from officegym.tasks.chat.count_unread_mentions import (
    channel_counts,
    channel_mentions,
    naming_messages,
)
from officegym.tasks.chat.find_who_said import said_times
from officegym.tasks.chat.last_post_date import local_day
from officegym.tasks.coverage import instance_stats
from officegym.tasks.protocol import Task
from officegym.tasks.verdict import Verdict
from tests.tasks.episodes import ctx, one

IDS = (
    "chat.find_who_said",
    "chat.count_unread_mentions",
    "chat.contact_phone_conflict",
    "chat.channel_member_count",
    "chat.last_post_date",
    "chat.list_thread_posters",
)
SEEDS = range(30)


@pytest.fixture(scope="module")
def db(golden, tmp_path_factory):
    """A service session on a copy of the golden world (the app's reads as the oracle sees)."""
    copy = tmp_path_factory.mktemp("group-c") / "world.sqlite"
    shutil.copyfile(golden, copy)
    engine = make_engine(copy, create=False)
    with Session(engine) as session:
        yield session
    engine.dispose()


def grade(task: Task, tables=None, **kwargs) -> Verdict:
    return registry.get(task.id).verify(ctx(tables, **kwargs), task.params)


def stray_post(params) -> dict:
    row = {
        "id": 9001,
        "channel_id": 1,
        "author_id": params["user_id"],
        "thread_parent_id": None,
        "body": "Done, closing this out.",
        "also_in_channel": 0,
    }
    return {"chat_message": {"inserted": {9001: row}}}


def right_answer(task: Task) -> str:
    p = task.params
    return {
        "chat.find_who_said": lambda: f"It was {p['author']}.",
        "chat.count_unread_mentions": lambda: f"{p['count']}",
        "chat.contact_phone_conflict": lambda: f"{p['contact']}: {p['phone']}",
        "chat.channel_member_count": lambda: f"{p['count']} members",
        "chat.last_post_date": lambda: p["date"],
        "chat.list_thread_posters": lambda: ", ".join(p["repliers"]),
    }[task.id]()


def feasible(task: Task) -> bool:
    return task.params.get("feasible", True)


def actor(db: Session, email: str) -> Employee:
    return db.scalars(select(Employee).where(Employee.email == email)).one()


def unread_kind(instances) -> list[Task]:
    return [t for t in instances["chat.count_unread_mentions"] if t.params["unread"]]


def every_kind(instances) -> list[Task]:
    return [t for t in instances["chat.count_unread_mentions"] if not t.params["unread"]]


def channel_mentions_in_app(db: Session, me: Employee) -> Counter:
    """Channel id → how many messages the app's Mentions list shows from it (all pages)."""
    found: Counter = Counter()
    before = None
    while page := reads.mentions(db, me, before_id=before, limit=200):
        found.update(m.channel_id for m in page)
        before = page[-1].id
    return found


def searched_mention_hits(db: Session, me: Employee, channel: str) -> tuple[int, int]:
    """(results, hits showing "@Name") of the search "@Name in:#channel", as the oracle reads
    the results page."""
    results = reads.search(db, me, f"@{me.display_name} in:#{channel}", per_page=100)
    assert results.total <= 100 and not results.errors
    tag = f"@{me.display_name}".casefold()
    snippets = [re.sub(r"</?mark>", "", h.snippet_html).casefold() for h in results.hits]
    return results.total, sum(tag in s for s in snippets)


@pytest.mark.parametrize("template_id", IDS)
def test_the_same_seed_gives_the_same_instance(golden, instances, template_id):
    for seed in (0, 7, 29):
        again = registry.get(template_id).instance(golden, seed)
        first = instances[template_id][seed]
        assert (again.goal, dict(again.params)) == (first.goal, dict(first.params))


@pytest.mark.parametrize("template_id", IDS)
def test_the_user_is_an_active_employee(world, instances, template_id):
    for task in instances[template_id]:
        row = one(world, "SELECT id, is_active FROM people_employee WHERE email = ?", task.user)
        assert row is not None and row[1], task.user
        assert row[0] == task.params["user_id"]


@pytest.mark.parametrize("template_id", IDS)
def test_the_right_answer_succeeds_and_all_candidates_at_once_fail(instances, template_id):
    for task in filter(feasible, instances[template_id]):
        assert grade(task, answer=right_answer(task)).success, task.goal
        assert len(task.params["candidates"]) >= 2, task.params
        everything = "; ".join(str(c) for c in task.params["candidates"])
        assert not grade(task, answer=everything).success, everything


@pytest.mark.parametrize("template_id", IDS)
def test_the_right_answer_with_a_stray_post_fails(instances, template_id):
    task = next(filter(feasible, instances[template_id]))
    verdict = grade(task, stray_post(task.params), answer=right_answer(task))
    assert not verdict.success and verdict.score < 1


@pytest.mark.parametrize("template_id", IDS)
def test_doing_nothing_scores_zero(instances, template_id):
    for task in instances[template_id][:5]:
        assert grade(task).score == 0


def test_who_said_quotes_one_message_by_the_author_in_the_channel(world, instances):
    for task in filter(feasible, instances["chat.find_who_said"]):
        p = task.params
        body, channel, author = one(
            world,
            """SELECT m.body, c.name, a.display_name FROM chat_message m
               JOIN chat_channel c ON c.id = m.channel_id
               JOIN people_employee a ON a.id = m.author_id WHERE m.id = ?""",
            p["message_id"],
        )
        assert (body, channel, author) == (p["quote"], p["channel"], p["author"])
        assert said_times(world, p["quote"]) == 1
        assert p["quote"] in task.goal and f"#{p['channel']}" in task.goal


def test_who_said_sometimes_quotes_what_nobody_said(world, instances):
    impossible = [t for t in instances["chat.find_who_said"] if not feasible(t)]
    assert 1 <= len(impossible) <= len(SEEDS) // 3
    for task in impossible:
        assert said_times(world, task.params["quote"]) == 0
        assert grade(task, infeasible="nobody said that").success
        assert not grade(task, answer=task.params["candidates"][0]).success


def test_who_said_near_miss_is_a_different_author(world, instances):
    decoys = [t for t in instances["chat.find_who_said"] if t.params["decoy"]]
    assert decoys
    for task in decoys:
        (author,) = one(
            world,
            """SELECT a.display_name FROM chat_message m
               JOIN people_employee a ON a.id = m.author_id WHERE m.body = ?""",
            task.params["decoy"]["quote"],
        )
        assert author != task.params["author"] and author in task.params["candidates"]


def test_unread_mentions_match_the_sidebar_badges(db, instances):
    for task in unread_kind(instances):
        p = task.params
        bar = reads.sidebar(db, actor(db, task.user))
        badges = {item.name: item.mentions for item in bar.channels if item.name != "general"}
        if p["channel"]:
            assert badges[p["channel"]] == p["count"]
            assert f"#{p['channel']}" in task.goal
        else:
            general = [item.mentions for item in bar.channels if item.name == "general"]
            assert general in ([], [0])
            assert sum(badges.values()) == p["count"]


def test_unread_mentions_ask_about_one_channel_and_about_all(instances):
    scopes = {bool(t.params["channel"]) for t in unread_kind(instances)}
    assert scopes == {True, False}


def test_unread_mentions_none_is_an_answer(instances):
    task = next(t for t in instances["chat.count_unread_mentions"] if t.params["count"] == 0)
    assert grade(task, answer="None, you're all caught up.").success
    assert not grade(task, answer="1 unread mention").success


def test_every_mention_count_is_what_the_mentions_list_and_the_search_show(db, instances):
    assert every_kind(instances)
    for task in every_kind(instances):
        p = task.params
        me = actor(db, task.user)
        assert p["name"] == me.display_name and f"#{p['channel']}" in task.goal
        assert channel_mentions_in_app(db, me)[p["channel_id"]] == p["count"]
        assert searched_mention_hits(db, me, p["channel"])[1] == p["count"]


def test_every_mention_count_asks_about_channels_the_user_may_see(db, instances):
    for task in every_kind(instances):
        me = actor(db, task.user)
        visible = set(db.scalars(access.visible_channel_ids(me)))
        assert task.params["channel_id"] in visible


def test_every_mention_count_leaves_out_messages_that_only_write_the_name(world, db):
    # New colleagues are welcomed in #general by name, without an @: the search finds those.
    rows = [r for r in channel_mentions(world) if r[4] == "general"]
    welcomed = [r for r in rows if naming_messages(world, r[3], r[2]) > r[5]]
    assert welcomed
    for user_id, _, _, _, channel, count in welcomed:
        me = db.get(Employee, user_id)
        results, showing = searched_mention_hits(db, me, channel)
        assert showing == count < results


def test_every_mention_count_follows_the_app_on_deleted_thread_and_private_messages(
    golden, tmp_path
):
    copy = tmp_path / "world.sqlite"
    shutil.copyfile(golden, copy)
    engine = make_engine(copy, create=False)
    with Session(engine) as db, db.begin():
        (me_id, channel_id) = db.execute(
            text(
                """SELECT mn.employee_id, m.channel_id FROM chat_mention mn
                   JOIN chat_message m ON m.id = mn.message_id
                   JOIN chat_channel c ON c.id = m.channel_id
                   WHERE c.kind = 'channel' AND c.archived_at IS NULL
                   ORDER BY mn.id LIMIT 1"""
            )
        ).one()
        me = db.get(Employee, me_id)
        poster = next(
            db.get(Employee, i)
            for i in db.scalars(
                text(
                    "SELECT employee_id FROM chat_membership WHERE channel_id = :c "
                    "AND employee_id != :me ORDER BY employee_id"
                ),
                {"c": channel_id, "me": me_id},
            )
            if db.get(Employee, i).is_active
        )
        mention = f"@{me.display_name} can you look at this?"
        parent = service.post_message(db, poster, channel_id, "Thread for the numbers")
        service.post_message(db, poster, channel_id, mention, thread_parent_id=parent.id)
        gone = service.post_message(db, poster, channel_id, mention)
        db.execute(
            text("UPDATE chat_message SET deleted_at = created_at WHERE id = :id"), {"id": gone.id}
        )
        private_id, member_id = db.execute(
            text(
                """SELECT c.id, ms.employee_id FROM chat_channel c
                   JOIN chat_membership ms ON ms.channel_id = c.id
                   JOIN people_employee e ON e.id = ms.employee_id AND e.is_active
                   WHERE c.kind = 'channel' AND c.is_private AND c.archived_at IS NULL
                     AND NOT EXISTS (SELECT 1 FROM chat_membership o
                                     WHERE o.channel_id = c.id AND o.employee_id = :me)
                   ORDER BY c.id, ms.employee_id LIMIT 1"""
            ),
            {"me": me_id},
        ).one()
        service.post_message(db, db.get(Employee, member_id), private_id, mention)
        shown = channel_mentions_in_app(db, me)
    engine.dispose()
    conn = sqlite3.connect(copy)
    try:
        counted = {r[3]: r[5] for r in channel_mentions(conn) if r[0] == me_id}
    finally:
        conn.close()
    assert private_id not in counted and shown[private_id] == 0
    assert counted[channel_id] == shown[channel_id]
    assert {c: n for c, n in counted.items() if n} == {c: n for c, n in shown.items() if n}


def test_every_mention_count_is_asked_apart_from_the_unread_one(instances):
    unread = re.compile(r"unread|haven't read")
    assert all(unread.search(t.goal) for t in unread_kind(instances))
    assert not any(unread.search(t.goal) for t in every_kind(instances))


def test_every_mention_count_reads_messages_as_the_counted_noun(instances):
    task = next(t for t in every_kind(instances) if t.params["count"] > 0)
    count = task.params["count"]
    assert grade(task, answer=f"{count} messages in #{task.params['channel']} mention you").success
    assert not grade(task, answer=f"{count + 1} messages mention you").success


def test_mention_counts_are_spread_beyond_what_unread_badges_offer(world, instances):
    badges = {r[4] for r in channel_counts(world)}
    counts = Counter(t.params["count"] for t in instances["chat.count_unread_mentions"])
    assert 0 in counts and max(counts) > max(badges)
    assert max(counts.values()) <= len(SEEDS) / 4, counts


@pytest.mark.slow
def test_mention_counts_keep_every_answer_under_the_coverage_share(golden):
    stats = instance_stats(registry.get("chat.count_unread_mentions"), golden)
    assert stats.problems() == [], stats


def test_phone_is_the_posters_conflicting_number(world, instances):
    for task in instances["chat.contact_phone_conflict"]:
        p = task.params
        body, poster = one(
            world,
            """SELECT m.body, a.display_name FROM chat_message m
               JOIN people_employee a ON a.id = m.author_id WHERE m.id = ?""",
            p["message_id"],
        )
        assert p["phone"] in body and p["contact"] in body and poster == p["poster"]
        assert one(
            world,
            """SELECT count(*) FROM world_oddity WHERE kind = 'phone_conflict'
               AND row_id = ? AND detail LIKE ?""",
            p["message_id"],
            f"%{p['crm_phone']}%",
        ) == (1,)
        assert phone_digits(p["crm_phone"]) != phone_digits(p["phone"])
        assert p["crm_phone"] in p["candidates"]
        assert p["contact"] in task.goal and p["poster"] in task.goal and "CRM" in task.goal


def test_phone_with_a_second_number_held_open_fails(instances):
    task = instances["chat.contact_phone_conflict"][0]
    p = task.params
    other = next(c for c in p["candidates"] if phone_digits(c) != phone_digits(p["phone"]))
    answer = f"{p['phone']} (or possibly the one ending in {phone_digits(other)[-4:]})"
    verdict = grade(task, answer=answer)
    assert not verdict.success and verdict.score < 1


def test_phone_is_the_latest_number_the_poster_gave(world, instances):
    for task in instances["chat.contact_phone_conflict"]:
        p = task.params
        (later,) = one(
            world,
            """SELECT count(*) FROM chat_message m JOIN people_employee a ON a.id = m.author_id
               WHERE a.display_name = ? AND instr(m.body, ?) > 0 AND m.body LIKE '%+%'
                 AND m.deleted_at IS NULL AND m.created_at >
                     (SELECT created_at FROM chat_message WHERE id = ?)""",
            p["poster"],
            p["contact"],
            p["message_id"],
        )
        assert later == 0


def test_member_count_is_the_details_page_count(db, instances):
    for task in instances["chat.channel_member_count"]:
        p = task.params
        me = actor(db, task.user)
        detail = reads.channel(db, me, p["channel_id"])
        assert detail.name == p["channel"]
        assert detail.member_count == len(reads.members(db, me, p["channel_id"])) == p["count"]
        assert detail.is_member == p["is_member"]
        assert f"#{p['channel']}" in task.goal


def test_member_count_reads_other_numbers_as_context(instances):
    task = instances["chat.channel_member_count"][0]
    count = task.params["count"]
    assert grade(task, answer=f"{count} members; it is 1 of 24 channels.").success


def test_member_count_hedged_between_two_numbers_fails(instances):
    task = instances["chat.channel_member_count"][0]
    verdict = grade(task, answer=f"Either {task.params['count']} or thirty-something")
    assert not verdict.success and verdict.score < 1


def test_member_count_asks_members_and_outsiders(instances):
    assert {t.params["is_member"] for t in instances["chat.channel_member_count"]} == {
        True,
        False,
    }


def test_last_post_date_is_the_newest_visible_post_in_the_users_timezone(world, db, instances):
    for task in instances["chat.last_post_date"]:
        p = task.params
        newest_id, created, deleted, parent = one(
            world,
            """SELECT m.id, m.created_at, m.deleted_at, m.thread_parent_id FROM chat_message m
               JOIN people_employee a ON a.id = m.author_id
               WHERE m.channel_id = ? AND a.display_name = ?
               ORDER BY m.created_at DESC, m.id DESC LIMIT 1""",
            p["channel_id"],
            p["person"],
        )
        assert (newest_id, deleted, parent) == (p["message_id"], None, None)
        (timezone,) = one(world, "SELECT timezone FROM people_employee WHERE id = ?", p["user_id"])
        assert local_day(created, timezone).isoformat() == p["date"]
        assert p["person"] in task.goal and f"#{p['channel']}" in task.goal


def test_last_post_date_accepts_a_spelled_out_date(instances):
    task = instances["chat.last_post_date"][0]
    day = date.fromisoformat(task.params["date"])
    assert grade(task, answer=f"{day:%B} {day.day}, {day.year}").success
    assert grade(task, answer=f"{day:%m/%d/%Y}").success


def test_last_post_date_reads_yesterday_from_the_users_own_today(instances):
    task = instances["chat.last_post_date"][0]
    day = date.fromisoformat(task.params["date"])
    # The user's today may be the day after the world's UTC date (Singapore in the evening).
    params = {**task.params, "today": (day + timedelta(days=1)).isoformat()}
    template = registry.get(task.id)
    assert template.verify(ctx(answer="Yesterday"), params).success
    params = {**task.params, "today": (day + timedelta(days=2)).isoformat()}
    assert not template.verify(ctx(answer="Yesterday"), params).success


def test_last_post_date_hedged_between_two_days_fails(instances):
    task = instances["chat.last_post_date"][0]
    day = date.fromisoformat(task.params["date"])
    verdict = grade(task, answer=f"{day:%B} {day.day} or {day.day + 1}, {day.year}")
    assert not verdict.success and verdict.score < 1


def test_thread_repliers_are_the_distinct_reply_authors(world, instances):
    for task in instances["chat.list_thread_posters"]:
        p = task.params
        rows = world.execute(
            """SELECT a.display_name, m.deleted_at FROM chat_message m
               JOIN people_employee a ON a.id = m.author_id
               WHERE m.thread_parent_id = ? ORDER BY m.id""",
            (p["parent_id"],),
        ).fetchall()
        assert all(deleted is None for _, deleted in rows)
        assert p["repliers"] == list(dict.fromkeys(name for name, _ in rows))
        assert one(world, "SELECT body FROM chat_message WHERE id = ?", p["parent_id"]) == (
            p["parent"],
        )
        assert p["parent"] in task.goal and p["author"] in task.goal


def test_thread_list_missing_a_replier_or_naming_a_bystander_fails(instances):
    task = instances["chat.list_thread_posters"][0]
    repliers = task.params["repliers"]
    bystander = next(c for c in task.params["candidates"] if c not in repliers)
    assert not grade(task, answer=", ".join(repliers[:-1])).success
    assert not grade(task, answer=", ".join([*repliers, bystander])).success

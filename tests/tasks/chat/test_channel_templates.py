"""Templates that manage channels (set a topic, invite a member, create a team channel,
archive quiet ones): instances on the small seed-0 world (the tiny one has no quiet channels
and too few teams) and verifiers on hand-made diffs.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.tasks.episodes import grade, is_member, one, update

IDS = (
    "chat.set_topic",
    "chat.invite_member",
    "chat.create_team_channel",
    "chat.archive_inactive",
)
SEEDS = range(30)


def _created(p, *, name=None, private=True, members=None) -> dict:
    channel = {
        "id": 500,
        "name": name or p["name"],
        "kind": "channel",
        "is_private": int(private),
        "topic": p["topic"],
        "created_by_id": p["user_id"],
        "archived_at": None,
    }
    ids = p["member_ids"] if members is None else members
    rows = {
        6000 + i: {"id": 6000 + i, "channel_id": 500, "employee_id": pk} for i, pk in enumerate(ids)
    }
    return {"chat_channel": {"inserted": {500: channel}}, "chat_membership": {"inserted": rows}}


def test_set_topic_targets_a_live_channel_of_the_user_with_a_new_topic(world, instances):
    for task in instances["chat.set_topic"]:
        p = task.params
        name, topic, archived = one(
            world,
            "SELECT name, topic, archived_at FROM chat_channel WHERE id = ?",
            p["channel_id"],
        )
        assert name == p["channel"] and archived is None and topic != p["topic"]
        assert is_member(world, p["channel_id"], p["user_id"])
        assert f"#{p['channel']}" in task.goal and p["topic"] in task.goal
        assert p["decoy"]["channel"] != p["channel"]


def test_invite_member_names_an_outsider_who_is_deactivated_only_when_infeasible(world, instances):
    impossible = 0
    for task in instances["chat.invite_member"]:
        p = task.params
        assert is_member(world, p["channel_id"], p["user_id"])
        assert not is_member(world, p["channel_id"], p["person_id"])
        name, title, active = one(
            world,
            "SELECT display_name, title, is_active FROM people_employee WHERE id = ?",
            p["person_id"],
        )
        assert (name, title) == (p["person"], p["person_title"])
        assert bool(active) is p["feasible"]
        impossible += not p["feasible"]
        assert p["person"] in task.goal and f"#{p['channel']}" in task.goal
        if p["decoy"]:
            assert p["decoy"]["person"].split()[0] == p["person"].split()[0]
            assert p["decoy"]["person"] != p["person"]
    assert 0 < impossible <= len(SEEDS) // 3


def test_create_team_channel_members_are_the_active_team_and_the_creator(world, instances):
    taken = {name for (name,) in world.execute("SELECT name FROM chat_channel")}
    for task in instances["chat.create_team_channel"]:
        p = task.params
        team = {
            pk
            for (pk,) in world.execute(
                "SELECT id FROM people_employee WHERE team_id = ? AND is_active", (p["team_id"],)
            )
        }
        assert set(p["member_ids"]) == team | {p["user_id"]}
        assert p["user_name"] not in {name for name, _ in p["members"]}
        assert len(p["members"]) == len(p["member_ids"]) - 1
        assert p["name"] not in taken
        for part in (f"#{p['name']}", p["team"], p["topic"], "private"):
            assert part in task.goal
        assert p["decoy"]["team"] != p["team"]


def test_archive_inactive_targets_exactly_the_quiet_channels_of_the_user(world, instances):
    (now,) = one(world, "SELECT now FROM world_meta")
    impossible = 0
    for task in instances["chat.archive_inactive"]:
        p = task.params
        cutoff = datetime.fromisoformat(now) - timedelta(days=p["days"])
        rows = world.execute(
            "SELECT c.id, c.name, (SELECT MAX(created_at) FROM chat_message x"
            " WHERE x.channel_id = c.id) FROM chat_channel c JOIN chat_membership m"
            " ON m.channel_id = c.id WHERE m.employee_id = ? AND c.kind = 'channel'"
            " AND c.archived_at IS NULL AND c.name != 'general'",
            (p["user_id"],),
        ).fetchall()
        quiet = sorted(name for _, name, last in rows if datetime.fromisoformat(last) < cutoff)
        assert quiet == p["targets"]
        assert p["feasible"] is bool(quiet)
        impossible += not p["feasible"]
        assert f"{p['days']} days" in task.goal
    assert 0 < impossible <= len(SEEDS) // 3


def test_set_topic_ignores_case_and_spacing_but_not_the_channel(instances):
    p = instances["chat.set_topic"][0].params
    row = {"id": p["channel_id"], "name": p["channel"]}
    spaced = "  " + p["topic"].upper().replace(" ", "   ")
    done = {"chat_channel": {"updated": {p["channel_id"]: update(row, topic=("", spaced))}}}
    assert grade("chat.set_topic", p, done).success
    elsewhere = {"chat_channel": {"updated": {999: update({"id": 999}, topic=("", p["topic"]))}}}
    assert grade("chat.set_topic", p, elsewhere).score == 0


def test_invite_member_grades_the_membership_or_the_report(instances):
    tasks = instances["chat.invite_member"]
    p = next(t.params for t in tasks if t.params["feasible"])
    added = {"id": 5000, "channel_id": p["channel_id"], "employee_id": p["person_id"]}
    assert grade("chat.invite_member", p, {"chat_membership": {"inserted": {5000: added}}}).success
    assert not grade("chat.invite_member", p, infeasible="can't").success
    q = next(t.params for t in tasks if not t.params["feasible"])
    assert grade("chat.invite_member", q, infeasible="deactivated").success
    assert not grade("chat.invite_member", q, answer="Done").success


def test_create_team_channel_needs_the_name_privacy_and_exact_members(instances):
    p = instances["chat.create_team_channel"][0].params
    assert grade("chat.create_team_channel", p, _created(p)).success
    assert not grade("chat.create_team_channel", p, _created(p, name="other-name")).success
    assert not grade("chat.create_team_channel", p, _created(p, private=False)).success
    fewer = _created(p, members=p["member_ids"][:-1])
    assert not grade("chat.create_team_channel", p, fewer).success
    more = _created(p, members=[*p["member_ids"], 1 if 1 not in p["member_ids"] else 2])
    assert not grade("chat.create_team_channel", p, more).success


def test_an_empty_team_channel_earns_nothing(instances):
    p = instances["chat.create_team_channel"][0].params
    empty = grade("chat.create_team_channel", p, _created(p, members=[]))
    assert not empty.success and empty.score == 0
    creator_only = grade("chat.create_team_channel", p, _created(p, members=[p["user_id"]]))
    assert not creator_only.success and creator_only.score == 0


def test_a_team_channel_with_a_description_nobody_asked_for_fails(instances):
    p = instances["chat.create_team_channel"][0].params
    described = _created(p)
    described["chat_channel"]["inserted"][500]["description"] = "zz junk"
    verdict = grade("chat.create_team_channel", p, described)
    assert not verdict.success and verdict.score < 1


def test_archive_inactive_wants_every_quiet_channel_and_no_other(instances):
    tasks = instances["chat.archive_inactive"]
    p = next(t.params for t in tasks if t.params["feasible"])
    archived = {
        pk: update({"id": pk, "name": name}, archived_at=(None, "2025-09-17 14:30"))
        for pk, name in zip(p["target_ids"], p["targets"], strict=True)
    }
    assert grade("chat.archive_inactive", p, {"chat_channel": {"updated": archived}}).success
    extra = {**archived, 999: update({"id": 999}, archived_at=(None, "2025-09-17 14:30"))}
    assert not grade("chat.archive_inactive", p, {"chat_channel": {"updated": extra}}).success
    q = next(t.params for t in tasks if not t.params["feasible"])
    assert grade("chat.archive_inactive", q, infeasible="nothing is quiet").success
    assert not grade("chat.archive_inactive", q, answer="None of them").success

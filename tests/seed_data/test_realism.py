"""The world reads like one real company: varied messages, threads that stay on topic, notices
posted by the team that owns them, and duplicates entered the ways people really enter them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from officegym.apps.crm.duplicates import company_key
from officegym.seed_data.generate import build_world
from officegym.seed_data.realism import DUPLICATE_KINDS, Realism, measure, topics_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("realism") / "small.sqlite"
    build_world(0, "small", path)
    return path


@pytest.fixture(scope="module")
def figures(small: Path) -> Realism:
    return measure(small)


@pytest.fixture(scope="module")
def db(small: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(small)
    conn.row_factory = sqlite3.Row
    return conn


# Messages -----------------------------------------------------------------------------------


def test_at_least_95_percent_of_top_level_messages_have_a_body_of_their_own(
    figures: Realism,
) -> None:
    assert figures.top_level_messages > 3000
    assert figures.distinct_top_level_ratio >= 0.95


def test_at_least_70_percent_of_thread_replies_have_a_body_of_their_own(figures: Realism) -> None:
    assert figures.thread_replies > 1000
    assert figures.distinct_reply_ratio >= 0.70


def test_at_least_90_percent_of_thread_replies_are_on_their_roots_topic(figures: Realism) -> None:
    assert figures.replies_on_topic_ratio >= 0.90


def test_a_generic_reply_is_not_on_the_topic_of_a_benefits_reminder() -> None:
    root = topics_of("Benefits enrollment closes Friday, please check your selections.")
    assert "benefits" in root
    assert not topics_of("Nice work!") & root
    assert topics_of("Does the dental change apply to dependents too?") & root


def test_replies_under_a_deal_post_talk_about_that_deal(db: sqlite3.Connection) -> None:
    deal_account = {
        source: account
        for source, account in db.execute(
            "SELECT t.source_id, a.name FROM world_textref t "
            "JOIN crm_opportunity o ON t.target_table = 'crm_opportunity' AND o.id = t.target_id "
            "JOIN crm_account a ON a.id = o.account_id WHERE t.source_table = 'chat_message'"
        )
    }
    replies = [
        (body, deal_account[parent])
        for body, parent in db.execute(
            "SELECT body, thread_parent_id FROM chat_message WHERE thread_parent_id IS NOT NULL"
        )
        if parent in deal_account
    ]
    assert len(replies) >= 50
    on_deal = [b for b, account in replies if account in b or "deals" in topics_of(b)]
    assert len(on_deal) >= 0.9 * len(replies)


def test_replies_under_a_benefits_notice_talk_about_benefits(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT r.body, p.body FROM chat_message r JOIN chat_message p ON p.id = r.thread_parent_id"
        " JOIN chat_channel c ON c.id = p.channel_id WHERE c.name = 'general'"
    ).fetchall()
    words = ("benefit", "enrollment", "dental", "fsa", "stipend", "parental leave")
    under = [reply for reply, root in rows if any(w in root.lower() for w in words)]
    assert len(under) >= 10
    assert sum("benefits" in topics_of(reply) for reply in under) >= 0.8 * len(under)


# Company notices ----------------------------------------------------------------------------


def _general_posts(db: sqlite3.Connection) -> list[sqlite3.Row]:
    return db.execute(
        "SELECT m.body, m.author_id, t.name AS team, t.department FROM chat_message m "
        "JOIN chat_channel c ON c.id = m.channel_id "
        "JOIN people_employee e ON e.id = m.author_id JOIN people_team t ON t.id = e.team_id "
        "WHERE c.name = 'general' AND m.thread_parent_id IS NULL"
    ).fetchall()


def test_benefits_notices_in_general_are_posted_by_people_operations(
    db: sqlite3.Connection,
) -> None:
    notices = [p for p in _general_posts(db) if "enrollment" in p["body"].lower()]
    assert len(notices) >= 5
    assert {p["department"] for p in notices} == {"People"}


def test_wifi_and_mfa_notices_in_general_are_posted_by_it(db: sqlite3.Connection) -> None:
    words = ("wifi", "mfa", "vpn", "security training")
    notices = [p for p in _general_posts(db) if any(w in p["body"].lower() for w in words)]
    assert len(notices) >= 5
    assert {p["team"] for p in notices} <= {"IT", "Infrastructure"}


def test_no_post_in_general_is_repeated_by_another_author(db: sqlite3.Connection) -> None:
    authors: dict[str, set[int]] = defaultdict(set)
    for post in _general_posts(db):
        authors[post["body"]].add(post["author_id"])
    assert [body for body, who in authors.items() if len(who) > 1] == []


# Duplicates ---------------------------------------------------------------------------------


def test_planted_duplicates_show_every_kind_of_real_world_double_entry(figures: Realism) -> None:
    assert set(figures.duplicate_kinds) == set(DUPLICATE_KINDS)
    missing = [kind for kind, count in figures.duplicate_kinds.items() if count < 3]
    assert missing == []


def test_duplicate_leads_are_one_prospect_entered_again_with_the_same_email(
    db: sqlite3.Connection,
) -> None:
    rows = db.execute("SELECT * FROM world_oddity WHERE kind = 'duplicate_lead'").fetchall()
    assert len(rows) >= 5
    for odd in rows:
        dup, orig = (
            db.execute("SELECT * FROM crm_lead WHERE id = ?", (i,)).fetchone()
            for i in (odd["row_id"], odd["other_id"])
        )
        assert dup["email"].lower() == orig["email"].lower()
        assert company_key(dup["company"]) == company_key(orig["company"])
        assert dup["first_name"] + dup["last_name"] != orig["first_name"] + orig["last_name"]
        assert json.loads(odd["detail"])["variants"]


def test_some_phone_conflicts_are_the_crm_number_with_two_digits_transposed(
    figures: Realism, db: sqlite3.Connection
) -> None:
    conflicts = db.execute("SELECT count(*) FROM world_oddity WHERE kind = 'phone_conflict'")
    assert conflicts.fetchone()[0] >= 5
    assert figures.duplicate_kinds["transposed_digits"] >= 3


# The measurement ----------------------------------------------------------------------------


def test_measure_reads_a_file_and_an_open_connection_alike(small: Path, figures: Realism) -> None:
    conn = sqlite3.connect(small)
    try:
        assert measure(conn) == figures
    finally:
        conn.close()


def test_lines_and_dict_carry_every_figure(figures: Realism) -> None:
    data = figures.as_dict()
    assert json.loads(json.dumps(data)) == data
    assert set(data["duplicate_kinds"]) == set(DUPLICATE_KINDS)
    text = "\n".join(figures.lines())
    assert f"{figures.top_level_messages:,}" in text and "transposed digits" in text


def test_the_same_seed_gives_the_same_messages_and_mess_whatever_the_hash_seed(
    tmp_path: Path,
) -> None:
    code = (
        "import json, sys, pathlib\n"
        "from officegym.seed_data.generate import build_world\n"
        "from officegym.seed_data.realism import measure\n"
        "path = pathlib.Path(sys.argv[1])\n"
        "build_world(0, 'tiny', path)\n"
        "print(json.dumps(measure(path).as_dict(), sort_keys=True))\n"
    )
    results = []
    for hash_seed in ("5", "6"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        path = tmp_path / f"tiny-{hash_seed}.sqlite"
        done = subprocess.run(
            [sys.executable, "-c", code, str(path)],
            check=True,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        bodies = sqlite3.connect(path).execute("SELECT body FROM chat_message ORDER BY id")
        results.append((done.stdout, [b for (b,) in bodies]))
    assert results[0] == results[1]

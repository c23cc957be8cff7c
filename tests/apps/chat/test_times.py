"""Times read out of their day keep it: the thread pane, reply summaries and pinned lists say
"Tue, Sep 2 at 3:05 PM" for anything not posted today by the world clock, in the reader's zone.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from officegym.apps.chat import times

from .conftest import csrf_token, login, rows

TODAY = date(2025, 9, 17)


def stored(*parts: int) -> datetime:
    """A time as chat stores it: naive UTC."""
    return datetime(*parts, tzinfo=UTC).replace(tzinfo=None)


def test_a_time_today_is_just_the_clock():
    assert times.when(stored(2025, 9, 17, 13, 5), None, TODAY) == "1:05 PM"
    assert times.when_phrase(stored(2025, 9, 17, 13, 5), None, TODAY) == "today at 1:05 PM"


def test_a_time_yesterday_says_yesterday():
    assert times.when(stored(2025, 9, 16, 9, 0), None, TODAY) == "Yesterday at 9:00 AM"
    assert times.when_phrase(stored(2025, 9, 16, 9, 0), None, TODAY) == "yesterday at 9:00 AM"


def test_a_time_on_an_earlier_day_carries_its_weekday_and_date():
    assert times.when(stored(2025, 9, 2, 15, 5), None, TODAY) == "Tue, Sep 2 at 3:05 PM"
    assert times.when_phrase(stored(2025, 9, 2, 15, 5), None, TODAY) == "on Tue, Sep 2 at 3:05 PM"


def test_a_time_in_another_year_carries_the_year():
    assert times.when(stored(2024, 12, 31, 8, 0), None, TODAY) == "Tue, Dec 31, 2024 at 8:00 AM"


def test_the_day_is_the_readers_day():
    # 02:00 UTC on the 17th is still the 16th in Los Angeles.
    late = stored(2025, 9, 17, 2, 0)
    assert times.when(late, "America/Los_Angeles", TODAY) == "Yesterday at 7:00 PM"


# -- on the pages ----------------------------------------------------------------------------


def _local(value: str, zone: str) -> datetime:
    utc = datetime.fromisoformat(value).replace(tzinfo=UTC)
    return utc.astimezone(ZoneInfo(zone))


def _said(local: datetime) -> str:
    """How a reader is told a time on an earlier day this year: "on Tue, Sep 2 at 3:05 PM"."""
    clock = f"{local:%I:%M %p}".lstrip("0")
    return f"on {local:%a, %b} {local.day} at {clock}"


@pytest.fixture
def old_thread(store, world):
    """A thread whose last reply is days old but from this year, and a member of its channel
    to read it: (parent id, channel id, last reply at, member's email, member's timezone)."""
    (now,) = rows(store, world, "SELECT now FROM world_meta")[0]
    return rows(
        store,
        world,
        """
        SELECT p.id, p.channel_id, max(r.created_at), e.email, e.timezone
        FROM chat_message p
        JOIN chat_message r ON r.thread_parent_id = p.id
        JOIN chat_membership m ON m.channel_id = p.channel_id
        JOIN people_employee e ON e.id = m.employee_id AND e.is_active
        WHERE p.deleted_at IS NULL
        GROUP BY p.id, e.id
        HAVING julianday(?) - julianday(max(r.created_at)) > 3
           AND strftime('%Y', max(r.created_at), '-1 day') = strftime('%Y', ?)
        ORDER BY p.id, e.id
        LIMIT 1
        """,
        (now, now),
    )[0]


def test_a_reply_summary_says_the_day_of_the_last_reply(client, old_thread):
    parent, channel, last, email, zone = old_thread
    login(client, email)
    html = client.get(f"/chat/c/{channel}?m={parent}").get_data(as_text=True)
    assert f"Last reply {_said(_local(last, zone))}" in html


def test_thread_pane_times_carry_their_day(client, store, world, old_thread):
    parent, _, last, email, zone = old_thread
    login(client, email)
    html = client.get(f"/chat/t/{parent}").get_data(as_text=True)
    pane = html[html.index('<aside class="thread"') :]
    local = _local(last, zone)
    shown = _said(local).removeprefix("on ")
    assert re.search(rf'class="msg__time"[^>]*>{re.escape(shown)}</a>', pane)
    assert f'{_said(local)}"' in pane


def test_pinned_messages_carry_their_day(client, store, world):
    (now,) = rows(store, world, "SELECT now FROM world_meta")[0]
    channel, posted, email, zone = rows(
        store,
        world,
        """
        SELECT p.channel_id, m.created_at, e.email, e.timezone
        FROM chat_pin p
        JOIN chat_message m ON m.id = p.message_id
        JOIN chat_membership cm ON cm.channel_id = p.channel_id
        JOIN people_employee e ON e.id = cm.employee_id AND e.is_active
        WHERE julianday(?) - julianday(m.created_at) > 3
        ORDER BY p.id, e.id
        LIMIT 1
        """,
        (now,),
    )[0]
    login(client, email)
    html = client.get(f"/chat/c/{channel}/pins").get_data(as_text=True)
    shown = _said(_local(posted, zone)).removeprefix("on ")
    assert re.search(rf'class="msg__time"[^>]*>{re.escape(shown)}</a>', html)


def test_a_reply_posted_now_reads_as_today(client, old_thread):
    parent, _, _, email, _ = old_thread
    login(client, email)
    token = csrf_token(client, f"/chat/t/{parent}")
    client.post(f"/chat/t/{parent}/reply", data={"body": "Fresh reply", "csrf_token": token})
    html = client.get(f"/chat/t/{parent}").get_data(as_text=True)
    assert re.search(r'aria-label="Message from [^"]+ today at \d{1,2}:\d\d [AP]M"', html)

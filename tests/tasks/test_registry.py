"""The template registry: ids, metadata and complete templates only."""

from __future__ import annotations

import subprocess
import sys

import pytest

from officegym.tasks.protocol import TaskError
from officegym.tasks.registry import (
    Template,
    UnknownTask,
    get,
    register,
    template_ids,
    templates,
)


def test_a_template_missing_its_oracle_and_verifier_cannot_be_registered():
    class Half(Template):
        id = "chat.half_done"

        def sample(self, world, rng):
            return {}

        def goal(self, params, rng):
            return "do it"

    with pytest.raises(TaskError, match="does not implement solve, verify"):
        register(Half)


def test_unknown_ids_name_the_registered_ones():
    with pytest.raises(UnknownTask, match="chat.post_update"):
        get("chat.nope")


def test_builtin_templates_are_registered_by_id():
    assert "chat.post_update" in {t.id for t in templates()}


TAGS = {
    "navigation",
    "search",
    "form",
    "answer",
    "multi-step",
    "cross-app",
    "formula",
    "format",
    "sort-filter",
    "chart-pivot",
    "cleanup",
    "file",
    "sharing",
}


@pytest.mark.parametrize("app", ["chat", "crm", "sheets"])
def test_each_app_suite_has_25_templates_across_every_difficulty_and_both_splits(app):
    suite = [t for t in templates() if t.id.startswith(f"{app}.")]
    assert len(suite) >= 25
    assert {t.difficulty for t in suite} == {1, 2, 3, 4, 5}
    assert sum(t.split == "test" for t in suite) >= 5


def test_a_template_hands_the_agent_its_files_with_the_instance(store):
    class Handout(get("chat.post_update").__class__):
        id = "chat.handout_test"

        def files(self, params):
            return {"notes.txt": params["text"].encode()}

    task = Handout().instance(store.golden(0, "tiny"), 1)
    assert task.files == {"notes.txt": task.params["text"].encode()}
    assert get("chat.post_update").instance(store.golden(0, "tiny"), 1).files == {}


def test_every_template_has_complete_metadata():
    for t in templates():
        app = t.id.split(".")[0]
        assert app in t.apps, t.id
        assert t.split in ("train", "test"), t.id
        assert 1 <= t.difficulty <= 5 and len(t.difficulty_reason) > 10, t.id
        assert t.tags and set(t.tags) <= TAGS, (t.id, t.tags)
        assert 1 <= t.max_steps <= 100, t.id


def test_template_ids_are_listed_without_loading_any_template():
    code = (
        "import sys\n"
        "from officegym.tasks import registry\n"
        "ids = registry.template_ids()\n"
        "loaded = [m for m in sys.modules if m.startswith(('officegym.tasks.chat.', "
        "'officegym.tasks.crm.'))]\n"
        "print(len(ids), 'chat.post_update' in ids, loaded, 'flask' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, has_post_update, loaded, flask = out.stdout.split()
    assert int(count) >= 50 and has_post_update == "True"
    assert loaded == "[]" and flask == "False"


def test_every_listed_id_loads_the_template_of_that_id():
    assert [t.id for t in templates()] == template_ids()


def test_a_template_must_name_apps_that_exist():
    class Elsewhere(get("chat.post_update").__class__):
        id = "chat.elsewhere_test"
        apps = ("mail",)

    with pytest.raises(TaskError, match="apps must name apps of officegym.apps"):
        register(Elsewhere)


# Split, difficulty and apps of every template: a benchmark's results are comparable across
# versions only while these hold, so changing one is a deliberate edit here.
CATALOGUE = {
    "booking.approve_by_policy": ("test", 4, ("booking",)),
    "booking.approve_request": ("train", 2, ("booking",)),
    "booking.book_cheapest_stay": ("test", 4, ("booking",)),
    "booking.book_for_colleague": ("train", 3, ("booking",)),
    "booking.book_home_with_amenities": ("train", 3, ("booking",)),
    "booking.book_near_office": ("train", 3, ("booking",)),
    "booking.book_out_of_policy": ("train", 3, ("booking",)),
    "booking.book_room_for_attendees": ("train", 4, ("booking",)),
    "booking.book_room_with_screen": ("train", 3, ("booking",)),
    "booking.book_stay_in_policy": ("train", 3, ("booking",)),
    "booking.cancel_room_booking": ("train", 1, ("booking",)),
    "booking.cancel_trip_refund": ("test", 3, ("booking",)),
    "booking.change_trip_dates": ("train", 2, ("booking",)),
    "booking.cheapest_stay_answer": ("test", 2, ("booking",)),
    "booking.customer_visit_stay": ("train", 5, ("crm", "booking")),
    "booking.highest_rated_answer": ("train", 2, ("booking",)),
    "booking.pending_trip_answer": ("train", 1, ("booking",)),
    "booking.reject_request": ("train", 2, ("booking",)),
    "booking.room_booked_by_answer": ("train", 2, ("booking",)),
    "booking.shorten_trip": ("train", 2, ("booking",)),
    "booking.stay_quote_answer": ("train", 2, ("booking",)),
    "booking.team_nights_answer": ("test", 3, ("booking",)),
    "booking.trip_total_answer": ("train", 1, ("booking",)),
    "booking.weekly_meeting": ("train", 3, ("booking",)),
    "booking.weekly_meeting_clash": ("test", 4, ("booking",)),
    "chat.archive_inactive": ("train", 5, ("chat",)),
    "chat.channel_member_count": ("test", 1, ("chat",)),
    "chat.contact_phone_conflict": ("train", 4, ("chat",)),
    "chat.count_unread_mentions": ("train", 3, ("chat",)),
    "chat.create_team_channel": ("train", 4, ("chat",)),
    "chat.delete_wrong_date": ("train", 3, ("chat",)),
    "chat.dm_by_title": ("train", 3, ("chat",)),
    "chat.edit_number": ("train", 3, ("chat",)),
    "chat.find_who_said": ("train", 2, ("chat",)),
    "chat.forward_to_manager": ("train", 4, ("chat",)),
    "chat.group_dm": ("test", 3, ("chat",)),
    "chat.invite_member": ("train", 2, ("chat",)),
    "chat.join_channel": ("train", 2, ("chat",)),
    "chat.last_post_date": ("test", 3, ("chat",)),
    "chat.list_thread_posters": ("train", 4, ("chat",)),
    "chat.move_question": ("train", 4, ("chat",)),
    "chat.pin_figure_message": ("train", 3, ("chat",)),
    "chat.post_update": ("train", 1, ("chat",)),
    "chat.react_to_announcement": ("train", 2, ("chat",)),
    "chat.reply_in_thread": ("train", 2, ("chat",)),
    "chat.save_message": ("test", 1, ("chat",)),
    "chat.set_status": ("test", 1, ("chat",)),
    "chat.set_topic": ("test", 1, ("chat",)),
    "chat.summarise_thread_decision": ("train", 4, ("chat",)),
    "chat.unpin_outdated": ("test", 3, ("chat",)),
    "crm.add_account_note": ("train", 1, ("crm",)),
    "crm.advance_deals_bulk": ("train", 3, ("crm",)),
    "crm.biggest_deal_this_quarter": ("train", 3, ("crm",)),
    "crm.close_stale_deals": ("train", 5, ("crm",)),
    "crm.complete_activity": ("train", 2, ("crm",)),
    "crm.contact_email_lookup": ("train", 1, ("crm",)),
    "crm.convert_lead_existing_account": ("train", 4, ("crm",)),
    "crm.convert_lead_new": ("test", 3, ("crm",)),
    "crm.count_overdue_activities": ("train", 2, ("crm",)),
    "crm.create_opportunity": ("train", 3, ("crm",)),
    "crm.follow_up_task": ("train", 3, ("crm",)),
    "crm.import_contacts_csv": ("train", 4, ("crm",)),
    "crm.log_call": ("test", 2, ("crm",)),
    "crm.merge_duplicate_accounts": ("test", 4, ("crm",)),
    "crm.merge_duplicate_contacts": ("train", 4, ("crm",)),
    "crm.move_deal_stage": ("train", 1, ("crm",)),
    "crm.post_deal_summary": ("test", 4, ("chat", "crm")),
    "crm.qualify_lead": ("train", 1, ("crm",)),
    "crm.reassign_account": ("train", 2, ("crm",)),
    "crm.reassign_departing_rep": ("train", 4, ("crm",)),
    "crm.set_next_step": ("test", 2, ("crm",)),
    "crm.update_contact_details": ("test", 1, ("crm",)),
    "crm.update_deal_terms": ("train", 2, ("crm",)),
    "crm.update_phone_from_chat": ("train", 5, ("chat", "crm")),
    "crm.won_this_quarter": ("test", 3, ("crm",)),
    "sheets.average_rate_answer": ("test", 2, ("sheets",)),
    "sheets.chart_budget": ("train", 3, ("sheets",)),
    "sheets.clean_text_numbers": ("train", 3, ("sheets",)),
    "sheets.comment_on_cell": ("test", 1, ("sheets",)),
    "sheets.copy_won_deals": ("test", 5, ("crm", "sheets")),
    "sheets.copy_workbook": ("train", 1, ("sheets",)),
    "sheets.count_over_threshold": ("train", 3, ("sheets",)),
    "sheets.fill_down_formula": ("train", 3, ("sheets",)),
    "sheets.filter_answer": ("test", 3, ("sheets",)),
    "sheets.fix_ref_error": ("test", 2, ("sheets",)),
    "sheets.flag_over_cap": ("train", 4, ("sheets",)),
    "sheets.freeze_and_currency": ("train", 2, ("sheets",)),
    "sheets.growth_percent": ("train", 3, ("sheets",)),
    "sheets.import_csv": ("train", 3, ("sheets",)),
    "sheets.insert_row_entry": ("train", 3, ("sheets",)),
    "sheets.largest_deal_owner": ("test", 3, ("sheets",)),
    "sheets.lookup_team_headcount": ("train", 4, ("sheets",)),
    "sheets.pivot_pipeline": ("train", 4, ("sheets",)),
    "sheets.remove_duplicate_row": ("train", 3, ("sheets",)),
    "sheets.rename_sheet": ("train", 1, ("sheets",)),
    "sheets.replace_city_name": ("train", 2, ("sheets",)),
    "sheets.share_viewer": ("test", 1, ("sheets",)),
    "sheets.sort_by_column": ("train", 2, ("sheets",)),
    "sheets.summary_sheet": ("train", 3, ("sheets",)),
    "sheets.total_column": ("train", 1, ("sheets",)),
}


def test_every_template_keeps_its_split_difficulty_and_apps():
    found = {t.id: (t.split, t.difficulty, t.apps) for t in templates()}
    assert found == CATALOGUE

"""The app registry: every app is declared once, by the `APP` entry of its package."""

from __future__ import annotations

import subprocess
import sys

import pytest

from officegym.apps.registry import AppEntry, Child, entries, entry, merged
from officegym.seed_data.schema import Base

ICON = "<svg></svg>"


def test_every_app_package_declares_its_entry():
    assert [app.slug for app in entries()] == ["booking", "chat", "crm", "sheets"]
    assert entry("crm").service == "officegym.apps.crm.service"


def test_an_apps_tables_are_the_world_tables_with_its_prefix():
    tables = entry("chat").tables()
    assert "chat_message" in tables and "crm_account" not in tables
    owned = {t for app in entries() for t in app.tables()}
    assert owned == {
        t for t in Base.metadata.tables if t.startswith(("booking_", "chat_", "crm_", "sheets_"))
    }


def test_the_dsl_mappings_merge_every_apps_declarations():
    assert merged("stamps")["crm_account"] == frozenset({"updated_at"})
    assert merged("children")["chat_pin"] == Child("message_id", "chat_message", "cascade")
    assert "chat_membership" in merged("honest_variance")


def test_an_entry_may_only_describe_its_own_tables():
    with pytest.raises(ValueError, match="not one of its tables"):
        AppEntry("mail", "Mail", "", ICON, "mail.index", stamps={"crm_account": frozenset()})


def test_a_blueprint_named_by_import_path_loads_on_first_use():
    bp = entry("chat").load_blueprint()
    assert bp.name == "chat"


def test_reading_the_entries_loads_no_web_stack():
    code = (
        "import sys\n"
        "from officegym.apps.registry import entries\n"
        "entries()\n"
        "print('flask' in sys.modules, 'officegym.apps.chat.views' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]

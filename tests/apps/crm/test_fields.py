"""Reading typed input into field values: what each kind accepts and how it says no."""

from __future__ import annotations

import sqlite3
from datetime import date

import pytest

from officegym.apps.crm.fields import (
    ACCOUNT_TYPES,
    INDUSTRIES,
    LEAD_SOURCES,
    LOSS_REASONS,
    OBJECTS,
    OPPORTUNITIES,
    Field,
    FieldError,
    parse,
)


def test_required_field_left_empty_says_it_is_required():
    with pytest.raises(FieldError, match="Opportunity name is required"):
        parse(OPPORTUNITIES.field("name"), "   ")


def test_optional_empty_field_is_none():
    assert parse(OPPORTUNITIES.field("next_step"), "") is None


@pytest.mark.parametrize(
    "raw", ["ada@example.com", "Ada.Lovelace+crm@mail.example.co.uk", "o'neil@example.ie"]
)
def test_valid_emails_are_kept(raw):
    assert parse(Field("email", "Email", "email"), raw) == raw


@pytest.mark.parametrize(
    "raw", ["ada", "ada@", "@example.com", "ada@example", "ada @example.com", "a@b@c.com"]
)
def test_invalid_emails_are_refused(raw):
    with pytest.raises(FieldError, match="must be an email address"):
        parse(Field("email", "Email", "email"), raw)


@pytest.mark.parametrize(
    "raw", ["+1 415-555-0134", "(415) 555-0134", "+44 20 7946 0958", "+1 415-555-0134 x204"]
)
def test_valid_phone_numbers_are_kept(raw):
    assert parse(Field("phone", "Phone", "phone"), raw) == raw


@pytest.mark.parametrize("raw", ["call me", "12345", "+1 415 CALL-NOW", "1" * 20])
def test_invalid_phone_numbers_are_refused(raw):
    with pytest.raises(FieldError, match="must be a phone number"):
        parse(Field("phone", "Phone", "phone"), raw)


@pytest.mark.parametrize(
    ("raw", "stored"),
    [("12500", 12500), ("$12,500", 12500), ("12,500.00", 12500), (12500, 12500), ("0", 0)],
)
def test_amounts_are_whole_numbers(raw, stored):
    assert parse(OPPORTUNITIES.field("amount"), raw) == stored


@pytest.mark.parametrize(
    ("raw", "message"),
    [("-5", "can't be negative"), ("12.5", "whole number"), ("lots", "must be a number")],
)
def test_bad_amounts_are_refused(raw, message):
    with pytest.raises(FieldError, match=message):
        parse(OPPORTUNITIES.field("amount"), raw)


def test_probability_is_a_percentage():
    assert parse(OPPORTUNITIES.field("probability"), "75") == 75
    with pytest.raises(FieldError, match="between 0 and 100"):
        parse(OPPORTUNITIES.field("probability"), "120")


@pytest.mark.parametrize("raw", ["2025-09-30", "9/30/2025", date(2025, 9, 30)])
def test_dates_in_iso_or_us_form(raw):
    assert parse(OPPORTUNITIES.field("close_date"), raw) == date(2025, 9, 30)


@pytest.mark.parametrize("raw", ["2025-02-30", "next week", "30/9/2025"])
def test_bad_dates_are_refused(raw):
    with pytest.raises(FieldError, match="must be a date"):
        parse(OPPORTUNITIES.field("close_date"), raw)


def test_picklist_values_match_case_insensitively_and_store_the_canonical_value():
    assert parse(OPPORTUNITIES.field("stage"), "closed won") == "Closed Won"
    with pytest.raises(FieldError, match="Stage must be one of: Prospecting"):
        parse(OPPORTUNITIES.field("stage"), "Won-ish")


def test_web_addresses_get_a_scheme():
    website = OBJECTS["accounts"].field("website")
    assert parse(website, "www.example.com") == "https://www.example.com"
    assert parse(website, "http://example.com/x") == "http://example.com/x"
    with pytest.raises(FieldError):
        parse(website, "not a site")


def test_text_is_trimmed_and_length_checked():
    name = OPPORTUNITIES.field("name")
    assert parse(name, "  Big   deal ") == "Big deal"
    with pytest.raises(FieldError, match="at most 200"):
        parse(name, "x" * 201)


def test_control_characters_are_refused():
    with pytest.raises(FieldError, match="can't be stored"):
        parse(OPPORTUNITIES.field("name"), "bad\x00name")


def test_picklists_cover_every_value_the_world_holds(store):
    """Editing any generated record must not trip over its own stored picklist values."""
    conn = sqlite3.connect(f"file:{store.golden(0, 'tiny')}?mode=ro", uri=True)
    try:
        types = {r[0] for r in conn.execute("SELECT DISTINCT account_type FROM crm_account")}
        industries = {
            r[0] for r in conn.execute("SELECT DISTINCT industry FROM crm_account") if r[0]
        }
        sources = {r[0] for r in conn.execute("SELECT DISTINCT source FROM crm_lead") if r[0]}
        reasons = {
            (r[0], r[1])
            for r in conn.execute("SELECT DISTINCT stage, loss_reason FROM crm_opportunity")
        }
        emails = [r[0] for r in conn.execute("SELECT email FROM crm_contact WHERE email != ''")]
        phones = [r[0] for r in conn.execute("SELECT phone FROM crm_contact WHERE phone != ''")]
    finally:
        conn.close()
    assert types <= set(ACCOUNT_TYPES)
    assert industries <= set(INDUSTRIES)
    assert sources <= set(LEAD_SOURCES)
    assert {reason for stage, reason in reasons if stage == "Closed Lost"} <= set(LOSS_REASONS)
    assert {reason for stage, reason in reasons if stage != "Closed Lost"} == {None}
    for email in emails:
        parse(Field("email", "Email", "email"), email)
    for phone in phones:
        parse(Field("phone", "Phone", "phone", max_length=40), phone)

"""Markup agents and screen readers rely on: unique ids, a label for every control, named
buttons, landmarks."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from .conftest import token

PAGES = [
    "/crm/",
    "/crm/opportunities",
    "/crm/contacts?view=mine",
    "/crm/pipeline",
    "/crm/reports",
    "/crm/duplicates",
    "/crm/import",
    "/crm/opportunities/{opp}",
    "/crm/opportunities/{opp}?edit=stage",
    "/crm/opportunities/{opp}/edit",
    "/crm/accounts/{account}",
    "/crm/contacts/{contact}",
    "/crm/leads/{lead}",
    "/crm/leads/{lead}/convert",
    "/crm/contacts/merge?ids={dup0}&ids={dup1}",
    "/crm/accounts/new",
]


class _Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.label_for: set[str] = set()
        self.controls: list[dict] = []
        self.buttons: list[dict] = []
        self.landmarks: set[str] = set()
        self._labels = 0
        self._button: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "label":
            self._labels += 1
            if a.get("for"):
                self.label_for.add(a["for"])
        if tag in ("main", "nav", "header") or a.get("role") in ("search", "navigation"):
            self.landmarks.add(tag)
        if tag in ("input", "select", "textarea"):
            kind = a.get("type", "text")
            if kind not in ("hidden", "submit", "button") and "hidden" not in a:
                self.controls.append({**a, "_tag": tag, "_in_label": self._labels > 0})
        if tag == "button":
            self._button = {**a, "_text": ""}

    def handle_endtag(self, tag):
        if tag == "label":
            self._labels -= 1
        if tag == "button" and self._button is not None:
            self.buttons.append(self._button)
            self._button = None

    def handle_data(self, data):
        if self._button is not None:
            self._button["_text"] += data


@pytest.fixture
def pages(as_person, facts):
    client = as_person(facts.rep)
    token(client)
    values = {
        "opp": facts.rep_opportunity,
        "account": facts.rep_account,
        "contact": facts.rep_contact,
        "lead": facts.rep_lead,
        "dup0": facts.duplicate_contacts[0],
        "dup1": facts.duplicate_contacts[1],
    }
    return client, values


@pytest.mark.parametrize("path", PAGES)
def test_controls_are_labelled_ids_unique_buttons_named(pages, path):
    client, values = pages
    response = client.get(path.format(**values))
    assert response.status_code == 200, path
    audit = _Audit()
    audit.feed(response.get_data(as_text=True))
    duplicates = sorted({i for i in audit.ids if audit.ids.count(i) > 1})
    assert duplicates == [], f"duplicate ids on {path}"
    for control in audit.controls:
        labelled = (
            control.get("id") in audit.label_for
            or control["_in_label"]
            or control.get("aria-label")
            or control.get("aria-labelledby")
        )
        assert labelled, f"unlabelled {control['_tag']} {control.get('name')} on {path}"
    for button in audit.buttons:
        assert button["_text"].strip() or button.get("aria-label"), f"unnamed button on {path}"
    assert {"main", "nav", "header"} <= audit.landmarks

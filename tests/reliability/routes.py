"""Every write route of the suite, and for each one a request that someone may not make.

`write_routes(app)` names each rule of `app.url_map` that accepts POST, PUT, PATCH or DELETE
(a rule with an `any(...)` part once per choice, as `endpoint[choice]`). `matrix(world_path)`
gives each name a `Probe`: the request (path filled with real ids of the world), and who is
refused and how. Actors and resources are picked by querying the world file, by rule (a
private channel the actor is not in, a record someone else owns), not by fixed ids.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.routing.converters import AnyConverter

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
HIDDEN = frozenset({404})  # the product answers as for an id never used
FORBIDDEN = frozenset({403})


@dataclass(frozen=True)
class Refusal:
    """`actor` (an employee id) sends the probe and must get one of `statuses`."""

    actor: int
    statuses: frozenset[int]
    why: str


@dataclass(frozen=True)
class Probe:
    """One write request: `kind` is `json` (the API), `form` or `multipart` (HTML forms).

    `refusals` lists who must be refused; `open_to_all` says why no signed-in employee is
    (every employee may create a channel, their own status, a CRM record...). `allowed`, when
    set, may make the same request and it changes the world: proof that the refusals are about
    who asks, not about a request that could never succeed."""

    method: str
    path: str
    kind: str
    body: dict = field(default_factory=dict)
    refusals: tuple[Refusal, ...] = ()
    open_to_all: str = ""
    allowed: int | None = None

    @property
    def is_api(self) -> bool:
        return "/api/" in self.path


def write_routes(app: Flask) -> dict[str, tuple[str, ...]]:
    """Every write route as `name -> methods` (see the module docstring for names)."""
    found: dict[str, tuple[str, ...]] = {}
    for rule in app.url_map.iter_rules():
        methods = tuple(sorted((rule.methods or set()) & WRITE_METHODS))
        if not methods:
            continue
        choices = [
            sorted(conv.items)
            for conv in rule._converters.values()
            if isinstance(conv, AnyConverter)
        ]
        if not choices:
            found[rule.endpoint] = methods
            continue
        assert len(choices) == 1, f"{rule.rule}: more than one any() part"
        for choice in choices[0]:
            found[f"{rule.endpoint}[{choice}]"] = methods
    return found


# -- the world's facts, read by rule ---------------------------------------------------------


class Facts:
    """Ids picked from the world file by the rule each one names."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)

    def close(self) -> None:
        self.conn.close()

    def one(self, sql: str, *args: object) -> Any:
        row = self.conn.execute(sql, args).fetchone()
        assert row is not None, f"the world has no row for: {sql} {args}"
        return row[0]

    def row(self, sql: str, *args: object) -> tuple:
        found = self.conn.execute(sql, args).fetchone()
        assert found is not None, f"the world has no row for: {sql} {args}"
        return found

    def unreferenced(self, table: str) -> str:
        """An SQL condition: no row (but the record's own history) refers to the `table` row."""
        tables = [
            n
            for (n,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not n.startswith(("sqlite_", "_")) and n != f"{table}_history"
        ]
        parts = [
            f'id NOT IN (SELECT "{fk[3]}" FROM "{other}" WHERE "{fk[3]}" IS NOT NULL)'
            for other in tables
            for fk in self.conn.execute(f'PRAGMA foreign_key_list("{other}")')
            if fk[2] == table
        ]
        return " AND ".join(parts) or "1"

    def ids(self, sql: str, *args: object, count: int = 2) -> list[int]:
        rows = [r[0] for r in self.conn.execute(sql, args).fetchall()][:count]
        assert len(rows) == count, f"the world has fewer than {count} rows for: {sql} {args}"
        return rows


def arrangement(world_path: Path) -> tuple[int, str, list[tuple[str, dict]]]:
    """What the world needs before `matrix` (the seed has no sheet comment, pivot or filter):
    the owner of the shared workbook with a chart, and the API calls (path, JSON) they make."""
    f = Facts(world_path)
    try:
        book, owner = f.row(
            "SELECT w.id, w.owner_id FROM sheets_workbook w JOIN sheets_share s "
            "ON s.workbook_id = w.id WHERE s.permission = 'view' AND w.trashed_at IS NULL "
            "AND w.id IN (SELECT workbook_id FROM sheets_chart c JOIN sheets_sheet t "
            "ON t.id = c.sheet_id) ORDER BY s.id"
        )
        sheet = f.one("SELECT id FROM sheets_sheet WHERE workbook_id = ? ORDER BY id", book)
        pivot = _pivot_spec(f, sheet)
        email = f.one("SELECT email FROM people_employee WHERE id = ?", owner)
    finally:
        f.close()
    api = f"/sheets/api/workbooks/{book}/sheets/{sheet}"
    calls = [
        (f"{api}/comments", {"cell": "A1", "body": "Owner note"}),
        (f"{api}/pivots", pivot),
        (f"{api}/filter", {"ref": pivot["source"], "shown": {}}),
        # Two edits and one undo, so both undo and redo have something to do.
        (f"{api}/range", {"ref": "B30", "values": [["first"]]}),
        (f"{api}/range", {"ref": "B30", "values": [["second"]]}),
        (f"/sheets/api/workbooks/{book}/undo", {}),
    ]
    return owner, email, calls


def _pivot_spec(f: Facts, sheet: int) -> dict:
    """A pivot of the sheet's first rows: by its first column, summing its last."""
    header = [
        raw
        for (raw,) in f.conn.execute(
            "SELECT raw FROM sheets_cell WHERE sheet_id = ? AND row = 1 ORDER BY col", (sheet,)
        )
    ]
    return {
        "source": f"A1:{chr(ord('A') + len(header) - 1)}5",
        "rows": [header[0]],
        "values": [{"field": header[-1], "function": "SUM"}],
    }


def _allow(probes: dict[str, Probe], actor: int, *names: str) -> None:
    for name in names:
        probes[name] = replace(probes[name], allowed=actor)


def matrix(world_path: Path) -> dict[str, Probe]:
    """The probe for every write route (see the module docstring)."""
    f = Facts(world_path)
    try:
        out: dict[str, Probe] = {}
        for part in (_chat, _crm, _sheets, _booking):
            out.update(part(f))
        return out
    finally:
        f.close()


ACTIVE = "SELECT id FROM people_employee WHERE is_active"


def _chat(f: Facts) -> dict[str, Probe]:
    private = f.one(
        "SELECT id FROM chat_channel WHERE kind = 'channel' AND is_private "
        "AND archived_at IS NULL ORDER BY id"
    )
    # An outsider: an active employee in no private channel or DM, but in #general.
    outsider = f.one(
        f"{ACTIVE} AND role = 'member' AND id NOT IN (SELECT m.employee_id FROM chat_membership m "
        "JOIN chat_channel c ON c.id = m.channel_id WHERE c.is_private) ORDER BY id"
    )
    dm = f.one("SELECT id FROM chat_channel WHERE kind = 'dm' ORDER BY id")
    hidden_message = f.one(
        "SELECT m.id FROM chat_message m JOIN chat_pin p ON p.message_id = m.id "
        "WHERE m.channel_id = ? AND m.deleted_at IS NULL ORDER BY m.id",
        private,
    )
    unpinned = f.one(
        "SELECT id FROM chat_message WHERE channel_id = ? AND deleted_at IS NULL "
        "AND id NOT IN (SELECT message_id FROM chat_pin) ORDER BY id",
        private,
    )
    insider = f.one(
        "SELECT employee_id FROM chat_membership WHERE channel_id = ? ORDER BY employee_id",
        private,
    )
    dm_member = f.one("SELECT employee_id FROM chat_membership WHERE channel_id = ?", dm)
    # Someone else's message in a live channel the outsider is in.
    others_message = f.one(
        "SELECT m.id FROM chat_message m JOIN chat_channel c ON c.id = m.channel_id "
        "JOIN chat_membership s ON s.channel_id = c.id AND s.employee_id = ? "
        "WHERE m.author_id != ? AND m.deleted_at IS NULL AND c.archived_at IS NULL "
        "ORDER BY m.id",
        outsider,
        outsider,
    )
    author = f.one("SELECT author_id FROM chat_message WHERE id = ?", others_message)
    archived = f.one(
        "SELECT id FROM chat_channel WHERE archived_at IS NOT NULL AND NOT is_private ORDER BY id"
    )
    archived_member = f.one(
        "SELECT employee_id FROM chat_membership WHERE channel_id = ?", archived
    )
    not_in_archived = f.one(
        f"{ACTIVE} AND id NOT IN (SELECT employee_id FROM chat_membership WHERE channel_id = ?) "
        "ORDER BY id",
        archived,
    )
    hide = (Refusal(outsider, HIDDEN, "not a member of a private channel"),)
    hide_dm = (Refusal(outsider, HIDDEN, "not in the DM"),)
    hide_msg = (Refusal(outsider, HIDDEN, "a message in a private channel they are not in"),)
    not_theirs = (Refusal(outsider, FORBIDDEN, "someone else's message"),)
    unarchive = (Refusal(not_in_archived, FORBIDDEN, "not a member of the archived channel"),)
    api, c, m = "/chat/api", f"/chat/c/{private}", f"/chat/m/{hidden_message}"
    everyone = "every employee may do this for themselves"
    probes = {
        "chat.chat_api.create_channel": Probe(
            "POST", f"{api}/channels", "json", {"name": "probe-room"}, open_to_all=everyone
        ),
        "chat.chat_api.update_channel": Probe(
            "PATCH", f"{api}/channels/{private}", "json", {"topic": "probe"}, hide
        ),
        "chat.chat_api.archive_channel": Probe(
            "POST", f"{api}/channels/{private}/archive", "json", {}, hide
        ),
        "chat.chat_api.unarchive_channel": Probe(
            "POST", f"{api}/channels/{archived}/unarchive", "json", {}, unarchive
        ),
        "chat.chat_api.join_channel": Probe(
            "POST", f"{api}/channels/{private}/join", "json", {}, hide
        ),
        "chat.chat_api.leave_channel": Probe(
            "POST", f"{api}/channels/{dm}/leave", "json", {}, hide_dm
        ),
        "chat.chat_api.invite": Probe(
            "POST", f"{api}/channels/{private}/members", "json", {"employee_ids": [outsider]}, hide
        ),
        "chat.chat_api.post_message": Probe(
            "POST", f"{api}/channels/{dm}/messages", "json", {"body": "probe"}, hide_dm
        ),
        "chat.chat_api.mark_read": Probe(
            "POST", f"{api}/channels/{private}/read", "json", {}, hide
        ),
        "chat.chat_api.open_dm": Probe(
            "POST", f"{api}/dms", "json", {"employee_ids": [not_in_archived]}, open_to_all=everyone
        ),
        "chat.chat_api.set_status": Probe(
            "PUT", f"{api}/me/status", "json", {"text": "probe"}, open_to_all=everyone
        ),
        "chat.chat_api.edit_message": Probe(
            "PATCH", f"{api}/messages/{others_message}", "json", {"body": "probe"}, not_theirs
        ),
        "chat.chat_api.delete_message": Probe(
            "DELETE", f"{api}/messages/{others_message}", "json", {}, not_theirs
        ),
        "chat.chat_api.pin": Probe(
            "PUT", f"{api}/messages/{hidden_message}/pin", "json", {}, hide_msg
        ),
        "chat.chat_api.unpin": Probe(
            "DELETE", f"{api}/messages/{hidden_message}/pin", "json", {}, hide_msg
        ),
        "chat.chat_api.toggle_reaction": Probe(
            "POST",
            f"{api}/messages/{hidden_message}/reactions",
            "json",
            {"emoji": "eyes"},
            hide_msg,
        ),
        "chat.chat_api.reply": Probe(
            "POST", f"{api}/messages/{hidden_message}/replies", "json", {"body": "probe"}, hide_msg
        ),
        "chat.chat_api.save": Probe(
            "PUT", f"{api}/messages/{hidden_message}/save", "json", {}, hide_msg
        ),
        "chat.chat_api.unsave": Probe(
            "DELETE", f"{api}/messages/{hidden_message}/save", "json", {}, hide_msg
        ),
        "chat.archive": Probe("POST", f"{c}/archive", "form", {}, hide),
        "chat.unarchive": Probe("POST", f"/chat/c/{archived}/unarchive", "form", {}, unarchive),
        "chat.set_description": Probe(
            "POST", f"{c}/description", "form", {"description": "x"}, hide
        ),
        "chat.set_topic": Probe("POST", f"{c}/topic", "form", {"topic": "probe"}, hide),
        "chat.invite": Probe("POST", f"{c}/invite", "form", {"employee_ids": str(outsider)}, hide),
        "chat.join": Probe("POST", f"{c}/join", "form", {}, hide),
        "chat.leave": Probe("POST", f"/chat/c/{dm}/leave", "form", {}, hide_dm),
        "chat.post": Probe("POST", f"/chat/c/{dm}/post", "form", {"body": "probe"}, hide_dm),
        "chat.mark_read": Probe("POST", f"{c}/read", "form", {}, hide),
        "chat.new_dm": Probe(
            "POST", "/chat/dm/new", "form", {"people": str(not_in_archived)}, open_to_all=everyone
        ),
        "chat.delete": Probe("POST", f"/chat/m/{others_message}/delete", "form", {}, not_theirs),
        "chat.edit": Probe(
            "POST", f"/chat/m/{others_message}/edit", "form", {"body": "x"}, not_theirs
        ),
        "chat.pin": Probe("POST", f"{m}/pin", "form", {}, hide_msg),
        "chat.unpin": Probe("POST", f"{m}/unpin", "form", {}, hide_msg),
        "chat.react": Probe("POST", f"{m}/react", "form", {"emoji": "eyes"}, hide_msg),
        "chat.save": Probe("POST", f"{m}/save", "form", {}, hide_msg),
        "chat.unsave": Probe("POST", f"{m}/unsave", "form", {}, hide_msg),
        "chat.reply": Probe(
            "POST", f"/chat/t/{hidden_message}/reply", "form", {"body": "x"}, hide_msg
        ),
        "chat.new_channel": Probe(
            "POST", "/chat/new", "form", {"name": "probe-room"}, open_to_all=everyone
        ),
        "chat.message_person": Probe(
            "POST", f"/chat/people/{not_in_archived}/message", "form", {}, open_to_all=everyone
        ),
        "chat.status": Probe(
            "POST", "/chat/status", "form", {"text": "probe"}, open_to_all=everyone
        ),
    }
    for name in ("chat.chat_api.pin", "chat.pin"):
        probe = probes[name]
        probes[name] = replace(probe, path=probe.path.replace(str(hidden_message), str(unpinned)))
    _allow(
        probes, insider,
        "chat.chat_api.update_channel", "chat.chat_api.archive_channel", "chat.chat_api.invite",
        "chat.chat_api.mark_read", "chat.chat_api.pin", "chat.chat_api.unpin",
        "chat.chat_api.toggle_reaction", "chat.chat_api.reply", "chat.chat_api.save",
        "chat.archive", "chat.set_description", "chat.set_topic", "chat.invite", "chat.mark_read",
        "chat.pin", "chat.unpin", "chat.react", "chat.save", "chat.reply",
    )  # fmt: skip
    _allow(probes, dm_member, "chat.chat_api.post_message", "chat.post")
    _allow(
        probes, author,
        "chat.chat_api.edit_message", "chat.chat_api.delete_message", "chat.delete", "chat.edit",
    )  # fmt: skip
    _allow(probes, archived_member, "chat.chat_api.unarchive_channel", "chat.unarchive")
    return probes


CRM_TABLES = {
    "accounts": ("crm_account", "owner_id"),
    "contacts": ("crm_contact", "owner_id"),
    "leads": ("crm_lead", "owner_id"),
    "opportunities": ("crm_opportunity", "owner_id"),
    "activities": ("crm_activity", "owner_id"),
    "notes": ("crm_note", "author_id"),
}
# A harmless change to a record of each kind (what the edit would write if it were allowed).
CRM_CHANGE = {
    "accounts": {"website": "https://probe.example"},
    "contacts": {"title": "Probe"},
    "leads": {"company": "Probe Co"},
    "opportunities": {"next_step": "Probe"},
    "activities": {"subject": "Probe"},
    "notes": {"body": "Probe"},
}
CRM_FIELD = {k: next(iter(v)) for k, v in CRM_CHANGE.items()}
# Records that can still change (a converted lead is kept as it was).
LIVE = {"leads": "AND status != 'Converted'"}


def _crm(f: Facts) -> dict[str, Probe]:
    # A rep (role member, no reports) who owns records, and records someone else owns.
    rep = f.one(
        f"{ACTIVE} AND role = 'member' AND id IN (SELECT owner_id FROM crm_account) "
        "AND id NOT IN (SELECT manager_id FROM people_employee WHERE manager_id IS NOT NULL) "
        "ORDER BY id"
    )
    theirs = {
        key: f.ids(
            f"SELECT id FROM {table} WHERE {owner} != ? {LIVE.get(key, '')} ORDER BY id", rep
        )
        for key, (table, owner) in CRM_TABLES.items()
    }
    # Records nothing refers to can be deleted (where the world has one someone else owns).
    deletable = {
        key: f.conn.execute(
            f"SELECT id FROM {table} WHERE {owner} != ? {LIVE.get(key, '')} "
            f"AND {f.unreferenced(table)} ORDER BY id",
            (rep,),
        ).fetchone()
        for key, (table, owner) in CRM_TABLES.items()
    }
    lead = f.one(
        "SELECT id FROM crm_lead WHERE owner_id != ? AND status != 'Converted' ORDER BY id", rep
    )
    opp = f.one(
        "SELECT id FROM crm_opportunity WHERE owner_id != ? "
        "AND stage NOT IN ('Negotiation', 'Closed Won', 'Closed Lost') ORDER BY id",
        rep,
    )
    activity = f.one(
        "SELECT id FROM crm_activity WHERE owner_id != ? AND status != 'Completed' ORDER BY id", rep
    )
    refuse = (Refusal(rep, FORBIDDEN, "a record someone else owns"),)
    anyone = "every employee may add records (the CRM's rules)"
    out: dict[str, Probe] = {}
    for key in CRM_TABLES:
        rid = theirs[key][0]
        change = CRM_CHANGE[key]
        name = CRM_FIELD[key]
        out[f"crm.crm_api.update[{key}]"] = Probe(
            "PATCH", f"/crm/api/{key}/{rid}", "json", change, refuse
        )
        gone = deletable[key][0] if deletable[key] else rid
        out[f"crm.crm_api.delete[{key}]"] = Probe(
            "DELETE", f"/crm/api/{key}/{gone}", "json", {}, refuse
        )
        out[f"crm.crm_api.create[{key}]"] = Probe(
            "POST", f"/crm/api/{key}", "json", {}, open_to_all=anyone
        )
        out[f"crm.edit_record[{key}]"] = Probe(
            "POST", f"/crm/{key}/{rid}/edit", "form", change, refuse
        )
        out[f"crm.delete_record[{key}]"] = Probe(
            "POST", f"/crm/{key}/{gone}/delete", "form", {}, refuse
        )
        out[f"crm.inline_edit[{key}]"] = Probe(
            "POST",
            f"/crm/{key}/{rid}/field",
            "form",
            {"field": name, "value": change[name]},
            refuse,
        )
        out[f"crm.new_record[{key}]"] = Probe(
            "POST", f"/crm/{key}/new", "form", {}, open_to_all=anyone
        )
    for key in ("accounts", "contacts", "leads", "opportunities", "activities"):
        ids = theirs[key]
        out[f"crm.crm_api.bulk[{key}]"] = Probe(
            "POST", f"/crm/api/{key}/bulk", "json",
            {"ids": ids, "field": "owner_id", "value": rep}, refuse,
        )  # fmt: skip
        out[f"crm.bulk[{key}]"] = Probe(
            "POST", f"/crm/{key}/bulk", "form",
            {"ids": [str(i) for i in ids], "field": "owner_id", "value": str(rep),
             "confirm": "yes"}, refuse,
        )  # fmt: skip
    for key in ("accounts", "contacts", "leads"):
        ids = theirs[key]
        out[f"crm.crm_api.merge[{key}]"] = Probe(
            "POST", f"/crm/api/{key}/merge", "json", {"ids": ids, "master_id": ids[0]}, refuse
        )
        out[f"crm.merge[{key}]"] = Probe(
            "POST", f"/crm/{key}/merge", "form",
            {"ids": [str(i) for i in ids], "master_id": str(ids[0])}, refuse,
        )  # fmt: skip
    for key in ("accounts", "contacts", "opportunities"):
        out[f"crm.log_on_record[{key}]"] = Probe(
            "POST", f"/crm/{key}/{theirs[key][0]}/log/note", "form", {"body": "probe"},
            open_to_all="anyone may add notes and activities to any record",
        )  # fmt: skip
    out["crm.crm_api.complete"] = Probe(
        "POST", f"/crm/api/activities/{activity}/complete", "json", {}, refuse
    )
    out["crm.complete_activity"] = Probe(
        "POST", f"/crm/activities/{activity}/complete", "form", {}, refuse
    )
    out["crm.crm_api.move_stage"] = Probe(
        "POST", f"/crm/api/opportunities/{opp}/stage", "json", {"stage": "Negotiation"}, refuse
    )
    out["crm.move_stage"] = Probe(
        "POST", f"/crm/opportunities/{opp}/stage", "form", {"stage": "Negotiation"}, refuse
    )
    out["crm.crm_api.convert"] = Probe(
        "POST", f"/crm/api/leads/{lead}/convert", "json", {"create_opportunity": False}, refuse
    )
    out["crm.convert"] = Probe(
        "POST", f"/crm/leads/{lead}/convert", "form",
        {"account_choice": "new", "contact_choice": "new", "owner_id": str(rep)}, refuse,
    )  # fmt: skip
    csv = "first_name,last_name,email\nProbe,Person,probe.person@example.com\n"
    out["crm.crm_api.import_contacts"] = Probe(
        "POST", "/crm/api/contacts/import", "json", {"csv": csv}, open_to_all=anyone
    )
    out["crm.import_preview"] = Probe(
        "POST", "/crm/import/preview", "form", {"csv_text": csv}, open_to_all=anyone
    )
    out["crm.import_run"] = Probe(
        "POST", "/crm/import/run", "form", {"csv_text": csv}, open_to_all=anyone
    )
    admin = f.one(f"{ACTIVE} AND role = 'admin' ORDER BY id")
    _allow(out, admin, *(name for name, probe in out.items() if probe.refusals))
    for key, found in deletable.items():
        if found is None:  # every such record is referred to: deleting it is a Conflict
            for name in (f"crm.crm_api.delete[{key}]", f"crm.delete_record[{key}]"):
                out[name] = replace(out[name], allowed=None)
    return out


def _sheets(f: Facts) -> dict[str, Probe]:
    # A workbook shared view-only with someone, and an employee it is not shared with at all.
    book, viewer = f.row(
        "SELECT s.workbook_id, s.employee_id FROM sheets_share s JOIN sheets_workbook w "
        "ON w.id = s.workbook_id WHERE s.permission = 'view' AND w.trashed_at IS NULL "
        "AND w.id IN (SELECT workbook_id FROM sheets_chart c JOIN sheets_sheet t "
        "ON t.id = c.sheet_id) ORDER BY s.id"
    )
    stranger = f.one(
        f"{ACTIVE} AND id NOT IN (SELECT employee_id FROM sheets_share WHERE workbook_id = ?) "
        "AND id != (SELECT owner_id FROM sheets_workbook WHERE id = ?) ORDER BY id",
        book,
        book,
    )
    sheet = f.one("SELECT id FROM sheets_sheet WHERE workbook_id = ? ORDER BY id", book)
    chart = f.one(
        "SELECT c.id FROM sheets_chart c JOIN sheets_sheet t ON t.id = c.sheet_id "
        "WHERE t.workbook_id = ?",
        book,
    )
    shared = f.one(
        "SELECT employee_id FROM sheets_share WHERE workbook_id = ? AND employee_id != ?",
        book,
        viewer,
    )
    chart_source = f.one("SELECT source_range FROM sheets_chart WHERE id = ?", chart)
    pivot_spec = _pivot_spec(f, sheet)
    both = (
        Refusal(viewer, FORBIDDEN, "the workbook is shared with them view-only"),
        Refusal(stranger, HIDDEN, "the workbook is not shared with them"),
    )
    hidden = both[1:]
    w, api = f"/sheets/w/{book}", f"/sheets/api/workbooks/{book}"
    s, apis = f"{w}/s/{sheet}", f"{api}/sheets/{sheet}"
    # The seed has no comment or pivot: the world fixture adds them as the owner (`arrange`).
    comment = f.one(
        "SELECT c.id FROM sheets_comment c JOIN sheets_sheet t ON t.id = c.sheet_id "
        "WHERE t.workbook_id = ? AND c.author_id NOT IN (?, ?) ORDER BY c.id",
        book,
        viewer,
        stranger,
    )
    pivot = f.one(
        "SELECT p.id FROM sheets_pivot p JOIN sheets_sheet t ON t.id = p.source_sheet_id "
        "WHERE t.workbook_id = ? ORDER BY p.id",
        book,
    )
    anyone = "every employee may make their own workbooks"
    csv_file = {"file": ("probe.csv", b"a,b\n1,2\n")}
    owner = f.one("SELECT owner_id FROM sheets_workbook WHERE id = ?", book)
    probes = {
        "sheets.sheets_api.create_workbook": Probe(
            "POST", "/sheets/api/workbooks", "json", {"name": "Probe"}, open_to_all=anyone
        ),
        "sheets.sheets_api.import_workbook": Probe(
            "POST", "/sheets/api/workbooks/import", "multipart", csv_file, open_to_all=anyone
        ),
        "sheets.new_workbook": Probe(
            "POST", "/sheets/new", "form", {"name": "Probe"}, open_to_all=anyone
        ),
        "sheets.import_file": Probe(
            "POST", "/sheets/import", "multipart", csv_file, open_to_all=anyone
        ),
        "sheets.sheets_api.rename_workbook": Probe("PATCH", api, "json", {"name": "Probe"}, both),
        "sheets.sheets_api.copy_workbook": Probe(
            "POST", f"{api}/copy", "json", {"name": "Probe copy"}, hidden
        ),
        "sheets.sheets_api.trash_workbook": Probe("POST", f"{api}/trash", "json", {}, both),
        "sheets.sheets_api.restore_workbook": Probe("POST", f"{api}/restore", "json", {}, both),
        "sheets.sheets_api.add_share": Probe(
            "POST", f"{api}/shares", "json", {"employee_id": stranger, "permission": "edit"}, both
        ),
        "sheets.sheets_api.remove_share": Probe(
            "DELETE", f"{api}/shares/{shared}", "json", {}, both
        ),
        "sheets.sheets_api.undo": Probe("POST", f"{api}/undo", "json", {}, both),
        "sheets.sheets_api.redo": Probe("POST", f"{api}/redo", "json", {}, both),
        "sheets.sheets_api.replace": Probe(
            "POST", f"{api}/replace", "json", {"find": "a", "replace": "b"}, both
        ),
        "sheets.sheets_api.import_csv_sheet": Probe(
            "POST", f"{api}/import.csv", "multipart", csv_file, both
        ),
        "sheets.sheets_api.add_sheet": Probe(
            "POST", f"{api}/sheets", "json", {"name": "Probe"}, both
        ),
        "sheets.sheets_api.update_sheet": Probe("PATCH", apis, "json", {"name": "Probe"}, both),
        "sheets.sheets_api.delete_sheet": Probe("DELETE", apis, "json", {}, both),
        "sheets.sheets_api.sheet_delete": Probe(
            "POST", f"{apis}/delete", "json", {"axis": "row", "at": 2}, both
        ),
        "sheets.sheets_api.sheet_clear": Probe(
            "POST", f"{apis}/clear", "json", {"ref": "A1:B2"}, both
        ),
        "sheets.sheets_api.sheet_fill": Probe(
            "POST", f"{apis}/fill", "json", {"ref": "A1:A3", "direction": "down"}, both
        ),
        "sheets.sheets_api.sheet_filter": Probe(
            "POST", f"{apis}/filter", "json", {"ref": "A1:D5", "shown": {"1": ["Executive"]}}, both
        ),
        "sheets.sheets_api.clear_filter": Probe("DELETE", f"{apis}/filter", "json", {}, both),
        "sheets.sheets_api.sheet_format": Probe(
            "POST", f"{apis}/format", "json", {"ref": "A2", "bold": True}, both
        ),
        "sheets.sheets_api.sheet_insert": Probe(
            "POST", f"{apis}/insert", "json", {"axis": "row", "at": 2}, both
        ),
        "sheets.sheets_api.sheet_paste": Probe(
            "POST", f"{apis}/paste", "json", {"source": "A1", "target": "B1"}, both
        ),
        "sheets.sheets_api.sheet_sort": Probe(
            "POST", f"{apis}/sort", "json", {"ref": "A1:D5", "by": "A"}, both
        ),
        "sheets.sheets_api.write_range": Probe(
            "PUT", f"{apis}/range", "json", {"ref": "A1", "values": [["probe"]]}, both
        ),
        "sheets.sheets_api.set_width": Probe(
            "PUT", f"{apis}/columns/A", "json", {"width": 200}, both
        ),
        "sheets.sheets_api.add_comment": Probe(
            "POST", f"{apis}/comments", "json", {"cell": "A1", "body": "probe"}, hidden
        ),
        "sheets.sheets_api.delete_comment": Probe(
            "DELETE", f"{api}/comments/{comment}", "json", {}, both
        ),
        "sheets.sheets_api.create_pivot": Probe("POST", f"{apis}/pivots", "json", pivot_spec, both),
        "sheets.sheets_api.refresh_pivot": Probe(
            "POST", f"{api}/pivots/{pivot}/refresh", "json", {}, both
        ),
        "sheets.sheets_api.add_chart": Probe(
            "POST", f"{apis}/charts", "json", {"kind": "bar", "source": chart_source}, both
        ),
        "sheets.sheets_api.delete_chart": Probe(
            "DELETE", f"{api}/charts/{chart}", "json", {}, both
        ),
        "sheets.refresh_pivot": Probe("POST", f"{w}/pivots/{pivot}/refresh", "form", {}, both),
        "sheets.act": Probe("POST", f"{s}/act", "form", {"action": "bold", "cell": "A2"}, both),
        "sheets.set_cell": Probe("POST", f"{s}/cell", "form", {"cell": "A1", "raw": "probe"}, both),
        "sheets.chart_page": Probe(
            "POST", f"{s}/chart", "form", {"kind": "bar", "source": chart_source}, both
        ),
        "sheets.comments": Probe(
            "POST", f"{s}/comments", "form", {"cell": "A1", "body": "x"}, hidden
        ),
        "sheets.filter_page": Probe(
            "POST", f"{s}/filter", "form", {"column": "A", "all": "1"}, both
        ),
        "sheets.find": Probe(
            "POST",
            f"{s}/find",
            "form",
            {"find": "a", "replace": "b", "action": "replace_all"},
            both,
        ),
        "sheets.pivot_page": Probe(
            "POST",
            f"{s}/pivot",
            "form",
            {
                "source": pivot_spec["source"],
                "rows": pivot_spec["rows"],
                "value_field": pivot_spec["values"][0]["field"],
                "function": "SUM",
            },
            both,
        ),
        "sheets.sheet_settings": Probe(
            "POST", f"{s}/settings", "form", {"action": "rename", "name": "Probe"}, both
        ),
        "sheets.sort_page": Probe("POST", f"{s}/sort", "form", {"column": "A"}, both),
        "sheets.workbook_settings": Probe(
            "POST", f"{w}/settings", "form", {"action": "rename", "name": "Probe"}, both
        ),
        "sheets.share": Probe(
            "POST", f"{w}/share", "form", {"employee_id": str(stranger), "permission": "edit"}, both
        ),
        "sheets.add_sheet": Probe("POST", f"{w}/sheets", "form", {"name": "Probe"}, both),
    }
    # Restoring needs a workbook in the trash, which its viewers no longer see: no control.
    _allow(
        probes, owner,
        *(n for n, p in probes.items() if p.refusals and n != "sheets.sheets_api.restore_workbook"),
    )  # fmt: skip
    return probes


def _booking(f: Facts) -> dict[str, Probe]:
    now = f.one("SELECT now FROM world_meta")
    # A stay whose approver (someone who sees it) is neither its guest nor its booker.
    stay, guest, approver = f.row(
        "SELECT r.id, r.guest_id, a.approver_id FROM booking_reservation r "
        "JOIN booking_approval a ON a.reservation_id = r.id JOIN booking_resource s "
        "ON s.id = r.resource_id WHERE s.kind != 'meeting_room' AND r.status = 'confirmed' "
        "AND r.start_at > ? AND a.approver_id NOT IN (r.guest_id, r.booked_by_id) ORDER BY r.id",
        now,
    )
    # A pending request, its traveller (who sees it), and a stranger to it.
    pending, traveller, decider = f.row(
        "SELECT a.id, r.guest_id, a.approver_id FROM booking_approval a JOIN booking_reservation r "
        "ON r.id = a.reservation_id WHERE a.status = 'pending' AND a.approver_id != r.guest_id "
        "ORDER BY a.id"
    )
    # A meeting with an invited attendee (who sees it) and a stranger to both trips.
    meeting, attendee, organizer = f.row(
        "SELECT r.id, t.employee_id, r.guest_id FROM booking_reservation r JOIN booking_attendee t "
        "ON t.reservation_id = r.id WHERE r.status = 'confirmed' AND r.start_at > ? "
        "AND t.employee_id NOT IN (r.guest_id, r.booked_by_id) ORDER BY r.id",
        now,
    )
    stranger = f.one(
        f"{ACTIVE} AND role = 'member' AND lower(title) NOT LIKE '%travel coordinator%' "
        "AND lower(title) NOT LIKE '%office manager%' "
        "AND lower(title) NOT LIKE '%executive assistant%' "
        "AND id NOT IN (SELECT guest_id FROM booking_reservation WHERE id IN (?, ?, "
        "(SELECT reservation_id FROM booking_approval WHERE id = ?))) "
        "AND id NOT IN (SELECT booked_by_id FROM booking_reservation WHERE id IN (?, ?)) "
        "AND id NOT IN (SELECT employee_id FROM booking_attendee WHERE reservation_id IN (?, ?)) "
        "AND id NOT IN (SELECT approver_id FROM booking_approval) "
        "AND id NOT IN (SELECT manager_id FROM people_employee WHERE manager_id IS NOT NULL) "
        "ORDER BY id",
        stay, meeting, pending, stay, meeting, stay, meeting,
    )  # fmt: skip
    resource = f.one("SELECT r.id FROM booking_resource r WHERE kind != 'meeting_room' ORDER BY id")
    room = f.one("SELECT id FROM booking_resource WHERE kind = 'meeting_room' ORDER BY id")
    trip = (
        Refusal(approver, FORBIDDEN, "approver of a trip, not its guest or booker"),
        Refusal(stranger, HIDDEN, "someone else's trip"),
    )
    room_booking = (
        Refusal(attendee, FORBIDDEN, "attendee of a meeting, not its organizer"),
        Refusal(stranger, HIDDEN, "someone else's room booking"),
    )
    decision = (
        Refusal(traveller, FORBIDDEN, "the traveller deciding their own request"),
        Refusal(stranger, HIDDEN, "someone else's approval request"),
    )
    not_their_guest = (Refusal(stranger, FORBIDDEN, "booking travel for a colleague"),)
    colleague, manager = f.row(
        "SELECT id, manager_id FROM people_employee WHERE is_active AND id != ? "
        "AND manager_id IS NOT NULL AND manager_id != ? ORDER BY id",
        stranger,
        stranger,
    )
    stay_dates = {"check_in": "2025-11-03", "check_out": "2025-11-05"}
    new_stay = {"resource_id": resource, "guest_id": colleague, **stay_dates, "purpose": "Probe"}
    api = "/booking/api"
    meeting_body = {"start": "2025-11-03T10:00:00", "end": "2025-11-03T11:00:00", "title": "P"}
    own = "the organizer is always the signed-in employee"
    probes = {
        "booking.booking_api.decide": Probe(
            "POST", f"{api}/approvals/{pending}/decision", "json", {"decision": "approve"}, decision
        ),
        "booking.decide": Probe(
            "POST", f"/booking/approvals/{pending}", "form", {"decision": "approve"}, decision
        ),
        "booking.booking_api.create_reservation": Probe(
            "POST", f"{api}/reservations", "json", new_stay, not_their_guest
        ),
        "booking.book": Probe(
            "POST",
            f"/booking/stays/{resource}/reserve",
            "form",
            {**stay_dates, "guests": "1", "purpose": "Probe", "guest_id": str(colleague)},
            not_their_guest,
        ),  # fmt: skip
        "booking.booking_api.cancel_reservation": Probe(
            "POST", f"{api}/reservations/{stay}/cancel", "json", {}, trip
        ),
        "booking.cancel_trip_confirm": Probe(
            "POST", f"/booking/trips/{stay}/cancel", "form", {}, trip
        ),
        "booking.booking_api.change_dates": Probe(
            "POST", f"{api}/reservations/{stay}/dates", "json", stay_dates, trip
        ),
        "booking.change_dates_confirm": Probe(
            "POST", f"/booking/trips/{stay}/change", "form", stay_dates, trip
        ),
        "booking.booking_api.cancel_room_booking": Probe(
            "POST", f"{api}/room-bookings/{meeting}/cancel", "json", {}, room_booking
        ),
        "booking.cancel_room_booking": Probe(
            "POST", f"/booking/rooms/bookings/{meeting}/cancel", "form", {}, room_booking
        ),
        "booking.booking_api.book_room": Probe(
            "POST", f"{api}/rooms/{room}/bookings", "json", meeting_body, open_to_all=own
        ),
        "booking.booking_api.book_series": Probe(
            "POST",
            f"{api}/rooms/{room}/series",
            "json",
            {**meeting_body, "weeks": 2},
            open_to_all=own,
        ),  # fmt: skip
        "booking.book_room_post": Probe(
            "POST", "/booking/rooms/book", "form", {"room_id": str(room)}, open_to_all=own
        ),
    }
    _allow(probes, decider, "booking.booking_api.decide", "booking.decide")
    _allow(probes, manager, "booking.booking_api.create_reservation", "booking.book")
    _allow(
        probes, guest,
        "booking.booking_api.cancel_reservation", "booking.cancel_trip_confirm",
        "booking.booking_api.change_dates", "booking.change_dates_confirm",
    )  # fmt: skip
    _allow(
        probes, organizer,
        "booking.booking_api.cancel_room_booking", "booking.cancel_room_booking",
    )  # fmt: skip
    return probes


__all__ = [
    "FORBIDDEN",
    "HIDDEN",
    "Probe",
    "Refusal",
    "WRITE_METHODS",
    "arrangement",
    "matrix",
    "write_routes",
]

"""Finding records that are probably the same company or person (reads only).

Accounts match when their names are the same once case, punctuation, a leading "The" and legal
suffixes are set aside ("ACME Corporation" = "Acme Corp"). Contacts match on the same email
address, or on names that are nearly the same (a transposed or dropped letter, Jon/John) at the
same account. Leads match contacts and other leads on email, or on nearly the same name at the
same company. Each match says why, in words.

A write that would make a likely duplicate is refused with `LikelyDuplicate`, which carries the
candidates: the pages list them with a "create anyway" choice, the API adds them to its error
object as `duplicates`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from officegym.apps.web.errors import Conflict
from officegym.seed_data.schema import Account, Contact, Employee, Lead

NAME_SIMILARITY = 0.85
_LEGAL_WORDS = frozenset(
    ("the", "inc", "incorporated", "corp", "corporation", "llc", "co", "company", "ltd",
     "limited", "group", "grp", "holdings", "hldgs", "plc", "public")
)  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """One record that may duplicate another: what to show and why it matched."""

    key: str  # object key: accounts, contacts, leads
    id: int
    title: str
    detail: str
    owner: str
    created_at: datetime
    reason: str


@dataclass(frozen=True)
class DuplicateGroup:
    """Records that are probably one company or person, oldest first."""

    key: str
    records: tuple[Candidate, ...]
    reason: str

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(r.id for r in self.records)


class LikelyDuplicate(Conflict):
    """A new record looks like records that exist (`duplicates`); the writer may confirm that
    it is a different one and try again."""

    def __init__(
        self, message: str, duplicates: Sequence[Candidate], field: str | None = None
    ) -> None:
        super().__init__(message, field)
        self.duplicates = tuple(duplicates)

    def details(self) -> dict[str, Any]:
        return {"duplicates": list(self.duplicates)} if self.duplicates else {}


def company_key(name: str) -> str:
    """A company name with case, punctuation and legal suffixes set aside."""
    text = (name or "").lower().replace("&", " and ").replace(".", "")
    words = [w for w in re.split(r"[^0-9a-z]+", text) if w and w not in _LEGAL_WORDS]
    return " ".join(words)


def _person_key(first: str | None, last: str | None) -> str:
    return " ".join(f"{first or ''} {last or ''}".lower().split())


def names_alike(a: str, b: str) -> bool:
    """Whether two full names (already lower-cased) are nearly the same."""
    if not a or not b:
        return False
    if a == b:
        return True
    matcher = SequenceMatcher(None, a, b)
    return matcher.quick_ratio() >= NAME_SIMILARITY and matcher.ratio() >= NAME_SIMILARITY


def _owners(db: Session) -> dict[int, str]:
    return dict(db.execute(select(Employee.id, Employee.display_name)).all())


# -- against one new or edited record -------------------------------------------------------


def account_matches(db: Session, name: str, exclude_id: int | None = None) -> list[Candidate]:
    """Accounts whose name is the same company as `name`."""
    key = company_key(name)
    if not key:
        return []
    owners = _owners(db)
    found = []
    rows = db.execute(
        select(
            Account.id,
            Account.name,
            Account.billing_city,
            Account.owner_id,
            Account.created_at,
        ).order_by(Account.id)
    )
    for account_id, other, city, owner_id, created in rows:
        if account_id == exclude_id or company_key(other) != key:
            continue
        reason = "Same name" if other.lower() == name.strip().lower() else "Same company name"
        found.append(
            Candidate("accounts", account_id, other, city or "", owners[owner_id], created, reason)
        )
    return found


def contact_matches(
    db: Session,
    first_name: str | None,
    last_name: str | None,
    email: str | None,
    account_id: int | None,
    exclude_id: int | None = None,
) -> list[Candidate]:
    """Contacts with the same email, or nearly the same name at the same account."""
    person = _person_key(first_name, last_name)
    conditions = []
    if email:
        conditions.append(func.lower(Contact.email) == email.strip().lower())
    if account_id is not None:
        conditions.append(Contact.account_id == account_id)
    if last_name:
        conditions.append(func.lower(Contact.last_name) == last_name.strip().lower())
    if not conditions:
        return []
    rows = db.execute(
        select(
            Contact.id,
            Contact.first_name,
            Contact.last_name,
            Contact.email,
            Contact.account_id,
            Account.name,
            Contact.owner_id,
            Contact.created_at,
        )
        .outerjoin(Account, Account.id == Contact.account_id)
        .where(or_(*conditions))
        .order_by(Contact.id)
    )
    owners = _owners(db)
    found = []
    for cid, first, last, other_email, other_account, account_name, owner_id, created in rows:
        if cid == exclude_id:
            continue
        if email and other_email and other_email.lower() == email.strip().lower():
            reason = "Same email"
        elif names_alike(person, _person_key(first, last)) and (
            account_id is None or other_account == account_id or other_account is None
        ):
            reason = "Same name" if person == _person_key(first, last) else "Similar name"
            if other_account == account_id and account_id is not None:
                reason += " at the same account"
        else:
            continue
        detail = " · ".join(x for x in (account_name, other_email) if x)
        found.append(
            Candidate("contacts", cid, f"{first} {last}", detail, owners[owner_id], created, reason)
        )
    return found


def lead_matches(
    db: Session,
    first_name: str | None,
    last_name: str | None,
    email: str | None,
    company: str | None,
    exclude_id: int | None = None,
) -> list[Candidate]:
    """Unconverted leads with the same email, or nearly the same name at the same company."""
    person = _person_key(first_name, last_name)
    key = company_key(company or "")
    conditions = []
    if email:
        conditions.append(func.lower(Lead.email) == email.strip().lower())
    if last_name:
        conditions.append(func.lower(Lead.last_name) == last_name.strip().lower())
    if not conditions:
        return []
    rows = db.execute(
        select(
            Lead.id,
            Lead.first_name,
            Lead.last_name,
            Lead.email,
            Lead.company,
            Lead.owner_id,
            Lead.created_at,
        )
        .where(or_(*conditions), Lead.status != "Converted")
        .order_by(Lead.id)
    )
    owners = _owners(db)
    found = []
    for lid, first, last, other_email, other_company, owner_id, created in rows:
        if lid == exclude_id:
            continue
        if email and other_email and other_email.lower() == email.strip().lower():
            reason = "Same email"
        elif names_alike(person, _person_key(first, last)) and company_key(other_company) == key:
            reason = "Same name at the same company"
        else:
            continue
        detail = " · ".join(x for x in (other_company, other_email) if x)
        found.append(
            Candidate("leads", lid, f"{first} {last}", detail, owners[owner_id], created, reason)
        )
    return found


# -- the "possible duplicates" view ---------------------------------------------------------


class _Groups:
    """Union-find over record ids, remembering the first reason two records were joined."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}
        self.reason: dict[int, str] = {}

    def find(self, x: int) -> int:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: int, b: int, reason: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        root, other = min(ra, rb), max(ra, rb)
        self.parent[other] = root
        self.reason.setdefault(root, self.reason.pop(other, reason))

    def groups(self) -> list[tuple[list[int], str]]:
        members: dict[int, list[int]] = defaultdict(list)
        for x in sorted(self.parent):
            members[self.find(x)].append(x)
        return [(ids, self.reason.get(root, "")) for root, ids in sorted(members.items())]


def duplicate_groups(db: Session, key: str) -> list[DuplicateGroup]:
    """Every group of probable duplicates among accounts, contacts or leads."""
    owners = _owners(db)
    groups = _Groups()
    info: dict[int, Candidate] = {}
    if key == "accounts":
        by_key: dict[str, list[int]] = defaultdict(list)
        rows = db.execute(
            select(
                Account.id, Account.name, Account.billing_city, Account.owner_id, Account.created_at
            ).order_by(Account.id)
        )
        for aid, name, city, owner_id, created in rows:
            info[aid] = Candidate("accounts", aid, name, city or "", owners[owner_id], created, "")
            company = company_key(name)
            if company:
                by_key[company].append(aid)
        for ids in by_key.values():
            for other in ids[1:]:
                groups.join(ids[0], other, "Same company name")
    elif key == "contacts":
        by_account: dict[int, list[tuple[int, str]]] = defaultdict(list)
        by_email: dict[str, list[int]] = defaultdict(list)
        rows = db.execute(
            select(
                Contact.id,
                Contact.first_name,
                Contact.last_name,
                Contact.email,
                Contact.account_id,
                Account.name,
                Contact.owner_id,
                Contact.created_at,
            )
            .outerjoin(Account, Account.id == Contact.account_id)
            .order_by(Contact.id)
        )
        for cid, first, last, email, account_id, account_name, owner_id, created in rows:
            detail = " · ".join(x for x in (account_name, email) if x)
            info[cid] = Candidate(
                "contacts", cid, f"{first} {last}", detail, owners[owner_id], created, ""
            )
            if email:
                by_email[email.lower()].append(cid)
            if account_id is not None:
                by_account[account_id].append((cid, _person_key(first, last)))
        for ids in by_email.values():
            for other in ids[1:]:
                groups.join(ids[0], other, "Same email")
        for people in by_account.values():
            for i, (a, name_a) in enumerate(people):
                for b, name_b in people[i + 1 :]:
                    if names_alike(name_a, name_b):
                        groups.join(a, b, "Similar name at the same account")
    elif key == "leads":
        by_email = defaultdict(list)
        by_person: dict[tuple[str, str], list[int]] = defaultdict(list)
        rows = db.execute(
            select(
                Lead.id,
                Lead.first_name,
                Lead.last_name,
                Lead.email,
                Lead.company,
                Lead.owner_id,
                Lead.created_at,
            )
            .where(Lead.status != "Converted")
            .order_by(Lead.id)
        )
        for lid, first, last, email, company, owner_id, created in rows:
            detail = " · ".join(x for x in (company, email) if x)
            info[lid] = Candidate(
                "leads", lid, f"{first} {last}", detail, owners[owner_id], created, ""
            )
            if email:
                by_email[email.lower()].append(lid)
            by_person[(_person_key(first, last), company_key(company))].append(lid)
        for ids in [*by_email.values(), *by_person.values()]:
            for other in ids[1:]:
                groups.join(ids[0], other, "Same email or name")
    else:
        raise KeyError(key)
    out = []
    for ids, reason in groups.groups():
        if len(ids) > 1:
            records = tuple(sorted((info[i] for i in ids), key=lambda c: (c.created_at, c.id)))
            out.append(DuplicateGroup(key, records, reason))
    return out


__all__ = [
    "Candidate",
    "DuplicateGroup",
    "LikelyDuplicate",
    "account_matches",
    "company_key",
    "contact_matches",
    "duplicate_groups",
    "lead_matches",
    "names_alike",
]

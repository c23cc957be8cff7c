"""Chat: channels, DMs and their members, and ~90 days of messages about the world's own
deals, trips, rooms, sheets and people, with threads, mentions, reactions, pins, saves and a
few attachments.

Messages are drafted per channel, then numbered in time order, so ids increase with time in
every channel and thread replies always follow their parent.

Text comes from the topic banks of `chat_text`, filled with world entities and everyday values
(days, times, figures, colleagues), and is drawn again when it is already taken, so almost
every post reads differently. Company notices are posted by the team that owns them (HR posts
benefits, IT posts the wifi). Replies keep to their root's topic and name what the root named;
the poster or the person asked answers, and some threads end with a reply that settles the
next step.
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import cache, partial
from typing import Any

from ..schema.crm import CLOSED_STAGES
from . import chat_text as text
from .context import PhoneStatement, Ref, Row, World, render
from .people import REVENUE_TEAMS
from .places import BY_NAME, to_local, to_utc
from .variants import vary

_WINDOW_DAYS = 90
_UNSET = datetime.combine(date(1970, 1, 1), time())


@dataclass
class _Channel:
    """A channel being planned: who is in it and what it talks about."""

    name: str
    kind: str
    private: bool
    members: list[int]
    topics: dict[str, float]
    weight: float
    chatter: str = "team"
    topic: str = ""
    description: str = ""
    topic_slots: dict[str, object] = field(default_factory=dict)
    archived: bool = False
    stale: bool = False
    account: Row | None = None
    opp: Row | None = None
    office: Row | None = None
    team: Row | None = None
    row: Row = field(default_factory=dict)
    start: datetime = _UNSET
    end: datetime = _UNSET
    member_set: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.member_set = set(self.members)


@dataclass
class _Draft:
    """A message before it has an id: its text, the slots it was filled with and the topic
    its replies keep to."""

    channel: _Channel
    author_id: int
    body: str
    at: datetime
    refs: list[Ref]
    mentions: list[int]
    seq: int
    parent: _Draft | None = None
    also_in_channel: bool = False
    attachment: tuple[str, str, bytes] | None = None
    phone: tuple[Row, str] | None = None
    kind: str = "chatter"
    topic: text.Topic | None = None
    slots: _Slots = field(default_factory=lambda: _Slots({}))
    answerer: int | None = None
    used: set[str] = field(default_factory=set)
    last_text: str = ""
    row: Row = field(default_factory=dict)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60].strip("-")


def _day(value: datetime | date) -> str:
    return f"{value:%b} {value.day}"


def _workday(day: date) -> date:
    """`day`, or the Monday after it if it falls on a weekend."""
    return day + timedelta(days=(7 - day.weekday()) % 7 if day.weekday() >= 5 else 0)


def _lower_first(sentence: str) -> str:
    """`sentence` with its first word in lower case, unless that word is "I" or a name."""
    first = sentence.split(" ", 1)[0]
    if first[:1].isupper() and first[1:2].islower() and first not in ("I", "I'll", "I'm"):
        return sentence[:1].lower() + sentence[1:]
    return sentence


def _nights(count: int) -> str:
    return f"{count} night" if count == 1 else f"{count} nights"


def _money(amount: int | None) -> str:
    return f"${amount or 0:,}"


_FORMATTER = string.Formatter()
# Slots a reply may not make up: they name something its root did not talk about.
_ROOT_ONLY = frozenset(("account", "subject_short", "industry", "subject", "team", "colleague"))
# How many times a post is drawn again when its text is already taken.
_TRIES = 8


@cache
def _fields(template: str) -> tuple[str, ...]:
    """The placeholders of `template` in order of first appearance (slots are made in that
    order, so the random stream does not depend on hashing)."""
    return tuple(dict.fromkeys(name for _, name, _, _ in _FORMATTER.parse(template) if name))


class _Slots(dict[str, object]):
    """The values a post's placeholders are filled with. Values `make` can give are made on
    first use, so a post pays only for what its sentence names; `make` returns None for a
    value it cannot give."""

    def __init__(
        self, values: dict[str, object], make: Callable[[str], object] | None = None
    ) -> None:
        super().__init__(values)
        self.make = make

    def __missing__(self, key: str) -> object:
        value = self.make(key) if self.make is not None else None
        if value is None:
            raise KeyError(key)
        self[key] = value
        return value


_STOP = frozenset(
    ("about", "also", "been", "does", "from", "have", "into", "just", "like", "more", "next",
     "only", "over", "some", "than", "that", "their", "them", "then", "there", "they", "this",
     "week", "what", "when", "will", "with", "your", "today", "thanks", "please", "could",
     "would", "should", "anyone", "everyone")
)  # fmt: skip


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9'-]{3,}", text.lower()) if w not in _STOP}


@cache
def _template_words(template: str) -> frozenset[str]:
    return frozenset(_words(re.sub(r"\{[^}]*\}", " ", template)))


def _closest(bank: list[str], thread: _Draft) -> list[str]:
    """The sentences of `bank` sharing the most words with the thread's last message (the
    whole bank when none shares any)."""
    said = _words(thread.last_text or thread.body)
    scores = [len(_template_words(t) & said) for t in bank]
    best = max(scores)
    return [t for t, score in zip(bank, scores, strict=True) if score == best] if best else bank


def _fits(template: str, slots: _Slots) -> bool:
    """Whether every placeholder of `template` has a value in `slots`."""
    for name in _fields(template):
        try:
            value = slots[name]
        except KeyError:
            return False
        if value is None or value == "":
            return False
    return True


@dataclass
class _Moment:
    """Where, when and by whom a post is written, with the values drawn for it so far (a
    post's weekday and day are the same date)."""

    channel: _Channel
    at: datetime
    author: int
    drawn: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, draw: Callable[[], Any]) -> Any:
        if key not in self.drawn:
            self.drawn[key] = draw()
        return self.drawn[key]


class _Chat:
    """Generation state for chat: the world's indexes and the drafts made so far."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.rng = world.rng("chat")
        self.now = world.now
        self.window_start = world.now - timedelta(days=_WINDOW_DAYS)
        self.drafts: list[_Draft] = []
        self.said: set[str] = set()
        self.replied: set[str] = set()
        employees = world.rows("people_employee")
        self.employees = {e["id"]: e for e in employees}
        self.teams = {t["id"]: t for t in world.rows("people_team")}
        self.offices = world.rows("people_office")
        self.city_of = {o["id"]: BY_NAME[o["city"]] for o in self.offices}
        self.hired = {
            e["id"]: datetime.combine(e["hire_date"], datetime.min.time()) for e in employees
        }
        self.left: dict[int, datetime] = {}
        for e in employees:
            if not e["is_active"]:
                self.left[e["id"]] = self.now - timedelta(days=self.rng.randint(20, 300))
        self.opps = world.rows("crm_opportunity")
        self.opps_of_account: dict[int, list[Row]] = defaultdict(list)
        self.opps_of_owner: dict[int, list[Row]] = defaultdict(list)
        for opp in self.opps:
            self.opps_of_account[opp["account_id"]].append(opp)
            self.opps_of_owner[opp["owner_id"]].append(opp)
        self.contacts_of: dict[int, list[Row]] = defaultdict(list)
        for contact in world.rows("crm_contact"):
            if contact["account_id"]:
                self.contacts_of[contact["account_id"]].append(contact)
        self.resources = {r["id"]: r for r in world.rows("booking_resource")}
        self.properties = {p["id"]: p for p in world.rows("booking_property")}
        self.office_property = {
            p["office_id"]: p for p in self.properties.values() if p["office_id"]
        }
        self.stays: list[Row] = []
        self.rooms: list[Row] = []
        for res in world.rows("booking_reservation"):
            kind = self.resources[res["resource_id"]]["kind"]
            if kind == "hotel_room" and res["status"] in ("confirmed", "pending_approval"):
                self.stays.append(res)
            elif kind == "meeting_room" and res["status"] == "confirmed":
                self.rooms.append(res)
        self.purpose_refs: dict[int, list[Ref]] = defaultdict(list)
        for ref in world.rows("world_textref"):
            if ref["source_table"] == "booking_reservation":
                self.purpose_refs[ref["source_id"]].append(
                    Ref(ref["target_table"], ref["target_id"], ref["surface"])
                )
        self.workbooks = world.rows("sheets_workbook")
        self.readers: dict[int, set[int]] = defaultdict(set)
        for book in self.workbooks:
            self.readers[book["id"]].add(book["owner_id"])
        for share in world.rows("sheets_share"):
            self.readers[share["workbook_id"]].add(share["employee_id"])
        self.welcomed: set[int] = set()
        self.stay_pools: dict[str, list[Row]] = {}
        self.owners_in: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self.also_sent = False

    # People ----------------------------------------------------------------------------

    def present(self, emp_id: int, at: datetime) -> bool:
        """Whether the employee worked here at `at`."""
        left = self.left.get(emp_id)
        return self.hired[emp_id] <= at and (left is None or at < left)

    def author(self, channel: _Channel, at: datetime, prefer: int | None = None) -> int | None:
        """A member who could post at `at`, `prefer` if possible."""
        if prefer is not None and prefer in channel.member_set and self.present(prefer, at):
            return prefer
        members = channel.members
        for _ in range(12):
            pick = self.rng.choice(members)
            if self.present(pick, at):
                return pick
        present = [m for m in members if self.present(m, at)]
        return self.rng.choice(present) if present else None

    def other(self, channel: _Channel, at: datetime, not_id: int) -> int | None:
        for _ in range(12):
            pick = self.rng.choice(channel.members)
            if pick != not_id and self.present(pick, at) and self.employees[pick]["is_active"]:
                return pick
        return None

    def owners(self, channel: _Channel, owners: tuple[str, ...]) -> list[int]:
        """Members of `channel` in one of the teams or departments `owners` names."""
        key = (channel.name, owners)
        if key not in self.owners_in:
            self.owners_in[key] = [
                m
                for m in channel.members
                if self.teams[self.employees[m]["team_id"]]["name"] in owners
                or self.teams[self.employees[m]["team_id"]]["department"] in owners
            ]
        return self.owners_in[key]

    def ref(self, table: str, row: Row) -> Ref:
        return self.world.ref(table, row)

    def person(self, emp_id: int) -> Ref:
        return self.world.ref("people_employee", self.employees[emp_id])

    # Time ------------------------------------------------------------------------------

    def when(self, channel: _Channel) -> datetime:
        """A random working-hours moment in the channel's active window (weekends are rare)."""
        rng = self.rng
        span = (channel.end - channel.start).total_seconds()
        at = channel.start
        for _ in range(8):
            at = channel.start + timedelta(seconds=rng.uniform(0, span))
            if at.weekday() >= 5 and rng.random() < 0.85:
                continue
            city = self.city_of[self.employees[rng.choice(channel.members)]["office_id"]]
            local = to_local(city, at).replace(hour=rng.randint(8, 18), minute=rng.randint(0, 59))
            moved = to_utc(city, local).replace(second=0, microsecond=0)
            if channel.start <= moved <= channel.end:
                return moved
        return at.replace(microsecond=0)

    def anchored(self, channel: _Channel, anchor: datetime | None) -> datetime:
        """`anchor` (plus a few minutes) if it falls in the channel's window, else a random time."""
        if anchor is not None and channel.start <= anchor <= channel.end - timedelta(minutes=30):
            return anchor + timedelta(minutes=self.rng.randint(1, 25))
        return self.when(channel)

    # Drafting --------------------------------------------------------------------------

    def compose(
        self,
        bank: tuple[str, ...],
        slots: _Slots,
        taken: set[str],
        strict: bool,
        thread: _Draft | None = None,
    ) -> tuple[str, list[Ref]] | None:
        """A sentence from `bank` filled with `slots`, drawn again while its text is `taken`
        (up to a few times, then taken anyway unless `strict`); None if no template of the
        bank fits the slots. In a `thread`, a reply takes up the words of the message before
        it and does not repeat a sentence the thread already has."""
        fitting = [t for t in bank if _fits(t, slots)]
        if not fitting:
            return None
        if thread is not None:
            fitting = _closest([t for t in fitting if t not in thread.used] or fitting, thread)
        body, refs, template = "", [], ""
        for _ in range(_TRIES):
            template = self.rng.choice(fitting)
            body, refs = render(vary(template, self.rng), **slots)
            # A name ending in a period ends the sentence too ("… at Acme Inc.").
            body = re.sub(r"\.\.(?=\s|$)", ".", body)
            if body not in taken:
                break
        else:
            if strict:
                return None
        taken.add(body)
        if thread is not None:
            thread.used.add(template)
            thread.last_text = body
        return body, refs

    def draft(
        self,
        channel: _Channel,
        author: int,
        at: datetime,
        bank: tuple[str, ...],
        kind: str,
        topic: text.Topic | None = None,
        extra_refs: list[Ref] | None = None,
        parent: _Draft | None = None,
        strict: bool = False,
        slots: _Slots | None = None,
        **values: object,
    ) -> _Draft | None:
        """A post (or, with `parent`, a reply) from `bank` filled with `slots` and `values`,
        or None if nothing in it fits (or, if `strict`, nothing in it gives a text not said
        before)."""
        slots = slots if slots is not None else _Slots({})
        slots.update(values)
        said = self.compose(bank, slots, self.replied if parent else self.said, strict, parent)
        if said is None:
            return None
        body, refs = said
        for ref in extra_refs or []:
            if ref not in refs and ref.surface in body:
                refs.append(ref)
        mentions = [
            ref.id
            for name, value in slots.items()
            if isinstance((ref := value), Ref)
            and name in ("mention", "manager")
            and f"@{ref.surface}" in body
        ]
        draft = _Draft(
            channel,
            author,
            body,
            at,
            refs,
            mentions,
            len(self.drafts),
            parent=parent,
            kind=kind,
            topic=topic,
            slots=slots,
        )
        self.drafts.append(draft)
        return draft

    def figures(self, channel: _Channel, at: datetime, author: int) -> _Slots:
        """The everyday slots of a post written at `at` by `author`: days, times, figures, a
        colleague, a team, an account the author works on; each made when first used."""
        return _Slots({}, partial(self.figure, _Moment(channel, at, author)))

    def figure(self, moment: _Moment, key: str) -> object:
        """The value of slot `key` for a post at `moment` (see `_FIGURES`), or None."""
        make = _FIGURES.get(key)
        return make(self, moment) if make is not None else None

    def deal_pool(self, channel: _Channel) -> list[Row]:
        if channel.opp is not None:
            return [channel.opp]
        if channel.account is not None:
            return self.opps_of_account[channel.account["id"]]
        if channel.team is not None or channel.kind != "channel":
            return [o for m in channel.members for o in self.opps_of_owner.get(m, [])]
        return self.opps

    def make_deal(self, channel: _Channel, won_only: bool = False) -> _Draft | None:
        rng, world = self.rng, self.world
        pool = self.deal_pool(channel)
        if won_only:
            pool = [o for o in pool if o["stage"] == "Closed Won"]
        if not pool:
            return None
        recent = [o for o in pool if o["updated_at"] >= channel.start]
        opp = rng.choice(recent if recent and rng.random() < 0.7 else pool)
        at = self.anchored(channel, opp["updated_at"])
        author = self.author(channel, at, prefer=opp["owner_id"])
        if author is None:
            return None
        account = world.get("crm_account", opp["account_id"])
        contacts = self.contacts_of[account["id"]]
        contact = (
            world.get("crm_contact", opp["primary_contact_id"])
            if opp["primary_contact_id"]
            else (rng.choice(contacts) if contacts else None)
        )
        topic = text.DEAL
        if opp["stage"] == "Closed Won":
            templates, topic = text.DEAL_WON, text.DEAL_WON_TOPIC
        elif opp["stage"] == "Closed Lost":
            templates, topic = text.DEAL_LOST, text.DEAL_LOST_TOPIC
        else:
            templates = tuple(
                t for t, stages in text.DEAL_UPDATES if opp["stage"] in stages or not stages
            )
        colleague = self.other(channel, at, author)
        soon = min(
            at.date() + timedelta(days=rng.randint(2, 12)),
            max(opp["close_date"], at.date() + timedelta(days=2)),
        )
        return self.draft(
            channel,
            author,
            at,
            templates,
            "deal",
            topic,
            opp=self.ref("crm_opportunity", opp),
            account=self.ref("crm_account", account),
            contact=self.ref("crm_contact", contact) if contact else "",
            stage=opp["stage"],
            amount=_money(opp["amount"]),
            close=_day(opp["close_date"]),
            close_soon=_day(soon),
            industry=(account["industry"] or "").lower(),
            next_step=(opp["next_step"] or "").lower(),
            colleague=self.person(colleague) if colleague else "",
        )

    def stay_slots(self, res: Row) -> dict[str, object]:
        resource = self.resources[res["resource_id"]]
        hotel = self.properties[resource["property_id"]]
        return {
            "hotel": self.ref("booking_property", hotel),
            "city": hotel["city"],
            "check_in": _day(res["start_at"]),
            "check_out": _day(res["end_at"]),
            "nights": _nights((res["end_at"] - res["start_at"]).days),
            "purpose": res["purpose"],
        }

    def stay_pool(self, channel: _Channel) -> list[Row]:
        """Hotel stays this channel would talk about (cached per channel)."""
        key = channel.name
        if key not in self.stay_pools:
            self.stay_pools[key] = self._stay_pool(channel)
        return self.stay_pools[key]

    def _stay_pool(self, channel: _Channel) -> list[Row]:
        members = channel.member_set
        if channel.account is not None:
            return [
                r
                for r in self.stays
                if r["account_id"] == channel.account["id"] and r["guest_id"] in members
            ]
        if channel.office is not None:
            city = channel.office["city"]
            return [
                r
                for r in self.stays
                if r["account_id"] is None
                and self.properties[self.resources[r["resource_id"]]["property_id"]]["city"] == city
                and r["guest_id"] in members
            ]
        return [r for r in self.stays if r["guest_id"] in members]

    def make_trip(
        self, channel: _Channel, pending: bool = False, customer: bool = False
    ) -> _Draft | None:
        rng = self.rng
        pool = self.stay_pool(channel)
        if pending:
            pool = [r for r in pool if r["status"] == "pending_approval"]
        if customer:
            pool = [r for r in pool if r["account_id"]]
        if not pool:
            return None
        res = rng.choice(pool)
        at = self.anchored(channel, res["created_at"])
        if at > res["start_at"] + timedelta(days=2):
            return None
        author = self.author(channel, at, prefer=res["guest_id"])
        if author != res["guest_id"]:
            return None
        slots = self.stay_slots(res)
        extra = list(self.purpose_refs[res["id"]])
        if pending:
            manager = self.employees[author]["manager_id"]
            if manager is None or manager not in channel.member_set:
                return None
            draft = self.draft(
                channel,
                author,
                at,
                text.TRIP_PENDING,
                "trip",
                text.PENDING,
                manager=self.person(manager),
                **slots,
            )
            if draft is not None:
                draft.answerer = manager
            return draft
        if res["account_id"] and rng.random() < 0.5:
            account = self.world.get("crm_account", res["account_id"])
            return self.draft(
                channel,
                author,
                at,
                text.TRIP_CUSTOMER,
                "trip",
                text.TRIP,
                account=self.ref("crm_account", account),
                **slots,
            )
        return self.draft(channel, author, at, text.TRIP_BOOKED, "trip", text.TRIP, extra, **slots)

    def make_room(self, channel: _Channel) -> _Draft | None:
        rng = self.rng
        members = channel.member_set
        pool = [r for r in self.rooms if r["guest_id"] in members]
        if channel.office is not None:
            prop = self.office_property[channel.office["id"]]
            pool = [
                r for r in pool if self.resources[r["resource_id"]]["property_id"] == prop["id"]
            ]
        pool = [r for r in pool if r["created_at"] >= channel.start]
        if not pool:
            return None
        res = rng.choice(pool)
        room = self.resources[res["resource_id"]]
        office = self.properties[room["property_id"]]
        at = min(res["created_at"] + timedelta(minutes=rng.randint(1, 20)), channel.end)
        author = self.author(channel, at, prefer=res["guest_id"])
        if author != res["guest_id"]:
            return None
        local = to_local(BY_NAME[office["city"]], res["start_at"])
        return self.draft(
            channel,
            author,
            at,
            text.ROOM_BOOKED,
            "room",
            text.ROOM,
            list(self.purpose_refs[res["id"]]),
            room=self.ref("booking_resource", room),
            office=self.ref("booking_property", office),
            purpose=res["purpose"],
            day=f"{local:%a} {_day(local)}",
            time=f"{local:%H:%M}",
        )

    def make_sheet(self, channel: _Channel) -> _Draft | None:
        rng = self.rng
        members = channel.member_set
        pool = [b for b in self.workbooks if self.readers[b["id"]] & members]
        if channel.team is not None:
            pool = [b for b in pool if b["name"].startswith(channel.team["name"])] or pool
        if not pool:
            return None
        book = rng.choice(pool)
        at = self.when(channel)
        readers = sorted(self.readers[book["id"]] & members)
        author = self.author(channel, at, prefer=rng.choice(readers))
        if author is None:
            return None
        mention = self.other(channel, at, author)
        ahead = _workday((at + timedelta(days=rng.randint(1, 6))).date())
        draft = self.draft(
            channel,
            author,
            at,
            text.SHEET_NOTES,
            "sheet",
            text.SHEET,
            workbook=self.ref("sheets_workbook", book),
            mention=self.person(mention) if mention else "",
            weekday=f"{ahead:%A}",
            quarter=f"Q{(at.month - 1) // 3 + 1}",
        )
        if draft is not None and draft.mentions:
            draft.answerer = mention
        return draft

    def scope_account(self, channel: _Channel, author: int) -> Row | None:
        if channel.account is not None:
            return channel.account
        owned = self.opps_of_owner.get(author)
        if owned:
            return self.world.get("crm_account", self.rng.choice(owned)["account_id"])
        opp = self.rng.choice(self.opps) if self.opps else None
        return self.world.get("crm_account", opp["account_id"]) if opp else None

    def make_question(self, channel: _Channel) -> _Draft | None:
        rng = self.rng
        at = self.when(channel)
        author = self.author(channel, at)
        if author is None:
            return None
        mention = self.other(channel, at, author)
        if mention is None:
            return None
        account = self.scope_account(channel, author)
        contacts = self.contacts_of[account["id"]] if account else []
        office = self.office_property[self.rng.choice(self.offices)["id"]]
        engineers = channel.chatter == "eng" or (
            channel.team is not None and channel.team["department"] == "Engineering"
        )
        topics = [t for t in text.QUESTIONS if engineers or not any("PR" in r for r in t.roots)]
        topic = rng.choice(topics)
        ahead = _workday((at + timedelta(days=rng.randint(1, 6))).date())
        slots: dict[str, object] = {
            "mention": self.person(mention),
            "mention_name": self.person(mention),
            "account": self.ref("crm_account", account) if account else "",
            "contact": self.ref("crm_contact", rng.choice(contacts)) if contacts else "",
            "office": self.ref("booking_property", office),
            "weekday": f"{ahead:%A}",
            "time": f"{rng.randint(9, 17)}:{rng.choice(('00', '30'))}",
            "service": rng.choice(text.SERVICES),
        }
        if not any(_fits(r, _Slots(slots)) for r in topic.roots):
            topic = text.QUESTIONS[4]
        roots = topic.roots
        if channel.kind != "channel":
            # In a direct conversation people ask each other by first name, not @mention.
            roots = tuple(r.replace("@{mention} ", "{first}, ") for r in roots)
            slots["first"] = self.employees[mention]["first_name"]
        draft = self.draft(channel, author, at, roots, "question", topic, slots=_Slots(slots))
        if draft is not None:
            draft.answerer = mention
        return draft

    def make_phone(self, channel: _Channel) -> _Draft | None:
        rng = self.rng
        at = self.when(channel)
        author = self.author(channel, at)
        if author is None:
            return None
        account = self.scope_account(channel, author)
        if account is None:
            return None
        contacts = [c for c in self.contacts_of[account["id"]] if c["phone"]]
        if not contacts:
            return None
        contact = rng.choice(contacts)
        draft = self.draft(
            channel,
            author,
            at,
            text.PHONE_NOTES,
            "phone",
            text.PHONE,
            contact=self.ref("crm_contact", contact),
            account=self.ref("crm_account", account),
            phone=contact["phone"],
        )
        if draft is not None:
            draft.phone = (contact, contact["phone"])
        return draft

    def make_welcome(self, channel: _Channel) -> _Draft | None:
        rng = self.rng
        hires = [
            e
            for e in self.employees.values()
            if e["is_active"]
            and self.hired[e["id"]] >= channel.start
            and e["id"] not in self.welcomed
        ]
        if not hires:
            return None
        hire = rng.choice(hires)
        self.welcomed.add(hire["id"])
        at = min(
            self.hired[hire["id"]] + timedelta(hours=16, minutes=rng.randint(0, 50)), channel.end
        )
        author = self.author(channel, at, prefer=hire["manager_id"])
        if author is None:
            return None
        title = hire["title"]
        return self.draft(
            channel,
            author,
            at,
            text.WELCOME,
            "welcome",
            text.WELCOMES,
            employee=self.person(hire["id"]),
            team=self.ref("people_team", self.teams[hire["team_id"]]),
            first=hire["first_name"],
            title=f"{'an' if title[:1] in 'AEIOU' else 'a'} {title}",
            city=self.city_of[hire["office_id"]].name,
            previous=rng.choice(text.PREVIOUS),
        )

    def make_chatter(self, channel: _Channel) -> _Draft | None:
        """A post on one of the channel's topics, by someone who would post it; drawn again
        (topic, author and slots) while its text is already taken."""
        for attempt in range(_TRIES):
            at = self.when(channel)
            picked = self.chatter_topic(channel, at)
            if picked is None:
                return None
            topic, author = picked
            slots = self.figures(channel, at, author)
            strict = attempt < _TRIES - 1
            draft = self.draft(
                channel, author, at, topic.roots, "chatter", topic, strict=strict, slots=slots
            )
            if draft is not None:
                return draft
        return None

    def chatter_topic(self, channel: _Channel, at: datetime) -> tuple[text.Topic, int] | None:
        """A topic of the channel's chatter and its author: an owner of the topic when it has
        owners (HR posts benefits, IT posts the wifi), else any member; now and then a
        question that belongs in another channel."""
        rng = self.rng
        topics = text.CHATTER[channel.chatter]
        misplaced = text.MISPLACED.get(channel.chatter, ())
        author = self.author(channel, at)
        if author is None:
            return None
        if misplaced and rng.random() < 0.025:
            return rng.choice(misplaced), author
        names = sorted(topics)
        topic = topics[rng.choices(names, [topics[n].weight for n in names])[0]]
        if not topic.owners:
            return topic, author
        owners = [m for m in self.owners(channel, topic.owners) if self.present(m, at)]
        if owners:
            return topic, rng.choice(owners)
        free = [n for n in names if not topics[n].owners]
        return (topics[rng.choice(free)], author) if free else None

    def make_pipeline_csv(self, channel: _Channel) -> _Draft | None:
        at = self.when(channel)
        author = self.author(channel, at)
        if author is None:
            return None
        account = self.scope_account(channel, author)
        if account is None or not self.opps_of_account[account["id"]]:
            return None
        lines = ["opportunity,stage,amount,close_date"]
        for opp in sorted(self.opps_of_account[account["id"]], key=lambda o: o["id"]):
            lines.append(
                f'"{opp["name"]}",{opp["stage"]},{opp["amount"] or ""},{opp["close_date"].isoformat()}'
            )
        data = ("\n".join(lines) + "\n").encode()
        draft = self.draft(
            channel,
            author,
            at,
            text.ATTACH_PIPELINE,
            "attachment",
            text.PIPELINE,
            account=self.ref("crm_account", account),
        )
        if draft is not None:
            draft.attachment = (f"pipeline-{_slug(account['name'])}.csv", "text/csv", data)
        return draft

    def make_itinerary(self, channel: _Channel) -> _Draft | None:
        pool = self.stay_pool(channel)
        if not pool:
            return None
        res = self.rng.choice(pool)
        at = self.anchored(channel, res["created_at"])
        author = self.author(channel, at, prefer=res["guest_id"])
        if author != res["guest_id"]:
            return None
        slots = self.stay_slots(res)
        resource = self.resources[res["resource_id"]]
        hotel = self.properties[resource["property_id"]]
        data = (
            f"Booking: {res['id']}\nTraveller: {self.employees[author]['display_name']}\n"
            f"Hotel: {hotel['name']}\nAddress: {hotel['address']}, {hotel['city']}\n"
            f"Room: {resource['name']}\nCheck-in: {res['start_at'].date().isoformat()}\n"
            f"Check-out: {res['end_at'].date().isoformat()}\nNights: {(res['end_at'] - res['start_at']).days}\n"
            f"Total: ${res['total_cents'] / 100:,.2f}\nPurpose: {res['purpose']}\n"
        ).encode()
        draft = self.draft(
            channel, author, at, text.ATTACH_ITINERARY, "attachment", text.ITINERARY, **slots
        )
        if draft is not None:
            draft.attachment = (f"itinerary-{res['id']}.txt", "text/plain", data)
        return draft

    # Threads ---------------------------------------------------------------------------

    def make_thread(self, root: _Draft, count: int) -> int:
        """Up to `count` replies under `root`, on its topic: colleagues reply, the poster (or
        the person asked) answers, and now and then someone settles the thread with the next
        step. Nobody replies twice in a row. Returns how many were made."""
        rng = self.rng
        topic = root.topic
        if topic is None:
            return 0
        answerer = root.answerer if root.answerer is not None else root.author_id
        settle = bool(topic.things) and rng.random() < 0.4
        at, made, last = root.at, 0, root.author_id
        for i in range(count):
            at = at + timedelta(minutes=rng.randint(1, 90))
            if at >= root.channel.end:
                break
            asked = answerer != root.author_id and i == 0
            if i == count - 1 and settle:
                reply = self.make_closer(root, at, {root.author_id, last})
            elif (asked or i % 2 == 1) and topic.answers and answerer != last:
                reply = self.make_reply(root, at, topic.answers, author=answerer, address=last)
            else:
                reply = self.make_reply(
                    root,
                    at,
                    topic.replies,
                    avoid={root.author_id, answerer, last},
                    address=root.author_id,
                )
            if reply is not None:
                made += 1
                last = reply.author_id
        return made

    def someone(self, channel: _Channel, at: datetime, avoid: set[int]) -> int | None:
        """An active member of `channel` present at `at` who is not in `avoid`."""
        for _ in range(12):
            pick = self.rng.choice(channel.members)
            if pick not in avoid and self.present(pick, at) and self.employees[pick]["is_active"]:
                return pick
        left = [
            m
            for m in channel.members
            if m not in avoid and self.present(m, at) and self.employees[m]["is_active"]
        ]
        return self.rng.choice(left) if left else None

    @staticmethod
    def reply_slots(root: _Draft) -> _Slots:
        """What a reply may use of its root's slots: the entities the root names (a reply
        talks about what the post said), its plain values, and fresh plain values (a day, a
        time, a figure); nobody is @mentioned again."""
        kept = {
            name: value
            for name, value in root.slots.items()
            if name not in ("mention", "manager")
            and (not isinstance(value, Ref) or value.surface in root.body)
        }
        make = root.slots.make

        def plain(key: str) -> object:
            return make(key) if make is not None and key not in _ROOT_ONLY else None

        return _Slots(kept, plain)

    def make_reply(
        self,
        root: _Draft,
        at: datetime,
        bank: tuple[str, ...],
        author: int | None = None,
        avoid: set[int] | None = None,
        address: int | None = None,
    ) -> _Draft | None:
        """A reply from `bank` under `root` by `author` (if still around), else by a member
        not in `avoid`; in a channel, now and then @mentioning `address` (whom it answers)."""
        if author is not None:
            if author not in root.channel.member_set or not self.present(author, at):
                return None
        else:
            author = self.someone(root.channel, at, avoid or set())
            if author is None:
                return None
        slots = self.reply_slots(root)
        colleague = self.other(root.channel, at, author)
        if colleague is not None and "colleague" not in slots:
            slots["colleague"] = self.person(colleague)
        if (
            address is not None
            and address != author
            and root.channel.kind == "channel"
            and address in root.channel.member_set
            and self.rng.random() < 0.3
        ):
            slots["mention"] = self.person(address)
            bank = tuple(f"@{{mention}} {_lower_first(t)}" for t in bank)
        draft = self.draft(
            root.channel, author, at, bank, "reply", root.topic, parent=root, slots=slots
        )
        if draft is None:
            return None
        # The first reply of the world is also sent to the channel, so every world has one.
        draft.also_in_channel = self.rng.random() < 0.06 or not self.also_sent
        self.also_sent = True
        return draft

    def make_closer(self, root: _Draft, at: datetime, avoid: set[int]) -> _Draft | None:
        """A reply that settles the thread (a sync, a look this afternoon, an update) by a
        member not in `avoid` (never the poster), naming the subject without naming anyone."""
        rng, topic = self.rng, root.topic
        assert topic is not None
        slots = self.reply_slots(root)
        slots.pop("colleague", None)
        things = []
        for template in topic.things:
            if _fits(template, slots):
                thing, _ = render(template, **slots)
                if not any(word in thing.lower() for word in text.CLOSER_WORDS):
                    things.append(template)
        if not things:
            return self.make_reply(root, at, topic.replies, avoid=avoid)
        outcome = rng.choice(sorted(text.CLOSERS))
        bank = tuple(c.replace("{thing}", rng.choice(things)) for c in text.CLOSERS[outcome])
        author = self.someone(root.channel, at, avoid)
        if author is None:
            return None
        return self.draft(root.channel, author, at, bank, "reply", topic, parent=root, slots=slots)


def _ahead(chat: _Chat, m: _Moment) -> date:
    return m.once(
        "ahead", lambda: _workday((m.at + timedelta(days=chat.rng.randint(2, 16))).date())
    )


def _clock(chat: _Chat, m: _Moment) -> tuple[int, int]:
    return m.once("clock", lambda: (chat.rng.randint(9, 17), chat.rng.choice((0, 0, 15, 30, 45))))


def _account(chat: _Chat, m: _Moment) -> Row | None:
    return m.once("account", lambda: chat.scope_account(m.channel, m.author))


def _books(chat: _Chat, m: _Moment) -> list[str]:
    return m.once("books", lambda: chat.rng.sample(text.BOOKS, 2))


def _colleague(chat: _Chat, m: _Moment) -> Ref | None:
    other = chat.other(m.channel, m.at, m.author)
    return chat.person(other) if other is not None else None


def _team(chat: _Chat, m: _Moment) -> Ref:
    team = m.channel.team or chat.teams[chat.rng.choice(sorted(chat.teams))]
    return chat.ref("people_team", team)


def _account_ref(chat: _Chat, m: _Moment) -> Ref | None:
    found = _account(chat, m)
    return chat.ref("crm_account", found) if found else None


def _industry(chat: _Chat, m: _Moment) -> str | None:
    found = _account(chat, m)
    return found["industry"].lower() if found and found["industry"] else None


def _pick(*options: object) -> Callable[[_Chat, _Moment], object]:
    return lambda chat, m: chat.rng.choice(options)


def _between(low: int, high: int, step: int = 1) -> Callable[[_Chat, _Moment], object]:
    return lambda chat, m: chat.rng.randint(low, high) * step


# The everyday slots of a post (see `_Chat.figures`): how each is drawn.
_FIGURES: dict[str, Callable[[_Chat, _Moment], object]] = {
    "weekday": lambda chat, m: f"{_ahead(chat, m):%A}",
    "day": lambda chat, m: _day(_ahead(chat, m)),
    "day_end": lambda chat, m: _day(_ahead(chat, m) + timedelta(days=chat.rng.randint(1, 4))),
    "time": lambda chat, m: "{}:{:02d}".format(*_clock(chat, m)),
    "time_end": lambda chat, m: (
        f"{(_clock(chat, m)[0] + chat.rng.randint(1, 2)) % 24}:{_clock(chat, m)[1]:02d}"
    ),
    "year": lambda chat, m: str(m.at.year + (1 if m.at.month >= 10 else 0)),
    "month": lambda chat, m: f"{m.at + timedelta(days=chat.rng.randint(25, 60)):%B}",
    "quarter": lambda chat, m: f"Q{(m.at.month - 1) // 3 + 1}",
    "pct": _between(8, 60),
    "rollout": _pick(5, 10, 20, 25, 30, 40, 50, 60, 75, 80, 90),
    "discount": _pick(10, 15, 20, 25, 30),
    "csat": _between(82, 99),
    "backlog": _between(6, 90),
    "registrations": _between(80, 900),
    "mqls": _between(40, 600),
    "open_rate": _between(18, 46),
    "spend": _between(40, 97),
    "rps": _between(4, 60, 100),
    "response": _between(9, 95),
    "count": _between(3, 24),
    "minutes": _pick(15, 20, 25, 30, 35, 40, 45),
    "limit": _pick("500", "1,000", "2,500", "5,000", "10,000", "25,000"),
    "bonus": _pick("1,000", "1,500", "2,000", "2,500", "3,000", "5,000"),
    "stipend": _pick("500", "750", "1,000", "1,200", "1,500", "2,000"),
    "cap": _between(18, 45, 10),
    "cover": _pick("2.1", "2.4", "2.8", "3.0", "3.2", "3.5", "1.8"),
    "amount": lambda chat, m: _money(chat.rng.randint(8, 160) * 5_000),
    "letter": _pick(*"ABCDEGHJKLMNPRSTW"),
    "floor": _pick("2nd", "3rd", "4th", "5th", "6th"),
    "street": _pick(*text.STREETS),
    "food": _pick(*text.FOODS),
    "book": lambda chat, m: _books(chat, m)[0],
    "book2": lambda chat, m: _books(chat, m)[1],
    "lunch": _pick("11:30", "11:45", "12:00", "12:15", "12:30", "13:00"),
    "coffee": _pick("9:30", "10:00", "10:30", "14:30", "15:00", "15:30"),
    "city": lambda chat, m: chat.rng.choice(chat.offices)["city"],
    "new_city": _pick(*text.NEW_CITIES),
    "role": _pick(*text.ROLES),
    "event": _pick(*text.EVENTS),
    "ssid": lambda chat, m: (
        f"{_slug(chat.world.company_name)[:12]}-"
        f"{chat.rng.choice(('staff', 'corp', 'office', 'secure'))}"
    ),
    "laptop_year": lambda chat, m: str(m.at.year - chat.rng.randint(3, 5)),
    "os_version": lambda chat, m: f"{chat.rng.randint(13, 15)}.{chat.rng.randint(1, 6)}",
    "service": _pick(*text.SERVICES),
    "version": lambda chat, m: (
        f"v{chat.rng.randint(1, 4)}.{chat.rng.randint(0, 30)}.{chat.rng.randint(0, 9)}"
    ),
    "subject": _pick(*text.DM_SUBJECTS),
    "team": _team,
    "colleague": _colleague,
    "account": _account_ref,
    "subject_short": _account_ref,
    "industry": _industry,
}


def _plan_channels(chat: _Chat) -> list[_Channel]:
    """Channels in priority order, cut to the scale's count, then DMs and group DMs."""
    world, rng = chat.world, chat.rng
    employees = list(chat.employees.values())
    everyone = [e["id"] for e in employees]
    active = [e for e in employees if e["is_active"]]
    dept = {e["id"]: chat.teams[e["team_id"]]["department"] for e in employees}
    team_name = {e["id"]: chat.teams[e["team_id"]]["name"] for e in employees}
    ceo = employees[0]["id"]
    execs = [e["id"] for e in employees if dept[e["id"]] == "Executive"]
    managers = [e["id"] for e in employees if e["role"] == "manager"]
    revenue = [
        e["id"] for e in employees if team_name[e["id"]] in (*REVENUE_TEAMS, "Sales Development")
    ]
    in_dept: dict[str, list[int]] = defaultdict(list)
    for e in employees:
        in_dept[dept[e["id"]]].append(e["id"])
    travellers = sorted({r["guest_id"] for r in chat.stays})

    def some(pool: list[int], share: float) -> list[int]:
        return [m for m in pool if rng.random() < share]

    def few(share: float) -> list[int]:
        """A small crowd: about `share` of everyone, never fewer than four people."""
        return rng.sample(everyone, min(len(everyone), max(4, round(len(everyone) * share))))

    def channel(
        name: str,
        members: list[int],
        topics: dict[str, float],
        weight: float,
        private: bool = False,
        **kw: object,
    ) -> _Channel:
        unique = sorted(set(members))
        return _Channel(name, "channel", private, unique, topics, weight, **kw)  # type: ignore[arg-type]

    core = [
        channel("general", everyone, {"chatter": 5, "welcome": 2, "question": 1, "sheet": 0.5}, 5,
                chatter="general", topic="Company-wide announcements",
                description=f"Everyone at {world.company_name}."),
        channel("random", some(everyone, 0.8) + [ceo], {"chatter": 1}, 4, chatter="random",
                topic="Non-work banter and water cooler conversation"),
        channel("sales", revenue + execs + some(in_dept["Marketing"], 0.5),
                {"deal": 5, "question": 2, "phone": 1.5, "sheet": 1, "chatter": 2, "customer_trip": 1, "csv": 0.3},
                6, chatter="sales", topic="Pipeline, deals and customer news"),
        channel("travel", travellers + some(everyone, 0.15) + execs,
                {"trip": 6, "pending": 1.5, "chatter": 2, "itinerary": 0.3}, 3, chatter="travel",
                topic="Trips, hotels and travel policy questions"),
        channel("leadership", execs + managers, {"chatter": 3, "sheet": 2, "deal": 1, "question": 1}, 2.5,
                chatter="leadership", topic="Leadership team", private=True),
        channel(f"proj-{text.PROJECTS[rng.randrange(len(text.PROJECTS))]}", few(0.1) + [ceo],
                {"chatter": 1}, 0, chatter="project", archived=True, stale=True,
                topic="Project channel (done)"),
    ]  # fmt: skip
    rest: list[_Channel] = [
        channel("deals", revenue + execs + in_dept["Finance"], {"deal": 4, "won": 3, "chatter": 1}, 4, chatter="deals",
                topic="Closed deals and deal desk"),
        channel("book-club", few(0.08) + [ceo], {"chatter": 1}, 0, chatter="social", stale=True,
                topic="Monthly book club"),
        channel("eng", in_dept["Engineering"] + some(in_dept["Product"], 0.7), {"chatter": 6, "question": 1}, 5,
                chatter="eng", topic="Engineering discussion, deploys and reviews"),
        channel("hiring", in_dept["People"] + managers, {"chatter": 1}, 1.5, chatter="hiring",
                topic="Open roles, loops and offers", private=True),
    ]  # fmt: skip
    offices = [
        channel(f"office-{_slug(o['city'])}", [e["id"] for e in employees if e["office_id"] == o["id"]],
                {"chatter": 4, "room": 3, "trip": 1, "question": 1}, 2, chatter="office", office=o,
                topic="News and logistics for the {office}",
                topic_slots={"office": world.ref("people_office", o)})
        for o in chat.offices
    ]  # fmt: skip
    by_pipeline = sorted(
        {o["account_id"] for o in chat.opps},
        key=lambda a: (-sum(o["amount"] or 0 for o in chat.opps_of_account[a]), a),
    )
    account_channels = []
    used_names: set[str] = set()
    for account_id in by_pipeline:
        account = world.get("crm_account", account_id)
        name = f"acct-{_slug(account['name'])}"
        if name in used_names:
            continue
        used_names.add(name)
        owners = [o["owner_id"] for o in chat.opps_of_account[account_id]] + [account["owner_id"]]
        owner = chat.employees[account["owner_id"]]
        account_channels.append(
            channel(name, owners + rng.sample(revenue, min(len(revenue), rng.randint(2, 6))),
                    {"deal": 4, "phone": 2, "customer_trip": 2, "question": 1, "csv": 0.3}, 1.5, chatter="sales",
                    account=account, topic="Everything {account}, owner {owner}",
                    topic_slots={"account": world.ref("crm_account", account),
                                 "owner": world.ref("people_employee", owner)})
        )  # fmt: skip
    open_opps = sorted(
        (o for o in chat.opps if o["stage"] not in CLOSED_STAGES),
        key=lambda o: (-(o["amount"] or 0), o["id"]),
    )
    deal_rooms = []
    for opp in open_opps:
        account = world.get("crm_account", opp["account_id"])
        name = f"deal-{_slug(account['name'])}"
        n = 2
        while name in used_names:
            name = f"deal-{_slug(account['name'])}-{n}"
            n += 1
        used_names.add(name)
        owner = chat.employees[opp["owner_id"]]
        members = [owner["id"], *([owner["manager_id"]] if owner["manager_id"] else [])]
        members += rng.sample(revenue, min(len(revenue), 2)) + execs[:2]
        deal_rooms.append(
            _Channel(name, "channel", True, sorted(set(members)), {"deal": 4, "phone": 1, "question": 1}, 1,
                     chatter="sales", opp=opp, account=account, topic="Deal room for {opp}",
                     topic_slots={"opp": world.ref("crm_opportunity", opp)})
        )  # fmt: skip
    functional = [
        channel("eng-incidents", in_dept["Engineering"] + some(in_dept["Customer Success"], 0.4),
                {"chatter": 1}, 1.5, chatter="incidents", topic="Production incidents and status"),
        channel("support-escalations", in_dept["Customer Success"] + some(in_dept["Engineering"], 0.3),
                {"chatter": 3, "question": 1}, 2, chatter="support", topic="Customer escalations"),
        channel("it-helpdesk", some(everyone, 0.5) + in_dept["Operations"], {"chatter": 1}, 1, chatter="it",
                topic="Ask IT anything"),
        channel("marketing", in_dept["Marketing"] + some(revenue, 0.3), {"chatter": 3, "sheet": 1}, 1.5,
                chatter="marketing", topic="Campaigns, events and content"),
        channel("finance", in_dept["Finance"] + execs, {"chatter": 3, "sheet": 1}, 1, chatter="finance",
                topic="Budgets, spend and month-end close"),
    ]  # fmt: skip
    team_channels = []
    for team in chat.teams.values():
        members = [e["id"] for e in employees if e["team_id"] == team["id"]]
        if len(members) < 3 or team["name"] == "Executive":
            continue
        is_revenue = team["name"] in REVENUE_TEAMS
        topics = {"chatter": 4, "question": 2, "room": 1}
        if is_revenue:
            topics |= {"sheet": 1, "deal": 2}
        builders = team["department"] in ("Engineering", "Product")
        team_channels.append(
            channel(f"team-{_slug(team['name'])}", members, topics, 2.5, team=team,
                    chatter="team_eng" if builders else "team",
                    topic="{team} team chat", topic_slots={"team": world.ref("people_team", team)})
        )  # fmt: skip
    archived_two = channel(
        f"proj-{text.PROJECTS[(text.PROJECTS.index(core[-1].name[5:]) + 3) % len(text.PROJECTS)]}",
        few(0.1) + [ceo], {"chatter": 1}, 0, chatter="project", archived=True, stale=True,
        topic="Project channel (done)",
    )  # fmt: skip

    ordered = core + rest + account_channels[:2] + deal_rooms[:1] + offices[:3] + functional
    ordered += team_channels + offices[3:] + [archived_two]
    tail_accounts, tail_deals = account_channels[2:], deal_rooms[1:]
    for i in range(max(len(tail_accounts), len(tail_deals))):
        ordered += tail_accounts[i : i + 1] + tail_deals[i : i + 1]

    total = world.scale.channels
    direct = max(2, round(total * 0.3))
    groups = max(1, direct // 4)
    planned = [c for c in ordered if len(c.members) >= 2][: total - direct]

    # Direct messages between people who work together.
    pairs: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    by_team: dict[int, list[int]] = defaultdict(list)
    for e in active:
        by_team[e["team_id"]].append(e["id"])
    while len(pairs) < direct - groups:
        e = rng.choice(active)
        if e["manager_id"] and rng.random() < 0.5 and chat.employees[e["manager_id"]]["is_active"]:
            other = e["manager_id"]
        else:
            other = rng.choice(
                by_team[e["team_id"]]
                if len(by_team[e["team_id"]]) > 1
                else [a["id"] for a in active]
            )
        pair = (min(e["id"], other), max(e["id"], other))
        if pair[0] != pair[1] and pair not in seen:
            seen.add(pair)
            pairs.append(pair)
    for a, b in pairs:
        planned.append(_Channel(f"dm-{a}-{b}", "dm", True, [a, b], {"chatter": 4, "question": 1, "deal": 1}, 0.6,
                                chatter="dm"))  # fmt: skip
    group_names: set[str] = set()
    while len(group_names) < groups:
        e = rng.choice(active)
        pool = [m for m in by_team[e["team_id"]] if m != e["id"]]
        if len(pool) < 2:
            pool = [a["id"] for a in active if a["id"] != e["id"]]
        ids = sorted({e["id"], *rng.sample(pool, min(len(pool), rng.randint(2, 3)))})
        name = "mpdm-" + "-".join(str(i) for i in ids)
        if len(ids) >= 3 and name not in group_names:
            group_names.add(name)
            planned.append(
                _Channel(
                    name, "group_dm", True, ids, {"chatter": 3, "question": 1}, 0.8, chatter="dm"
                )
            )
    return planned


def _create_channels(chat: _Chat, channels: list[_Channel]) -> None:
    """Insert channel rows with creation times and set each channel's posting window."""
    world, rng, now = chat.world, chat.rng, chat.now
    founded = chat.hired[1]
    for ch in channels:
        if ch.name == "general":
            created = founded + timedelta(hours=10)
        elif ch.stale:
            created = now - timedelta(days=rng.randint(250, 700))
        elif ch.account is not None:
            created = max(ch.account["created_at"], now - timedelta(days=rng.randint(60, 700)))
        else:
            created = now - timedelta(days=rng.randint(100, 900))
        created = max(created, min(chat.hired[m] for m in ch.members)).replace(
            second=0, microsecond=0
        )
        present = [m for m in ch.members if chat.present(m, created + timedelta(days=1))]
        creator = present[0] if present else ch.members[0]
        ch.row = world.add(
            "chat_channel",
            name=ch.name,
            kind=ch.kind,
            is_private=ch.private or ch.kind != "channel",
            topic="",
            description=ch.description,
            created_by_id=creator,
            created_at=created,
            archived_at=None,
        )
        if ch.topic:
            world.say("chat_channel", ch.row, "topic", ch.topic, **ch.topic_slots)
        if ch.stale:
            ch.start = created + timedelta(days=1)
            ch.end = now - timedelta(days=rng.randint(95, 200))
            if ch.end <= ch.start:
                ch.end = ch.start + timedelta(days=20)
        else:
            ch.start = max(created + timedelta(hours=1), chat.window_start)
            ch.end = now - timedelta(minutes=10)


def _draft_messages(chat: _Chat, channels: list[_Channel]) -> None:
    """Write each channel's share of the scale's messages, threads included."""
    rng = chat.rng
    makers: dict[str, Callable[[_Channel], _Draft | None]] = {
        "chatter": chat.make_chatter,
        "deal": chat.make_deal,
        "won": lambda ch: chat.make_deal(ch, won_only=True),
        "trip": chat.make_trip,
        "pending": lambda ch: chat.make_trip(ch, pending=True),
        "customer_trip": lambda ch: chat.make_trip(ch, customer=True),
        "room": chat.make_room,
        "sheet": chat.make_sheet,
        "question": chat.make_question,
        "phone": chat.make_phone,
        "welcome": chat.make_welcome,
        "csv": chat.make_pipeline_csv,
        "itinerary": chat.make_itinerary,
    }
    total = chat.world.scale.messages
    stale_quota = {id(ch): rng.randint(5, 14) for ch in channels if ch.stale}
    live = [ch for ch in channels if not ch.stale]
    budget = total - sum(stale_quota.values())
    weight_sum = sum(ch.weight for ch in live)
    quotas = {id(ch): int(budget * ch.weight / weight_sum) for ch in live}
    short = budget - sum(quotas.values())
    for ch in rng.sample(live, len(live))[:short]:
        quotas[id(ch)] += 1
    quotas |= stale_quota
    attached = False
    for ch in channels:
        quota = quotas[id(ch)]
        topics = sorted(ch.topics)
        weights = [ch.topics[t] for t in topics]
        made = 0
        if not attached and quota:
            # Every world has at least one attachment, whatever the dice say.
            for topic in ("csv", "itinerary"):
                if topic in ch.topics and not attached and makers[topic](ch) is not None:
                    attached = True
                    made += 1
        misses = 0
        thread_chance = 0.05 if ch.kind != "channel" else 0.18
        while made < quota and misses < 200:
            topic = rng.choices(topics, weights)[0]
            root = makers[topic](ch)
            if root is None:
                root = chat.make_chatter(ch)
                if root is None:
                    misses += 1
                    continue
            made += 1
            if made < quota and rng.random() < thread_chance:
                made += chat.make_thread(root, min(quota - made, rng.randint(1, 4)))


def _number_messages(chat: _Chat) -> list[_Draft]:
    """Insert messages in time order (ids follow time) with their mentions and textrefs."""
    world, rng = chat.world, chat.rng
    drafts = sorted(chat.drafts, key=lambda d: (d.at, d.seq))
    last_at: dict[int, datetime] = {}
    for d in drafts:
        d.at = d.at.replace(microsecond=0)
        if d.parent is not None and d.at <= d.parent.at:
            d.at = d.parent.at + timedelta(seconds=1)
        cid = d.channel.row["id"]
        if cid in last_at and d.at <= last_at[cid]:
            d.at = last_at[cid] + timedelta(seconds=1)
        last_at[cid] = d.at
    drafts.sort(key=lambda d: (d.at, d.seq))
    for d in drafts:
        edited = d.at + timedelta(minutes=rng.randint(1, 30)) if rng.random() < 0.05 else None
        d.row = world.add(
            "chat_message",
            channel_id=d.channel.row["id"],
            author_id=d.author_id,
            body=d.body,
            created_at=d.at,
            edited_at=edited if edited and edited < chat.now else None,
            thread_parent_id=d.parent.row["id"] if d.parent else None,
            also_in_channel=d.also_in_channel,
        )
        world.cite("chat_message", d.row["id"], "body", d.refs)
        for emp_id in dict.fromkeys(d.mentions):
            world.add("chat_mention", message_id=d.row["id"], employee_id=emp_id)
        if d.phone is not None:
            world.phone_statements.append(PhoneStatement(d.row, d.phone[0], d.phone[1]))
        if d.attachment is not None:
            filename, content_type, data = d.attachment
            world.add(
                "chat_attachment",
                message_id=d.row["id"],
                filename=filename,
                content_type=content_type,
                size=len(data),
                data=data,
                uploaded_by_id=d.author_id,
                created_at=d.at,
            )
    return drafts


def _memberships(chat: _Chat, channels: list[_Channel], drafts: list[_Draft]) -> None:
    """Members with join times before their first post and read markers that leave some unread."""
    world, rng = chat.world, chat.rng
    first_post: dict[tuple[int, int], datetime] = {}
    visible: dict[int, list[_Draft]] = defaultdict(list)
    for d in drafts:
        key = (d.channel.row["id"], d.author_id)
        first_post.setdefault(key, d.at)
        if d.parent is None or d.also_in_channel:
            visible[d.channel.row["id"]].append(d)
    for ch in channels:
        cid = ch.row["id"]
        messages = visible[cid]
        ids = [d.row["id"] for d in messages]
        unread_for: dict[int, int] = {}
        for d in messages[-15:]:
            for emp_id in d.mentions:
                if rng.random() < 0.6:
                    unread_for[emp_id] = min(unread_for.get(emp_id, d.row["id"]), d.row["id"])
        for emp_id in ch.members:
            joined = max(ch.row["created_at"], chat.hired[emp_id])
            if (cid, emp_id) in first_post:
                joined = min(joined, first_post[cid, emp_id] - timedelta(minutes=1))
            last_read = ids[-1] if ids else None
            if ids and rng.random() < 0.25:
                last_read = ids[-1 - min(len(ids) - 1, rng.randint(1, 8))]
            if emp_id in unread_for:
                earlier = [i for i in ids if i < unread_for[emp_id]]
                last_read = min(last_read or 0, earlier[-1]) if earlier else None
            if emp_id in chat.left and ids:
                gone = [d.row["id"] for d in messages if d.at < chat.left[emp_id]]
                last_read = gone[-1] if gone else None
            world.add(
                "chat_membership",
                channel_id=cid,
                employee_id=emp_id,
                joined_at=joined,
                last_read_message_id=last_read,
            )
        if ch.archived and messages:
            ch.row["archived_at"] = messages[-1].at + timedelta(days=rng.randint(3, 30))


def _extras(chat: _Chat, drafts: list[_Draft]) -> None:
    """Reactions, pins and saved messages."""
    world, rng, now = chat.world, chat.rng, chat.now

    def after(at: datetime, max_minutes: int) -> datetime:
        return min(at + timedelta(minutes=rng.randint(1, max_minutes)), now - timedelta(minutes=1))

    for d in drafts:
        if rng.random() >= (0.3 if d.kind in ("deal", "welcome", "sheet") else 0.15):
            continue
        for emoji in rng.sample(text.EMOJI, rng.randint(1, 2)):
            reactors = {chat.author(d.channel, d.at) for _ in range(rng.randint(1, 4))}
            for emp_id in sorted(r for r in reactors if r is not None):
                world.add(
                    "chat_reaction",
                    message_id=d.row["id"],
                    employee_id=emp_id,
                    emoji=emoji,
                    created_at=after(d.at, 240),
                )
    pinnable = defaultdict(list)
    for d in drafts:
        if d.parent is None and d.channel.kind == "channel" and d.kind != "chatter":
            pinnable[d.channel.row["id"]].append(d)
    for cid in sorted(pinnable):
        pool = pinnable[cid]
        if pool[0].channel.office is not None:
            # Offices pin their meeting-room bookings, and now and then something else.
            rooms = [d for d in pool if d.kind == "room"]
            picks = rng.sample(rooms, min(len(rooms), rng.randint(1, 2)))
            rest = [d for d in pool if d.kind != "room"]
            picks += rng.sample(rest, min(len(rest), rng.randint(0, 1)))
        else:
            picks = rng.sample(pool, min(len(pool), rng.randint(1, 2)))
        for d in picks:
            world.add(
                "chat_pin",
                message_id=d.row["id"],
                channel_id=cid,
                pinned_by_id=d.author_id,
                pinned_at=after(d.at, 600),
            )
    saved: set[tuple[int, int]] = set()
    roots = [d for d in drafts if d.parent is None]
    for d in rng.sample(roots, min(len(roots), max(3, len(drafts) // 60))):
        saver = chat.author(d.channel, d.at)
        if saver is None or (d.row["id"], saver) in saved:
            continue
        saved.add((d.row["id"], saver))
        world.add(
            "chat_saved", message_id=d.row["id"], employee_id=saver, saved_at=after(d.at, 2880)
        )


def build(world: World) -> None:
    """Make channels, memberships, messages and their extras."""
    chat = _Chat(world)
    channels = _plan_channels(chat)
    _create_channels(chat, channels)
    _draft_messages(chat, channels)
    drafts = _number_messages(chat)
    _memberships(chat, channels, drafts)
    _extras(chat, drafts)

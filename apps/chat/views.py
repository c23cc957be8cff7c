"""Chat's pages: server-rendered HTML over `reads` and `service`, every action a form or link.

Reads render a page with the sidebar; writes are POSTs that redirect on success (PRG) and
re-render the form with the service's message and a 4xx on bad input (the kit then rolls the
transaction back, so nothing is written). JavaScript (chat.js) only enhances: Enter to send,
autocomplete, the emoji picker and menus.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from flask import (
    Response,
    abort,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage

from officegym.apps.web import current_user, get_db, login_required
from officegym.apps.web.auth import safe_next
from officegym.apps.web.errors import (
    TITLES,
    AppError,
    Conflict,
    NotFound,
    ValidationError,
    error_response,
)
from officegym.apps.web.inputs import parse_int
from officegym.apps.web.localtime import to_local
from officegym.seed_data.clock import now as world_now
from officegym.seed_data.schema import Employee
from officegym.seed_data.schema.chat import Pin

from . import lookups, reads, service, times
from .blueprint import bp
from .labels import message_labels
from .markdown import emoji_char

PAGE_SIZE = 50
PEOPLE_FIELD = "employee_ids"
QUICK_REACTIONS = ("thumbsup", "white_check_mark", "eyes", "tada", "heart", "joy", "pray", "fire")
PICKER_REACTIONS = service.REACTION_EMOJI
STATUS_CHOICES = (
    ("", "No emoji"),
    ("spiral_calendar", "In a meeting"),
    ("car", "Commuting"),
    ("thermometer", "Out sick"),
    ("palm_tree", "Vacationing"),
    ("house", "Working remotely"),
    ("headphones", "Focusing"),
    ("airplane", "Travelling"),
)
_GROUP_MINUTES = 5
# -- shared pieces -------------------------------------------------------------------------


@bp.app_template_filter("emoji")
def emoji_filter(name: str) -> str:
    """A Slack short name as its emoji (`thumbsup` -> the glyph); unknown names as `:name:`."""
    return emoji_char(name) or f":{name}:"


@bp.app_template_filter("chat_time")
def chat_time(value: datetime) -> str:
    """A stored time as the viewer's wall-clock time, like "3:05 PM"."""
    return reads.local_time(value, _viewer_tz())


@bp.app_template_filter("chat_when")
def chat_when(value: datetime) -> str:
    """A time with its day unless it is today, like "Tue, Sep 2 at 3:05 PM"."""
    return times.when(value, _viewer_tz(), _today())


@bp.app_template_filter("chat_when_phrase")
def chat_when_phrase(value: datetime) -> str:
    """A time to follow a noun, like "today at 3:05 PM" or "on Tue, Sep 2 at 3:05 PM"."""
    return times.when_phrase(value, _viewer_tz(), _today())


@bp.app_template_filter("chat_datetime")
def chat_datetime(value: datetime) -> str:
    """The full date and time in the viewer's timezone, for hover titles."""
    local = to_local(value, _viewer_tz())
    return f"{local:%A, %B} {local.day}, {local:%Y} at " + local.strftime("%I:%M %p").lstrip("0")


@bp.app_template_filter("filesize")
def filesize(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _viewer_tz() -> str | None:
    user = current_user()
    return user.timezone if user is not None else None


def _today() -> date:
    """The viewer's local date by the world clock (read once per request)."""
    if "chat_today" not in g:
        g.chat_today = to_local(world_now(get_db()), _viewer_tz()).date()
    return g.chat_today


def _labels(*groups: Iterable[reads.MessageView]) -> dict[int, str]:
    """What the controls of the messages shown on one page call each message."""
    shown = [(m.id, m.author.display_name, m.created_at) for group in groups for m in group]
    return message_labels(shown, chat_when_phrase)


def _day_label(value: datetime, today: datetime) -> str:
    local = to_local(value, _viewer_tz()).date()
    if local == today.date():
        return "Today"
    if local == (today - timedelta(days=1)).date():
        return "Yesterday"
    label = f"{local:%A, %B} {local.day}"
    return label if local.year == today.year else f"{label}, {local.year}"


@dataclass(frozen=True)
class Row:
    """One line of the message list: a day separator (`day`) or a message (`message`)."""

    day: str | None = None
    message: reads.MessageView | None = None
    compact: bool = False


def message_rows(messages: list[reads.MessageView]) -> list[Row]:
    """Messages with day separators in the viewer's timezone; consecutive posts by one author
    within a few minutes are drawn compact (no avatar or name), as Slack does."""
    if not messages:
        return []
    today = to_local(world_now(get_db()), _viewer_tz())
    rows: list[Row] = []
    last_day = None
    previous: reads.MessageView | None = None
    for message in messages:
        day = _day_label(message.created_at, today)
        if day != last_day:
            rows.append(Row(day=day))
            last_day, previous = day, None
        compact = (
            previous is not None
            and previous.author.id == message.author.id
            and not previous.deleted
            and not message.deleted
            and previous.reply_count == 0
            and message.created_at - previous.created_at <= timedelta(minutes=_GROUP_MINUTES)
        )
        rows.append(Row(message=message, compact=compact))
        previous = message
    return rows


def _actor() -> Employee:
    return current_user()


def _call(function: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call a service function as the signed-in user in this request's world."""
    return function(get_db(), _actor(), *args, **kwargs)


@bp.errorhandler(AppError)
def _chat_error(error: AppError):
    """A service refusal no form handles ends the request with the kit's error page."""
    return error_response(error.status, TITLES.get(error.status, "Error"), error.message)


def _back(default: str) -> Response:
    """Redirect to the form's `next` (a path on this site), else `default`."""
    return redirect(safe_next(request.form.get("next")) or default)


def _shell(**context: Any) -> dict[str, Any]:
    """The context every chat page shares: the sidebar and the viewer's status."""
    db = get_db()
    user = _actor()
    context.setdefault("active_channel_id", None)
    context.setdefault("active_page", None)
    return {
        "sidebar": reads.sidebar(db, user, reading=context.pop("reading_channel_id", None)),
        "me": user,
        "quick_reactions": QUICK_REACTIONS,
        "picker_reactions": PICKER_REACTIONS,
        "max_message_chars": service.MAX_MESSAGE_CHARS,
        # Message links are built from this prefix: url_for() per link costs a page 10 ms.
        "chat_root": url_for("chat.index"),
        **context,
    }


def _render(template: str, status: int = 200, **context: Any):
    return render_template(template, **_shell(**context)), status


def _int_arg(name: str) -> int | None:
    return parse_int(request.args.get(name))


def _ids(name: str) -> list[int]:
    """Checked employee ids from a form (ignores anything that isn't a number)."""
    return [int(v) for v in request.form.getlist(name) if v.isdecimal() and len(v) < 12]


def _uploads() -> list[service.UploadedFile]:
    files: list[FileStorage] = [f for f in request.files.getlist("files") if f and f.filename]
    return [
        service.UploadedFile(f.filename or "", f.mimetype or "", f.read())
        for f in files  # bounded by MAX_CONTENT_LENGTH
    ]


def _message_anchor(message_id: int) -> str:
    return f"m-{message_id}"


# -- channels ------------------------------------------------------------------------------


@bp.get("/")
@login_required
def index():
    """Open #general, or the first channel in the sidebar."""
    db = get_db()
    try:
        general = reads.channel_by_name(db, _actor(), service.GENERAL)
        return redirect(url_for("chat.channel", channel_id=general.id))
    except NotFound:
        pass
    bar = reads.sidebar(db, _actor())
    first = (bar.channels or bar.dms or [None])[0]
    if first is None:
        return redirect(url_for("chat.browse"))
    return redirect(url_for("chat.channel", channel_id=first.id))


@bp.get("/channels/<int:channel_id>")
@login_required
def channel_alias(channel_id: int):
    """The address message links use for `#channel`."""
    return redirect(url_for("chat.channel", channel_id=channel_id))


def _channel_page(
    channel_id: int,
    *,
    status: int = 200,
    error: str | None = None,
    draft: str = "",
    thread_view: reads.ThreadView | None = None,
    thread_error: str | None = None,
    thread_draft: str = "",
    highlight: int | None = None,
):
    db = get_db()
    detail = _call(reads.channel, channel_id)
    before = _int_arg("before")
    around = highlight if thread_view is None else None
    if around is not None:
        page = _call(reads.history, channel_id, limit=PAGE_SIZE, around_id=around)
    else:
        page = _call(reads.history, channel_id, before_id=before, limit=PAGE_SIZE)
    # The newest page marks the channel read as it loads (a POST from the page, so this GET
    # changes nothing); until then the sidebar already counts the open channel as read.
    reading = request.method == "GET" and before is None and around is None and detail.is_member
    read_upto = page.messages[-1].id if reading and page.messages else None
    pin_count = db.scalar(select(func.count()).select_from(Pin).where(Pin.channel_id == channel_id))
    return _render(
        "chat/channel.html",
        status,
        channel=detail,
        page=page,
        rows=message_rows(page.messages),
        msg_labels=_labels(
            page.messages, [thread_view.parent, *thread_view.replies] if thread_view else []
        ),
        pin_count=pin_count,
        error=error,
        draft=draft,
        thread=thread_view,
        thread_error=thread_error,
        thread_draft=thread_draft,
        highlight=highlight,
        active_channel_id=channel_id,
        reading_channel_id=channel_id if reading else None,
        read_upto=read_upto,
        here=request.full_path.rstrip("?"),
    )


@bp.get("/c/<int:channel_id>")
@login_required
def channel(channel_id: int):
    """A channel's history: the newest page, an older page (`?before=`), or around `?m=`."""
    return _channel_page(channel_id, highlight=_int_arg("m"))


@bp.post("/c/<int:channel_id>/post")
@login_required
def post(channel_id: int):
    body = request.form.get("body", "")
    try:
        sent = service.post_message(get_db(), _actor(), channel_id, body, files=_uploads())
    except (ValidationError, Conflict) as error:
        return _channel_page(channel_id, status=error.status, error=error.message, draft=body)
    return redirect(url_for("chat.channel", channel_id=channel_id) + f"#{_message_anchor(sent.id)}")


@bp.get("/c/<int:channel_id>/details")
@login_required
def details(channel_id: int):
    return _details_page(channel_id)


def _details_page(channel_id: int, status: int = 200, error: str | None = None, **values: Any):
    db = get_db()
    detail = _call(reads.channel, channel_id)
    people = reads.members(db, _actor(), channel_id)
    invitees, invitee_names = lookups.labelled(db, values.pop("invitees", []))
    return _render(
        "chat/details.html",
        status,
        channel=detail,
        members=people,
        invitees=invitees,
        invitee_names=invitee_names,
        error=error,
        values=values,
        active_channel_id=channel_id,
    )


def _channel_form_write(channel_id: int, write: Callable[[], Any], done: str, **values: Any):
    """Run a details-page write; on bad input re-render the details page with the message."""
    try:
        write()
    except (ValidationError, Conflict) as error:
        return _details_page(channel_id, error.status, error=error.message, **values)
    flash(done, "success")
    return _back(url_for("chat.details", channel_id=channel_id))


@bp.post("/c/<int:channel_id>/topic")
@login_required
def set_topic(channel_id: int):
    topic = request.form.get("topic", "")
    return _channel_form_write(
        channel_id,
        lambda: service.set_topic(get_db(), _actor(), channel_id, topic),
        "Topic updated.",
        topic=topic,
    )


@bp.post("/c/<int:channel_id>/description")
@login_required
def set_description(channel_id: int):
    description = request.form.get("description", "")
    return _channel_form_write(
        channel_id,
        lambda: service.set_description(get_db(), _actor(), channel_id, description),
        "Description updated.",
        description=description,
    )


@bp.post("/c/<int:channel_id>/invite")
@login_required
def invite(channel_id: int):
    picked = _ids(PEOPLE_FIELD)
    try:
        ids = _picked_people(picked)
    except ValidationError as error:
        return _details_page(channel_id, error.status, error=error.message, invitees=picked)
    if not ids:
        return _details_page(channel_id, 422, error="Choose at least one person to add.")
    return _channel_form_write(
        channel_id,
        lambda: service.invite(get_db(), _actor(), channel_id, ids),
        f"Added {len(ids)} {'person' if len(ids) == 1 else 'people'}.",
        invitees=ids,
    )


@bp.post("/c/<int:channel_id>/join")
@login_required
def join(channel_id: int):
    detail = _call(service.join_channel, channel_id)
    flash(f"You joined #{detail.name}.", "success")
    return redirect(url_for("chat.channel", channel_id=channel_id))


@bp.post("/c/<int:channel_id>/leave")
@login_required
def leave(channel_id: int):
    detail = _call(reads.channel, channel_id)
    _call(service.leave_channel, channel_id)
    flash(f"You left {detail.label if detail.kind != 'channel' else '#' + detail.name}.", "info")
    return redirect(url_for("chat.index"))


@bp.post("/c/<int:channel_id>/archive")
@login_required
def archive(channel_id: int):
    _call(service.archive_channel, channel_id)
    flash("Channel archived. It is now read-only.", "info")
    return redirect(url_for("chat.channel", channel_id=channel_id))


@bp.post("/c/<int:channel_id>/unarchive")
@login_required
def unarchive(channel_id: int):
    _call(service.unarchive_channel, channel_id)
    flash("Channel unarchived.", "success")
    return redirect(url_for("chat.channel", channel_id=channel_id))


@bp.post("/c/<int:channel_id>/read")
@login_required
def mark_read(channel_id: int):
    _call(service.mark_read, channel_id)
    return _back(url_for("chat.channel", channel_id=channel_id))


@bp.get("/c/<int:channel_id>/pins")
@login_required
def pins(channel_id: int):
    detail = _call(reads.channel, channel_id)
    items = _call(reads.pinned, channel_id)
    return _render(
        "chat/list.html",
        channel=detail,
        heading=f"Pinned in {detail.label if detail.kind != 'channel' else '#' + detail.name}",
        messages=items,
        msg_labels=_labels(items),
        empty="Nothing is pinned here yet. Pin an important message from its actions menu.",
        active_channel_id=channel_id,
    )


@bp.route("/browse", methods=("GET",))
@login_required
def browse():
    query = request.args.get("q", "").strip()
    archived = request.args.get("archived") == "1"
    found = reads.browse_channels(get_db(), _actor(), query, include_archived=archived)
    return _render(
        "chat/browse.html", channels=found, query=query, archived=archived, active_page="browse"
    )


@bp.route("/new", methods=("GET", "POST"))
@login_required
def new_channel():
    """Create a channel: name, visibility, topic, description and first members."""
    values = {"name": "", "topic": "", "description": "", "is_private": False, "ids": []}
    error = field = None
    status = 200
    if request.method == "POST":
        values = {
            "name": request.form.get("name", ""),
            "topic": request.form.get("topic", ""),
            "description": request.form.get("description", ""),
            "is_private": request.form.get("is_private") == "1",
            "ids": _ids(PEOPLE_FIELD),
        }
        try:
            values["ids"] = _picked_people(values["ids"])
            created = service.create_channel(
                get_db(),
                _actor(),
                values["name"],
                is_private=values["is_private"],
                topic=values["topic"],
                description=values["description"],
                member_ids=values["ids"],
            )
        except (ValidationError, Conflict) as err:
            error, field, status = err.message, err.field, err.status
        else:
            flash(f"Created #{created.name}.", "success")
            return redirect(url_for("chat.channel", channel_id=created.id))
    chosen, chosen_names = lookups.labelled(get_db(), values["ids"])
    return _render(
        "chat/new_channel.html",
        status,
        values=values,
        error=error,
        field=field,
        chosen=chosen,
        chosen_names=chosen_names,
        active_page="new",
    )


@bp.route("/dm/new", methods=("GET", "POST"))
@login_required
def new_dm():
    """Pick one or more people and open the conversation with them."""
    error = None
    status = 200
    picked: list[int] = []
    if request.method == "POST":
        picked = _ids(PEOPLE_FIELD)
        try:
            picked = _picked_people(picked)
            opened = service.open_dm(get_db(), _actor(), picked)
        except (ValidationError, Conflict) as err:
            error, status = err.message, err.status
        else:
            return redirect(url_for("chat.channel", channel_id=opened.id))
    chosen, chosen_names = lookups.labelled(get_db(), picked)
    return _render(
        "chat/new_dm.html",
        status,
        chosen=chosen,
        chosen_names=chosen_names,
        error=error,
        active_page="dm",
    )


@bp.get("/lookup/people")
@login_required
def lookup_people():
    """The people the signed-in user may pick whose name or email holds `?q=`, as JSON
    `[{"id", "label", "detail"}]` for a type-ahead picker; `?channel=` leaves out the people
    already in that channel."""
    channel_id = _int_arg("channel")
    if channel_id is not None:
        _call(reads.channel, channel_id)
    return jsonify(lookups.people(get_db(), _actor(), request.args.get("q", ""), channel_id))


def _picked_people(ids: list[int]) -> list[int]:
    """The people a submitted picker stands for: the chosen ids and the one person a name
    typed without choosing stands for (ValidationError when no one or several are)."""
    text = request.form.get(PEOPLE_FIELD + lookups.TEXT_SUFFIX, "")
    return lookups.chosen(get_db(), _actor(), ids, text, field=PEOPLE_FIELD)


# -- messages and threads ------------------------------------------------------------------


@bp.get("/m/<int:message_id>")
@login_required
def permalink(message_id: int):
    """A message's address: its channel page (or thread) with the message highlighted."""
    channel_id, found_id, parent_id = _call(reads.permalink, message_id)
    anchor = f"#{_message_anchor(found_id)}"
    if parent_id is not None:
        return redirect(url_for("chat.thread", message_id=parent_id, m=found_id) + anchor)
    return redirect(url_for("chat.channel", channel_id=channel_id, m=found_id) + anchor)


@bp.get("/t/<int:message_id>")
@login_required
def thread(message_id: int):
    view = _call(reads.thread, message_id)
    return _channel_page(view.channel.id, thread_view=view, highlight=_int_arg("m"))


@bp.post("/t/<int:message_id>/reply")
@login_required
def reply(message_id: int):
    view = _call(reads.thread, message_id)
    body = request.form.get("body", "")
    also = request.form.get("also_in_channel") == "1"
    try:
        sent = service.post_message(
            get_db(),
            _actor(),
            view.channel.id,
            body,
            thread_parent_id=view.parent.id,
            also_in_channel=also,
            files=_uploads(),
        )
    except (ValidationError, Conflict) as error:
        return _channel_page(
            view.channel.id,
            status=error.status,
            thread_view=view,
            thread_error=error.message,
            thread_draft=body,
        )
    target = url_for("chat.thread", message_id=view.parent.id)
    return redirect(f"{target}#{_message_anchor(sent.id)}")


@bp.route("/m/<int:message_id>/edit", methods=("GET", "POST"))
@login_required
def edit(message_id: int):
    found = _call(reads.message, message_id)
    if not found.is_mine or found.deleted:
        abort(403, "You can only edit your own messages.")
    detail = _call(reads.channel, found.channel_id)
    body, error, status = found.body, None, 200
    if request.method == "POST":
        body = request.form.get("body", "")
        try:
            service.edit_message(get_db(), _actor(), message_id, body)
        except (ValidationError, Conflict) as err:
            error, status = err.message, err.status
        else:
            return redirect(url_for("chat.permalink", message_id=message_id))
    return _render(
        "chat/edit.html",
        status,
        message=found,
        channel=detail,
        body=body,
        error=error,
        active_channel_id=detail.id,
    )


@bp.route("/m/<int:message_id>/delete", methods=("GET", "POST"))
@login_required
def delete(message_id: int):
    found = _call(reads.message, message_id)
    if not found.is_mine or found.deleted:
        abort(403, "You can only delete your own messages.")
    detail = _call(reads.channel, found.channel_id)
    if request.method == "POST":
        _call(service.delete_message, message_id)
        flash("Message deleted.", "info")
        if found.thread_parent_id is not None:
            return redirect(url_for("chat.thread", message_id=found.thread_parent_id))
        return redirect(url_for("chat.channel", channel_id=found.channel_id))
    return _render("chat/delete.html", message=found, channel=detail, active_channel_id=detail.id)


def _message_action(message_id: int, action: Callable, note: str | None = None):
    _call(action, message_id)
    if note:
        flash(note, "success")
    default = url_for("chat.permalink", message_id=message_id)
    target = safe_next(request.form.get("next"))
    return redirect(f"{target}#{_message_anchor(message_id)}" if target else default)


@bp.post("/m/<int:message_id>/react")
@login_required
def react(message_id: int):
    emoji = request.form.get("emoji", "")
    return _message_action(
        message_id, lambda db, actor, mid: service.toggle_reaction(db, actor, mid, emoji)
    )


@bp.get("/m/<int:message_id>/react")
@login_required
def reaction_picker(message_id: int):
    """Every reaction as a button: the no-JavaScript emoji picker."""
    found = _call(reads.message, message_id)
    detail = _call(reads.channel, found.channel_id)
    return _render(
        "chat/react.html",
        message=found,
        channel=detail,
        next=safe_next(request.args.get("next")) or "",
        active_channel_id=detail.id,
    )


@bp.post("/m/<int:message_id>/pin")
@login_required
def pin(message_id: int):
    return _message_action(message_id, service.pin, "Pinned to the channel.")


@bp.post("/m/<int:message_id>/unpin")
@login_required
def unpin(message_id: int):
    return _message_action(message_id, service.unpin, "Removed from pinned items.")


@bp.post("/m/<int:message_id>/save")
@login_required
def save(message_id: int):
    return _message_action(message_id, service.save, "Saved for later.")


@bp.post("/m/<int:message_id>/unsave")
@login_required
def unsave(message_id: int):
    return _message_action(message_id, service.unsave, "Removed from saved items.")


@bp.get("/files/<int:attachment_id>/<path:filename>")
@login_required
def download(attachment_id: int, filename: str):
    """An attachment's bytes, always as a download with its stored type."""
    row = _call(reads.attachment, attachment_id)
    if filename != row.filename:
        return redirect(url_for("chat.download", attachment_id=row.id, filename=row.filename))
    import io

    response = send_file(
        io.BytesIO(row.data),
        mimetype=row.content_type,
        as_attachment=True,
        download_name=row.filename,
        max_age=0,
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "private, no-store"
    return response


# -- lists: search, activity, saved, people ------------------------------------------------


@bp.get("/search")
@login_required
def search():
    query = request.args.get("q", "").strip()
    page = _int_arg("page") or 1
    results = reads.search(get_db(), _actor(), query, page=page) if query else None
    return _render("chat/search.html", query=query, results=results, active_page="search")


@bp.get("/activity")
@login_required
def activity():
    items = reads.mentions(get_db(), _actor(), before_id=_int_arg("before"), limit=PAGE_SIZE)
    return _render(
        "chat/list.html",
        heading="Mentions",
        messages=items,
        msg_labels=_labels(items),
        empty="When someone @mentions you, it shows up here.",
        active_page="activity",
        more=items[-1].id if len(items) == PAGE_SIZE else None,
    )


@bp.get("/saved")
@login_required
def saved():
    items = reads.saved(get_db(), _actor())
    return _render(
        "chat/list.html",
        heading="Saved items",
        messages=items,
        msg_labels=_labels(items),
        empty="Save messages from their actions menu to find them again here.",
        active_page="saved",
    )


@bp.get("/people")
@login_required
def people():
    query = request.args.get("q", "").strip()
    found = reads.people(get_db(), query, limit=200)
    return _render("chat/people.html", people=found, query=query, active_page="people")


@bp.get("/people/<int:employee_id>")
@login_required
def person(employee_id: int):
    found = reads.profile(get_db(), employee_id)
    return _render("chat/profile.html", profile=found, active_page="people")


@bp.post("/people/<int:employee_id>/message")
@login_required
def message_person(employee_id: int):
    if employee_id == _actor().id:
        abort(400, "That's you: choose someone else to message.")
    opened = _call(service.open_dm, [employee_id])
    return redirect(url_for("chat.channel", channel_id=opened.id))


@bp.route("/status", methods=("GET", "POST"))
@login_required
def status():
    user = _actor()
    values = {"emoji": user.status_emoji or "", "text": user.status_text or ""}
    error, code = None, 200
    if request.method == "POST":
        suggestion = request.form.get("suggestion", "")
        if request.form.get("clear") == "1":
            values = {"emoji": "", "text": ""}
        elif "|" in suggestion:
            emoji, text = suggestion.split("|", 1)
            values = {"emoji": emoji, "text": text}
        else:
            values = {
                "emoji": request.form.get("emoji", ""),
                "text": request.form.get("text", ""),
            }
        try:
            service.set_status(get_db(), user, values["emoji"], values["text"])
        except ValidationError as err:
            error, code = err.message, err.status
        else:
            flash("Status updated." if values["text"] or values["emoji"] else "Status cleared.")
            return _back(url_for("chat.index"))
    return _render(
        "chat/status.html",
        code,
        values=values,
        error=error,
        choices=STATUS_CHOICES,
        emoji_choices=service.STATUS_EMOJI,
        active_page="status",
    )

"""Search: the query language, each filter and combinations, visibility, and the FTS index
staying right through edits, deletes and the store's reset."""

from __future__ import annotations

from datetime import UTC, timedelta
from html.parser import HTMLParser
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.orm import Session

from officegym.apps.chat import reads, search, service
from officegym.apps.chat.service import UploadedFile
from officegym.seed_data.clock import now
from officegym.seed_data.connect import make_engine, writer

from .conftest import ChatFacts, employee


def ids(results: reads.SearchResults) -> set[int]:
    return {hit.message.id for hit in results.hits}


def local_day(db: Session, actor, shift_days: int = 0) -> str:
    """The actor's local date of the world clock (posts land a few seconds after it)."""
    moment = now(db).replace(tzinfo=UTC).astimezone(ZoneInfo(actor.timezone))
    return (moment.date() + timedelta(days=shift_days)).isoformat()


def test_free_words_must_all_match(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    both = service.post_message(db, actor, facts.public_id, "zebra quokka meeting")
    one = service.post_message(db, actor, facts.public_id, "zebra only")
    results = reads.search(db, actor, "zebra quokka")
    assert ids(results) == {both.id} and results.total == 1
    assert ids(reads.search(db, actor, "zebra")) == {both.id, one.id}


def test_quoted_phrase_matches_words_in_order(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    right = service.post_message(db, actor, facts.public_id, "the purple walrus sings")
    service.post_message(db, actor, facts.public_id, "the walrus is purple")
    assert ids(reads.search(db, actor, '"purple walrus"')) == {right.id}


def test_search_ignores_case_and_diacritics(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "Lunch at the Café Zürich")
    assert ids(reads.search(db, actor, "cafe zurich")) == {posted.id}


def test_from_filter_by_display_name_and_email_localpart(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    other = employee(db, facts.public_non_member)
    service.join_channel(db, other, facts.public_id)
    mine = service.post_message(db, actor, facts.public_id, "narwhal status")
    service.post_message(db, other, facts.public_id, "narwhal status too")
    by_name = reads.search(db, actor, f"narwhal from:@{actor.display_name}")
    assert ids(by_name) == {mine.id}
    assert by_name.filters["from"] == [actor.display_name]
    localpart = actor.email.split("@")[0]
    assert ids(reads.search(db, actor, f"from:@{localpart} narwhal")) == {mine.id}


def test_in_filter_limits_to_one_channel(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    here = service.post_message(db, actor, facts.public_id, "axolotl report")
    service.post_message(db, actor, facts.general_id, "axolotl report")
    results = reads.search(db, actor, f"axolotl in:#{facts.public_name}")
    assert ids(results) == {here.id}
    assert results.filters["in"] == [f"#{facts.public_name}"]


def test_in_filter_with_a_person_searches_the_dm(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    in_dm = service.post_message(db, actor, facts.dm_id, "capybara plans")
    assert ids(reads.search(db, actor, f"capybara in:@{facts.dm_b.name}")) == {in_dm.id}


def test_in_filter_with_oneself_finds_no_conversation(db, facts: ChatFacts):
    actor = employee(db, facts.dm_a)
    results = reads.search(db, actor, f"capybara in:@{facts.dm_a.name}")
    assert results.total == 0
    assert results.errors == [f"No conversation with @{facts.dm_a.name} was found."]


def test_date_filters_use_the_searchers_day(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "pangolin sighting")
    today, yesterday, tomorrow = (local_day(db, actor, d) for d in (0, -1, 1))
    assert ids(reads.search(db, actor, f"pangolin on:{today}")) == {posted.id}
    assert ids(reads.search(db, actor, f"pangolin after:{yesterday}")) == {posted.id}
    assert ids(reads.search(db, actor, f"pangolin before:{tomorrow}")) == {posted.id}
    assert reads.search(db, actor, f"pangolin before:{today}").total == 0
    assert reads.search(db, actor, f"pangolin after:{today}").total == 0
    assert reads.search(db, actor, f"pangolin on:{yesterday}").total == 0


def test_has_link_and_has_file(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    link = service.post_message(db, actor, facts.public_id, "okapi https://example.com/x")
    file = service.post_message(
        db,
        actor,
        facts.public_id,
        "okapi notes",
        files=[UploadedFile("o.txt", "text/plain", b"o")],
    )
    service.post_message(db, actor, facts.public_id, "okapi plain")
    assert ids(reads.search(db, actor, "okapi has:link")) == {link.id}
    assert ids(reads.search(db, actor, "okapi has:file")) == {file.id}


def test_filters_alone_search_without_words(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(
        db, actor, facts.public_id, "see file", files=[UploadedFile("x.txt", "text/plain", b"x")]
    )
    results = reads.search(
        db, actor, f"has:file from:@{actor.display_name} in:#{facts.public_name}"
    )
    assert posted.id in ids(results)
    assert all(h.message.attachments for h in results.hits)


def test_combined_filters(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    target = service.post_message(db, actor, facts.public_id, "tapir https://t.example")
    service.post_message(db, actor, facts.general_id, "tapir https://t.example")
    service.post_message(db, actor, facts.public_id, "tapir no link")
    query = f'"tapir" from:@{actor.display_name} in:#{facts.public_name} has:link on:{local_day(db, actor)}'
    assert ids(reads.search(db, actor, query)) == {target.id}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("from:@Nobody Atall", "No one called"),
        ("in:#no-such-channel", "No channel called"),
        ("before:yesterday", "isn't a date"),
        ("has:picture", "isn't a filter"),
    ],
)
def test_bad_filters_report_errors_and_match_nothing(db, facts, query, message):
    results = reads.search(db, employee(db, facts.public_member), f"the {query}")
    assert results.total == 0 and results.hits == []
    assert any(message in e for e in results.errors)


def test_private_channels_are_never_searched_by_non_members(db, facts: ChatFacts):
    member = employee(db, facts.private_member)
    outsider = employee(db, facts.private_non_member)
    secret = service.post_message(db, member, facts.private_id, "wombat merger secret")
    assert ids(reads.search(db, member, "wombat")) == {secret.id}
    assert reads.search(db, outsider, "wombat").total == 0


def test_in_filter_for_an_invisible_channel_looks_like_a_missing_one(db, facts: ChatFacts):
    outsider = employee(db, facts.private_non_member)
    hidden = reads.search(db, outsider, f"in:#{facts.private_name}")
    missing = reads.search(db, outsider, "in:#zz-not-a-channel")
    assert hidden.total == 0
    assert hidden.errors == [
        e.replace("zz-not-a-channel", facts.private_name) for e in missing.errors
    ]


def test_dms_are_never_searched_by_outsiders(db, facts: ChatFacts):
    author = employee(db, facts.dm_a)
    service.post_message(db, author, facts.dm_id, "lemur payroll")
    assert reads.search(db, employee(db, facts.dm_outsider), "lemur").total == 0
    assert reads.search(db, employee(db, facts.dm_b), "lemur").total == 1


def test_public_channels_are_searchable_without_joining(db, facts: ChatFacts):
    member = employee(db, facts.public_member)
    posted = service.post_message(db, member, facts.public_id, "ocelot news")
    assert ids(reads.search(db, employee(db, facts.public_non_member), "ocelot")) == {posted.id}


def test_results_are_newest_first_and_paged(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = [service.post_message(db, actor, facts.public_id, f"meerkat {i}").id for i in range(5)]
    first = reads.search(db, actor, "meerkat", page=1, per_page=2)
    second = reads.search(db, actor, "meerkat", page=2, per_page=2)
    assert first.total == 5
    assert [h.message.id for h in first.hits] == posted[::-1][:2]
    assert [h.message.id for h in second.hits] == posted[::-1][2:4]


def test_snippet_marks_matches_and_escapes_markup(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.post_message(db, actor, facts.public_id, "<script>alert(1)</script> gecko")
    hit = reads.search(db, actor, "gecko").hits[0]
    assert "<mark>gecko</mark>" in hit.snippet_html
    assert "<script>" not in hit.snippet_html and "&lt;script&gt;" in hit.snippet_html
    assert hit.channel.id == facts.public_id


def test_snippet_renders_markdown_and_emoji_as_the_channel_does(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.post_message(db, actor, facts.public_id, "Launch the **gecko** plan _today_ :tada:")
    html = reads.search(db, actor, "gecko").hits[0].snippet_html
    assert "<strong><mark>gecko</mark></strong>" in html
    assert "<em>today</em>" in html and "🎉" in html
    assert "**" not in html and ":tada:" not in html


def test_snippet_marks_every_matched_word_however_it_is_written(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.post_message(db, actor, facts.public_id, "Gecko notes: the gecko and GECKO teams")
    html = reads.search(db, actor, "gecko").hits[0].snippet_html
    assert html.count("<mark>") == 3
    assert "<mark>Gecko</mark>" in html and "<mark>GECKO</mark>" in html


def test_snippet_shows_mentions_and_links_as_text_inside_the_one_result_link(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    body = f"@{facts.dm_a.name} gecko specs at https://example.com/specs"
    service.post_message(db, actor, facts.public_id, body)
    html = reads.search(db, actor, "gecko").hits[0].snippet_html
    assert f'<span class="mention">@{facts.dm_a.name}</span>' in html
    assert '<span class="link">https://example.com/specs</span>' in html
    assert "<a " not in html


def test_snippet_of_a_filter_only_search_renders_markdown(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    service.post_message(db, actor, facts.public_id, "Ship **the gecko deck** :rocket:")
    hits = reads.search(db, actor, f"from:@{facts.public_member.name} in:#{facts.public_name}")
    assert hits.hits[0].snippet_html == "Ship <strong>the gecko deck</strong> 🚀"


@pytest.mark.parametrize(
    "markup",
    [
        "<img src=x onerror=alert(1)>",
        "[here](javascript:alert(1))",
        "<a href='javascript:alert(1)'>x</a>",
        "<script>alert(1)</script>",
    ],
)
def test_rendered_snippets_keep_markup_from_a_message_inert(db, facts: ChatFacts, markup):
    actor = employee(db, facts.public_member)
    service.post_message(db, actor, facts.public_id, f"**gecko** {markup}")
    html = reads.search(db, actor, "gecko").hits[0].snippet_html
    assert html.startswith("<strong><mark>gecko</mark></strong>")
    assert tags_and_attributes(html) <= {"strong", "mark", "code", "span", "span.class"}


def tags_and_attributes(html: str) -> set[str]:
    """Every tag in `html`, and every attribute as "tag.attribute"."""
    found: set[str] = set()

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.add(tag)
            found.update(f"{tag}.{name}" for name, _ in attrs)

    Collect().feed(html)
    return found


@pytest.mark.parametrize(
    "query", ['"', "NEAR(a b)", "a OR b AND", "*", "body:x", "'; DROP TABLE x; --", "(((", "^"]
)
def test_fts_syntax_in_queries_never_errors(db, facts, query):
    results = reads.search(db, employee(db, facts.public_member), query)
    assert results.total >= 0


def test_edits_and_deletes_update_the_index(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, "iguana draft")
    service.edit_message(db, actor, posted.id, "chameleon final")
    assert reads.search(db, actor, "iguana").total == 0
    assert ids(reads.search(db, actor, "chameleon")) == {posted.id}
    service.delete_message(db, actor, posted.id)
    assert reads.search(db, actor, "chameleon").total == 0


def test_generated_messages_are_searchable(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    first = reads.message(db, actor, facts.public_message_id)
    word = max(first.body.split(), key=len).strip(".,!?:;'\"()")
    assert facts.public_message_id in ids(reads.search(db, actor, word, per_page=100))


def test_search_is_right_after_writes_and_a_reset(store, world, facts: ChatFacts):
    engine = make_engine(store.world_path(world), create=False)
    try:
        with Session(writer(engine)) as db:
            actor = employee(db, facts.public_member)
            original = reads.message(db, actor, facts.public_message_id)
            service.post_message(db, actor, facts.public_id, "flamingo after reset?")
            author = employee(db, original.author.id)
            service.edit_message(db, author, facts.public_message_id, "heron edited")
            assert reads.search(db, actor, "heron").total == 1
            db.commit()
        store.reset(world)
        with Session(engine) as db:
            actor = employee(db, facts.public_member)
            assert reads.search(db, actor, "flamingo").total == 0
            assert reads.search(db, actor, "heron").total == 0
            word = max(original.body.split(), key=len).strip(".,!?:;'\"()")
            assert facts.public_message_id in ids(reads.search(db, actor, word, per_page=100))
    finally:
        engine.dispose()


def test_parse_reads_every_filter(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    parsed = search.parse(
        db,
        actor,
        f'alpha "beta gamma" from:@{actor.display_name} in:#{facts.public_name} '
        "before:2030-01-02 after:2020-01-01 on:2025-05-05 has:link has:file",
    )
    assert parsed.words == ["alpha"] and parsed.phrases == ["beta gamma"]
    assert parsed.authors == [(actor.id, actor.display_name)]
    assert parsed.channels == [(facts.public_id, f"#{facts.public_name}")]
    assert (parsed.before.isoformat(), parsed.after.isoformat(), parsed.on.isoformat()) == (
        "2030-01-02",
        "2020-01-01",
        "2025-05-05",
    )
    assert parsed.has == ["link", "file"] and parsed.errors == []
    assert parsed.fts_expression() == '"alpha" AND "beta gamma"'


def test_index_is_not_world_data_and_follows_snapshot_restore(store, world, facts: ChatFacts):
    snap = store.snapshot(world)
    engine = make_engine(store.world_path(world), create=False)
    try:
        with Session(writer(engine)) as db:
            service.post_message(db, employee(db, facts.public_member), facts.public_id, "ibis")
            db.commit()
        changed = set(store.diff(world).tables)
        assert "chat_message" in changed and not any(t.startswith("_") for t in changed)
        store.restore(world, snap)
        with Session(engine) as db:
            assert reads.search(db, employee(db, facts.public_member), "ibis").total == 0
    finally:
        engine.dispose()

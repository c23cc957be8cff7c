"""The markdown subset renders what chat users write, and nothing anyone writes can run script."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from officegym.apps.chat import markdown, service
from officegym.apps.chat.service import UploadedFile

from .conftest import ChatFacts, employee

SAFE_HREF = ("http://", "https://", "mailto:", "/")


class _Inspector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in markdown.ALLOWED_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("style", "src", "srcdoc", "formaction"):
                self.problems.append(f"attribute {name}")
            if name == "href" and not (value or "").lower().startswith(SAFE_HREF):
                self.problems.append(f"href {value!r}")


def assert_inert(html: str) -> None:
    inspector = _Inspector()
    inspector.feed(html)
    assert inspector.problems == [], html
    assert "<script" not in html.lower(), html


PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<img src=x>",
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1))",
    "[click](java&#09;script:alert(1))",
    "[click](&#x6A;avascript:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![x](https://example.com/x.png)",
    "<javascript:alert(1)>",
    "**<svg/onload=alert(1)>**",
    '[x](https://ok.example"onmouseover="alert(1))',
    '[x](https://ok.example "title" onmouseover=alert(1))',
    "[**[x](javascript:alert(1))**](https://ok.example)",
    "`<script>alert(1)</script>`",
    "```html\n<script>alert(1)</script>\n```",
    "<iframe src=https://evil.example></iframe>",
    "<style>body{display:none}</style>",
    "<details open ontoggle=alert(1)>",
    "> <img src=x onerror=alert(1)>\n> - <b onclick=alert(1)>x</b>",
    "- [a](javascript:alert(1))\n- *<a href=x onclick=alert(1)>*",
    "[ref]: javascript:alert(1)\n\n[ref]",
    "http://example.com/<script>alert(1)</script>",
    "<<script>script>alert(1)<</script>/script>",
    "~~<marquee onstart=alert(1)>~~",
    ":tada:<script>alert(1)</script>:tada:",
    "#general<img src=x onerror=alert(1)>",
    "@Evil <img src=x onerror=alert(1)>",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_renders_inert(payload):
    html = markdown.render(payload, {"Evil <img src=x onerror=alert(1)>": 3}, {"general": 1})
    assert_inert(html)


def test_mention_names_are_escaped():
    html = markdown.render("@Evil <b>x</b>", {"Evil <b>x</b>": 3})
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert_inert(html)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_in_a_posted_message_renders_inert(db, facts: ChatFacts, payload):
    actor = employee(db, facts.public_member)
    posted = service.post_message(db, actor, facts.public_id, payload)
    assert posted.body == payload.strip()
    assert_inert(posted.html)


def test_topic_and_filename_payloads_are_stored_as_text(db, facts: ChatFacts):
    actor = employee(db, facts.public_member)
    detail = service.set_topic(db, actor, facts.public_id, "<script>alert(1)</script>")
    assert detail.topic == "<script>alert(1)</script>"
    assert markdown.render_inline_text(detail.topic) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    posted = service.post_message(
        db,
        actor,
        facts.public_id,
        "",
        files=[UploadedFile('"><img src=x onerror=alert(1)>.txt', "text/plain", b"x")],
    )
    name = posted.attachments[0].filename
    assert not set(name) & set("<>\"'&/\\")


def test_formatting_subset():
    html = markdown.render("**b** *i* ~~s~~ `c`")
    assert html == "<p><strong>b</strong> <em>i</em> <s>s</s> <code>c</code></p>"


def test_code_block_keeps_text_literal():
    html = markdown.render("```\n**not bold** <b>\n```")
    assert html == "<pre><code>**not bold** &lt;b&gt;\n</code></pre>"


def test_lists_and_blockquote():
    html = markdown.render("- a\n- b\n\n1. x\n2. y\n\n> quoted")
    assert "<ul>" in html and "<ol>" in html and "<blockquote>" in html
    assert html.count("<li>") == 4


def test_links_get_rel_and_bare_urls_are_linked():
    html = markdown.render("[docs](https://example.com/d) and https://example.org")
    assert '<a href="https://example.com/d" rel="noopener noreferrer nofollow">docs</a>' in html
    assert 'href="https://example.org"' in html


def test_single_newlines_break_lines():
    assert markdown.render("one\ntwo") == "<p>one<br>\ntwo</p>"


def test_headings_and_images_are_not_rendered():
    assert markdown.render("# title") == "<p># title</p>"
    assert "<img" not in markdown.render("![x](https://example.com/x.png)")


def test_mentions_become_profile_chips():
    html = markdown.render("hi @Ada Lovelace!", {"Ada Lovelace": 7})
    assert (
        '<a class="mention" href="/chat/people/7" data-employee-id="7" '
        'rel="noopener noreferrer nofollow">@Ada Lovelace</a>!' in html
    )


def test_unknown_mentions_and_mentions_in_code_stay_text():
    assert "mention" not in markdown.render("hi @Ada Lovelace", {})
    assert "mention" not in markdown.render("`@Ada Lovelace`", {"Ada Lovelace": 7})
    assert "mention" not in markdown.render("x@Ada Lovelace", {"Ada Lovelace": 7})


def test_channel_links_only_for_known_channels():
    html = markdown.render("see #sales and #secret", {}, {"sales": 3})
    assert '<a class="channel-link" href="/chat/channels/3"' in html
    assert "#secret" in html and html.count("<a ") == 1


def test_emoji_shortcodes():
    assert markdown.render(":tada: :thumbsup: :not_an_emoji:") == "<p>🎉 👍 :not_an_emoji:</p>"
    assert markdown.render("`:tada:`") == "<p><code>:tada:</code></p>"

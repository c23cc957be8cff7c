"""The safe markdown subset chat messages render with, and the sanitiser behind it.

Parsing is markdown-it-py (CommonMark with raw HTML off, strikethrough, linkify, single newlines
as line breaks; no headings, images, tables or HTML). On top of it three inline rules: `@Display
Name` mentions (only of the people a message actually mentions) become chips linking to the
profile, `#channel` becomes a link for channels the reader may see, and `:emoji_name:` becomes
the emoji. Whatever comes out goes through nh3 with a small allowlist, so no user content can
run script, whatever the parser does.

Search results render their excerpt the same way (`render_snippet`), with the words that
matched in `<mark>` and links drawn as text, since the whole result is one link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

import emoji as emoji_lib
import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

PROFILE_PATH = "/chat/people/{id}"
CHANNEL_PATH = "/chat/channels/{id}"

ALLOWED_TAGS = frozenset(
    {
        "p",
        "br",
        "strong",
        "em",
        "s",
        "del",
        "code",
        "pre",
        "a",
        "ul",
        "ol",
        "li",
        "blockquote",
        "span",
        "mark",
    }
)
ALLOWED_ATTRIBUTES = {
    "a": {"href", "class", "title", "data-employee-id", "data-channel-id"},
    "span": {"class", "title"},
    "code": {"class"},
    "ol": {"start"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})

_CHANNEL_NAME = re.compile(r"[a-z0-9_-]{1,80}")
_EMOJI_NAME = re.compile(r":([a-z0-9_+-]{1,40}):")
_WORD = re.compile(r"\w")

_ENV_MENTIONS = "officegym_mentions"
_ENV_CHANNELS = "officegym_channels"
_ENV_HIGHLIGHT = "officegym_highlight"
_ENV_INERT = "officegym_inert_links"
_LONE_PARAGRAPH = re.compile(r"<p>((?:(?!</?p>).)*)</p>", re.DOTALL)


def _after_word(state: StateInline) -> bool:
    return state.pos > 0 and bool(_WORD.match(state.src[state.pos - 1]))


def _mention_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "@" or _after_word(state):
        return False
    people: Mapping[str, int] = state.env.get(_ENV_MENTIONS) or {}
    rest = state.src[state.pos + 1 :]
    for name in sorted(people, key=len, reverse=True):
        end = len(name)
        if rest[:end] == name and not (end < len(rest) and _WORD.match(rest[end])):
            if not silent:
                token = state.push("chat_mention", "", 0)
                token.meta = {"id": people[name], "name": name}
            state.pos += 1 + end
            return True
    return False


def _channel_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "#" or _after_word(state):
        return False
    match = _CHANNEL_NAME.match(state.src, state.pos + 1)
    channels: Mapping[str, int] = state.env.get(_ENV_CHANNELS) or {}
    if match is None or match.group() not in channels:
        return False
    if not silent:
        token = state.push("chat_channel", "", 0)
        token.meta = {"id": channels[match.group()], "name": match.group()}
    state.pos = match.end()
    return True


def _emoji_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != ":":
        return False
    match = _EMOJI_NAME.match(state.src, state.pos)
    if match is None:
        return False
    char = emoji_char(match.group(1))
    if char is None:
        return False
    if not silent:
        token = state.push("text", "", 0)
        token.content = char
    state.pos = match.end()
    return True


def _highlight_rule(state: StateCore) -> None:
    """Wrap the words to highlight (`env[_ENV_HIGHLIGHT]`, a compiled pattern) in <mark>,
    inside text only: never in link targets, code, mentions or emoji short names."""
    pattern: re.Pattern[str] | None = state.env.get(_ENV_HIGHLIGHT)
    if pattern is None:
        return
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for token in block.children:
            if token.type != "text" or not pattern.search(token.content):
                children.append(token)
                continue
            at = 0
            for match in pattern.finditer(token.content):
                if match.start() > at:
                    children.append(_text(token.content[at : match.start()]))
                children.append(Token("mark_open", "mark", 1))
                children.append(_text(match.group()))
                children.append(Token("mark_close", "mark", -1))
                at = match.end()
            if at < len(token.content):
                children.append(_text(token.content[at:]))
        block.children = children


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _render_mention(_renderer, tokens, idx, _options, env) -> str:
    meta = tokens[idx].meta
    name = f"@{escapeHtml(meta['name'])}"
    if env.get(_ENV_INERT):
        return f'<span class="mention">{name}</span>'
    href = PROFILE_PATH.format(id=int(meta["id"]))
    return f'<a class="mention" href="{href}" data-employee-id="{int(meta["id"])}">{name}</a>'


def _render_channel(_renderer, tokens, idx, _options, env) -> str:
    meta = tokens[idx].meta
    name = f"#{escapeHtml(meta['name'])}"
    if env.get(_ENV_INERT):
        return f'<span class="channel-link">{name}</span>'
    href = CHANNEL_PATH.format(id=int(meta["id"]))
    return f'<a class="channel-link" href="{href}" data-channel-id="{int(meta["id"])}">{name}</a>'


def _render_link_open(renderer, tokens, idx, options, env) -> str:
    if env.get(_ENV_INERT):
        return '<span class="link">'
    return renderer.renderToken(tokens, idx, options, env)


def _render_link_close(renderer, tokens, idx, options, env) -> str:
    if env.get(_ENV_INERT):
        return "</span>"
    return renderer.renderToken(tokens, idx, options, env)


def _validate_link(url: str) -> bool:
    """Links people write may only go to the web or to email (no relative or odd schemes)."""
    return url.strip().lower().startswith(("http://", "https://", "mailto:"))


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": True, "breaks": True})
    md.validateLink = _validate_link
    md.enable(["strikethrough", "linkify"])
    md.disable(["heading", "lheading", "hr", "image", "html_block", "html_inline", "reference"])
    md.inline.ruler.before("emphasis", "chat_mention", _mention_rule)
    md.inline.ruler.before("emphasis", "chat_channel", _channel_rule)
    md.inline.ruler.before("emphasis", "chat_emoji", _emoji_rule)
    md.core.ruler.push("chat_highlight", _highlight_rule)
    md.add_render_rule("chat_mention", _render_mention)
    md.add_render_rule("chat_channel", _render_channel)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("link_close", _render_link_close)
    return md


@lru_cache(maxsize=4096)
def emoji_char(name: str) -> str | None:
    """The emoji for a Slack-style short name (`thumbsup`, `tada`), or None if unknown."""
    text = f":{name}:"
    for language in ("alias", "en"):
        char = emoji_lib.emojize(text, language=language)
        if char != text:
            return char
    return None


def sanitize(html: str) -> str:
    """Keep only the allowlisted tags, attributes and URL schemes; drop script content."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(attrs) for tag, attrs in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel="noopener noreferrer nofollow",
        clean_content_tags={"script", "style"},
    )


def render(
    text: str,
    mentions: Mapping[str, int] | None = None,
    channels: Mapping[str, int] | None = None,
) -> str:
    """Sanitised HTML for a message body.

    `mentions` maps the display names the message mentions to employee ids (only those become
    chips); `channels` maps the channel names the reader may see to channel ids.
    """
    env = {_ENV_MENTIONS: dict(mentions or {}), _ENV_CHANNELS: dict(channels or {})}
    html = _parser().render(text, env)
    return sanitize(html).strip()


def render_snippet(
    text: str,
    matched: Iterable[str] = (),
    mentions: Mapping[str, int] | None = None,
    channels: Mapping[str, int] | None = None,
) -> str:
    """Sanitised HTML for a search result's excerpt of a message: rendered as `render` does,
    the `matched` words (as they are written in `text`) in <mark>, links as plain text (the
    result around it is one link), and a lone paragraph without its <p>."""
    words = sorted({w for w in matched if w.strip()}, key=lambda w: (-len(w), w))
    pattern = (
        re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE)
        if words
        else None
    )
    env = {
        _ENV_MENTIONS: dict(mentions or {}),
        _ENV_CHANNELS: dict(channels or {}),
        _ENV_HIGHLIGHT: pattern,
        _ENV_INERT: True,
    }
    html = sanitize(_parser().render(text, env)).strip()
    lone = _LONE_PARAGRAPH.fullmatch(html)
    return lone.group(1) if lone else html


def render_inline_text(text: str) -> str:
    """Plain text escaped for HTML (topics, names, filenames): never markup."""
    return escapeHtml(text)


__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_TAGS",
    "CHANNEL_PATH",
    "PROFILE_PATH",
    "emoji_char",
    "render",
    "render_inline_text",
    "render_snippet",
    "sanitize",
]

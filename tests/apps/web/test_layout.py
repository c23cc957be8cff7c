"""Every main page of every app, in real Chromium at 1280×800 and 1920×1080, on the small world:
no element's content overflows its box, nothing is cut off, and the page never scrolls
sideways. Truncation is allowed only where it is deliberate: an ellipsis with the full text in
a `title` or `aria-label`, or a box that scrolls."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from officegym.apps.registry import MainPage, entries, main_pages
from officegym.apps.web import WORLD_HEADER, start_background_server
from officegym.seed_data.passwords import DEMO_PASSWORD
from officegym.seed_data.store import WorldStore

pytestmark = pytest.mark.browser
VIEWPORTS = ((1280, 800), (1920, 1080))
WORLD = "layout"
TIMEOUT_MS = 15_000

# Every rendered element of the body is looked at; inline boxes have no size of their own.
OVERFLOW = """() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + 1) {
    problems.push(`the page scrolls sideways: ${root.scrollWidth}px in a ${window.innerWidth}px window`);
  }
  const describe = e => {
    let s = e.tagName.toLowerCase();
    if (e.id) s += '#' + e.id;
    if (e.classList.length) s += '.' + [...e.classList].join('.');
    const text = (e.innerText || e.value || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    return text ? `${s} "${text}"` : s;
  };
  const scrolls = v => v === 'auto' || v === 'scroll';
  const inScrollBox = e => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (scrolls(s.overflowX) || s.position === 'fixed') return true;
    }
    return false;
  };
  for (const e of document.body.querySelectorAll('*')) {
    if (e.closest('svg') || !e.getClientRects().length) continue;
    const style = getComputedStyle(e);
    if (style.display === 'inline' || style.display === 'contents') continue;
    if (style.visibility === 'hidden') continue;
    if (e.clientWidth <= 1 || e.clientHeight <= 1) continue;  // text for screen readers only
    const wide = e.scrollWidth - e.clientWidth > 1 && !scrolls(style.overflowX);
    const tall = e.scrollHeight - e.clientHeight > 1 && !scrolls(style.overflowY)
      && style.overflowY !== 'visible';
    const truncated = style.textOverflow === 'ellipsis' && (e.title || e.getAttribute('aria-label'));
    if ((wide && !truncated) || tall) {
      problems.push(`${describe(e)}: content ${e.scrollWidth}x${e.scrollHeight} overflows its ` +
                    `${e.clientWidth}x${e.clientHeight} box`);
    }
    const box = e.getBoundingClientRect();
    if (box.right > window.innerWidth + 1 && box.width > 0 && !inScrollBox(e)) {
      problems.push(`${describe(e)}: cut off at the window's right edge (${Math.round(box.right)}px)`);
    }
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def small_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorldStore]:
    store = WorldStore(tmp_path_factory.mktemp("layout-home"))
    store.create(WORLD, 0, "small")
    yield store
    store.close()


@pytest.fixture(scope="module")
def server(small_world: WorldStore):
    server = start_background_server(small_world, config={"SECRET_KEY": "layout-tests"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pages(small_world: WorldStore) -> list[MainPage]:
    return main_pages(small_world.world_path(WORLD))


def signed_in_page(browser, server, user: str, viewport: tuple[int, int]):
    width, height = viewport
    context = browser.new_context(
        base_url=server.url,
        extra_http_headers={WORLD_HEADER: WORLD},
        viewport={"width": width, "height": height},
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto("/login")
    page.get_by_label("Work email").fill(user)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(server.url + "/")
    return context, page


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
@pytest.mark.parametrize("app", [a.slug for a in entries()])
def test_no_main_page_overflows_or_clips_its_content(browser, server, pages, app, viewport):
    mine = [p for p in pages if p.app == app]
    assert mine, f"{app} declares no main pages"
    problems: list[str] = []
    contexts = {}
    try:
        for main_page in mine:
            if main_page.user not in contexts:
                contexts[main_page.user] = signed_in_page(browser, server, main_page.user, viewport)
            page = contexts[main_page.user][1]
            response = page.goto(main_page.path)
            assert response.status == 200, f"{main_page.path}: HTTP {response.status}"
            problems += [
                f"{main_page.name} ({main_page.path}): {p}" for p in page.evaluate(OVERFLOW)
            ]
    finally:
        for context, _ in contexts.values():
            context.close()
    assert not problems, f"{len(problems)} layout problems:\n" + "\n".join(problems[:40])


def test_the_overflow_check_sees_a_card_wider_than_its_column(browser, server, pages):
    context, page = signed_in_page(browser, server, pages[0].user, VIEWPORTS[0])
    try:
        page.goto(pages[0].path)
        page.evaluate(
            """() => {
                const column = document.createElement('div');
                column.style.width = '120px';
                column.innerHTML = '<div style="width: 300px">A card too wide</div>';
                document.querySelector('main').append(column);
                const name = document.createElement('div');
                name.style.cssText = 'width: 60px; overflow: hidden; white-space: nowrap';
                name.textContent = 'Alexandria Montgomery-Richardson';
                document.querySelector('main').append(name);
            }"""
        )
        problems = page.evaluate(OVERFLOW)
    finally:
        context.close()
    assert any("A card too wide" in p and "overflows" in p for p in problems)
    assert any("Alexandria" in p for p in problems)

"""Every main page of every app, in real Chromium at 1280×800 and 1920×1080, on the small world:
no element's content overflows its box, nothing is cut off, and the page never scrolls
sideways. Truncation is allowed only where it is deliberate: an ellipsis with the full text in
a `title` or `aria-label`, or a box that scrolls."""

from __future__ import annotations

import pytest

from officegym.apps.registry import entries

from .conftest import signed_in_page

pytestmark = pytest.mark.browser
VIEWPORTS = ((1280, 800), (1920, 1080))

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
    if (style.overflowX === 'visible') {
      // A box that does not clip: its in-flow children must stay inside it.
      for (const child of e.children) {
        const cs = getComputedStyle(child);
        if (cs.position === 'absolute' || cs.position === 'fixed' || cs.display === 'none') continue;
        const c = child.getBoundingClientRect();
        if (c.width > 0 && (c.right > box.right + 1 || c.left < box.left - 1)) {
          problems.push(`${describe(child)}: ${Math.round(c.width)}px wide, sticks out of ` +
                        `its ${Math.round(box.width)}px box ${describe(e)}`);
        }
      }
    }
    if (box.right > window.innerWidth + 1 && box.width > 0 && !inScrollBox(e)) {
      problems.push(`${describe(e)}: cut off at the window's right edge (${Math.round(box.right)}px)`);
    }
  }
  return problems;
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
@pytest.mark.parametrize("app", [a.slug for a in entries()])
def test_no_main_page_overflows_or_clips_its_content(
    browser, small_server, main_pages_small, app, viewport
):
    mine = [p for p in main_pages_small if p.app == app]
    assert mine, f"{app} declares no main pages"
    problems: list[str] = []
    contexts = {}
    try:
        for main_page in mine:
            if main_page.user not in contexts:
                contexts[main_page.user] = signed_in_page(
                    browser, small_server, main_page.user, viewport
                )
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


def test_the_overflow_check_sees_a_card_wider_than_its_column_and_a_clipped_name(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.set_content(
            "<main><div style='width: 120px'><div style='width: 300px'>A card too wide</div>"
            "</div><div style='width: 60px; overflow: hidden; white-space: nowrap'>"
            "Alexandria Montgomery-Richardson</div>"
            "<div style='width: 60px; overflow: hidden; white-space: nowrap; "
            "text-overflow: ellipsis' title='Deliberately shortened'>Deliberately shortened"
            "</div></main>"
        )
        problems = page.evaluate(OVERFLOW)
    finally:
        page.close()
    assert any("A card too wide" in p and "sticks out" in p for p in problems), problems
    assert any("Alexandria" in p for p in problems), problems
    assert not any("Deliberately" in p for p in problems), problems

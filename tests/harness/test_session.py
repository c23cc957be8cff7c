"""Every action of the action set, executed in the real apps through the environment.

Element actions are checked by their effect on the page (values, checked state, focus) or,
for pointer actions without a visible effect in the apps, by DOM events recorded in the page.
The frozen page clock is checked with and without Playwright's own clock API.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

import officegym
from officegym.harness.session import freeze_clock, has_clock
from tests.harness.envs import hello_task

pytestmark = pytest.mark.browser

RECORDER = """() => {
    window.__events = [];
    for (const type of ['click', 'dblclick', 'mouseover', 'mousedown', 'mouseup', 'mousemove',
                        'wheel', 'keydown', 'focusin', 'dragstart', 'drop']) {
        document.addEventListener(type, e => {
            const t = e.target instanceof Element ? e.target : null;
            window.__events.push([type, t && t.getAttribute('bid'), e.button, e.key || null]);
        }, true);
    }
}"""


@pytest.fixture(scope="module")
def env(store):
    env = officegym.make(hello_task(store.golden(0, "tiny")), home=store.home)
    yield env
    env.close()


def run(env, coro):
    return env._shared.run(coro)


def page(env):
    return env._core.session.page


def js(env, script: str, arg=None):
    return run(env, page(env).evaluate(script, arg))


def bid_of(env, selector: str) -> str:
    return js(env, "s => document.querySelector(s).getAttribute('bid')", selector)


def events(env, kind: str) -> list[list]:
    return [e for e in js(env, "() => window.__events") if e[0] == kind]


def at(env, selector: str) -> tuple[float, float]:
    box = js(
        env,
        "s => { const r = document.querySelector(s).getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; }",
        selector,
    )
    return box[0], box[1]


def ok(env, action: str) -> dict:
    obs, _, _, _, _ = env.step(action)
    assert obs["last_action_error"] == "", obs["last_action_error"]
    return obs


@pytest.fixture
def status_page(env):
    env.reset(seed=0)
    ok(env, 'goto("/chat/status")')
    js(env, RECORDER)
    return env


@pytest.fixture
def new_channel_page(env):
    env.reset(seed=0)
    ok(env, 'goto("/chat/new")')
    js(env, RECORDER)
    return env


def test_fill_then_clear_a_text_input(status_page):
    env = status_page
    box = bid_of(env, "#status-text")
    obs = ok(env, f'fill("{box}", "Out to lunch")')
    assert js(env, "() => document.querySelector('#status-text').value") == "Out to lunch"
    assert "Out to lunch" in obs["axtree_txt"]
    ok(env, f'clear("{box}")')
    assert js(env, "() => document.querySelector('#status-text').value") == ""


def test_select_option_by_label_or_value(status_page):
    env = status_page
    select = bid_of(env, "#status-emoji")
    value = js(env, "() => document.querySelector('#status-emoji').options[2].value")
    ok(env, f'select_option("{select}", "{value}")')
    assert js(env, "() => document.querySelector('#status-emoji').value") == value
    ok(env, f'select_option("{select}", "No emoji")')
    assert js(env, "() => document.querySelector('#status-emoji').value") == ""


def test_check_and_uncheck_a_checkbox(new_channel_page):
    env = new_channel_page
    box = bid_of(env, "input[name=is_private]")
    ok(env, f'check("{box}")')
    assert js(env, "() => document.querySelector('input[name=is_private]').checked") is True
    ok(env, f'uncheck("{box}")')
    assert js(env, "() => document.querySelector('input[name=is_private]').checked") is False


def test_click_dblclick_and_hover_reach_the_element(new_channel_page):
    env = new_channel_page
    title = bid_of(env, "h1")
    ok(env, f'click("{title}", button="right")')
    assert events(env, "mousedown")[-1][1:3] == [title, 2]
    ok(env, f'dblclick("{title}")')
    assert events(env, "dblclick")[-1][1] == title
    ok(env, f'hover("{title}")')
    assert events(env, "mouseover")[-1][1] == title


def test_focus_and_press_a_key_in_an_element(new_channel_page):
    env = new_channel_page
    name = bid_of(env, "#name")
    obs = ok(env, f'focus("{name}")')
    assert obs["focused_element_bid"] == name
    ok(env, f'press("{name}", "x")')
    assert js(env, "() => document.querySelector('#name').value") == "x"


def test_keyboard_type_and_keyboard_press_go_to_the_focused_element(new_channel_page):
    env = new_channel_page
    ok(env, f'focus("{bid_of(env, "#topic")}")')
    ok(env, 'keyboard_type("Budget talk")')
    ok(env, 'keyboard_press("Backspace")')
    assert js(env, "() => document.querySelector('#topic').value") == "Budget tal"
    assert events(env, "keydown")[-1][3] == "Backspace"


def test_mouse_actions_at_coordinates(new_channel_page):
    env = new_channel_page
    x, y = at(env, "#name")
    ok(env, f"mouse_move({x}, {y})")
    assert events(env, "mousemove")
    ok(env, f"mouse_click({x}, {y})")
    assert js(env, "() => document.activeElement.id") == "name"
    ok(env, f"mouse_dblclick({x}, {y})")
    assert events(env, "dblclick")[-1][1] == bid_of(env, "#name")
    ok(env, f'mouse_down({x}, {y}, button="middle")')
    ok(env, f'mouse_up({x}, {y}, button="middle")')
    assert events(env, "mousedown")[-1][2] == 1 and events(env, "mouseup")[-1][2] == 1


def test_scroll_sends_a_wheel_event(env):
    env.reset(seed=0)
    js(env, RECORDER)
    ok(env, "scroll(0, 400)")
    assert events(env, "wheel")


def test_drag_and_drop_between_elements(new_channel_page):
    env = new_channel_page
    js(
        env,
        """() => {
            document.querySelector('h1').draggable = true;
            document.querySelector('#description')
                .addEventListener('dragover', e => e.preventDefault());
        }""",
    )
    ok(env, f'drag_and_drop("{bid_of(env, "h1")}", "{bid_of(env, "#description")}")')
    assert events(env, "dragstart")[-1][1] == bid_of(env, "h1")
    assert events(env, "drop")[-1][1] == bid_of(env, "#description")


def test_history_and_tabs(env):
    obs, _ = env.reset(seed=0)
    start = obs["url"]
    ok(env, 'goto("/chat/browse")')
    obs = ok(env, "go_back()")
    assert obs["url"] == start
    obs = ok(env, "go_forward()")
    assert obs["url"].endswith("/chat/browse")
    obs = ok(env, "new_tab()")
    assert len(obs["open_pages_urls"]) == 2 and obs["active_page_index"][0] == 1
    obs = ok(env, 'goto("/chat/people")')
    assert obs["open_pages_urls"][1].endswith("/chat/people")
    obs = ok(env, "tab_focus(0)")
    assert obs["active_page_index"][0] == 0 and obs["url"].endswith("/chat/browse")
    obs, *_ = env.step("tab_focus(5)")
    assert "no tab 5" in obs["last_action_error"]
    obs = ok(env, "tab_close()")
    assert obs["open_pages_urls"] == (obs["url"],) and obs["url"].endswith("/chat/people")


def test_go_forward_without_history_is_an_error(env):
    env.reset(seed=0)
    obs, *_ = env.step("go_forward()")
    assert "no next page" in obs["last_action_error"]


def test_hidden_and_disabled_elements_give_actionable_errors(new_channel_page):
    env = new_channel_page
    js(env, "() => { document.querySelector('#topic').style.display = 'none'; }")
    obs, *_ = env.step(f'fill("{bid_of(env, "#topic")}", "x")')
    assert "not visible" in obs["last_action_error"]
    js(env, "() => { document.querySelector('#name').disabled = true; }")
    obs, *_ = env.step(f'fill("{bid_of(env, "#name")}", "x")')
    assert "is disabled" in obs["last_action_error"]


def test_fill_on_a_non_input_explains_the_problem(new_channel_page):
    env = new_channel_page
    obs, *_ = env.step(f'fill("{bid_of(env, "h1")}", "x")')
    assert obs["last_action_error"].startswith("fill:")
    assert "input" in obs["last_action_error"].lower()


def test_noop_waits_for_quiet_without_error(env):
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("noop(50)")
    assert obs["last_action_error"] == "" and not terminated and info["settled"]


def test_a_step_waits_for_the_pages_fetches_and_what_it_does_with_them(new_channel_page):
    env = new_channel_page

    async def slow(route):
        await asyncio.sleep(0.4)
        await route.fulfill(body=route.request.url.rsplit("/", 1)[-1])

    run(env, page(env).route("**/officegym-probe/*", slow))
    js(
        env,
        """() => {
            const button = document.createElement('button');
            button.id = 'probe';
            button.textContent = 'Load';
            button.addEventListener('click', async () => {
                const first = await (await fetch('/officegym-probe/first')).text();
                const second = await (await fetch('/officegym-probe/' + first + '-second')).text();
                button.textContent = 'Loaded ' + second;
            });
            document.body.prepend(button);
        }""",
    )
    ok(env, "noop(10)")
    obs = ok(env, f'click("{bid_of(env, "#probe")}")')
    assert js(env, "() => document.querySelector('#probe').textContent") == "Loaded first-second"
    assert "Loaded first-second" in obs["axtree_txt"]


def test_the_page_counts_its_pending_fetches_xhrs_and_body_reads(new_channel_page):
    env = new_channel_page

    async def slow(route):
        await asyncio.sleep(0.3)
        await route.fulfill(body="ok")

    run(env, page(env).route("**/officegym-probe/*", slow))
    pending = "() => window[Symbol.for('officegym.pending')]"
    assert js(env, pending) == 0
    js(
        env,
        """() => {
            window.__probe = [];
            fetch('/officegym-probe/a').then(r => r.text()).then(t => window.__probe.push(t));
            const xhr = new XMLHttpRequest();
            xhr.open('GET', '/officegym-probe/b');
            xhr.onload = () => window.__probe.push(xhr.responseText);
            xhr.send();
        }""",
    )
    assert js(env, pending) == 2
    assert run(env, env._core.session.settle())
    assert js(env, pending) == 0
    assert js(env, "() => window.__probe") == ["ok", "ok"]


def test_report_infeasible_terminates_with_the_reason(env):
    env.reset(seed=0)
    _, _, terminated, _, info = env.step('report_infeasible("no such channel")')
    assert terminated and info["infeasible"] == "no such channel"
    assert info["answer"] is None


def test_several_actions_in_one_step_run_in_order(new_channel_page):
    env = new_channel_page
    name, topic = bid_of(env, "#name"), bid_of(env, "#topic")
    obs = ok(env, f'fill("{name}", "plan-q3")\nfill("{topic}", "Q3 planning")')
    assert js(env, "() => document.querySelector('#name').value") == "plan-q3"
    assert js(env, "() => document.querySelector('#topic').value") == "Q3 planning"
    assert "Q3 planning" in obs["axtree_txt"]


def test_an_element_that_never_becomes_clickable_times_out_with_a_message(new_channel_page):
    env = new_channel_page
    js(
        env,
        """() => {
            const cover = document.createElement('div');
            cover.style.cssText = 'position:fixed;inset:0;z-index:9999;background:transparent';
            document.body.append(cover);
        }""",
    )
    obs, *_ = env.step(f'click("{bid_of(env, "#name")}")')
    assert obs["last_action_error"].startswith("click: timed out")
    assert (
        "intercepts pointer events" in obs["last_action_error"]
        or "3000" in obs["last_action_error"]
    )


# Playwright before 1.45 has no `context.clock`: the session freezes `Date` with an init script.
CLOCK_PATHS = [
    pytest.param(False, id="init-script"),
    pytest.param(True, id="playwright-clock"),
]
WORLD_NOW = datetime(2024, 3, 14, 9, 26, 53, tzinfo=UTC)
DATE_PROBE = """() => [
    Date.now(), new Date().getTime(), new Date(2020, 0, 2).getFullYear(),
    new Date() instanceof Date, Date().startsWith(new Date(Date.now()).toString().slice(0, 15)),
]"""


@pytest.mark.parametrize("native", CLOCK_PATHS)
def test_the_page_clock_is_frozen_at_the_world_time_with_or_without_playwrights_clock(
    loop, live_server, native
):
    async def probe() -> tuple[list, list]:
        context = await loop.browser.new_context()
        if native and not has_clock(context):
            await context.close()
            pytest.skip("this Playwright has no context.clock")
        try:
            blank = await context.new_page()
            await freeze_clock(context, WORLD_NOW, native=native)
            page = await context.new_page()
            await page.goto(live_server.url + "/login")
            return await blank.evaluate(DATE_PROBE), await page.evaluate(DATE_PROBE)
        finally:
            await context.close()

    ms = WORLD_NOW.timestamp() * 1000
    for seen in loop.run(probe()):
        assert seen == [ms, ms, 2020, True, True]


def test_a_later_freeze_replaces_an_earlier_one_in_the_init_script(loop, live_server):
    async def probe() -> float:
        context = await loop.browser.new_context()
        try:
            await freeze_clock(context, datetime(2020, 1, 1, tzinfo=UTC), native=False)
            await freeze_clock(context, WORLD_NOW.replace(tzinfo=None), native=False)
            page = await context.new_page()
            await page.goto(live_server.url + "/login")
            return await page.evaluate("Date.now()")
        finally:
            await context.close()

    assert loop.run(probe()) == WORLD_NOW.timestamp() * 1000

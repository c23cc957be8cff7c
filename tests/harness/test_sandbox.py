"""The sandbox: only the suite's origin is reachable, files stay in the episode folder."""

from __future__ import annotations

from pathlib import Path

import pytest

import officegym
from officegym.harness.sandbox import Sandbox, SandboxViolation, routes_web_sockets
from tests.harness.envs import hello_task

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def env(store):
    task = hello_task(store.golden(0, "tiny"), files={"notes.txt": b"episode file"})
    env = officegym.make(task, home=store.home, observation={"dom": False})
    yield env
    env.close()


def page_eval(env, script: str):
    return env._shared.run(env._core.session.page.evaluate(script))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://example.com/", "outside this suite"),
        ("http://127.0.0.1:1/", "outside this suite"),
        ("file:///etc/passwd", "file: URLs are not allowed"),
        ("chrome://version", "chrome: URLs are not allowed"),
        ("javascript:alert(1)", "javascript: URLs are not allowed"),
        ("data:text/html,<h1>x</h1>", "data: URLs are not allowed"),
    ],
)
def test_goto_outside_the_suite_is_refused_and_counted(env, url, message):
    obs, _ = env.reset(seed=0)
    start = obs["url"]
    obs, _, terminated, _, info = env.step(f"goto({url!r})".replace("'", '"'))
    assert message in obs["last_action_error"]
    assert obs["url"] == start and not terminated
    assert info["blocked_requests"] == 1


def test_goto_a_path_of_the_suite_works(env):
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step('goto("/chat/browse")')
    assert obs["last_action_error"] == ""
    assert obs["url"] == env.server_url + "/chat/browse"


def test_requests_the_page_makes_to_other_sites_are_aborted_and_counted(env):
    env.reset(seed=0)
    # The apps' CSP already stops fetches and images to other origins inside the page...
    outcome = page_eval(
        env,
        """async () => {
            try { await fetch('http://example.com/track'); return 'reached'; }
            catch (e) { return 'blocked'; }
        }""",
    )
    assert outcome == "blocked"
    _, _, _, _, info = env.step("noop(0)")
    assert info["blocked_urls"] == ["http://example.com/track"]
    # ...navigations are not covered by CSP, and the sandbox aborts them.
    page_eval(env, "() => { window.location.href = 'https://example.com/exfiltrate?q=1'; }")
    obs, _, _, _, info = env.step("noop(500)")
    assert info["blocked_requests"] == 2
    assert info["blocked_urls"][1] == "https://example.com/exfiltrate?q=1"
    assert "example.com is blocked" in obs["axtree_txt"]


def test_web_sockets_to_other_sites_are_closed(env):
    env.reset(seed=0)
    outcome = page_eval(
        env,
        """() => new Promise(done => {
            const ws = new WebSocket('ws://example.com/socket');
            ws.onopen = () => done('open');
            ws.onclose = () => done('closed');
            ws.onerror = () => done('closed');
        })""",
    )
    assert outcome == "closed"
    _, _, _, _, info = env.step("noop(0)")
    assert info["blocked_requests"] >= 1


def file_input_bid(env) -> str:
    return page_eval(env, "() => document.querySelector('input[type=file]').getAttribute('bid')")


def test_upload_outside_the_episode_folder_is_refused(env):
    env.reset(seed=0)
    file_input = file_input_bid(env)
    obs, *_ = env.step(f'upload_file("{file_input}", "/etc/passwd")')
    assert "outside the episode folder" in obs["last_action_error"]
    obs, *_ = env.step(f'upload_file("{file_input}", "../../secret.txt")')
    assert "outside the episode folder" in obs["last_action_error"]
    assert page_eval(env, "() => document.querySelector('input[type=file]').files.length") == 0


def test_upload_from_the_episode_folder_works(env):
    env.reset(seed=0)
    obs, *_ = env.step(f'upload_file("{file_input_bid(env)}", "notes.txt")')
    assert obs["last_action_error"] == ""
    name = page_eval(env, "() => document.querySelector('input[type=file]').files[0].name")
    assert name == "notes.txt"


def test_upload_of_a_missing_file_lists_what_is_there(tmp_path: Path):
    sandbox = Sandbox("http://127.0.0.1:9", tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SandboxViolation, match="available: notes.txt"):
        sandbox.upload_paths(["other.txt"])
    assert sandbox.upload_paths(["notes.txt"]) == [str((tmp_path / "notes.txt").resolve())]


def test_only_the_origin_matches_as_local(tmp_path: Path):
    sandbox = Sandbox("http://127.0.0.1:8000", tmp_path)
    foreign = sandbox.foreign
    assert not foreign.search("http://127.0.0.1:8000/chat/")
    assert not foreign.search("http://127.0.0.1:8000")
    assert foreign.search("http://127.0.0.1:80001/chat/")
    assert foreign.search("http://127.0.0.1:8000.evil.com/")
    assert foreign.search("https://127.0.0.1:8000/")
    assert foreign.search("http://localhost:8000/")


def test_downloads_are_saved_in_the_episode_folder(env, store):
    import sqlite3

    golden = store.golden(0, "tiny")
    conn = sqlite3.connect(f"file:{golden}?mode=ro", uri=True)
    attachment_id, filename = conn.execute(
        "SELECT a.id, a.filename FROM chat_attachment a JOIN chat_message m ON m.id = a.message_id"
        " JOIN chat_channel c ON c.id = m.channel_id WHERE NOT c.is_private ORDER BY a.id LIMIT 1"
    ).fetchone()
    conn.close()
    env.reset(seed=0)
    page_eval(
        env,
        f"""() => {{
            const a = document.createElement('a');
            a.href = '/chat/files/{attachment_id}/{filename}';
            a.textContent = 'get the file';
            document.body.prepend(a);
        }}""",
    )
    env.step("noop(0)")  # observe the page with the new link
    link = env.actions.find("link", "get the file")
    obs, _, _, _, info = env.step(f'click("{link}")')
    assert obs["last_action_error"] == ""
    assert info["downloads"] == [filename]
    assert (env._core.sandbox.folder / filename).is_file()


# Playwright before 1.48 has no `route_web_socket`: the sandbox refuses sockets with an init script.
SOCKET_PATHS = [
    pytest.param(False, id="init-script"),
    pytest.param(True, id="route-web-socket"),
]
OPEN_SOCKET = """url => new Promise(done => {
    const ws = new WebSocket(url);
    ws.onopen = () => done(['open', 0]);
    ws.onclose = e => done(['closed', e.code]);
})"""


@pytest.mark.parametrize("native", SOCKET_PATHS)
@pytest.mark.parametrize("path", ["/login", None], ids=["suite-page", "blank-page"])
def test_web_sockets_off_the_origin_are_refused_with_or_without_route_web_socket(
    loop, live_server, tmp_path, native, path
):
    sandbox = Sandbox(live_server.url, tmp_path)

    async def probe() -> list:
        context = await loop.browser.new_context()
        if native and not routes_web_sockets(context):
            await context.close()
            pytest.skip("this Playwright has no route_web_socket")
        try:
            await sandbox.install(context, native_sockets=native)
            page = await context.new_page()
            if path is not None:
                await page.goto(live_server.url + path)
            return await page.evaluate(OPEN_SOCKET, "ws://example.com/socket")
        finally:
            await context.close()

    outcome, code = loop.run(probe())
    assert outcome == "closed"
    assert sandbox.blocked_urls == ["ws://example.com/socket"]
    if not native:
        assert code == 1008

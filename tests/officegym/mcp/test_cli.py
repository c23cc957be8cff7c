"""`officegym mcp` as a real process, driven by the MCP SDK's own clients."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from officegym.mcp.cli import mcp_command
from tests.conftest import new_world_id
from tests.officegym.loops import run_async

# A subprocess imports the apps and the SDK before it answers: room for a loaded machine.
START_TIMEOUT_S = 120


@pytest.fixture
def world(store):
    """A tiny world and the email of its first active employee."""
    world_id = new_world_id("mcp-cli")
    store.create(world_id, 0, "tiny")
    conn = sqlite3.connect(store.world_path(world_id))
    (email,) = conn.execute(
        "SELECT email FROM people_employee WHERE is_active ORDER BY id"
    ).fetchone()
    conn.close()
    yield world_id, email
    store.drop(world_id)


def command(store, world_id: str, email: str, *extra: str) -> list[str]:
    return [
        "-m",
        "officegym.cli",
        "mcp",
        "--app",
        "chat",
        "--world",
        world_id,
        "--user",
        email,
        "--world-home",
        str(store.home),
        *extra,
    ]


def test_stdio_server_lists_the_app_tools_and_a_call_changes_the_world(store, world, tmp_path):
    world_id, email = world
    params = StdioServerParameters(command=sys.executable, args=command(store, world_id, email))
    errors = tmp_path / "stderr.txt"

    async def session():
        with open(errors, "w") as errlog:
            async with Client(
                stdio_client(params, errlog=errlog), read_timeout_seconds=START_TIMEOUT_S
            ) as client:
                tools = (await client.list_tools()).tools
                result = await client.call_tool(
                    "chat_put_me_status", {"body": {"emoji": ":palm_tree:", "text": "Back Monday"}}
                )
                return tools, result

    tools, result = run_async(session, anyio=True)
    assert not result.is_error, result.content[0].text + errors.read_text()
    assert result.structured_content["email"] == email
    assert len(tools) > 30 and all(t.name.startswith("chat_") for t in tools)
    changed = store.diff(world_id).to_json()
    assert list(changed) == ["people_employee"]
    (row,) = changed["people_employee"]["updated"].values()
    assert row["changes"]["status_text"][1] == "Back Monday"


def test_http_server_answers_at_the_url_it_announces_to_its_token_only(store, world):
    world_id, email = world
    args = command(store, world_id, email, "--transport", "http", "--port", "0")
    env = {**os.environ, "OFFICEGYM_TOKEN": "s3cret"}
    process = subprocess.Popen([sys.executable, *args], stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stderr.readline()
        assert "serving on http://127.0.0.1:" in line, line + process.stderr.read()
        url = line.split("serving on ")[1].strip()
        anonymous = urllib.request.Request(url, data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(anonymous, timeout=30)
        assert refused.value.code == 401

        async def session():
            headers = {"Authorization": "Bearer s3cret"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                tools = (await client.list_tools()).tools
                found = await client.call_tool(
                    "chat_get_channels_by_name_item", {"name": "general"}
                )
                return tools, found

        tools, found = run_async(session, anyio=True)
    finally:
        process.terminate()
        process.wait(30)
    assert any(t.name == "chat_post_channels_messages" for t in tools)
    assert not found.is_error and found.structured_content["name"] == "general"


def test_http_on_a_public_address_without_a_token_is_refused(store, world, monkeypatch):
    monkeypatch.delenv("OFFICEGYM_TOKEN", raising=False)
    world_id, email = world
    args = ["--app", "chat", "--world", world_id, "--user", email, "--transport", "http"]
    result = CliRunner().invoke(
        mcp_command, [*args, "--host", "0.0.0.0", "--world-home", str(store.home)]
    )
    assert result.exit_code == 2
    assert "needs a token" in result.output


def test_a_world_that_does_not_exist_is_a_clear_error(store):
    runner = CliRunner()
    args = ["--app", "chat", "--world", "nowhere", "--user", "x@example.com"]
    result = runner.invoke(mcp_command, [*args, "--world-home", str(store.home)])
    assert result.exit_code == 1
    assert "no world 'nowhere'" in result.output and "--create" in result.output


def test_a_user_who_cannot_sign_in_is_a_clear_error(store, world):
    world_id, _ = world
    args = ["--app", "chat", "--world", world_id, "--user", "nobody@example.com"]
    result = CliRunner().invoke(mcp_command, [*args, "--world-home", str(store.home)])
    assert result.exit_code == 1
    assert "cannot sign in as 'nobody@example.com'" in result.output

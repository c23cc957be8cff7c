"""The MCP server's tools call the JSON API as the signed-in user, through the SDK's client."""

from __future__ import annotations

import sqlite3

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from officegym.apps.web.server import start_background_server
from officegym.mcp.api_session import ApiSession
from officegym.mcp.server import build_server
from officegym.mcp.toolset import Toolset, app_operations
from tests.conftest import new_world_id
from tests.officegym.loops import run_async


@pytest.fixture(scope="module")
def rep(store):
    """A tiny world, one open deal, and a plain rep who does not own it (signed in)."""
    world_id = new_world_id("mcp-tools")
    store.create(world_id, 0, "tiny")
    conn = sqlite3.connect(store.world_path(world_id))
    deal_id, owner_id = conn.execute(
        "SELECT o.id, o.owner_id FROM crm_opportunity o JOIN people_employee e "
        "ON e.id = o.owner_id WHERE o.stage = 'Prospecting' AND e.is_active ORDER BY o.id"
    ).fetchone()
    (email,) = conn.execute(
        "SELECT email FROM people_employee WHERE role = 'member' AND is_active AND id != ? "
        "ORDER BY id",
        (owner_id,),
    ).fetchone()
    conn.close()
    session = ApiSession.in_process(store, world_id, email)
    yield world_id, deal_id, session
    session.close()
    store.drop(world_id)


def call(session: ApiSession, apps: list[str], name: str, arguments: dict):
    """The tool's result, or the protocol error the client raised (caught inside the
    client's context, which would wrap it in an exception group on the way out)."""

    async def go():
        async with Client(build_server(Toolset(session, apps))) as client:
            try:
                return await client.call_tool(name, arguments)
            except MCPError as error:
                return error

    return run_async(go, anyio=True)


def test_listed_tools_are_the_operations_of_the_openapi_document(rep):
    _, _, session = rep

    async def go():
        async with Client(build_server(Toolset(session, ["crm", "chat"]))) as client:
            return (await client.list_tools()).tools

    tools = run_async(go, anyio=True)
    expected = [*app_operations(session, "crm"), *app_operations(session, "chat")]
    assert [t.name for t in tools] == [op.name for op in expected]
    assert [t.input_schema for t in tools] == [op.input_schema for op in expected]
    read_only = {t.name: t.annotations.read_only_hint for t in tools}
    assert read_only["crm_get_opportunities"] and not read_only["crm_post_opportunities_stage"]


def test_a_forbidden_operation_returns_the_api_refusal_and_changes_nothing(store, rep):
    world_id, deal_id, session = rep
    result = call(
        session,
        ["crm"],
        "crm_post_opportunities_stage",
        {"record_id": deal_id, "body": {"stage": "Negotiation"}},
    )
    direct = session.request(
        "POST", f"/crm/api/opportunities/{deal_id}/stage", json_body={"stage": "Negotiation"}
    )
    assert result.is_error
    assert direct.status == 403
    assert result.content[0].text == direct.error_message()
    assert "You can edit only records you own" in result.content[0].text
    assert result.structured_content["error"]["status"] == 403
    assert not store.diff(world_id)


def test_arguments_outside_the_schema_are_a_tool_error_and_send_nothing(rep):
    _, _, session = rep
    sent = len(session.calls)
    result = call(session, ["crm"], "crm_post_opportunities_stage", {"record_id": "five"})
    assert result.is_error
    text = result.content[0].text
    assert "record_id: 'five' is not of type 'integer'" in text
    assert "'body' is a required property" in text
    assert len(session.calls) == sent


def test_an_unknown_tool_is_a_protocol_error(rep):
    _, _, session = rep
    error = call(session, ["crm"], "crm_fly_away", {})
    assert isinstance(error, MCPError)
    assert "no tool 'crm_fly_away'" in error.message


def test_a_world_made_again_signs_the_user_in_again(store):
    world_id = new_world_id("mcp-again")
    store.create(world_id, 0, "tiny")
    conn = sqlite3.connect(store.world_path(world_id))
    (email,) = conn.execute("SELECT email FROM people_employee WHERE is_active").fetchone()
    conn.close()
    with ApiSession.in_process(store, world_id, email) as session:
        store.create(world_id, 0, "tiny", replace=True)
        result = call(session, ["chat"], "chat_get_sidebar", {})
    store.drop(world_id)
    assert not result.is_error, result.content[0].text
    assert result.structured_content["channels"]


def test_calls_can_go_to_a_running_server_over_http(store, rep):
    world_id, _, session = rep
    with (
        start_background_server(store, threads=2) as server,
        ApiSession.remote(server.url, world_id, session.user) as remote,
    ):
        result = call(remote, ["crm"], "crm_get_opportunities", {"stage": "open"})
        assert remote.calls[0].startswith(server.url.rstrip("/") + "/crm/api/")
    assert not result.is_error, result.content[0].text
    assert result.structured_content["total"] > 0

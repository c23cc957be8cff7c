"""Many episodes at once: one browser, one server, separate worlds."""

from __future__ import annotations

import pytest

from officegym.harness import EnvPool, NullAgent
from officegym.harness.actions import format_action
from officegym.tasks.protocol import EpisodeContext, Task
from officegym.tasks.verdict import Check, Verdict
from tests.harness.envs import TINY, first_member

pytestmark = pytest.mark.browser


def posted_marker(ctx: EpisodeContext) -> Verdict:
    bodies = sorted(r["body"] for r in ctx.diff.table("chat_message").inserted.values())
    return Verdict([Check("bodies", True, detail="|".join(bodies))])


@pytest.fixture
def pool(store):
    email, channel_id, _ = first_member(store.golden(0, "tiny"))
    task = Task(
        goal="post your marker",
        user=email,
        start_url=f"/chat/c/{channel_id}",
        verify=posted_marker,
        world=TINY,
    )
    pool = EnvPool(task, 2, home=store.home, observation={"dom": False})
    yield pool
    pool.close()


def composer_actions(env, text: str) -> str:
    box = next(n.bid for n in env.nodes if n.role == "textbox" and "Message" in n.name)
    send = next(n.bid for n in env.nodes if n.role == "button" and n.name == "Send")
    return f"{format_action('fill', box, text)}\n{format_action('click', send)}"


def test_two_concurrent_episodes_never_see_each_other(pool):
    results = pool.reset()
    assert len(results) == 2
    assert pool.envs[0].world_id != pool.envs[1].world_id
    steps = pool.step([composer_actions(e, f"marker-{i}") for i, e in enumerate(pool.envs)])
    for i, (obs, *_rest) in enumerate(steps):
        assert obs["last_action_error"] == ""
        assert f"marker-{i}" in obs["axtree_txt"]
        assert f"marker-{1 - i}" not in obs["axtree_txt"]
    finals = pool.step(['send_msg_to_user("done")'] * 2)
    for i, (_, _, terminated, _, info) in enumerate(finals):
        assert terminated
        assert info["verdict"].checks[0].detail == f"marker-{i}"


def test_step_with_none_leaves_an_environment_alone(pool):
    pool.reset()
    out = pool.step(["noop(0)", None])
    assert out[1] is None and out[0][0]["last_action_error"] == ""
    assert pool.envs[1].steps == 0


def test_run_plays_whole_episodes_with_workers(pool):
    results = pool.run(NullAgent(), 3, seed=10)
    assert [r.instance_seed for r in results] == [None, None, None]
    assert all(r.steps == 0 and not r.truncated for r in results)
    assert all(r.score == 1.0 for r in results)  # the marker check always passes


def test_pool_size_and_batch_length_are_checked(pool):
    with pytest.raises(ValueError, match="2 environments but 1 actions"):
        pool.step(["noop()"])
    with pytest.raises(ValueError, match="n >= 1"):
        EnvPool("chat.post_update", 0)


def test_async_env_runs_on_the_callers_event_loop(store):
    """AsyncEnv in user asyncio code (on its own thread here: pytest's main thread may host
    the sync Playwright of other suites)."""
    import asyncio
    import threading

    from officegym.harness import AsyncEnv, Runtime, RuntimeOptions
    from tests.harness.envs import hello_task

    outcome: dict = {}

    async def main() -> None:
        async with Runtime(RuntimeOptions(home=store.home)) as runtime:
            env = AsyncEnv(hello_task(store.golden(0, "tiny")), runtime, observation={"dom": False})
            try:
                obs, _ = await env.reset()
                box = next(n.bid for n in env.nodes if n.role == "textbox" and "Message" in n.name)
                send = next(n.bid for n in env.nodes if n.role == "button" and n.name == "Send")
                await env.step(f'fill("{box}", "hello from the harness")\nclick("{send}")')
                _, reward, terminated, _, info = await env.step('send_msg_to_user("ok")')
                outcome.update(goal=obs["goal"], reward=reward, terminated=terminated)
            finally:
                await env.close()

    thread = threading.Thread(target=lambda: asyncio.run(main()))
    thread.start()
    thread.join(120)
    assert outcome["terminated"] and outcome["reward"] == 1.0


def test_pools_alive_at_once_never_share_a_world_id(store):
    """Ids came from `id(pool) % 10000`: two pools could collide. Now a counter per process."""
    email, channel_id, _ = first_member(store.golden(0, "tiny"))
    task = Task(
        goal="g", user=email, start_url=f"/chat/c/{channel_id}", verify=posted_marker, world=TINY
    )
    pools = [EnvPool(task, 2, home=store.home) for _ in range(3)]
    try:
        ids = [env.world_id for pool in pools for env in pool.envs]
        assert len(set(ids)) == len(ids) == 6
    finally:
        for pool in pools:
            pool.close()

"""Candidate pools are read once per golden while sampling, never while grading, and a
sampler cannot spoil a pool for the next instance."""

from __future__ import annotations

import pytest

from officegym.tasks import pools
from officegym.tasks.registry import get

calls: list[tuple] = []


@pools.per_golden
def _pool(world, size: int) -> list[int]:
    calls.append((world, size))
    return list(range(size))


def test_a_pool_is_read_once_per_golden_and_arguments_while_sampling(tmp_path):
    calls.clear()
    with pools.sampling(tmp_path / "a.sqlite"):
        first = _pool("conn1", 3)
        first.append(99)  # a sampler editing its copy
        assert _pool("conn2", 3) == [0, 1, 2]
        assert _pool("conn2", 4) == [0, 1, 2, 3]
    with pools.sampling(tmp_path / "b.sqlite"):
        _pool("conn3", 3)
    assert [size for _, size in calls] == [3, 4, 3]


def test_outside_sampling_a_pool_is_read_every_time():
    calls.clear()
    _pool("live-world", 2)
    _pool("live-world", 2)
    assert len(calls) == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    "template_id",
    ["chat.count_unread_mentions", "chat.edit_number", "crm.update_phone_from_chat"],
)
def test_an_instance_is_the_same_whether_its_pools_are_cold_or_warm(store, template_id):
    golden = store.golden(0, "small")
    template = get(template_id)
    pools._pools.clear()
    cold = [template.instance(golden, seed) for seed in range(4)]
    warm = [template.instance(golden, seed) for seed in range(4)]
    assert [(t.goal, dict(t.params)) for t in cold] == [(t.goal, dict(t.params)) for t in warm]

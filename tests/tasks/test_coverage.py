"""Coverage statistics catch thin templates and near-constant answers."""

from __future__ import annotations

import random

import pytest

from officegym.tasks.chat.channel_member_count import ChannelMemberCount
from officegym.tasks.coverage import instance_stats

pytestmark = pytest.mark.slow


class _SameEveryTime(ChannelMemberCount):
    """Samples one instance whatever the seed."""

    def sample(self, world, rng):
        return super().sample(world, random.Random(0))


def test_a_template_that_repeats_one_instance_breaks_both_rules(store):
    stats = instance_stats(_SameEveryTime(), store.golden(0, "small"), samples=120)
    assert stats.distinct_100 == 1 and stats.top_share == 1.0
    problems = " ".join(stats.problems())
    assert "1 distinct instances" in problems and "100%" in problems


def test_a_declared_cardinality_lowers_the_distinct_floor(store):
    class Declared(_SameEveryTime):
        cardinality = (1, "the world has one such channel")

    stats = instance_stats(Declared(), store.golden(0, "small"), samples=120)
    assert not any("distinct" in p for p in stats.problems())

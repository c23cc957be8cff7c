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


class _SometimesImpossible(ChannelMemberCount):
    """Every third instance asks for the impossible."""

    def sample(self, world, rng):
        params = super().sample(world, rng)
        return {**params, "feasible": rng.random() > 0.33}


def test_impossible_instances_must_be_declared_and_declared_ones_must_occur(store):
    golden = store.golden(0, "small")
    undeclared = instance_stats(_SometimesImpossible(), golden, samples=30)
    assert undeclared.impossible and "does not declare" in " ".join(undeclared.problems())

    class Declared(_SometimesImpossible):
        impossible_instances = True

    assert not any("impossible" in p for p in instance_stats(Declared(), golden, 30).problems())

    class Claims(ChannelMemberCount):
        impossible_instances = True

    claims = instance_stats(Claims(), golden, samples=30)
    assert "none of 30 instances is" in " ".join(claims.problems())

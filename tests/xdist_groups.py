"""A pytest hook that keeps `xdist_group` tests on one worker (imported by the conftest;
light enough to load on its own with `-p tests.xdist_groups`)."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep `xdist_group` tests on one worker under `--dist loadgroup` with pytest 9.

    pytest-xdist 3.8 groups them by appending "@group" to `item._nodeid`, which pytest 9 no
    longer reads (a node's id is `item._id`), so each group was spread over every worker and
    paid its fixtures once per worker. This names the group in the id pytest reports."""
    if not getattr(config.option, "loadgroup", False):  # set on xdist workers only
        return
    from _pytest.nodeid import coerce_node_id

    for item in items:
        names = sorted(
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        )
        if names and "@" not in item.nodeid:
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(names)}")

from __future__ import annotations

import pytest

from officegym.seed_data.ids import InvalidWorldId, validate_world_id


@pytest.mark.parametrize("good", ["default", "w1", "ep-0001_a", "a" * 64, "0"])
def test_well_formed_world_ids_pass(good):
    assert validate_world_id(good) == good


@pytest.mark.parametrize(
    "bad",
    ["", "../x", "..", "a/b", "a\\b", "x" * 65, "UPPER", "wörld", "-lead", "a b", "a\n", None, 5],
)
def test_malformed_world_ids_are_refused_with_a_clear_message(bad):
    with pytest.raises(InvalidWorldId, match="invalid world id"):
        validate_world_id(bad)

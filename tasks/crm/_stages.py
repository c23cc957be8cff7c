"""Opportunity stages as the templates use them: the open ones, and what else moving a deal
to a stage changes."""

from __future__ import annotations

from officegym.apps.crm.fields import OPEN_STAGES, STAGE_PROBABILITY

OPEN = tuple(OPEN_STAGES)


def stage_changes(stage: str, old_probability: int) -> dict[str, object]:
    """The columns a move to `stage` changes besides the stage: the stage's default
    probability, when it differs from the deal's current one."""
    probability = STAGE_PROBABILITY[stage]
    return {} if probability == old_probability else {"probability": probability}


__all__ = ["OPEN", "stage_changes"]

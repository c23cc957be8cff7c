"""CRM field history: how each record came to look the way it does.

Every account, contact, lead and deal gets a "created" entry by its owner; deals get the stage
changes that walked them to their current stage (and now and then an amount revision), spread
between creation and their last update; converted leads get a "converted" entry. Lost deals get
their loss reason, set with the move to Closed Lost. Runs after the CRM mess is planted, on its
own random stream, so nothing else in the world moves.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..schema.crm import LOSS_REASONS, STAGES
from .context import Row, World

_OPEN_STAGES = [name for name, _ in STAGES if not name.startswith("Closed")]


def _times(rng, start: datetime, end: datetime, count: int) -> list[datetime]:
    """`count` sorted whole-minute times in (start, end], the last one exactly `end`."""
    span = int((end - start).total_seconds() // 60)
    if count <= 0:
        return []
    if span <= count:
        return [end] * count
    picks = sorted(rng.sample(range(1, span), count - 1))
    return [start + timedelta(minutes=m) for m in picks] + [end]


def _stage_path(rng, stage: str) -> list[str]:
    """The stages a deal went through after the one it was created in, ending at `stage`."""
    if stage == "Closed Won":
        path = _OPEN_STAGES[rng.randint(0, 2) :] + ["Closed Won"]
    elif stage == "Closed Lost":
        path = _OPEN_STAGES[: rng.randint(1, len(_OPEN_STAGES))] + ["Closed Lost"]
    else:
        path = _OPEN_STAGES[: _OPEN_STAGES.index(stage) + 1]
    if len(path) > 1 and rng.random() < 0.3:
        path = path[:1] + [s for s in path[1:-1] if rng.random() < 0.7] + path[-1:]
    return path


def _created(world: World, table: str, key: str, row: Row) -> None:
    world.add(
        table,
        **{key: row["id"]},
        field="created",
        old_value=None,
        new_value=None,
        changed_by_id=row["owner_id"],
        changed_at=row["created_at"],
    )


def build(world: World) -> None:
    """Fill the four CRM history tables from the records as generated."""
    rng = world.rng("crm_history")
    for account in world.rows("crm_account"):
        _created(world, "crm_account_history", "account_id", account)
    for contact in world.rows("crm_contact"):
        _created(world, "crm_contact_history", "contact_id", contact)
    for lead in world.rows("crm_lead"):
        _created(world, "crm_lead_history", "lead_id", lead)
        if lead["status"] == "Converted":
            world.add(
                "crm_lead_history",
                lead_id=lead["id"],
                field="converted",
                old_value=None,
                new_value=str(lead["converted_account_id"]),
                changed_by_id=lead["owner_id"],
                changed_at=lead["updated_at"],
            )
        elif lead["status"] != "New" and rng.random() < 0.6:
            world.add(
                "crm_lead_history",
                lead_id=lead["id"],
                field="status",
                old_value="New",
                new_value=lead["status"],
                changed_by_id=lead["owner_id"],
                changed_at=lead["updated_at"],
            )

    for opp in world.rows("crm_opportunity"):
        _created(world, "crm_opportunity_history", "opportunity_id", opp)
        path = _stage_path(rng, opp["stage"])
        changes: list[tuple[str, str | None, str | None]] = [
            ("stage", before, after) for before, after in zip(path, path[1:], strict=False)
        ]
        if opp["amount"] and rng.random() < 0.25:
            earlier = opp["amount"] + rng.choice((-1, 1)) * rng.randint(1, 10) * 1_000
            changes.insert(
                rng.randint(0, len(changes)),
                ("amount", str(max(1_000, earlier)), str(opp["amount"])),
            )
        timed = list(
            zip(
                changes,
                _times(rng, opp["created_at"], opp["updated_at"], len(changes)),
                strict=True,
            )
        )
        if opp["stage"] == "Closed Lost":
            opp["loss_reason"] = rng.choices(LOSS_REASONS, (5, 6, 3, 4, 3, 1))[0]
            closed_at = timed[-1][1] if timed else opp["updated_at"]
            timed.append((("loss_reason", None, opp["loss_reason"]), closed_at))
        for (field, old, new), at in timed:
            world.add(
                "crm_opportunity_history",
                opportunity_id=opp["id"],
                field=field,
                old_value=old,
                new_value=new,
                changed_by_id=opp["owner_id"],
                changed_at=at,
            )

"""API reference 1 — Find a benchmark; 2 — Join it."""

from __future__ import annotations

from typing import Any

from mock_server.engine import Ctx, Reply

from ..model.rows import Competition
from .common import caller, domain, drf_page, handlers, path_id


def competition_view(comp: Competition) -> dict[str, Any]:
    return {
        "id": comp.id,
        "name": comp.name,
        "slug": comp.slug,
        "description": comp.description,
        "auto_approve": comp.auto_approve,
        "run_cost_credits": comp.run_cost_credits,
        "question_count": len(comp.questions),
    }


@handlers("listPublicCompetitions")
async def list_public_competitions(ctx: Ctx) -> dict[str, Any]:
    """Published competitions only (B-08), filtered by `search` (B-06), `page_size` long (B-07)."""
    rows = ctx.store.public_competitions(ctx.query.get("search"))
    chunk, envelope = drf_page(ctx, rows)
    return {**envelope, "results": [competition_view(c) for c in chunk]}


@handlers("registerForCompetition")
async def register_for_competition(ctx: Ctx) -> Reply:
    """201 approved or pending (B-11…B-14); a repeat is 400 already_applied and changes nothing (B-15, B-16)."""
    with domain():
        participation = ctx.store.register(path_id(ctx, "id"), caller(ctx).user_id)
    return Reply(
        {"participant_status": participation.status.value, "competition_id": participation.competition_id},
        status=201,
    )

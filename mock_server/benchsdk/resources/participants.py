"""Write path §3 (register participants) and the participant logs of the read path."""

from __future__ import annotations

from mock_server.engine import Ctx

from ..model import artifacts, catalog, serialize
from . import common
from .common import operation


@operation("registerParticipant")
async def register_participant(ctx: Ctx):
    _, run = common.run(ctx, write=True)
    part = catalog.register_participant(
        ctx.store, run=run, slug=ctx.path["participantSlug"], body=ctx.body or {}, now=common.now(ctx)
    )
    return {"participant": serialize.participant(part)}


@operation("listParticipants")
async def list_participants(ctx: Ctx):
    """Not in the reference: the client's `listParticipants` (it reads `items`)."""
    _, run = common.run(ctx)
    return {"items": [serialize.participant(p) for p in ctx.store.run_participants(run.id)]}


@operation("getParticipant")
async def get_participant(ctx: Ctx):
    """Not in the reference: the client's `getParticipant`."""
    _, part = common.participant(ctx)
    return {"participant": serialize.participant(part)}


@operation("updateParticipant")
async def update_participant(ctx: Ctx):
    """Not in the reference: the client's `updateParticipant`, a registration that creates nothing."""
    run, part = common.participant(ctx, write=True)
    part = catalog.register_participant(ctx.store, run=run, slug=part.slug, body=ctx.body or {}, now=common.now(ctx))
    return {"participant": serialize.participant(part)}


@operation("getParticipantLogs")
async def get_participant_logs(ctx: Ctx):
    _, part = common.participant(ctx)
    lines, total = artifacts.participant_logs(ctx.store, part=part, max_lines=ctx.query.get("maxLines"))
    return {
        "participantSlug": part.slug,
        "items": [{"workerId": a.worker_id, "artifactId": a.id, "line": line} for a, line in lines],
        "totalLines": total,
        "truncated": len(lines) < total,
    }

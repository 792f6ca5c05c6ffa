"""Write path §4 (plan), §5 (claim), §6 (heartbeat), §9 (close), and the worker reads."""

from __future__ import annotations

from mock_server.engine import Ctx

from ..model import serialize, workers
from . import common
from .common import operation


def _pair(ctx: Ctx, worker, attempt) -> dict:
    now = common.now(ctx)
    return {"worker": serialize.worker(ctx.store, worker, now), "attempt": serialize.attempt(ctx.store, attempt)}


@operation("planWorkers")
async def plan_workers(ctx: Ctx):
    run, part = common.participant(ctx, write=True)
    rows = workers.plan_workers(ctx.store, run=run, part=part, body=ctx.body, now=common.now(ctx))
    return {"items": [serialize.worker(ctx.store, w, common.now(ctx)) for w in rows]}


@operation("listParticipantWorkers")
async def list_participant_workers(ctx: Ctx):
    _, part = common.participant(ctx)
    now = common.now(ctx)
    return {"items": [serialize.worker(ctx.store, w, now) for w in ctx.store.participant_workers(part.id)]}


@operation("claimWorker")
async def claim_worker(ctx: Ctx):
    run, part = common.participant(ctx, write=True)
    body = ctx.body or {}
    # one synchronous call: no other claim can interleave between finding and binding a worker
    got = workers.claim_worker(
        ctx.store,
        run=run,
        part=part,
        process_kind=body.get("processKind"),
        process_key=body.get("processKey"),
        now=common.now(ctx),
    )
    if got is None:
        return {"assignment": None}
    return {"assignment": serialize.assignment(ctx.store, *got)}


@operation("getWorker")
async def get_worker(ctx: Ctx):
    _, worker = common.worker(ctx)
    return {"worker": serialize.worker(ctx.store, worker, common.now(ctx))}


@operation("updateWorker")
async def update_worker(ctx: Ctx):
    """Not in the reference: the client's `updateWorker`, an owner's unfenced override."""
    run, worker = common.worker(ctx, write=True)
    workers.update_worker(ctx.store, run=run, worker=worker, body=ctx.body or {}, now=common.now(ctx))
    return {"worker": serialize.worker(ctx.store, worker, common.now(ctx))}


@operation("heartbeatWorker")
async def heartbeat_worker(ctx: Ctx):
    run, worker = common.worker(ctx, write=True)
    attempt = workers.heartbeat(
        ctx.store, run=run, worker=worker, body=ctx.body, limits=common.limits(ctx), now=common.now(ctx)
    )
    return _pair(ctx, worker, attempt)


async def _close(ctx: Ctx, outcome: str):
    run, worker = common.worker(ctx, write=True)
    attempt = workers.close_worker(
        ctx.store, run=run, worker=worker, body=ctx.body, outcome=outcome, now=common.now(ctx)
    )
    return _pair(ctx, worker, attempt)


@operation("completeWorker")
async def complete_worker(ctx: Ctx):
    return await _close(ctx, "complete")


@operation("failWorker")
async def fail_worker(ctx: Ctx):
    return await _close(ctx, "fail")


@operation("releaseWorker")
async def release_worker(ctx: Ctx):
    return await _close(ctx, "release")

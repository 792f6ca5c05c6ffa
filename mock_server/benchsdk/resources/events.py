"""Write path §7: stream task results."""

from __future__ import annotations

from mock_server.engine import Ctx

from ..model import events, serialize
from . import common
from .common import operation


@operation("postWorkerEvents")
async def post_worker_events(ctx: Ctx):
    run, worker = common.worker(ctx, write=True)
    batch, duplicate = events.accept_batch(
        ctx.store, run=run, worker=worker, body=ctx.body, limits=common.limits(ctx), now=common.now(ctx)
    )
    return {
        # the records this call put on record: a resend adds none (it is counted once, A-16)
        "accepted": 0 if duplicate else len(batch.records),
        "duplicate": duplicate,
        "queued": batch.batch_status == "queued",
        "eventBatchId": batch.id,
        "queueMessageId": f"import-{batch.sequence}",
        "eventBatch": serialize.batch(ctx.store, batch),
    }

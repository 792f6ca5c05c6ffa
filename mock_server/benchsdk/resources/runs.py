"""Write path §2 (create or share the run), §10 (summary), and the run reads of the read path."""

from __future__ import annotations

from mock_server.engine import Ctx, Reply

from ..model import catalog, results, serialize
from . import common
from .common import operation


@operation("createRun")
async def create_run(ctx: Ctx):
    bench = common.benchmark(ctx)
    org = common.org(ctx)
    # one synchronous call: the runKey get-or-create has no await between check and insert
    run, created = catalog.create_run(ctx.store, org=org, bench=bench, body=ctx.body, now=common.now(ctx))
    body = {
        "run": serialize.run(ctx.store, run),
        "participants": [serialize.participant(p) for p in ctx.store.run_participants(run.id)],
        "organizationSlug": org.slug,
    }
    return Reply(body, status=201 if created else 200)


def _runs(ctx: Ctx, bench) -> list[dict]:
    rows = catalog.runs_of(ctx.store, common.org(ctx), bench)
    rows = catalog.filter_runs(ctx.store, rows, participants=ctx.query.get("participant"), window=common.window(ctx))
    return [serialize.run(ctx.store, r) for r in common.listing(ctx, rows)]


@operation("listRuns")
async def list_runs(ctx: Ctx):
    return {"items": _runs(ctx, common.benchmark(ctx))}


@operation("listAllRuns")
async def list_all_runs(ctx: Ctx):
    slug = ctx.query.get("benchmarkSlug")
    common.window(ctx)  # since/until/timeZone are checked whatever the slug
    if slug is None:
        return {"items": _runs(ctx, None)}
    bench = ctx.store.benchmark(slug)
    return {"items": _runs(ctx, bench) if bench is not None else []}  # an unknown slug matches no run


@operation("getRun")
async def get_run(ctx: Ctx):
    _, run = common.run(ctx)
    return {"run": serialize.run(ctx.store, run)}


@operation("updateRun")
async def update_run(ctx: Ctx):
    _, run = common.run(ctx, write=True)
    catalog.patch_run(ctx.store, run=run, body=ctx.body or {}, now=common.now(ctx))
    return {"run": serialize.run(ctx.store, run)}


@operation("getRunProgress")
async def get_run_progress(ctx: Ctx):
    _, run = common.run(ctx)
    return results.progress(ctx.store, run, common.now(ctx))


@operation("submitRunSummary")
async def submit_run_summary(ctx: Ctx):
    _, run = common.run(ctx, write=True)
    summary = catalog.submit_summary(ctx.store, run=run, body=ctx.body, now=common.now(ctx))
    return {"run": serialize.run(ctx.store, run), "summary": serialize.plain(summary)}

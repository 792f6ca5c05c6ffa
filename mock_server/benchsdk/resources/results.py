"""The results views of the read path: cross-run overview, run aggregates, task buckets,
timeline, imports and raw iterations."""

from __future__ import annotations

from mock_server.engine import Ctx

from ..model import catalog, results, serialize
from ..model.timefmt import iso
from . import common
from .common import operation


def _bench_ref(bench) -> dict:
    return {"id": bench.id, "slug": bench.slug, "name": bench.name}


@operation("getBenchmarkResults")
async def get_benchmark_results(ctx: Ctx):
    bench = common.benchmark(ctx)
    wanted = ctx.query.get("participant")
    steps = ctx.query.get("steps")
    window = common.window(ctx)
    runs = catalog.filter_runs(
        ctx.store, catalog.runs_of(ctx.store, common.org(ctx), bench), participants=wanted, window=window
    )
    now = common.now(ctx)
    items = []
    for run in common.listing(ctx, runs):
        recs = results.effective_records(ctx.store, run, wanted)
        items.append(
            {
                "run": serialize.run(ctx.store, run),
                "analytics": results.analytics(ctx.store, run, now),
                "participants": [
                    {**row, "runId": run.id}
                    for row in results.participant_results(ctx.store, run, recs, participants=wanted, steps=steps)
                ],
            }
        )
    statuses = {i["analytics"]["status"] for i in items}
    overall = "unavailable" if not items else ("ready" if statuses <= {"ready", "complete"} else "partial")
    return {
        "benchmark": _bench_ref(bench),
        "generatedAt": iso(now),
        # the mock's analytics store always answers its query; `error` is only sent with 'unavailable'
        "analytics": {"status": overall, "query": "available"},
        "items": items,
    }


@operation("getRunResults")
async def get_run_results(ctx: Ctx):
    bench, run = common.run(ctx)
    view = results.run_results(ctx.store, run, participants=ctx.query.get("participant"))
    view["analytics"] = results.analytics(ctx.store, run, common.now(ctx))
    return {
        "benchmark": _bench_ref(bench),
        "run": serialize.run(ctx.store, run),
        "generatedAt": iso(common.now(ctx)),
        **view,
    }


@operation("getRunTaskResults")
async def get_run_task_results(ctx: Ctx):
    _, run = common.run(ctx)
    view = results.task_buckets(
        ctx.store, run, bucket_size=ctx.query["bucketSize"], failure_limit=ctx.query["failureLimit"]
    )
    return {"run": {"id": run.id, "status": run.status}, "generatedAt": iso(common.now(ctx)), **view}


@operation("getRunTimeline")
async def get_run_timeline(ctx: Ctx):
    _, run = common.run(ctx)
    view = results.timeline(ctx.store, run, bucket_ms=ctx.query["bucketMs"])
    return {"run": {"id": run.id, "status": run.status}, "generatedAt": iso(common.now(ctx)), **view}


@operation("getRunImports")
async def get_run_imports(ctx: Ctx):
    _, run = common.run(ctx)
    now = common.now(ctx)
    return {
        "run": {"id": run.id, "status": run.status},
        "generatedAt": iso(now),
        "summary": results.analytics(ctx.store, run, now),
        "items": [serialize.batch(ctx.store, b) for b in ctx.store.run_batches(run.id)],
    }


@operation("listRunIterations")
async def list_run_iterations(ctx: Ctx):
    _, run = common.run(ctx)
    kind = ctx.query.get("type") or "tasks"
    rows = results.iterations(
        ctx.store, run, kind=kind, participants=ctx.query.get("participant"), steps=ctx.query.get("steps")
    )
    return {"run": {"id": run.id, "status": run.status}, "generatedAt": iso(common.now(ctx)), "type": kind, kind: rows}

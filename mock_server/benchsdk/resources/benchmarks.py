"""Write path §1 (upsert the benchmark) and the benchmark reads of the read path."""

from __future__ import annotations

from mock_server.engine import Ctx

from ..model import catalog, serialize
from . import common
from .common import operation


@operation("upsertBenchmark")
async def upsert_benchmark(ctx: Ctx):
    bench = catalog.upsert_benchmark(
        ctx.store, org=common.org(ctx), slug=ctx.path["slug"], body=ctx.body, now=common.now(ctx)
    )
    return {"benchmark": serialize.benchmark(ctx.store, bench)}


@operation("getBenchmark")
async def get_benchmark(ctx: Ctx):
    return {"benchmark": serialize.benchmark(ctx.store, common.benchmark(ctx))}


@operation("updateBenchmark")
async def update_benchmark(ctx: Ctx):
    bench = common.benchmark(ctx)
    catalog.patch_benchmark(ctx.store, org=common.org(ctx), bench=bench, body=ctx.body or {}, now=common.now(ctx))
    return {"benchmark": serialize.benchmark(ctx.store, bench)}


@operation("listBenchmarks")
async def list_benchmarks(ctx: Ctx):
    rows = common.listing(ctx, catalog.list_benchmarks(ctx.store))
    return {"items": [serialize.benchmark(ctx.store, b) for b in rows]}

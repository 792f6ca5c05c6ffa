"""Resolving a pinned benchmark for `POST /v1/runs` (§4.2.2, §4.2.5).

The catalog knows benchmarks two ways: projected from finished runs (`bm_<slug>`
and the bare name) and authored through `POST /v1/benchmarks` (`bm_<uuid>`).
The wire prefix `bm_` is accepted and stripped; an exact name also resolves.
"""

from __future__ import annotations

from .. import pipeline
from ..engine import Ctx
from ..http.problems import Problem, invalid


def catalog_benchmarks(ctx: Ctx) -> dict[str, str]:
    """id (without `bm_`) and exact name -> display name."""
    found: dict[str, str] = {}
    for run in pipeline.runs(ctx.store).values():
        if run.benchmark_id:
            found[run.benchmark_id.removeprefix("bm_")] = run.benchmark_name
            found[run.benchmark_name] = run.benchmark_name
    for row in ctx.store.table("benchmarks").values():
        found[row["id"].removeprefix("bm_")] = row["name"]
        found[row["name"]] = row["name"]
    return found


def resolve_pinned_benchmark(ctx: Ctx, benchmark: str, subset: str | None) -> str:
    known = catalog_benchmarks(ctx)
    name = known.get(benchmark.removeprefix("bm_")) or known.get(benchmark)
    if name is None:
        raise Problem(404, "benchmark_not_found", f"No catalog benchmark '{benchmark}'.")
    if subset:
        owner = _subset_benchmark(ctx, subset)
        if owner is None:
            raise Problem(404, "subset_not_found", f"No subset '{subset}'.")
        if owner != name:
            raise invalid(f"subset '{subset}' belongs to {owner}, not {name}.", field="subset")
    return name


def _subset_benchmark(ctx: Ctx, subset: str) -> str | None:
    for run in pipeline.runs(ctx.store).values():
        if run.subset_id == subset:
            return run.benchmark_name
    row = ctx.store.table("subsets").get(subset)
    if row is not None:
        bench = ctx.store.table("benchmarks").get(row["benchmark_id"])
        return bench["name"] if bench else None
    return None

"""Registry reads (§8.1–§8.3) and per-user range names (§8.3).

"Registry reads are part of the public catalog" (§8 Access): what each caller
sees is `for_request`; a row the caller cannot see is
`404 not_found`. Every registry read says `Cache-Control: no-store` (§1), error
answers included. Leaderboards (a subset's, and the native and derived ones of
§8.2) rank public runs only, as §8.3 states for `subsets/{id}/leaderboard`; the
other pieces (run lists, covering runs, coverage, ranges, distributions) count
every run the caller can see, each row carrying its `visibility`.

`distribution` → `tasks/{index}` is "a three-tier load": the overview ships
aggregates, `distribution` adds per-task difficulty rows with no content, and
`tasks/{index}` resolves one task's full input/expected/output on drill-in.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import orjson

from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.catalog import (
    Catalog,
    CatalogBenchmark,
    CatalogImpl,
    CatalogRun,
    CatalogSubset,
    best_per_model,
    build,
    spans,
    visibility,
)
from mock_server.benchwright.model.indices import expand_indices
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import RangeName
from mock_server.benchwright.resources import handler
from mock_server.engine import Ctx, Reply
from mock_server.policies.preconditions import weak_etag
from mock_server.policies.problems import Problem, invalid, not_found
from mock_server.state.clock import rfc3339

NO_STORE = {"Cache-Control": "no-store"}
RANGE_MAX = 2000
DATASET_MAX = 50_000
HISTOGRAM_BINS = 10


def for_request(ctx: Ctx) -> Catalog:
    """§8 access for a registry read: sessions fold in their own private rows."""
    return build(
        ctx.store,
        ctx.user,
        own=ctx.principal.kind == "session",
        hide_private=ctx.query.get("hide_private") == "1",
        hide_public=ctx.query.get("hide_public") == "1",
    )


def registry_read(operation_id: str):
    """Register a registry read: `Cache-Control: no-store` on every answer (§1)."""

    def register(fn):
        @functools.wraps(fn)
        async def wrapped(ctx: Ctx) -> Reply:
            try:
                reply = await fn(ctx)
            except Problem as problem:
                problem.headers = {**NO_STORE, **problem.headers}
                raise
            reply.headers = {**NO_STORE, **reply.headers}
            return reply

        return handler(operation_id)(wrapped)

    return register


# -- lookups ----------------------------------------------------------------------


def _benchmark(catalog: Catalog, ctx: Ctx) -> CatalogBenchmark:
    found = catalog.benchmark(ctx.path["id"])
    if found is None:
        raise not_found("Benchmark")
    return found


def _subset(catalog: Catalog, ctx: Ctx) -> tuple[CatalogBenchmark, CatalogSubset]:
    found = catalog.subset(ctx.path["id"])
    if found is None:
        raise not_found("Subset")
    return catalog.benchmarks[found.benchmark_id], found


def _positions(spec: str | None, cap: int) -> list[int]:
    positions = list(dict.fromkeys(expand_indices(spec))) if spec else []
    if len(positions) > cap:
        raise invalid(f"indices: {len(positions)} positions; at most {cap} here", field="indices")
    return positions


# -- representation ---------------------------------------------------------------


def _when(moment) -> str | None:
    return rfc3339(moment) if moment else None


def run_row(entry: CatalogRun) -> dict[str, Any]:
    run = entry.run
    return {
        "id": run.id,
        "model": entry.model,
        "score": run.score,
        "impl_id": run.impl_id,
        "subset_id": run.subset_id,
        "visibility": run.visibility,
        "finished_at": _when(run.finished_at),
    }


def impl_json(impl: CatalogImpl) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": impl.id,
        "label": impl.label,
        "description": impl.description,
        "fingerprint": impl.fingerprint,
        "official": impl.official,
        "subset_id": impl.subset_id,
        "benchmark_id": impl.benchmark_id,
    }
    if impl.impl_fingerprint:
        body["impl_fingerprint"] = impl.impl_fingerprint
    if impl.created_at:
        body["created_at"] = rfc3339(impl.created_at)
    return body


def _subset_impls(bench: CatalogBenchmark, subset: CatalogSubset) -> list[CatalogImpl]:
    used = {r.run.impl_id for r in subset.runs}
    return [i for i in bench.impls.values() if i.id in used or i.subset_id == subset.id]


def _top(subset: CatalogSubset) -> tuple[float | None, str | None]:
    ranked = best_per_model({"model": r.model, "score": r.run.score} for r in subset.runs)
    return (ranked[0]["score"], ranked[0]["model"]) if ranked else (None, None)


def _leader_row(entry: CatalogRun, score: float | None) -> dict[str, Any]:
    return {
        "model": entry.model,
        "score": score,
        "run_id": entry.id,
        "impl_id": entry.run.impl_id,
        "finished_at": _when(entry.run.finished_at),
    }


def native_leaderboard(subset: CatalogSubset) -> list[dict[str, Any]]:
    """Best score per model across impls, public runs only (§8.3)."""
    return best_per_model(_leader_row(r, r.run.score) for r in subset.runs if r.run.visibility == "public")


def covering(bench: CatalogBenchmark, subset: CatalogSubset, public_only: bool = False) -> list[CatalogRun]:
    """Every run on a superset of this subset's tasks (its own runs included)."""
    return [r for r in bench.runs if r.covers(subset.positions) and (not public_only or r.run.visibility == "public")]


def derived_leaderboard(bench: CatalogBenchmark, subset: CatalogSubset) -> list[dict[str, Any]]:
    """Models that ran a SUPERSET, re-scored on this subset's tasks; excludes
    models with a native run (§8.3). A leaderboard, so public runs only."""
    native = {r.model for r in subset.runs if r.run.visibility == "public"}
    rows = []
    for entry in covering(bench, subset, public_only=True):
        if entry.run.subset_id == subset.id or entry.model in native:
            continue
        score, scored = entry.rescore(subset.positions)
        rows.append(
            {
                "model": entry.model,
                "score": score,
                "run_id": entry.id,
                "source_subset_id": entry.run.subset_id,
                "tasks_scored": scored,
            }
        )
    return best_per_model(rows)


def coverage(bench: CatalogBenchmark, subset: CatalogSubset) -> dict[str, Any]:
    runs = covering(bench, subset)
    return {
        "subset_id": subset.id,
        "covering_runs": len(runs),
        "derived_runs": sum(1 for r in runs if r.run.subset_id != subset.id),
    }


def _models(runs: list[CatalogRun]) -> set[str]:
    return {r.model for r in runs}


def _last_run_at(bench: CatalogBenchmark) -> str | None:
    moments = [r.run.finished_at for r in bench.runs if r.run.finished_at]
    return rfc3339(max(moments)) if moments else None


def _highlights(bench: CatalogBenchmark) -> list[str]:
    return [bench.description] if bench.description else []


def _head(bench: CatalogBenchmark) -> dict[str, Any]:
    return {
        "id": bench.id,
        "name": bench.name,
        "description": bench.description,
        "category": bench.category,
        "visibility": visibility(bench.runs),
        "tags": bench.tags,
        "highlights": _highlights(bench),
    }


def tree_json(bench: CatalogBenchmark) -> dict[str, Any]:
    return {
        **_head(bench),
        "subsets": [
            {
                "id": s.id,
                "slug": s.slug,
                "name": s.name,
                "sampleCount": len(s.positions),
                "impls": [
                    {"id": i.id, "label": i.label, "fingerprint": i.fingerprint, "official": i.official}
                    for i in _subset_impls(bench, s)
                ],
                "runs": [
                    {
                        "id": r.id,
                        "model": r.model,
                        "score": r.run.score,
                        "implId": r.run.impl_id,
                        "visibility": r.run.visibility,
                        "finishedAt": _when(r.run.finished_at),
                    }
                    for r in s.runs
                ],
            }
            for s in bench.subsets.values()
        ],
    }


def summary_json(bench: CatalogBenchmark) -> dict[str, Any]:
    subsets = []
    for s in bench.subsets.values():
        top_score, top_model = _top(s)
        subsets.append(
            {
                "id": s.id,
                "slug": s.slug,
                "name": s.name,
                "sampleCount": len(s.positions),
                "runCount": len(s.runs),
                "implCount": len(_subset_impls(bench, s)),
                "topScore": top_score,
                "topModel": top_model,
            }
        )
    return {
        **_head(bench),
        "subsetCount": len(bench.subsets),
        "implCount": len(bench.impls),
        "runCount": len(bench.runs),
        "modelCount": len(_models(bench.runs)),
        "taskCount": len(bench.universe),
        "hasOfficialImpl": any(i.official for i in bench.impls.values()),
        "lastRunAt": _last_run_at(bench),
        "subsets": subsets,
    }


def _counters(benchmarks: list[CatalogBenchmark]) -> dict[str, int]:
    runs = [r for b in benchmarks for r in b.runs]
    return {
        "benchmarks": len(benchmarks),
        "subsets": sum(len(b.subsets) for b in benchmarks),
        "impls": sum(len(b.impls) for b in benchmarks),
        "runs": len(runs),
        "models": len(_models(runs)),
        "tasks": sum(len(b.universe) for b in benchmarks),
    }


def _matches(bench: CatalogBenchmark, text: str) -> bool:
    haystack = [bench.id, bench.name, bench.description or "", bench.category or "", *bench.tags]
    haystack += [s.name for s in bench.subsets.values()]
    return any(text in part.lower() for part in haystack)


# -- §8.1 ---------------------------------------------------------------------------


@registry_read("listRegistryBenchmarks")
async def list_benchmarks(ctx: Ctx) -> Reply:
    """The nested tree by default; `summary=1` the paged, searchable catalog,
    with `facets` and `agg` only when `counts=1` asks for them (§8.1)."""
    catalog = for_request(ctx)
    ordered = sorted(catalog.benchmarks.values(), key=lambda b: (b.name.lower(), b.id))
    if ctx.query.get("summary") != "1":
        return Reply({"data": [tree_json(b) for b in ordered]})
    text = (ctx.query.get("q") or "").strip().lower()
    searched = [b for b in ordered if not text or _matches(b, text)]
    category = ctx.query.get("category")
    filtered = [b for b in searched if category is None or b.category == category]
    offset, limit = ctx.query.get("offset") or 0, ctx.query["limit"]
    body: dict[str, Any] = {
        "benchmarks": [summary_json(b) for b in filtered[offset : offset + limit]],
        "total": len(filtered),
        "offset": offset,
        "limit": limit,
    }
    if ctx.query.get("counts") == "1":
        body["facets"] = {
            "category": _tally(b.category for b in searched),
            "visibility": _tally(visibility(b.runs) for b in filtered),
        }
        body["agg"] = _counters(filtered)
    return Reply(body)


def _tally(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        if value is not None:
            out[value] = out.get(value, 0) + 1
    return out


# -- §8.2 ---------------------------------------------------------------------------


@registry_read("getRegistryBenchmark")
async def get_benchmark(ctx: Ctx) -> Reply:
    catalog = for_request(ctx)
    bench = _benchmark(catalog, ctx)
    subsets = list(bench.subsets.values())
    overview = []
    for s in subsets:
        top_score, top_model = _top(s)
        overview.append(
            {
                "id": s.id,
                "slug": s.slug,
                "name": s.name,
                "sample_count": len(s.positions),
                "run_count": len(s.runs),
                "impl_count": len(_subset_impls(bench, s)),
                "top_score": top_score,
                "top_model": top_model,
            }
        )
    body = {
        **_head(bench),
        "subsets": overview,
        "impls": [impl_json(i) for i in bench.impls.values()],
        "leaderboards": [
            {"subset_id": s.id, "native": native_leaderboard(s), "derived": derived_leaderboard(bench, s)}
            for s in subsets
        ],
        "coverage": [coverage(bench, s) for s in subsets],
        "index_spans": [{"subset_id": s.id, "spans": spans(s.positions)} for s in subsets],
        "range_names": [present(row, schema(ctx.api.spec, "RegistryRangeName")) for row in _range_names(ctx, bench)],
    }
    headers = {"ETag": weak_etag(bench.id, bench.row.updated_at)} if bench.row else {}
    return Reply(body, headers=headers)


# -- §8.3: catalog-wide and benchmark-scoped pieces -----------------------------------


@registry_read("getRegistryStats")
async def get_stats(ctx: Ctx) -> Reply:
    return Reply(_counters(list(for_request(ctx).benchmarks.values())))


@registry_read("getRegistryBenchmarkCoverage")
async def get_coverage(ctx: Ctx) -> Reply:
    bench = _benchmark(for_request(ctx), ctx)
    return Reply({"id": bench.id, "data": [coverage(bench, s) for s in bench.subsets.values()]})


@registry_read("getRegistryBenchmarkRange")
async def get_range(ctx: Ctx) -> Reply:
    """ "Every run that ran the tasks at those canonical indices, scored on just
    them, + a best-per-model leaderboard." Coverage is by task content."""
    bench = _benchmark(for_request(ctx), ctx)
    positions = _positions(ctx.query["indices"], RANGE_MAX)
    rows = []
    for entry in bench.runs:
        if not entry.covers(positions):
            continue
        score, scored = entry.rescore(positions)
        rows.append(
            {
                "run_id": entry.id,
                "model": entry.model,
                "score": score,
                "tasks_scored": scored,
                "subset_id": entry.run.subset_id,
                "impl_id": entry.run.impl_id,
                "visibility": entry.run.visibility,
                "finished_at": _when(entry.run.finished_at),
            }
        )
    leaderboard = [
        {k: row[k] for k in ("model", "score", "run_id", "impl_id", "finished_at")} for row in best_per_model(rows)
    ]
    return Reply(
        {
            "id": bench.id,
            "indices": ctx.query["indices"],
            "positions": len(positions),
            "runs": rows,
            "leaderboard": leaderboard,
        }
    )


def jsonl(bench: CatalogBenchmark, positions: list[int]) -> bytes:
    """One `{index, input, expected}` per line (§8.3)."""
    lines = []
    for position in positions:
        task = bench.task(position)
        lines.append(orjson.dumps({"index": position, "input": task["input"], "expected": task["expected"]}) + b"\n")
    return b"".join(lines)


def _range_rows(ctx: Ctx) -> tuple[CatalogBenchmark, list[int]]:
    """The canonical positions asked for (default: the full benchmark) that hold a task."""
    bench = _benchmark(for_request(ctx), ctx)
    known = bench.universe
    asked = _positions(ctx.query.get("indices"), DATASET_MAX) if ctx.query.get("indices") else known
    present = set(known)
    return bench, [p for p in asked if p in present]


def _attachment(data: bytes, name: str) -> Reply:
    filename = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
    return Reply(
        raw=data,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{filename}.jsonl"'},
    )


def _info(data: bytes) -> Reply:
    return Reply({"rows": data.count(b"\n"), "bytes": len(data)})


@registry_read("getRegistryBenchmarkRangeDataset")
async def get_range_dataset(ctx: Ctx) -> Reply:
    bench, positions = _range_rows(ctx)
    return _attachment(jsonl(bench, positions), f"{bench.id}-range")


@registry_read("getRegistryBenchmarkRangeDatasetInfo")
async def get_range_dataset_info(ctx: Ctx) -> Reply:
    bench, positions = _range_rows(ctx)
    return _info(jsonl(bench, positions))


# -- §8.3: subsets and impls ------------------------------------------------------------


@registry_read("getRegistrySubset")
async def get_subset(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    return Reply(
        {
            "id": subset.id,
            "slug": subset.slug,
            "name": subset.name,
            "description": subset.description,
            "benchmark_id": bench.id,
            "sample_count": len(subset.positions),
            "rolling": subset.rolling,
            "visibility": visibility(subset.runs),
            "impls": [impl_json(i) for i in _subset_impls(bench, subset)],
            "runs": [run_row(r) for r in subset.runs],
            "leaderboard": native_leaderboard(subset),
        }
    )


@registry_read("getRegistrySubsetLeaderboard")
async def get_subset_leaderboard(ctx: Ctx) -> Reply:
    _, subset = _subset(for_request(ctx), ctx)
    return Reply({"id": subset.id, "data": native_leaderboard(subset)})


@registry_read("getRegistrySubsetDerived")
async def get_subset_derived(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    return Reply({"id": subset.id, "data": derived_leaderboard(bench, subset)})


@registry_read("listRegistrySubsetCoveringRuns")
async def list_covering_runs(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    data = []
    for entry in covering(bench, subset):
        score, scored = entry.rescore(subset.positions)
        data.append(
            {
                "run_id": entry.id,
                "model": entry.model,
                "score": score,
                "source_subset_id": entry.run.subset_id,
                "impl_id": entry.run.impl_id,
                "tasks_scored": scored,
                "visibility": entry.run.visibility,
                "finished_at": _when(entry.run.finished_at),
            }
        )
    return Reply({"id": subset.id, "data": data})


def _pass_rate(runs: list[CatalogRun], position: int) -> float | None:
    scores = [r.scores[position] for r in runs if position in r.scores]
    return round(sum(scores) / len(scores), 4) if scores else None


def _difficulty(pass_rate: float | None) -> float | None:
    return None if pass_rate is None else round(1 - pass_rate, 4)


@registry_read("getRegistrySubsetDistribution")
async def get_distribution(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    runs = covering(bench, subset)
    tasks = []
    histogram = [
        {"lo": round(i / HISTOGRAM_BINS, 2), "hi": round((i + 1) / HISTOGRAM_BINS, 2), "count": 0}
        for i in range(HISTOGRAM_BINS)
    ]
    for position in subset.positions:
        rate = _pass_rate(runs, position)
        difficulty = _difficulty(rate)
        tasks.append({"index": position, "difficulty": difficulty, "pass_rate": rate})
        if difficulty is not None:
            histogram[min(int(difficulty * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)]["count"] += 1
    scored = [{"model": r.model, "score": r.rescore(subset.positions)[0]} for r in runs]
    ranked = best_per_model(scored)
    scores = [row["score"] for row in scored if row["score"] is not None]
    return Reply(
        {
            "id": subset.id,
            "sample_count": len(subset.positions),
            "histogram": histogram,
            "summary": {
                "run_count": len(runs),
                "model_count": len(_models(runs)),
                "mean_score": round(sum(scores) / len(scores), 4) if scores else None,
                "top_score": ranked[0]["score"] if ranked else None,
                "top_model": ranked[0]["model"] if ranked else None,
            },
            "tasks": tasks,
        }
    )


@registry_read("getRegistrySubsetTask")
async def get_subset_task(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    position = ctx.query["index"]
    if position not in subset.positions:
        raise not_found(f"Index {position} of subset {subset.id}")
    task = bench.task(position)
    runs = covering(bench, subset)
    rate = _pass_rate(runs, position)
    return Reply(
        {
            "id": subset.id,
            "index": position,
            "task_id": task["task_id"],
            "input": task["input"],
            "expected": task["expected"],
            "difficulty": _difficulty(rate),
            "pass_rate": rate,
            "results": [
                {
                    "model": r.model,
                    "run_id": r.id,
                    "impl_id": r.run.impl_id,
                    "score": r.scores.get(position),
                    "output": r.outputs.get(position),
                }
                for r in runs
            ],
        }
    )


@registry_read("getRegistrySubsetDataset")
async def get_subset_dataset(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    return _attachment(jsonl(bench, subset.positions), subset.id)


@registry_read("getRegistrySubsetDatasetInfo")
async def get_subset_dataset_info(ctx: Ctx) -> Reply:
    bench, subset = _subset(for_request(ctx), ctx)
    return _info(jsonl(bench, subset.positions))


@registry_read("getRegistryImpl")
async def get_impl(ctx: Ctx) -> Reply:
    impl = for_request(ctx).impl(ctx.path["id"])
    if impl is None:
        raise not_found("Impl")
    return Reply({**impl_json(impl), "runs": [run_row(r) for r in impl.runs]})


# -- §8.3: per-user range names ------------------------------------------------------------


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "range"


def _range_names(ctx: Ctx, bench: CatalogBenchmark) -> list[RangeName]:
    """The caller's own names on this benchmark, plus names others made public."""
    me = ctx.user.id if ctx.user else None
    rows = [
        row
        for row in ctx.store.range_names.values()
        if row.benchmark_id == bench.id and (row.user_id == me or row.visibility == "public")
    ]
    return sorted(rows, key=lambda r: (r.created_at, r.slug))


def _writer_catalog(ctx: Ctx) -> Catalog:
    """A writer labels what they can see: the public catalog and their own rows."""
    return build(ctx.store, ctx.user, own=True)


@handler("createRegistryRangeName")
async def create_range_name(ctx: Ctx) -> Reply:
    """Per-user range naming: "a viewer labels an index range as a named subset"."""
    require_writer(ctx.store, ctx.user)
    catalog = _writer_catalog(ctx)
    bench = _benchmark(catalog, ctx)
    body = ctx.body
    subset = catalog.subset(body["subset_id"])
    if subset is None or subset.benchmark_id != bench.id:
        raise invalid(f"subset_id: '{body['subset_id']}' is not a subset of {bench.id}", field="subset_id")
    slug = _slug(body["name"])
    key = (ctx.user.id, bench.id, slug)
    names = ctx.store.range_names
    if key in names:
        raise Problem(409, "name_taken", f"You already named a range '{slug}' on {bench.id}.")
    row = RangeName(
        slug=slug,
        name=body["name"],
        subset_id=subset.id,
        benchmark_id=bench.id,
        visibility=body.get("visibility") or "private",
        user_id=ctx.user.id,
        created_at=ctx.store.clock.now(),
    )
    names[key] = row
    return Reply(present(row, schema(ctx.api.spec, "RegistryRangeName")), status=201)


@handler("deleteRegistryRangeName")
async def delete_range_name(ctx: Ctx) -> Reply:
    require_writer(ctx.store, ctx.user)
    bench = _benchmark(_writer_catalog(ctx), ctx)
    if ctx.store.range_names.pop((ctx.user.id, bench.id, ctx.path["slug"]), None) is None:
        raise not_found("Range name")
    return Reply({"ok": True})

"""Authoring (§8.5–§8.9): benchmarks, subsets and impls you create, and the
recipe + samples of a built benchmark.

"The catalog is a first-class resource, not just a side effect of running
things." Authored rows live in three tables of `Store` (read by `model/catalog.py`):

- `benchmarks` (`AuthoredBenchmark`): id `bm_<uuid>`, prose, owner, and the benchmark's canonical task
  list (`tasks`; a task's canonical position is its index there, `canonical`
  maps a task's content to it). No visibility column: the `"private"` a
  benchmark reports is "a fixed literal, not a stored field" (§8.5).
- `subsets` (`AuthoredSubset`): content-addressed, `sub_<bm_id>:<first 12 hex of sha256 of the
  canonical task set>`; "the fingerprint covers the TASKS, not the slug" (§8.6).
  Each row keeps its tasks, their canonical `positions`, its `recipe`
  (`{type, config}`; runnable when it has one) and `retired_by` (§8.9).
- `impls` (`AuthoredImpl`): `imp_<bm_id>:<first 12 hex of sha256(code)>`; "register the same code
  twice and you get the same id back" (§8.7).

Writes are the owner's (admins too); anyone else gets `404`, as §8.9 puts it.
`If-Match` is applied as the spec marks each operation (§3.8): enforced on the
benchmark PATCH and both build PATCHes, read and ignored on subsets and impls.
"""

from __future__ import annotations

import copy
import hashlib
from datetime import timedelta
from typing import Any, TypeVar

import orjson

from mock_server.benchwright.model.accounts import require_writer
from mock_server.benchwright.model.catalog import build, live_subset, runnable
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import AuthoredBenchmark, AuthoredImpl, AuthoredSubset
from mock_server.benchwright.resources import handler
from mock_server.benchwright.store import User
from mock_server.engine import Ctx, Reply
from mock_server.engine.compile import resolve
from mock_server.policies.preconditions import weak_etag
from mock_server.policies.problems import Problem, invalid, not_found
from mock_server.state.ids import uuid4

BUILD_MAX_TASKS = 2000
Row = TypeVar("Row", AuthoredBenchmark, AuthoredSubset, AuthoredImpl)


# -- rows ----------------------------------------------------------------------------


def _may_edit(user: User, row: AuthoredBenchmark | AuthoredSubset | AuthoredImpl) -> bool:
    return user.admin or row.owner_id == user.id


def _owned(ctx: Ctx, table: dict[str, Row], row_id: str, what: str) -> Row:
    row = table.get(row_id)
    if row is None or not _may_edit(ctx.user, row):
        raise not_found(what)
    return row


def _touch(ctx: Ctx, row: AuthoredBenchmark | AuthoredSubset | AuthoredImpl) -> None:
    """Move `updated_at` forward, at least a millisecond, so every change yields
    a new ETag even within one simulated instant (§3.8)."""
    row.updated_at = max(ctx.store.clock.now(), row.updated_at + timedelta(milliseconds=1))


def etag(row: AuthoredBenchmark | AuthoredSubset | AuthoredImpl) -> str:
    return weak_etag(row.id, row.updated_at)


def _writer(ctx: Ctx) -> User:
    user = ctx.user
    require_writer(ctx.store, user)
    return user


def _nothing_patchable(fields: tuple[str, ...], note: str = "") -> Problem:
    return invalid(f"Nothing to change: patchable fields are {', '.join(fields)}.{note}")


# -- tasks and fingerprints ---------------------------------------------------------------


def _task(raw: dict[str, Any]) -> dict[str, Any]:
    return {"task_id": raw["task_id"], "input": raw["input"], "expected": raw["expected"]}


def _task_key(task: dict[str, Any]) -> str:
    return orjson.dumps(_task(task), option=orjson.OPT_SORT_KEYS).decode()


def subset_id(benchmark_id: str, tasks: list[dict[str, Any]]) -> str:
    """`sub_<bm_id>:<first 12 hex of sha256 of the canonical task set>` (§8.6)."""
    canonical = "\n".join(sorted(_task_key(t) for t in tasks))
    return f"sub_{benchmark_id}:{hashlib.sha256(canonical.encode()).hexdigest()[:12]}"


def _positions(bench: AuthoredBenchmark, tasks: list[dict[str, Any]]) -> list[int]:
    """Each task's canonical position in its benchmark, new contents appended."""
    out = []
    for task in tasks:
        key = _task_key(task)
        if key not in bench.canonical:
            bench.canonical[key] = len(bench.tasks)
            bench.tasks.append(_task(task))
        out.append(bench.canonical[key])
    return out


def recipe_fingerprint(recipe: dict[str, Any]) -> str:
    return hashlib.sha256(orjson.dumps(recipe, option=orjson.OPT_SORT_KEYS)).hexdigest()[:12]


def _new_subset(ctx: Ctx, bench: AuthoredBenchmark, tasks: list[dict[str, Any]], **fields: Any) -> AuthoredSubset:
    now = ctx.store.clock.now()
    tasks = [_task(t) for t in tasks]
    row = AuthoredSubset(
        id=subset_id(bench.id, tasks),
        benchmark_id=bench.id,
        owner_id=ctx.user.id,
        tasks=tasks,
        positions=_positions(bench, tasks),
        created_at=now,
        updated_at=now,
        **fields,
    )
    ctx.store.subsets[row.id] = row
    return row


# -- §8.5 --------------------------------------------------------------------------------


def benchmark_json(ctx: Ctx, row: AuthoredBenchmark) -> dict[str, Any]:
    """The `"private"` a benchmark reports is "a fixed literal, not a stored field" (§8.5)."""
    return {**present(row, schema(ctx.api.spec, "Benchmark")), "visibility": "private"}


@handler("createBenchmark")
async def create_benchmark(ctx: Ctx) -> Reply:
    """Starts private; `source`/`sources`/`paper`/`dataset` are not settable here."""
    user = _writer(ctx)
    body = ctx.body
    now = ctx.store.clock.now()
    row = AuthoredBenchmark(
        id="bm_" + uuid4(),
        name=body["name"],
        description=body.get("description"),
        category=body.get("category"),
        tags=list(body.get("tags") or []),
        owner_id=user.id,
        created_at=now,
        updated_at=now,
    )
    ctx.store.benchmarks[row.id] = row
    return Reply(benchmark_json(ctx, row), status=201, headers={"ETag": etag(row)})


# -- §8.6 --------------------------------------------------------------------------------


def _ack(ctx: Ctx, row: AuthoredSubset, created: bool, renamed_from: str | None = None) -> dict[str, Any]:
    body = present(row, schema(ctx.api.spec, "SubsetAck"))
    body.update(created=created, sample_count=len(row.tasks), runnable=runnable(row))
    if renamed_from is not None:
        body["renamed_from_slug"] = renamed_from
    return body


def _grader(body: dict[str, Any]) -> dict[str, Any] | None:
    grader = body.get("grader")
    return {"type": "product", "config": dict(grader)} if grader else None


@handler("createSubset")
async def create_subset(ctx: Ctx) -> Reply:
    """Same task set = same id: posting it again (any slug) updates that row,
    `200` + `created: false`, `renamed_from_slug` only when the slug displaced a
    different one; a new task set is `201` + `created: true` (§8.6)."""
    _writer(ctx)
    bench = _owned(ctx, ctx.store.benchmarks, ctx.path["bm_id"], "Benchmark")
    body = ctx.body
    existing = ctx.store.subsets.get(subset_id(bench.id, body["tasks"]))
    if existing is not None:
        renamed_from = existing.slug if existing.slug != body["slug"] else None
        existing.slug, existing.name = body["slug"], body["name"]
        if "description" in body:
            existing.description = body["description"]
        existing.recipe = _grader(body) or existing.recipe
        _touch(ctx, existing)
        return Reply(_ack(ctx, existing, False, renamed_from), status=200)
    row = _new_subset(
        ctx,
        bench,
        body["tasks"],
        slug=body["slug"],
        name=body["name"],
        description=body.get("description"),
        rolling=bool(body.get("rolling", False)),
        recipe=_grader(body) or {"type": None, "config": {}},
    )
    return Reply(_ack(ctx, row, True), status=201)


@handler("appendSubsetTasks")
async def append_subset_tasks(ctx: Ctx) -> Reply:
    """Rolling subsets only (`409 subset_frozen`). "Appends are not versioned":
    the id stays, `sample_count` grows."""
    _writer(ctx)
    row = _owned(ctx, ctx.store.subsets, ctx.path["id"], "Subset")
    if not row.rolling:
        raise Problem(409, "subset_frozen", f"{row.id} is frozen (non-rolling); publish a new subset instead.")
    bench = ctx.store.benchmarks[row.benchmark_id]
    added = [_task(t) for t in ctx.body["tasks"]]
    row.tasks.extend(added)
    row.positions.extend(_positions(bench, added))
    _touch(ctx, row)
    return Reply({"id": row.id, "sample_count": len(row.tasks), "appended": len(added)})


# -- §8.7 --------------------------------------------------------------------------------


def impl_json(ctx: Ctx, row: AuthoredImpl) -> dict[str, Any]:
    return {**present(row, schema(ctx.api.spec, "Impl")), "subset": {"id": row.subset_id}}


@handler("createImpl")
async def create_impl(ctx: Ctx) -> Reply:
    """Immutable and content-addressed: the same code under the same benchmark
    is the same impl. `benchmark` and `language` are ignored."""
    user = _writer(ctx)
    body = ctx.body
    subset = ctx.store.subsets.get(body["subset"])
    if subset is None or not _may_edit(user, subset):
        raise invalid(f"subset: no subset '{body['subset']}' of yours to bind a scorer to", field="subset")
    digest = hashlib.sha256(body["code"].encode()).hexdigest()
    impl_id = f"imp_{subset.benchmark_id}:{digest[:12]}"
    impls = ctx.store.impls
    if impl_id not in impls:
        now = ctx.store.clock.now()
        impls[impl_id] = AuthoredImpl(
            id=impl_id,
            subset_id=subset.id,
            benchmark_id=subset.benchmark_id,
            owner_id=user.id,
            label=body["label"],
            code=body["code"],
            fingerprint=digest[:12],
            impl_fingerprint=digest,
            created_at=now,
            updated_at=now,
        )
    return Reply(impl_json(ctx, impls[impl_id]), status=201)


# -- §8.8 --------------------------------------------------------------------------------


def _patchable(ctx: Ctx) -> tuple[str, ...]:
    """§8.8's patchable fields: the properties of this operation's body in the spec."""
    body_schema = ctx.op.raw["requestBody"]["content"]["application/json"]["schema"]
    return tuple(resolve(ctx.api.spec, body_schema).get("properties", {}))


def _sent(body: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: body[k] for k in fields if k in body}


def _set(row: Any, changes: dict[str, Any]) -> None:
    for name, value in changes.items():
        setattr(row, name, value)


@handler("patchBenchmark")
async def patch_benchmark(ctx: Ctx) -> Reply:
    """`name`, `description`, `category`; `visibility` is ignored (derived from
    runs, §8.4). `If-Match` is enforced here."""
    _writer(ctx)
    row = _owned(ctx, ctx.store.benchmarks, ctx.path["id"], "Benchmark")
    ctx.precondition(etag(row))
    changes = _sent(ctx.body, _patchable(ctx))
    if not changes:
        raise _nothing_patchable(_patchable(ctx), " `visibility` is derived from runs and ignored.")
    _set(row, changes)
    _touch(ctx, row)
    return Reply({"id": row.id, "ok": True}, headers={"ETag": etag(row)})


@handler("patchSubset")
async def patch_subset(ctx: Ctx) -> Reply:
    """`name`, `description`, `rolling→false` (freeze; one-way: `true` is refused)."""
    _writer(ctx)
    row = _owned(ctx, ctx.store.subsets, ctx.path["id"], "Subset")
    ctx.precondition(etag(row))
    changes = _sent(ctx.body, _patchable(ctx))
    if not changes:
        raise _nothing_patchable(_patchable(ctx), " `rolling` accepts only false (freezing is one-way).")
    _set(row, changes)
    _touch(ctx, row)
    return Reply({"id": row.id, "ok": True})


@handler("patchImpl")
async def patch_impl(ctx: Ctx) -> Reply:
    """`official` is privileged: a non-admin touching it fails `403
    admin_required` before the rest is considered, so a mixed patch changes
    nothing. The answer echoes whichever fields it changed."""
    user = _writer(ctx)
    row = _owned(ctx, ctx.store.impls, ctx.path["id"], "Impl")
    ctx.precondition(etag(row))
    if "official" in ctx.body and not user.admin:
        raise Problem(403, "admin_required", "Only an admin can set `official` on an impl.")
    changes = _sent(ctx.body, _patchable(ctx))
    if not changes:
        raise _nothing_patchable(_patchable(ctx))
    changed = {k: v for k, v in changes.items() if getattr(row, k) != v}
    _set(row, changed)
    if changed:
        _touch(ctx, row)
    return Reply({"id": row.id, "ok": True, **changed})


# -- §8.9 --------------------------------------------------------------------------------


def _live_subset(ctx: Ctx, bench: AuthoredBenchmark) -> AuthoredSubset:
    live = live_subset(ctx.store, bench.id)
    if live is None:
        raise not_found(f"A subset of {bench.id}")
    return live


def _not_authored(handle: str) -> Problem:
    return Problem(
        404,
        "not_authored",
        f"'{handle}' reached the catalog through a run: it has no authored recipe or samples to edit.",
    )


def build_subset(ctx: Ctx) -> AuthoredSubset:
    """Resolve `{id}`: a subset id, a benchmark id or a benchmark NAME (the last
    two: its live subset). A catalog subset maps to its benchmark's authored
    subset; one with none is `404 not_authored`. Owner (or admin) only; anyone
    else gets `404`. Names are matched among the benchmarks the caller may
    edit, and several matches are `409 ambiguous`."""
    handle = ctx.path["id"]
    user = ctx.user
    subsets, benchmarks = ctx.store.subsets, ctx.store.benchmarks
    if handle in subsets:
        return _owned(ctx, ctx.store.subsets, handle, "Subset")
    bench_id = handle if handle in benchmarks else "bm_" + handle
    if bench_id in benchmarks:
        return _live_subset(ctx, _owned(ctx, ctx.store.benchmarks, bench_id, "Benchmark"))
    named = sorted((b for b in benchmarks.values() if b.name == handle and _may_edit(user, b)), key=lambda b: b.id)
    if len(named) > 1:
        ids = [b.id for b in named]
        raise Problem(
            409, "ambiguous", f"'{handle}' names {len(ids)} benchmarks: {', '.join(ids)}. Use an id.", candidates=ids
        )
    if named:
        return _live_subset(ctx, named[0])
    catalog = build(ctx.store, user, own=True)
    projected = catalog.subset(handle)
    if projected is not None:
        owner = benchmarks.get(projected.benchmark_id)
        if owner is not None and _may_edit(user, owner):
            return _live_subset(ctx, owner)
        raise _not_authored(handle)
    if catalog.benchmark(handle) is not None:
        raise _not_authored(handle)
    raise not_found("Subset")


def _editable(ctx: Ctx) -> AuthoredSubset:
    row = build_subset(ctx)
    if row.retired_by is not None:
        raise Problem(
            409,
            "superseded",
            f"{row.id} was retired by an edit of its samples; edit its successor {row.retired_by}.",
            successor=row.retired_by,
        )
    ctx.precondition(etag(row))
    return row


def build_json(ctx: Ctx, row: AuthoredSubset) -> dict[str, Any]:
    bench = ctx.store.benchmarks[row.benchmark_id]
    body = present(row, schema(ctx.api.spec, "BuildSubset"))
    body.update(
        benchmark_name=bench.name,
        sample_count=len(row.tasks),
        runnable=runnable(row),
        recipe_fingerprint=recipe_fingerprint(row.recipe),
        superseded_by=row.retired_by,
    )
    return body


@handler("getBuildSubset")
async def get_build_subset(ctx: Ctx) -> Reply:
    row = build_subset(ctx)
    return Reply(build_json(ctx, row), headers={"ETag": etag(row)})


@handler("patchBuildSubsetRecipe")
async def patch_build_recipe(ctx: Ctx) -> Reply:
    """A merge: keys sent replace theirs, an explicit `null` deletes one. The
    subset id does not move (the samples did not change); the recipe
    fingerprint does. An edit that changes nothing answers `changed: false`."""
    _writer(ctx)
    row = _editable(ctx)
    body = ctx.body
    recipe = copy.deepcopy(row.recipe)
    changed_keys = []
    for key, value in (body.get("config") or {}).items():
        if value is None:
            if recipe["config"].pop(key, None) is not None:
                changed_keys.append(key)
        elif recipe["config"].get(key) != value or key not in recipe["config"]:
            recipe["config"][key] = value
            changed_keys.append(key)
    if "type" in body and body["type"] != recipe["type"]:
        recipe["type"] = body["type"]
        changed_keys.append("type")
    if changed_keys:
        row.recipe = recipe
        row.history.append({"at": ctx.store.clock.now(), "recipe": changed_keys, "note": body.get("note")})
        _touch(ctx, row)
    return Reply(
        {
            "id": row.id,
            "recipe_fingerprint": recipe_fingerprint(row.recipe),
            "changed": bool(changed_keys),
            "changed_keys": changed_keys,
        },
        headers={"ETag": etag(row)},
    )


def _edited_tasks(row: AuthoredSubset, body: dict[str, Any]) -> list[dict[str, Any]]:
    """`tasks` replaces the set; `upsert` / `delete` address samples by `task_id`."""
    if "tasks" in body:
        return [_task(t) for t in body["tasks"]]
    tasks = [dict(t) for t in row.tasks]
    where = {t["task_id"]: i for i, t in enumerate(tasks)}
    for item in body.get("upsert") or []:
        if item["task_id"] in where:
            target = tasks[where[item["task_id"]]]
            target.update({k: item[k] for k in ("input", "expected") if k in item})
        elif "input" in item and "expected" in item:
            where[item["task_id"]] = len(tasks)
            tasks.append(_task(item))
        else:
            raise invalid(
                f"upsert: '{item['task_id']}' is a new sample, so it needs both input and expected", field="upsert"
            )
    drop = set(body.get("delete") or [])
    unknown = sorted(drop - set(where))
    if unknown:
        raise invalid(f"delete: no sample with task_id {', '.join(unknown)}", field="delete")
    return [t for t in tasks if t["task_id"] not in drop]


@handler("patchBuildSubsetTasks")
async def patch_build_tasks(ctx: Ctx) -> Reply:
    """A tasks patch FORKS: the edited set gets its own content-addressed subset
    carrying the recipe forward, and the old one is retired; editing samples
    back to a retired set revives that subset rather than minting a third."""
    _writer(ctx)
    row = _editable(ctx)
    tasks = _edited_tasks(row, ctx.body)
    if not tasks or len(tasks) > BUILD_MAX_TASKS:
        raise invalid(f"The edited sample set has {len(tasks)} tasks; it must have 1 to {BUILD_MAX_TASKS}.")
    bench = ctx.store.benchmarks[row.benchmark_id]
    new_id = subset_id(bench.id, tasks)
    if new_id == row.id:
        return Reply(
            {"id": row.id, "previous_id": row.id, "sample_count": len(row.tasks), "changed": False},
            headers={"ETag": etag(row)},
        )
    successor = ctx.store.subsets.get(new_id)
    if successor is None:
        successor = _new_subset(
            ctx,
            bench,
            tasks,
            slug=row.slug,
            name=row.name,
            description=row.description,
            rolling=row.rolling,
            recipe=copy.deepcopy(row.recipe),
        )
    else:
        successor.retired_by = None
        successor.recipe = copy.deepcopy(row.recipe)
        _touch(ctx, successor)
    successor.history.append({"at": ctx.store.clock.now(), "forked_from": row.id, "note": ctx.body.get("note")})
    row.retired_by = successor.id
    _touch(ctx, row)
    return Reply(
        {"id": successor.id, "previous_id": row.id, "sample_count": len(successor.tasks), "changed": True},
        headers={"ETag": etag(successor)},
    )

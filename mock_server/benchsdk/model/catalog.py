"""Organizations, credentials, benchmarks, runs and participants (write calls 1–3, read path)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from mock_server.state.ids import hex_token

from .errors import Refusal
from .rows import Benchmark, Org, Participant, Run, Token
from .store import Store
from .timefmt import Window

# ---- organizations and credentials ------------------------------------------------------


def create_org(store: Store, *, slug: str, name: str, org_id: str | None = None) -> Org:
    if store.org_by_slug(slug) is not None:
        raise Refusal(409, "org_exists", f"an organization with slug {slug!r} exists", slug=slug)
    org = Org(id=org_id or store.ids.new(), slug=slug, name=name)
    store.orgs[org.id] = org
    return org


def mint_token(store: Store, *, org: Org, kind: str, now: datetime, token: str | None = None) -> Token:
    if kind not in ("api_key", "oauth"):
        raise Refusal(400, "invalid_argument", f"kind must be 'api_key' or 'oauth', not {kind!r}", field="kind")
    if token is None:
        token = ("bp_" if kind == "api_key" else "bpo_") + hex_token(40)
    row = Token(id=store.ids.new(), token=token, kind=kind, org_id=org.id, created_at=now)
    store.tokens[token] = row
    return row


# ---- benchmarks -----------------------------------------------------------------------------


def upsert_benchmark(store: Store, *, org: Org, slug: str, body: dict[str, Any], now: datetime) -> Benchmark:
    """Write call 1 (A-24, A-25, A-27): create under the caller's org, or replace name + config."""
    bench = store.benchmark(slug)
    if bench is None:
        bench = Benchmark(
            id=store.ids.new(),
            slug=slug,
            name=body["name"],
            status=body.get("status", "active"),
            config=dict(body.get("config") or {}),
            default_run_config=body.get("defaultRunConfig"),
            owner_org_id=org.id,
            created_at=now,
            updated_at=now,
        )
        store.benchmarks[bench.id] = bench
        store.benchmark_by_slug[slug] = bench.id
        return bench
    _own(bench, org)
    bench.name = body["name"]
    bench.config = dict(body.get("config") or {})
    if "status" in body:
        bench.status = body["status"]
    if "defaultRunConfig" in body:
        bench.default_run_config = body["defaultRunConfig"]
    bench.updated_at = now
    return bench


def patch_benchmark(store: Store, *, org: Org, bench: Benchmark, body: dict[str, Any], now: datetime) -> Benchmark:
    """PATCH /benchmarks/{slug} (A-82): each field present replaces the stored one."""
    _own(bench, org)
    if "name" in body:
        bench.name = body["name"]
    if "status" in body:
        bench.status = body["status"]
    if "config" in body:
        bench.config = dict(body["config"])
    if "defaultRunConfig" in body:
        bench.default_run_config = body["defaultRunConfig"]
    bench.updated_at = now
    return bench


def _own(bench: Benchmark, org: Org) -> None:
    if bench.owner_org_id != org.id:
        raise Refusal(
            403, "not_benchmark_owner", f"benchmark {bench.slug!r} belongs to another organization", slug=bench.slug
        )


def require_benchmark(store: Store, slug: str) -> Benchmark:
    bench = store.benchmark(slug)
    if bench is None:
        raise Refusal(404, "benchmark_not_found", f"no benchmark {slug!r}", slug=slug)
    return bench


def list_benchmarks(store: Store) -> list[Benchmark]:
    return sorted(store.benchmarks.values(), key=lambda b: (b.created_at, b.slug))


# ---- runs -----------------------------------------------------------------------------------


def visible(store: Store, org: Org, run: Run) -> bool:
    return run.org_id == org.id or run.benchmark_id in org.subscriptions


def require_run(store: Store, org: Org, bench: Benchmark, run_id: str, *, write: bool = False) -> Run:
    run = store.runs.get(run_id)
    if run is None or run.benchmark_id != bench.id or not visible(store, org, run):
        raise Refusal(404, "run_not_found", f"no run {run_id!r} on benchmark {bench.slug!r}", runId=run_id)
    if write and run.org_id != org.id:
        raise Refusal(403, "not_run_owner", f"run {run_id!r} belongs to another organization", runId=run_id)
    return run


def create_run(store: Store, *, org: Org, bench: Benchmark, body: dict[str, Any], now: datetime) -> tuple[Run, bool]:
    """Write call 2 (A-11..A-13, A-28..A-36). Returns (run, created). Synchronous on purpose:
    the get-or-create by runKey has no await between its check and its insert."""
    run_key = body.get("runKey")
    if run_key is not None:
        existing = store.run_keys.get((org.id, bench.id, run_key))
        if existing is not None:
            return store.runs[existing], False
    total = body.get("totalTasks")
    names: list[str] = []
    for name in body.get("participants") or []:
        if name not in names:
            names.append(name)
    run = Run(
        id=store.ids.new(),
        benchmark_id=bench.id,
        org_id=org.id,
        name=body.get("name"),
        status="planned",
        status_forced=False,
        run_key=run_key,
        total_tasks=int(total or 0),
        participant_sized=total is None,
        worker_count=int(body.get("workerCount") or 0),
        config=dict(body.get("config") or {}),
        created_at=now,
        updated_at=now,
    )
    store.runs[run.id] = run
    if run_key is not None:
        store.run_keys[(org.id, bench.id, run_key)] = run.id
    # a self-contained run registers its listed participants, each with an equal share
    shares = _shares(run.total_tasks, len(names)) if total is not None else [0] * len(names)
    for name, share in zip(names, shares, strict=True):
        _new_participant(store, run, name, {"totalTasks": share}, now)
    _resize(store, run)
    return run, True


def _shares(total: int, n: int) -> list[int]:
    if n == 0:
        return []
    base, extra = divmod(total, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _new_participant(store: Store, run: Run, slug: str, body: dict[str, Any], now: datetime) -> Participant:
    part = Participant(
        id=store.ids.new(),
        benchmark_id=run.benchmark_id,
        run_id=run.id,
        slug=slug,
        label=body.get("label"),
        provider=body.get("provider", slug),
        status=body.get("status", "planned"),
        status_forced="status" in body,
        total_tasks=int(body.get("totalTasks") or 0),
        worker_count=int(body.get("workerCount") or 0),
        config=body.get("config"),
        created_at=now,
        updated_at=now,
    )
    store.participants[part.id] = part
    return part


def _resize(store: Store, run: Run) -> None:
    """A participant-sized run's extent is the sum of its participants' totalTasks (A-30)."""
    if run.participant_sized:
        run.total_tasks = sum(p.total_tasks for p in store.run_participants(run.id))


def register_participant(store: Store, *, run: Run, slug: str, body: dict[str, Any], now: datetime) -> Participant:
    """Write call 3 (A-37, A-38): idempotent PUT; a repeat updates the one participant."""
    part = store.participant(run.id, slug)
    if part is None:
        part = _new_participant(store, run, slug, body, now)
    else:
        if "totalTasks" in body:
            part.total_tasks = int(body["totalTasks"])
        for key, attr in (("label", "label"), ("provider", "provider"), ("config", "config")):
            if key in body:
                setattr(part, attr, body[key])
        if "workerCount" in body:
            part.worker_count = int(body["workerCount"])
        if "status" in body:
            part.status = body["status"]
            part.status_forced = True
        part.updated_at = now
    _resize(store, run)
    run.updated_at = now
    return part


def require_participant(store: Store, run: Run, slug: str) -> Participant:
    part = store.participant(run.id, slug)
    if part is None:
        raise Refusal(404, "participant_not_found", f"no participant {slug!r} on run {run.id!r}", participantSlug=slug)
    return part


def patch_run(store: Store, *, run: Run, body: dict[str, Any], now: datetime) -> Run:
    """PATCH …/runs/{runId} (A-84): a status set here is kept as set."""
    if "status" in body:
        run.status = body["status"]
        run.status_forced = True
    if "config" in body:
        run.config = dict(body["config"])
    if "name" in body:
        run.name = body["name"]
    run.updated_at = now
    return run


def _row_key(row: dict[str, Any]) -> str:
    return json.dumps([row.get("provider"), row.get("dimensions") or {}], sort_keys=True)


def submit_summary(store: Store, *, run: Run, body: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Write call 10 (A-73..A-77): stored with the run. A later submission replaces the rows of
    the same (provider, dimensions) and keeps the others, so a retried summary replaces itself
    and `--run-key` siblings, each scoring its own provider, add up to the run's scorecard."""
    previous = run.summary or {}
    rows = {_row_key(r): r for r in previous.get("results") or []}
    for row in body.get("results") or []:
        rows[_row_key(row)] = row
    summary = {**previous, **body, "results": list(rows.values()), "submittedAt": now}
    run.summary = summary
    run.updated_at = now
    return summary


def filter_runs(
    store: Store,
    runs: list[Run],
    *,
    participants: list[str] | None,
    window: Window,
) -> list[Run]:
    out = []
    for run in runs:
        if not window.contains(run.created_at):
            continue
        if participants:
            slugs = {p.slug for p in store.run_participants(run.id)}
            if not slugs.intersection(participants):
                continue
        out.append(run)
    return out


def runs_of(store: Store, org: Org, bench: Benchmark | None) -> list[Run]:
    """Visible runs, newest first."""
    rows = [r for r in store.runs.values() if (bench is None or r.benchmark_id == bench.id) and visible(store, org, r)]
    rows.reverse()  # latest inserted first among equal times
    rows.sort(key=lambda r: r.created_at, reverse=True)
    return rows


def page(rows: list, *, limit: int | None, offset: int, filtered: bool, filtered_default: int) -> list:
    """Unfiltered listings are unbounded; filtered ones default to `filtered_default` (A-95)."""
    if limit is None and filtered:
        limit = filtered_default
    rows = rows[offset:]
    return rows if limit is None else rows[:limit]

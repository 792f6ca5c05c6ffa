"""Runs (§4.3-§4.11): list, read, change, stop, delete, publish, narrate.

Handlers check the preconditions their section lists, in the order it lists
them. Launch and fork are `launch.py`; who may read a run and its
representation are `model/runs.py`; the lifecycle itself (phases, events,
costs, halts) is `model/lifecycle.py`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import orjson

from mock_server.benchwright.filters import apply_sort, build_filters, parse_sort
from mock_server.benchwright.model import lifecycle as pipeline
from mock_server.benchwright.model.lifecycle import Run
from mock_server.benchwright.model.present import present, schema
from mock_server.benchwright.model.rows import Narration
from mock_server.benchwright.model.runs import owned_run, readable_run, run_bytes, run_json, team_ids
from mock_server.benchwright.resources import handler
from mock_server.engine import Ctx, Reply
from mock_server.policies.pagination import decode_cursor, encode_cursor, page
from mock_server.policies.preconditions import weak_etag
from mock_server.policies.problems import Problem, invalid
from mock_server.policies.text import comma_items

MIN_REVISION_STEP = timedelta(milliseconds=1)


def _expand(ctx: Ctx) -> set[str]:
    return set(comma_items(ctx.query.get("expand")))


# -- reads ----------------------------------------------------------------------


@handler("getRun")
async def get_run(ctx: Ctx) -> Reply:
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    headers = {"ETag": weak_etag(run.id, run.updated_at)}
    expand = _expand(ctx)
    if expand:
        return Reply(run_json(ctx.store, run, detail=True, expand=expand), headers=headers)
    return Reply(raw=run_bytes(ctx.store, run, detail=True), headers=headers)


LIST_FIELDS = {
    "status": lambda r: r.status,
    "benchmark": lambda r: r.benchmark_name,
    "visibility": lambda r: r.visibility,
    "started_at": lambda r: r.started_at,
    "finished_at": lambda r: r.finished_at,
    "created_at": lambda r: r.created_at,
    "cost_total": lambda r: pipeline.incurred_usd(r),
    "cost_billed": lambda r: pipeline.billed_usd(r),
}
NEWEST_FIRST = [("created_at", True)]


@handler("listRuns")
async def list_runs(ctx: Ctx) -> Reply:
    """§4.3: the caller's and their team's runs (every run for an admin's `scope=all`),
    filtered and sorted (§3.5, default newest first), a page at a time (§3.4)."""
    user = ctx.user
    store = ctx.store
    index = store.run_index
    owners = tuple(index.owners() if ctx.query.get("scope") == "all" and user.admin else sorted(team_ids(store, user)))
    filters = build_filters(ctx.raw_query, ctx.op.raw.get("x-filters", {}))
    keys = parse_sort(ctx.query.get("sort"), ctx.op.raw.get("x-sorts", []), "-created_at")
    limit, token = ctx.query["limit"], ctx.query.get("page_token")
    chunk = pagination = None
    if not filters and all(key == NEWEST_FIRST[0] for key in keys):  # the default listing: read off the index
        after = None if token is None else store.runs.get(decode_cursor("runs", token))
        if token is None or (after is not None and after.user_id in owners):
            found = index.page(owners, after, limit + 1)
            pagination = {"has_more": len(found) > limit}
            chunk = found[:limit]
            if pagination["has_more"] and chunk:
                pagination["next_page_token"] = encode_cursor("runs", chunk[-1].id)
    if chunk is None:  # filters, another order, or a cursor whose run is gone
        rows = index.in_creation_order(owners)
        for name, keep in filters:
            rows = [r for r in rows if keep(LIST_FIELDS[name](r))]
        rows = apply_sort(rows, [*keys, *NEWEST_FIRST], lambda r, name: LIST_FIELDS[name](r))
        chunk, pagination = page(rows, limit, token, "runs", key=lambda r: r.id)
    parts = [b'{"data":[']  # the page's bytes joined once (a page is up to 100 runs' cached JSON)
    for run in chunk:
        parts += (run_bytes(store, run), b",")
    if chunk:
        parts.pop()
    parts += (b'],"pagination":', orjson.dumps(pagination), b"}")
    return Reply(raw=b"".join(parts))


@handler("getRunPhaseStats")
async def phase_stats(ctx: Ctx) -> Reply:
    """§4.10: the caller's most recent 100 finalized runs, keyed by phase."""
    mine = [r for r in pipeline.runs(ctx.store).values() if r.user_id == ctx.user.id and r.terminal]
    mine.sort(key=lambda r: r.finished_at or r.created_at, reverse=True)
    stats: dict[str, dict[str, Any]] = {}
    for run in mine[:100]:
        started: dict[str, Any] = {}
        for event in run.events:
            phase = event["data"].get("phase")
            if event["type"] == "PhaseStarted":
                started[phase] = event
                entry = stats.setdefault(phase, {"total_ms": 0, "attempts": 0, "success": 0, "failed": 0})
                entry["attempts"] += 1
            elif event["type"] == "PhaseCompleted" and phase in started:
                entry = stats[phase]
                entry["success"] += 1
                entry["total_ms"] += event["data"].get("duration_ms", 0)
                started.pop(phase)
        if run.status == "error":
            for phase in started:
                stats[phase]["failed"] += 1
    return Reply(
        {
            phase: {
                "avg_ms": entry["total_ms"] // entry["success"] if entry["success"] else 0,
                "attempts": entry["attempts"],
                "success": entry["success"],
                "failed": entry["failed"],
            }
            for phase, entry in stats.items()
        }
    )


# -- changes -------------------------------------------------------------------


def _who(ctx: Ctx) -> str:
    return ctx.user.email if ctx.user else "anonymous"


@handler("haltRun")
async def halt_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx.store, ctx.user, ctx.path["id"])
    reason = " ".join(str((ctx.body or {}).get("reason") or "").split())[:200]
    text = f"operator_kill by {_who(ctx)}" + (f": {reason}" if reason else "")
    if not run.terminal:
        pipeline.stop(ctx.api, run, text, error="halted by operator")
    else:
        run.halted = True
        run.halt_reason = text
        run.updated_at = ctx.store.clock.now()
    return Reply(run_json(ctx.store, run, detail=True))


@handler("pauseRun")
async def pause_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx.store, ctx.user, ctx.path["id"])
    if run.status != "running":
        raise Problem(409, "invalid_state", f"Only a running run can be paused; this one is {run.status}.")
    if run.halted:
        raise Problem(409, "already_halted", f"The run is already halted ({run.halt_reason}).")
    run.halted = True
    run.halt_reason = f"operator_pause: {_who(ctx)}"
    run.pause_requested = True
    run.updated_at = ctx.store.clock.now()
    return Reply(run_json(ctx.store, run, detail=True))


@handler("resumeRun")
async def resume_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx.store, ctx.user, ctx.path["id"])
    if not (run.halt_reason or "").startswith("operator_pause") or run.terminal:
        raise Problem(
            409,
            "not_paused",
            "Only an operator pause can be resumed; a review is answered with PATCH review_resolution.",
        )
    now = ctx.store.clock.now()
    run.halted = False
    run.halt_reason = None
    run.pause_requested = False
    if run.held:
        run.held = False
        pipeline.emit(ctx.store, run, "PhaseResumed", {"phase": run.current_phase, "leg": 2})
        pipeline.retime(run, now)
    run.updated_at = now
    ctx.store.clock.notify()
    return Reply(run_json(ctx.store, run, detail=True))


@handler("patchRun")
async def patch_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx.store, ctx.user, ctx.path["id"])
    ctx.precondition(weak_etag(run.id, run.updated_at))
    body = ctx.body or {}
    if "visibility" not in body and "review_resolution" not in body:
        raise invalid("Patchable fields are exactly `visibility` and `review_resolution`.")
    now = ctx.store.clock.now()
    if "visibility" in body:
        set_visibility(run, body["visibility"])
    if body.get("review_resolution") is not None:
        run.review_resolution = body["review_resolution"]
        if (run.halt_reason or "").startswith("agent_review"):
            run.halted = False
            run.halt_reason = None
            run.held = False
            pipeline.emit(
                ctx.store,
                run,
                "HumanReviewResolution",
                {"phase": run.current_phase, "instructions": body["review_resolution"]},
            )
            pipeline.retime(run, now)
            pipeline.activate(ctx.store, run)
    run.updated_at = max(now, run.updated_at + MIN_REVISION_STEP)  # every write is a new revision (§3.8)
    ctx.store.clock.notify()
    return Reply(run_json(ctx.store, run, detail=True), headers={"ETag": weak_etag(run.id, run.updated_at)})


def set_visibility(run: Run, visibility: str) -> None:
    """§4.8/§8.4: `public` needs `status == ok`; going non-private restamps the fingerprint."""
    if visibility == "public" and run.status != "ok":
        raise Problem(409, "visibility_constraint_violated", "Only a run that finished ok can be public.")
    run.visibility = visibility
    if visibility != "private":
        run.fingerprint_hash = pipeline.fingerprint_of(run) or run.fingerprint_hash


@handler("publishRun")
async def publish_run(ctx: Ctx) -> Reply:
    run = owned_run(ctx.store, ctx.user, ctx.path["id"])
    visibility = (ctx.body or {}).get("visibility") or "public"
    if visibility != "private" and (run.status != "ok" or not run.benchmark_id):
        raise Problem(
            409,
            "visibility_constraint_violated",
            "Publishing needs a run that finished ok and has a benchmark to publish under.",
        )
    set_visibility(run, visibility)
    run.updated_at = ctx.store.clock.now()
    body = {"id": run.id, "visibility": run.visibility}
    if run.fingerprint_hash:
        body["fingerprint_hash"] = run.fingerprint_hash
    return Reply(body)


@handler("deleteRun")
async def delete_run(ctx: Ctx) -> Reply:
    """§4.7: tear down, adopt the fork children, then remove the record."""
    run = owned_run(ctx.store, ctx.user, ctx.path["id"])
    store = ctx.store
    reason = f"operator_kill by {_who(ctx)}"
    sandboxes = 0 if run.terminal else 1
    if not run.terminal:
        pipeline.stop(ctx.api, run, reason, error="deleted by operator")
    children = [r for r in pipeline.runs(store).values() if r.forked_from == run.id]
    adopted_events = 0
    for child in children:
        own = {(e["type"], e["data"].get("phase")) for e in child.events}
        inherited = [
            e
            for e in run.events
            if e["type"] in (*pipeline.FINGERPRINT_TYPES, "FetchArtifact", "AnalyzeArtifact", "PhaseCompleted")
            and (e["type"], e["data"].get("phase")) not in own
        ]
        for event in inherited:
            pipeline.emit(store, child, event["type"], {**event["data"], "_adopted_from": run.id})
            adopted_events += 1
        child.forked_from = run.forked_from
        child.forked_from_deleted = run.id
        child.updated_at = store.clock.now()
    pipeline.remove_run(store, run)
    store.clock.notify()
    return Reply(
        {
            "id": run.id,
            "deleted": True,
            "halt_reason": reason,
            "sandboxes_killed": sandboxes,
            "snapshots_freed": 0,
            "forks_adopted": [c.id for c in children],
            "events_adopted": adopted_events,
            "reparented_to": run.forked_from,
        }
    )


@handler("narrateRun")
async def narrate_run(ctx: Ctx) -> Reply:
    """§4.9: opt-in via `run_narration_enabled`; cached per (run, last_seq)."""
    run = readable_run(ctx.store, ctx.user, ctx.path["id"])
    slice_ = ctx.query.get("slice") or "recent"
    if ctx.user is not None:
        owner = ctx.store.account_of(ctx.user)
        setting = ctx.store.settings.get((owner.id, "run_narration_enabled"))
        if not (setting and setting.value is True):
            return Reply(status=204)
    cache = ctx.store.narrations
    key = (run.id, run.last_seq, slice_)
    narration = cache.get(key)
    from_cache = narration is not None
    if narration is None:
        window = run.events[-20:] if slice_ == "recent" else run.events
        phase = run.current_phase or "report"
        sentence = (
            f"Working through {phase} ({len(run.events)} events so far)."
            if slice_ == "recent"
            else f"The run went through {len({e['data'].get('phase') for e in run.events} - {None})} phases "
            f"and finished {run.status}."
        )
        narration = cache[key] = Narration(
            sentence=sentence,
            generated_at=ctx.store.clock.now(),
            slice=slice_,
            first_seq=window[0]["seq"] if window else 0,
            last_seq=window[-1]["seq"] if window else 0,
        )
    return Reply({**present(narration, schema(ctx.api.spec, "Narration")), "from_cache": from_cache})

"""The read path's computed views, from the stored records, heartbeats and batches: progress,
aggregates (overall / participant / step), task buckets, timeline, imports, iterations."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .rows import EventBatch, Participant, Run
from .store import Store
from .timefmt import iso, parse_timestamp
from .workers import is_stale

CLOSED_RUN = {"completed", "failed"}


# ---- the record set ---------------------------------------------------------------------------


@dataclass(slots=True)
class Rec:
    participant: Participant
    batch: EventBatch
    record: dict[str, Any]


def effective_records(store: Store, run: Run, participants: list[str] | None = None) -> list[Rec]:
    """The run's imported records; where several attempts reported one (participant, taskIndex),
    the latest attempt's wins, and within an attempt the latest batch's (A.3-12)."""
    parts = {p.id: p for p in store.run_participants(run.id)}
    order = {pid: i for i, pid in enumerate(parts)}
    best: dict[tuple[str, int], tuple[tuple[int, int, int], Rec]] = {}
    for batch in store.run_batches(run.id):
        if batch.import_status != "imported":
            continue
        part = parts[batch.participant_id]
        if participants is not None and part.slug not in participants:
            continue
        for pos, record in enumerate(batch.records):
            key = (part.id, int(record["taskIndex"]))
            rank = (batch.attempt_number, batch.sequence, pos)
            held = best.get(key)
            if held is None or rank > held[0]:
                best[key] = (rank, Rec(part, batch, record))
    recs = [rec for _, rec in best.values()]
    recs.sort(key=lambda r: (order[r.participant.id], int(r.record["taskIndex"])))
    return recs


# ---- statistics -----------------------------------------------------------------------------


def nearest_rank(sorted_values: list[float], pct: float) -> float | None:
    if not sorted_values:
        return None
    rank = max(1, math.ceil(pct / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def latency_stats(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {
        "min": ordered[0] if ordered else None,
        "avg": (sum(ordered) / len(ordered)) if ordered else None,
        "p50": nearest_rank(ordered, 50),
        "p95": nearest_rank(ordered, 95),
        "p99": nearest_rank(ordered, 99),
        "max": ordered[-1] if ordered else None,
    }


def _counts(items: list[dict[str, Any]], count_field: str) -> dict[str, Any]:
    """Counts, success rate and latency over task or step records (A-96). `successRate` is a
    number in the client's types, never null: 0 over no records."""
    success = sum(1 for i in items if i.get("status") == "success")
    error = sum(1 for i in items if i.get("status") == "error")
    latencies = [float(i["latencyMs"]) for i in items if isinstance(i.get("latencyMs"), int | float)]
    return {
        count_field: len(items),
        "successCount": success,
        "errorCount": error,
        "otherCount": len(items) - success - error,
        "latencyCount": len(latencies),
        "successRate": (success / len(items)) if items else 0.0,
        "latencyMs": latency_stats(latencies),
    }


def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A result summary over task records (`BenchmarkResultSummary`): counts, success rate,
    latency, and the first start and last completion."""
    starts = [(parse_timestamp(i.get("startedAt")), i.get("startedAt")) for i in items]
    ends = [(parse_timestamp(i.get("completedAt")), i.get("completedAt")) for i in items]
    starts = [s for s in starts if s[0] is not None]
    ends = [e for e in ends if e[0] is not None]
    return {
        **_counts(items, "taskCount"),
        "firstStartedAt": iso(min(starts)[0]) if starts else None,
        "lastCompletedAt": iso(max(ends)[0]) if ends else None,
    }


def _step_rows(recs: list[Rec], steps: list[str] | None) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str], tuple[Participant, list[dict[str, Any]]]] = {}
    for rec in recs:
        for step in rec.record.get("steps") or []:
            name = step["name"]
            if steps is not None and name not in steps:
                continue
            grouped.setdefault((rec.participant.id, name), (rec.participant, []))[1].append(step)
    return [
        {"participantSlug": part.slug, "provider": part.provider, "stepName": name, **_counts(items, "stepCount")}
        for (_, name), (part, items) in grouped.items()
    ]


def participant_results(
    store: Store, run: Run, recs: list[Rec], *, participants: list[str] | None, steps: list[str] | None
) -> list[dict[str, Any]]:
    rows = []
    for part in store.run_participants(run.id):
        if participants is not None and part.slug not in participants:
            continue
        mine = [r for r in recs if r.participant.id == part.id]
        rows.append(
            {
                "participantSlug": part.slug,
                "provider": part.provider,
                **summarize([r.record for r in mine]),
                "steps": _step_rows(mine, steps),
            }
        )
    return rows


def run_results(store: Store, run: Run, *, participants: list[str] | None) -> dict[str, Any]:
    """GET …/runs/{runId}/results (A-96, A-97): `participant` narrows every aggregate."""
    recs = effective_records(store, run, participants)
    return {
        "analytics": analytics(store, run),
        "overall": summarize([r.record for r in recs]),
        "participants": participant_results(store, run, recs, participants=participants, steps=None),
        "steps": _step_rows(recs, None),
    }


# ---- analytics readiness and imports ----------------------------------------------------------


def analytics(store: Store, run: Run, now: datetime | None = None) -> dict[str, Any]:
    """Import readiness of a run (A-91, A-100).

    unavailable: no batch; pending: every batch queued; partial: some queued, some imported;
    failed: none queued, at least one failed; ready: all imported, run still open;
    complete: all imported, run closed."""
    batches = store.run_batches(run.id)
    queued = sum(1 for b in batches if b.batch_status == "queued")
    persisted = sum(1 for b in batches if b.batch_status == "persisted")
    failed = sum(1 for b in batches if b.batch_status == "failed")
    if not batches:
        status = "unavailable"
    elif queued == len(batches):
        status = "pending"
    elif queued:
        status = "partial"
    elif failed:
        status = "failed"
    else:
        status = "complete" if run.status in CLOSED_RUN else "ready"
    overdue = sum(1 for b in batches if b.batch_status == "queued" and now is not None and b.import_due_at <= now)
    missing = 0
    for attempt in (store.attempts[a] for a in {b.attempt_id for b in batches}):
        seen = sorted(attempt.batches_by_sequence)
        if seen:
            missing += (seen[-1] - seen[0] + 1) - len(seen)
    return {
        "status": status,
        "eventBatches": len(batches),
        "persisted": persisted,
        "queued": queued,
        "failed": failed,
        "records": sum(len(b.records) for b in batches if b.import_status == "imported"),
        "imports": {
            "pending": queued - overdue,
            "importing": overdue,
            "imported": persisted,
            "failed": failed,
            "missing": missing,
        },
    }


# ---- buckets and timeline ----------------------------------------------------------------------


def task_buckets(store: Store, run: Run, *, bucket_size: int, failure_limit: int) -> dict[str, Any]:
    """GET …/results/tasks (A-98): per participant, task-index buckets with p50/p95/max latency,
    and the failure points."""
    recs = effective_records(store, run)
    buckets: dict[tuple[str, int], tuple[Participant, list[dict[str, Any]]]] = {}
    for rec in recs:
        k = int(rec.record["taskIndex"]) // bucket_size
        buckets.setdefault((rec.participant.id, k), (rec.participant, []))[1].append(rec.record)
    rows = []
    for (_, k), (part, items) in buckets.items():
        start, end = k * bucket_size, (k + 1) * bucket_size - 1
        stats = latency_stats([float(i["latencyMs"]) for i in items if isinstance(i.get("latencyMs"), int | float)])
        rows.append(
            {
                "participantSlug": part.slug,
                "provider": part.provider,
                "bucketStart": start,
                "bucketEnd": end,
                "taskIndexMidpoint": (start + end) / 2,
                "taskCount": len(items),
                "successCount": sum(1 for i in items if i.get("status") == "success"),
                "errorCount": sum(1 for i in items if i.get("status") == "error"),
                "latencyMs": {"p50": stats["p50"], "p95": stats["p95"], "max": stats["max"]},
            }
        )
    failures = [
        {
            "participantSlug": r.participant.slug,
            "provider": r.participant.provider,
            "taskIndex": int(r.record["taskIndex"]),
            "errorCode": r.record.get("errorCode"),
            "latencyMs": r.record.get("latencyMs"),
        }
        for r in recs
        if r.record.get("status") == "error"
    ]
    return {
        "bucketSize": bucket_size,
        "buckets": rows,
        "failureCount": len(failures),
        "failures": failures[:failure_limit],
    }


def timeline(store: Store, run: Run, *, bucket_ms: int) -> dict[str, Any]:
    """GET …/results/timeline (A-99): records per completedAt bucket, and one concurrency point
    per heartbeat sample."""
    recs = effective_records(store, run)
    starts = [s for s in (parse_timestamp(r.record.get("startedAt")) for r in recs) if s is not None]
    t0 = min(starts) if starts else None
    rate: dict[tuple[str, int], dict[str, Any]] = {}
    if t0 is not None:
        for rec in recs:
            done = parse_timestamp(rec.record.get("completedAt"))
            if done is None:
                continue
            offset = int((done - t0).total_seconds() * 1000)
            t_ms = (offset // bucket_ms) * bucket_ms
            row = rate.setdefault(
                (rec.participant.id, t_ms),
                {
                    "participantSlug": rec.participant.slug,
                    "provider": rec.participant.provider,
                    "tMs": t_ms,
                    "completed": 0,
                    "succeeded": 0,
                    "failed": 0,
                },
            )
            row["completed"] += 1
            if rec.record.get("status") == "success":
                row["succeeded"] += 1
            elif rec.record.get("status") == "error":
                row["failed"] += 1
    samples = store.samples.get(run.id, [])
    first = min((s.recorded_at for s in samples), default=None)
    points = [
        {
            "participantSlug": store.participants[s.participant_id].slug,
            "provider": store.participants[s.participant_id].provider,
            "workerId": s.worker_id,
            "recordedAt": iso(s.recorded_at),
            "tMs": int((s.recorded_at - first).total_seconds() * 1000),
            "step": s.step,
            "active": s.active,
            "target": s.target,
        }
        for s in samples
    ]
    order = {p.id: i for i, p in enumerate(store.run_participants(run.id))}
    rate_rows = sorted(rate.items(), key=lambda kv: (order[kv[0][0]], kv[0][1]))
    return {
        "eventRate": {"bucketMs": bucket_ms, "startedAt": iso(t0), "buckets": [row for _, row in rate_rows]},
        "concurrency": {
            "firstRecordedAt": iso(first),
            "heartbeatCount": store.heartbeat_counts.get(run.id, 0),
            "points": points,
        },
    }


# ---- progress --------------------------------------------------------------------------------


def progress(store: Store, run: Run, now: datetime) -> dict[str, Any]:
    """GET …/runs/{runId}/progress (A-85, A-86)."""
    parts_out = []
    counts = {"planned": 0, "in_progress": 0, "completed": 0, "failed": 0}
    for part in store.run_participants(run.id):
        counts[part.status] = counts.get(part.status, 0) + 1
        workers = store.participant_workers(part.id)
        stale = [w for w in workers if is_stale(store, w, now)]
        fresh = [w for w in workers if w.status == "running" and w not in stale]
        steps: dict[str, dict[str, Any]] = {}
        for w in fresh:
            for sample in w.concurrency:
                row = steps.setdefault(
                    sample["step"],
                    {
                        "step": sample["step"],
                        "active": 0,
                        "target": 0,
                        "ready": True,
                        "freshWorkerCount": 0,
                    },
                )
                row["active"] += int(sample["active"])
                row["target"] += int(sample["target"])
                row["ready"] = row["ready"] and int(sample["active"]) >= int(sample["target"])
                row["freshWorkerCount"] += 1
        done = sum(w.progress_done for w in workers)
        total = part.total_tasks
        parts_out.append(
            {
                "id": part.id,
                "slug": part.slug,
                "provider": part.provider,
                "status": part.status,
                "totalTasks": total,
                "workerCount": len(workers),
                "workers": {
                    "pending": sum(1 for w in workers if w.status == "pending"),
                    "running": sum(1 for w in workers if w.status == "running"),
                    "completed": sum(1 for w in workers if w.status == "completed"),
                    "failed": sum(1 for w in workers if w.status == "failed"),
                    "stale": len(stale),
                    "total": len(workers),
                },
                "tasks": {
                    "done": done,
                    "inFlight": sum(w.progress_in_flight for w in workers),
                    "errors": sum(w.progress_errors for w in workers),
                    "total": total,
                    "completionRatio": min(1.0, done / total) if total else 0.0,
                },
                "concurrency": list(steps.values()),
            }
        )
    return {
        "run": {"id": run.id, "status": run.status, "totalTasks": run.total_tasks, "workerCount": run.worker_count},
        "summary": {
            "status": run.status,
            "started": run.status != "planned",
            "completed": run.status in CLOSED_RUN,
            "participants": {
                "planned": counts["planned"],
                "inProgress": counts["in_progress"],
                "completed": counts["completed"],
                "failed": counts["failed"],
                "total": sum(counts.values()),
            },
        },
        "freshnessWindowSeconds": store.timing.lease_seconds,
        "generatedAt": iso(now),
        "participants": parts_out,
    }


# ---- iterations ------------------------------------------------------------------------------


def iterations(
    store: Store, run: Run, *, kind: str, participants: list[str] | None, steps: list[str] | None
) -> list[dict[str, Any]]:
    """GET …/iterations (A-101): task rows, or step rows; narrowed by participant and step names.
    `data` is an object in the client's row types, never null: `{}` for a record (or step) that
    measured nothing."""
    recs = effective_records(store, run, participants)
    rows: list[dict[str, Any]] = []
    for rec in recs:
        r, part, batch = rec.record, rec.participant, rec.batch
        record_steps = r.get("steps") or []
        if kind == "tasks":
            if steps is not None and not any(s["name"] in steps for s in record_steps):
                continue
            rows.append(
                {
                    "participantSlug": part.slug,
                    "provider": part.provider,
                    "workerId": batch.worker_id,
                    "attemptId": batch.attempt_id,
                    "attemptNumber": batch.attempt_number,
                    "eventBatchId": batch.id,
                    "taskIndex": int(r["taskIndex"]),
                    "status": r.get("status"),
                    "errorCode": r.get("errorCode"),
                    "startedAt": r.get("startedAt"),
                    "completedAt": r.get("completedAt"),
                    "latencyMs": r.get("latencyMs"),
                    "firstCommandMs": r.get("firstCommandMs"),
                    "data": r.get("data") or {},
                    "steps": record_steps,
                }
            )
            continue
        for index, step in enumerate(record_steps):
            if steps is not None and step["name"] not in steps:
                continue
            rows.append(
                {
                    "participantSlug": part.slug,
                    "provider": part.provider,
                    "workerId": batch.worker_id,
                    "attemptId": batch.attempt_id,
                    "taskIndex": int(r["taskIndex"]),
                    "stepIndex": index,
                    "stepName": step["name"],
                    "status": step.get("status"),
                    "errorCode": step.get("errorCode"),
                    "startedAt": step.get("startedAt"),
                    "completedAt": step.get("completedAt"),
                    "latencyMs": step.get("latencyMs"),
                    "data": step.get("data") or {},
                    "concurrency": step.get("concurrency"),
                    "timeoutMs": step.get("timeoutMs"),
                }
            )
    return rows

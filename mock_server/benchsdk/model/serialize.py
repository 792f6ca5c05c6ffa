"""Rows as the client reads them (camelCase, ISO timestamps with ms and `Z`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .rows import Artifact, Attempt, Benchmark, EventBatch, Participant, Run, Worker
from .store import Store
from .timefmt import iso
from .workers import is_stale, lease_expires_at, task_range


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _summary(row: Run) -> Any:
    """The run's summary as the client reads it, converted once per submission."""
    held = row.summary_read
    if held[0] is not row.summary:
        held = row.summary_read = (row.summary, _plain(row.summary))
    return held[1]


def _unless_none(out: dict[str, Any], **optional: Any) -> dict[str, Any]:
    """Add the fields the client's type marks optional but not nullable, only when they have a
    value: such a field is absent rather than null."""
    out.update((k, v) for k, v in optional.items() if v is not None)
    return out


def benchmark(store: Store, row: Benchmark) -> dict[str, Any]:
    org = store.orgs.get(row.owner_org_id)
    out = {
        "id": row.id,
        "slug": row.slug,
        "name": row.name,
        "status": row.status,
        "config": row.config,
        "organizationId": row.owner_org_id,
        "organizationSlug": org.slug if org else None,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    return _unless_none(out, defaultRunConfig=row.default_run_config)


def run(store: Store, row: Run) -> dict[str, Any]:
    bench = store.benchmarks[row.benchmark_id]
    org = store.orgs.get(row.org_id)
    return {
        "id": row.id,
        "benchmarkId": row.benchmark_id,
        "benchmarkSlug": bench.slug,
        "organizationId": row.org_id,
        "organizationSlug": org.slug if org else None,
        "name": row.name,
        "status": row.status,
        "runKey": row.run_key,
        "totalTasks": row.total_tasks,
        "participantSized": row.participant_sized,
        "workerCount": row.worker_count,
        "config": row.config,
        "summary": _summary(row),
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def participant(row: Participant) -> dict[str, Any]:
    out = {
        "id": row.id,
        "benchmarkId": row.benchmark_id,
        "runId": row.run_id,
        "slug": row.slug,
        "label": row.label,
        "provider": row.provider,
        "status": row.status,
        "totalTasks": row.total_tasks,
        "workerCount": row.worker_count,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    return _unless_none(out, config=row.config)


def worker(store: Store, row: Worker, now: datetime) -> dict[str, Any]:
    attempt = store.attempts.get(row.attempt_id) if row.attempt_id else None
    lease = lease_expires_at(store, attempt) if attempt is not None and attempt.status == "running" else None
    start, end = task_range(store, row)
    return {
        "id": row.id,
        "benchmarkId": row.benchmark_id,
        "runId": row.run_id,
        "participantId": row.participant_id,
        "participantSlug": store.participants[row.participant_id].slug,
        "workerIndex": row.worker_index,
        "workerCount": row.worker_count,
        "taskIndexStart": start,
        "taskIndexEnd": end,
        "targetConcurrency": row.target_concurrency,
        "status": row.status,
        "stale": is_stale(store, row, now),
        "attemptId": row.attempt_id,
        "attemptNumber": row.attempt_number,
        "processKind": row.process_kind,
        "processKey": row.process_key,
        "progressDone": row.progress_done,
        "progressInFlight": row.progress_in_flight,
        "progressErrors": row.progress_errors,
        "progressTotal": row.progress_total,
        "currentStep": row.current_step,
        "concurrency": row.concurrency,
        "lastHeartbeatAt": iso(row.last_heartbeat_at),
        "leaseExpiresAt": iso(lease),
        "errorCode": row.error_code,
        "errorMessage": row.error_message,
        "config": row.config,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def attempt(store: Store, row: Attempt) -> dict[str, Any]:
    owner = store.workers[row.worker_id]
    return {
        "id": row.id,
        "benchmarkId": owner.benchmark_id,
        "runId": row.run_id,
        "participantId": owner.participant_id,
        "workerId": row.worker_id,
        "attemptNumber": row.attempt_number,
        "status": row.status,
        "processKind": row.process_kind,
        "processKey": row.process_key,
        "claimedAt": iso(row.claimed_at),
        "lastSeenAt": iso(row.last_seen_at),
        "leaseExpiresAt": iso(lease_expires_at(store, row)),
        "closedAt": iso(row.closed_at),
        "lastSequenceNumber": row.max_sequence,
        "finalReceived": row.final_received,
    }


def assignment(store: Store, w: Worker, a: Attempt) -> dict[str, Any]:
    part = store.participants[w.participant_id]
    bench = store.benchmarks[w.benchmark_id]
    start, end = task_range(store, w)
    out = {
        "workerId": w.id,
        "attemptId": a.id,
        "attemptNumber": a.attempt_number,
        "participantSlug": part.slug,
        "participantId": part.id,
        "provider": part.provider,
        "benchmarkId": bench.id,
        "benchmarkSlug": bench.slug,
        "runId": w.run_id,
        "workerIndex": w.worker_index,
        "workerCount": w.worker_count,
        "taskRange": {"start": start, "end": end, "count": end - start + 1},
        "targetConcurrency": w.target_concurrency,
        "leaseExpiresAt": iso(lease_expires_at(store, a)),
    }
    return _unless_none(out, config=w.config)


def batch(store: Store, row: EventBatch) -> dict[str, Any]:
    return {
        "eventBatchId": row.id,
        "batchType": row.batch_type,
        "workerId": row.worker_id,
        "attemptId": row.attempt_id,
        "participantSlug": store.participants[row.participant_id].slug,
        "sequenceNumber": row.sequence_number,
        "isFinal": row.is_final,
        "eventCount": len(row.records),
        "objectKey": row.object_key,
        "batchStatus": row.batch_status,
        "batchErrorMessage": row.import_error if row.batch_status == "failed" else None,
        "createdAt": iso(row.created_at),
        "persistedAt": iso(row.persisted_at),
        "sink": "analytics",
        "importStatus": row.import_status,
        "importAttempts": row.import_attempts,
        "importedAt": iso(row.imported_at),
        "failedAt": iso(row.failed_at),
        "importErrorMessage": row.import_error if row.import_status == "failed" else None,
    }


def artifact(store: Store, row: Artifact) -> dict[str, Any]:
    return {
        "id": row.id,
        "benchmarkId": row.benchmark_id,
        "runId": row.run_id,
        "workerId": row.worker_id,
        "participantId": row.participant_id,
        "participantSlug": store.participants[row.participant_id].slug,
        "attemptId": row.attempt_id,
        "kind": row.kind,
        "contentType": row.content_type,
        "name": row.name,
        "metadata": row.metadata,
        "objectKey": row.object_key,
        "status": row.status,
        "sizeBytes": len(row.data) if row.data is not None else None,
        "createdAt": iso(row.created_at),
        "uploadedAt": iso(row.uploaded_at),
    }


def plain(value: Any) -> Any:
    return _plain(value)

"""Task-result event batches: limits, per-attempt sequencing and dedup, and the import pipeline
that moves each batch from queued to persisted (or failed) in simulated time (write call 7)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .errors import Refusal
from .rows import EventBatch, Run, Worker
from .store import Store
from .timefmt import parse_timestamp
from .workers import fence, touch


def check_batch_limits(records: list[dict[str, Any]], limits: dict[str, Any]) -> None:
    """1..maxRecords records per batch (A-08, A-53), ≤ maxStepsPerRecord steps per record (A-09)."""
    minimum = int(limits.get("minRecords", 0))
    if len(records) < minimum:
        raise Refusal(
            400,
            "empty_batch",
            f"a task_results batch carries at least {minimum} record(s)",
            limit="minRecords",
            min=minimum,
            actual=len(records),
        )
    cap = int(limits["maxRecords"])
    if len(records) > cap:
        raise Refusal(
            400,
            "too_many_records",
            f"a task_results batch carries at most {cap} records; this one has {len(records)}",
            limit="maxRecords",
            max=cap,
            actual=len(records),
        )
    steps_cap = int(limits["maxStepsPerRecord"])
    for index, record in enumerate(records):
        steps = record.get("steps") or []
        if len(steps) > steps_cap:
            raise Refusal(
                400,
                "too_many_steps",
                f"record {index} (taskIndex {record.get('taskIndex')}) has {len(steps)} steps; at most {steps_cap}",
                limit="maxStepsPerRecord",
                max=steps_cap,
                actual=len(steps),
                recordIndex=index,
                taskIndex=record.get("taskIndex"),
            )


def import_problem(records: list[dict[str, Any]]) -> str | None:
    """Why the analytics import would refuse these records, or None. Decided at acceptance and
    revealed when the import runs: a timestamp that is not ISO-8601 with an offset, or a
    completedAt before its startedAt."""
    for index, record in enumerate(records):
        started, completed = record.get("startedAt"), record.get("completedAt")
        parsed = {}
        for name, value in (("startedAt", started), ("completedAt", completed)):
            if value is None:
                continue
            stamp = parse_timestamp(value)
            if stamp is None:
                where = f"record {index} (taskIndex {record.get('taskIndex')})"
                return f"{where}: {name} {value!r} is not an ISO-8601 timestamp"
            parsed[name] = stamp
        if len(parsed) == 2 and parsed["completedAt"] < parsed["startedAt"]:
            return f"record {index} (taskIndex {record.get('taskIndex')}): completedAt precedes startedAt"
    return None


def accept_batch(
    store: Store, *, run: Run, worker: Worker, body: dict[str, Any], limits: dict[str, Any], now: datetime
) -> tuple[EventBatch, bool]:
    """Returns (batch, duplicate). Dedup on (attemptId, sequenceNumber): a resent number answers
    the original batch and counts once (A-16). Below the highest accepted: 409. Gaps: allowed.
    After isFinal: 409. The fence comes first, then the body's limits, then sequencing."""
    attempt = fence(store, worker, body["attemptId"])
    seq = int(body["sequenceNumber"])
    known = attempt.batches_by_sequence.get(seq)
    if known is not None:
        touch(attempt, now)
        return store.batches[known], True
    records = body["records"]
    check_batch_limits(records, limits)
    if attempt.final_received:
        raise Refusal(
            409,
            "attempt_finalized",
            f"attempt {attempt.attempt_number} already sent its final batch (sequenceNumber {attempt.max_sequence})",
            attemptId=attempt.id,
            finalSequenceNumber=attempt.max_sequence,
        )
    if attempt.max_sequence is not None and seq < attempt.max_sequence:
        raise Refusal(
            409,
            "sequence_regression",
            f"sequenceNumber {seq} is below the highest accepted on this attempt ({attempt.max_sequence})",
            attemptId=attempt.id,
            sequenceNumber=seq,
            highestSequenceNumber=attempt.max_sequence,
        )
    store.batch_counter += 1
    batch_id = store.ids.new()
    batch = EventBatch(
        id=batch_id,
        run_id=run.id,
        worker_id=worker.id,
        attempt_id=attempt.id,
        attempt_number=attempt.attempt_number,
        participant_id=worker.participant_id,
        sequence=store.batch_counter,
        batch_type=body.get("type", "task_results"),
        sequence_number=seq,
        is_final=bool(body.get("isFinal")),
        records=[dict(r) for r in records],
        object_key=f"event-batches/{run.id}/{worker.id}/{attempt.id}/{seq}.json",
        created_at=now,
        import_due_at=now + timedelta(seconds=store.timing.import_delay_seconds),
        import_error=import_problem(records),
    )
    store.batches[batch_id] = batch
    store.import_queue.append(batch_id)
    attempt.batches_by_sequence[seq] = batch_id
    attempt.max_sequence = seq if attempt.max_sequence is None else max(attempt.max_sequence, seq)
    if batch.is_final:
        attempt.final_received = True
    touch(attempt, now)
    return batch, False


def advance_imports(store: Store, now: datetime) -> int:
    """Run every import that is due by `now` (queued → persisted, or failed). Returns how many."""
    done = 0
    queue = store.import_queue
    while queue:
        batch = store.batches[queue[0]]
        if batch.import_due_at > now:
            break
        queue.popleft()
        batch.import_attempts += 1
        if batch.import_error is None:
            batch.batch_status = "persisted"
            batch.import_status = "imported"
            batch.persisted_at = batch.imported_at = batch.import_due_at
        else:
            batch.batch_status = "failed"
            batch.import_status = "failed"
            batch.failed_at = batch.import_due_at
        done += 1
    return done

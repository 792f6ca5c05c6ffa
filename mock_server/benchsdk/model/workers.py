"""Workers and attempts: plan, claim, the attemptId fence and lease, heartbeat, close
(write calls 4–6 and 9). Every function here is synchronous: a check and the write it guards
never have an await between them, so concurrent requests on one event loop cannot interleave."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .errors import Refusal
from .rows import Attempt, HeartbeatSample, Participant, Run, Worker
from .store import Store

CLOSED = {"completed", "failed"}


# ---- statuses -------------------------------------------------------------------------------


def _derive(workers: list[Worker]) -> str:
    """planned → in_progress → completed | failed, from the workers (A.3-21)."""
    if not workers:
        return "planned"
    statuses = [w.status for w in workers]
    if all(s == "completed" for s in statuses):
        return "completed"
    if any(s == "running" for s in statuses):
        return "in_progress"
    if any(s == "pending" for s in statuses):
        started = any(s != "pending" for s in statuses) or any(w.attempt_number > 0 for w in workers)
        return "in_progress" if started else "planned"
    return "failed"


def refresh_statuses(store: Store, run: Run, now: datetime) -> None:
    parts = store.run_participants(run.id)
    all_workers: list[Worker] = []
    unplanned = False
    for part in parts:
        workers = store.participant_workers(part.id)
        all_workers.extend(workers)
        unplanned = unplanned or not workers
        if not part.status_forced:
            status = _derive(workers)
            if status != part.status:
                part.status = status
                part.updated_at = now
    if not run.status_forced:
        status = _derive(all_workers)
        if status in CLOSED and unplanned:
            status = "in_progress"
        if status != run.status:
            run.status = status
            run.updated_at = now


# ---- lease ----------------------------------------------------------------------------------


def lease_expires_at(store: Store, attempt: Attempt) -> datetime:
    return attempt.last_seen_at + timedelta(seconds=store.timing.lease_seconds)


def is_stale(store: Store, worker: Worker, now: datetime) -> bool:
    """A running worker whose current attempt's lease has expired: claimable again."""
    if worker.status != "running" or worker.attempt_id is None:
        return False
    attempt = store.attempts[worker.attempt_id]
    return attempt.status == "running" and now >= lease_expires_at(store, attempt)


# ---- task ranges -----------------------------------------------------------------------------


def task_range(store: Store, worker: Worker) -> tuple[int, int]:
    """The worker's inclusive task range, clipped to its participant's extent (A-43, A-44).

    A plan gives worker `i` the indices `[i·tc, (i+1)·tc − 1]` (`targetConcurrency` read as
    tasks-per-worker); the participant's `totalTasks` bounds them, read now, so a participant
    that declares (or changes) its size after planning gets ranges that fit it. Task index
    `totalTasks` does not exist: no range reaches it. A worker wholly past the extent owns
    nothing: `end = start − 1`, count 0."""
    extent = store.participants[worker.participant_id].total_tasks
    start = min(worker.task_index_start, extent)
    end = min(worker.task_index_end, extent - 1)
    return start, max(end, start - 1)


# ---- plan and claim -------------------------------------------------------------------------


def plan_workers(store: Store, *, run: Run, part: Participant, body: dict[str, Any], now: datetime) -> list[Worker]:
    """Write call 4 (A-39, A-40): pending workers, each planned to own targetConcurrency task
    indices (served clipped to the participant's extent, `task_range`).

    Both fields are optional in the client's `PlanWorkersInput`: without `workerCount` the
    participant's declared `workerCount` (else 1) is planned, without `targetConcurrency` each
    worker owns an equal share of the participant's `totalTasks` (rounded up), so the plan
    covers the participant's extent.

    Ensure semantics: a participant that already has workers gets them back; a different
    workerCount is a conflict."""
    count = int(body.get("workerCount") or part.worker_count or 1)
    per_worker = int(body.get("targetConcurrency") or max(1, -(-part.total_tasks // count)))
    existing = store.participant_workers(part.id)
    if existing:
        if len(existing) != count:
            raise Refusal(
                409,
                "worker_count_mismatch",
                f"participant {part.slug!r} already has {len(existing)} workers; {count} were requested",
                existingWorkerCount=len(existing),
                requestedWorkerCount=count,
            )
        return existing
    workers = []
    for index in range(count):
        start = index * per_worker
        worker = Worker(
            id=store.ids.new(),
            benchmark_id=run.benchmark_id,
            run_id=run.id,
            participant_id=part.id,
            worker_index=index,
            worker_count=count,
            task_index_start=start,
            task_index_end=start + per_worker - 1,
            target_concurrency=per_worker,
            status="pending",
            config=body.get("config"),
            created_at=now,
            updated_at=now,
        )
        start, end = task_range(store, worker)
        worker.progress_total = end - start + 1
        store.workers[worker.id] = worker
        workers.append(worker)
    part.worker_count = count
    part.updated_at = now
    run.worker_count = sum(len(store.participant_workers(p.id)) for p in store.run_participants(run.id))
    run.updated_at = now
    refresh_statuses(store, run, now)
    return workers


def claim_worker(
    store: Store, *, run: Run, part: Participant, process_kind: str | None, process_key: str | None, now: datetime
) -> tuple[Worker, Attempt] | None:
    """Write call 5 (A-41, A-42, A-45): the pending worker with the lowest index, else a stale
    one; a new attempt with attemptNumber + 1. None when nothing is claimable."""
    workers = store.participant_workers(part.id)
    worker = next((w for w in workers if w.status == "pending"), None)
    if worker is None:
        worker = next((w for w in workers if is_stale(store, w, now)), None)
    if worker is None:
        return None
    if worker.attempt_id is not None:
        previous = store.attempts[worker.attempt_id]
        if previous.status == "running":
            previous.status = "superseded"
            previous.closed_at = now
    attempt = Attempt(
        id=store.ids.new(),
        worker_id=worker.id,
        run_id=run.id,
        attempt_number=worker.attempt_number + 1,
        status="running",
        process_kind=process_kind,
        process_key=process_key,
        claimed_at=now,
        last_seen_at=now,
    )
    store.attempts[attempt.id] = attempt
    worker.attempt_id = attempt.id
    worker.attempt_number = attempt.attempt_number
    worker.status = "running"
    worker.process_kind = process_kind
    worker.process_key = process_key
    worker.progress_done = worker.progress_in_flight = worker.progress_errors = 0
    start, end = task_range(store, worker)
    worker.progress_total = end - start + 1
    worker.current_step = None
    worker.concurrency = []
    worker.error_code = worker.error_message = None
    worker.updated_at = now
    refresh_statuses(store, run, now)
    return worker, attempt


def require_worker(store: Store, run: Run, worker_id: str) -> Worker:
    worker = store.workers.get(worker_id)
    if worker is None or worker.run_id != run.id:
        raise Refusal(404, "worker_not_found", f"no worker {worker_id!r} on run {run.id!r}", workerId=worker_id)
    return worker


# ---- the fence ------------------------------------------------------------------------------


def fence(store: Store, worker: Worker, attempt_id: str) -> Attempt:
    """The attemptId of a worker-scoped mutation must be the worker's current, open attempt
    (A-14, A-15). Raises without changing anything otherwise.

    An expired lease alone fences nothing: it makes the worker claimable (`is_stale`), and only
    a reclaim supersedes the attempt ("so stale processes cannot corrupt a *reclaimed* worker").
    A slow worker that nobody reclaimed still reports, and its next accepted mutation renews the
    lease."""
    attempt = store.attempts.get(attempt_id)
    if attempt is None or attempt.worker_id != worker.id:
        raise Refusal(
            409,
            "foreign_attempt",
            f"attempt {attempt_id!r} is not an attempt of worker {worker.id!r}",
            attemptId=attempt_id,
            workerId=worker.id,
        )
    if attempt.id != worker.attempt_id or attempt.status in ("superseded", "released"):
        raise Refusal(
            409,
            "stale_attempt",
            f"attempt {attempt.attempt_number} of worker {worker.id!r} is no longer current "
            f"({'released' if attempt.status == 'released' else 'superseded by a reclaim'})",
            attemptId=attempt_id,
            reason="released" if attempt.status == "released" else "superseded",
            currentAttemptNumber=worker.attempt_number,
        )
    if attempt.status in CLOSED:
        raise Refusal(
            409,
            "attempt_closed",
            f"attempt {attempt.attempt_number} of worker {worker.id!r} is {attempt.status}",
            attemptId=attempt_id,
            attemptStatus=attempt.status,
        )
    return attempt


def finishing_fence(store: Store, worker: Worker, attempt_id: str) -> Attempt:
    """The fence for what a worker sends as it finishes, after closing its attempt: the attempt
    must be the worker's current one, as `fence` asks, but it may be closed (completed or
    failed). @benchsdk/worker completes or fails its worker and then, in its `finally`, uploads
    `worker.log` and `metrics.jsonl`, and its heartbeat timer can fire once more; the reference
    says both artifacts "ship this way at finish". A superseded, released or foreign attempt is
    refused as `fence` refuses it."""
    attempt = store.attempts.get(attempt_id)
    own = attempt is not None and attempt.worker_id == worker.id and attempt.id == worker.attempt_id
    if own and attempt.status in CLOSED:
        return attempt
    return fence(store, worker, attempt_id)


def touch(attempt: Attempt, now: datetime) -> None:
    """Renew the lease: every accepted worker-scoped mutation is proof of life."""
    attempt.last_seen_at = now


# ---- heartbeat ------------------------------------------------------------------------------


def check_heartbeat_limits(body: dict[str, Any], limits: dict[str, Any]) -> None:
    """≤ maxConcurrencySamples samples, step names unique (A-10)."""
    samples = body.get("concurrency") or []
    cap = int(limits["maxConcurrencySamples"])
    if len(samples) > cap:
        raise Refusal(
            400,
            "too_many_concurrency_samples",
            f"a heartbeat carries at most {cap} concurrency samples; this one has {len(samples)}",
            limit="maxConcurrencySamples",
            max=cap,
            actual=len(samples),
        )
    if limits.get("uniqueConcurrencySteps"):
        seen: set[str] = set()
        for sample in samples:
            if sample["step"] in seen:
                raise Refusal(
                    400,
                    "duplicate_concurrency_step",
                    f"step {sample['step']!r} appears twice among the concurrency samples",
                    limit="uniqueConcurrencySteps",
                    step=sample["step"],
                )
            seen.add(sample["step"])


PROGRESS_FIELDS = (
    ("progressDone", "progress_done"),
    ("progressInFlight", "progress_in_flight"),
    ("progressErrors", "progress_errors"),
    ("progressTotal", "progress_total"),
)


def set_progress(worker: Worker, body: dict[str, Any]) -> None:
    """The progress counters a heartbeat or an update sends, set on the worker; the ones not sent kept."""
    for key, attr in PROGRESS_FIELDS:
        if body.get(key) is not None:
            setattr(worker, attr, int(body[key]))


def heartbeat(
    store: Store, *, run: Run, worker: Worker, body: dict[str, Any], limits: dict[str, Any], now: datetime
) -> Attempt:
    """Write call 6 (A-47..A-49): progress, current step, concurrency samples → timeline.

    A late heartbeat on the worker's own closed attempt (the runtime's timer firing once after
    `complete`/`fail`) is taken when it reports no regression: its `progressDone` and
    `progressErrors` are not below the worker's, nor `progressDone` above its total. Then only
    those two counters are stored (a closed worker has nothing in flight, no current step, no
    concurrency to sample and no lease to renew); a heartbeat that would lower or overrun them is
    `409 attempt_closed` and changes nothing."""
    attempt = finishing_fence(store, worker, body["attemptId"])
    check_heartbeat_limits(body, limits)
    if attempt.status in CLOSED:
        late_heartbeat(worker, attempt, body)
        return attempt
    set_progress(worker, body)
    if "currentStep" in body:
        worker.current_step = body["currentStep"]
    samples = body.get("concurrency")
    seq = store.heartbeat_counts.get(run.id, 0) + 1
    store.heartbeat_counts[run.id] = seq
    if samples is not None:
        worker.concurrency = [dict(s) for s in samples]
        points = store.samples.setdefault(run.id, [])
        for sample in samples:
            points.append(
                HeartbeatSample(
                    run_id=run.id,
                    participant_id=worker.participant_id,
                    worker_id=worker.id,
                    attempt_id=attempt.id,
                    heartbeat_seq=seq,
                    recorded_at=now,
                    step=sample["step"],
                    active=int(sample["active"]),
                    target=int(sample["target"]),
                )
            )
    worker.last_heartbeat_at = now
    worker.updated_at = now
    touch(attempt, now)
    return attempt


def late_heartbeat(worker: Worker, attempt: Attempt, body: dict[str, Any]) -> None:
    done = body.get("progressDone")
    errors = body.get("progressErrors")
    regressed = (done is not None and not worker.progress_done <= int(done) <= worker.progress_total) or (
        errors is not None and int(errors) < worker.progress_errors
    )
    if regressed:
        raise Refusal(
            409,
            "attempt_closed",
            f"attempt {attempt.attempt_number} of worker {worker.id!r} is {attempt.status}: a late heartbeat "
            f"may not lower or overrun its progress (done {worker.progress_done} of {worker.progress_total}, "
            f"errors {worker.progress_errors})",
            attemptId=attempt.id,
            attemptStatus=attempt.status,
        )
    if done is not None:
        worker.progress_done = int(done)
    if errors is not None:
        worker.progress_errors = int(errors)


# ---- close ----------------------------------------------------------------------------------


def close_worker(
    store: Store, *, run: Run, worker: Worker, body: dict[str, Any], outcome: str, now: datetime
) -> Attempt:
    """Write call 9 (A-69..A-72): complete | fail | release. Repeating the same close with the
    same attempt answers it again; any other mutation on a closed attempt is refused."""
    target = {"complete": "completed", "fail": "failed", "release": "released"}[outcome]
    attempt = store.attempts.get(body["attemptId"])
    if (
        attempt is not None
        and attempt.worker_id == worker.id
        and attempt.id == worker.attempt_id
        and attempt.status == target
    ):
        return attempt
    attempt = fence(store, worker, body["attemptId"])
    attempt.status = target
    attempt.closed_at = now
    if outcome == "release":
        worker.status = "pending"
        worker.process_kind = worker.process_key = None
        worker.progress_in_flight = 0
        worker.current_step = None
    else:
        worker.status = target
        worker.progress_in_flight = 0
        if outcome == "fail":
            worker.error_code = body.get("errorCode")
            worker.error_message = body.get("errorMessage")
    worker.updated_at = now
    refresh_statuses(store, run, now)
    return attempt


# ---- the owner's override (not in the reference) ---------------------------------------------


def update_worker(store: Store, *, run: Run, worker: Worker, body: dict[str, Any], now: datetime) -> Worker:
    """`PATCH …/workers/{workerId}`, which `@benchsdk/api`'s `updateWorker` sends and the reference
    does not document: the fields sent are set, the rest kept; not fenced (no attemptId is sent).
    A status acts on the current attempt as the lifecycle calls would: completed/failed close a
    running attempt with that status, pending releases it; running only marks the worker."""
    set_progress(worker, body)
    status = body.get("status")
    if status is not None and status != worker.status:
        attempt = store.attempts.get(worker.attempt_id or "")
        if attempt is not None and attempt.status == "running" and status != "running":
            attempt.status = "released" if status == "pending" else status
            attempt.closed_at = now
        worker.status = status
        if status != "running":
            worker.progress_in_flight = 0
            worker.current_step = None
        if status == "pending":
            worker.process_kind = worker.process_key = None
    worker.updated_at = now
    refresh_statuses(store, run, now)
    return worker

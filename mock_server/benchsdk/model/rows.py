"""Typed rows of the benchsdk platform: benchmark → run → participant → worker → attempt,
plus event batches, task records, heartbeat samples, artifacts, organizations and tokens."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(slots=True, kw_only=True)
class Org:
    id: str
    slug: str
    name: str
    # benchmark ids whose runs this org sees in the cross-benchmark feed (the "Daily" feed)
    subscriptions: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class Token:
    id: str
    token: str
    kind: str  # "api_key" | "oauth"
    org_id: str  # the key's org; for OAuth, the one org the token's user belongs to
    created_at: datetime


@dataclass(slots=True, kw_only=True)
class Benchmark:
    id: str
    slug: str
    name: str
    status: str
    config: dict[str, Any]
    default_run_config: dict[str, Any] | None
    owner_org_id: str
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True, kw_only=True)
class Run:
    id: str
    benchmark_id: str
    org_id: str
    name: str | None
    status: str  # planned | in_progress | completed | failed
    status_forced: bool
    run_key: str | None
    total_tasks: int
    participant_sized: bool
    worker_count: int
    config: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    summary: dict[str, Any] | None = None
    # (summary, its client form): a summary is replaced whole, never changed in place (`submit_summary`)
    summary_read: tuple[Any, Any] = field(default=(None, None), repr=False, compare=False)


@dataclass(slots=True, kw_only=True)
class Participant:
    id: str
    benchmark_id: str
    run_id: str
    slug: str
    label: str | None
    provider: str | None
    status: str
    status_forced: bool
    total_tasks: int
    worker_count: int
    config: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True, kw_only=True)
class Worker:
    id: str
    benchmark_id: str
    run_id: str
    participant_id: str
    worker_index: int
    worker_count: int
    task_index_start: int  # the planned range; served clipped to the participant's extent
    task_index_end: int
    target_concurrency: int
    status: str  # pending | running | completed | failed
    config: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    attempt_id: str | None = None  # the current (latest) attempt
    attempt_number: int = 0
    process_kind: str | None = None
    process_key: str | None = None
    progress_done: int = 0
    progress_in_flight: int = 0
    progress_errors: int = 0
    progress_total: int = 0
    current_step: str | None = None
    concurrency: list[dict[str, Any]] = field(default_factory=list)
    last_heartbeat_at: datetime | None = None
    error_code: str | None = None
    error_message: str | None = None


@dataclass(slots=True, kw_only=True)
class Attempt:
    id: str
    worker_id: str
    run_id: str
    attempt_number: int
    status: str  # running | completed | failed | released | superseded
    process_kind: str | None
    process_key: str | None
    claimed_at: datetime
    last_seen_at: datetime
    closed_at: datetime | None = None
    final_received: bool = False
    max_sequence: int | None = None
    batches_by_sequence: dict[int, str] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class EventBatch:
    id: str
    run_id: str
    worker_id: str
    attempt_id: str
    attempt_number: int
    participant_id: str
    sequence: int  # acceptance order within the store
    batch_type: str
    sequence_number: int
    is_final: bool
    records: list[dict[str, Any]]
    object_key: str
    created_at: datetime
    import_due_at: datetime
    import_error: str | None  # decided at acceptance, revealed when the import runs
    batch_status: str = "queued"  # queued | persisted | failed
    import_status: str = "pending"  # pending | imported | failed
    import_attempts: int = 0
    persisted_at: datetime | None = None
    imported_at: datetime | None = None
    failed_at: datetime | None = None


@dataclass(slots=True, kw_only=True)
class HeartbeatSample:
    run_id: str
    participant_id: str
    worker_id: str
    attempt_id: str
    heartbeat_seq: int
    recorded_at: datetime
    step: str
    active: int
    target: int


@dataclass(slots=True, kw_only=True)
class Artifact:
    id: str
    benchmark_id: str
    run_id: str
    worker_id: str
    participant_id: str
    attempt_id: str
    kind: str
    content_type: str | None  # None until the upload, when the announcement declared none
    name: str | None
    metadata: dict[str, Any]
    object_key: str
    created_at: datetime
    upload_expires_at: datetime
    status: str = "pending_upload"  # pending_upload | uploaded
    data: bytes | None = None
    uploaded_at: datetime | None = None

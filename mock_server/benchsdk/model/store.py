"""The typed state of one benchsdk platform: its tables and the settings read from the spec."""

from __future__ import annotations

import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime

from mock_server.state.ids import uuid4

from .rows import Artifact, Attempt, Benchmark, EventBatch, HeartbeatSample, Org, Participant, Run, Token, Worker

_SEED_NAMESPACE = uuid.UUID("6f2c7d0e-4b1a-5e8f-9c3d-2a1b0c9d8e7f")


@dataclass(slots=True, kw_only=True)
class Timing:
    """Simulated-time constants (the spec's root `x-timing`)."""

    lease_seconds: int = 90
    import_delay_seconds: int = 5
    upload_url_ttl_seconds: int = 900
    download_url_ttl_seconds: int = 900

    @classmethod
    def from_spec(cls, data: dict) -> Timing:
        return cls(
            lease_seconds=int(data["leaseSeconds"]),
            import_delay_seconds=int(data["importDelaySeconds"]),
            upload_url_ttl_seconds=int(data["uploadUrlTtlSeconds"]),
            download_url_ttl_seconds=int(data["downloadUrlTtlSeconds"]),
        )


class IdSource:
    """Opaque UUID ids. While seeding, ids are derived from a counter (the same on every start);
    afterwards they are random."""

    def __init__(self) -> None:
        self._seeding = False
        self._counter = 0

    def seeding(self, on: bool) -> None:
        self._seeding = on

    def new(self) -> str:
        if self._seeding:
            self._counter += 1
            return str(uuid.uuid5(_SEED_NAMESPACE, f"seed-{self._counter}"))
        return uuid4()


@dataclass(kw_only=True)
class Store:
    timing: Timing = field(default_factory=Timing)
    signing_key: bytes = b"benchsdk-mock-object-store-signing-key"
    ids: IdSource = field(default_factory=IdSource)
    orgs: dict[str, Org] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)  # by token string
    benchmarks: dict[str, Benchmark] = field(default_factory=dict)  # by id
    benchmark_by_slug: dict[str, str] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)
    run_keys: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (org, benchmark, runKey) → run
    participants: dict[str, Participant] = field(default_factory=dict)
    workers: dict[str, Worker] = field(default_factory=dict)
    attempts: dict[str, Attempt] = field(default_factory=dict)
    batches: dict[str, EventBatch] = field(default_factory=dict)
    import_queue: deque[str] = field(default_factory=deque)  # queued batch ids, in due order
    samples: dict[str, list[HeartbeatSample]] = field(default_factory=dict)  # by run id
    heartbeat_counts: dict[str, int] = field(default_factory=dict)  # by run id
    artifacts: dict[str, Artifact] = field(default_factory=dict)
    artifact_by_key: dict[str, str] = field(default_factory=dict)
    batch_counter: int = 0
    default_org_id: str | None = None  # the organization a minted token belongs to by default (the seeded one)

    # ---- lookups -------------------------------------------------------------------------
    def org_by_slug(self, slug: str) -> Org | None:
        for org in self.orgs.values():
            if org.slug == slug:
                return org
        return None

    def benchmark(self, slug: str) -> Benchmark | None:
        bid = self.benchmark_by_slug.get(slug)
        return self.benchmarks[bid] if bid else None

    def run_participants(self, run_id: str) -> list[Participant]:
        return [p for p in self.participants.values() if p.run_id == run_id]

    def participant(self, run_id: str, slug: str) -> Participant | None:
        for p in self.participants.values():
            if p.run_id == run_id and p.slug == slug:
                return p
        return None

    def participant_workers(self, participant_id: str) -> list[Worker]:
        return sorted(
            (w for w in self.workers.values() if w.participant_id == participant_id), key=lambda w: w.worker_index
        )

    def run_workers(self, run_id: str) -> list[Worker]:
        return [w for w in self.workers.values() if w.run_id == run_id]

    def run_batches(self, run_id: str) -> list[EventBatch]:
        return [b for b in self.batches.values() if b.run_id == run_id]

    def run_artifacts(self, run_id: str) -> list[Artifact]:
        return [a for a in self.artifacts.values() if a.run_id == run_id]


def utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)

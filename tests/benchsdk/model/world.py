"""A small world for model tests: a store, an org, a benchmark, and helpers to drive a run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from mock_server.benchsdk.model import catalog, events, workers
from mock_server.benchsdk.model.store import Store

T0 = datetime(2026, 4, 20, 10, 0, 0, tzinfo=UTC)
LIMITS_EVENTS = {"maxRecords": 5000, "maxStepsPerRecord": 100, "minRecords": 1}
LIMITS_HEARTBEAT = {"maxConcurrencySamples": 20, "uniqueConcurrencySteps": True}


class World:
    def __init__(self) -> None:
        self.store = Store()
        self.now = T0
        self.org = catalog.create_org(self.store, slug="acme", name="Acme")
        self.bench = catalog.upsert_benchmark(
            self.store, org=self.org, slug="sandbox-tti", body={"name": "Sandbox TTI"}, now=self.now
        )

    def tick(self, seconds: float) -> datetime:
        self.now = self.now + timedelta(seconds=seconds)
        return self.now

    def run(self, **body: Any):
        run, _ = catalog.create_run(self.store, org=self.org, bench=self.bench, body=body, now=self.now)
        return run

    def planned(self, run, slug: str, *, workers_: int = 1, per_worker: int = 3):
        part = catalog.require_participant(self.store, run, slug)
        return workers.plan_workers(
            self.store,
            run=run,
            part=part,
            body={"workerCount": workers_, "targetConcurrency": per_worker},
            now=self.now,
        )

    def claim(self, run, slug: str):
        part = catalog.require_participant(self.store, run, slug)
        return workers.claim_worker(
            self.store, run=run, part=part, process_kind="process", process_key="k", now=self.now
        )

    def batch(self, run, worker, attempt_id: str, seq: int, records: list[dict], *, final: bool = False):
        body = {
            "type": "task_results",
            "attemptId": attempt_id,
            "sequenceNumber": seq,
            "isFinal": final,
            "records": records,
        }
        return events.accept_batch(self.store, run=run, worker=worker, body=body, limits=LIMITS_EVENTS, now=self.now)


def record(
    index: int,
    *,
    status: str = "success",
    latency: float = 100.0,
    steps: list[dict] | None = None,
    start: datetime = T0,
    **extra: Any,
) -> dict[str, Any]:
    started = start + timedelta(seconds=index)
    done = started + timedelta(milliseconds=latency)
    rec = {
        "taskIndex": index,
        "status": status,
        "latencyMs": latency,
        "startedAt": started.strftime("%Y-%m-%dT%H:%M:%S.") + f"{started.microsecond // 1000:03d}Z",
        "completedAt": done.strftime("%Y-%m-%dT%H:%M:%S.") + f"{done.microsecond // 1000:03d}Z",
        "data": {},
        "steps": steps if steps is not None else [{"name": "task", "status": status, "latencyMs": latency}],
    }
    rec.update(extra)
    return rec

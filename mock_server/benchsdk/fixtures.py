"""Seed data: the same on every start and after every reset (fixed ids, fixed times).

- Organization `acme` with the API key `SEED_API_KEY` and the OAuth token `SEED_OAUTH_TOKEN`.
- Benchmark `sandbox-tti` (owned by `acme`) with one finished, multi-participant, phased run
  (`SEED_RUN_KEY`): participants `e2b` (two workers, one of them reclaimed after its lease
  expired) and `modal` (one worker that failed), cold/warm phases, dimensions, error records,
  a batch whose import failed, heartbeat concurrency samples, worker logs (plain and gzip),
  NDJSON system metrics, and a submitted summary.
- Organization `computesdk` owning benchmark `daily` with one run; `acme` subscribes to it, so
  it appears in `acme`'s cross-benchmark run list (the Daily feed).

Everything is built through the model's own rules, so the seeded state is state the API
could have reached.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from .model import artifacts, catalog, events, workers
from .model.store import Store, Timing

SEED_API_KEY = "bp_mock_acme_0000000000000000000000000000"
SEED_OAUTH_TOKEN = "bpo_mock_acme_oauth_000000000000000000000"
SEED_ORG_SLUG = "acme"
SEED_BENCHMARK = "sandbox-tti"
SEED_RUN_KEY = "seed-run-1"
FEED_ORG_SLUG = "computesdk"
FEED_BENCHMARK = "daily"
SEED_T0 = datetime(2026, 4, 20, 10, 0, 0, tzinfo=UTC)

SCORING = {
    "metrics": [{"name": "ttiMs", "unit": "ms", "weight": 1, "direction": "lower"}],
    "groupBy": "phase",
}
DISPLAY = {"metrics": {"ttiMs": {"label": "Time to interactive", "unit": "ms"}}, "steps": {"create": "Create"}}


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _record(
    index: int, phase: str, start: datetime, create_ms: int, exec_ms: int, *, error: str | None = None
) -> dict[str, Any]:
    mid = start + timedelta(milliseconds=create_ms)
    end = mid + timedelta(milliseconds=exec_ms)
    steps = [
        {
            "name": "create",
            "status": "success",
            "startedAt": _ts(start),
            "completedAt": _ts(mid),
            "latencyMs": create_ms,
            "data": {"createMs": create_ms},
            "concurrency": 1,
            "timeoutMs": 120000,
        },
        {
            "name": "exec",
            "status": "error" if error else "success",
            "startedAt": _ts(mid),
            "completedAt": _ts(end),
            "latencyMs": exec_ms,
            "data": {},
            "concurrency": 1,
            "timeoutMs": 120000,
            **({"errorCode": error} if error else {}),
        },
    ]
    rec: dict[str, Any] = {
        "taskIndex": index,
        "status": "error" if error else "success",
        "startedAt": _ts(start),
        "completedAt": _ts(end),
        "latencyMs": create_ms + exec_ms,
        "data": {"phase": phase, **({} if error else {"ttiMs": create_ms + exec_ms - 90})},
        "steps": steps,
    }
    if error:
        rec["errorCode"] = error
    return rec


def build_store(timing: Timing, event_limits: dict[str, Any], heartbeat_limits: dict[str, Any]) -> Store:
    store = Store(timing=timing)
    store.ids.seeding(True)
    try:
        _seed(store, event_limits, heartbeat_limits)
    finally:
        store.ids.seeding(False)
    return store


def _seed(store: Store, event_limits: dict[str, Any], heartbeat_limits: dict[str, Any]) -> None:
    t = SEED_T0
    acme = catalog.create_org(store, slug=SEED_ORG_SLUG, name="Acme Benchmarks")
    store.default_org_id = acme.id
    catalog.mint_token(store, org=acme, kind="api_key", now=t, token=SEED_API_KEY)
    catalog.mint_token(store, org=acme, kind="oauth", now=t, token=SEED_OAUTH_TOKEN)
    bench = catalog.upsert_benchmark(
        store,
        org=acme,
        slug=SEED_BENCHMARK,
        body={
            "name": "Sandbox TTI (Burst)",
            "config": {"scoring": SCORING, "display": DISPLAY},
        },
        now=t,
    )
    config = {
        "benchmarkSlug": SEED_BENCHMARK,
        "name": "Sandbox TTI (Burst)",
        "phases": [{"name": "cold", "iterations": 2}, {"name": "warm", "iterations": 2}],
        "concurrency": 1,
        "staggerDelayMs": 0,
        "groupBy": "participant",
        "dimensions": {"region": "us-east-1"},
        "scoring": SCORING,
        "participants": ["e2b", "modal"],
        "trigger": {"source": "schedule", "event": "schedule"},
    }
    run, _ = catalog.create_run(
        store,
        org=acme,
        bench=bench,
        body={
            "runKey": SEED_RUN_KEY,
            "totalTasks": 8,
            "workerCount": 3,
            "participants": ["e2b", "modal"],
            "config": config,
        },
        now=t,
    )
    e2b = catalog.require_participant(store, run, "e2b")
    modal = catalog.require_participant(store, run, "modal")
    workers.plan_workers(store, run=run, part=e2b, body={"workerCount": 2, "targetConcurrency": 2}, now=t)
    workers.plan_workers(store, run=run, part=modal, body={"workerCount": 1, "targetConcurrency": 4}, now=t)

    def claim(part, at):
        return workers.claim_worker(
            store, run=run, part=part, process_kind="process", process_key="ci-runner-01", now=at
        )

    def beat(w, a, at, done, step, active, errors=0):
        workers.heartbeat(
            store,
            run=run,
            worker=w,
            body={
                "attemptId": a.id,
                "progressDone": done,
                "progressInFlight": 0 if done else 1,
                "progressErrors": errors,
                "progressTotal": w.task_index_end - w.task_index_start + 1,
                "currentStep": step,
                "concurrency": [{"step": "create", "active": active, "target": 1}],
            },
            limits=heartbeat_limits,
            now=at,
        )

    def send(w, a, seq, recs, at, final=False):
        events.accept_batch(
            store,
            run=run,
            worker=w,
            body={
                "type": "task_results",
                "attemptId": a.id,
                "sequenceNumber": seq,
                "isFinal": final,
                "records": recs,
            },
            limits=event_limits,
            now=at,
        )

    def attach(w, a, at, kind, name, content_type, data, scope=None):
        meta: dict[str, Any] = {} if scope is None else {"scope": scope, "participants": ["e2b", "modal"]}
        art = artifacts.announce(
            store,
            run=run,
            worker=w,
            body={
                "attemptId": a.id,
                "kind": kind,
                "contentType": content_type,
                "name": name,
                "metadata": meta,
            },
            now=at,
        )
        url_exp = int(art.upload_expires_at.timestamp())
        artifacts.upload(
            store,
            key=art.object_key,
            exp=str(url_exp),
            sig=artifacts.sign(store, "PUT", art.object_key, url_exp),
            content_type=content_type,
            data=data,
            now=at,
        )

    def close(w, a, outcome, at, **extra):
        workers.close_worker(store, run=run, worker=w, body={"attemptId": a.id, **extra}, outcome=outcome, now=at)

    # e2b worker 0: tasks 0–1 (cold), one clean attempt
    w0, a0 = claim(e2b, t + timedelta(seconds=1))
    beat(w0, a0, t + timedelta(seconds=2), 0, "create", 1)
    recs0 = [
        _record(0, "cold", t + timedelta(seconds=2), 1800, 600),
        _record(1, "cold", t + timedelta(seconds=5), 1750, 640),
    ]
    beat(w0, a0, t + timedelta(seconds=8), 2, "exec.task", 0)
    send(w0, a0, 0, recs0, t + timedelta(seconds=9), final=True)
    log0 = "".join(f"2026-04-20T10:00:0{i}.000Z info task {i} done\n" for i in range(2)).encode()
    attach(w0, a0, t + timedelta(seconds=10), "coordinator.log", "worker.log", "text/plain", log0)
    metrics = "".join(json.dumps({"t": i, "cpu": 0.25 * i, "rssMb": 120 + i}) + "\n" for i in range(3)).encode()
    attach(w0, a0, t + timedelta(seconds=10), "system-metrics", "metrics.jsonl", "application/x-ndjson", metrics)
    close(w0, a0, "complete", t + timedelta(seconds=11))

    # e2b worker 1: tasks 2–3 (warm); the first attempt reports an error then goes silent,
    # its lease expires and a second process reclaims the worker and redoes the range
    w1, a1 = claim(e2b, t + timedelta(seconds=1))
    beat(w1, a1, t + timedelta(seconds=3), 0, "create", 1)
    send(
        w1,
        a1,
        0,
        [_record(2, "warm", t + timedelta(seconds=3), 900, 200, error="SANDBOX_CRASHED")],
        t + timedelta(seconds=5),
    )
    reclaim_at = t + timedelta(seconds=5 + store.timing.lease_seconds)
    w1b, a1b = claim(e2b, reclaim_at)
    assert w1b is w1 and a1b.attempt_number == 2
    recs1 = [_record(2, "warm", reclaim_at, 700, 300), _record(3, "warm", reclaim_at + timedelta(seconds=2), 650, 310)]
    beat(w1, a1b, reclaim_at + timedelta(seconds=1), 1, "exec.task", 1)
    beat(w1, a1b, reclaim_at + timedelta(seconds=3), 2, "exec.task", 0)
    send(w1, a1b, 0, recs1, reclaim_at + timedelta(seconds=4), final=True)
    attach(
        w1,
        a1b,
        reclaim_at + timedelta(seconds=5),
        "coordinator.log",
        "worker.log",
        "text/plain",
        b"warm task 2 done\nwarm task 3 done\n",
    )
    close(w1, a1b, "complete", reclaim_at + timedelta(seconds=6))

    # modal worker: tasks 0–3 (cold, cold, warm, warm); task 2 times out; one batch carries a
    # record the import refuses (completedAt before startedAt), resent corrected later
    m, am = claim(modal, t + timedelta(seconds=1))
    beat(m, am, t + timedelta(seconds=2), 0, "create", 1)
    send(
        m,
        am,
        0,
        [
            _record(0, "cold", t + timedelta(seconds=2), 2100, 700),
            _record(1, "cold", t + timedelta(seconds=6), 2050, 720),
        ],
        t + timedelta(seconds=9),
    )
    bad = _record(2, "warm", t + timedelta(seconds=10), 1000, 0, error="SANDBOX_TIMEOUT")
    bad["startedAt"], bad["completedAt"] = bad["completedAt"], _ts(t + timedelta(seconds=9))
    send(m, am, 1, [bad], t + timedelta(seconds=11))
    beat(m, am, t + timedelta(seconds=12), 2, "exec.task", 1)
    beat(m, am, t + timedelta(seconds=70), 2, "exec.task", 1)
    send(
        m,
        am,
        2,
        [
            _record(2, "warm", t + timedelta(seconds=10), 1000, 120000, error="SANDBOX_TIMEOUT"),
            _record(3, "warm", t + timedelta(seconds=131), 1100, 500),
        ],
        t + timedelta(seconds=133),
        final=True,
    )
    beat(m, am, t + timedelta(seconds=134), 4, "exec.task", 0, errors=1)
    attach(
        m,
        am,
        t + timedelta(seconds=135),
        "coordinator.log",
        "worker.log.gz",
        "application/gzip",
        gzip.compress(b"modal task 0 done\nmodal task 1 done\nmodal task 2 timed out\nmodal task 3 done\n", mtime=0),
    )
    close(m, am, "fail", t + timedelta(seconds=136), errorCode="TASK_ERRORS", errorMessage="1 of 4 tasks failed")

    finished = t + timedelta(seconds=200)
    catalog.submit_summary(
        store,
        run=run,
        body={
            "run": {
                "gitSha": "0123456789abcdef0123456789abcdef01234567",
                "gitRef": "main",
                "triggeredBy": "schedule",
                "nodeVersion": "v24.0.0",
                "platform": "linux",
                "arch": "x64",
            },
            "results": [
                {
                    "provider": "e2b",
                    "dimensions": {"region": "us-east-1", "phase": "cold"},
                    "metrics": [{"name": "ttiMs", "unit": "ms", "median": 2355, "p95": 2390, "p99": 2390}],
                    "compositeScore": 81.5,
                    "successRate": 1.0,
                    "skipped": False,
                },
                {
                    "provider": "e2b",
                    "dimensions": {"region": "us-east-1", "phase": "warm"},
                    "metrics": [{"name": "ttiMs", "unit": "ms", "median": 910, "p95": 910, "p99": 910}],
                    "compositeScore": 92.0,
                    "successRate": 1.0,
                    "skipped": False,
                },
                {
                    "provider": "modal",
                    "dimensions": {"region": "us-east-1", "phase": "cold"},
                    "metrics": [{"name": "ttiMs", "unit": "ms", "median": 2710, "p95": 2730, "p99": 2730}],
                    "compositeScore": 70.25,
                    "successRate": 1.0,
                    "skipped": False,
                },
                {
                    "provider": "modal",
                    "dimensions": {"region": "us-east-1", "phase": "warm"},
                    "metrics": [{"name": "ttiMs", "unit": "ms", "median": 1510, "p95": 1510, "p99": 1510}],
                    "compositeScore": 38.0,
                    "successRate": 0.5,
                    "skipped": False,
                },
            ],
            "scoring": SCORING,
        },
        now=finished,
    )
    events.advance_imports(store, finished)

    # the Daily feed: another organization's benchmark acme subscribes to
    feed_org = catalog.create_org(store, slug=FEED_ORG_SLUG, name="ComputeSDK")
    feed = catalog.upsert_benchmark(
        store,
        org=feed_org,
        slug=FEED_BENCHMARK,
        body={
            "name": "Daily sandbox benchmark",
            "config": {"scoring": SCORING, "display": DISPLAY},
        },
        now=t - timedelta(days=1),
    )
    daily, _ = catalog.create_run(
        store,
        org=feed_org,
        bench=feed,
        body={
            "totalTasks": 2,
            "participants": ["e2b"],
            "config": {"benchmarkSlug": FEED_BENCHMARK, "iterations": 2, "groupBy": "participant"},
        },
        now=t - timedelta(hours=12),
    )
    acme.subscriptions.append(feed.id)
    (dw,) = workers.plan_workers(
        store,
        run=daily,
        part=catalog.require_participant(store, daily, "e2b"),
        body={"workerCount": 1, "targetConcurrency": 2},
        now=t - timedelta(hours=12),
    )
    _, da = workers.claim_worker(
        store,
        run=daily,
        part=catalog.require_participant(store, daily, "e2b"),
        process_kind="process",
        process_key="daily",
        now=t - timedelta(hours=12),
    )
    events.accept_batch(
        store,
        run=daily,
        worker=dw,
        body={
            "type": "task_results",
            "attemptId": da.id,
            "sequenceNumber": 0,
            "isFinal": True,
            "records": [
                _record(0, "cold", t - timedelta(hours=12), 1500, 500),
                _record(1, "cold", t - timedelta(hours=12) + timedelta(seconds=3), 1400, 450),
            ],
        },
        limits=event_limits,
        now=t - timedelta(hours=12),
    )
    workers.close_worker(
        store,
        run=daily,
        worker=dw,
        body={"attemptId": da.id},
        outcome="complete",
        now=t - timedelta(hours=12) + timedelta(seconds=10),
    )
    events.advance_imports(store, finished)

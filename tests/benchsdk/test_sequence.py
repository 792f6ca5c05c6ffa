"""The reference's "Sequence — one bench run end to end", replayed call for call in
`groupBy: 'participant'` and `'round'` modes and as `--run-key` siblings; then every read
endpoint is read and its figures checked against what was sent (A.4, "Whole lifecycle"), and
every read the published client makes is read field by field as its types declare it
(`sequence_reads.py`, `client_types.json`)."""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from .client import Platform, enc
from .sequence_reads import Expected, check_every_client_field

SLUG = "sandbox-e2e"
PROVIDERS = ["e2b", "modal"]
PHASES = [{"name": "cold", "iterations": 1}, {"name": "warm", "iterations": 2}]
ITERATIONS = sum(p["iterations"] for p in PHASES)  # per participant
FAILING = ("modal", 1)  # (participant, taskIndex) whose exec step times out
T0 = datetime(2026, 4, 22, 9, 0, tzinfo=UTC)
SCORING = {"metrics": [{"name": "ttiMs", "unit": "ms", "weight": 1}], "groupBy": "phase"}
BENCH_CONFIG = {"scoring": SCORING, "display": {}}


def ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def phase_of(index: int) -> str:
    return "cold" if index < PHASES[0]["iterations"] else "warm"


def make_record(provider: str, index: int) -> dict:
    """One task as the worker writes it: steps create + exec, phase tag, measure() data."""
    base = 1000 + 100 * PROVIDERS.index(provider)
    create_ms, exec_ms = base + 37 * index, 200 + 11 * index
    failed = (provider, index) == FAILING
    start = T0 + timedelta(seconds=10 * index + PROVIDERS.index(provider))
    mid, end = start + timedelta(milliseconds=create_ms), start + timedelta(milliseconds=create_ms + exec_ms)
    rec = {
        "taskIndex": index,
        "status": "error" if failed else "success",
        "startedAt": ts(start),
        "completedAt": ts(end),
        "latencyMs": create_ms + exec_ms,
        "data": {"phase": phase_of(index), **({} if failed else {"ttiMs": create_ms + exec_ms - 50})},
        "steps": [
            {
                "name": "create",
                "status": "success",
                "startedAt": ts(start),
                "completedAt": ts(mid),
                "latencyMs": create_ms,
                "data": {"createMs": create_ms},
                "concurrency": 1,
                "timeoutMs": 120000,
            },
            {
                "name": "exec",
                "status": "error" if failed else "success",
                "startedAt": ts(mid),
                "completedAt": ts(end),
                "latencyMs": exec_ms,
                "data": {},
                "concurrency": 1,
                "timeoutMs": 120000,
                **({"errorCode": "SANDBOX_TIMEOUT"} if failed else {}),
            },
        ],
    }
    if failed:
        rec["errorCode"] = "SANDBOX_TIMEOUT"
    return rec


def nearest_rank(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]


@dataclass
class Sent:
    """Everything the runner sent (and the ids and keys the write answers gave it), to check the
    reads against."""

    run_id: str = ""
    t0: str = ""  # the mock's clock during the writes (they do not move it)
    benchmark: dict = field(default_factory=dict)  # the upsert's answer
    run: dict = field(default_factory=dict)  # the create's answer
    assignments: dict[str, dict] = field(default_factory=dict)
    per_worker: dict[str, int] = field(default_factory=dict)  # targetConcurrency planned, by provider
    records: dict[str, list[dict]] = field(default_factory=dict)
    batches: int = 0
    batch_answers: list[tuple[str, int, int, dict]] = field(default_factory=list)  # (provider, seq, records, answer)
    heartbeats: int = 0
    samples: int = 0
    sample_log: list[tuple[str, dict]] = field(default_factory=list)  # (provider, sample), in sending order
    last_beat: dict[str, dict] = field(default_factory=dict)  # provider → the last heartbeat body
    logs: dict[str, list[str]] = field(default_factory=dict)
    uploads: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # artifactId → (content type, bytes)
    announced: dict[str, tuple[str, dict, dict]] = field(default_factory=dict)  # artifactId → (provider, body, answer)


def started(p: Platform) -> Sent:
    """A new record of what is sent, at the mock's current time (the writes do not move the clock)."""
    now = p.client.post("/__mock/clock", json={"advance_seconds": 0}).json()["now"]
    return Sent(t0=ts(datetime.fromisoformat(now)))


def upsert_and_create(
    p: Platform, group_by: str, *, sent: Sent, run_key: str | None = None, providers=PROVIDERS
) -> dict:
    sent.benchmark = p.upsert_benchmark(SLUG, {"name": "Sandbox TTI (e2e)", "config": BENCH_CONFIG})
    config = {
        "benchmarkSlug": SLUG,
        "name": "Sandbox TTI (e2e)",
        "phases": PHASES,
        "concurrency": 1,
        "staggerDelayMs": 0,
        "groupBy": group_by,
        "dimensions": {"region": "us-east-1"},
        "scoring": SCORING,
        "participants": list(providers),
        "trigger": {"source": "schedule", "event": "schedule"},
    }
    if run_key is None:
        body = {
            "totalTasks": ITERATIONS * len(providers),
            "workerCount": len(providers),
            "participants": list(providers),
            "config": config,
        }
    else:
        body = {"runKey": run_key, "workerCount": 1, "config": config}
    created = p.create_run(SLUG, body)
    if not sent.run:  # with a runKey the first creator's body wins
        sent.run_id, sent.run = created["run"]["id"], body
    return created


def beat(p: Platform, sent: Sent, a: dict, done: int, step: str | None, *, errors: int = 0):
    sent.heartbeats += 1
    sample = [{"step": "create", "active": 1 if step == "create" else 0, "target": 1}]
    sent.samples += len(sample)
    sent.sample_log += [(a["participantSlug"], x) for x in sample]
    body = {
        "progressDone": done,
        "progressInFlight": 0 if step is None else 1,
        "progressErrors": errors,
        "progressTotal": ITERATIONS,
        "currentStep": step,
        "concurrency": sample,
    }
    sent.last_beat[a["participantSlug"]] = body
    p.heartbeat(SLUG, sent.run_id, a, **body)


def send(p: Platform, sent: Sent, a: dict, seq: int, records: list[dict], *, final: bool = False) -> None:
    answer = p.events(SLUG, sent.run_id, a, seq, records, final=final).json()
    sent.batches += 1
    sent.batch_answers.append((a["participantSlug"], seq, len(records), answer))


def plan_and_claim(p: Platform, sent: Sent, provider: str, per_worker: int, key: str = "ci-runner-01") -> dict:
    p.plan(SLUG, sent.run_id, provider, 1, per_worker)
    sent.per_worker[provider] = per_worker
    sent.assignments[provider] = p.claim(SLUG, sent.run_id, provider, key=key)
    return sent.assignments[provider]


def finish(p: Platform, sent: Sent, provider: str, a: dict, *, gzip_log: bool, shared_metrics: bool = False):
    """Upload worker.log (+ metrics.jsonl) through the presigned URL, then complete or fail."""
    lines = [f"{provider} task {r['taskIndex']} {r['status']}" for r in sent.records[provider]]
    sent.logs[provider] = lines
    data = ("\n".join(lines) + "\n").encode()
    kind, ctype = "coordinator.log", "text/plain"
    if gzip_log:
        data, ctype = gzip.compress(data, mtime=0), "application/gzip"
    created = p.artifact(SLUG, sent.run_id, a, kind=kind, name="worker.log", content_type=ctype, data=data)
    sent.uploads[created["artifactId"]] = (ctype, data)
    sent.announced[created["artifactId"]] = (provider, {"kind": kind, "name": "worker.log", "metadata": {}}, created)
    if shared_metrics:
        metrics = b"".join(json.dumps({"t": i, "cpu": i / 10}).encode() + b"\n" for i in range(4))
        created = p.artifact(
            SLUG,
            sent.run_id,
            a,
            kind="system-metrics",
            name="metrics.jsonl",
            content_type="application/x-ndjson",
            data=metrics,
            metadata={"scope": "shared-process", "participants": PROVIDERS},
        )
        sent.uploads[created["artifactId"]] = ("application/x-ndjson", metrics)
        body = {"kind": "system-metrics", "name": "metrics.jsonl", "metadata": {"scope": "shared-process"}}
        body["metadata"]["participants"] = PROVIDERS
        sent.announced[created["artifactId"]] = (provider, body, created)
    failed = any(r["status"] != "success" for r in sent.records[provider])
    if failed:
        p.close(SLUG, sent.run_id, a, "fail", errorCode="TASK_ERRORS", errorMessage="a task failed")
    else:
        p.close(SLUG, sent.run_id, a, "complete")


def summary_rows(sent: Sent, providers) -> list[dict]:
    rows = []
    for provider in providers:
        for phase in ("cold", "warm"):
            recs = [r for r in sent.records[provider] if r["data"]["phase"] == phase]
            ok = [r for r in recs if r["status"] == "success"]
            values = [r["data"]["ttiMs"] for r in ok]
            rows.append(
                {
                    "provider": provider,
                    "dimensions": {"region": "us-east-1", "phase": phase},
                    "metrics": [
                        {
                            "name": "ttiMs",
                            "unit": "ms",
                            "median": nearest_rank(values, 50) if values else None,
                            "p95": nearest_rank(values, 95) if values else None,
                            "p99": None,
                        }
                    ],
                    "compositeScore": round(100 * len(ok) / len(recs), 2),
                    "successRate": len(ok) / len(recs),
                    "skipped": False,
                }
            )
    return rows


def run_participant_mode(p: Platform) -> Sent:
    sent = started(p)
    created = upsert_and_create(p, "participant", sent=sent)
    assert [x["slug"] for x in created["participants"]] == PROVIDERS and created["organizationSlug"] == "acme"
    for provider in PROVIDERS:
        a = plan_and_claim(p, sent, provider, ITERATIONS)
        assert a["taskRange"] == {"start": 0, "end": ITERATIONS - 1, "count": ITERATIONS}
        records = []
        for index in range(a["taskRange"]["start"], a["taskRange"]["end"] + 1):
            beat(p, sent, a, index, "create")
            records.append(make_record(provider, index))
        sent.records[provider] = records
        beat(p, sent, a, len(records), None, errors=sum(r["status"] == "error" for r in records))
        send(p, sent, a, 0, records[:2])
        send(p, sent, a, 1, records[2:], final=True)
        finish(p, sent, provider, a, gzip_log=provider == "modal", shared_metrics=True)
    p.summary(
        SLUG,
        sent.run_id,
        {
            "run": {
                "gitSha": "abc",
                "gitRef": "main",
                "triggeredBy": "schedule",
                "nodeVersion": "v24.0.0",
                "platform": "linux",
                "arch": "x64",
            },
            "results": summary_rows(sent, PROVIDERS),
            "scoring": SCORING,
        },
    )
    return sent


def run_round_mode(p: Platform) -> Sent:
    """One BenchmarkReporter per participant, driven by hand, interleaved per round."""
    sent = started(p)
    upsert_and_create(p, "round", sent=sent)
    schedule = ITERATIONS * len(PROVIDERS)
    for provider in PROVIDERS:
        plan_and_claim(p, sent, provider, schedule)  # round mode: the full schedule length
        # the schedule-long plan is clipped to the participant's extent
        assert sent.assignments[provider]["taskRange"] == {"start": 0, "end": ITERATIONS - 1, "count": ITERATIONS}
        sent.records[provider] = []
    for index in range(ITERATIONS):
        for provider in PROVIDERS:
            a = sent.assignments[provider]
            beat(p, sent, a, index, "create")
            sent.records[provider].append(make_record(provider, index))
            beat(p, sent, a, index + 1, None)  # reporter.setProgress() after every task
    for provider in PROVIDERS:
        send(p, sent, sent.assignments[provider], 0, sent.records[provider], final=True)
    for i, provider in enumerate(PROVIDERS):
        finish(p, sent, provider, sent.assignments[provider], gzip_log=False, shared_metrics=i == 0)
    p.summary(
        SLUG, sent.run_id, {"run": {"gitRef": "main"}, "results": summary_rows(sent, PROVIDERS), "scoring": SCORING}
    )
    return sent


def run_siblings(client) -> Sent:
    """`--run-key`: one process per provider, each registering only its own participant."""
    sent = started(Platform(client))
    for provider in PROVIDERS:
        p = Platform(client)
        first = sent.run_id
        created = upsert_and_create(p, "participant", run_key="ci-4242", providers=[provider], sent=sent)
        if first:
            assert created["run"]["id"] == first  # the siblings converge on one run
        assert created["run"]["participantSized"] is True
        p.register(SLUG, sent.run_id, provider, ITERATIONS)
        a = plan_and_claim(p, sent, provider, ITERATIONS, key=f"ci-{provider}")
        sent.records[provider] = [make_record(provider, i) for i in range(ITERATIONS)]
        for i in range(ITERATIONS):
            beat(p, sent, a, i, "create")
        beat(p, sent, a, ITERATIONS, None)
        send(p, sent, a, 0, sent.records[provider][:1])
        send(p, sent, a, 1, sent.records[provider][1:])  # no isFinal: the flush drained early
        finish(p, sent, provider, a, gzip_log=True)
        p.summary(
            SLUG,
            sent.run_id,
            {"run": {"gitRef": "main"}, "results": summary_rows(sent, [provider]), "scoring": SCORING},
        )
    return sent


def check_reads(p: Platform, client, advance, sent: Sent, group_by: str) -> None:
    run_path = f"/benchmarks/{SLUG}/runs/{enc(sent.run_id)}"
    all_records = [r for prov in PROVIDERS for r in sent.records[prov]]

    # imports before the pipeline ran: everything queued
    imports = p.get(run_path + "/results/imports")
    assert len(imports["items"]) == sent.batches
    assert {i["batchStatus"] for i in imports["items"]} == {"queued"}
    assert p.get(run_path + "/results")["overall"]["taskCount"] == 0
    advance(5)
    imports = p.get(run_path + "/results/imports")
    assert {i["batchStatus"] for i in imports["items"]} == {"persisted"}
    assert sum(i["eventCount"] for i in imports["items"]) == len(all_records)
    assert imports["summary"]["status"] == "complete"

    # benchmarks and runs
    assert SLUG in [b["slug"] for b in p.get("/benchmarks")["items"]]
    assert p.get(f"/benchmarks/{SLUG}")["benchmark"]["config"]["scoring"] == SCORING
    assert [r["id"] for r in p.get(f"/benchmarks/{SLUG}/runs")["items"]] == [sent.run_id]
    assert [r["id"] for r in p.get("/benchmarks/runs", benchmarkSlug=SLUG)["items"]] == [sent.run_id]
    run = p.get(run_path)["run"]
    assert run["totalTasks"] == ITERATIONS * len(PROVIDERS)
    assert run["config"]["groupBy"] == group_by and run["config"]["phases"] == PHASES
    assert run["status"] == "failed"  # modal's worker failed
    providers_scored = {(r["provider"], r["dimensions"]["phase"]) for r in run["summary"]["results"]}
    assert providers_scored == {(prov, ph) for prov in PROVIDERS for ph in ("cold", "warm")}
    assert all(0 <= r["compositeScore"] <= 100 for r in run["summary"]["results"])

    # progress
    progress = p.get(run_path + "/progress")
    by = {x["slug"]: x for x in progress["participants"]}
    for prov in PROVIDERS:
        assert by[prov]["tasks"]["done"] == len(sent.records[prov])
        assert by[prov]["totalTasks"] == ITERATIONS
    assert by["e2b"]["workers"]["completed"] == 1 and by["modal"]["workers"]["failed"] == 1
    assert progress["summary"]["participants"] == {
        "planned": 0,
        "inProgress": 0,
        "completed": 1,
        "failed": 1,
        "total": 2,
    }

    # workers
    for prov in PROVIDERS:
        a = sent.assignments[prov]
        items = p.get(f"/benchmarks/{SLUG}/runs/{enc(sent.run_id)}/participants/{prov}/workers")["items"]
        assert [w["id"] for w in items] == [a["workerId"]]
        worker = p.get(p.worker_path(SLUG, sent.run_id, a["workerId"]))["worker"]
        assert worker["progressDone"] == len(sent.records[prov]) and worker["attemptNumber"] == 1
        assert worker["concurrency"] == [{"step": "create", "active": 0, "target": 1}]  # the last sample

    # logs and artifacts, byte for byte
    for prov in PROVIDERS:
        logs = p.get(f"/benchmarks/{SLUG}/runs/{enc(sent.run_id)}/participants/{prov}/logs")
        assert [x["line"] for x in logs["items"]] == sent.logs[prov]
        last = p.get(f"/benchmarks/{SLUG}/runs/{enc(sent.run_id)}/participants/{prov}/logs", maxLines=1)
        assert [x["line"] for x in last["items"]] == sent.logs[prov][-1:] and last["truncated"]
    listed = p.get(run_path + "/artifacts")["items"]
    assert {a["id"] for a in listed} == set(sent.uploads)
    for art in listed:
        per_worker = p.get(p.worker_path(SLUG, sent.run_id, art["workerId"]) + "/artifacts")["items"]
        assert art["id"] in {x["id"] for x in per_worker}
        detail = p.get(p.worker_path(SLUG, sent.run_id, art["workerId"]) + f"/artifacts/{art['id']}")
        body = client.get(detail["downloadUrl"])  # no bearer token
        ctype, data = sent.uploads[art["id"]]
        assert body.status_code == 200 and body.content == data and body.headers["content-type"] == ctype
        assert detail["artifact"]["metadata"]["sizeBytes"] == len(data)
        if ctype == "application/gzip":
            assert gzip.decompress(body.content).decode().splitlines() == sent.logs[art["participantSlug"]]

    # aggregates
    results = p.get(run_path + "/results")
    errors = sum(r["status"] == "error" for r in all_records)
    assert results["overall"]["taskCount"] == len(all_records) and results["overall"]["errorCount"] == errors
    assert results["overall"]["successRate"] == pytest.approx((len(all_records) - errors) / len(all_records))
    for row in results["participants"]:
        lat = [r["latencyMs"] for r in sent.records[row["participantSlug"]]]
        assert row["latencyMs"]["p50"] == nearest_rank(lat, 50)
        assert row["latencyMs"]["p95"] == nearest_rank(lat, 95)
        assert row["latencyMs"]["p99"] == nearest_rank(lat, 99)
        assert row["latencyMs"]["max"] == max(lat) and row["latencyMs"]["min"] == min(lat)
    steps = {(s["participantSlug"], s["stepName"]): s for s in results["steps"]}
    assert set(steps) == {(prov, name) for prov in PROVIDERS for name in ("create", "exec")}
    assert steps[("modal", "exec")]["errorCount"] == 1 and steps[("modal", "create")]["errorCount"] == 0
    create_lat = [r["steps"][0]["latencyMs"] for r in sent.records["e2b"]]
    assert steps[("e2b", "create")]["latencyMs"]["p95"] == nearest_rank(create_lat, 95)
    narrowed = p.get(run_path + "/results", participant="e2b")
    assert narrowed["overall"]["taskCount"] == len(sent.records["e2b"]) and narrowed["overall"]["errorCount"] == 0
    assert {s["participantSlug"] for s in narrowed["steps"]} == {"e2b"}

    # cross-run overview
    overview = p.get(f"/benchmarks/{SLUG}/results", participant="modal", steps="exec")
    (item,) = overview["items"]
    assert item["run"]["id"] == sent.run_id and item["analytics"]["status"] == "complete"
    (part,) = item["participants"]
    assert part["participantSlug"] == "modal" and [s["stepName"] for s in part["steps"]] == ["exec"]

    # task buckets
    buckets = p.get(run_path + "/results/tasks", bucketSize=2, failureLimit=10)
    assert sum(b["taskCount"] for b in buckets["buckets"]) == len(all_records)
    assert [(f["participantSlug"], f["taskIndex"], f["errorCode"]) for f in buckets["failures"]] == [
        (FAILING[0], FAILING[1], "SANDBOX_TIMEOUT")
    ]

    # timeline: one point per heartbeat sample, one count per record
    timeline = p.get(run_path + "/results/timeline", bucketMs=5000)
    assert len(timeline["concurrency"]["points"]) == sent.samples
    assert timeline["concurrency"]["heartbeatCount"] == sent.heartbeats
    assert sum(b["completed"] for b in timeline["eventRate"]["buckets"]) == len(all_records)
    assert sum(b["failed"] for b in timeline["eventRate"]["buckets"]) == errors

    # iterations
    tasks = p.get(run_path + "/iterations", type="tasks")["tasks"]
    assert [(t["participantSlug"], t["taskIndex"]) for t in tasks] == [
        (prov, r["taskIndex"]) for prov in PROVIDERS for r in sent.records[prov]
    ]
    assert [t["data"] for t in tasks] == [r["data"] for prov in PROVIDERS for r in sent.records[prov]]
    step_rows = p.get(run_path + "/iterations", type="steps", participant="modal", steps="exec")["steps"]
    assert [(s["taskIndex"], s["status"]) for s in step_rows] == [
        (r["taskIndex"], r["steps"][1]["status"]) for r in sent.records["modal"]
    ]

    # every field the client's types declare, on every read it makes, against what was sent
    check_every_client_field(p, client, Expected(sent, PROVIDERS, ITERATIONS, SLUG, BENCH_CONFIG))

    # the read path's two updates, read back
    p.call("PATCH", f"/benchmarks/{SLUG}", {"name": "Renamed", "status": "archived"})
    assert p.get(f"/benchmarks/{SLUG}")["benchmark"]["status"] == "archived"
    p.call("PATCH", run_path, {"status": "completed"})
    assert p.get(run_path)["run"]["status"] == "completed"
    assert p.get(run_path + "/progress")["summary"]["completed"] is True


def operation_ids(client, calls) -> list[str]:
    router = client.app.state.api.router
    return [router.match(method, "/api/v1" + path.split("?")[0])[0].operation_id for method, path in calls]


def collapse(ids: list[str]) -> list[str]:
    """Runs of one operation as one entry (`heartbeatWorker+`), as the reference's loop reads."""
    out: list[str] = []
    for op in ids:
        if out and out[-1].rstrip("+") == op:
            out[-1] = op + "+"
        else:
            out.append(op)
    return out


def test_participant_mode_end_to_end(platform, client, advance):
    """Sequence — one bench run end to end, groupBy 'participant' (Write path §1–§10, Read path)."""
    sent = run_participant_mode(platform)
    per_participant = ["planWorkers", "claimWorker", "heartbeatWorker+", "postWorkerEvents+", "createWorkerArtifact+"]
    assert collapse(operation_ids(client, platform.calls)) == [
        "upsertBenchmark",
        "createRun",
        *per_participant,
        "completeWorker",  # e2b: every task succeeded
        *per_participant,
        "failWorker",  # modal: one task failed
        "submitRunSummary",
    ]
    check_reads(platform, client, advance, sent, "participant")


def test_round_mode_end_to_end(platform, client, advance):
    """Sequence, groupBy 'round': per-participant reporters interleaved, targetConcurrency = schedule length,
    the claimed range clipped to the participant's extent (A-40, A-43, A-44, A-46, A-68)."""
    sent = run_round_mode(platform)
    check_reads(platform, client, advance, sent, "round")
    shared = [
        a
        for a in platform.get(f"/benchmarks/{SLUG}/runs/{sent.run_id}/artifacts")["items"]
        if a["kind"] == "system-metrics"
    ]
    assert len(shared) == 1 and shared[0]["metadata"]["scope"] == "shared-process"


def test_run_key_siblings_end_to_end(platform, client, advance):
    """Sequence with --run-key: siblings get-or-create one participant-sized run (A-12, A-29, A-30, A-37);
    completing without an isFinal batch is accepted (A.3-14); both siblings' summaries add up."""
    sent = run_siblings(client)
    run = platform.get(f"/benchmarks/{SLUG}/runs/{sent.run_id}")["run"]
    assert run["participantSized"] and run["runKey"] == "ci-4242"
    check_reads(platform, client, advance, sent, "participant")

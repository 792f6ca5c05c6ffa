"""What each read endpoint of the end-to-end sequence must answer, computed from what the sequence
sent, field for field as @benchsdk/api's types declare them (`client_types.json`), and the check
that reads every endpoint the client calls that way (reference: "Sequence — one bench run end to
end", Read path).

Values the platform chose and handed back in a write answer (ids, object keys, the sink) are taken
from that answer; times are the mock's clock (the writes do not move it; the reads come after the
import delay); everything else is recomputed here from the records, heartbeats and uploads sent."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from mock_server.benchsdk.profile import PROFILE
from mock_server.engine.spec import load_bundle

from .client import enc
from .client_types import DATA, read_as

if TYPE_CHECKING:
    from .test_sequence import Sent

TIMING = load_bundle(PROFILE.spec_dir, PROFILE.expand)["x-timing"]
RESPONSES = {op_id: entry["response"] for op_id, entry in DATA["operations"].items()}


def later(stamp: str, seconds: float) -> str:
    moment = datetime.fromisoformat(stamp) + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def rank(ordered: list[float], pct: float) -> float | None:
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1] if ordered else None


def latency(items: list[dict]) -> dict[str, float | None]:
    ordered = sorted(float(i["latencyMs"]) for i in items if "latencyMs" in i)
    return {
        "min": ordered[0] if ordered else None,
        "avg": sum(ordered) / len(ordered) if ordered else None,
        "p50": rank(ordered, 50),
        "p95": rank(ordered, 95),
        "p99": rank(ordered, 99),
        "max": ordered[-1] if ordered else None,
    }


def counts(items: list[dict], count_field: str) -> dict[str, Any]:
    ok = sum(i["status"] == "success" for i in items)
    bad = sum(i["status"] == "error" for i in items)
    return {
        count_field: len(items),
        "successCount": ok,
        "errorCount": bad,
        "otherCount": len(items) - ok - bad,
        "latencyCount": sum("latencyMs" in i for i in items),
        "successRate": ok / len(items) if items else 0.0,
        "latencyMs": latency(items),
    }


def summary(records: list[dict]) -> dict[str, Any]:
    """`BenchmarkResultSummary` over task records."""
    return {
        **counts(records, "taskCount"),
        "firstStartedAt": min(r["startedAt"] for r in records),
        "lastCompletedAt": max(r["completedAt"] for r in records),
    }


class Expected:
    """The client's view of every read, from `sent`, once the imports ran (`t0` + the import delay)."""

    def __init__(self, sent: Sent, providers: list[str], iterations: int, slug: str, bench_config: dict) -> None:
        self.s, self.providers, self.iterations, self.slug = sent, providers, iterations, slug
        self.bench_config = bench_config
        self.now = later(sent.t0, TIMING["importDelaySeconds"])
        self.all = [r for p in providers for r in sent.records[p]]

    # ---- resources ---------------------------------------------------------------------------
    def failed(self, provider: str) -> bool:
        return any(r["status"] != "success" for r in self.s.records[provider])

    def benchmark(self) -> dict:
        answer = self.s.benchmark  # the status is the platform's default: none was sent
        return {**self.bench_ref(), "status": answer["status"], "config": self.bench_config}

    def bench_ref(self) -> dict:
        return {"id": self.s.benchmark["id"], "slug": self.slug, "name": self.s.benchmark["name"]}

    def run(self) -> dict:
        sent = self.s.run
        return {
            "id": self.s.run_id,
            "benchmarkId": self.s.benchmark["id"],
            "name": None,
            "status": "failed",  # a participant's worker failed
            "runKey": sent.get("runKey"),
            "totalTasks": self.iterations * len(self.providers),
            "participantSized": "totalTasks" not in sent,
            "workerCount": len(self.providers),  # one planned worker per participant
            "config": sent["config"],
            "createdAt": self.s.t0,
            "updatedAt": self.s.t0,
        }

    def worker(self, provider: str) -> dict:
        a, beat = self.s.assignments[provider], self.s.last_beat[provider]
        return {
            "id": a["workerId"],
            "benchmarkId": self.s.benchmark["id"],
            "runId": self.s.run_id,
            "participantId": a["participantId"],
            "workerIndex": 0,
            "workerCount": 1,
            "taskIndexStart": 0,
            "taskIndexEnd": self.iterations - 1,
            "targetConcurrency": self.s.per_worker[provider],
            "status": "failed" if self.failed(provider) else "completed",
            "progressDone": beat["progressDone"],
            "progressInFlight": 0,  # closing the worker ends what was in flight
            "progressErrors": beat["progressErrors"],
            "progressTotal": beat["progressTotal"],
            "currentStep": beat["currentStep"],
            "concurrency": beat["concurrency"],
        }

    def artifact(self, artifact_id: str) -> dict:
        provider, body, answer = self.s.announced[artifact_id]
        a = self.s.assignments[provider]
        ctype, data = self.s.uploads[artifact_id]
        return {
            "id": artifact_id,
            "benchmarkId": self.s.benchmark["id"],
            "runId": self.s.run_id,
            "participantId": a["participantId"],
            "participantSlug": provider,
            "workerId": a["workerId"],
            "attemptId": a["attemptId"],
            "kind": body["kind"],
            "name": body["name"],
            "contentType": ctype,
            "objectKey": answer["objectKey"],
            "metadata": {**body["metadata"], "sizeBytes": len(data)},  # filled from the body
            "createdAt": self.s.t0,
        }

    # ---- progress ------------------------------------------------------------------------------
    def progress(self) -> dict:
        rows = []
        for provider in self.providers:
            beat, failed = self.s.last_beat[provider], self.failed(provider)
            rows.append(
                {
                    "id": self.s.assignments[provider]["participantId"],
                    "slug": provider,
                    "provider": provider,  # the participant's slug: no provider was sent
                    "status": "failed" if failed else "completed",
                    "totalTasks": self.iterations,
                    "workerCount": 1,
                    "workers": {
                        "pending": 0,
                        "running": 0,
                        "completed": int(not failed),
                        "failed": int(failed),
                        "stale": 0,
                        "total": 1,
                    },
                    "tasks": {
                        "done": beat["progressDone"],
                        "inFlight": 0,
                        "errors": beat["progressErrors"],
                        "total": self.iterations,
                        "completionRatio": min(1.0, beat["progressDone"] / self.iterations),
                    },
                    "concurrency": [],  # no worker is fresh once all are closed
                }
            )
        failed = sum(self.failed(p) for p in self.providers)
        return {
            "run": {"id": self.s.run_id, "status": "failed", "totalTasks": len(self.all), "workerCount": len(rows)},
            "summary": {
                "status": "failed",
                "started": True,
                "completed": True,
                "participants": {
                    "planned": 0,
                    "inProgress": 0,
                    "completed": len(rows) - failed,
                    "failed": failed,
                    "total": len(rows),
                },
            },
            "freshnessWindowSeconds": TIMING["leaseSeconds"],
            "generatedAt": self.now,
            "participants": rows,
        }

    # ---- results -------------------------------------------------------------------------------
    def participant_summaries(self, *, run_id: bool = False) -> list[dict]:
        out = []
        for p in self.providers:
            row = {**summary(self.s.records[p]), "participantSlug": p, "provider": p}
            out.append(row | ({"runId": self.s.run_id} if run_id else {}))
        return out

    def step_summaries(self) -> list[dict]:
        rows = []
        for p in self.providers:
            names = list(dict.fromkeys(step["name"] for r in self.s.records[p] for step in r["steps"]))
            for name in names:
                steps = [step for r in self.s.records[p] for step in r["steps"] if step["name"] == name]
                rows.append({"participantSlug": p, "provider": p, "stepName": name, **counts(steps, "stepCount")})
        return rows

    def run_results(self) -> dict:
        return {
            "benchmark": self.bench_ref(),
            "run": {
                "id": self.s.run_id,
                "status": "failed",
                "totalTasks": len(self.all),
                "workerCount": len(self.providers),
            },
            "generatedAt": self.now,
            "overall": summary(self.all),
            "participants": self.participant_summaries(),
            "steps": self.step_summaries(),
        }

    def analytics(self) -> dict:
        n = self.s.batches
        imports = {"pending": 0, "importing": 0, "imported": n, "failed": 0, "missing": 0}
        return {"eventBatches": n, "persisted": n, "queued": 0, "failed": 0, "imports": imports}

    def overview(self) -> dict:
        item = {
            "run": self.run(),
            "analytics": {"status": "complete", **self.analytics()},  # every batch imported, the run closed
            "participants": self.participant_summaries(run_id=True),
        }
        return {
            "benchmark": self.bench_ref(),
            "generatedAt": self.now,
            "analytics": {"status": "ready", "query": "available"},
            "items": [item],
        }

    def task_results(self, bucket_size: int, failure_limit: int) -> dict:
        buckets, failures = [], []
        for p in self.providers:
            recs = sorted(self.s.records[p], key=lambda r: r["taskIndex"])
            for k in sorted({r["taskIndex"] // bucket_size for r in recs}):
                inside = [r for r in recs if r["taskIndex"] // bucket_size == k]
                start, end = k * bucket_size, (k + 1) * bucket_size - 1
                stats = latency(inside)
                buckets.append(
                    {
                        "participantSlug": p,
                        "provider": p,
                        "bucketStart": start,
                        "bucketEnd": end,
                        "taskIndexMidpoint": (start + end) / 2,
                        "taskCount": len(inside),
                        "successCount": sum(r["status"] == "success" for r in inside),
                        "errorCount": sum(r["status"] == "error" for r in inside),
                        "latencyMs": {"p50": stats["p50"], "p95": stats["p95"], "max": stats["max"]},
                    }
                )
            failures += [
                {"participantSlug": p, "provider": p, "taskIndex": r["taskIndex"], "errorCode": r.get("errorCode")}
                for r in recs
                if r["status"] == "error"
            ]
        return {
            "run": {"id": self.s.run_id},
            "generatedAt": self.now,
            "bucketSize": bucket_size,
            "buckets": buckets,
            "failures": failures[:failure_limit],
        }

    def timeline(self, bucket_ms: int) -> dict:
        start = min(datetime.fromisoformat(r["startedAt"]) for r in self.all)
        rows: dict[tuple[int, int], dict] = {}
        for order, p in enumerate(self.providers):
            for r in self.s.records[p]:
                offset = int((datetime.fromisoformat(r["completedAt"]) - start).total_seconds() * 1000)
                t_ms = offset // bucket_ms * bucket_ms
                row = rows.setdefault(
                    (order, t_ms),
                    {"participantSlug": p, "provider": p, "tMs": t_ms, "completed": 0, "succeeded": 0, "failed": 0},
                )
                row["completed"] += 1
                row["succeeded"] += r["status"] == "success"
                row["failed"] += r["status"] == "error"
        points = [
            {
                "participantSlug": p,
                "provider": p,
                "workerId": self.s.assignments[p]["workerId"],
                "recordedAt": self.s.t0,
                "tMs": 0,  # every heartbeat was sent at t0
                "step": sample["step"],
                "active": sample["active"],
                "target": sample["target"],
            }
            for p, sample in self.s.sample_log
        ]
        return {
            "run": {"id": self.s.run_id},
            "generatedAt": self.now,
            "eventRate": {"bucketMs": bucket_ms, "buckets": [rows[k] for k in sorted(rows)]},
            "concurrency": {"firstRecordedAt": self.s.t0, "heartbeatCount": self.s.heartbeats, "points": points},
        }

    def iteration_rows(self) -> tuple[dict, dict]:
        tasks, steps = [], []
        for p in self.providers:
            for r in sorted(self.s.records[p], key=lambda r: r["taskIndex"]):
                timing = {k: r.get(k) for k in ("latencyMs", "startedAt", "completedAt")}
                base = {"participantSlug": p, "provider": p}
                tasks.append({**base, "taskIndex": r["taskIndex"], "status": r["status"], **timing, "data": r["data"]})
                for step in r["steps"]:
                    timing = {k: step.get(k) for k in ("latencyMs", "startedAt", "completedAt")}
                    steps.append(
                        {
                            **base,
                            "stepName": step["name"],
                            "taskIndex": r["taskIndex"],
                            "status": step["status"],
                            **timing,
                            "data": step["data"],
                        }
                    )
        ref = {"run": {"id": self.s.run_id}, "generatedAt": self.now}
        return {**ref, "tasks": tasks}, {**ref, "steps": steps}

    def imports(self) -> dict:
        items = [
            {
                "eventBatchId": answer["eventBatchId"],
                "batchType": "task_results",
                "sequenceNumber": seq,
                "batchStatus": "persisted",
                "eventCount": count,
                "objectKey": answer["eventBatch"]["objectKey"],
                "batchErrorMessage": None,
                "createdAt": self.s.t0,
                "persistedAt": self.now,
                "sink": answer["eventBatch"]["sink"],
                "importStatus": "imported",
                "importAttempts": 1,
                "importedAt": self.now,
                "failedAt": None,
                "importErrorMessage": None,
            }
            for _, seq, count, answer in self.s.batch_answers
        ]
        return {"run": {"id": self.s.run_id}, "generatedAt": self.now, "summary": self.analytics(), "items": items}


def check_every_client_field(p: Any, client: Any, want: Expected) -> None:
    """Read every endpoint the client calls as its type declares it; each field equals the sent value."""
    s, slug = want.s, want.slug
    run_path = f"/benchmarks/{slug}/runs/{enc(s.run_id)}"

    def read(op_id: str, path: str, **params: Any) -> Any:
        return read_as(RESPONSES[op_id], p.get(path, **params), op_id)

    for provider, seq, count, answer in s.batch_answers:  # the write answers the client reads
        got = read_as("TaskResultsResponse", answer, f"events {provider} {seq}")
        assert (got["accepted"], got["duplicate"], got["queued"]) == (count, False, True)
    assert read("getBenchmark", f"/benchmarks/{slug}") == {"benchmark": want.benchmark()}
    listed = read("listBenchmarks", "/benchmarks")["items"]
    assert [b for b in listed if b["slug"] == slug] == [want.benchmark()]
    assert read("listRuns", f"/benchmarks/{slug}/runs") == {"items": [want.run()]}
    assert read("getRun", run_path) == {"run": want.run()}
    assert read("getRunProgress", run_path + "/progress") == want.progress()
    for provider in want.providers:
        worker = want.worker(provider)
        workers = read("listParticipantWorkers", f"{run_path}/participants/{enc(provider)}/workers")
        assert workers == {"items": [worker]}
        assert read("getWorker", f"{run_path}/workers/{enc(worker['id'])}") == {"worker": worker}
        mine = [want.artifact(i) for i, (owner, *_) in s.announced.items() if owner == provider]
        assert read("listWorkerArtifacts", f"{run_path}/workers/{enc(worker['id'])}/artifacts") == {"items": mine}
    arts = read("listRunArtifacts", run_path + "/artifacts")["items"]
    assert arts == [want.artifact(i) for i in s.announced]
    for art in arts:
        path = f"{run_path}/workers/{enc(art['workerId'])}/artifacts/{enc(art['id'])}"
        got = read("getWorkerArtifact", path)
        expires = later(want.now, TIMING["downloadUrlTtlSeconds"])
        assert got == {"artifact": art, "downloadUrl": got["downloadUrl"], "downloadUrlExpiresAt": expires}
        assert client.get(got["downloadUrl"]).content == s.uploads[art["id"]][1]
    assert read("getBenchmarkResults", f"/benchmarks/{slug}/results") == want.overview()
    assert read("getRunResults", run_path + "/results") == want.run_results()
    tasks = read("getRunTaskResults", run_path + "/results/tasks", bucketSize=2, failureLimit=10)
    assert tasks == want.task_results(2, 10)
    assert read("getRunTimeline", run_path + "/results/timeline", bucketMs=5000) == want.timeline(5000)
    task_rows, step_rows = want.iteration_rows()
    assert read_as("BenchmarkRunTaskIterations", p.get(run_path + "/iterations", type="tasks")) == task_rows
    assert read_as("BenchmarkRunStepIterations", p.get(run_path + "/iterations", type="steps")) == step_rows
    assert read("getRunImports", run_path + "/results/imports") == want.imports()

"""What the read path reports against what was written, and the shape of the resource tree.

- Records read back as sent: each taskIndex once however often it was resent (A-44), status and errorCode
  (A-54), data and pre-measured steps of error records (A-55), the implicit `task` step (A-56), the phase
  tag on every record, failed ones included (A-57); a batch holds 1 to the spec's maximum of records (A-53);
  every accepted batch shows in the imports view with its records (A-60); aggregates agree with the records
  (A-96), `participant` is a comma list (A-92) narrowing every aggregate (A-97); task buckets follow
  bucketSize and failures failureLimit (A-98); the benchmark overview carries each run's readiness (A-91).
- The tree: nothing under an unknown slug (A-18), a run only under its benchmark and a worker only under
  its run (A-19), worker operations need an existing run (A-21), the API lives under `/api/v1` of the root
  (A-01), every rejection is non-2xx with its body (A-07).
- Run shapes: self-contained with a config snapshot stored as sent (A-28, A-31), `groupBy` is participant or
  round (A-33), a shared run is participant-sized (A-29) with each participant's own totalTasks (A-22); a run
  without a summary reads fine (A-77); PATCH of a benchmark (A-82) and a run (A-84) reads back.
- Artifacts of every kind the reference names, repeated log uploads included, listed and downloaded as sent
  (A-62, A-63, A-65, A-66, A-67, A-68); heartbeats at a high rate are accepted (A-48); a failed flush closes the
  worker with fail and its error (A-72).

Everything is written under benchmark slugs of the suite's own (`contract-…`). Imports complete in the
mock's simulated time (its clock is advanced); against a live platform the suite polls for them.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable

import pytest

from . import _model as model
from ._client import BASE, LIMITS, TIMING, Platform, curl, enc
from .test_scenarios import claimed, new_slug, wpath

Settle = Callable[[], None]
ATTEMPTS = 60


def settle_for(platform: Platform, target) -> Settle:
    """Let imports happen: the mock's clock moves past the import delay; a live platform is given time."""

    def settle() -> None:
        if target.control:
            platform.raw(
                "POST", platform.base_url + "/__mock/clock", json={"advance_seconds": TIMING["importDelaySeconds"]}
            )
        else:
            time.sleep(2)

    return settle


def imported(platform: Platform, run_path: str, settle: Settle, batches: int) -> dict:
    """The imports view once every accepted batch is imported. The reference promises the import (A-60:
    batches "queue for import into the analytics store"; `x-timing.importDelaySeconds` after acceptance on
    the mock): a batch still queued after `ATTEMPTS` settles is drift under A-60, never a skip."""
    view: dict = {}
    for _ in range(ATTEMPTS):
        view = platform.json("GET", run_path + "/results/imports", claim="A-60")
        if view["summary"]["persisted"] + view["summary"]["failed"] >= batches and not view["summary"]["queued"]:
            return view
        settle()
    raise platform.drift(
        "A-60",
        "getRunImports",
        f"{batches} accepted batches not imported after {ATTEMPTS} waits: {view.get('summary')}",
    )


def batch(a: dict, seq: int, recs: list[dict], final: bool = False) -> dict:
    return {
        "type": "task_results",
        "attemptId": a["attemptId"],
        "sequenceNumber": seq,
        "isFinal": final,
        "records": recs,
    }


def check_latency_summaries(platform: Platform, results: dict, expected: dict) -> None:
    """A-96, clause by clause, against the model's `expected` (`_model.results` of the records sent): the
    overall latency summary (A-96.1), the per-participant one (A-96.2, one participant: the overall's)
    and the per-step ones (A-96.3) are nearest-rank over the records' `latencyMs`; the participant's
    success rate is its own (A-96.4)."""
    overall = expected["overall"]
    if results["overall"].get("latencyMs") != overall["latencyMs"]:
        raise platform.drift(
            "A-96.1",
            "getRunResults",
            f"overall latency {results['overall'].get('latencyMs')}, expected {overall['latencyMs']}",
        )
    rows = {p["participantSlug"]: p for p in results["participants"]}
    mine = rows.get("e2b") or {}
    if mine.get("latencyMs") != overall["latencyMs"]:
        raise platform.drift(
            "A-96.2", "getRunResults", f"e2b's latency {mine.get('latencyMs')}, expected {overall['latencyMs']}"
        )
    if (mine.get("taskCount"), mine.get("successCount"), mine.get("successRate")) != (
        overall["taskCount"],
        overall["successCount"],
        overall["successRate"],
    ):
        raise platform.drift(
            "A-96.4",
            "getRunResults",
            f"e2b's success rate {mine.get('successRate')} "
            f"({mine.get('successCount')} of {mine.get('taskCount')}), expected {overall['successRate']}",
        )
    steps = {s["stepName"]: s.get("latencyMs") for s in results["steps"] if s.get("participantSlug") == "e2b"}
    for name, row in expected["steps"].items():
        if steps.get(name) != row["latencyMs"]:
            raise platform.drift(
                "A-96.3", "getRunResults", f"step {name}'s latency {steps.get(name)}, expected {row['latencyMs']}"
            )


def check_records_read_back(platform: Platform, settle: Settle) -> None:
    slug, run_id, a = claimed(platform, tasks=4)
    run_path = f"/benchmarks/{slug}/runs/{enc(run_id)}"
    events = wpath(slug, run_id, a) + "/events"
    create = {"name": "create", "status": "success", "latencyMs": 30, "data": {"createMs": 30}}
    sent = {
        0: {"taskIndex": 0, "status": "success", "latencyMs": 40, "data": {"phase": "cold", "ttiMs": 38},
            "steps": [create]},
        1: {
            "taskIndex": 1,
            "status": "error",
            "errorCode": "STORAGE_ERROR",
            "latencyMs": 50,
            "data": {"phase": "cold", "bytes": 7},
            "steps": [create],
        },
        2: {"taskIndex": 2, "status": "success", "latencyMs": 60, "data": {"phase": "warm"},
            "steps": [{"name": "task", "status": "success", "latencyMs": 60}]},
        3: {"taskIndex": 3, "status": "error", "errorCode": "TIMEOUT", "latencyMs": 70, "data": {"phase": "warm"},
            "steps": [{"name": "task", "status": "error", "latencyMs": 70}]},
    }  # fmt: skip
    platform.call("POST", events, batch(a, 0, []), expect=400, claim="A-53")
    bounds = LIMITS["events"]
    if bounds.get("minRecords", 1) != 1:
        raise platform.drift("A-53", "spec", f"a batch's minimum is {bounds.get('minRecords')}, not 1")
    batches = [(0, [sent[0], sent[1]]), (1, [sent[2]]), (2, [sent[0]]), (3, [sent[3]])]
    for seq, recs in batches:
        platform.call("POST", events, batch(a, seq, recs, final=seq == 3), claim="A-50")
    view = imported(platform, run_path, settle, len(batches))
    seqs = {i["sequenceNumber"]: i for i in view["items"]}
    if sorted(seqs) != [s for s, _ in batches] or any(seqs[s]["eventCount"] != len(r) for s, r in batches):
        raise platform.drift(
            "A-60", "getRunImports", f"batches {sorted(seqs)} with {[i['eventCount'] for i in view['items']]}"
        )
    if view["summary"]["eventBatches"] != len(batches) or view["summary"]["persisted"] != len(batches):
        raise platform.drift("A-60", "getRunImports", f"summary {view['summary']} for {len(batches)} accepted batches")
    tasks = platform.json("GET", run_path + "/iterations", params={"type": "tasks"}, claim="A-55.1")["tasks"]
    by_index = {}
    for row in tasks:
        if row["taskIndex"] in by_index:
            raise platform.drift("A-44", "getIterations", f"taskIndex {row['taskIndex']} is listed twice")
        by_index[row["taskIndex"]] = row
    if sorted(by_index) != sorted(sent):
        raise platform.drift("A-44", "getIterations", f"task indices {sorted(by_index)}, sent {sorted(sent)}")
    for index, record in sent.items():
        row = by_index[index]
        if row["status"] != record["status"]:
            raise platform.drift("A-54.1", "getIterations", f"task {index} reads {row['status']}")
        if row["errorCode"] != record.get("errorCode"):
            raise platform.drift("A-54.2", "getIterations", f"task {index} reads errorCode {row['errorCode']}")
        if (row["data"] or {}).get("phase") != record["data"]["phase"]:
            raise platform.drift("A-57", "getIterations", f"task {index} ({row['status']}) lost its phase tag")
        if row["data"] != record["data"]:
            raise platform.drift("A-55.1", "getIterations", f"task {index} reads data {row['data']}")
        if [s["name"] for s in row["steps"]] != [s["name"] for s in record["steps"]]:
            raise platform.drift("A-55.2", "getIterations", f"task {index} reads steps {row['steps']}")
        if row["steps"] and row["steps"][0].get("data") != record["steps"][0].get("data"):
            raise platform.drift(
                "A-55.2", "getIterations", f"task {index}'s step data reads {row['steps'][0].get('data')}"
            )
    steps = platform.json("GET", run_path + "/iterations", params={"type": "steps"}, claim="A-56")["steps"]
    implicit = sorted(s["taskIndex"] for s in steps if s["stepName"] == "task")
    if implicit != [2, 3]:
        raise platform.drift("A-56", "getIterations?type=steps", f"the implicit `task` step is on tasks {implicit}")
    results = platform.json("GET", run_path + "/results", claim="A-96")
    overall = results["overall"]
    effective = model.effective([recs for _, recs in batches])
    expected = model.results(effective)
    counted = ("taskCount", "successCount", "errorCount", "successRate")
    if any(overall[k] != expected["overall"][k] for k in counted):
        raise platform.drift("A-96.4", "getRunResults", f"overall {overall} for 4 records, 2 of them errors")
    check_latency_summaries(platform, results, expected)
    both = platform.json("GET", run_path + "/results", params={"participant": "e2b,modal"}, claim="A-92")
    if both["overall"] != overall:
        raise platform.drift("A-92", "getRunResults", "participant=e2b,modal (every participant) narrows the aggregate")
    other = platform.json("GET", run_path + "/results", params={"participant": "modal"}, claim="A-97")
    if other["overall"]["taskCount"] != 0 or any(p["participantSlug"] != "modal" for p in other["participants"]):
        raise platform.drift("A-97", "getRunResults", f"participant=modal still counts e2b: {other['overall']}")
    if any(s.get("participantSlug") not in (None, "modal") for s in other.get("steps") or []):
        raise platform.drift("A-97", "getRunResults", "participant=modal still lists e2b's steps")
    buckets = platform.json(
        "GET", run_path + "/results/tasks", params={"bucketSize": 2, "failureLimit": 1}, claim="A-98.1"
    )
    got = sorted((b["bucketStart"], b["bucketEnd"], b["taskCount"], b["errorCount"]) for b in buckets["buckets"])
    if got != [(0, 1, 2, 1), (2, 3, 2, 1)]:
        raise platform.drift(
            "A-98.1", "getRunTaskResults", f"bucketSize=2 buckets {got} for tasks 0..3 (errors at 1 and 3)"
        )
    spans = {b["bucketStart"]: b["latencyMs"] for b in buckets["buckets"]}
    wanted = {start: row["latencyMs"] for start, row in model.buckets(effective, 2).items()}
    if spans != wanted:
        raise platform.drift("A-98.2", "getRunTaskResults", f"bucket latencies {spans}, expected {wanted}")
    if buckets["failureCount"] != 2 or not buckets["failures"]:
        raise platform.drift("A-98.3", "getRunTaskResults", f"failureCount {buckets['failureCount']} for 2 errors")
    if len(buckets["failures"]) != 1 or buckets["failures"][0]["taskIndex"] not in (1, 3):
        raise platform.drift("A-98.4", "getRunTaskResults", f"failureLimit=1 listed {buckets['failures']}")
    overview = platform.json("GET", f"/benchmarks/{slug}/results", claim="A-91")["items"]
    mine = [item for item in overview if item["run"]["id"] == run_id]
    if len(mine) != 1 or mine[0]["analytics"]["status"] != view["summary"]["status"]:
        raise platform.drift("A-91", "getBenchmarkResults", f"the overview's readiness of the run: {mine[:1]}")


# at most this many generated record sets per run (fewer in `smoke`): each costs about a dozen requests
MODEL_EXAMPLES = 6


def check_aggregates_match_the_model(platform: Platform, settle: Settle) -> None:
    """A-44, A-96.1-A-96.4, A-98.1-A-98.4 on generated records (`_model.sent_records`): over a hundred
    records with distinct latencies, so min, p50, p95, p99 and max are five different records and a
    neighbouring rule (floor rank, interpolation, p95 for p99, p99 as the max) answers another number;
    success and error counts apart; one task resent with other values, so keeping the first report
    differs from keeping the latest; buckets of over twenty tasks, so a bucket's p95 is not its max.
    Each figure is compared with the independent model (`_model`), not with the mock."""
    from hypothesis import HealthCheck, Phase, given, settings

    @settings(
        max_examples=min(settings.default.max_examples, MODEL_EXAMPLES),
        phases=(Phase.explicit, Phase.reuse, Phase.generate),  # no shrinking: each example is a new run
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(sent=model.sent_records())
    def one(sent: model.Sent) -> None:
        check_aggregates_of(platform, settle, sent)

    one()


def check_aggregates_of(platform: Platform, settle: Settle, sent: model.Sent) -> None:
    slug, run_id, a = claimed(platform, tasks=sent.tasks)
    run_path = f"/benchmarks/{slug}/runs/{enc(run_id)}"
    events = wpath(slug, run_id, a) + "/events"
    last = len(sent.batches) - 1
    for seq, recs in enumerate(sent.batches):
        platform.call("POST", events, batch(a, seq, recs, final=seq == last), claim="A-50")
    imported(platform, run_path, settle, len(sent.batches))
    records = model.effective(sent.batches)
    expected = model.results(records)
    results = platform.json("GET", run_path + "/results", claim="A-96")
    overall = results["overall"]
    counted = ("taskCount", "successCount", "errorCount", "successRate")
    got = {k: overall[k] for k in counted}
    if got == {k: model.results(model.effective(sent.batches[:-1]))["overall"][k] for k in counted}:
        raise platform.drift(
            "A-44", "getRunResults", f"the first report of a resent task counts, not the latest: {got}"
        )
    if got != {k: expected["overall"][k] for k in counted}:
        raise platform.drift(
            "A-96.4", "getRunResults", f"overall {got}, expected { ({k: expected['overall'][k] for k in counted}) }"
        )
    check_latency_summaries(platform, results, expected)
    params = {"bucketSize": sent.bucket_size, "failureLimit": sent.failure_limit}
    view = platform.json("GET", run_path + "/results/tasks", params=params, claim="A-98.1")
    wanted = model.buckets(records, sent.bucket_size)
    rows = {b["bucketStart"]: b for b in view["buckets"]}
    counts = ("bucketEnd", "taskCount", "successCount", "errorCount")
    shape = {start: tuple(row[k] for k in counts) for start, row in rows.items()}
    if shape != {start: tuple(row[k] for k in counts) for start, row in wanted.items()}:
        raise platform.drift("A-98.1", "getRunTaskResults", f"bucketSize={sent.bucket_size}: buckets {shape}")
    for start, row in wanted.items():
        if rows[start]["latencyMs"] != row["latencyMs"]:
            raise platform.drift(
                "A-98.2",
                "getRunTaskResults",
                f"bucket {start}: {rows[start]['latencyMs']}, expected {row['latencyMs']}",
            )
    errors = expected["overall"]["errorCount"]
    if view["failureCount"] != errors:
        raise platform.drift("A-98.3", "getRunTaskResults", f"failureCount {view['failureCount']} for {errors} errors")
    if len(view["failures"]) != min(sent.failure_limit, errors):
        raise platform.drift(
            "A-98.4", "getRunTaskResults", f"failureLimit={sent.failure_limit} listed {len(view['failures'])}"
        )


def check_tree(platform: Platform) -> None:
    a_slug, b_slug, unknown = new_slug(), new_slug(), new_slug()
    for s in (a_slug, b_slug):
        platform.call("PUT", f"/benchmarks/{s}", {"name": "Contract tree"}, claim="A-24")
    slug, run_id, a = claimed(platform)
    _, _, other = claimed(platform)
    platform.call("GET", f"/benchmarks/{unknown}", expect=404, claim="A-18")
    platform.call("GET", f"/benchmarks/{unknown}/runs/{enc(run_id)}", expect=404, claim="A-18")
    platform.call("GET", f"/benchmarks/{b_slug}/runs/{enc(run_id)}", expect=404, claim="A-19")
    platform.call("GET", f"/benchmarks/{b_slug}/runs/{enc(run_id)}/progress", expect=404, claim="A-19")
    # a worker is only under its own run
    platform.call(
        "GET", f"/benchmarks/{slug}/runs/{enc(run_id)}/workers/{enc(other['workerId'])}", expect=404, claim="A-19"
    )
    missing = "00000000-0000-4000-8000-000000000000"
    platform.call(
        "POST",
        f"/benchmarks/{slug}/runs/{missing}/workers/{enc(a['workerId'])}/heartbeat",
        {"attemptId": a["attemptId"]},
        expect=404,
        claim="A-21",
    )
    platform.call(
        "POST",
        f"/benchmarks/{slug}/runs/{missing}/participants/e2b/workers",
        {"workerCount": 1, "targetConcurrency": 1},
        expect=404,
        claim="A-21",
    )
    # every rejection is non-2xx and keeps a body the client can report; read as sent, before
    # the conventions check judges the body
    for method, path, body in (
        ("POST", f"/benchmarks/{slug}/runs", {"totalTasks": -1}),
        ("GET", f"/benchmarks/{unknown}", None),
    ):
        response = platform.http.request(method, BASE + path, json=body, headers=platform.headers)
        if response.status_code < 400 or not response.content:
            raise platform.drift(
                "A-07.1",
                f"{method} {BASE}{path}",
                f"a rejection answered {response.status_code}",
                curl(method, platform.base_url + BASE + path, body),
            )
        platform.call(method, path, body, expect=(400, 404))
    root = platform.http.get("/benchmarks", headers=platform.headers)
    inside = platform.http.get(BASE + "/benchmarks", headers=platform.headers)
    if inside.status_code != 200 or root.status_code // 100 == 2:
        raise platform.drift(
            "A-01.1", "GET /benchmarks", f"/api/v1/benchmarks {inside.status_code}, /benchmarks {root.status_code}"
        )


def check_run_shapes(platform: Platform) -> None:
    slug = new_slug()
    platform.call("PUT", f"/benchmarks/{slug}", {"name": "Contract shapes"}, claim="A-24")
    config = {
        "benchmarkSlug": slug,
        "iterations": 3,
        "concurrency": 1,
        "staggerDelayMs": 0,
        "groupBy": "participant",
        "participants": ["e2b", "modal"],
        "dimensions": {"file_size": "10MB"},
        "phases": [{"name": "cold", "iterations": 2}, {"name": "warm", "iterations": 1}],
        "trigger": {"source": "schedule", "event": "schedule"},
    }
    body = {"totalTasks": 6, "workerCount": 1, "participants": ["e2b", "modal"], "config": config}
    run = platform.json("POST", f"/benchmarks/{slug}/runs", body, expect=201, claim="A-28.1")["run"]
    read = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(run['id'])}", claim="A-31")["run"]
    if read["config"] != config or read["totalTasks"] != 6 or read["participantSized"]:
        raise platform.drift(
            "A-31", "getRun", f"the run reads config {read['config']}, totalTasks {read['totalTasks']}"
        )
    bad = {**body, "config": {**config, "groupBy": "diagonal"}}
    platform.call("POST", f"/benchmarks/{slug}/runs", bad, expect=400, claim="A-33.2")
    round_robin = {**body, "config": {**config, "groupBy": "round"}}
    platform.call("POST", f"/benchmarks/{slug}/runs", round_robin, expect=201, claim="A-33.1")
    shared = platform.json("POST", f"/benchmarks/{slug}/runs", {"runKey": new_slug()}, expect=201, claim="A-28.2")[
        "run"
    ]
    if not shared["participantSized"]:
        raise platform.drift("A-29", "createRun", "a run without totalTasks is not participant-sized")
    for name, total in (("e2b", 4), ("modal", 2)):
        platform.call(
            "PUT",
            f"/benchmarks/{slug}/runs/{enc(shared['id'])}/participants/{name}",
            {"totalTasks": total},
            claim="A-22",
        )
    progress = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(shared['id'])}/progress", claim="A-22")
    totals = {p["slug"]: p["totalTasks"] for p in progress["participants"]}
    if totals != {"e2b": 4, "modal": 2}:
        raise platform.drift("A-22", "getRunProgress", f"participants read {totals}, registered e2b 4 and modal 2")
    results = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(shared['id'])}/results", claim="A-77")
    if results["run"].get("summary") is not None:
        raise platform.drift("A-77", "getRunResults", "a run that never received a summary reads one")
    patched = {"name": "Contract shapes renamed", "status": "archived", "config": {"display": {"unit": "ms"}}}
    platform.call("PATCH", f"/benchmarks/{slug}", patched, claim="A-82.1")
    bench = platform.json("GET", f"/benchmarks/{slug}", claim="A-82.1")["benchmark"]
    for n, key in ((1, "name"), (2, "status"), (3, "config")):
        if bench[key] != patched[key]:
            raise platform.drift(
                f"A-82.{n}", "getBenchmark", f"after PATCH {key} = {patched[key]!r} it reads {bench[key]!r}"
            )
    change = {"status": "completed", "config": {**config, "iterations": 4}}
    platform.call("PATCH", f"/benchmarks/{slug}/runs/{enc(run['id'])}", change, claim="A-84.1")
    read = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(run['id'])}", claim="A-84.1")["run"]
    if read["status"] != "completed":
        raise platform.drift("A-84.1", "getRun", f"after PATCH status completed it reads {read['status']}")
    if read["config"] != change["config"]:
        raise platform.drift("A-84.2", "getRun", f"after PATCH of its config it reads {read['config']}")


def check_artifacts_and_closing(platform: Platform) -> None:
    slug, run_id, a = claimed(platform)
    worker = wpath(slug, run_id, a)
    log = b"".join(b"line %d\n" % i for i in range(50))
    metrics = b"".join(json.dumps({"t": i, "cpu": 0.5}).encode() + b"\n" for i in range(5))
    shared_meta = {"scope": "shared-process", "participants": ["e2b", "modal"]}
    uploads = [
        ("coordinator.log", "text/plain", "worker.log", log[:100], {}),
        ("coordinator.log", "text/plain", "worker.log", log, {}),
        ("system-metrics", "application/x-ndjson", "metrics.jsonl", metrics, shared_meta),
        ("contract.custom", "application/gzip", "custom.json.gz", gzip.compress(log, mtime=0), {}),
    ]
    made = []
    for kind, ctype, name, data, meta in uploads:
        body = {"attemptId": a["attemptId"], "kind": kind, "contentType": ctype, "name": name}
        if meta:
            body["metadata"] = meta
        created = platform.json("POST", worker + "/artifacts", body, claim="A-62")
        put = platform.raw("PUT", created["uploadUrl"], content=data, headers={"Content-Type": ctype})
        if put.status_code // 100 != 2:
            raise platform.drift("A-63", "PUT uploadUrl", f"{ctype}: {put.status_code}")
        made.append((created["artifactId"], kind, ctype, name, data, meta))
    for _ in range(20):
        platform.call("POST", worker + "/heartbeat", {"attemptId": a["attemptId"], "progressDone": 1}, claim="A-48.1")
    listed = {i["id"]: i for i in platform.json("GET", worker + "/artifacts", claim="A-65")["items"]}
    run_listed = {
        i["id"] for i in platform.json("GET", f"/benchmarks/{slug}/runs/{enc(run_id)}/artifacts", claim="A-89")["items"]
    }
    for artifact_id, kind, ctype, name, data, meta in made:
        row = listed.get(artifact_id)
        if row is None:
            raise platform.drift("A-65", "listWorkerArtifacts", f"artifact {kind}/{name} is not listed")
        if artifact_id not in run_listed:
            raise platform.drift("A-89", "listRunArtifacts", f"artifact {kind}/{name} is not in the run's listing")
        claim = {"coordinator.log": "A-66", "system-metrics": "A-67"}.get(kind, "A-62")
        if (row["kind"], row["contentType"], row["name"]) != (kind, ctype, name):
            raise platform.drift(claim, "listWorkerArtifacts", f"{kind}/{name} lists as {row['kind']}/{row['name']}")
        if any(row["metadata"].get(k) != v for k, v in meta.items()):
            raise platform.drift("A-68", "listWorkerArtifacts", f"metadata {row['metadata']}, sent {meta}")
        detail = platform.json("GET", worker + f"/artifacts/{enc(artifact_id)}", claim="A-90.1")
        if platform.raw("GET", detail["downloadUrl"]).content != data:
            raise platform.drift(claim, "GET downloadUrl", f"{kind}/{name} downloads other bytes")
    closed = platform.json(
        "POST",
        worker + "/fail",
        {"attemptId": a["attemptId"], "errorCode": "STORAGE_ERROR", "errorMessage": "final flush failed"},
        claim="A-72",
    )["worker"]
    read = platform.json("GET", worker, claim="A-72")["worker"]
    if closed["status"] != "failed" or read["status"] != "failed":
        raise platform.drift("A-72", "getWorker", f"a failed worker reads {read['status']}")
    error = {read.get(k) for k in ("errorCode", "lastErrorCode")} | {
        (read.get("error") or {}).get("code") if isinstance(read.get("error"), dict) else None
    }
    if "STORAGE_ERROR" not in error:
        raise platform.drift("A-72", "getWorker", f"the worker does not keep its errorCode: {read}")


RESERVED = ("e2b:gpu", "modal+v2", "daytona us@east", "fly.io%edge")


def check_encoded_path_params(platform: Platform) -> None:
    """Participant slugs with reserved characters, percent-encoded in the path, round-trip as sent."""
    slug = new_slug()
    platform.call("PUT", f"/benchmarks/{slug}", {"name": "Contract encoding"}, claim="A-24")
    run = platform.json("POST", f"/benchmarks/{slug}/runs", {"runKey": new_slug()}, expect=201, claim="A-28")["run"]
    base = f"/benchmarks/{slug}/runs/{enc(run['id'])}"
    for name in RESERVED:
        made = platform.json("PUT", f"{base}/participants/{enc(name)}", {"totalTasks": 1}, claim="A-06")
        if made["participant"]["slug"] != name:
            raise platform.drift(
                "A-06", "registerParticipant", f"{name!r} was stored as {made['participant']['slug']!r}"
            )
    listed = sorted(p["slug"] for p in platform.json("GET", f"{base}/progress", claim="A-06")["participants"])
    if listed != sorted(RESERVED):
        raise platform.drift("A-06", "getRunProgress", f"participants read {listed}, registered {sorted(RESERVED)}")
    name = RESERVED[1]
    platform.call("POST", f"{base}/participants/{enc(name)}/workers", {"workerCount": 1, "targetConcurrency": 1})
    got = platform.json(
        "POST", f"{base}/participants/{enc(name)}/workers/claim", {"processKind": "process", "processKey": "enc"}
    )["assignment"]
    if got is None or got["participantSlug"] != name:
        raise platform.drift("A-06", "claimWorker", f"claiming under {name!r} answered {got}")


def check_oauth_names_its_org(platform: Platform, token: str, org_id: str, org_slug: str) -> None:
    """An API key implies its org; an OAuth token reads the same org through either header, and is refused
    without one."""
    by_key = platform.json("GET", "/benchmarks", claim="A-03.1")["items"]

    def with_oauth(headers: dict[str, str]):
        return platform.http.get(BASE + "/benchmarks", headers={"Authorization": f"Bearer {token}", **headers})

    for clause, headers in (("A-03.2", {"X-Org-Slug": org_slug}), ("A-04.1", {"X-Organization-Id": org_id})):
        r = with_oauth(headers)
        if r.status_code != 200 or r.json()["items"] != by_key:
            raise platform.drift(
                clause,
                f"listBenchmarks with {sorted(headers)}",
                f"an OAuth token answered {r.status_code}; the org's key lists {len(by_key)} benchmarks",
                "curl '$BENCHMARKS_PLATFORM_URL/api/v1/benchmarks'"
                " -H 'Authorization: Bearer $BENCHMARKS_PLATFORM_TOKEN'"
                f" -H '{next(iter(headers))}: {next(iter(headers.values()))}'",
            )
    bare = with_oauth({})
    if bare.status_code // 100 == 2:
        raise platform.drift("A-04.2", "listBenchmarks", "an OAuth request naming no org was answered")


def test_encoded_path_params(platform):
    """A-06: reserved characters in a participant slug round-trip through percent-encoding."""
    check_encoded_path_params(platform)


def test_oauth_names_its_org(platform, target):
    """A-03.1, A-03.2, A-04.1, A-04.2: an OAuth token (minted on the mock) with X-Org-Slug or
    X-Organization-Id reads its org."""
    if not target.control:
        pytest.skip("no control surface: an OAuth token is minted on the mock's /__mock/tokens")
    minted = platform.raw("POST", platform.base_url + "/__mock/tokens", json={"kind": "oauth"}).json()
    check_oauth_names_its_org(platform, minted["token"], minted["org_id"], minted["org_slug"])


def test_records_read_back_as_sent(platform, target):
    """A-44, A-53, A-54.1, A-54.2, A-55.1, A-55.2, A-56, A-57, A-60, A-91, A-92, A-97, A-98.1, A-98.2,
    A-98.3, A-98.4: stored records and every figure computed from them, the latency summaries and success
    rates clause by clause (A-96.1, A-96.2, A-96.3, A-96.4)."""
    check_records_read_back(platform, settle_for(platform, target))


def test_aggregates_match_a_model(platform, target):
    """A-44, A-96.1, A-96.2, A-96.3, A-96.4, A-98.1, A-98.2, A-98.3, A-98.4: every figure the read path
    computes from the records sent, against an independent model on generated records."""
    check_aggregates_match_the_model(platform, settle_for(platform, target))


def test_resource_tree(platform):
    """A-18, A-19, A-21, A-01.1, A-07.1: nothing outside its parent; the API under /api/v1."""
    check_tree(platform)


def test_run_shapes(platform):
    """A-28.1, A-28.2, A-29, A-31, A-33.1, A-33.2, A-22, A-77, A-82.1, A-82.2, A-82.3, A-84.1, A-84.2:
    both create shapes, the snapshot, PATCHes."""
    check_run_shapes(platform)


def test_artifacts_and_closing(platform):
    """A-62, A-63, A-65, A-66, A-67, A-68, A-89, A-90.1, A-48.1, A-72: every artifact kind, heartbeats at
    a high rate, fail."""
    check_artifacts_and_closing(platform)

"""One worker's life, read back clause by clause (contracts/benchsdk/clauses.py): fixed scenarios of
what the state machine (`test_bench_run`) explores at random, so that each clause is asserted on every
run and an injected drift of it is caught by one small check.

- The benchmark: a repeated PUT leaves one benchmark holding the last body (A-25.1, A-25.2); the
  listing pages with limit/offset under `items` (A-81); a body that is not JSON (A-05) and a slug
  that is not lowercase (A-17) are refused.
- A run: the create answer (A-34) registers the listed participants (A-36); the run carries its status,
  totalTasks and config (A-20); planned workers own `targetConcurrency` tasks each (A-40) and read the
  claim's range (A-23); a repeated participant PUT updates it (A-38); another organisation's benchmark,
  subscribed to, takes runs (A-26, the mock's seeded feed); the same runKey from another organisation
  gives another run (A-13.2, a second organisation minted on the mock).
- Heartbeats: the worker row keeps each field (A-47.1-3), worker listings carry them (A-88), the
  progress view (A-49.1, A-49.2: task counts A-85.1, freshness A-85.2, ready flags A-85.3) and the
  timeline (A-99.3) are fed by them; a step's ready flag is set once its samples reach their target
  (A-86, the barrier of `readiness: 'poll'` steps).
- Records: the timeline's event-rate buckets (A-99.1, A-99.2), the iteration rows by type, participant
  and step (A-101.1-3), the participant logs bounded by maxLines (A-87).
- Closing: worker mutations need attemptId (A-14, A-69.1), complete and fail (A-70) keep an error only on
  fail (A-69.2), release makes the worker pending (A-71.1) and claimable again (A-71.2); the run summary
  is stored with its metadata, rows and scoring echo (A-73.1-3).

Everything is written under benchmark slugs of the suite's own (`contract-…`), except A-26's one run
under the mock's seeded feed (skipped without the mock's control surface).
"""

from __future__ import annotations

from typing import Any

import pytest

from ._client import Platform, enc
from .test_read_path import Settle, imported, settle_for
from .test_scenarios import FEED, claim_worker, claimed, new_slug, wpath

T0 = "2026-04-20T10:00:00.000Z"


def _at(ms: int) -> str:
    return f"2026-04-20T10:00:{ms // 1000:02d}.{ms % 1000:03d}Z"


def check_benchmark_upsert_and_listing(p: Platform) -> None:
    slug = new_slug()
    p.call("PUT", f"/benchmarks/{slug}", {"name": "Contract (draft)"}, claim="A-24")
    last = {"name": "Contract lifecycle", "config": {"display": {"unit": "ms"}}}
    p.call("PUT", f"/benchmarks/{slug}", last, claim="A-25.2")
    bench = p.json("GET", f"/benchmarks/{slug}", claim="A-25.2")["benchmark"]
    if bench["name"] != last["name"] or bench.get("config") != last["config"]:
        raise p.drift("A-25.2", "getBenchmark", f"after two PUTs it reads {bench['name']!r}, {bench.get('config')}")
    seen: list[str] = []
    offset = 0
    while True:
        page = p.json("GET", "/benchmarks", params={"limit": 50, "offset": offset}, claim="A-81")["items"]
        if len(page) > 50:
            raise p.drift("A-81", "listBenchmarks", f"limit=50 answered {len(page)} benchmarks")
        seen += [row["slug"] for row in page]
        if len(page) < 50:
            break
        offset += 50
    if seen.count(slug) != 1:
        raise p.drift("A-25.1", "listBenchmarks", f"two PUTs of {slug} list it {seen.count(slug)} times")
    if len(seen) >= 2:
        second = p.json("GET", "/benchmarks", params={"limit": 1, "offset": 1}, claim="A-81")["items"]
        if [row["slug"] for row in second] != seen[1:2]:
            raise p.drift("A-81", "listBenchmarks", f"limit=1&offset=1 lists {second[:1]}, not the second {seen[1]}")
    headers = {**p.headers, "Content-Type": "application/x-www-form-urlencoded"}
    form = p.http.put(f"/api/v1/benchmarks/{slug}", content=b"name=Contract+form", headers=headers)
    if form.status_code // 100 != 4:
        raise p.drift("A-05", "upsertBenchmark", f"a form-encoded body answered {form.status_code}, not a 4xx")
    p.call("PUT", f"/benchmarks/{slug.upper()}", {"name": "Contract upper"}, expect=400, claim="A-17")


def _run(p: Platform, slug: str, body: dict[str, Any]) -> dict[str, Any]:
    return p.json("POST", f"/benchmarks/{slug}/runs", body, expect=201, claim="A-34")


def check_run_and_workers(p: Platform) -> None:
    slug = new_slug()
    p.call("PUT", f"/benchmarks/{slug}", {"name": "Contract run"}, claim="A-24")
    names = ["e2b", "modal"]
    config = {"benchmarkSlug": slug, "iterations": 4, "groupBy": "participant", "participants": names}
    made = _run(p, slug, {"totalTasks": 8, "participants": names, "config": config})
    run = made["run"]
    if not isinstance(made.get("organizationSlug"), str) or made["organizationSlug"] != run.get("organizationSlug"):
        raise p.drift("A-34", "createRun", f"organizationSlug {made.get('organizationSlug')!r} is not the run's org")
    if [x.get("slug") for x in made["participants"]] != names:
        raise p.drift("A-36", "createRun", f"participants {made['participants']}, listed {names}")
    base = f"/benchmarks/{slug}/runs/{enc(run['id'])}"
    read = p.json("GET", base, claim="A-20")["run"]
    if not isinstance(read.get("status"), str) or read.get("totalTasks") != 8 or read.get("config") != config:
        raise p.drift("A-20", "getRun", f"status {read.get('status')!r}, totalTasks {read.get('totalTasks')}")
    planned = p.json("POST", f"{base}/participants/e2b/workers", {"workerCount": 2, "targetConcurrency": 2})["items"]
    sizes = [w["taskIndexEnd"] - w["taskIndexStart"] + 1 for w in planned]
    if sizes != [2, 2]:
        raise p.drift("A-40", "planWorkers", f"targetConcurrency 2 over 4 tasks planned ranges of {sizes} tasks")
    a = claim_worker(p, slug, run["id"], "e2b", "contract", "A-41.2")
    if a is None:
        raise p.drift("A-41.2", "claimWorker", "a pending worker was not handed out")
    worker = p.json("GET", f"{base}/workers/{enc(a['workerId'])}", claim="A-23")["worker"]
    span = (worker["taskIndexStart"], worker["taskIndexEnd"], worker["targetConcurrency"])
    if span != (a["taskRange"]["start"], a["taskRange"]["end"], 2):
        raise p.drift("A-23", "getWorker", f"the worker owns {span}; claimed {a['taskRange']} at concurrency 2")
    shared = _run(p, slug, {"runKey": new_slug()})["run"]
    path = f"/benchmarks/{slug}/runs/{enc(shared['id'])}"
    for total in (4, 2):
        p.call("PUT", f"{path}/participants/e2b", {"totalTasks": total}, claim="A-38")
    rows = [r for r in p.json("GET", f"{path}/progress", claim="A-38")["participants"] if r["slug"] == "e2b"]
    if [r["totalTasks"] for r in rows] != [2]:
        raise p.drift("A-38", "getRunProgress", f"e2b registered 4 then 2 reads {[r['totalTasks'] for r in rows]}")


def check_foreign_benchmark_takes_runs(p: Platform) -> None:
    made = p.json("POST", f"/benchmarks/{FEED}/runs", {"totalTasks": 1, "participants": ["e2b"]}, expect=201,
                  claim="A-26")  # fmt: skip
    if made["run"]["benchmarkSlug"] != FEED:
        raise p.drift("A-26", "createRun", f"a run on {FEED} reads benchmark {made['run']['benchmarkSlug']}")


def check_run_key_per_org(p: Platform, other: Platform) -> None:
    """A-13.2: `other` (another organisation's key) sends the same runKey on the same benchmark."""
    slug, key = new_slug(), new_slug()
    p.call("PUT", f"/benchmarks/{slug}", {"name": "Contract run keys"}, claim="A-24")
    mine = _run(p, slug, {"runKey": key})["run"]["id"]
    theirs = other.json("POST", f"/benchmarks/{slug}/runs", {"runKey": key}, expect=201, claim="A-13.2")["run"]
    if theirs["id"] == mine:
        raise p.drift("A-13.2", "createRun", "another organisation's runKey found this organisation's run")


def other_org(p: Platform) -> Platform:
    """A platform client with an API key of a second organisation, minted on the mock's control surface."""
    org = p.raw("POST", p.base_url + "/__mock/orgs", json={"slug": new_slug()}).json()
    key = p.raw("POST", p.base_url + "/__mock/tokens", json={"org_id": org["id"], "kind": "api_key"}).json()
    return Platform(p.http, p.base_url, key["token"])


SAMPLES = [{"step": "exec", "active": 1, "target": 2}, {"step": "create", "active": 0, "target": 2}]
BEAT = {"progressDone": 1, "progressInFlight": 1, "progressErrors": 1, "progressTotal": 2, "currentStep": "exec"}


def check_heartbeat_reads(p: Platform) -> None:
    slug, run_id, a = claimed(p, tasks=2)
    worker = wpath(slug, run_id, a)
    p.call("POST", worker + "/heartbeat", {"attemptId": a["attemptId"], **BEAT, "concurrency": SAMPLES}, claim="A-47.1")
    row = p.json("GET", worker, claim="A-47.1")["worker"]
    counters = ("progressDone", "progressInFlight", "progressErrors", "progressTotal")
    if {k: row.get(k) for k in counters} != {k: BEAT[k] for k in counters}:
        raise p.drift("A-47.1", "getWorker", f"progress {[row.get(k) for k in counters]}, sent {BEAT}")
    if row.get("currentStep") != BEAT["currentStep"]:
        raise p.drift("A-47.2", "getWorker", f"currentStep {row.get('currentStep')!r}, sent 'exec'")
    if row.get("concurrency") != SAMPLES:
        raise p.drift("A-47.3", "getWorker", f"concurrency {row.get('concurrency')}, sent {SAMPLES}")
    run = f"/benchmarks/{slug}/runs/{enc(run_id)}"
    listed = p.json("GET", f"{run}/participants/e2b/workers", claim="A-88")["items"]
    mine = [w for w in listed if w["id"] == a["workerId"]]
    if not mine or mine[0].get("progressDone") != 1 or mine[0].get("concurrency") != SAMPLES:
        raise p.drift("A-88", "listParticipantWorkers", f"the worker row reads {mine[:1]}")
    view = next(r for r in p.json("GET", f"{run}/progress", claim="A-49.1")["participants"] if r["slug"] == "e2b")
    if view["totalTasks"] != 2 or view["tasks"]["total"] != 2:
        raise p.drift("A-85.1", "getRunProgress", f"e2b of 2 tasks reads {view['totalTasks']}, {view['tasks']}")
    if (view["workers"]["running"], view["workers"]["stale"], view["workers"]["total"]) != (1, 0, 1):
        raise p.drift("A-85.2", "getRunProgress", f"one heartbeating worker reads {view['workers']}")
    if any(not isinstance(s.get("ready"), bool) for s in view.get("concurrency") or [{}]):
        raise p.drift("A-85.3", "getRunProgress", f"the per-step rows {view.get('concurrency')} lack a ready flag")
    tasks = view["tasks"]
    if (tasks["done"], tasks["inFlight"], tasks["errors"]) != (1, 1, 1):
        raise p.drift("A-49.1", "getRunProgress", f"the heartbeat's 1/1/1 reads {tasks}")
    steps = {s["step"]: (s["active"], s["target"]) for s in view.get("concurrency") or []}
    if steps != {s["step"]: (s["active"], s["target"]) for s in SAMPLES}:
        raise p.drift("A-49.2", "getRunProgress", f"the per-step concurrency reads {steps}")
    timeline = p.json("GET", f"{run}/results/timeline", claim="A-99.3")["concurrency"]
    points = sorted((q["step"], q["active"], q["target"], q["workerId"]) for q in timeline["points"])
    expected = sorted((s["step"], s["active"], s["target"], a["workerId"]) for s in SAMPLES)
    if timeline["heartbeatCount"] != 1 or points != expected:
        raise p.drift("A-99.3", "getRunTimeline", f"{timeline['heartbeatCount']} heartbeats, points {points}")
    ready = {s["step"]: s["ready"] for s in view["concurrency"]}
    reached = [{**SAMPLES[0], "active": 2}, SAMPLES[1]]  # exec reaches its target, create does not
    p.call("POST", worker + "/heartbeat", {"attemptId": a["attemptId"], "concurrency": reached}, claim="A-86")
    view = next(r for r in p.json("GET", f"{run}/progress", claim="A-86")["participants"] if r["slug"] == "e2b")
    now = {s["step"]: s["ready"] for s in view["concurrency"]}
    if ready != {"exec": False, "create": False} or now != {"exec": True, "create": False}:
        raise p.drift("A-86", "getRunProgress", f"ready flags {ready} below target, {now} once exec reached it")


def _record(index: int, done_ms: int, ok: bool, steps: list[str]) -> dict[str, Any]:
    return {
        "taskIndex": index,
        "status": "success" if ok else "error",
        **({} if ok else {"errorCode": "CONTRACT_ERROR"}),
        "startedAt": T0,
        "completedAt": _at(done_ms),
        "latencyMs": done_ms,
        "steps": [{"name": name, "status": "success", "latencyMs": 1} for name in steps],
    }


def check_records_timeline_and_iterations(p: Platform, settle: Settle) -> None:
    slug, run_id, a = claimed(p, tasks=2, participants=("e2b", "modal"))
    run = f"/benchmarks/{slug}/runs/{enc(run_id)}"
    recs = [_record(0, 400, True, ["create", "exec"]), _record(1, 1300, False, ["create"])]
    body = {"type": "task_results", "attemptId": a["attemptId"], "sequenceNumber": 0, "isFinal": True, "records": recs}
    p.call("POST", wpath(slug, run_id, a) + "/events", body, claim="A-50")
    imported(p, run, settle, 1)
    rate = p.json("GET", f"{run}/results/timeline", params={"bucketMs": 250}, claim="A-99.1")["eventRate"]
    starts = sorted(b["tMs"] for b in rate["buckets"])
    if rate["bucketMs"] != 250 or starts != [250, 1250]:
        raise p.drift("A-99.1", "getRunTimeline", f"bucketMs=250 gave {rate['bucketMs']}, buckets at {starts}")
    counts = sorted((b["tMs"], b["completed"], b["succeeded"], b["failed"]) for b in rate["buckets"])
    if counts != [(250, 1, 1, 0), (1250, 1, 0, 1)]:
        raise p.drift("A-99.2", "getRunTimeline", f"completed/succeeded/failed per bucket {counts}")
    tasks = p.json("GET", f"{run}/iterations", params={"type": "tasks"}, claim="A-101.1")
    steps = p.json("GET", f"{run}/iterations", params={"type": "steps"}, claim="A-101.1")
    task_rows = sorted(r["taskIndex"] for r in tasks.get("tasks") or [])
    step_rows = sorted((r["taskIndex"], r["stepName"]) for r in steps.get("steps") or [])
    if task_rows != [0, 1] or step_rows != [(0, "create"), (0, "exec"), (1, "create")]:
        raise p.drift("A-101.1", "listRunIterations", f"type=tasks {task_rows}, type=steps {step_rows}")
    other = p.json("GET", f"{run}/iterations", params={"type": "tasks", "participant": "modal"}, claim="A-101.2")
    if other.get("tasks"):
        raise p.drift("A-101.2", "listRunIterations", f"participant=modal lists e2b's {len(other['tasks'])} tasks")
    named = p.json("GET", f"{run}/iterations", params={"type": "steps", "steps": "exec"}, claim="A-101.3")
    if sorted((r["taskIndex"], r["stepName"]) for r in named.get("steps") or []) != [(0, "exec")]:
        raise p.drift("A-101.3", "listRunIterations", f"steps=exec lists {named.get('steps')}")


def check_participant_logs(p: Platform) -> None:
    slug, run_id, a = claimed(p)
    lines = [f"contract line {i}" for i in range(5)]
    body = {"attemptId": a["attemptId"], "kind": "coordinator.log", "contentType": "text/plain", "name": "worker.log"}
    created = p.json("POST", wpath(slug, run_id, a) + "/artifacts", body, claim="A-66")
    put = p.raw("PUT", created["uploadUrl"], content="\n".join(lines).encode() + b"\n",
                headers={"Content-Type": "text/plain"})  # fmt: skip
    if put.status_code // 100 != 2:
        raise p.drift("A-61", "PUT uploadUrl", f"{put.status_code}: {put.text[:200]}")
    logs = p.json("GET", f"/benchmarks/{slug}/runs/{enc(run_id)}/participants/e2b/logs", params={"maxLines": 3},
                  claim="A-87")  # fmt: skip
    got = [row["line"] for row in logs["items"]]
    if len(got) > 3 or not got or any(line not in lines for line in got):
        raise p.drift("A-87", "getParticipantLogs", f"maxLines=3 of {lines} answered {got}")


def _closing(p: Platform, slug: str, run_id: str, a: dict[str, Any], outcome: str, **extra: Any) -> dict[str, Any]:
    return p.json("POST", wpath(slug, run_id, a) + f"/{outcome}", {"attemptId": a["attemptId"], **extra},
                  claim="A-70")["worker"]  # fmt: skip


def check_closing(p: Platform) -> None:
    slug, run_id, a = claimed(p, tasks=2)
    worker = wpath(slug, run_id, a)
    for suffix, extra in (
        ("/heartbeat", {"progressDone": 1}),
        ("/events", {"type": "task_results", "sequenceNumber": 0, "records": [_record(0, 10, True, [])]}),
        ("/artifacts", {"kind": "coordinator.log", "contentType": "text/plain", "name": "w.log"}),
    ):
        p.call("POST", worker + suffix, extra, expect=400, claim="A-14")
    for outcome in ("complete", "fail", "release"):
        p.call("POST", worker + f"/{outcome}", {}, expect=400, claim="A-69.1")
    done = _closing(p, slug, run_id, a, "complete")
    read = p.json("GET", worker, claim="A-69.2")["worker"]
    if done["status"] != "completed":
        raise p.drift("A-70", "completeWorker", f"a completed worker reads {done['status']}")
    if read.get("errorCode") is not None or read.get("errorMessage") is not None:
        raise p.drift("A-69.2", "getWorker", f"a completed worker carries an error: {read.get('errorCode')!r}")
    slug, run_id, b = claimed(p, tasks=2)
    failed = _closing(p, slug, run_id, b, "fail", errorCode="CONTRACT_FAIL", errorMessage="three tasks failed")
    if failed["status"] != "failed":
        raise p.drift("A-70", "failWorker", f"a failed worker reads {failed['status']}")
    read = p.json("GET", wpath(slug, run_id, b), claim="A-69.2")["worker"]
    if (read.get("errorCode"), read.get("errorMessage")) != ("CONTRACT_FAIL", "three tasks failed"):
        raise p.drift(
            "A-69.2", "getWorker", f"a failed worker reads {read.get('errorCode')}/{read.get('errorMessage')}"
        )
    slug, run_id, c = claimed(p, tasks=2)
    _closing(p, slug, run_id, c, "release")
    if p.json("GET", wpath(slug, run_id, c), claim="A-71.1")["worker"]["status"] != "pending":
        raise p.drift("A-71.1", "getWorker", "a released worker does not read pending")
    again = claim_worker(p, slug, run_id, "e2b", "contract-again", "A-71.2")
    if again is None or again["workerId"] != c["workerId"] or again["attemptNumber"] != c["attemptNumber"] + 1:
        raise p.drift("A-71.2", "claimWorker", f"after a release the next claim answered {again}")


def check_summary_stored(p: Platform) -> None:
    slug, run_id, _ = claimed(p)
    summary = {
        "run": {"gitRef": "main", "sdkVersion": "0.0.0-contract"},
        "results": [
            {
                "provider": "e2b",
                "dimensions": {"phase": "cold"},
                "metrics": [{"name": "ttiMs", "median": 120}],
                "compositeScore": 62.5,
                "successRate": 1.0,
                "skipped": False,
            }
        ],
        "scoring": {"metrics": [{"name": "ttiMs", "weight": 1, "direction": "lower"}]},
    }
    path = f"/benchmarks/{slug}/runs/{enc(run_id)}"
    p.call("POST", path + "/summary", summary, claim="A-73.1")
    stored = p.json("GET", path, claim="A-73.1")["run"].get("summary") or {}
    for n, part in ((1, "run"), (2, "results"), (3, "scoring")):
        if stored.get(part) != summary[part]:
            raise p.drift(f"A-73.{n}", "getRun", f"the stored summary's {part} is {stored.get(part)}")


def test_benchmark_upsert_and_listing(platform):
    """A-25.1, A-25.2, A-81, A-05, A-17."""
    check_benchmark_upsert_and_listing(platform)


def test_run_and_workers(platform):
    """A-20, A-23, A-34, A-36, A-38, A-40."""
    check_run_and_workers(platform)


def test_foreign_benchmark_takes_runs(platform, target):
    """A-26: a run on a benchmark of another organisation (the mock's seeded, subscribed feed)."""
    if not target.control:
        pytest.skip("another organisation's benchmark is the mock's seeded feed; a deployment's are not known")
    check_foreign_benchmark_takes_runs(platform)


def test_run_key_per_org(platform, target):
    """A-13.2: the same runKey under another organisation gives a different run."""
    if not target.control:
        pytest.skip("a second organisation's key is minted on the mock's /__mock/tokens")
    check_run_key_per_org(platform, other_org(platform))


def test_heartbeat_reads(platform):
    """A-47.1, A-47.2, A-47.3, A-88, A-49.1, A-49.2, A-85.1, A-85.2, A-85.3, A-86, A-99.3."""
    check_heartbeat_reads(platform)


def test_records_timeline_and_iterations(platform, target):
    """A-99.1, A-99.2, A-101.1, A-101.2, A-101.3."""
    check_records_timeline_and_iterations(platform, settle_for(platform, target))


def test_participant_logs(platform):
    """A-87: at most maxLines lines of the uploaded worker log."""
    check_participant_logs(platform)


def test_closing(platform):
    """A-14, A-69.1, A-69.2, A-70, A-71.1, A-71.2."""
    check_closing(platform)


def test_summary_stored(platform):
    """A-73.1, A-73.2, A-73.3."""
    check_summary_stored(platform)

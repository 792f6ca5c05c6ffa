"""@benchsdk/worker's sequence against the mock, as the runtime sends it (`worker_runtime.py`): the finish
(reference §8: the worker log and metrics.jsonl "both ship this way at finish", §9 close; A-61, A-65..A-67,
A-69, A-70), heartbeats (§6, A-47..A-49), log flushing, metrics, readiness polling (Read path: progress
`ready` flags, A-85), the reporter's round mode and a reclaim (A-14, A-15, A-45).

The runtime closes its worker and only then, in its `finally`, uploads `worker.log` and `metrics.jsonl`;
its heartbeat timer fires once more before it is cleared. The mock must store and serve both, and read
progress done = total."""

from __future__ import annotations

import gzip

from .client import enc
from .worker_runtime import HEARTBEAT_S, Worker

SLUG = "runtime-tti"


def _run(platform, participants: dict[str, int], workers: int = 1, per: int | None = None) -> str:
    platform.upsert_benchmark(SLUG, {"name": "Runtime"})
    total = sum(participants.values())
    run_id = platform.create_run(SLUG, {"totalTasks": total, "participants": list(participants)})["run"]["id"]
    for name, count in participants.items():
        platform.plan(SLUG, run_id, name, workers, per or count)
    return run_id


def _downloads(platform, run_id: str, worker_id: str) -> dict[str, bytes]:
    path = platform.worker_path(SLUG, run_id, worker_id)
    out = {}
    for art in platform.get(path + "/artifacts")["items"]:
        detail = platform.get(path + f"/artifacts/{enc(art['id'])}")
        got = platform.client.get(detail["downloadUrl"])
        assert got.status_code == 200
        out[art["name"]] = out.get(art["name"], b"") + got.content
    return out


def _participant(platform, run_id: str, slug: str) -> dict:
    progress = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/progress")
    return next(p for p in progress["participants"] if p["slug"] == slug)


def test_a_finished_worker_stores_its_log_and_metrics_and_reads_done_equals_total(platform, advance):
    """runWorker, defaults (batch 1000, no mid-run log flush): 5 tasks of 14 s, so the 30 s heartbeat
    and metrics timers fire between them; the first step polls readiness. After `complete` the log and
    metrics upload, and the late heartbeat (done = total) is taken."""
    run_id = _run(platform, {"e2b": 5})
    w = Worker(platform, advance, SLUG, run_id, "e2b")
    assert w.claim() is not None
    w.start()
    for index in range(w.total):
        w.task(index, seconds=14, poll=index == 0)
    assert w.finish() == "complete"

    late = [(status, body) for status, body in w.heartbeats if body["progressDone"] == w.total]
    assert late and all(status == 200 for status, _ in late), late
    assert [(name, status) for name, _, status in w.uploads] == [("worker.log", 200), ("metrics.jsonl", 200)]
    stored = _downloads(platform, run_id, w.a["workerId"])
    assert stored["worker.log"] == w.uploads[0][1] and stored["worker.log"].count(b"create\n") == 5
    assert stored["metrics.jsonl"] == w.uploads[1][1]
    # the baseline, the 30 s ticks at 30 and 60 s, the one at 90 s while the finish runs (the timers are
    # cleared after the log upload), the last sample
    assert len(stored["metrics.jsonl"].splitlines()) == 1 + 3 + 1
    worker = platform.get(platform.worker_path(SLUG, run_id, w.a["workerId"]))["worker"]
    assert (worker["status"], worker["progressDone"], worker["progressTotal"]) == ("completed", 5, 5)
    assert worker["progressInFlight"] == 0
    tasks = _participant(platform, run_id, "e2b")["tasks"]
    assert (tasks["done"], tasks["total"]) == (5, 5)
    logs = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b/logs")
    assert [i["line"] for i in logs["items"]] == stored["worker.log"].decode().splitlines()


def test_the_last_heartbeat_before_complete_is_one_short_and_the_late_one_fixes_it(platform, advance):
    """The step-exit heartbeat of the last task goes out before the task counts as done (done = total − 1);
    without the late heartbeat the worker would read one short of its range."""
    run_id = _run(platform, {"e2b": 3})
    w = Worker(platform, advance, SLUG, run_id, "e2b")
    w.claim()
    w.start()
    for index in range(3):
        w.task(index, seconds=5)
    before_close = w.heartbeats[-1][1]
    assert before_close["progressDone"] == 2  # the last one sent before complete
    w.finish()
    assert w.heartbeats[-1] == (200, {**before_close, "progressDone": 3, "progressInFlight": 0})
    worker = platform.get(platform.worker_path(SLUG, run_id, w.a["workerId"]))["worker"]
    assert worker["progressDone"] == 3


def test_a_failed_worker_still_uploads_and_its_late_heartbeat_counts_the_error(platform, advance):
    """A task error: `fail` with 'One or more tasks failed', then the same uploads (A-70, A-72)."""
    run_id = _run(platform, {"modal": 3})
    w = Worker(platform, advance, SLUG, run_id, "modal")
    w.claim()
    w.start()
    for index in range(3):
        w.task(index, seconds=12, fail=index == 1)
    assert w.finish() == "fail"
    assert [status for _, _, status in w.uploads] == [200, 200]
    worker = platform.get(platform.worker_path(SLUG, run_id, w.a["workerId"]))["worker"]
    assert (worker["status"], worker["errorMessage"]) == ("failed", "One or more tasks failed")
    assert (worker["progressDone"], worker["progressErrors"]) == (3, 1)


def test_log_flushing_uploads_mid_run_and_the_rest_at_finish(platform, advance):
    """logFlushIntervalMs = 20 s and batchSize 2: the log goes up in pieces (A-65), each once, and the
    results in several batches, the last final; the participant's logs read every line once, in order."""
    run_id = _run(platform, {"e2b": 5})
    w = Worker(platform, advance, SLUG, run_id, "e2b", batch_size=2, log_flush_s=20)
    w.claim()
    w.start()
    for index in range(5):
        w.task(index, seconds=9)
    w.finish()
    logs = [body for name, body, status in w.uploads if name == "worker.log" and status == 200]
    assert len(logs) >= 3
    lines = [i["line"] for i in platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b/logs")["items"]]
    assert lines == b"".join(logs).decode().splitlines() and len(lines) == 5
    imports = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/results/imports")["items"]
    assert sorted(i["sequenceNumber"] for i in imports) == [0, 1, 2]


def test_a_gzip_log_round_trips(platform, advance):
    """BENCHMARK_LOG_COMPRESSION=gzip: the log is sent as application/gzip, downloaded as sent."""
    run_id = _run(platform, {"e2b": 1})
    w = Worker(platform, advance, SLUG, run_id, "e2b")
    w.claim()
    w.start()
    w.task(0, seconds=3)
    w.finish(late_beat=False)
    body = gzip.compress(b"worker line\n", mtime=0)
    created = platform.artifact(
        SLUG, run_id, w.a, kind="coordinator.log", name="worker.log", content_type="application/gzip", data=body
    )
    detail = platform.get(platform.worker_path(SLUG, run_id, w.a["workerId"]) + f"/artifacts/{created['artifactId']}")
    assert gzip.decompress(platform.client.get(detail["downloadUrl"]).content) == b"worker line\n"


def test_a_reclaimed_worker_refuses_the_old_attempts_finish_and_takes_the_new_ones(platform, advance):
    """A process that went silent past the lease is reclaimed (A-45); its late close and uploads are
    `409 stale_attempt` (A-15), while the new attempt's whole sequence, finish included, is taken."""
    run_id = _run(platform, {"e2b": 2})
    old = Worker(platform, advance, SLUG, run_id, "e2b")
    old.claim()
    old.start()
    old.task(0, seconds=5)
    advance(platform.client.app.state.api.store.timing.lease_seconds + 1)
    new = Worker(platform, advance, SLUG, run_id, "e2b")
    assert new.claim()["attemptNumber"] == 2 and new.a["workerId"] == old.a["workerId"]
    new.start()
    assert old.heartbeat() == 409
    assert old._upload("coordinator.log", "worker.log", "text/plain", b"stale\n") == 409
    for index in range(2):
        new.task(index, seconds=5)
    new.finish()
    assert [status for _, _, status in new.uploads] == [200, 200]
    stored = _downloads(platform, run_id, new.a["workerId"])
    assert b"stale" not in stored["worker.log"]
    assert _participant(platform, run_id, "e2b")["tasks"]["done"] == 2


def test_reporter_round_mode_interleaves_participants_and_uploads_the_shared_metrics(platform, advance):
    """groupBy 'round': one BenchmarkReporter per participant (planned with the full schedule length as
    targetConcurrency), each round a barrier (heartbeat with the barrier's concurrency, then progress
    polled until the step is ready), setProgress + heartbeat after every task, results flushed at finish,
    then complete; the process-scoped metrics artifact (metadata.scope 'shared-process' and the
    participant list, A-68) goes up through a reporter whose worker has completed."""
    run_id = _run(platform, {"e2b": 2, "modal": 2})
    reporters = {name: Worker(platform, advance, SLUG, run_id, name, batch_size=500) for name in ("e2b", "modal")}
    for r in reporters.values():
        r.claim()
    for round_index in range(2):
        for name, r in reporters.items():
            barrier = [{"step": "round", "active": r.total, "target": r.total}]
            assert r.heartbeat(barrier) == 200
            progress = _participant(platform, run_id, name)
            assert any(c["step"] == "round" and c["ready"] for c in progress["concurrency"]), progress
            r.done += 1
            r.pending.append({"taskIndex": round_index, "status": "success", "latencyMs": 10})
            assert r.heartbeat() == 200  # setProgress, then a heartbeat
        advance(HEARTBEAT_S)
    for r in reporters.values():
        r.flush(final=True)
        platform.close(SLUG, run_id, r.a, "complete")
    first = reporters["e2b"]
    body = b'{"ts":"t+60s","memRssMb":41}\n'
    created = platform.artifact(
        SLUG,
        run_id,
        first.a,
        kind="system-metrics",
        name="metrics.jsonl",
        content_type="application/x-ndjson",
        data=body,
        metadata={"scope": "shared-process", "participants": ["e2b", "modal"]},
    )
    assert created["artifact"]["metadata"]["scope"] == "shared-process"
    progress = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/progress")
    assert [(p["slug"], p["tasks"]["done"], p["tasks"]["total"]) for p in progress["participants"]] == [
        ("e2b", 2, 2),
        ("modal", 2, 2),
    ]
    assert _downloads(platform, run_id, first.a["workerId"])["metrics.jsonl"] == body

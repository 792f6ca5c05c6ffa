"""Artifacts (Write path §8) and the computed read views (Read path)."""

from __future__ import annotations

import gzip
from urllib.parse import parse_qs, urlsplit

import pytest

from mock_server.benchsdk.model import artifacts, events, results, workers
from mock_server.benchsdk.model.errors import Refusal

from .world import LIMITS_HEARTBEAT, World, record


def _claimed(w: World, slug: str = "e2b", tasks: int = 3, run=None):
    run = run or w.run(totalTasks=tasks, participants=[slug])
    w.planned(run, slug, per_worker=tasks)
    worker, att = w.claim(run, slug)
    return run, worker, att


def _parts(url: str) -> tuple[str, str, str]:
    split = urlsplit(url)
    q = parse_qs(split.query)
    return split.path, q["exp"][0], q["sig"][0]


def _announce(w, run, worker, att, **body):
    body = {"attemptId": att.id, "kind": "coordinator.log", "contentType": "text/plain", "name": "worker.log", **body}
    art = artifacts.announce(w.store, run=run, worker=worker, body=body, now=w.now)
    url = artifacts.presigned_url(w.store, "http://mock", "PUT", art.object_key, art.upload_expires_at)
    path, exp, sig = _parts(url)
    assert path == artifacts.UPLOAD_PREFIX + art.object_key
    return art, exp, sig


def test_upload_then_download_byte_for_byte_and_size_filled():
    """A-61, A-64, A-90."""
    w = World()
    run, worker, att = _claimed(w)
    payload = gzip.compress(b"line one\nline two\n")
    art, exp, sig = _announce(w, run, worker, att, contentType="application/gzip", name="worker.log.gz")
    artifacts.upload(
        w.store, key=art.object_key, exp=exp, sig=sig, content_type="application/gzip", data=payload, now=w.now
    )
    assert art.metadata["sizeBytes"] == len(payload)
    url = artifacts.presigned_url(w.store, "http://mock", "GET", art.object_key, w.tick(1))
    _, dexp, dsig = _parts(url)
    got = artifacts.download(w.store, key=art.object_key, exp=dexp, sig=dsig, now=w.now)
    assert got.data == payload and gzip.decompress(got.data) == b"line one\nline two\n"


def test_declared_size_is_kept():
    """A-64: filled only when absent."""
    w = World()
    run, worker, att = _claimed(w)
    art, exp, sig = _announce(w, run, worker, att, metadata={"sizeBytes": 7})
    artifacts.upload(w.store, key=art.object_key, exp=exp, sig=sig, content_type="text/plain", data=b"abc", now=w.now)
    assert art.metadata["sizeBytes"] == 7


@pytest.mark.parametrize("fault", ["type", "signature", "expired", "method"])
def test_upload_refusals_store_nothing(fault):
    """A-61 (A.3-23): wrong Content-Type, bad signature, expired URL → 403."""
    w = World()
    run, worker, att = _claimed(w)
    art, exp, sig = _announce(w, run, worker, att)
    content_type = "text/plain"
    if fault == "type":
        content_type = "application/json"
    elif fault == "signature":
        sig = sig[:-1] + ("0" if sig[-1] != "0" else "1")
    elif fault == "expired":
        w.tick(w.store.timing.upload_url_ttl_seconds + 1)
    elif fault == "method":  # a download signature does not authorize an upload
        _, exp, sig = _parts(artifacts.presigned_url(w.store, "http://m", "GET", art.object_key, art.upload_expires_at))
    with pytest.raises(Refusal) as exc:
        artifacts.upload(w.store, key=art.object_key, exp=exp, sig=sig, content_type=content_type, data=b"x", now=w.now)
    assert exc.value.status == 403
    assert art.data is None and art.status == "pending_upload"


def test_download_before_upload_is_404():
    """A.3-23."""
    w = World()
    run, worker, att = _claimed(w)
    art, _, _ = _announce(w, run, worker, att)
    _, exp, sig = _parts(artifacts.presigned_url(w.store, "http://m", "GET", art.object_key, w.tick(60)))
    with pytest.raises(Refusal) as exc:
        artifacts.download(w.store, key=art.object_key, exp=exp, sig=sig, now=w.now)
    assert exc.value.status == 404


def test_logs_are_the_last_max_lines_across_uploads_gunzipped():
    """A-66, A-87 (A.3-24)."""
    w = World()
    run, worker, att = _claimed(w)
    a1, e1, s1 = _announce(w, run, worker, att)
    artifacts.upload(w.store, key=a1.object_key, exp=e1, sig=s1, content_type="text/plain", data=b"a\nb\n", now=w.now)
    w.tick(1)
    a2, e2, s2 = _announce(w, run, worker, att, contentType="application/gzip")
    artifacts.upload(
        w.store,
        key=a2.object_key,
        exp=e2,
        sig=s2,
        content_type="application/gzip",
        data=gzip.compress(b"c\nd\ne\n"),
        now=w.now,
    )
    part = w.store.participants[worker.participant_id]
    lines, total = artifacts.participant_logs(w.store, part=part, max_lines=4)
    assert [line for _, line in lines] == ["b", "c", "d", "e"] and total == 5


def test_aggregates_are_computed_from_the_imported_records():
    """A-96, A-97: counts, success rate and nearest-rank percentiles."""
    w = World()
    run = w.run(totalTasks=20, participants=["e2b", "modal"])
    _, we, ae = _claimed(w, "e2b", 10, run)
    _, wm, am = _claimed(w, "modal", 10, run)
    e2b = [record(i, latency=10.0 * (i + 1), status="error" if i == 9 else "success") for i in range(10)]
    modal = [record(i, latency=5.0) for i in range(10)]
    w.batch(run, we, ae.id, 0, e2b, final=True)
    w.batch(run, wm, am.id, 0, modal, final=True)
    assert results.run_results(w.store, run, participants=None)["overall"]["taskCount"] == 0  # not imported yet
    events.advance_imports(w.store, w.tick(10))
    res = results.run_results(w.store, run, participants=None)
    assert res["overall"]["taskCount"] == 20 and res["overall"]["errorCount"] == 1
    assert res["overall"]["successRate"] == pytest.approx(19 / 20)
    by = {p["participantSlug"]: p for p in res["participants"]}
    assert by["e2b"]["latencyMs"] == {"min": 10.0, "avg": 55.0, "p50": 50.0, "p95": 100.0, "p99": 100.0, "max": 100.0}
    narrowed = results.run_results(w.store, run, participants=["modal"])
    assert narrowed["overall"]["taskCount"] == 10 and [p["participantSlug"] for p in narrowed["participants"]] == [
        "modal"
    ]
    assert {(s["participantSlug"], s["stepName"]) for s in narrowed["steps"]} == {("modal", "task")}


def test_latest_attempt_wins_for_a_task_index():
    """A.3-12: records of a superseded attempt stay in imports but not in the aggregates."""
    w = World()
    run, worker, a1 = _claimed(w, tasks=2)
    w.batch(run, worker, a1.id, 0, [record(0, status="error"), record(1, status="error")])
    w.tick(w.store.timing.lease_seconds)
    _, a2 = w.claim(run, "e2b")
    w.batch(run, worker, a2.id, 0, [record(0)])
    events.advance_imports(w.store, w.tick(10))
    rows = results.iterations(w.store, run, kind="tasks", participants=None, steps=None)
    assert [(r["taskIndex"], r["status"], r["attemptNumber"]) for r in rows] == [(0, "success", 2), (1, "error", 1)]
    assert len(w.store.run_batches(run.id)) == 2


def test_buckets_and_failures():
    """A-98: bucketSize groups task indices; failureLimit caps the failure points."""
    w = World()
    run, worker, att = _claimed(w, tasks=25)
    recs = [record(i, latency=float(i), status="error" if i % 10 == 0 else "success", errorCode="E") for i in range(25)]
    w.batch(run, worker, att.id, 0, recs)
    events.advance_imports(w.store, w.tick(10))
    view = results.task_buckets(w.store, run, bucket_size=10, failure_limit=2)
    assert [(b["bucketStart"], b["bucketEnd"], b["taskCount"], b["errorCount"]) for b in view["buckets"]] == [
        (0, 9, 10, 1),
        (10, 19, 10, 1),
        (20, 29, 5, 1),
    ]
    assert view["buckets"][0]["latencyMs"] == {"p50": 4.0, "p95": 9.0, "max": 9.0}
    assert [f["taskIndex"] for f in view["failures"]] == [0, 10] and view["failureCount"] == 3


def test_timeline_rate_buckets_and_one_point_per_sample():
    """A-49, A-99."""
    w = World()
    run, worker, att = _claimed(w, tasks=4)
    for n in range(3):
        workers.heartbeat(
            w.store,
            run=run,
            worker=worker,
            body={
                "attemptId": att.id,
                "concurrency": [
                    {"step": "create", "active": n, "target": 4},
                    {"step": "exec", "active": 1, "target": 1},
                ],
            },
            limits=LIMITS_HEARTBEAT,
            now=w.tick(30),
        )
    w.batch(run, worker, att.id, 0, [record(i, latency=500.0) for i in range(4)])
    events.advance_imports(w.store, w.tick(10))
    view = results.timeline(w.store, run, bucket_ms=2000)
    assert [(b["tMs"], b["completed"]) for b in view["eventRate"]["buckets"]] == [(0, 2), (2000, 2)]
    points = view["concurrency"]["points"]
    assert len(points) == 6 and view["concurrency"]["heartbeatCount"] == 3
    assert [p["tMs"] for p in points if p["step"] == "create"] == [0, 30000, 60000]


def test_progress_ready_flags_and_freshness():
    """A-85, A-86: ready when every fresh worker's latest sample has active >= target."""
    w = World()
    run = w.run(totalTasks=6, participants=["e2b"])
    w.planned(run, "e2b", workers_=2)
    w1, a1 = w.claim(run, "e2b")
    w2, a2 = w.claim(run, "e2b")
    hb = {"concurrency": [{"step": "create", "active": 3, "target": 3}], "progressDone": 2}
    workers.heartbeat(w.store, run=run, worker=w1, body={"attemptId": a1.id, **hb}, limits=LIMITS_HEARTBEAT, now=w.now)
    workers.heartbeat(
        w.store,
        run=run,
        worker=w2,
        body={"attemptId": a2.id, "concurrency": [{"step": "create", "active": 1, "target": 3}], "progressDone": 1},
        limits=LIMITS_HEARTBEAT,
        now=w.now,
    )
    view = results.progress(w.store, run, w.now)["participants"][0]
    assert view["concurrency"] == [{"step": "create", "active": 4, "target": 6, "ready": False, "freshWorkerCount": 2}]
    assert view["tasks"]["done"] == 3 and view["tasks"]["total"] == 6
    w.tick(60)
    workers.heartbeat(w.store, run=run, worker=w1, body={"attemptId": a1.id, **hb}, limits=LIMITS_HEARTBEAT, now=w.now)
    w.tick(40)  # w2 is now past its lease: stale, no longer counted as fresh
    view = results.progress(w.store, run, w.now)["participants"][0]
    assert view["workers"]["stale"] == 1
    assert view["concurrency"] == [{"step": "create", "active": 3, "target": 3, "ready": True, "freshWorkerCount": 1}]

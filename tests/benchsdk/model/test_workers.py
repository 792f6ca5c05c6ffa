"""Plan, claim, lease, fence, heartbeat and close (reference: Write path §4–§6, §9)."""

from __future__ import annotations

import pytest

from mock_server.benchsdk.model import catalog, workers
from mock_server.benchsdk.model.errors import Refusal

from .world import LIMITS_HEARTBEAT, World, record


def test_plan_gives_contiguous_ranges_of_target_concurrency_tasks():
    """A-39, A-40, A-43: targetConcurrency is tasks-per-worker; ranges are inclusive."""
    w = World()
    run = w.run(totalTasks=9, participants=["e2b"])
    planned = w.planned(run, "e2b", workers_=3, per_worker=3)
    assert [(x.task_index_start, x.task_index_end) for x in planned] == [(0, 2), (3, 5), (6, 8)]
    assert all(x.status == "pending" for x in planned)
    again = w.planned(run, "e2b", workers_=3, per_worker=3)
    assert [x.id for x in again] == [x.id for x in planned]  # ensure semantics (A.3-7)
    with pytest.raises(Refusal) as exc:
        w.planned(run, "e2b", workers_=2)
    assert (exc.value.status, exc.value.code) == (409, "worker_count_mismatch")


def test_claim_lowest_index_first_then_null():
    """A-41, A-42 (A.3-9): one pending worker per claim, then nothing."""
    w = World()
    run = w.run(totalTasks=6, participants=["e2b"])
    planned = w.planned(run, "e2b", workers_=2)
    got = [w.claim(run, "e2b") for _ in range(3)]
    assert [g[0].id for g in got[:2]] == [planned[0].id, planned[1].id]
    assert got[2] is None
    assert got[0][1].attempt_number == 1
    assert run.status == "in_progress"


def test_lease_expiry_makes_the_worker_reclaimable_with_a_new_attempt():
    """A-45 (A.3-10): past the lease, a claim supersedes the attempt: new id, number + 1."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, first = w.claim(run, "e2b")
    w.tick(w.store.timing.lease_seconds - 1)
    assert w.claim(run, "e2b") is None  # still fresh
    w.tick(1)
    assert workers.is_stale(w.store, worker, w.now)
    again, second = w.claim(run, "e2b")
    assert again is worker and second.id != first.id and second.attempt_number == 2
    assert first.status == "superseded"
    assert (worker.task_index_start, worker.task_index_end) == (0, 2)


def test_heartbeat_renews_the_lease():
    """A-48: heartbeats keep the attempt current."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, att = w.claim(run, "e2b")
    for _ in range(5):
        w.tick(60)
        workers.heartbeat(
            w.store,
            run=run,
            worker=worker,
            body={"attemptId": att.id, "progressDone": 1},
            limits=LIMITS_HEARTBEAT,
            now=w.now,
        )
    assert not workers.is_stale(w.store, worker, w.now)
    assert w.claim(run, "e2b") is None


@pytest.mark.parametrize("outcome", ["heartbeat", "complete", "fail", "release"])
def test_stale_attempt_is_refused_and_changes_nothing(outcome):
    """A-14, A-15 (A.3-11): a superseded attemptId is refused for every worker mutation."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, old = w.claim(run, "e2b")
    w.tick(w.store.timing.lease_seconds)
    _, new = w.claim(run, "e2b")
    before = (worker.status, worker.progress_done, worker.attempt_id, new.status)
    with pytest.raises(Refusal) as exc:
        if outcome == "heartbeat":
            workers.heartbeat(
                w.store,
                run=run,
                worker=worker,
                body={"attemptId": old.id, "progressDone": 3},
                limits=LIMITS_HEARTBEAT,
                now=w.now,
            )
        else:
            workers.close_worker(
                w.store, run=run, worker=worker, body={"attemptId": old.id}, outcome=outcome, now=w.now
            )
    assert (exc.value.status, exc.value.code, exc.value.fields["reason"]) == (409, "stale_attempt", "superseded")
    assert (worker.status, worker.progress_done, worker.attempt_id, new.status) == before


def test_an_unreclaimed_attempt_past_its_lease_still_reports_and_completes():
    """A-15: fencing guards a *reclaimed* worker. A slow worker whose lease expired and that
    nobody reclaimed is stale (claimable) but still current: its heartbeat, batch and complete
    are accepted, and the heartbeat renews the lease."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, att = w.claim(run, "e2b")
    w.tick(w.store.timing.lease_seconds + 30)
    assert workers.is_stale(w.store, worker, w.now)
    body = {"attemptId": att.id, "progressDone": 3}
    workers.heartbeat(w.store, run=run, worker=worker, body=body, limits=LIMITS_HEARTBEAT, now=w.now)
    assert not workers.is_stale(w.store, worker, w.now) and worker.progress_done == 3
    w.tick(w.store.timing.lease_seconds * 2)
    batch, duplicate = w.batch(run, worker, att.id, 0, [record(i) for i in range(3)], final=True)
    assert not duplicate and batch.attempt_id == att.id
    w.tick(w.store.timing.lease_seconds * 2)
    closed = workers.close_worker(
        w.store, run=run, worker=worker, body={"attemptId": att.id}, outcome="complete", now=w.now
    )
    assert closed is att and att.status == "completed" and worker.status == "completed"
    assert att.attempt_number == 1 and run.status == "completed"


def test_a_reclaim_is_what_supersedes_the_expired_attempt():
    """A-15, A-45: once another process reclaims the expired worker, the old attempt is refused
    (`stale_attempt`, reason `superseded`) and the new attempt completes it."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, old = w.claim(run, "e2b")
    w.tick(w.store.timing.lease_seconds)
    _, new = w.claim(run, "e2b")
    with pytest.raises(Refusal) as exc:
        w.batch(run, worker, old.id, 0, [record(0)])
    assert (exc.value.code, exc.value.fields["reason"]) == ("stale_attempt", "superseded")
    workers.close_worker(w.store, run=run, worker=worker, body={"attemptId": new.id}, outcome="complete", now=w.now)
    assert worker.status == "completed" and old.status == "superseded"


def _range(w: World, worker) -> tuple[int, int, int]:
    start, end = workers.task_range(w.store, worker)
    return start, end, end - start + 1


def test_task_ranges_are_clipped_to_the_participant_extent():
    """A-43, A-44: with totalTasks 5 and two workers of targetConcurrency 3, the claims hand
    out [0,2] and [3,4]: task index 5 does not exist, so no range reaches it."""
    w = World()
    run = w.run(totalTasks=5, participants=["e2b"])
    planned = w.planned(run, "e2b", workers_=2, per_worker=3)
    assert [_range(w, x) for x in planned] == [(0, 2, 3), (3, 4, 2)]
    first, _ = w.claim(run, "e2b")
    second, _ = w.claim(run, "e2b")
    assert (first.progress_total, second.progress_total) == (3, 2)


def test_a_worker_planned_past_the_extent_owns_nothing():
    """A-43, A-44: a third worker of 3 over 5 tasks starts at the extent and owns no index."""
    w = World()
    run = w.run(totalTasks=5, participants=["e2b"])
    planned = w.planned(run, "e2b", workers_=3, per_worker=3)
    assert [_range(w, x) for x in planned] == [(0, 2, 3), (3, 4, 2), (5, 4, 0)]


@pytest.mark.parametrize(("total", "workers_", "per_worker"), [(1, 1, 6), (7, 3, 3), (6, 2, 3), (0, 2, 4), (10, 4, 1)])
def test_no_plan_hands_out_an_index_at_or_past_the_extent(total, workers_, per_worker):
    """A-43, A-44: every range lies inside [0, totalTasks); count = end − start + 1 ≥ 0."""
    w = World()
    run = w.run(totalTasks=total, participants=["e2b"])
    for worker in w.planned(run, "e2b", workers_=workers_, per_worker=per_worker):
        start, end, count = _range(w, worker)
        assert 0 <= start <= total and end < total and count == max(0, end - start + 1)
        assert count <= per_worker


def test_a_participant_sized_after_planning_gets_ranges_that_fit():
    """A-43: the extent is read when the range is served, so a later registration re-clips."""
    w = World()
    run = w.run(runKey="k")
    catalog.register_participant(w.store, run=run, slug="e2b", body={"totalTasks": 2}, now=w.now)
    (worker,) = w.planned(run, "e2b", workers_=1, per_worker=6)
    assert _range(w, worker) == (0, 1, 2)
    catalog.register_participant(w.store, run=run, slug="e2b", body={"totalTasks": 4}, now=w.now)
    assert _range(w, worker) == (0, 3, 4)


def test_plan_without_sizes_covers_the_participant():
    """Write call 4: `PlanWorkersInput` fields are optional; the defaults cover the extent."""
    w = World()
    run = w.run(totalTasks=7, participants=["e2b"])
    part = catalog.require_participant(w.store, run, "e2b")
    planned = workers.plan_workers(w.store, run=run, part=part, body={}, now=w.now)
    assert [_range(w, x) for x in planned] == [(0, 6, 7)]


def test_foreign_attempt_and_closed_attempt():
    """A-14: an attemptId of another worker is foreign; a closed attempt accepts nothing else."""
    w = World()
    run = w.run(totalTasks=6, participants=["e2b"])
    w.planned(run, "e2b", workers_=2)
    w1, a1 = w.claim(run, "e2b")
    _w2, a2 = w.claim(run, "e2b")
    with pytest.raises(Refusal) as exc:
        workers.heartbeat(w.store, run=run, worker=w1, body={"attemptId": a2.id}, limits=LIMITS_HEARTBEAT, now=w.now)
    assert exc.value.code == "foreign_attempt"
    workers.close_worker(w.store, run=run, worker=w1, body={"attemptId": a1.id}, outcome="complete", now=w.now)
    again = workers.close_worker(w.store, run=run, worker=w1, body={"attemptId": a1.id}, outcome="complete", now=w.now)
    assert again is a1  # repeating the same close is answered again
    with pytest.raises(Refusal) as exc:
        workers.close_worker(w.store, run=run, worker=w1, body={"attemptId": a1.id}, outcome="fail", now=w.now)
    assert exc.value.code == "attempt_closed"


def test_release_makes_the_worker_claimable_again():
    """A-71: release abandons the claim; the next claim is attempt 2 of the same worker."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, a1 = w.claim(run, "e2b")
    workers.close_worker(w.store, run=run, worker=worker, body={"attemptId": a1.id}, outcome="release", now=w.now)
    assert worker.status == "pending"
    again, a2 = w.claim(run, "e2b")
    assert again is worker and a2.attempt_number == 2


def test_close_statuses_roll_up_to_participant_and_run():
    """A-70 (A.3-21): completed when every worker completed; failed when one failed."""
    w = World()
    run = w.run(totalTasks=6, participants=["e2b", "modal"])
    w.planned(run, "e2b")
    w.planned(run, "modal")
    we, ae = w.claim(run, "e2b")
    wm, am = w.claim(run, "modal")
    workers.close_worker(w.store, run=run, worker=we, body={"attemptId": ae.id}, outcome="complete", now=w.now)
    assert run.status == "in_progress"
    workers.close_worker(
        w.store,
        run=run,
        worker=wm,
        body={"attemptId": am.id, "errorCode": "E", "errorMessage": "m"},
        outcome="fail",
        now=w.now,
    )
    parts = {p.slug: p.status for p in w.store.run_participants(run.id)}
    assert parts == {"e2b": "completed", "modal": "failed"}
    assert run.status == "failed"
    assert (wm.error_code, wm.error_message) == ("E", "m")


@pytest.mark.parametrize(("count", "ok"), [(20, True), (21, False)])
def test_heartbeat_sample_limit_at_and_past_the_bound(count, ok):
    """A-10: ≤ 20 concurrency samples."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, att = w.claim(run, "e2b")
    body = {"attemptId": att.id, "concurrency": [{"step": f"s{i}", "active": 1, "target": 1} for i in range(count)]}
    if ok:
        workers.heartbeat(w.store, run=run, worker=worker, body=body, limits=LIMITS_HEARTBEAT, now=w.now)
        assert len(w.store.samples[run.id]) == 20
    else:
        with pytest.raises(Refusal) as exc:
            workers.heartbeat(w.store, run=run, worker=worker, body=body, limits=LIMITS_HEARTBEAT, now=w.now)
        assert (exc.value.code, exc.value.fields["limit"], exc.value.fields["max"]) == (
            "too_many_concurrency_samples",
            "maxConcurrencySamples",
            20,
        )
        assert run.id not in w.store.samples


def test_heartbeat_repeated_step_name_is_refused():
    """A-10: one sample per step name."""
    w = World()
    run = w.run(totalTasks=3, participants=["e2b"])
    w.planned(run, "e2b")
    worker, att = w.claim(run, "e2b")
    body = {"attemptId": att.id, "concurrency": [{"step": "a", "active": 1, "target": 1}] * 2}
    with pytest.raises(Refusal) as exc:
        workers.heartbeat(w.store, run=run, worker=worker, body=body, limits=LIMITS_HEARTBEAT, now=w.now)
    assert exc.value.code == "duplicate_concurrency_step"

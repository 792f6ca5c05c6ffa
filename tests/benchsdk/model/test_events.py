"""Event batches: limits, sequencing, dedup and the import pipeline (reference: Write path §7)."""

from __future__ import annotations

import pytest

from mock_server.benchsdk.model import events, workers
from mock_server.benchsdk.model.errors import Refusal

from .world import World, record


def _claimed(w: World, tasks: int = 3):
    run = w.run(totalTasks=tasks, participants=["e2b"])
    w.planned(run, "e2b", per_worker=tasks)
    worker, att = w.claim(run, "e2b")
    return run, worker, att


def test_resent_batch_is_a_duplicate_counted_once():
    """A-16: (attemptId, sequenceNumber) dedup; the first body wins."""
    w = World()
    run, worker, att = _claimed(w)
    first, dup = w.batch(run, worker, att.id, 0, [record(0)])
    again, dup2 = w.batch(run, worker, att.id, 0, [record(0), record(1)])
    assert (dup, dup2) == (False, True) and again is first
    assert len(w.store.run_batches(run.id)) == 1 and len(first.records) == 1


def test_regression_is_refused_gaps_are_allowed():
    """A-51 (A.3-13): monotonic, not contiguous."""
    w = World()
    run, worker, att = _claimed(w)
    w.batch(run, worker, att.id, 0, [record(0)])
    w.batch(run, worker, att.id, 5, [record(1)])  # a gap
    with pytest.raises(Refusal) as exc:
        w.batch(run, worker, att.id, 3, [record(2)])
    assert (exc.value.status, exc.value.code, exc.value.fields["highestSequenceNumber"]) == (
        409,
        "sequence_regression",
        5,
    )
    assert len(w.store.run_batches(run.id)) == 2


def test_nothing_after_the_final_batch_but_its_replay():
    """A-52 (A.3-14): after isFinal a new number is refused; the final's replay is a duplicate."""
    w = World()
    run, worker, att = _claimed(w)
    w.batch(run, worker, att.id, 0, [record(0)], final=True)
    _, dup = w.batch(run, worker, att.id, 0, [record(0)], final=True)
    assert dup
    with pytest.raises(Refusal) as exc:
        w.batch(run, worker, att.id, 1, [record(1)])
    assert exc.value.code == "attempt_finalized"


def test_complete_without_a_final_batch_is_allowed():
    """A.3-14: the client's flush loop may never send isFinal."""
    w = World()
    run, worker, att = _claimed(w)
    w.batch(run, worker, att.id, 0, [record(0)])
    workers.close_worker(w.store, run=run, worker=worker, body={"attemptId": att.id}, outcome="complete", now=w.now)
    assert worker.status == "completed"


@pytest.mark.parametrize(("count", "code"), [(5000, None), (5001, "too_many_records"), (0, "empty_batch")])
def test_record_limit_at_and_past_the_bound(count, code):
    """A-08, A-53: 1..5000 records per batch; refusals name the limit."""
    w = World()
    run, worker, att = _claimed(w, tasks=5001)
    records = [{"taskIndex": i, "status": "success"} for i in range(count)]
    if code is None:
        batch, _ = w.batch(run, worker, att.id, 0, records)
        assert len(batch.records) == 5000
        return
    with pytest.raises(Refusal) as exc:
        w.batch(run, worker, att.id, 0, records)
    assert exc.value.code == code and exc.value.fields["limit"] in ("maxRecords", "minRecords")
    assert w.store.run_batches(run.id) == [] and att.max_sequence is None


@pytest.mark.parametrize(("steps", "ok"), [(100, True), (101, False)])
def test_step_limit_at_and_past_the_bound(steps, ok):
    """A-09: ≤ 100 steps per record."""
    w = World()
    run, worker, att = _claimed(w)
    rec = record(0, steps=[{"name": f"s{i}", "status": "success"} for i in range(steps)])
    if ok:
        w.batch(run, worker, att.id, 0, [rec])
        return
    with pytest.raises(Refusal) as exc:
        w.batch(run, worker, att.id, 0, [rec])
    assert (exc.value.code, exc.value.fields["limit"], exc.value.fields["max"]) == (
        "too_many_steps",
        "maxStepsPerRecord",
        100,
    )


def test_import_pipeline_moves_in_simulated_time():
    """A-60, A-100: queued when accepted, persisted importDelaySeconds later."""
    w = World()
    run, worker, att = _claimed(w)
    batch, _ = w.batch(run, worker, att.id, 0, [record(0)])
    assert (batch.batch_status, batch.import_status) == ("queued", "pending")
    assert events.advance_imports(w.store, w.tick(w.store.timing.import_delay_seconds - 1)) == 0
    assert events.advance_imports(w.store, w.tick(1)) == 1
    assert (batch.batch_status, batch.import_status, batch.import_attempts) == ("persisted", "imported", 1)


def test_unimportable_records_fail_the_import_not_the_request():
    """A-100: failed per batch; the reason is recorded."""
    w = World()
    run, worker, att = _claimed(w)
    bad = record(0)
    bad["completedAt"], bad["startedAt"] = bad["startedAt"], bad["completedAt"]
    batch, _ = w.batch(run, worker, att.id, 0, [bad])
    events.advance_imports(w.store, w.tick(60))
    assert batch.batch_status == "failed" and "completedAt precedes startedAt" in batch.import_error


def test_stale_attempt_batch_changes_nothing():
    """A-15: a superseded attempt's batch is refused; no batch is stored."""
    w = World()
    run, worker, att = _claimed(w)
    w.tick(w.store.timing.lease_seconds)
    w.claim(run, "e2b")
    with pytest.raises(Refusal) as exc:
        w.batch(run, worker, att.id, 0, [record(0)])
    assert exc.value.code == "stale_attempt"
    assert w.store.run_batches(run.id) == []

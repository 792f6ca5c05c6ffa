"""Seed fixtures: fixed ids on every build; every read view has data at once."""

from __future__ import annotations

from mock_server.benchsdk import fixtures
from mock_server.benchsdk.model import artifacts, results
from mock_server.benchsdk.model.store import Timing

from .model.world import LIMITS_EVENTS, LIMITS_HEARTBEAT


def _build():
    return fixtures.build_store(Timing(), LIMITS_EVENTS, LIMITS_HEARTBEAT)


def _seed_run(store):
    bench = store.benchmark(fixtures.SEED_BENCHMARK)
    (run,) = [r for r in store.runs.values() if r.benchmark_id == bench.id]
    return run


def test_seed_is_the_same_on_every_build():
    """Fixed ids, the same on every start and after reset (the project's fixture rule)."""
    a, b = _build(), _build()
    assert list(a.runs) == list(b.runs) and list(a.workers) == list(b.workers)
    assert list(a.attempts) == list(b.attempts) and list(a.artifacts) == list(b.artifacts)
    assert a.tokens[fixtures.SEED_API_KEY].kind == "api_key"
    assert [x.data for x in a.artifacts.values()] == [x.data for x in b.artifacts.values()]


def test_seeded_run_is_finished_phased_with_failures_and_reclaim():
    """A-20, A-45, A-57, A-70, A-100: a finished multi-participant phased run."""
    store = _build()
    run = _seed_run(store)
    assert run.status == "failed"  # modal's worker failed
    assert run.summary is not None and run.config["dimensions"] == {"region": "us-east-1"}
    res = results.run_results(store, run, participants=None)
    by = {p["participantSlug"]: p for p in res["participants"]}
    assert (by["e2b"]["taskCount"], by["e2b"]["successCount"]) == (4, 4)  # attempt 2 superseded the error
    assert (by["modal"]["taskCount"], by["modal"]["errorCount"]) == (4, 1)
    statuses = sorted(b.batch_status for b in store.run_batches(run.id))
    assert statuses == ["failed", "persisted", "persisted", "persisted", "persisted", "persisted"]
    rows = results.iterations(store, run, kind="tasks", participants=None, steps=None)
    assert {r["data"]["phase"] for r in rows} == {"cold", "warm"}
    assert max(w.attempt_number for w in store.run_workers(run.id)) == 2


def test_seeded_logs_include_the_gzip_upload():
    """A-87: the modal participant's log is stored gzip and read back as lines."""
    store = _build()
    run = _seed_run(store)
    modal = store.participant(run.id, "modal")
    lines, total = artifacts.participant_logs(store, part=modal, max_lines=2)
    assert [line for _, line in lines] == ["modal task 2 timed out", "modal task 3 done"] and total == 4

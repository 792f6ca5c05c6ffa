"""Benchmarks, runs and participants (reference: Write path §1–§3, Read path listings)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mock_server.benchsdk.model import catalog
from mock_server.benchsdk.model.errors import Refusal
from mock_server.benchsdk.model.timefmt import Window, iso

from .world import World


def test_upsert_creates_then_replaces_one_benchmark():
    """A-24, A-25: PUT creates, a repeat leaves one benchmark holding the last body."""
    w = World()
    again = catalog.upsert_benchmark(
        w.store, org=w.org, slug="sandbox-tti", body={"name": "Renamed", "config": {"scoring": {"x": 1}}}, now=w.tick(1)
    )
    assert again.id == w.bench.id
    assert [b.name for b in w.store.benchmarks.values()] == ["Renamed"]
    assert again.config == {"scoring": {"x": 1}}
    assert again.updated_at > again.created_at


def test_upsert_by_another_org_is_refused_and_changes_nothing():
    """A-27: a PUT by a non-owner would rename the owner's benchmark: 403."""
    w = World()
    other = catalog.create_org(w.store, slug="other", name="Other")
    with pytest.raises(Refusal) as exc:
        catalog.upsert_benchmark(w.store, org=other, slug="sandbox-tti", body={"name": "Hijack"}, now=w.now)
    assert (exc.value.status, exc.value.code) == (403, "not_benchmark_owner")
    assert w.bench.name == "Sandbox TTI"


def test_run_key_is_get_or_create_per_org_and_benchmark():
    """A-11, A-12, A-13: same key → same run; another benchmark or org → another run."""
    w = World()
    first, created = catalog.create_run(w.store, org=w.org, bench=w.bench, body={"runKey": "k1"}, now=w.now)
    again, created_again = catalog.create_run(
        w.store, org=w.org, bench=w.bench, body={"runKey": "k1", "totalTasks": 99}, now=w.now
    )
    assert created and not created_again and again is first
    assert first.participant_sized and first.total_tasks == 0  # the first creator's shape wins (A.3-6)
    bench2 = catalog.upsert_benchmark(w.store, org=w.org, slug="other-bench", body={"name": "B2"}, now=w.now)
    other_org = catalog.create_org(w.store, slug="other", name="Other")
    r2, _ = catalog.create_run(w.store, org=w.org, bench=bench2, body={"runKey": "k1"}, now=w.now)
    r3, _ = catalog.create_run(w.store, org=other_org, bench=w.bench, body={"runKey": "k1"}, now=w.now)
    assert len({first.id, r2.id, r3.id}) == 3


def test_self_contained_run_registers_listed_participants_with_equal_shares():
    """A-28, A-36: totalTasks + participants; each listed participant is registered."""
    w = World()
    run = w.run(totalTasks=7, participants=["e2b", "modal", "e2b"])
    parts = w.store.run_participants(run.id)
    assert [(p.slug, p.total_tasks) for p in parts] == [("e2b", 4), ("modal", 3)]
    assert not run.participant_sized and run.total_tasks == 7


def test_participant_sized_run_grows_with_each_registration_and_put_is_idempotent():
    """A-29, A-30, A-37, A-38."""
    w = World()
    run = w.run(runKey="shared")
    catalog.register_participant(w.store, run=run, slug="e2b", body={"totalTasks": 6}, now=w.now)
    assert run.total_tasks == 6
    catalog.register_participant(w.store, run=run, slug="modal", body={"totalTasks": 4}, now=w.now)
    assert run.total_tasks == 10
    catalog.register_participant(w.store, run=run, slug="e2b", body={"totalTasks": 2}, now=w.now)
    assert run.total_tasks == 6
    assert [p.slug for p in w.store.run_participants(run.id)] == ["e2b", "modal"]


def test_filtered_listing_defaults_to_100_unfiltered_is_unbounded():
    """A-95: unfiltered lists stay unbounded, filtered ones default to limit=100."""
    w = World()
    for _ in range(130):
        w.run(participants=["e2b"], totalTasks=1)
        w.tick(1)
    rows = catalog.runs_of(w.store, w.org, w.bench)
    assert len(catalog.page(rows, limit=None, offset=0, filtered=False, filtered_default=100)) == 130
    assert len(catalog.page(rows, limit=None, offset=0, filtered=True, filtered_default=100)) == 100
    assert len(catalog.page(rows, limit=120, offset=0, filtered=True, filtered_default=100)) == 120
    assert rows[0].created_at > rows[-1].created_at  # newest first


def test_since_until_dates_are_zoned_and_until_covers_the_whole_day():
    """A-93: YYYY-MM-DD in timeZone (default UTC) or an ISO timestamp."""
    from datetime import UTC, datetime

    late = datetime(2026, 4, 21, 3, 30, tzinfo=UTC)  # 23:30 on 04-20 in New York (EDT, UTC-4)
    assert Window("2026-04-20", "2026-04-20", "America/New_York").contains(late)
    assert not Window("2026-04-20", "2026-04-20", None).contains(late)
    assert Window("2026-04-21", None, None).contains(late)
    assert Window(None, "2026-04-21T03:30:00Z", None).contains(late)
    assert not Window(None, "2026-04-21T03:29:59.999Z", None).contains(late)
    assert Window("2026-04-20T23:30:00", None, "America/New_York").contains(late)  # naive → in timeZone
    with pytest.raises(Refusal) as exc:
        Window("yesterday", None, None)
    assert exc.value.code == "invalid_date"
    with pytest.raises(Refusal) as exc:
        Window(None, None, "Mars/Olympus")
    assert exc.value.code == "invalid_time_zone"
    with pytest.raises(Refusal):
        Window("2026-02-30", None, None)


def test_runs_of_another_org_are_invisible_unless_subscribed():
    """A-83: visible runs include subscribed feeds; A.3-18 ownership."""
    w = World()
    other = catalog.create_org(w.store, slug="daily", name="Daily")
    feed = catalog.upsert_benchmark(w.store, org=other, slug="daily", body={"name": "Daily"}, now=w.now)
    theirs, _ = catalog.create_run(w.store, org=other, bench=feed, body={"totalTasks": 1}, now=w.now)
    assert catalog.runs_of(w.store, w.org, None) == []
    w.org.subscriptions.append(feed.id)
    assert catalog.runs_of(w.store, w.org, None) == [theirs]
    with pytest.raises(Refusal) as exc:
        catalog.require_run(w.store, w.org, feed, theirs.id, write=True)
    assert exc.value.code == "not_run_owner"


def test_until_a_runs_own_created_at_finds_it_though_the_clock_kept_microseconds():
    """A-93: a timestamp bound is inclusive, read at the millisecond precision `createdAt` is stamped with, so a
    client passing a run's own `createdAt` as `until` finds the run (a running clock keeps microseconds)."""
    created = datetime(2026, 4, 23, 14, 0, 3, 577823, tzinfo=UTC)
    assert Window(None, iso(created), None).contains(created)
    assert Window(iso(created), None, None).contains(created)
    assert not Window(None, iso(created - timedelta(milliseconds=1)), None).contains(created)

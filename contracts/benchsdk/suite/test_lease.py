"""The lease as a claim, a heartbeat and the progress view see it (A-41, A-42, A-48), clause by
clause (contracts/benchsdk/clauses.py). `x-timing.leaseSeconds` is the one length they share:
a claim's lease runs that long from the claim (A-41.3), each heartbeat renews it from the
heartbeat (A-48.2), and the progress view's freshness window is it (A-48.3). While the lease
runs the worker is not handed out again (A-42.2). The clock-moving half (a worker silent for
the lease counts stale, a heartbeating one never does) needs the mock's clock: it runs on every target
with a control surface, embedded or served."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from ._client import TIMING, Platform, enc
from .test_scenarios import claim_worker, claimed, wpath

LEASE = timedelta(seconds=TIMING["leaseSeconds"])


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _progress(platform: Platform, slug: str, run_id: str) -> dict:
    return platform.json("GET", f"/benchmarks/{slug}/runs/{enc(run_id)}/progress", claim="A-48.3")


def _workers(view: dict) -> dict:
    return next(p for p in view["participants"] if p["slug"] == "e2b")["workers"]


def _advance(platform: Platform, seconds: float) -> None:
    answer = platform.raw("POST", platform.base_url + "/__mock/clock", json={"advance_seconds": seconds})
    answer.raise_for_status()  # the control surface itself failing is an error of the run, not drift


def test_the_lease_as_claims_and_progress_see_it(platform, target):
    """A-41.1, A-41.3, A-42.2, A-48.2, A-48.3."""
    slug, run_id, a = claimed(platform, tasks=2)
    path = wpath(slug, run_id, a)
    worker = platform.json("GET", path, claim="A-41.1")["worker"]
    if worker["status"] != "running" or worker.get("attemptId") != a["attemptId"]:
        raise platform.drift(
            "A-41.1", "getWorker", f"the claimed worker reads {worker['status']}, {worker.get('attemptId')}"
        )
    beat = platform.json("POST", path + "/heartbeat", {"attemptId": a["attemptId"], "progressDone": 0}, claim="A-48.2")
    attempt = beat["attempt"]
    if _at(a["leaseExpiresAt"]) - _at(attempt["claimedAt"]) != LEASE:
        raise platform.drift(
            "A-41.3", "claimWorker", f"claimed {attempt['claimedAt']}, lease to {a['leaseExpiresAt']}, not {LEASE}"
        )
    if _at(attempt["leaseExpiresAt"]) - _at(attempt["lastSeenAt"]) != LEASE:
        raise platform.drift(
            "A-48.2", "heartbeat", f"seen {attempt['lastSeenAt']}, lease to {attempt['leaseExpiresAt']}, not {LEASE}"
        )
    again = claim_worker(platform, slug, run_id, "e2b", "second", "A-42.2")
    if again is not None:
        raise platform.drift("A-42.2", "claimWorker", "a worker whose lease runs was handed out again")
    view = _progress(platform, slug, run_id)
    if view["freshnessWindowSeconds"] != TIMING["leaseSeconds"]:
        raise platform.drift("A-48.3", "getRunProgress", f"freshness window {view['freshnessWindowSeconds']}s")
    if _workers(view)["running"] != 1 or _workers(view)["stale"] != 0:
        raise platform.drift("A-48.3", "getRunProgress", f"a just-claimed worker reads {_workers(view)}")
    if not target.control:  # embedded or served: any mock whose /__mock surface is reachable
        pytest.skip("no control surface: the rest moves the mock's clock (a live lease is not waited out)")
    step = TIMING["leaseSeconds"] * 0.6
    for _ in range(3):  # heartbeats inside the lease keep it running past the first lease's end
        _advance(platform, step)
        platform.call("POST", path + "/heartbeat", {"attemptId": a["attemptId"]}, claim="A-48.2")
    if _workers(_progress(platform, slug, run_id))["stale"] != 0:
        raise platform.drift("A-48.2", "getRunProgress", "a worker heartbeating inside its lease reads stale")
    _advance(platform, TIMING["leaseSeconds"] + 1)
    workers = _workers(_progress(platform, slug, run_id))
    if workers["stale"] != 1:
        raise platform.drift("A-48.3", "getRunProgress", f"a worker silent past its lease reads {workers}")

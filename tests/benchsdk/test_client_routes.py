"""The four routes @benchsdk/api calls that the reference does not document (`listParticipants`,
`getParticipant`, `updateParticipant`, `updateWorker` in client.ts), served from what the client sends
and reads (docs/interpretations.md, benchsdk): each read back through the documented routes."""

from __future__ import annotations

from .test_handlers import refused
from .test_handlers import spec_errors as spec_errors  # a fixture

SLUG = "client-routes"


def _run(platform) -> str:
    platform.upsert_benchmark(SLUG, {"name": "Routes"})
    return platform.create_run(SLUG, {"runKey": "k"}, expect=201)["run"]["id"]


def test_list_and_get_participants_read_what_was_registered(platform, spec_errors):
    run_id = _run(platform)
    platform.register(SLUG, run_id, "modal", 4)
    platform.register(SLUG, run_id, "e2b", 7)
    items = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants")["items"]
    assert [(p["slug"], p["totalTasks"]) for p in items] == [("modal", 4), ("e2b", 7)]
    got = platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b")["participant"]
    assert got == items[1]
    missing = platform.call("GET", f"/benchmarks/{SLUG}/runs/{run_id}/participants/daytona", expect=404)
    refused(missing, 404, "participant_not_found", spec_errors, "getParticipant")


def test_update_participant_changes_what_is_sent_keeps_the_rest_and_creates_nothing(platform, spec_errors):
    run_id = _run(platform)
    platform.register(SLUG, run_id, "e2b", 3)
    path = f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b"
    updated = platform.call("PATCH", path, {"label": "E2B us-east", "totalTasks": 9}).json()["participant"]
    assert (updated["label"], updated["totalTasks"], updated["slug"]) == ("E2B us-east", 9, "e2b")
    assert platform.get(f"/benchmarks/{SLUG}/runs/{run_id}")["run"]["totalTasks"] == 9  # participant-sized
    again = platform.call("PATCH", path, {"provider": "e2b-cloud"}).json()["participant"]
    assert (again["label"], again["totalTasks"], again["provider"]) == ("E2B us-east", 9, "e2b-cloud")
    absent = platform.call("PATCH", path.replace("/e2b", "/modal"), {"totalTasks": 1}, expect=404)
    refused(absent, 404, "participant_not_found", spec_errors, "updateParticipant")
    assert [p["slug"] for p in platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants")["items"]] == ["e2b"]


def test_update_worker_sets_progress_and_a_status_acts_on_the_attempt(platform, spec_errors):
    run_id = _run(platform)
    platform.register(SLUG, run_id, "e2b", 4)
    platform.plan(SLUG, run_id, "e2b", 1, 4)
    a = platform.claim(SLUG, run_id, "e2b")
    path = platform.worker_path(SLUG, run_id, a["workerId"])
    worker = platform.call("PATCH", path, {"progressDone": 2, "progressErrors": 1}).json()["worker"]
    assert (worker["progressDone"], worker["progressErrors"], worker["status"]) == (2, 1, "running")
    failed = platform.call("PATCH", path, {"status": "failed"}).json()["worker"]
    assert (failed["status"], failed["progressDone"]) == ("failed", 2)
    assert platform.get(f"/benchmarks/{SLUG}/runs/{run_id}/participants/e2b")["participant"]["status"] == "failed"
    refused(
        platform.close(SLUG, run_id, a, "complete", expect=409), 409, "attempt_closed", spec_errors, "completeWorker"
    )
    pending = platform.call("PATCH", path, {"status": "pending"}).json()["worker"]
    assert pending["status"] == "pending"
    assert platform.claim(SLUG, run_id, "e2b")["attemptNumber"] == 2
    bad = platform.call("PATCH", path, {"status": "done"}, expect=400)
    assert bad.json()["error"]["code"] == "invalid_argument"

"""Fixed scenarios of the claims the state machine explores at random, so that each is checked on
every run, whatever the hypothesis profile (research A.4). Each writes only under a benchmark slug
of its own (`contract-…`)."""

from __future__ import annotations

import gzip
import threading

import pytest

from contracts.runner import unique

from .._runner import Drift
from ._client import LIMITS, TIMING, Platform, enc


def new_slug() -> str:
    return f"contract-{unique.hex(12)}"


def claimed(p: Platform, tasks: int = 3, participants=("e2b",)) -> tuple[str, str, dict]:
    slug = new_slug()
    p.call("PUT", f"/benchmarks/{slug}", {"name": "Contract scenario"}, claim="A-24")
    run = p.json(
        "POST",
        f"/benchmarks/{slug}/runs",
        {"totalTasks": tasks * len(participants), "participants": list(participants)},
        expect=201,
        claim="A-34",
    )
    run_id = run["run"]["id"]
    p.call(
        "POST",
        f"/benchmarks/{slug}/runs/{enc(run_id)}/participants/{participants[0]}/workers",
        {"workerCount": 1, "targetConcurrency": tasks},
        claim="A-39",
    )
    a = claim_worker(p, slug, run_id, participants[0], "contract", "A-41")
    if a is None:
        raise Drift("A-41.2", "claimWorker", "a pending worker was not handed out")
    return slug, run_id, a


def claim_worker(p: Platform, slug: str, run_id: str, participant: str, process_key: str, claim: str) -> dict | None:
    """POST …/workers/claim for `participant`: the assignment, or None."""
    return p.json(
        "POST",
        f"/benchmarks/{slug}/runs/{enc(run_id)}/participants/{participant}/workers/claim",
        {"processKind": "process", "processKey": process_key},
        claim=claim,
    )["assignment"]


def wpath(slug: str, run_id: str, a: dict) -> str:
    return f"/benchmarks/{slug}/runs/{enc(run_id)}/workers/{enc(a['workerId'])}"


def records(n: int, steps: int = 1, start: int = 0) -> list[dict]:
    return [
        {
            "taskIndex": start + i,
            "status": "success",
            "latencyMs": 10 + i,
            "steps": [{"name": f"s{k}", "status": "success"} for k in range(steps)],
        }
        for i in range(n)
    ]


def test_run_key_siblings_converge(platform):
    """A-11, A-12, A-13.1: racing creates with one key make one run; another benchmark makes another."""
    slug, other = new_slug(), new_slug()
    for s in (slug, other):
        platform.call("PUT", f"/benchmarks/{s}", {"name": "Contract siblings"}, claim="A-24")
    key = f"contract-{unique.hex()}"
    ids: list[str] = []

    def sibling():
        ids.append(
            platform.json(
                "POST", f"/benchmarks/{slug}/runs", {"runKey": key, "workerCount": 1}, expect=(200, 201), claim="A-12"
            )["run"]["id"]
        )

    threads = [threading.Thread(target=sibling) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if len(ids) != 8 or len(set(ids)) != 1:
        raise Drift("A-12", "createRun", f"8 racing creates gave {len(set(ids))} runs")
    elsewhere = platform.json("POST", f"/benchmarks/{other}/runs", {"runKey": key}, expect=201, claim="A-13.1")
    if elsewhere["run"]["id"] == ids[0]:
        raise Drift("A-13.1", "createRun", "the same runKey under another benchmark gave the same run")
    again = platform.json("POST", f"/benchmarks/{slug}/runs", {"runKey": key}, expect=200, claim="A-11")
    if again["run"]["id"] != ids[0]:
        raise Drift("A-11", "createRun", "the runKey, used under another benchmark since, no longer finds its run")
    for name, total in (("e2b", 4), ("modal", 2), ("e2b", 3)):
        platform.call(
            "PUT", f"/benchmarks/{slug}/runs/{enc(ids[0])}/participants/{name}", {"totalTasks": total}, claim="A-37"
        )
    run = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(ids[0])}")["run"]
    if run["totalTasks"] != 5:
        raise Drift("A-30", "getRun", f"a participant-sized run registered 3 + 2 has totalTasks {run['totalTasks']}")


def planned_claims(platform, *, total: int, workers: int, per_worker: int, claims: int, claim: str) -> list:
    """A self-contained run of `total` tasks for e2b, `workers` planned at `per_worker`, then `claims`
    claims: their assignments (None where nothing was claimable)."""
    slug = new_slug()
    platform.call("PUT", f"/benchmarks/{slug}", {"name": "Contract claims"})
    created = platform.json(
        "POST", f"/benchmarks/{slug}/runs", {"totalTasks": total, "participants": ["e2b"]}, expect=201
    )
    base = f"/benchmarks/{slug}/runs/{enc(created['run']['id'])}/participants/e2b/workers"
    items = platform.json("POST", base, {"workerCount": workers, "targetConcurrency": per_worker}, claim="A-39")[
        "items"
    ]
    if len(items) != workers or any(w["status"] != "pending" for w in items):
        raise Drift("A-39", "planWorkers", f"workerCount {workers} planned {[w['status'] for w in items]}")
    body = {"processKind": "process", "processKey": "contract"}
    return [platform.json("POST", base + "/claim", body, claim=claim)["assignment"] for _ in range(claims)]


def test_claim_exhaustion_and_disjoint_ranges(platform):
    """A-39, A-41.2, A-42.1, A-43: k workers, k + 1 claims; the last is {assignment: null}."""
    got = planned_claims(platform, total=6, workers=3, per_worker=2, claims=4, claim="A-41")
    if any(a is None for a in got[:3]):
        raise Drift("A-41.2", "claimWorker", f"3 pending workers, the first 3 claims answered {got[:3]}")
    if got[3] is not None:
        raise Drift("A-42.1", "claimWorker", f"3 workers, a 4th claim answered {got[3]}")
    covered = sorted(i for a in got[:3] for i in range(a["taskRange"]["start"], a["taskRange"]["end"] + 1))
    if covered != list(range(6)):
        raise Drift("A-43", "claimWorker", f"the ranges cover {covered}, not 0..5 once each")


def test_task_ranges_are_clipped_to_the_participant_extent(platform):
    """A-43, A-44: totalTasks 5, two workers of targetConcurrency 3: the claims hand out [0,2] and [3,4];
    task index 5 does not exist, so no range reaches it."""
    got = planned_claims(platform, total=5, workers=2, per_worker=3, claims=2, claim="A-44")
    ranges = [a["taskRange"] if a else None for a in got]
    if ranges != [{"start": 0, "end": 2, "count": 3}, {"start": 3, "end": 4, "count": 2}]:
        raise Drift("A-44", "claimWorker", f"over 5 tasks the ranges are {ranges}, not [0,2] and [3,4]")


def test_sequencing_duplicates_regressions_gaps_final(platform):
    """A-16.1, A-16.2, A-51, A-52 (P-sequence): a resend is a duplicate counted once, a lower unseen
    sequenceNumber is refused, nothing follows the final batch."""
    slug, run_id, a = claimed(platform)
    path = wpath(slug, run_id, a) + "/events"

    def send(seq, final=False, **kw):
        body = {
            "type": "task_results",
            "attemptId": a["attemptId"],
            "sequenceNumber": seq,
            "isFinal": final,
            "records": records(1, start=seq % 3),
        }
        return platform.call("POST", path, body, **kw)

    first = send(0, claim="A-50").json()
    again = send(0, claim="A-16.1").json()
    if again["duplicate"] is not True or first["duplicate"] is not False:
        raise Drift("A-16.1", "postWorkerEvents", f"a resent batch answered duplicate={again['duplicate']}")
    send(4, claim="P-sequence")
    send(2, expect=409, claim="A-51", code="sequence_regression")
    send(5, final=True, claim="A-52")
    send(6, expect=409, claim="A-52", code="attempt_finalized")
    items = platform.json("GET", f"/benchmarks/{slug}/runs/{enc(run_id)}/results/imports", claim="A-100")["items"]
    if sorted(i["sequenceNumber"] for i in items) != [0, 4, 5]:
        raise Drift("A-16.2", "getRunImports", f"batches {[i['sequenceNumber'] for i in items]}, sent 0, 4, 5")
    platform.call("POST", wpath(slug, run_id, a) + "/complete", {"attemptId": a["attemptId"]}, claim="A-69")


def test_complete_without_a_final_batch(platform):
    """A.3-14: the client's flush loop may never send isFinal: completing is still accepted."""
    slug, run_id, a = claimed(platform)
    platform.call(
        "POST",
        wpath(slug, run_id, a) + "/events",
        {
            "type": "task_results",
            "attemptId": a["attemptId"],
            "sequenceNumber": 0,
            "records": records(3),
        },
        claim="A-50",
    )
    platform.call("POST", wpath(slug, run_id, a) + "/complete", {"attemptId": a["attemptId"]}, claim="A-70")


@pytest.mark.parametrize("which", ["records", "steps", "samples", "repeated-step"])
def test_limits_at_and_past_the_bound(platform, which):
    """A-08, A-09, A-10.1, A-10.2: at the bound accepted, past it refused naming the limit."""
    slug, run_id, a = claimed(platform, tasks=2)
    ev, hb = LIMITS["events"], LIMITS["heartbeat"]
    if which in ("records", "steps"):
        at = records(ev["maxRecords"]) if which == "records" else records(1, steps=ev["maxStepsPerRecord"])
        past = records(ev["maxRecords"] + 1) if which == "records" else records(1, steps=ev["maxStepsPerRecord"] + 1)
        claim, code = ("A-08", "too_many_records") if which == "records" else ("A-09", "too_many_steps")
        body = {"type": "task_results", "attemptId": a["attemptId"], "sequenceNumber": 0}
        platform.call(
            "POST", wpath(slug, run_id, a) + "/events", {**body, "records": past}, expect=400, claim=claim, code=code
        )
        platform.call("POST", wpath(slug, run_id, a) + "/events", {**body, "records": at}, claim=claim)
        return
    if which == "samples":
        at = [{"step": f"s{i}", "active": 1, "target": 1} for i in range(hb["maxConcurrencySamples"])]
        past = [*at, {"step": "one-more", "active": 1, "target": 1}]
        code = "too_many_concurrency_samples"
    else:
        at = [{"step": "a", "active": 1, "target": 1}]
        past = at * 2
        code = "duplicate_concurrency_step"
    path = wpath(slug, run_id, a) + "/heartbeat"
    clause = "A-10.1" if which == "samples" else "A-10.2"
    platform.call("POST", path, {"attemptId": a["attemptId"], "concurrency": past}, expect=400, claim=clause, code=code)
    platform.call("POST", path, {"attemptId": a["attemptId"], "concurrency": at}, claim=clause)


def move_clock(platform, seconds: float) -> None:
    advance = platform.raw("POST", platform.base_url + "/__mock/clock", json={"advance_seconds": seconds})
    assert advance.status_code == 200


def test_an_unreclaimed_attempt_past_its_lease_still_reports_and_completes(platform, target):
    """P-lease: fencing guards a reclaimed worker (A-15). A lone slow worker whose lease expired and that
    nobody reclaimed still heartbeats, sends its batch and completes. Needs the mock's clock."""
    if not target.control:
        pytest.skip("no control surface: moving time needs the mock's /__mock/clock (a live lease is not waited out)")
    slug, run_id, a = claimed(platform)
    body = {"attemptId": a["attemptId"]}
    for suffix, extra in (
        ("/heartbeat", {"progressDone": 3}),
        ("/events", {"type": "task_results", "sequenceNumber": 0, "isFinal": True, "records": records(3)}),
        ("/complete", {}),
    ):
        move_clock(platform, TIMING["leaseSeconds"] + 1)
        platform.call("POST", wpath(slug, run_id, a) + suffix, {**body, **extra}, claim="P-lease")
    worker = platform.json("GET", wpath(slug, run_id, a))["worker"]
    if worker["status"] != "completed" or worker["attemptNumber"] != a["attemptNumber"]:
        raise Drift("P-lease", "getWorker", f"the slow worker's own attempt did not complete it: {worker}")


def test_lease_expiry_reclaim_and_fencing(platform, target):
    """A-15.1, A-15.2, A-45.1, A-45.2 (P-lease): after the lease, a reclaim mints a new attempt; the old one is refused
    by every worker mutation and changes nothing. Needs the mock's clock."""
    if not target.control:
        pytest.skip("no control surface: moving time needs the mock's /__mock/clock (a live lease is not waited out)")
    slug, run_id, old = claimed(platform)
    move_clock(platform, TIMING["leaseSeconds"])
    new = platform.json(
        "POST",
        f"/benchmarks/{slug}/runs/{enc(run_id)}/participants/e2b/workers/claim",
        {"processKind": "process", "processKey": "second"},
        claim="A-45.1",
    )["assignment"]
    if new is None or new["workerId"] != old["workerId"] or new["attemptId"] == old["attemptId"]:
        raise Drift("A-45.1", "claimWorker", f"after the lease, the reclaim answered {new}")
    if new["attemptNumber"] != old["attemptNumber"] + 1:
        raise Drift("A-45.2", "claimWorker", f"attempt {new['attemptNumber']} after attempt {old['attemptNumber']}")
    before = platform.json("GET", wpath(slug, run_id, old))["worker"]
    for suffix, extra in (
        ("/heartbeat", {"progressDone": 9}),
        ("/events", {"type": "task_results", "sequenceNumber": 0, "records": records(1)}),
        ("/artifacts", {"kind": "coordinator.log", "contentType": "text/plain", "name": "w.log"}),
        ("/complete", {}),
        ("/fail", {}),
        ("/release", {}),
    ):
        platform.call(
            "POST",
            wpath(slug, run_id, old) + suffix,
            {"attemptId": old["attemptId"], **extra},
            expect=409,
            claim="A-15.1",
            code="stale_attempt",
        )
    if platform.json("GET", wpath(slug, run_id, old))["worker"] != before:
        raise Drift("A-15.2", "getWorker", "refused mutations of a stale attempt changed the worker")


def test_two_step_upload_round_trips_gzip(platform):
    """A-61, A-64, A-90.1, A-90.2: presigned PUT (no bearer) and GET of exactly those bytes."""
    slug, run_id, a = claimed(platform)
    text = b"".join(b"contract line %d\n" % i for i in range(200))
    for ctype, data in (("text/plain", text), ("application/gzip", gzip.compress(text, mtime=0))):
        created = platform.json(
            "POST",
            wpath(slug, run_id, a) + "/artifacts",
            {
                "attemptId": a["attemptId"],
                "kind": "coordinator.log",
                "contentType": ctype,
                "name": "worker.log",
            },
            claim="A-61",
        )
        put = platform.raw("PUT", created["uploadUrl"], content=data, headers={"Content-Type": ctype})
        if put.status_code // 100 != 2:
            raise Drift("A-61", "PUT uploadUrl", f"{put.status_code}: {put.text[:200]}")
        detail = platform.json(
            "GET", wpath(slug, run_id, a) + f"/artifacts/{enc(created['artifactId'])}", claim="A-90.1"
        )
        got = platform.raw("GET", detail["downloadUrl"])
        if got.content != data or (ctype == "application/gzip" and gzip.decompress(got.content) != text):
            raise Drift("A-90.2", "GET downloadUrl", "the download is not the uploaded body")
        if detail["artifact"]["metadata"].get("sizeBytes") != len(data):
            raise Drift("A-64", "getWorkerArtifact", "metadata.sizeBytes is not the body's length")


FEED = "daily"  # the mock's seeded benchmark of another organisation, subscribed to (the Daily feed)


def check_cross_benchmark_run_list(platform: Platform, feed: bool) -> None:
    """A-83.1: the runs of every benchmark; A-83.2: subscribed feeds included (`feed`: the mock's
    seeded one); A-83.3: benchmarkSlug narrows it. Routing: it is not a benchmark's "runs"."""
    slug, run_id, _ = claimed(platform)
    other, other_id, _ = claimed(platform)
    everything = platform.json("GET", "/benchmarks/runs", claim="A-83.1")["items"]
    slugs = {r["id"]: r["benchmarkSlug"] for r in everything}
    if slugs.get(run_id) != slug or slugs.get(other_id) != other:
        raise Drift("A-83.1", "listAllRuns", f"the runs of {slug} and {other} are not both listed")
    if feed and FEED not in slugs.values():
        raise Drift("A-83.2", "listAllRuns", f"no run of the subscribed feed {FEED!r} is listed")
    listed = platform.json("GET", "/benchmarks/runs", params={"benchmarkSlug": slug}, claim="A-83.3")["items"]
    if [r["id"] for r in listed] != [run_id]:
        raise Drift("A-83.3", "listAllRuns", f"benchmarkSlug={slug} listed {[r['id'] for r in listed]}")


def test_cross_benchmark_run_list(platform, target):
    """A-83.1, A-83.2, A-83.3."""
    check_cross_benchmark_run_list(platform, feed=target.control)


def test_unfiltered_lists_unbounded_filtered_default_100(platform):
    """A-95.1, A-95.2: 101 runs; unfiltered all of them, filtered 100 by default."""
    slug = new_slug()
    platform.call("PUT", f"/benchmarks/{slug}", {"name": "Contract listing"})
    for _ in range(101):
        platform.call("POST", f"/benchmarks/{slug}/runs", {"totalTasks": 1, "participants": ["e2b"]}, expect=201)
    everything = platform.json("GET", f"/benchmarks/{slug}/runs", claim="A-95.1")["items"]
    if len(everything) != 101:
        raise Drift("A-95.1", "listRuns", f"unfiltered {len(everything)} of 101")
    filtered = platform.json("GET", f"/benchmarks/{slug}/runs", params={"participant": "e2b"}, claim="A-95.2")["items"]
    if len(filtered) != 100:
        raise Drift("A-95.2", "listRuns", f"filtered {len(filtered)} of 101, not the default 100")
    # A.3-20: benchmarkSlug only picks the benchmark; the cross-benchmark list agrees with it
    across = platform.json("GET", "/benchmarks/runs", params={"benchmarkSlug": slug}, claim="A-95.1")["items"]
    if [r["id"] for r in across] != [r["id"] for r in everything]:
        raise Drift("A-95.1", "listAllRuns", f"?benchmarkSlug lists {len(across)} of the benchmark's 101 runs")


def test_no_token_is_refused(platform):
    """A-02: every call authenticates."""
    response = platform.http.get("/api/v1/benchmarks")
    if response.status_code != 401:
        raise Drift("A-02", "listBenchmarks", f"without a token: {response.status_code}")

"""Per-run writes and reads a client builds on: fork (§4.3), delete (§4.7), patch (§4.8),
narration (§4.9) and the phase stats (§4.10). Each expectation comes from the reference
and from other responses of the same target (the parent run, the event list).

Forks, deletes and narration spend or destroy, so those checks run on the mock (its
clock finishes runs) or on a live target only with the matching opt-in.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import (
    SEEDED_PUBLIC_RUN,
    advance,
    body_of,
    code_of,
    expect,
    finished_run,
    launch_run,
)
from contracts.benchwright.suite.conftest import require

FINAL = ("ok", "error")


def _run(client, run_id: str) -> tuple[dict[str, Any], httpx.Response]:
    response = client.get(f"/v1/runs/{run_id}")
    expect(
        response.status_code == 200, "spec.status", "GET /v1/runs/{id}", f"answered {response.status_code}", response
    )
    return response.json(), response


def _catalog_runs(tree: Any) -> set[str]:
    """The run ids the registry tree (§8.1) projects."""
    return {
        run.get("id")
        for node in (tree or {}).get("data") or []
        for subset in node.get("subsets") or []
        for run in subset.get("runs") or []
    }


def _events(client, run_id: str) -> tuple[list[dict[str, Any]], httpx.Response]:
    response = client.get(f"/v1/runs/{run_id}/events", params={"limit": 500})
    return (body_of(response) or {}).get("data") or [], response


def _finished_forkable(client, target) -> str:
    """A finished run of a harness that can be forked (§4.3 refuses the benchwright harness)."""
    run_id = launch_run(client, harness="inspect")
    advance(target, 600)
    return run_id


def test_fork_derives_from_its_parent(client, target, policy, mock_only):
    """§4.3: `description` is required; the fork records `forked_from` and `fork_description`,
    keeps the parent's model pin when none is sent, materializes only `indices`, and the
    parent's `?expand=child_forks` (§4.4#1) lists it, its `?expand=phase_breakdown` (§4.4#2) has a row per
    phase invocation. A benchwright-harness parent is 409."""
    require(policy, "forkRun")
    parent_id = _finished_forkable(client, target)
    parent, _ = _run(client, parent_id)
    bare = client.post(f"/v1/runs/{parent_id}/fork", json={"from_phase": "atomize"})
    expect(
        bare.status_code == 400 and code_of(bare) == "invalid_argument",
        "§4.3#1",
        "POST /v1/runs/{id}/fork",
        f"a fork without description answered {bare.status_code} {code_of(bare)}",
        bare,
    )
    description = "Change score() to normalize whitespace before comparing"
    response = client.post(
        f"/v1/runs/{parent_id}/fork", json={"description": description, "from_phase": "atomize", "indices": "0-2"}
    )
    expect(
        response.status_code == 202,
        "runs.fork",
        "POST /v1/runs/{id}/fork",
        f"answered {response.status_code}",
        response,
    )
    fork, read = _run(client, response.json()["id"])
    expect(
        fork.get("forked_from") == parent_id,
        "runs.fork",
        "GET /v1/runs/{id}",
        f"the fork's forked_from is {fork.get('forked_from')!r}, not its parent {parent_id}",
        read,
    )
    expect(
        fork.get("fork_description") == description,
        "runs.fork",
        "GET /v1/runs/{id}",
        f"fork_description is {fork.get('fork_description')!r}",
        read,
    )
    expect(
        (fork.get("model") or {}).get("identifier") == (parent.get("model") or {}).get("identifier"),
        "§4.3#3",
        "GET /v1/runs/{id}",
        f"the fork pins {fork.get('model')} though it sent no model; the parent pinned {parent.get('model')}",
        read,
    )
    expect(
        fork.get("materialize_indices") == "0-2",
        "§4.3#3",
        "GET /v1/runs/{id}",
        f"indices 0-2 were asked for; the fork materializes {fork.get('materialize_indices')!r}",
        read,
    )
    expanded = client.get(f"/v1/runs/{parent_id}", params={"expand": "child_forks"})
    children = [row.get("id") for row in (body_of(expanded) or {}).get("child_forks") or []]
    expect(
        fork["id"] in children,
        "§4.4#1",
        "GET /v1/runs/{id}?expand=child_forks",
        f"the parent's child_forks {children} do not list the fork",
        expanded,
    )
    breakdown = client.get(f"/v1/runs/{parent_id}", params={"expand": "phase_breakdown"})
    phases = (body_of(breakdown) or {}).get("phase_breakdown")
    expect(
        isinstance(phases, list)
        and bool(phases)
        and all({"phase", "invocation", "duration_ms"} <= set(row) for row in phases),
        "§4.4#2",
        "GET /v1/runs/{id}?expand=phase_breakdown",
        f"a finished run's phase_breakdown is {phases!r}",
        breakdown,
    )
    native = launch_run(client)
    advance(target, 600)
    refused = client.post(f"/v1/runs/{native}/fork", json={"description": description})
    expect(
        refused.status_code == 409 and code_of(refused) == "fork_unsupported",
        "§4.3#4",
        "POST /v1/runs/{id}/fork",
        f"forking a benchwright-harness run answered {refused.status_code} {code_of(refused)}",
        refused,
    )


def test_delete_removes_the_run_and_adopts_its_forks(client, target, policy, mock_only):
    """§4.7: DELETE answers `deleted: true` with an `operator_kill by` reason; afterwards the
    run, its events, tasks and artifacts all read 404; its fork child is in `forks_adopted`,
    records `forked_from_deleted` and points at `reparented_to`."""
    require(policy, "deleteRun")
    require(policy, "forkRun")
    parent_id = _finished_forkable(client, target)
    forked = client.post(f"/v1/runs/{parent_id}/fork", json={"description": "rerun with a stricter scorer"})
    expect(forked.status_code == 202, "runs.fork", "POST /v1/runs/{id}/fork", f"answered {forked.status_code}", forked)
    child_id = forked.json()["id"]
    advance(target, 600)
    response = client.delete(f"/v1/runs/{parent_id}")
    body = body_of(response) or {}
    expect(
        response.status_code == 200 and body.get("deleted") is True and body.get("id") == parent_id,
        "runs.delete",
        "DELETE /v1/runs/{id}",
        f"answered {response.status_code} {body}",
        response,
    )
    expect(
        str(body.get("halt_reason") or "").startswith("operator_kill by"),
        "§4.7#2",
        "DELETE /v1/runs/{id}",
        f"halt_reason is {body.get('halt_reason')!r}, not an operator_kill",
        response,
    )
    expect(
        child_id in (body.get("forks_adopted") or []),
        "§4.7#3",
        "DELETE /v1/runs/{id}",
        f"forks_adopted {body.get('forks_adopted')} omits the fork {child_id}",
        response,
    )
    for suffix in ("", "/events", "/tasks", "/artifacts"):
        gone = client.get(f"/v1/runs/{parent_id}{suffix}")
        expect(
            gone.status_code == 404,
            "runs.delete",
            f"GET /v1/runs/{{id}}{suffix}",
            f"a deleted run's {suffix or 'record'} still answers {gone.status_code}",
            gone,
        )
    child, read = _run(client, child_id)
    expect(
        child.get("forked_from_deleted") == parent_id and child.get("forked_from") == body.get("reparented_to"),
        "§4.7#3",
        "GET /v1/runs/{id}",
        f"the adopted child reads forked_from={child.get('forked_from')!r}, "
        f"forked_from_deleted={child.get('forked_from_deleted')!r}; the delete said reparented_to="
        f"{body.get('reparented_to')!r}",
        read,
    )
    events, listed = _events(client, child_id)
    adopted = [event for event in events if (event.get("data") or {}).get("_adopted_from") is not None]
    expect(
        len(adopted) == body.get("events_adopted")
        and all(event["data"]["_adopted_from"] == parent_id for event in adopted),
        "§4.7#3",
        "GET /v1/runs/{id}/events",
        f"the delete counted events_adopted={body.get('events_adopted')}; the child holds {len(adopted)} events "
        f"marked _adopted_from, from {sorted({e['data']['_adopted_from'] for e in adopted})}",
        listed,
    )


def test_delete_of_a_running_run_kills_its_sandboxes(client, target, policy, mock_only):
    """§4.7: a running run is torn down first: `sandboxes_killed` covers at least the sandboxes
    its events show live (created, never killed; the backend may find more), nothing is
    adopted from a run without forks, `reparented_to` is null for a root, and it reads 404."""
    require(policy, "deleteRun")
    run_id = launch_run(client)
    advance(target, 5)
    events, _ = _events(client, run_id)
    created = {e["data"].get("sandbox_id") for e in events if e["type"] == "SandboxCreated"}
    killed = {e["data"].get("sandbox_id") for e in events if e["type"] == "SandboxKilled"}
    response = client.delete(f"/v1/runs/{run_id}")
    body = body_of(response) or {}
    expect(
        response.status_code == 200
        and body.get("deleted") is True
        and isinstance(body.get("sandboxes_killed"), int)
        and body["sandboxes_killed"] >= len(created - killed),
        "§4.7#2",
        "DELETE /v1/runs/{id}",
        f"{len(created - killed)} sandboxes were live; the delete answered {response.status_code} {body}",
        response,
    )
    expect(
        body.get("forks_adopted") == [] and body.get("events_adopted") == 0 and body.get("reparented_to") is None,
        "§4.7#3",
        "DELETE /v1/runs/{id}",
        f"a root run without forks answered forks_adopted={body.get('forks_adopted')} "
        f"events_adopted={body.get('events_adopted')} reparented_to={body.get('reparented_to')!r}",
        response,
    )
    gone = client.get(f"/v1/runs/{run_id}")
    expect(gone.status_code == 404, "runs.delete", "GET /v1/runs/{id}", f"answered {gone.status_code}", gone)


def test_patch_takes_two_fields(client, target, policy, mock_only):
    """§4.8: `metadata` is not patchable (400); `public` on a run that is not `ok` is `409
    visibility_constraint_violated`; `unlisted` is readable anonymously by id; making a run
    non-private stamps a `fingerprint_hash` that `GET /fingerprint` re-derives; an unlisted
    run is not projected into the public catalog."""
    require(policy, "patchRun")
    running = launch_run(client)
    refused = client.patch(f"/v1/runs/{running}", json={"visibility": "public"})
    expect(
        refused.status_code == 409 and code_of(refused) == "visibility_constraint_violated",
        "§4.8#2",
        "PATCH /v1/runs/{id}",
        f"public on a running run answered {refused.status_code} {code_of(refused)}",
        refused,
    )
    advance(target, 600)
    metadata = client.patch(f"/v1/runs/{running}", json={"metadata": {"ci_job": "8812"}})
    expect(
        metadata.status_code == 400,
        "runs.patch",
        "PATCH /v1/runs/{id}",
        f"patching metadata answered {metadata.status_code}",
        metadata,
    )
    response = client.patch(f"/v1/runs/{running}", json={"visibility": "unlisted"})
    expect(
        response.status_code == 200, "runs.patch", "PATCH /v1/runs/{id}", f"answered {response.status_code}", response
    )
    anonymous = client.with_token(None).get(f"/v1/runs/{running}")
    expect(
        anonymous.status_code == 200 and (body_of(anonymous) or {}).get("visibility") == "unlisted",
        "§4.8#3",
        "GET /v1/runs/{id}",
        f"an unlisted run read anonymously answered {anonymous.status_code}",
        anonymous,
    )
    tree = client.get("/v1/registry/benchmarks")
    expect(
        running not in _catalog_runs(body_of(tree)),
        "§4.8#3",
        "GET /v1/registry/benchmarks",
        "an unlisted run is projected into the public catalog",
        tree,
    )
    fingerprint = client.get(f"/v1/runs/{running}/fingerprint")
    stamped = (body_of(anonymous) or {}).get("fingerprint_hash")
    if fingerprint.status_code == 200:
        expect(
            stamped == fingerprint.json().get("hash"),
            "§4.8#4",
            "GET /v1/runs/{id}/fingerprint",
            f"the non-private run carries fingerprint_hash {stamped!r}; "
            f"its fingerprint is {fingerprint.json().get('hash')!r}",
            fingerprint,
        )


def test_narration_is_opt_in_and_cached(client, target, policy, mock_only):
    """§4.9: `204` while `run_narration_enabled` is unset, while an anonymous read of a public
    run skips that check; `400` for another slice; once
    enabled, the sentence names its slice and an event window inside the run's seqs, and a
    second read of the same window is `from_cache: true` with the same sentence."""
    require(policy, "narrateRun")
    require(policy, "putSetting")
    require(policy, "deleteSetting")
    run_id = launch_run(client)
    advance(target, 600)
    client.delete("/v1/settings/run_narration_enabled")
    off = client.get(f"/v1/runs/{run_id}/narrate", params={"slice": "recent"})
    expect(off.status_code == 204, "runs.narrate", "GET /v1/runs/{id}/narrate", f"opted out: {off.status_code}", off)
    public = client.with_token(None).get(f"/v1/runs/{SEEDED_PUBLIC_RUN}/narrate", params={"slice": "recent"})
    if public.status_code != 404:  # the seeded public run, where there is one
        expect(
            public.status_code == 200 and (body_of(public) or {}).get("slice") == "recent",
            "§4.9#5",
            "GET /v1/runs/{id}/narrate",
            f"an anonymous read of a public run (no settings to consult) answered {public.status_code}",
            public,
        )
    client.put("/v1/settings/run_narration_enabled", json={"value": True}).raise_for_status()
    try:
        bogus = client.get(f"/v1/runs/{run_id}/narrate", params={"slice": "everything"})
        expect(
            bogus.status_code == 400 and code_of(bogus) == "invalid_argument",
            "§4.9#2",
            "GET /v1/runs/{id}/narrate",
            f"slice=everything answered {bogus.status_code} {code_of(bogus)}",
            bogus,
        )
        events = client.get(f"/v1/runs/{run_id}/events", params={"limit": 500}).json()["data"]
        seqs = [event["seq"] for event in events]
        first = client.get(f"/v1/runs/{run_id}/narrate", params={"slice": "full"})
        again = client.get(f"/v1/runs/{run_id}/narrate", params={"slice": "full"})
        one, two = body_of(first) or {}, body_of(again) or {}
        expect(
            first.status_code == 200 and one.get("slice") == "full",
            "runs.narrate",
            "GET /v1/runs/{id}/narrate",
            f"answered {first.status_code} with slice {one.get('slice')!r}",
            first,
        )
        expect(
            isinstance(one.get("first_seq"), int)
            and isinstance(one.get("last_seq"), int)
            and min(seqs) <= one["first_seq"] <= one["last_seq"] <= max(seqs),
            "§4.9#3",
            "GET /v1/runs/{id}/narrate",
            f"window {one.get('first_seq')}..{one.get('last_seq')} is not inside the run's seqs "
            f"{min(seqs)}..{max(seqs)}",
            first,
        )
        expect(
            two.get("from_cache") is True
            and two.get("sentence") == one.get("sentence")
            and two.get("last_seq") == one.get("last_seq"),
            "§4.9#4",
            "GET /v1/runs/{id}/narrate",
            f"a second read of the same window answered from_cache={two.get('from_cache')!r}",
            again,
        )
    finally:
        client.delete("/v1/settings/run_narration_enabled")


def _phase_counts(client, run_id: str) -> dict[str, tuple[int, int, list[int]]]:
    """Per phase of a run's events: how many started, how many completed, their durations."""
    events = client.get(f"/v1/runs/{run_id}/events", params={"limit": 500}).json()["data"]
    counts: dict[str, tuple[int, int, list[int]]] = {}
    for event in events:
        data = event.get("data") or {}
        started, completed, durations = counts.get(data.get("phase"), (0, 0, []))
        if event["type"] == "PhaseStarted":
            counts[data["phase"]] = (started + 1, completed, durations)
        elif event["type"] == "PhaseCompleted":
            counts[data["phase"]] = (started, completed + 1, [*durations, data.get("duration_ms", 0)])
    return counts


def test_phase_stats_count_the_finalized_runs(client, target, policy):
    """§4.10: per phase `success <= attempts` and `success + failed <= attempts`, `{}` with no
    finalized runs. On the mock, for a fresh account: `{}` before any run finalizes, then
    `attempts` / `success` / `failed` are the PhaseStarted, PhaseCompleted and (on the errored
    run) unfinished phases of its finished runs."""
    response = client.get("/v1/runs:phase-stats")
    stats = body_of(response)
    expect(isinstance(stats, dict), "runs.phase_stats", "GET /v1/runs:phase-stats", "not an object", response)
    for phase, row in stats.items():
        attempts, success, failed = row.get("attempts", 0), row.get("success", 0), row.get("failed", 0)
        expect(
            0 <= success <= attempts and success + failed <= attempts,
            "runs.phase_stats",
            "GET /v1/runs:phase-stats",
            f"{phase}: attempts={attempts} success={success} failed={failed}",
            response,
        )
    if not target.control:
        return
    require(policy, "launchRun")
    # a fresh account of the mock, so the window of 100 finalized runs holds only these
    user = target.control_post("/users", {"tier": "scale", "balance_cents": 100_000}).json()
    own = client.with_token(target.mint(["full"], user_id=user["id"]))
    own.post("/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-contract"})
    empty = own.get("/v1/runs:phase-stats")
    expect(
        body_of(empty) == {},
        "§4.10#4",
        "GET /v1/runs:phase-stats",
        f"an account with no finalized run answered {body_of(empty)}",
        empty,
    )
    counts: dict[str, list] = {}
    for halt in (False, True):  # one run finishes ok, one is halted mid-phase and errors
        run_id = launch_run(own)
        if halt:
            advance(target, 10)
            own.post(f"/v1/runs/{run_id}/halt", json={"reason": "phase stats check"}).raise_for_status()
        advance(target, 600)
        errored = own.get(f"/v1/runs/{run_id}").json()["status"] == "error"
        for phase, (started, completed, durations) in _phase_counts(own, run_id).items():
            total = counts.setdefault(phase, [0, 0, 0, []])
            total[0] += started
            total[1] += completed
            total[2] += started - completed if errored else 0
            total[3] += durations
    response = own.get("/v1/runs:phase-stats")
    stats = body_of(response) or {}
    for phase, (started, completed, failed, durations) in counts.items():
        row = stats.get(phase, {})
        if durations:
            mean = sum(durations) / len(durations)
            expect(
                abs((row.get("avg_ms") or 0) - mean) <= 1,
                "§4.10#2",
                "GET /v1/runs:phase-stats",
                f"{phase}: avg_ms {row.get('avg_ms')}; the completed phases took {durations} ms",
                response,
            )
        expect(
            (row.get("attempts"), row.get("success")) == (started, completed),
            "runs.phase_stats",
            "GET /v1/runs:phase-stats",
            f"{phase}: the runs' events hold {started} started / {completed} completed; the stats say"
            f" attempts={row.get('attempts')} success={row.get('success')}",
            response,
        )
        expect(
            row.get("failed") == failed,
            "§4.10#3",
            "GET /v1/runs:phase-stats",
            f"{phase}: the errored run left {failed} phases unfinished (an ok run's count for neither);"
            f" the stats say failed={row.get('failed')}",
            response,
        )
    expect(
        set(stats) == set(counts),
        "runs.phase_stats",
        "GET /v1/runs:phase-stats",
        f"phases {sorted(stats)}; the runs' events started {sorted(counts)}",
        response,
    )


def test_null_is_known_and_absent_missing_is_not_applicable(client, target):
    """§3.10 (§4.1): `null` is a field the server knows with no value, a missing key one that does not
    apply to the shape: `inference` is a detail-only field (missing from list rows, present on the
    detail even when null), and `finished_at` is on every run, null until it finishes. Reads a finished
    run (launched on the mock, one of the caller's on a deployment)."""
    run_id = finished_run(client, target)
    listed = client.get("/v1/runs", params={"limit": 100})
    row = next((r for r in (body_of(listed) or {}).get("data") or [] if r.get("id") == run_id), None)
    if row is None:
        pytest.skip("no finished run of the caller's on the first page of the list")
    detail, read = _run(client, run_id)
    expect(
        "inference" not in row and "inference" in detail,
        "§3.10",
        "GET /v1/runs/{id}",
        f"inference: on the list row {'present' if 'inference' in row else 'missing'}, on the detail"
        f" {'present' if 'inference' in detail else 'missing'} (a detail-only field, null when unknown)",
        read,
    )
    expect(
        "finished_at" in row and "finished_at" in detail,
        "§3.10",
        "GET /v1/runs/{id}",
        "finished_at, a field every run has (null until it finishes), is missing",
        read,
    )

"""Artifacts and task payloads agree with each other and with the run (§6.1–§6.5, §7.2):
listing vs detail vs content (mime, size), the fingerprint vs the run's
`fingerprint_hash`, the report redirect vs the lowest-seq report row, and a payload vs its
task row. All of these only read: on the mock a fresh run is finished first, on a live
target one of the account's finished runs is read.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import SEEDED_PUBLIC_RUN, advance, body_of, expect, finished_run, launch_run
from contracts.benchwright.suite.conftest import OPERATIONS

# §6.1's type table: the artifact types and whether they version
VERSIONED = {"atomize", "atomize_draft"}
TYPES = VERSIONED | {"analyze", "fetch", "model_proxy", "report"}
ARTIFACT_EVENTS = {
    "AtomizeArtifact",
    "PendingAtomizeCode",
    "AnalyzeArtifact",
    "FetchArtifact",
    "ModelProxyArtifact",
    "ReportFile",
}
# §6.3: active content is downgraded, so its served type is not the row's mime
ACTIVE = ("text/html", "image/svg+xml", "application/xml", "text/xml", "text/javascript", "application/javascript")


@pytest.fixture(scope="module")
def run_id(client, target) -> str:
    run = finished_run(client, target)
    if run is None:
        pytest.skip("the account has no finished run to read")
    return run


def _artifacts(client, run_id: str, **params: Any):
    response = client.get(f"/v1/runs/{run_id}/artifacts", params=params)
    expect(
        response.status_code == 200, "spec.status", "GET /v1/runs/{id}/artifacts", str(response.status_code), response
    )
    return response.json()["data"], response


def test_artifact_rows_version_and_link(client, run_id):
    """§6.1: every row carries `seq`, `invocation` and its content URL; versioned types count
    1..latest_version per name with `include_versions=true`, and list only the latest without."""
    rows, response = _artifacts(client, run_id, include_versions="true")
    latest_rows, latest_response = _artifacts(client, run_id)
    for row in rows:
        expect(
            isinstance(row.get("seq"), int) and isinstance(row.get("invocation"), int),
            "artifacts.listing",
            "GET /v1/runs/{id}/artifacts",
            f"{row.get('id')} lacks seq or invocation",
            response,
        )
        expect(
            row.get("download_url") == f"/v1/runs/{run_id}/artifacts/{row['id']}/content",
            "artifacts.listing",
            "GET /v1/runs/{id}/artifacts",
            f"{row['id']} links to {row.get('download_url')!r}",
            response,
        )
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("type") in VERSIONED:
            by_name.setdefault((row["type"], row["name"]), []).append(row)
    for (kind, name), versions in by_name.items():
        numbers = sorted(row.get("version") for row in versions)
        latest = {row.get("latest_version") for row in versions}
        expect(
            numbers == list(range(1, len(versions) + 1)) and latest == {len(versions)},
            "§6.1#3",
            "GET /v1/runs/{id}/artifacts?include_versions=true",
            f"{kind}/{name}: versions {numbers}, latest_version {sorted(latest)}",
            response,
        )
        shown = [row for row in latest_rows if (row.get("type"), row.get("name")) == (kind, name)]
        expect(
            len(shown) == 1 and shown[0].get("version") == len(versions),
            "§6.1#3",
            "GET /v1/runs/{id}/artifacts",
            f"{kind}/{name}: without include_versions the list shows versions {[r.get('version') for r in shown]}",
            latest_response,
        )


def test_artifact_detail_is_its_row(client, run_id):
    """§6.2: the detail is the §6.1 row, minus `version` and `latest_version`."""
    rows, _ = _artifacts(client, run_id)
    for row in rows:
        response = client.get(f"/v1/runs/{run_id}/artifacts/{row['id']}")
        detail = body_of(response) or {}
        expected = {k: v for k, v in row.items() if k not in ("version", "latest_version")}
        expect(
            "version" not in detail and "latest_version" not in detail,
            "artifacts.detail",
            "GET /v1/runs/{id}/artifacts/{art_id}",
            f"{row['id']} detail carries version {detail.get('version')!r} / {detail.get('latest_version')!r}",
            response,
        )
        differs = sorted(k for k in set(expected) | set(detail) if expected.get(k) != detail.get(k))
        expect(
            not differs,
            "§6.2#2",
            "GET /v1/runs/{id}/artifacts/{art_id}",
            f"{row['id']} detail disagrees with its row on {differs}",
            response,
        )


def test_artifact_content_matches_its_row(client, run_id):
    """§6.3: content is served whole as the row's `mime` (active types as text/plain), and
    `size_bytes` counts its characters (exact for ASCII content, §6.1)."""
    rows, _ = _artifacts(client, run_id)
    for row in rows:
        response = client.get(row["download_url"])
        served = response.headers.get("content-type", "").split(";")[0].strip()
        expect(
            response.status_code == 200,
            "artifacts.content",
            "GET /v1/runs/{id}/artifacts/{art_id}/content",
            f"{row['id']} answered {response.status_code}",
            response,
        )
        if row.get("mime") not in ACTIVE:
            expect(
                served == row.get("mime"),
                "artifacts.content",
                "GET /v1/runs/{id}/artifacts/{art_id}/content",
                f"{row['id']} is listed as {row.get('mime')} but served as {served}",
                response,
            )
        text = response.text
        if text.isascii():
            expect(
                len(text) == row.get("size_bytes"),
                "§6.3#3",
                "GET /v1/runs/{id}/artifacts/{art_id}/content",
                f"{row['id']}: size_bytes {row.get('size_bytes')} but the content has {len(text)} characters",
                response,
            )


def test_fingerprint_is_the_runs(client, run_id):
    """§6.4 (§4.8): the fingerprint's `hash` is the run's `fingerprint_hash` and the prefix of
    the last `cumulative_hash`; each component is an artifact event at a seq the run's events
    hold with that type, and its `canonical` string parses back to its `data`."""
    response = client.get(f"/v1/runs/{run_id}/fingerprint")
    if response.status_code == 404:
        pytest.skip("the run emitted no artifact events")
    body = response.json()
    run = client.get(f"/v1/runs/{run_id}").json()
    components = body.get("components") or []
    if run.get("fingerprint_hash") is not None:
        expect(
            body.get("hash") == run["fingerprint_hash"],
            "artifacts.fingerprint",
            "GET /v1/runs/{id}/fingerprint",
            f"hash {body.get('hash')!r} but the run carries {run['fingerprint_hash']!r}",
            response,
        )
    expect(
        bool(components) and str(components[-1].get("cumulative_hash", "")).startswith(str(body.get("hash"))),
        "artifacts.fingerprint",
        "GET /v1/runs/{id}/fingerprint",
        f"hash {body.get('hash')!r} is not where the chain ends",
        response,
    )
    events = client.get(f"/v1/runs/{run_id}/events", params={"limit": 500}).json()["data"]
    types = {event["seq"]: event["type"] for event in events}
    for component in components:
        expect(
            component.get("type") in ARTIFACT_EVENTS and types.get(component.get("seq")) == component.get("type"),
            "§6.4#2",
            "GET /v1/runs/{id}/fingerprint",
            f"component {component.get('type')} at seq {component.get('seq')}; the events hold "
            f"{types.get(component.get('seq'))!r} there",
            response,
        )
        try:
            parsed = json.loads(component.get("canonical") or "")
        except ValueError:
            parsed = None
        expect(
            parsed == component.get("data"),
            "§6.4#2",
            "GET /v1/runs/{id}/fingerprint",
            f"the {component.get('type')} component's canonical string is not its data",
            response,
        )


def test_report_redirects_to_the_first_report(client, run_id):
    """§6.5: `302` to the content URL of the lowest-seq `report` artifact."""
    rows, _ = _artifacts(client, run_id, type="report")
    if not rows:
        pytest.skip("the run wrote no report")
    first = min(rows, key=lambda row: row["seq"])
    response = client.get(f"/v1/runs/{run_id}/report", follow_redirects=False)
    expect(
        response.status_code == 302 and response.headers.get("location", "").endswith(first["download_url"]),
        "artifacts.report",
        "GET /v1/runs/{id}/report",
        f"answered {response.status_code} to {response.headers.get('location')!r}; the first report is "
        f"{first['download_url']}",
        response,
    )


def test_payload_repeats_its_row(client, run_id):
    """§7.2: a payload carries its row's `id`, `run_id`, `invocation`, `index`, `trial`,
    `task_id` and `score`, `passed` is `score >= 1.0`, and `raw=0` drops `raw_output` and
    nothing else."""
    tasks = client.get(f"/v1/runs/{run_id}/tasks").json()["data"]
    for row in tasks[:5]:
        url = row["links"]["payload"]
        response = client.get(url)
        payload = body_of(response) or {}
        keys = ("id", "run_id", "invocation", "index", "trial", "task_id", "score")
        differs = [key for key in keys if payload.get(key) != row.get(key)]
        expect(
            response.status_code == 200 and not differs,
            "tasks.payload",
            "GET /v1/runs/{id}/tasks/{tsk_id}/payload",
            f"{row['id']}: the payload disagrees with its row on {differs}",
            response,
        )
        for key in ("input", "expected", "output"):
            expect(
                key in payload,
                "tasks.payload",
                "GET /v1/runs/{id}/tasks/{tsk_id}/payload",
                f"{row['id']}: no {key}",
                response,
            )
        if isinstance(payload.get("score"), int | float):
            expect(
                payload.get("passed") == (payload["score"] >= 1.0),
                "tasks.payload",
                "GET /v1/runs/{id}/tasks/{tsk_id}/payload",
                f"score {payload['score']} but passed {payload.get('passed')}",
                response,
            )
        slim = client.get(url, params={"raw": "0"})
        lean = body_of(slim) or {}
        expect(
            "raw_output" not in lean and set(payload) - set(lean) <= {"raw_output"},
            "§7.2#2",
            "GET /v1/runs/{id}/tasks/{tsk_id}/payload?raw=0",
            f"raw=0 dropped {sorted(set(payload) - set(lean))}, kept raw_output: {'raw_output' in lean}",
            slim,
        )


def _trial_runs(client, target, policy) -> list[str]:
    """Runs with several trials per task: the seeded public one, and on the mock a fresh run of
    60 tasks x 3 trials (so some tasks' best trial is not their first)."""
    runs = [SEEDED_PUBLIC_RUN]
    method, _, launch = OPERATIONS["launchRun"]
    if target.control and policy.permits(method, launch)[0]:
        trials = {"plan": {"k": 3}, "aggregator": {"name": "mean"}}
        runs.append(launch_run(client, trials=trials, metadata={"indices": "0-59"}))
        advance(target, 1800)
    return runs


MAX_TASKS = 20  # payloads read per check


def test_payload_defaults_to_the_best_trial(client, target, policy):
    """§7.2: without `?trial=N` the payload is the best-scoring trial (ties to the lowest),
    and `?trial=N` pins that trial; read on tasks whose trials scored differently, those
    whose first trial is not the best first."""
    checked = 0
    for run_id in _trial_runs(client, target, policy):
        response = client.get(f"/v1/runs/{run_id}/tasks", params={"include_retries": "true"})
        if response.status_code != 200:
            continue
        trials: dict[int, dict[int, float]] = {}
        links: dict[int, str] = {}
        for row in response.json()["data"]:
            if isinstance(row.get("score"), int | float):
                trials.setdefault(row["index"], {})[row["trial"]] = row["score"]
                links[row["index"]] = row["links"]["payload"]
        mixed = [index for index, scores in trials.items() if len(set(scores.values())) > 1]
        mixed.sort(key=lambda index: trials[index].get(0) == max(trials[index].values()))
        for index in mixed[: MAX_TASKS - checked]:
            checked += 1
            scores = trials[index]
            best = max(scores.values())
            payload_response = client.get(links[index])
            payload = body_of(payload_response) or {}
            expect(
                payload.get("score") == best and payload.get("trial") == min(t for t, s in scores.items() if s == best),
                "tasks.best_trial",
                "GET /v1/runs/{id}/tasks/{tsk_id}/payload",
                f"task {index}: trials score {scores}; without ?trial the payload is trial "
                f"{payload.get('trial')} scoring {payload.get('score')}",
                payload_response,
            )
            worst = min(scores, key=lambda t: (scores[t], t))
            pinned = client.get(links[index], params={"trial": worst})
            expect(
                (body_of(pinned) or {}).get("trial") == worst and (body_of(pinned) or {}).get("score") == scores[worst],
                "tasks.best_trial",
                "GET /v1/runs/{id}/tasks/{tsk_id}/payload?trial=N",
                f"task {index}: ?trial={worst} answered trial {(body_of(pinned) or {}).get('trial')}",
                pinned,
            )
    if not checked:
        pytest.skip("no readable run has a task whose trials scored differently")

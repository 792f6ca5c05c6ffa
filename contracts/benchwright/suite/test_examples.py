"""The event type reference (§15) and the worked examples (§16), run as written.

§15: every event a run's list serves whose type §15 documents carries the fields §15
lists for it (optional ones, marked `?`, and descriptive entries such as "dataset shape"
left out); `RunLaunched` is seq 0. Types §15 does not list are tolerated: §17 lets new
event types ship at any time. The table is read from the reference itself.

§16.1 and §16.2 launch and fork (they spend), so they run on the mock, or on a live
target with --allow-spend.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx
import pytest

from contracts.benchwright import section_claims  # noqa: F401  (registers the claims)
from contracts.benchwright.suite._support import (
    SEEDED_PUBLIC_RUN,
    advance,
    body_of,
    expect,
    finished_run,
    launch_run,
)
from contracts.benchwright.suite.conftest import OPERATIONS, require
from contracts.runner import unique
from contracts.runner.coverage import REFERENCES

STREAM_SECONDS = 20.0
ROW = re.compile(r"^\|\s*`(\w+)`\s*\|[^|]*\|([^|]*)\|\s*$")


def catalog() -> dict[str, set[str]]:
    """§15's table: each documented event type -> the fields it must carry."""
    text = REFERENCES["benchwright"].read_text(encoding="utf-8")
    section = text.split("## 15. Event type reference", 1)[1].split("\n## ", 1)[0]
    out: dict[str, set[str]] = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if not match:
            continue
        fields: set[str] = set()
        for entry in re.sub(r"\([^)]*\)", "", match.group(2)).split(","):
            entry = entry.strip()
            if entry.endswith("?") or not entry:
                continue
            if "/" in entry:  # `input/output_tokens`
                head, _, tail = entry.partition("/")
                suffix = tail.partition("_")[2]
                fields |= {f"{head}_{suffix}", tail}
            elif re.fullmatch(r"[a-z_]+", entry):
                fields.add(entry)
        out[match.group(1)] = fields
    return out


def _events(client, run_id: str) -> tuple[list[dict[str, Any]], httpx.Response]:
    """A run's events (none when the run is not on this target: the seeded one, live)."""
    response = client.get(f"/v1/runs/{run_id}/events", params={"limit": 500})
    return (body_of(response) or {}).get("data") or [] if response.status_code == 200 else [], response


def _runs_to_read(client, target, policy) -> list[str]:
    """Runs launched through the API (the mock's fresh ones, or the account's own)."""
    runs = []
    method, _, launch = OPERATIONS["launchRun"]
    if target.control and policy.permits(method, launch)[0]:
        runs.append(launch_run(client))
        runs.append(launch_run(client, trials={"plan": {"k": 2}, "aggregator": {"name": "mean"}}))
        runs.append(launch_run(client, metadata={"mock_outcome": "error"}))
        advance(target, 600)
    else:
        mine = finished_run(client, target)
        if mine:
            runs.append(mine)
    return runs


def test_events_carry_their_documented_fields(client, target, policy):
    """§15: each event of a documented type has the fields §15 lists, and `RunLaunched` (the
    RunLauncher's) is seq 0, on the seeded run and on runs launched through the API."""
    documented = catalog()
    expect(len(documented) >= 40, "events.catalog", "§15", f"only {len(documented)} types parsed from the reference")
    seen: set[str] = set()
    launched_here = _runs_to_read(client, target, policy)
    for run_id in [SEEDED_PUBLIC_RUN, *launched_here]:
        events, response = _events(client, run_id)
        expect(
            response.status_code == 200 or run_id not in launched_here,
            "spec.status",
            "GET /v1/runs/{id}/events",
            f"the events of a run launched here answered {response.status_code}",
            response,
        )
        if not events:
            continue
        for event in events:
            kind = event.get("type")
            seen.add(kind)
            missing = sorted(documented.get(kind, set()) - set(event.get("data") or {}))
            expect(
                not missing,
                "events.catalog",
                "GET /v1/runs/{id}/events",
                f"{kind} at seq {event.get('seq')} of {run_id} lacks {missing}",
                response,
            )
        launched = [event["seq"] for event in events if event.get("type") == "RunLaunched"]
        expect(
            launched == [0],
            "events.catalog",
            "GET /v1/runs/{id}/events",
            f"RunLaunched at seqs {launched} of {run_id}; §15 produces it at seq 0",
            response,
        )
    if not seen & set(documented):
        pytest.skip("no readable run served a documented event type")


def _stream_to_end(target, run_id: str, token: str | None = None) -> tuple[list[dict[str, Any]], bool, httpx.Response]:
    """Read `events:stream` until it closes (or STREAM_SECONDS pass), as `curl -N` does."""
    events: list[dict[str, Any]] = []
    closed = False
    deadline = time.monotonic() + STREAM_SECONDS
    headers = {"Authorization": f"Bearer {token or target.credential}", "Accept": "text/event-stream"}
    with (
        httpx.Client(base_url=target.base_url, timeout=httpx.Timeout(STREAM_SECONDS, read=5.0)) as http,
        http.stream("GET", f"/v1/runs/{run_id}/events:stream", headers=headers) as response,
    ):
        event, data = None, []
        try:
            for line in response.iter_lines():
                if time.monotonic() > deadline:
                    break
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
                elif not line:
                    if event and event != "ping":
                        events.append({"event": event, "data": json.loads("\n".join(data)) if data else {}})
                    event, data = None, []
            else:
                closed = True
        except httpx.ReadTimeout:
            pass
    return events, closed, response


CURL_DEFAULT = {"Content-Type": "application/x-www-form-urlencoded"}  # what `curl -d` sends


def test_ci_gate_example(client, target, policy, mock_only):
    """§16.1 as written, on a fresh account, each body sent as `curl -d` sends it (form content
    type): step 1's secret + rule is 201; step 2's top-up answers a checkout `url`; step 3's
    launch is 202; step 4's stream ends by closing after `run.finished`; step 5's summary has
    `total` (within `metadata.limit`), `passed` and `pass_rate` = passed / total, so step 6's
    gate can be computed."""
    require(policy, "launchRun")
    require(policy, "createSecret")
    require(policy, "createTopup")
    user = target.control_post("/users", {"tier": "growth", "balance_cents": 100_000}).json()
    token = target.mint(["full"], user_id=user["id"])
    client = client.with_token(token)
    secret = {
        "name": "OPENROUTER_API_KEY",
        "value": "sk-or-contract-example",
        "rules": [{"host_pattern": "openrouter.ai", "inject_kind": "bearer", "inject_target": "Authorization"}],
    }
    created = client.post(
        "/v1/secrets",
        content=json.dumps(secret),
        headers={**CURL_DEFAULT, "Idempotency-Key": f"setup-openrouter-{unique.hex(16)}"},
    )
    expect(
        created.status_code == 201,
        "examples.ci_gate",
        "POST /v1/secrets",
        f"step 1 answered {created.status_code} {created.text[:200]}",
        created,
    )
    topup = client.post("/v1/billing/topups", content=json.dumps({"amount_cents": 5000}), headers=CURL_DEFAULT)
    expect(
        topup.status_code in (200, 201) and str((body_of(topup) or {}).get("url", "")).startswith("https://"),
        "examples.ci_gate",
        "POST /v1/billing/topups",
        f"step 2 answered {topup.status_code} {topup.text[:200]}",
        topup,
    )
    body = {
        "request": "Run MMLU Abstract Algebra on openai/gpt-4o-mini via OpenRouter",
        "model": {"model": "openai/gpt-4o-mini", "provider": "openrouter"},
        "constraints": {"max_cost_cents": 500},
        "metadata": {"autonomous": True, "limit": 100},
    }
    launched = client.post(
        "/v1/runs",
        content=json.dumps(body),
        headers={**CURL_DEFAULT, "Idempotency-Key": f"ci-build-{unique.hex(16)}"},
    )
    expect(
        launched.status_code == 202 and (body_of(launched) or {}).get("id"),
        "examples.ci_gate",
        "POST /v1/runs",
        f"step 3 answered {launched.status_code} {launched.text[:200]}",
        launched,
    )
    run_id = launched.json()["id"]
    advance(target, 600)
    events, closed, stream = _stream_to_end(target, run_id, token)
    expect(
        closed and bool(events) and events[-1]["event"] == "run.finished",
        "examples.ci_gate",
        "GET /v1/runs/{id}/events:stream",
        f"the stream of a finished run {'closed' if closed else 'did not close'} after "
        f"{events[-1]['event'] if events else 'no events'}",
        stream,
    )
    response = client.get(f"/v1/runs/{run_id}/tasks")
    summary = (body_of(response) or {}).get("summary") or {}
    total, passed, rate = summary.get("total"), summary.get("passed"), summary.get("pass_rate")
    expect(
        isinstance(total, int)
        and isinstance(passed, int)
        and isinstance(rate, int | float)
        and 0 < total <= 100
        and abs(rate - passed / total) < 1e-9,
        "examples.ci_gate",
        "GET /v1/runs/{id}/tasks",
        f"the summary the gate reads is {summary}",
        response,
    )


def test_fork_example(client, target, policy, mock_only):
    """§16.2: the fork body as written (`description` + `from_phase: atomize`, curl's default
    content type) is 202 with an id, and the fork serves the same stream and summary routes.
    The parent runs the `inspect` harness: §4.3 refuses to fork a `benchwright`-harness run,
    which §16.1's launch would be."""
    require(policy, "forkRun")
    parent = launch_run(client, harness="inspect")
    advance(target, 600)
    body = {"description": "Change score() to normalize whitespace before comparing", "from_phase": "atomize"}
    forked = client.post(
        f"/v1/runs/{parent}/fork",
        content=json.dumps(body),
        headers=CURL_DEFAULT,
    )
    expect(
        forked.status_code == 202 and (body_of(forked) or {}).get("id"),
        "examples.fork",
        "POST /v1/runs/{id}/fork",
        f"the example's fork answered {forked.status_code} {forked.text[:200]}",
        forked,
    )
    fork = forked.json()["id"]
    advance(target, 600)
    events, closed, stream = _stream_to_end(target, fork)
    expect(
        closed and bool(events) and events[-1]["event"] == "run.finished",
        "examples.fork",
        "GET /v1/runs/{id}/events:stream",
        "the fork's stream did not end with run.finished",
        stream,
    )
    tasks = client.get(f"/v1/runs/{fork}/tasks")
    expect(
        tasks.status_code == 200 and "pass_rate" in ((body_of(tasks) or {}).get("summary") or {}),
        "examples.fork",
        "GET /v1/runs/{id}/tasks",
        f"the fork's summary answered {tasks.status_code}",
        tasks,
    )

"""§3.4 pagination and the documented silent clamps, read from the spec's
`x-clamp` (§3.4 runs 50/100, §5.1 events 500/1000, §8.1 registry 200, §10.4 ledger
500, §12a messages 50/500).

On the mock the suite first makes sure each list holds more items than its
maximum, so a clamp can be told apart from a short list; on a live target it can
only check that a page never exceeds the maximum.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.benchwright.claims import Drift
from contracts.benchwright.suite._support import advance, expect, launch_run
from contracts.benchwright.suite.conftest import clamp_of


@pytest.fixture(scope="module")
def many_runs(client, target):
    """More runs than the list's maximum page (mock targets)."""
    clamp = clamp_of("listRuns")
    if target.control:
        have = len(client.get("/v1/runs", params={"limit": clamp["max"]}).json()["data"])
        for _ in range(clamp["max"] + 1 - have):
            launch_run(client)
    return clamp


def _traverse(client, limit: int) -> list[str]:
    seen: list[str] = []
    params = {"limit": limit}
    for _ in range(10_000):
        response = client.get("/v1/runs", params=params)
        page = response.json()
        expect(
            "total" not in page.get("pagination", {}),
            "pagination.traversal",
            "GET /v1/runs",
            "a cursor list reported a total",
            response,
        )
        expect(
            len(page["data"]) <= limit,
            "pagination.traversal",
            "GET /v1/runs",
            f"asked for {limit}, got {len(page['data'])}",
            response,
        )
        ids = [row["id"] for row in page["data"]]
        expect(
            not ids or not set(ids) <= set(seen),
            "pagination.traversal",
            "GET /v1/runs",
            f"a next page repeats rows already read ({ids[:3]}...): the cursor does not move",
            response,
        )
        seen.extend(ids)
        if not page["pagination"]["has_more"]:
            return seen
        params = {"limit": limit, "page_token": page["pagination"]["next_page_token"]}
    raise Drift(
        "pagination.traversal", "GET /v1/runs", f"following next_page_token never ended ({len(seen)} rows read)"
    )


def test_traversal_yields_each_run_once(client, many_runs):
    everything = _traverse(client, many_runs["max"])

    @settings(max_examples=4)
    @given(limit=st.integers(min_value=1, max_value=many_runs["max"]))
    def walk(limit):
        seen = _traverse(client, limit)
        expect(
            len(seen) == len(set(seen)),
            "pagination.traversal",
            "GET /v1/runs",
            f"limit={limit}: {len(seen) - len(set(seen))} runs served twice",
        )
        expect(
            sorted(seen) == sorted(everything),
            "pagination.traversal",
            "GET /v1/runs",
            f"limit={limit}: the walk saw {len(seen)} runs, a full walk {len(everything)}",
        )

    walk()


def test_runs_clamp_and_default(client, target, many_runs):
    above = client.get("/v1/runs", params={"limit": many_runs["max"] * 10})
    expect(
        above.status_code == 200,
        "pagination.clamp",
        "GET /v1/runs",
        f"a limit above the maximum was rejected ({above.status_code})",
        above,
    )
    count = len(above.json()["data"])
    expect(
        count <= many_runs["max"],
        "pagination.clamp",
        "GET /v1/runs",
        f"limit={many_runs['max'] * 10} served {count} rows (maximum {many_runs['max']})",
        above,
    )
    default = client.get("/v1/runs")
    expect(
        len(default.json()["data"]) <= many_runs["default"],
        "pagination.default",
        "GET /v1/runs",
        f"no limit served {len(default.json()['data'])} rows (default {many_runs['default']})",
        default,
    )
    if target.control:
        expect(
            count == many_runs["max"],
            "pagination.clamp",
            "GET /v1/runs",
            f"{count} rows, expected the maximum {many_runs['max']}",
            above,
        )
        expect(
            len(default.json()["data"]) == many_runs["default"],
            "pagination.default",
            "GET /v1/runs",
            f"no limit served {len(default.json()['data'])} rows, expected {many_runs['default']}",
            default,
        )


def test_event_clamp(client, target):
    """§5.1#8: the events listing's limit defaults to 500 and is clamped to 1000 (`x-clamp`)."""
    clamp = clamp_of("listRunEvents")
    if target.control:
        run_id = launch_run(client, metadata={"indices": f"0-{clamp['max'] + 49}"})
        advance(target, 4 * (clamp["max"] + 50))
    else:
        rows = client.get("/v1/runs", params={"limit": 1}).json().get("data") or []
        if not rows:
            pytest.skip("no run to read events from")
        run_id = rows[0]["id"]
    above = client.get(f"/v1/runs/{run_id}/events", params={"limit": clamp["max"] * 5})
    count = len(above.json()["data"])
    expect(
        above.status_code == 200 and count <= clamp["max"],
        "§5.1#8",
        "GET /v1/runs/{id}/events",
        f"limit={clamp['max'] * 5} served {count} events (maximum {clamp['max']})",
        above,
    )
    default = client.get(f"/v1/runs/{run_id}/events")
    served = len(default.json()["data"])
    expect(
        served <= clamp["default"] and (served == clamp["default"] or not target.control),
        "§5.1#8",
        "GET /v1/runs/{id}/events",
        f"no limit served {served} events (default {clamp['default']})",
        default,
    )
    if target.control:
        expect(
            count == clamp["max"],
            "§5.1#8",
            "GET /v1/runs/{id}/events",
            f"{count} events, expected the maximum {clamp['max']}",
            above,
        )


@pytest.mark.parametrize(
    ("operation_id", "url"),
    [("listRegistryBenchmarks", "/v1/registry/benchmarks?summary=1"), ("listTransactions", "/v1/billing/transactions")],
)
def test_other_clamps_never_exceed_their_maximum(client, operation_id, url):
    clamp = clamp_of(operation_id)
    response = client.get(url, params={"limit": clamp["max"] * 3})
    body = response.json()
    rows = body.get("benchmarks", body.get("data", []))
    expect(
        response.status_code == 200 and len(rows) <= clamp["max"],
        "pagination.clamp",
        operation_id,
        f"limit={clamp['max'] * 3} answered {response.status_code} with {len(rows)} rows",
        response,
    )
    echoed = body.get("limit")
    if echoed is not None:
        expect(
            echoed <= clamp["max"],
            "pagination.clamp",
            operation_id,
            f"the page reports limit {echoed} above the maximum {clamp['max']}",
            response,
        )

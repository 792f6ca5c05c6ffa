"""`POST /__mock/reset` puts every mock's simulated clock back to its start (`mock_server/control.py`:
"the clock back to its start, state back to the seed fixtures"; DESIGN "Mocks": seed fixtures with
fixed ids, the same on every start).

The seed is stamped with the clock's reading when it is made, so a reset that left the clock where
earlier callers moved it would stamp the seed later: the same fixture would read different
timestamps depending on which tests ran before. Each test moves the clock three days on, resets and
reads the seed's timestamps through the API (BenchGen serves none of its seed's instants, so they
are read from its store), which must equal a fresh mock's; three days make any leftover offset show
as another date.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from mock_server.apis import profile
from mock_server.app import build_app
from mock_server.engine.api import Api

THREE_DAYS = 3 * 24 * 3600


def _benchwright(api: Api, http: TestClient, auth: dict[str, str]) -> list[str]:
    """The seeded secrets are stamped when seeded (its runs at fixed instants before the start)."""
    secrets = http.get("/v1/secrets", headers=auth).json()["data"]
    runs = http.get("/v1/runs", headers=auth).json()["data"]
    return sorted(f"{r['id']} {r['created_at']}" for r in [*secrets, *runs])


def _benchsdk(api: Api, http: TestClient, auth: dict[str, str]) -> list[str]:
    """The seeded runs are stamped at fixed instants; their progress is read as of the clock (its
    `generatedAt`, each worker's freshness against its lease)."""
    runs = http.get("/api/v1/benchmarks/runs", headers=auth).json()["items"]
    progress = [
        http.get(f"/api/v1/benchmarks/{r['benchmarkSlug']}/runs/{r['id']}/progress", headers=auth) for r in runs
    ]
    return sorted(f"{r['id']} {r['createdAt']} {p.text}" for r, p in zip(runs, progress, strict=True))


def _benchgen(api: Api, http: TestClient, auth: dict[str, str]) -> list[str]:
    from mock_server.benchgen.fixtures import FINISHED_RUN_ID

    run = api.store.submissions[FINISHED_RUN_ID]
    return [f"{FINISHED_RUN_ID} {run.queued_at.isoformat()} {run.finished_at.isoformat()}"]


def _bench(api: Api, http: TestClient, auth: dict[str, str]) -> list[str]:
    system = http.get("/api/ai-systems/123", headers=auth).json()["system"]
    return [f"123 {system['created_at']}"]


READERS: dict[str, Callable[[Api, TestClient, dict[str, str]], list[str]]] = {
    "benchwright": _benchwright,
    "benchsdk": _benchsdk,
    "benchgen": _benchgen,
    "bench": _bench,
}


def _served(name: str) -> tuple[Api, TestClient, dict[str, str]]:
    chosen = profile(name)
    api = Api(chosen, chosen.config(**{**chosen.serve_options, "clock_scale": 0.0}))
    credential = next(iter(chosen.ready_credentials(api).values()))
    return api, TestClient(build_app(api)), {"Authorization": f"Bearer {credential}"}


def _now(http: TestClient) -> Any:
    return http.post("/__mock/clock", json={}).json()["now"]


@pytest.mark.parametrize("name", sorted(READERS))
def test_reset_puts_the_clock_back_and_the_seed_reads_its_start_timestamps(name):
    api, http, auth = _served(name)
    read = READERS[name]
    start, fresh = _now(http), read(api, http, auth)
    assert fresh

    moved = http.post("/__mock/clock", json={"advance_seconds": THREE_DAYS}).json()["now"]
    assert moved[:10] != start[:10]
    api.store = api.profile.new_store(api)  # a seed made now reads other instants: the data can tell
    assert read(api, http, auth) != fresh
    assert http.post("/__mock/reset").status_code == 204

    assert _now(http) == start
    assert read(api, http, auth) == fresh

"""Issue item 3: racing writers over real HTTP (asyncio + httpx against the mock's process).

- 100 concurrent launches with one `Idempotency-Key` make exactly one run (Benchwright §3.7);
- 50 concurrent creates with one `runKey` make one run (benchsdk A-12);
- 20 concurrent claims on 5 pending workers make 5 assignments (benchsdk A-41, A-42);
- 100 concurrent context writes with one `expected_version`: exactly one succeeds (Bench C-35, C-36);
- concurrent PATCHes with one ETag: exactly one 2xx (Benchwright §3.8), with the clock frozen
  (tests, contract runs) and running (`make serve`).

Each returns a `Race`: the statuses seen and whether nothing was lost or doubled.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

import httpx

from .process import MockProcess
from .targets import BW_RUN, LAUNCH, TARGETS


@dataclass
class Race:
    api: str
    name: str
    ok: bool
    statuses: dict[int, int] = field(default_factory=dict)
    note: str = ""


def _client(mock: MockProcess) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    return httpx.AsyncClient(base_url=mock.url, limits=limits, timeout=60)


def _counts(responses: list[httpx.Response]) -> dict[int, int]:
    return dict(sorted(Counter(r.status_code for r in responses).items()))


async def _bw_user(client: httpx.AsyncClient) -> dict[str, str]:
    """A fresh Benchwright account with the §13 ceilings raised (so 429s do not mask the race)."""
    quota = {"read_rpm": 10**9, "write_rpm": 10**9, "max_run_concurrency": 10**9}
    user = (
        await client.post("/__mock/users", json={"tier": "scale", "balance_cents": 10**8, "quota_overrides": quota})
    ).json()
    token = (await client.post("/__mock/tokens", json={"scopes": ["full"], "user_id": user["id"]})).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    secret = await client.post(
        "/v1/secrets", json={"name": "OPENROUTER_API_KEY", "value": "sk-or-race"}, headers=headers
    )
    assert secret.status_code in (200, 201), secret.text
    return headers


async def idempotent_launches(mock: MockProcess, n: int = 100) -> Race:
    async with _client(mock) as client:
        headers = await _bw_user(client)
        keyed = {**headers, "Idempotency-Key": "stress-launch-1"}
        responses = await asyncio.gather(*(client.post("/v1/runs", json=LAUNCH, headers=keyed) for _ in range(n)))
        listed = (await client.get("/v1/runs", params={"limit": 100}, headers=headers)).json()["data"]
    ids = {r.json().get("id") for r in responses if r.status_code == 202}
    statuses = _counts(responses)
    ok = len(listed) == 1 and len(ids) == 1 and set(statuses) <= {202, 409} and statuses.get(202, 0) >= 1
    return Race("benchwright", f"{n} launches, one Idempotency-Key", ok, statuses, f"runs created: {len(listed)}")


async def run_key_creates(mock: MockProcess, n: int = 50) -> Race:
    headers = TARGETS["benchsdk"].headers
    base = "/api/v1/benchmarks/race"
    async with _client(mock) as client:
        assert (await client.put(base, json={"name": "Race"}, headers=headers)).status_code == 200
        body = {"runKey": "stress-777", "workerCount": 1}
        responses = await asyncio.gather(
            *(client.post(f"{base}/runs", json={**body, "config": {"n": i}}, headers=headers) for i in range(n))
        )
        listed = (await client.get(f"{base}/runs", headers=headers)).json()["items"]
    ids = {r.json()["run"]["id"] for r in responses if r.status_code in (200, 201)}
    statuses = _counts(responses)
    ok = statuses == {200: n - 1, 201: 1} and len(ids) == 1 and len(listed) == 1
    return Race("benchsdk", f"{n} creates, one runKey", ok, statuses, f"runs: {len(listed)}")


async def claims(mock: MockProcess, claimers: int = 20, workers: int = 5) -> Race:
    headers = TARGETS["benchsdk"].headers
    bench = "/api/v1/benchmarks/claims"
    async with _client(mock) as client:
        await client.put(bench, json={"name": "Claims"}, headers=headers)
        run = (
            await client.post(f"{bench}/runs", json={"totalTasks": 10, "participants": ["e2b"]}, headers=headers)
        ).json()
        base = f"{bench}/runs/{run['run']['id']}/participants/e2b/workers"
        planned = await client.post(base, json={"workerCount": workers, "targetConcurrency": 2}, headers=headers)
        assert planned.status_code == 200, planned.text
        responses = await asyncio.gather(
            *(
                client.post(base + "/claim", json={"processKind": "process", "processKey": f"p{i}"}, headers=headers)
                for i in range(claimers)
            )
        )
    got = [r.json()["assignment"] for r in responses if r.status_code == 200 and r.json().get("assignment")]
    distinct = len({a["workerId"] for a in got}) == len(got) and len({a["attemptId"] for a in got}) == len(got)
    ok = _counts(responses) == {200: claimers} and len(got) == workers and distinct
    return Race(
        "benchsdk",
        f"{claimers} claims on {workers} pending workers",
        ok,
        _counts(responses),
        f"assignments: {len(got)}",
    )


async def context_writes(mock: MockProcess, n: int = 100) -> Race:
    headers = TARGETS["bench"].headers
    path = "/api/ai-systems/123/context"
    async with _client(mock) as client:
        version = (await client.get(path, headers=headers)).json()["context"]["version"]

        def body(i: int) -> dict:
            source = {
                "id": f"manual-race-{i}",
                "kind": "user",
                "category": "rules_constraints",
                "scope": "system",
                "text": f"rule {i}",
            }
            return {"expected_version": version, "source": source}

        responses = await asyncio.gather(
            *(client.put(path + "/sources", json=body(i), headers=headers) for i in range(n))
        )
        after = (await client.get(path, headers=headers)).json()["context"]
    statuses = _counts(responses)
    wins = sum(1 for r in responses if r.is_success)
    codes = {r.json()["error"]["code"] for r in responses if not r.is_success}
    ok = (
        wins == 1
        and set(statuses) <= {200, 201, 409}
        and codes <= {"context_changed"}
        and after["version"] == version + 1
    )
    return Race(
        "bench", f"{n} context writes, one expected_version", ok, statuses, f"version {version} -> {after['version']}"
    )


async def etag_patches(mock: MockProcess, n: int = 20) -> Race:
    """Every PATCH carries the ETag read before the race; only the first may apply."""
    headers = {**TARGETS["benchwright"].headers, "Content-Type": "application/json"}
    path = f"/v1/runs/{BW_RUN}"
    async with _client(mock) as client:
        etag = (await client.get(path, headers=headers)).headers["ETag"]
        choices = ["unlisted", "public"]
        responses = await asyncio.gather(
            *(
                client.patch(path, json={"visibility": choices[i % 2]}, headers={**headers, "If-Match": etag})
                for i in range(n)
            )
        )
    statuses = _counts(responses)
    ok = sum(1 for r in responses if r.is_success) == 1 and set(statuses) <= {200, 412}
    return Race("benchwright", f"{n} PATCHes, one ETag", ok, statuses)


async def sequential_etag_patches(mock: MockProcess) -> Race:
    """The same lost update without any concurrency: two PATCHes one after the other, same ETag."""
    headers = {**TARGETS["benchwright"].headers, "Content-Type": "application/json"}
    path = f"/v1/runs/{BW_RUN}"
    async with _client(mock) as client:
        etag = (await client.get(path, headers=headers)).headers["ETag"]
        first = await client.patch(path, json={"visibility": "unlisted"}, headers={**headers, "If-Match": etag})
        second = await client.patch(path, json={"visibility": "public"}, headers={**headers, "If-Match": etag})
    statuses = _counts([first, second])
    ok = first.status_code == 200 and second.status_code == 412
    return Race(
        "benchwright", "2 sequential PATCHes, one ETag", ok, statuses, f"ETag after first: {first.headers.get('etag')}"
    )


RACES = {
    "benchwright": [idempotent_launches, etag_patches, sequential_etag_patches],
    "benchsdk": [run_key_creates, claims],
    "bench": [context_writes],
}


def run(mock: MockProcess) -> list[Race]:
    mock.reset()
    return [asyncio.run(race(mock)) for race in RACES.get(mock.api, [])]


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:] or list(RACES):
        for scale in (0.0, 1.0):
            with MockProcess(name, clock_scale=scale) as mock:
                for race in run(mock):
                    print(scale, race)

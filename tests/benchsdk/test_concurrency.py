"""Real concurrency through the ASGI app: racing runKey creates converge on one run (A-12), and
racing claims never hand one worker to two claimers (A-41, A-42)."""

from __future__ import annotations

import asyncio

import httpx

from mock_server.benchsdk.fixtures import SEED_API_KEY

from .client import make_app

H = {"Authorization": f"Bearer {SEED_API_KEY}"}
BENCH = "/api/v1/benchmarks/race"


async def _setup(c: httpx.AsyncClient) -> None:
    r = await c.put(BENCH, json={"name": "Race"}, headers=H)
    assert r.status_code == 200, r.text


def test_fifty_concurrent_creates_with_one_run_key_make_one_run():
    """A-12, A.3-5: get-or-create is atomic when siblings race."""

    async def main():
        app = make_app()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock") as c:
            await _setup(c)
            responses = await asyncio.gather(
                *[
                    c.post(f"{BENCH}/runs", json={"runKey": "ci-777", "workerCount": 1, "config": {"n": i}}, headers=H)
                    for i in range(50)
                ]
            )
            listed = await c.get(f"{BENCH}/runs", headers=H)
        return responses, listed

    responses, listed = asyncio.run(main())
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * 49 + [201]
    assert len({r.json()["run"]["id"] for r in responses}) == 1
    assert len(listed.json()["items"]) == 1
    created = next(r for r in responses if r.status_code == 201)
    assert all(r.json()["run"]["config"] == created.json()["run"]["config"] for r in responses)  # first body wins


def test_twenty_concurrent_claims_on_five_pending_workers():
    """A-41, A-42: 5 assignments, 15 nulls, 5 distinct workers with disjoint ranges covering the tasks."""

    async def main():
        app = make_app()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mock") as c:
            await _setup(c)
            run = (await c.post(f"{BENCH}/runs", json={"totalTasks": 10, "participants": ["e2b"]}, headers=H)).json()
            base = f"{BENCH}/runs/{run['run']['id']}/participants/e2b/workers"
            planned = await c.post(base, json={"workerCount": 5, "targetConcurrency": 2}, headers=H)
            assert planned.status_code == 200, planned.text
            return await asyncio.gather(
                *[
                    c.post(base + "/claim", json={"processKind": "process", "processKey": f"p{i}"}, headers=H)
                    for i in range(20)
                ]
            )

    responses = asyncio.run(main())
    assert all(r.status_code == 200 for r in responses)
    assignments = [r.json()["assignment"] for r in responses]
    got = [a for a in assignments if a is not None]
    assert len(got) == 5 and assignments.count(None) == 15
    assert len({a["workerId"] for a in got}) == 5 and len({a["attemptId"] for a in got}) == 5
    covered = sorted(i for a in got for i in range(a["taskRange"]["start"], a["taskRange"]["end"] + 1))
    assert covered == list(range(10))

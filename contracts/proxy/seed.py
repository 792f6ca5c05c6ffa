"""Record -> replay: a recording seeds a fresh mock through the mock's own HTTP surface.

`seed_from_recording(api, exchanges, client)` replays what a recorded session *wrote* against a
fresh mock (its API operations and its `/__mock` control routes), so the state is built by the
mock's own rules: it stays stateful, ids and credits move as they would, and a new write lands on
top. Reads are not replayed; they only tell the loader what the recorded server already held.
Seeding is per-API knowledge, so an API opts in with a seeder in `registry.py` (BenchGen's is
below); the loader never touches a mock's store.

Recorded credentials are `[credential #n]` placeholders (`redact.py`). A credential the recording
saw minted (a `/__mock/tokens` answer) is re-minted on replay with the same body; any other (one
the client brought) becomes a fresh token of the mock's default user with every scope. Ids the
fresh mock assigns differently are mapped (`SeedResult.ids`) wherever a later request names them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from .redact import PLACEHOLDER
from .registry import seeder


@dataclass
class SeedResult:
    replayed: int = 0
    skipped: int = 0
    created: int = 0  # rows the recorded server held that the fresh mock lacked
    ids: dict[str, dict[int, int]] = field(default_factory=dict)  # kind -> recorded id -> the mock's id
    credentials: dict[str, str] = field(default_factory=dict)  # "[credential #n]" -> a credential of the mock
    failures: list[str] = field(default_factory=list)

    def map(self, kind: str, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return self.ids.get(kind, {}).get(value, value)
        return value


async def seed_from_recording(api: str, exchanges: Iterable[dict[str, Any]], client: httpx.AsyncClient) -> SeedResult:
    """Seed the mock `client` talks to (its base URL: the mock's root) from a recording of `api`."""
    return await seeder(api)(list(exchanges), client)


def seed_app(api: str, app: Any, exchanges: Iterable[dict[str, Any]]) -> SeedResult:
    """Seed an in-process mock app before it is served (`python -m mock_server --fixtures FILE`)."""

    async def run() -> SeedResult:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://mock") as client:
            return await seed_from_recording(api, exchanges, client)

    return asyncio.run(run())


# -- BenchGen -------------------------------------------------------------------------------------

SCOPES = ["benchmark:read", "benchmark:run"]
BENCHGEN_ROUTES: list[tuple[str, re.Pattern[str], tuple[str, ...]]] = [
    (method, re.compile(pattern), kinds)
    for method, pattern, kinds in [
        ("POST", r"^/__mock/users$", ()),
        ("POST", r"^/__mock/tokens$", ()),
        ("DELETE", r"^/__mock/tokens/(\d+)$", ("token",)),
        ("POST", r"^/__mock/competitions$", ()),
        ("POST", r"^/__mock/competitions/(\d+)/participants/(\d+)/approve$", ("competition", "user")),
        ("POST", r"^/__mock/submissions/(\d+)/finish$", ("submission",)),
        ("POST", r"^/__mock/clock$", ()),
        ("POST", r"^/__mock/reset$", ()),
        ("POST", r"^/api/competitions/(\d+)/register/$", ("competition",)),
        ("POST", r"^/models/api/queue_benchmark_run$", ()),
    ]
]
BODY_IDS = {"competition_id": "competition", "user_id": "user"}


def _route(method: str, path: str) -> tuple[re.Pattern[str], tuple[str, ...]] | None:
    for want, pattern, kinds in BENCHGEN_ROUTES:
        if want == method and pattern.match(path):
            return pattern, kinds
    return None


def _rewrite_path(path: str, pattern: re.Pattern[str], kinds: tuple[str, ...], result: SeedResult) -> str:
    found = pattern.match(path)
    assert found is not None
    out, last = [], 0
    for index, kind in enumerate(kinds, start=1):
        start, end = found.span(index)
        out += [path[last:start], str(result.map(kind, int(found.group(index))))]
        last = end
    return "".join([*out, path[last:]])


async def _credential(recorded: dict[str, str], client: httpx.AsyncClient, result: SeedResult) -> dict[str, str]:
    authorization = recorded.get("authorization")
    if not authorization:
        return {}
    found = PLACEHOLDER.search(authorization)
    if found is None:
        return {}
    placeholder = found.group(0)
    if placeholder not in result.credentials:
        minted = await client.post("/__mock/tokens", json={"scopes": SCOPES})
        minted.raise_for_status()
        result.credentials[placeholder] = minted.json()["token"]
    return {"Authorization": f"Bearer {result.credentials[placeholder]}"}


async def _public_ids(client: httpx.AsyncClient) -> set[int]:
    ids: set[int] = set()
    url: str | None = "/api/competitions/public/?page_size=100"
    while url:
        page = await client.get(url)
        if page.status_code != 200:
            break
        body = page.json()
        ids |= {item["id"] for item in body.get("results", []) if isinstance(item, dict)}
        url = httpx.URL(body["next"]).raw_path.decode() if body.get("next") else None
    return ids


async def seed_benchgen(exchanges: list[dict[str, Any]], client: httpx.AsyncClient) -> SeedResult:
    """BenchGen: users, tokens, competitions, joins, queued runs and their outcomes become rows."""
    result = SeedResult()
    ok = [e for e in exchanges if 200 <= (e.get("response") or {}).get("status", 0) < 300]
    created_by_writes = {
        (e["response"].get("body") or {}).get("id")
        for e in ok
        if e["method"] == "POST" and e["path"] == "/__mock/competitions" and isinstance(e["response"].get("body"), dict)
    }
    # competitions the recorded server listed that were not made in the session and the mock lacks
    seen: dict[int, dict[str, Any]] = {}
    for e in ok:
        body = e["response"].get("body")
        if e.get("operation") == "listPublicCompetitions" and isinstance(body, dict):
            for item in body.get("results") or []:
                if isinstance(item, dict) and isinstance(item.get("id"), int):
                    seen.setdefault(item["id"], item)
    missing = set(seen) - created_by_writes - await _public_ids(client)
    for old in sorted(missing):
        item = seen[old]
        made = await client.post("/__mock/competitions", json={"name": str(item.get("name") or f"competition {old}")})
        if made.status_code == 201:
            result.ids.setdefault("competition", {})[old] = made.json()["id"]
            result.created += 1
    outcomes: dict[int, dict[str, Any]] = {}
    owners: dict[int, dict[str, str]] = {}
    for e in exchanges:
        status = (e.get("response") or {}).get("status", 0)
        method, path = e["method"], e["path"]
        body = (e.get("response") or {}).get("body")
        if e.get("operation") == "getRunStatus" and status == 200 and isinstance(body, dict) and body.get("done"):
            sid = int(path.split("/")[3])
            outcomes[sid] = {"score": body.get("score")} if body.get("score") is not None else {"error": body["error"]}
        route = _route(method, path)
        if route is None or not 200 <= status < 300:
            result.skipped += route is not None
            continue
        pattern, kinds = route
        sent = (e.get("request") or {}).get("body")
        payload = {k: result.map(BODY_IDS[k], v) if k in BODY_IDS else v for k, v in sent.items()} if sent else None
        headers = await _credential((e.get("request") or {}).get("headers") or {}, client, result)
        answer = await client.request(
            method, _rewrite_path(path, pattern, kinds, result), json=payload, headers=headers
        )
        if not 200 <= answer.status_code < 300:
            result.failures.append(f"{method} {path}: {answer.status_code} {answer.text[:200]}")
            continue
        result.replayed += 1
        fresh = answer.json() if answer.content and "json" in answer.headers.get("content-type", "") else None
        recorded = body if isinstance(body, dict) else {}
        if path == "/__mock/reset":
            result.ids.clear()
            result.credentials.clear()
        elif path == "/__mock/users":
            result.ids.setdefault("user", {})[recorded["id"]] = fresh["id"]
        elif path == "/__mock/tokens":
            result.ids.setdefault("token", {})[recorded["id"]] = fresh["id"]
            placeholder = PLACEHOLDER.search(str(recorded.get("token", "")))
            if placeholder is not None:
                result.credentials[placeholder.group(0)] = fresh["token"]
        elif path == "/__mock/competitions":
            result.ids.setdefault("competition", {})[recorded["id"]] = fresh["id"]
        elif e.get("operation") == "queueBenchmarkRun":
            result.ids.setdefault("submission", {})[recorded["submission_id"]] = fresh["submission_id"]
            owners[fresh["submission_id"]] = headers
    # outcomes the recorded server reported that the mock has not reached by its own clock
    for old, outcome in outcomes.items():
        new = result.map("submission", old)
        if old not in result.ids.get("submission", {}):
            continue
        current = await client.get(f"/api/submissions/{new}/run_status/", headers=owners.get(new, {}))
        if current.status_code == 200 and current.json().get("done"):
            continue
        finished = await client.post(f"/__mock/submissions/{new}/finish", json=outcome)
        if finished.status_code == 200:
            result.replayed += 1
    return result

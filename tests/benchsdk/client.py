"""A test client that calls the mock the way @benchsdk/api does: root URL + `/api/v1`,
`Authorization: Bearer`, JSON bodies, path params percent-encoded, `{envelope}` responses."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.testclient import TestClient

from mock_server.benchsdk.fixtures import SEED_API_KEY
from mock_server.engine.compile import Compiler

BASE = "/api/v1"


def make_app(**overrides: Any):
    from mock_server.app import create_app

    return create_app(api="benchsdk", **overrides)


def enc(value: str) -> str:
    return quote(value, safe="")


VALIDATORS: dict[tuple[str, str], Any] = {}  # (operationId, status) → compiled schema, for the unchanging spec


def check_response(client: TestClient, method: str, path: str, response: Any) -> None:
    """A 2xx JSON body validates against the schema its operation declares for that status."""
    api = client.app.state.api  # type: ignore[attr-defined]
    op, _, _ = api.router.match(method, path)
    assert op is not None, (method, path)
    status = str(response.status_code)
    content = op.raw["responses"][status].get("content", {})
    if "application/json" not in content:
        return
    key = (op.operation_id, status)
    if key not in VALIDATORS:
        VALIDATORS[key] = Compiler(api.spec).validator(content["application/json"]["schema"])
    problems = [e.message for e in VALIDATORS[key].iter_errors(response.json())]
    assert not problems, (op.operation_id, problems[:3])


class Platform:
    """One process's view of the platform (one credential)."""

    def __init__(self, client: TestClient, token: str = SEED_API_KEY, headers: dict[str, str] | None = None) -> None:
        self.client = client
        self.headers = {"Authorization": f"Bearer {token}", **(headers or {})}
        self.calls: list[tuple[str, str]] = []

    # ---- transport -----------------------------------------------------------------------
    def call(self, method: str, path: str, body: Any = None, *, params: dict | None = None, expect: int | None = 200):
        self.calls.append((method, path))
        response = self.client.request(method, BASE + path, json=body, params=params, headers=self.headers)
        if expect is not None:
            assert response.status_code == expect, (method, path, response.status_code, response.text)
        if response.is_success:
            check_response(self.client, method, BASE + path.split("?")[0], response)
        return response

    def get(self, path: str, **params: Any) -> dict:
        return self.call("GET", path, params={k: v for k, v in params.items() if v is not None}).json()

    # ---- write path, calls 1–10 -------------------------------------------------------------
    def upsert_benchmark(self, slug: str, body: dict) -> dict:
        return self.call("PUT", f"/benchmarks/{enc(slug)}", body).json()["benchmark"]

    def create_run(self, slug: str, body: dict, expect: int | None = None) -> dict:
        response = self.call("POST", f"/benchmarks/{enc(slug)}/runs", body, expect=None)
        assert response.status_code in ((200, 201) if expect is None else (expect,)), response.text
        return response.json()

    def register(self, slug: str, run_id: str, participant: str, total: int) -> dict:
        return self.call(
            "PUT", f"/benchmarks/{enc(slug)}/runs/{enc(run_id)}/participants/{enc(participant)}", {"totalTasks": total}
        ).json()["participant"]

    def plan(self, slug: str, run_id: str, participant: str, workers: int, target: int) -> list[dict]:
        return self.call(
            "POST",
            f"/benchmarks/{enc(slug)}/runs/{enc(run_id)}/participants/{enc(participant)}/workers",
            {"workerCount": workers, "targetConcurrency": target},
        ).json()["items"]

    def claim(self, slug: str, run_id: str, participant: str, key: str = "ci-runner-01") -> dict | None:
        return self.call(
            "POST",
            f"/benchmarks/{enc(slug)}/runs/{enc(run_id)}/participants/{enc(participant)}/workers/claim",
            {"processKind": "process", "processKey": key},
        ).json()["assignment"]

    def worker_path(self, slug: str, run_id: str, worker_id: str) -> str:
        return f"/benchmarks/{enc(slug)}/runs/{enc(run_id)}/workers/{enc(worker_id)}"

    def heartbeat(self, slug, run_id, a: dict, expect: int = 200, **fields) -> Any:
        body = {"attemptId": a["attemptId"], **fields}
        return self.call("POST", self.worker_path(slug, run_id, a["workerId"]) + "/heartbeat", body, expect=expect)

    def events(
        self, slug, run_id, a: dict, seq: int, records: list[dict], *, final: bool = False, expect: int = 200
    ) -> Any:
        body = {
            "type": "task_results",
            "attemptId": a["attemptId"],
            "sequenceNumber": seq,
            "isFinal": final,
            "records": records,
        }
        return self.call("POST", self.worker_path(slug, run_id, a["workerId"]) + "/events", body, expect=expect)

    def artifact(
        self,
        slug,
        run_id,
        a: dict,
        *,
        kind: str,
        name: str,
        content_type: str,
        data: bytes,
        metadata: dict | None = None,
    ) -> dict:
        created = self.call(
            "POST",
            self.worker_path(slug, run_id, a["workerId"]) + "/artifacts",
            {
                "attemptId": a["attemptId"],
                "kind": kind,
                "contentType": content_type,
                "name": name,
                "metadata": metadata or {},
            },
        ).json()
        put = self.client.put(created["uploadUrl"], content=data, headers={"Content-Type": content_type})
        assert put.status_code == 200, put.text
        return created

    def close(self, slug, run_id, a: dict, outcome: str, expect: int = 200, **fields) -> Any:
        return self.call(
            "POST",
            self.worker_path(slug, run_id, a["workerId"]) + f"/{outcome}",
            {"attemptId": a["attemptId"], **fields},
            expect=expect,
        )

    def summary(self, slug: str, run_id: str, body: dict) -> dict:
        return self.call("POST", f"/benchmarks/{enc(slug)}/runs/{enc(run_id)}/summary", body).json()
